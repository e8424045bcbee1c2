/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --pprof read back by pprof itself (`go tool pprof -raw`): the profile must say what the folded
 * output of the same session says, to the byte, and carry the addresses' mappings with their
 * file names and build-ids. Skipped when Go is not installed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

#define MAX_LOCS 4096
#define MAX_TYPES 16

static void setup(void)
{
	h_require_root();
}

TestSuite(pprof, .init = setup, .fini = h_cleanup, .timeout = 120);

/* The go command: on PATH, or where the official tarball installs it. NULL when neither. */
static const char *find_go(void)
{
	static char found[4096];
	const char *path = getenv("PATH");

	for (const char *p = path; p && *p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL) {
		size_t len = strchr(p, ':') ? (size_t)(strchr(p, ':') - p) : strlen(p);

		snprintf(found, sizeof(found), "%.*s/go", (int)len, p);
		if (len && access(found, X_OK) == 0)
			return found;
	}
	return access("/usr/local/go/bin/go", X_OK) == 0 ? "/usr/local/go/bin/go" : NULL;
}

/* What `go tool pprof -raw` printed, parsed. */
struct raw {
	char types[MAX_TYPES][48]; /* "resident/bytes[dflt]" */
	size_t ntypes;
	struct raw_sample {
		uint64_t v[MAX_TYPES];
		uint32_t locs[128];
		size_t nlocs;
		char thread[32];
	} *samples;
	size_t nsamples;
	char *loc_name[MAX_LOCS]; /* by location id */
	uint64_t loc_addr[MAX_LOCS];
	unsigned loc_map[MAX_LOCS];
	char *mappings; /* the Mappings section, as printed */
	char *text;	/* all of it */
};

static void parse_sample(struct raw *r, const char *line)
{
	struct raw_sample *s;
	const char *colon = strchr(line, ':');
	char *end;
	const char *p = line;

	r->samples = realloc(r->samples, (r->nsamples + 1) * sizeof(*r->samples));
	cr_assert_not_null(r->samples);
	s = memset(&r->samples[r->nsamples++], 0, sizeof(*s));
	for (size_t i = 0; i < r->ntypes; i++, p = end)
		s->v[i] = strtoull(p, &end, 10);
	cr_assert_eq(end, colon, "a sample line with %zu values: %s", r->ntypes, line);
	for (p = colon + 1; s->nlocs < 128; p = end) {
		unsigned long id = strtoul(p, &end, 10);

		if (end == p)
			break;
		cr_assert(id > 0 && id < MAX_LOCS, "location id %lu", id);
		s->locs[s->nlocs++] = (uint32_t)id;
	}
}

static void parse_location(struct raw *r, const char *line)
{
	unsigned id, map = 0;
	unsigned long long addr;
	char name[256];
	int n = 0;

	if (sscanf(line, " %u: 0x%llx %n", &id, &addr, &n) != 2)
		return; /* an inlined frame's line: none here */
	cr_assert(id > 0 && id < MAX_LOCS);
	line += n;
	if (sscanf(line, "M=%u %n", &map, &n) == 1)
		line += n;
	cr_assert_eq(sscanf(line, "%255s", name), 1, "%s", line);
	r->loc_name[id] = strdup(name);
	r->loc_addr[id] = addr;
	r->loc_map[id] = map;
}

/* `@go tool pprof -raw @file`, parsed into @r. */
static void read_raw(const char *go, const char *file, struct raw *r)
{
	char cmd[4400], *line, *save = NULL, *copy;
	enum { HEAD, TYPES, SAMPLES, LOCATIONS, MAPPINGS } section = HEAD;
	struct raw_sample *last = NULL;
	FILE *p;
	int status;

	memset(r, 0, sizeof(*r));
	snprintf(cmd, sizeof(cmd), "'%s' tool pprof -raw '%s' 2>&1", go, file);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	{
		size_t len = 0, cap = 1 << 16, got;

		r->text = malloc(cap);
		while (r->text && (got = fread(r->text + len, 1, cap - len - 1, p)) > 0) {
			len += got;
			if (cap - len < 4096)
				r->text = realloc(r->text, cap *= 2);
		}
		cr_assert_not_null(r->text);
		r->text[len] = '\0';
	}
	status = pclose(p);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "go tool pprof -raw failed:\n%.2000s", r->text);
	copy = strdup(r->text);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *t = line + strspn(line, " ");

		if (!strcmp(line, "Samples:")) {
			section = TYPES;
		} else if (!strcmp(line, "Locations")) {
			section = LOCATIONS;
		} else if (!strcmp(line, "Mappings")) {
			section = MAPPINGS;
			r->mappings = strdup(r->text + (line - copy) + strlen("Mappings\n"));
		} else if (section == TYPES) {
			char *tok, *s2 = NULL;

			for (tok = strtok_r(line, " ", &s2); tok && r->ntypes < MAX_TYPES;
			     tok = strtok_r(NULL, " ", &s2))
				snprintf(r->types[r->ntypes++], sizeof(r->types[0]), "%s", tok);
			section = SAMPLES;
		} else if (section == SAMPLES && (*t >= '0' && *t <= '9')) {
			parse_sample(r, t);
			last = &r->samples[r->nsamples - 1];
		} else if (section == SAMPLES && last && strstr(t, "thread:[")) {
			sscanf(strstr(t, "thread:[") + 8, "%31[^]]", last->thread);
		} else if (section == LOCATIONS) {
			parse_location(r, line);
		}
	}
	free(copy);
	cr_assert_gt(r->ntypes, 0, "no sample types in:\n%.2000s", r->text);
	cr_assert_not_null(r->mappings, "no Mappings section in:\n%.2000s", r->text);
}

static void raw_free(struct raw *r)
{
	for (size_t i = 0; i < MAX_LOCS; i++)
		free(r->loc_name[i]);
	free(r->samples);
	free(r->mappings);
	free(r->text);
}

/* The index of sample type @name ("resident/bytes"), or -1. */
static int type_index(const struct raw *r, const char *name)
{
	for (size_t i = 0; i < r->ntypes; i++)
		if (!strncmp(r->types[i], name, strlen(name)))
			return (int)i;
	return -1;
}

/* Sum of type @t over the samples one of whose frames is @fn (all when NULL); sets *@loc to the
 * id of a location named @fn. */
static uint64_t raw_sum(const struct raw *r, int t, const char *fn, unsigned *loc)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < r->nsamples; i++) {
		const struct raw_sample *s = &r->samples[i];
		bool has = !fn;

		for (size_t j = 0; j < s->nlocs && !has; j++) {
			const char *name = r->loc_name[s->locs[j]];

			if (name && !strcmp(name, fn)) {
				has = true;
				*loc = s->locs[j];
			}
		}
		if (has)
			sum += s->v[t];
	}
	return sum;
}

/* The thread label of the samples holding location @loc; "" when they disagree. */
static const char *raw_thread(const struct raw *r, unsigned loc)
{
	const char *thread = NULL;

	for (size_t i = 0; i < r->nsamples; i++)
		for (size_t j = 0; j < r->samples[i].nlocs; j++)
			if (r->samples[i].locs[j] == loc) {
				if (thread && strcmp(thread, r->samples[i].thread))
					return "";
				thread = r->samples[i].thread;
			}
	return thread ? thread : "";
}

/* The line of the Mappings section whose id is @id ("1: 0x.../0x.../0x... FILE BUILDID"). */
static void mapping_line(const struct raw *r, unsigned id, char *out, size_t len)
{
	char prefix[16];
	const char *m = r->mappings;

	snprintf(prefix, sizeof(prefix), "%u: ", id);
	out[0] = '\0';
	for (; m && *m; m = strchr(m, '\n') ? strchr(m, '\n') + 1 : NULL) {
		if (!strncmp(m, prefix, strlen(prefix))) {
			snprintf(out, len, "%.*s", (int)strcspn(m, "\n"), m);
			return;
		}
	}
}

/* An attach-mode run of @workload with `--pprof FILE @args`, its profile read back into @raw. */
static void pprof_run(struct h_run *r, struct raw *raw, const char *workload,
		      const char *const *args)
{
	const char *go = find_go();
	const char *fl[8] = { "--pprof" };
	char dir[64], file[128];
	size_t n = 2;

	if (!go)
		cr_skip_test("Go is not installed (no go on PATH nor /usr/local/go/bin/go): "
			     "go tool pprof cannot read the profile back");
	h_temp_dir_ok(dir);
	snprintf(file, sizeof(file), "%s/profile.pb.gz", dir);
	fl[1] = file;
	for (; args && *args && n < 7; args++)
		fl[n++] = *args;
	h_attach_run_ok(r, workload, NULL, fl);
	read_raw(go, file, raw);
}

Test(pprof, threads_read_back_by_go_tool_pprof)
{
	char want[4200], line[4200];
	unsigned long long start = 0, limit = 0;
	int resident, released, faults;
	struct h_run r;
	struct raw raw;

	pprof_run(&r, &raw, "threads", NULL);

	resident = type_index(&raw, "resident/bytes");
	released = type_index(&raw, "released/bytes");
	faults = type_index(&raw, "faults/count");
	cr_assert(resident >= 0 && released >= 0 && faults >= 0, "sample types: %s %s %s ...",
		  raw.types[0], raw.types[1], raw.types[2]);
	cr_expect_str_eq(raw.types[resident], "resident/bytes[dflt]", "the default type");
	cr_expect_eq(raw_sum(&raw, resident, NULL, NULL), h_folded_total(&r.folded),
		     "total resident: pprof %lu, folded %lu",
		     (unsigned long)raw_sum(&raw, resident, NULL, NULL),
		     (unsigned long)h_folded_total(&r.folded));
	cr_log_info("pprof: %zu samples, resident %lu B (folded %lu B), released %lu B",
		    raw.nsamples, (unsigned long)raw_sum(&raw, resident, NULL, NULL),
		    (unsigned long)h_folded_total(&r.folded),
		    (unsigned long)raw_sum(&raw, released, NULL, NULL));
	for (size_t i = 0; i < H_NTOUCHERS; i++) {
		unsigned loc = 0;
		uint64_t got = raw_sum(&raw, resident, h_touchers[i].fn, &loc);

		cr_log_info("%s: pprof %lu B, folded %lu B, thread %s, mapping %u", h_touchers[i].fn,
			    (unsigned long)got,
			    (unsigned long)h_folded_frame(&r.folded, h_touchers[i].fn),
			    raw_thread(&raw, loc), raw.loc_map[loc]);

		cr_expect_eq(got, h_folded_frame(&r.folded, h_touchers[i].fn),
			     "%s: pprof %lu, folded %lu", h_touchers[i].fn, (unsigned long)got,
			     (unsigned long)h_folded_frame(&r.folded, h_touchers[i].fn));
		h_within_ok(h_touchers[i].fn, got, (int64_t)h_touchers[i].bytes, &r.folded);
		cr_expect_geq(raw_sum(&raw, faults, h_touchers[i].fn, &loc),
			      h_touchers[i].bytes / 4096, "%s: a fault per page", h_touchers[i].fn);
		cr_assert_gt(loc, 0, "no location named %s", h_touchers[i].fn);
		cr_expect_str_eq(raw_thread(&raw, loc), h_touchers[i].thread);
		cr_expect_neq(raw.loc_addr[loc], 0, "%s has no address", h_touchers[i].fn);
		/* its mapping: the workload's file, and a build-id (gcc's default: 20 bytes) */
		mapping_line(&raw, raw.loc_map[loc], line, sizeof(line));
		snprintf(want, sizeof(want), " %s/threads ", getenv("WORKLOADS"));
		cr_expect(strstr(line, want), "%s: mapping %u is not the workload's: '%s'",
			  h_touchers[i].fn, raw.loc_map[loc], line);
		cr_expect(strstr(line, want) && strspn(strstr(line, want) + strlen(want),
							"0123456789abcdef") == 40,
			  "no build-id after the file name: '%s'", line);
		cr_expect(sscanf(line, "%*u: 0x%llx/0x%llx", &start, &limit) == 2 &&
				  start <= raw.loc_addr[loc] && raw.loc_addr[loc] < limit,
			  "%s at %#llx, outside its mapping '%s'", h_touchers[i].fn,
			  (unsigned long long)raw.loc_addr[loc], line);
	}
	mapping_line(&raw, 1, line, sizeof(line));
	cr_expect(strstr(line, "/threads "), "mapping 1 is the main binary: '%s'", line);
	raw_free(&raw);
	h_folded_free(&r.folded);
}

/*
 * --vm --metric reserved: the memory call families are sample types too, the chosen one the
 * default; the call is a pseudo-frame (no address, no mapping) below its caller.
 */
Test(pprof, vm_types_and_call_frames)
{
	static const char *const fl[] = { "--vm", "--metric", "reserved", NULL };
	int reserved, unmapped, resident;
	unsigned loc = 0;
	struct h_run r;
	struct raw raw;

	pprof_run(&r, &raw, "vmcalls", fl);
	reserved = type_index(&raw, "reserved/bytes");
	unmapped = type_index(&raw, "unmapped/bytes");
	resident = type_index(&raw, "resident/bytes");
	cr_assert(reserved >= 0 && unmapped >= 0 && resident >= 0, "sample types: %s %s %s ...",
		  raw.types[0], raw.types[1], raw.types[2]);
	cr_expect_str_eq(raw.types[reserved], "reserved/bytes[dflt]");
	cr_expect_str_eq(raw.types[resident], "resident/bytes", "only one default");
	cr_expect_eq(raw_sum(&raw, reserved, NULL, NULL), h_folded_total(&r.folded),
		     "reserved: pprof %lu, folded %lu",
		     (unsigned long)raw_sum(&raw, reserved, NULL, NULL),
		     (unsigned long)h_folded_total(&r.folded));
	cr_expect_eq(raw_sum(&raw, reserved, NULL, NULL), 35 * H_MIB);
	cr_expect_eq(raw_sum(&raw, unmapped, NULL, NULL), 26 * H_MIB);
	/* vm_unmap's 20 MiB (test_vm.c); vm_fail's munmap fails */
	cr_expect_eq(raw_sum(&raw, unmapped, "[munmap]", &loc), 20 * H_MIB);
	cr_assert_gt(loc, 0, "no [munmap] location");
	cr_expect_eq(raw.loc_addr[loc], 0, "a pseudo-frame has no address");
	cr_expect_eq(raw.loc_map[loc], 0, "a pseudo-frame has no mapping");
	raw_free(&raw);
	h_folded_free(&r.folded);
}
