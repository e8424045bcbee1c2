// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "debuginfo.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/buildid.h"
#include "symbols/debuginfod.h"
#include "symbols/elfcache.h"
#include "trace/frames.h"

int debuginfo__start(struct session *s)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int err;

	if (s->cfg->no_debuginfod || !urls || !urls[strspn(urls, " \t")])
		return 0;
	err = debuginfod__new(urls, &s->debuginfod);
	if (err == -ENOMEM)
		return err;
	if (err == -ENOSYS)
		fprintf(stderr,
			"faultline: DEBUGINFOD_URLS is set but libdebuginfod.so.1 cannot be "
			"loaded (Debian: libdebuginfod1): no debug files from debuginfod\n");
	else if (err)
		fprintf(stderr, "faultline: debuginfod: %s: no debug files from it\n",
			strerror(-err));
	else
		elf_cache__set_debuginfod(s->elf, s->debuginfod);
	if (!err && s->cfg->verbose)
		fprintf(stderr, "faultline: debug files missing here are asked of %s\n", urls);
	return 0;
}

/* "faultline: debuginfod: ...", once, when the servers failed: what they did, and that they
 * are not asked again. */
static void tell_failure(int err, const struct debuginfod_result *why)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char id[2 * sizeof(why->id) + 1], other[2 * sizeof(why->other) + 1];
	char what[sizeof(other) + 64], cache[PATH_MAX + 128] = ", removed from the client's cache";

	if (err != DEBUGINFOD_NOT_ELF && err != DEBUGINFOD_OTHER_BUILD) {
		fprintf(stderr,
			"faultline: debuginfod: %s (DEBUGINFOD_URLS=%s): no debug files from it "
			"this session\n",
			strerror(-err), urls);
		return;
	}
	buildid__hex(why->id, why->len, id);
	buildid__hex(why->other, why->other_len, other);
	if (err == DEBUGINFOD_NOT_ELF)
		snprintf(what, sizeof(what), "a file that is not ELF");
	else if (why->other_len)
		snprintf(what, sizeof(what), "the debug file of another build (build-id %s)",
			 other);
	else
		snprintf(what, sizeof(what), "a debug file without a build-id");
	if (why->uncache_err)
		snprintf(cache, sizeof(cache), ", not removed from the client's cache (%s: %s)",
			 why->path, strerror(-why->uncache_err));
	fprintf(stderr,
		"faultline: debuginfod: DEBUGINFOD_URLS=%s answered for build-id %s with %s: not "
		"used%s; no debug files from it this session\n",
		urls, id, what, cache);
}

int debuginfo__refresh(struct session *s, bool final)
{
	struct debuginfod_result why;
	int n, err;

	if (!s->debuginfod)
		return 0;
	if (final && debuginfod__pending(s->debuginfod) && debuginfod__answered(s->debuginfod) &&
	    !debuginfod__wait(s->debuginfod, DEBUGINFO_FINAL_WAIT_MS) && s->cfg->verbose)
		fprintf(stderr, "faultline: debuginfod: %zu fetches still under way at the end\n",
			debuginfod__pending(s->debuginfod));
	n = elf_cache__poll(s->elf);
	if (n < 0)
		return n;
	if (n)
		frames__rename_all(s->frames);
	err = debuginfod__take_error(s->debuginfod, &why);
	if (err)
		tell_failure(err, &why);
	free(why.path);
	return 0;
}

void debuginfo__end(struct session *s)
{
	if (s->cfg->verbose && s->elf)
		elf_cache__print_undebugged(s->elf, stderr);
	debuginfod__free(s->debuginfod);
	s->debuginfod = NULL;
}
