// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "symbols/debugfile.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/procfs.h"
#include "symbols/buildid.h"

struct search {
	const struct debugfile_query *q;
	struct stat file; /* the file itself, never its own debug file */
	int (*try)(int fd, void *arg);
	void *arg;
	char **found;
};

/* Tries @cand as the debug file. 1: used, 0: not, or -errno. */
static int try_path(struct search *s, const char *cand)
{
	struct stat st;
	int fd, n;

	fd = procfs__open_in_root(s->q->rootfd, cand);
	if (fd < 0)
		return 0;
	/* a debuglink naming the file itself (or a hard link to it) has nothing more to give */
	if (fstat(fd, &st) || (st.st_dev == s->file.st_dev && st.st_ino == s->file.st_ino)) {
		close(fd);
		return 0;
	}
	n = s->try(fd, s->arg);
	close(fd);
	if (n <= 0)
		return n;
	*s->found = strdup(cand);
	return *s->found ? 1 : -ENOMEM;
}

/* @debug_dir/.build-id/xx/rest.debug */
static int try_build_id(struct search *s)
{
	const struct debugfile_query *q = s->q;
	char hex[2 * DEBUGFILE_MAX_BUILD_ID + 1], cand[PATH_MAX];

	if (q->build_id_len < 2 || q->build_id_len > DEBUGFILE_MAX_BUILD_ID)
		return 0;
	buildid__hex(q->build_id, q->build_id_len, hex);
	if (snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", q->debug_dir, hex,
		     hex + 2) >= (int)sizeof(cand))
		return 0;
	return try_path(s, cand);
}

int debugfile__find(int fd, const struct debugfile_query *q, int (*try)(int fd, void *arg),
		    void *arg, char **found)
{
	struct search s = { .q = q, .try = try, .arg = arg, .found = found };
	char cand[PATH_MAX], dir[PATH_MAX];
	const char *prefix[3][2] = {
		{ dir, "" },
		{ dir, "/.debug" },
		{ q->debug_dir, dir },
	};
	int err;

	if (fstat(fd, &s.file))
		return -errno;
	err = try_build_id(&s);
	if (err)
		return err;
	if (!q->debuglink || !q->path || !strchr(q->path, '/') || strlen(q->path) >= sizeof(dir))
		return 0;
	strcpy(dir, q->path);
	*strrchr(dir, '/') = '\0'; /* "" for a file in the root directory */
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++) {
		if (snprintf(cand, sizeof(cand), "%s%s/%s", prefix[i][0], prefix[i][1],
			     q->debuglink) >= (int)sizeof(cand))
			continue;
		err = try_path(&s, cand);
		if (err)
			return err;
	}
	return 0;
}
