/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * /proc/PID/maps lines look like
 *   55d0c8a4e000-55d0c8a50000 r-xp 00002000 08:01 1316528    /usr/bin/cat
 * The path is the rest of the line after the inode and its padding, so it may hold spaces; the
 * kernel escapes only '\n' in it (as "\012") and appends " (deleted)" for an unlinked file.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "symbols/procmaps.h"

static const char deleted_suffix[] = " (deleted)";

static uint32_t parse_perms(const char *p)
{
	uint32_t perms = 0;

	if (p[0] == 'r')
		perms |= PROCMAP_READ;
	if (p[1] == 'w')
		perms |= PROCMAP_WRITE;
	if (p[2] == 'x')
		perms |= PROCMAP_EXEC;
	if (p[3] == 'p')
		perms |= PROCMAP_PRIVATE;
	return perms;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The number in @base (16 or 10) at *@p after blanks, *@p moved past it; false when there is
 * none or it overflows. By hand, not sscanf(): a fork storm has faultline parse thousands of
 * maps a second, and sscanf's format interpretation was a fifth of its time. */
static bool take_num(const char **p, int base, unsigned long long *v)
{
	const char *s = *p;
	char *end;

	while (is_blank(*s))
		s++;
	if (!(base == 16 ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s)))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (errno)
		return false;
	*p = end;
	return true;
}

/* The character @c at *@p, *@p moved past it. */
static bool take_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

int procmaps__parse_line(const char *line, struct procmap_entry *e)
{
	unsigned long long start, end, off, ino, maj, min;
	const char *perms;
	size_t plen, slen = sizeof(deleted_suffix) - 1;

	memset(e, 0, sizeof(*e));
	if (!take_num(&line, 16, &start) || !take_char(&line, '-') || !take_num(&line, 16, &end))
		return -EINVAL;
	while (is_blank(*line))
		line++;
	perms = line;
	while (*line && !is_blank(*line) && *line != '\n')
		line++;
	if (line - perms != 4 || end < start)
		return -EINVAL;
	if (!take_num(&line, 16, &off) || !take_num(&line, 16, &maj) || !take_char(&line, ':') ||
	    !take_num(&line, 16, &min) || !take_num(&line, 10, &ino) || maj > UINT32_MAX ||
	    min > UINT32_MAX)
		return -EINVAL;
	if (*line && !is_blank(*line) && *line != '\n')
		return -EINVAL; /* junk glued to the inode */
	while (is_blank(*line))
		line++;
	plen = strcspn(line, "\n");

	e->start = start;
	e->end = end;
	e->offset = off;
	e->inode = ino;
	e->dev_major = (uint32_t)maj;
	e->dev_minor = (uint32_t)min;
	e->perms = parse_perms(perms);
	if (plen > slen && !strncmp(line + plen - slen, deleted_suffix, slen)) {
		plen -= slen;
		e->is_deleted = true;
	}
	e->is_special = line[0] == '[';
	e->path = strndup(line, plen);
	return e->path ? 0 : -ENOMEM;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct procmap_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int push_entry(struct procmaps *m, const struct procmap_entry *e)
{
	struct procmap_entry *n = grow__reserve(m->entries, &m->cap, m->nr, sizeof(*n));

	if (!n)
		return -ENOMEM;
	m->entries = n;
	m->entries[m->nr++] = *e;
	return 0;
}

int procmaps__parse(FILE *f, struct procmaps *out)
{
	struct procmap_entry e;
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '\n')
			continue;
		err = procmaps__parse_line(line, &e);
		if (err)
			goto cleanup;
		err = push_entry(out, &e);
		if (err) {
			free(e.path);
			goto cleanup;
		}
	}
	if (ferror(f)) {
		err = -EIO;
		goto cleanup;
	}
	/* the kernel prints in address order already; fixtures and future sources may not */
	if (out->nr)
		qsort(out->entries, out->nr, sizeof(*out->entries), cmp_entry);
cleanup:
	free(line);
	if (err)
		procmaps__free(out);
	return err;
}

void procmaps__free(struct procmaps *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr; i++)
		free(m->entries[i].path);
	free(m->entries);
	memset(m, 0, sizeof(*m));
}

/* The first entry ending after @addr (entries are sorted and do not overlap), or m->nr. */
static size_t first_ending_after(const struct procmaps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->entries[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct procmap_entry *procmaps__find(const struct procmaps *m, uint64_t addr)
{
	size_t i = first_ending_after(m, addr);

	return i < m->nr && m->entries[i].start <= addr ? &m->entries[i] : NULL;
}

bool procmaps__overlaps(const struct procmaps *m, uint64_t start, uint64_t end)
{
	size_t i = first_ending_after(m, start);

	return i < m->nr && m->entries[i].start < end;
}

int procmap_entry__write(FILE *f, const struct procmap_entry *e)
{
	const uint32_t p = e->perms;

	return fprintf(f,
		       "%" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %02x:%02x %" PRIu64
		       " %s%s\n",
		       e->start, e->end, p & PROCMAP_READ ? 'r' : '-',
		       p & PROCMAP_WRITE ? 'w' : '-', p & PROCMAP_EXEC ? 'x' : '-',
		       p & PROCMAP_PRIVATE ? 'p' : 's', e->offset, e->dev_major, e->dev_minor,
		       e->inode, e->path, e->is_deleted ? deleted_suffix : "") < 0 ?
		       -EIO :
		       0;
}

bool procmap_entry__is_file(const struct procmap_entry *e)
{
	return !e->is_special && e->path[0] == '/' && e->inode != 0;
}

const char *procmap_entry__basename(const struct procmap_entry *e)
{
	const char *slash;

	if (e->is_special || e->path[0] != '/')
		return e->path;
	slash = strrchr(e->path, '/');
	return slash[1] ? slash + 1 : e->path;
}
