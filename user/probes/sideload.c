// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/sideload.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "faultline.h"

/* after faultline.h: the skeleton names its types */
#include "faultline.skel.h"

/* The walkers and the instance of each: verification times of Linux 6.18 balanced. */
static const struct {
	const char *name;
	int side;
} WALKERS[] = {
	{ "fl_rss_stat", 0 },	{ "fl_alloc_exit", 0 },	 { "fl_alloc_enter", 0 },
	{ "fl_free_enter", 0 }, { "fl_alloc_churn", 0 }, { "fl_alloc_call", 0 },
	{ "fl_sys_enter", 0 },	{ "fl_page_fault", 1 },	 { "fl_region_exit", 1 },
	{ "fl_sys_exit", 1 },
};

#define NWALKERS (sizeof(WALKERS) / sizeof(WALKERS[0]))

int sideload__open(struct faultline *main, struct faultline *side[SIDE_LOADS],
		   const struct bpf_object_open_opts *opts)
{
	bool used[SIDE_LOADS] = { false };
	struct bpf_program *p, *q;

	for (size_t i = 0; i < NWALKERS; i++) {
		p = bpf_object__find_program_by_name(main->obj, WALKERS[i].name);
		used[WALKERS[i].side] |= p && bpf_program__autoload(p);
	}
	for (int s = 0; s < SIDE_LOADS; s++) {
		side[s] = NULL;
		if (!used[s])
			continue;
		side[s] = faultline__open_opts(opts);
		if (!side[s])
			return -errno;
		bpf_object__for_each_program(q, side[s]->obj) bpf_program__set_autoload(q, false);
	}
	for (size_t i = 0; i < NWALKERS; i++) {
		p = bpf_object__find_program_by_name(main->obj, WALKERS[i].name);
		if (!p || !bpf_program__autoload(p))
			continue;
		q = bpf_object__find_program_by_name(side[WALKERS[i].side]->obj, WALKERS[i].name);
		bpf_program__set_autoload(q, true);
		bpf_program__set_expected_attach_type(q, bpf_program__expected_attach_type(p));
		bpf_program__set_autoload(p, false);
	}
	return 0;
}

/* Gives @side every map of @main (found by name). */
static int share_maps(struct faultline *main, struct faultline *side)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, side->obj)
	{
		const struct bpf_map *own =
			bpf_object__find_map_by_name(main->obj, bpf_map__name(m));
		int err = own ? bpf_map__reuse_fd(m, bpf_map__fd(own)) : -ENOENT;

		if (err)
			return err;
	}
	return 0;
}

struct side_job {
	struct faultline *main, *skel;
	int err;
};

static void *load_one(void *arg)
{
	struct side_job *j = arg;

	j->err = share_maps(j->main, j->skel) ?: faultline__load(j->skel);
	return NULL;
}

int sideload__load(struct faultline *main, struct faultline *side[SIDE_LOADS])
{
	struct side_job jobs[SIDE_LOADS];
	pthread_t thread;
	bool threaded = false;
	int err = 0;

	for (int s = 0; s < SIDE_LOADS; s++)
		jobs[s] = (struct side_job){ main, side[s], 0 };
	/* the first on a thread, the second here */
	if (side[0] && side[1])
		threaded = !pthread_create(&thread, NULL, load_one, &jobs[0]);
	for (int s = threaded ? 1 : 0; s < SIDE_LOADS; s++)
		if (side[s])
			load_one(&jobs[s]);
	if (threaded)
		pthread_join(thread, NULL);
	for (int s = 0; s < SIDE_LOADS && !err; s++)
		err = jobs[s].err;
	return err;
}
