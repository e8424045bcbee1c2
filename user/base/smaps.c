// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "base/smaps.h"
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "base/procfs.h"

struct smaps_field {
	const char *key; /* with the colon: "Pss:" must not take "Pss_Dirty:" */
	size_t off;
};

static const struct smaps_field fields[] = {
	{ "Rss:", offsetof(struct smaps_entry, rss) },
	{ "Pss:", offsetof(struct smaps_entry, pss) },
	{ "Shared_Clean:", offsetof(struct smaps_entry, shared_clean) },
	{ "Shared_Dirty:", offsetof(struct smaps_entry, shared_dirty) },
	{ "Private_Clean:", offsetof(struct smaps_entry, private_clean) },
	{ "Private_Dirty:", offsetof(struct smaps_entry, private_dirty) },
	{ "Anonymous:", offsetof(struct smaps_entry, anonymous) },
	{ "AnonHugePages:", offsetof(struct smaps_entry, anon_huge) },
	{ "Shared_Hugetlb:", offsetof(struct smaps_entry, shared_hugetlb) },
	{ "Private_Hugetlb:", offsetof(struct smaps_entry, private_hugetlb) },
	{ "Swap:", offsetof(struct smaps_entry, swap) },
	{ "SwapPss:", offsetof(struct smaps_entry, swap_pss) },
};

static const struct {
	char code[3];
	uint32_t bit;
} vm_flags[] = {
	{ "gd", SMAPS_VM_GROWSDOWN }, { "ht", SMAPS_VM_HUGETLB },    { "sh", SMAPS_VM_SHARED },
	{ "io", SMAPS_VM_IO },	      { "nh", SMAPS_VM_NOHUGEPAGE }, { "hg", SMAPS_VM_HUGEPAGE },
};

/* "   1234 kB" into bytes. */
static int parse_kb(const char *s, uint64_t *out)
{
	unsigned long long kb;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	kb = strtoull(s, &end, 10);
	if (errno || kb > UINT64_MAX / 1024)
		return -EINVAL;
	while (*end == ' ' || *end == '\t')
		end++;
	if (strncmp(end, "kB", 2) || (end[2] != '\0' && end[2] != '\n'))
		return -EINVAL;
	*out = (uint64_t)kb * 1024;
	return 0;
}

static uint32_t parse_vm_flags(const char *s)
{
	uint32_t bits = 0;

	/* two-letter codes separated by spaces */
	while (*s) {
		size_t n;

		s += strspn(s, " \t\n");
		n = strcspn(s, " \t\n");
		for (size_t i = 0; n == 2 && i < sizeof(vm_flags) / sizeof(vm_flags[0]); i++)
			if (s[0] == vm_flags[i].code[0] && s[1] == vm_flags[i].code[1])
				bits |= vm_flags[i].bit;
		s += n;
	}
	return bits;
}

/* A field line: "Key: value". Unknown keys are skipped; a known one with a bad figure is
 * -EINVAL. */
static int parse_field(const char *line, struct smaps_entry *e)
{
	if (!strncmp(line, "VmFlags:", 8)) {
		e->vm_flags = parse_vm_flags(line + 8);
		return 0;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		size_t klen = strlen(fields[i].key);

		if (!strncmp(line, fields[i].key, klen))
			return parse_kb(line + klen, (uint64_t *)((char *)e + fields[i].off));
	}
	return 0;
}

/* True for a field line: its first word ends in a colon (a mapping line starts with hex
 * digits and a dash). */
static bool is_field(const char *line)
{
	size_t n = strcspn(line, " \t\n");

	return n && line[n - 1] == ':';
}

/* A mapping line: "start-end perms offset major:minor inode   name". */
static int parse_mapping(const char *line, struct smaps_entry *e)
{
	char perms[5];
	uint64_t start, end, offset, inode;
	unsigned major, minor;
	const char *name;
	size_t len;
	int used = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 "%n", &start,
		   &end, perms, &offset, &major, &minor, &inode, &used) != 7 ||
	    !used || strlen(perms) != 4 || start > end)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->start = start;
	e->end = end;
	e->offset = offset;
	e->dev_major = major;
	e->dev_minor = minor;
	e->inode = inode;
	e->perms = (perms[0] == 'r' ? SMAPS_READ : 0) | (perms[1] == 'w' ? SMAPS_WRITE : 0) |
		   (perms[2] == 'x' ? SMAPS_EXEC : 0) | (perms[3] == 's' ? SMAPS_SHARED : 0);
	name = line + used;
	while (*name == ' ' || *name == '\t')
		name++;
	len = strcspn(name, "\n");
	e->name = strndup(name, len);
	return e->name ? 0 : -ENOMEM;
}

void smaps__free(struct smaps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

int smaps__parse(FILE *f, struct smaps *out)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	while (!err && getline(&line, &cap, f) > 0) {
		struct smaps_entry *v;

		if (line[0] == '\n')
			continue;
		if (is_field(line)) {
			err = out->n ? parse_field(line, &out->v[out->n - 1]) : -EINVAL;
			continue;
		}
		v = grow__reserve(out->v, &out->cap, out->n, sizeof(*v));
		if (!v) {
			err = -ENOMEM;
			break;
		}
		out->v = v;
		err = parse_mapping(line, &out->v[out->n]);
		out->n += !err;
	}
	free(line);
	if (err)
		smaps__free(out);
	return err;
}

int smaps__read(pid_t pid, struct smaps *out)
{
	FILE *f;
	int err = procfs__fopen(pid, "smaps", &f);

	if (err)
		return err;
	err = smaps__parse(f, out);
	/* a process that exits while the kernel writes it: the text stops short */
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (err)
		smaps__free(out);
	return err;
}
