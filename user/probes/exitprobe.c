// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/exitprobe.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "faultline.h"
#include "probes/features.h"

/* after faultline.h: the skeleton names its types */
#include "exitmaps.skel.h"

struct exit_probe {
	struct faultline_exitmaps *skel;
	int procs_fd;
	pthread_t thread;
	bool joined;
	int err;
};

static void *load(void *arg)
{
	struct exit_probe *p = arg;

	p->skel = faultline_exitmaps__open();
	if (!p->skel) {
		p->err = -errno;
		return NULL;
	}
	p->skel->rodata->page_shift = features__page_shift();
	p->err = bpf_map__reuse_fd(p->skel->maps.procs, p->procs_fd) ?:
			 faultline_exitmaps__load(p->skel);
	return NULL;
}

int exit_probe__start(struct exit_probe **out, int procs_fd)
{
	struct exit_probe *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	p->procs_fd = procs_fd;
	err = pthread_create(&p->thread, NULL, load, p);
	if (err) {
		free(p);
		return -err;
	}
	*out = p;
	return 0;
}

int exit_probe__wait(struct exit_probe *p)
{
	if (!p->joined) {
		pthread_join(p->thread, NULL);
		p->joined = true;
	}
	return p->err;
}

int exit_probe__attach(struct exit_probe *p)
{
	int err = exit_probe__wait(p);

	if (err)
		return err;
	p->skel->links.fl_exit_maps = bpf_program__attach(p->skel->progs.fl_exit_maps);
	return p->skel->links.fl_exit_maps ? 0 : -errno;
}

struct bpf_link *exit_probe__take_link(struct exit_probe *p)
{
	struct bpf_link *l = p && p->skel ? p->skel->links.fl_exit_maps : NULL;

	if (l)
		p->skel->links.fl_exit_maps = NULL;
	return l;
}

int exit_probe__ring_fd(const struct exit_probe *p)
{
	return bpf_map__fd(p->skel->maps.exit_maps);
}

uint64_t exit_probe__drops(const struct exit_probe *p)
{
	return p->skel && p->skel->bss ? p->skel->bss->stats.drops[FL_DROP_EXIT_MAPS] : 0;
}

void exit_probe__destroy(struct exit_probe *p)
{
	if (!p)
		return;
	exit_probe__wait(p);
	faultline_exitmaps__destroy(p->skel);
	free(p);
}
