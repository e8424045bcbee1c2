// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * libdebuginfod is loaded with dlopen, as libdw itself does: it brings libcurl and TLS along,
 * which a profiler that runs without DEBUGINFOD_URLS set has no use for, and faultline still
 * runs where it is not installed.
 */
#include "symbols/debuginfod.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/grow.h"
#include "symbols/buildid.h"

/* libdebuginfod.so.1's ABI (elfutils/debuginfod.h), so that building needs no header. */
typedef struct debuginfod_client dclient;
typedef int (*progress_fn)(dclient *c, long done, long total);

struct api {
	dclient *(*begin)(void);
	int (*find_debuginfo)(dclient *c, const unsigned char *id, int len, char **path);
	void (*set_progressfn)(dclient *c, progress_fn fn);
	void (*end)(dclient *c);
};

struct fetch {
	struct debuginfod_result r;
};

struct debuginfod {
	struct api api;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work; /* a fetch was queued, or stop */
	pthread_cond_t done; /* a fetch finished */
	struct fetch *v;     /* every build-id queued, in order */
	size_t n, cap;
	size_t next;	/* the next one the thread fetches */
	size_t nr_done; /* fetches [0, nr_done) finished */
	size_t taken;	/* results [0, taken) were taken */
	bool stop;	/* read by the progress callback too */
	bool answered;
	int down_err; /* the servers failed: no later fetch is tried */
	bool down_told;
	struct debuginfod_result down; /* the fetch that failed them */
	struct timespec fetch_start;
};

static int load_api(struct api *a)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);

	if (!h)
		return -ENOSYS;
	a->begin = (dclient * (*)(void)) dlsym(h, "debuginfod_begin");
	a->find_debuginfo = (int (*)(dclient *, const unsigned char *, int,
				     char **))dlsym(h, "debuginfod_find_debuginfo");
	a->set_progressfn = (void (*)(dclient *, progress_fn))dlsym(h, "debuginfod_set_progressfn");
	a->end = (void (*)(dclient *))dlsym(h, "debuginfod_end");
	if (!a->begin || !a->find_debuginfo || !a->set_progressfn || !a->end) {
		dlclose(h);
		return -ENOSYS;
	}
	/* never dlclose'd: libcurl's exit handlers must find their code */
	return 0;
}

/* The fetcher whose thread this is: libdebuginfod hands its progress callback the client alone. */
static __thread struct debuginfod *worker_self;

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Called by libdebuginfod about once a second during a fetch: non-zero aborts it. */
static int progress(dclient *c, long done, long total)
{
	struct debuginfod *d = worker_self;

	(void)c;
	(void)done;
	(void)total;
	return __atomic_load_n(&d->stop, __ATOMIC_RELAXED) ||
	       since(&d->fetch_start) > DEBUGINFOD_MAX_FETCH_S;
}

/*
 * Whether the file open at @fd is the debug file of build-id @r->id: 0, DEBUGINFOD_NOT_ELF, or
 * DEBUGINFOD_OTHER_BUILD with the build-id it has in @r->other. A server (or a cache) can give
 * anything: libdebuginfod checks neither.
 */
static int check_answer(int fd, struct debuginfod_result *r)
{
	size_t len;
	int err = buildid__read_fd(fd, r->other, sizeof(r->other), &len);

	if (err)
		return err == -ENOEXEC ? DEBUGINFOD_NOT_ELF : err;
	if (len == r->len && !memcmp(r->other, r->id, len))
		return 0;
	r->other_len = len;
	return DEBUGINFOD_OTHER_BUILD;
}

/*
 * Removes rejected answer @path from libdebuginfod's cache, where every later session would
 * take it without asking again: only a file named as the client names its entries,
 * .../BUILD-ID/debuginfo, and the entry's directory when that leaves it empty. 0 or -errno.
 */
static int uncache(const char *path, const struct debuginfod_result *r)
{
	char hex[2 * sizeof(r->id) + 1], tail[sizeof(hex) + 16];
	size_t n = strlen(path), t;
	char *dir;

	buildid__hex(r->id, r->len, hex);
	t = (size_t)snprintf(tail, sizeof(tail), "/%s/debuginfo", hex);
	if (n <= t || strcmp(path + n - t, tail))
		return -EINVAL;
	if (unlink(path))
		return -errno;
	dir = strndup(path, n - strlen("/debuginfo"));
	if (dir)
		rmdir(dir); /* fails, rightly, when the client keeps more of that build there */
	free(dir);
	return 0;
}

/* Fetches @f (the lock not held). */
static void fetch(struct debuginfod *d, dclient *c, struct fetch *f)
{
	char *path = NULL;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &d->fetch_start);
	fd = d->api.find_debuginfo(c, f->r.id, (int)f->r.len, &path);
	if (fd < 0) {
		free(path);
		f->r.err = fd;
		return;
	}
	f->r.err = path ? check_answer(fd, &f->r) : -ENOMEM;
	close(fd);
	if (f->r.err == DEBUGINFOD_NOT_ELF || f->r.err == DEBUGINFOD_OTHER_BUILD) {
		f->r.uncache_err = uncache(path, &f->r);
		if (!f->r.uncache_err) {
			free(path);
			path = NULL;
		}
	}
	f->r.path = path;
}

static void *worker(void *arg)
{
	struct debuginfod *d = arg;
	dclient *c = d->api.begin();

	worker_self = d;
	if (c)
		d->api.set_progressfn(c, progress);
	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		struct fetch f;

		if (d->next == d->n) {
			pthread_cond_wait(&d->work, &d->lock);
			continue;
		}
		f = d->v[d->next++];
		if (!c || d->down_err) {
			f.r.err = c ? -ECANCELED : -ENOMEM;
		} else {
			pthread_mutex_unlock(&d->lock);
			fetch(d, c, &f);
			pthread_mutex_lock(&d->lock);
			if (d->stop) {
				f.r.err = -ECANCELED;
			} else if (!f.r.err || f.r.err == -ENOENT) {
				d->answered = true;
			} else {
				/* refused, timed out, DNS, a wrong file: the rest would be too */
				d->down_err = f.r.err;
				d->down = f.r;
				f.r.path = NULL;
			}
		}
		d->v[d->nr_done++] = f;
		pthread_cond_broadcast(&d->done);
	}
	pthread_mutex_unlock(&d->lock);
	if (c)
		d->api.end(c);
	return NULL;
}

int debuginfod__new(const char *urls, struct debuginfod **out)
{
	struct debuginfod *d;
	int err;

	*out = NULL;
	if (!urls || !urls[strspn(urls, " \t")])
		return -ENOENT;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	err = load_api(&d->api);
	if (err) {
		free(d);
		return err;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->work, NULL);
	pthread_cond_init(&d->done, NULL);
	err = -pthread_create(&d->thread, NULL, worker, d);
	if (err) {
		free(d);
		return err;
	}
	*out = d;
	return 0;
}

void debuginfod__free(struct debuginfod *d)
{
	struct timespec until;

	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	__atomic_store_n(&d->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&d->work);
	pthread_mutex_unlock(&d->lock);
	/* a fetch notices the stop at its next progress call (about a second): not waited for */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 100 * 1000 * 1000;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(d->thread, NULL, &until)) {
		pthread_detach(d->thread);
		return; /* the thread still uses @d: it goes with the process */
	}
	for (size_t i = d->taken; i < d->nr_done; i++)
		free(d->v[i].r.path);
	free(d->down.path);
	free(d->v);
	free(d);
}

int debuginfod__request(struct debuginfod *d, const uint8_t *id, size_t len)
{
	struct fetch *v;
	int err = 0;

	if (!len || len > sizeof(v->r.id))
		return 0;
	pthread_mutex_lock(&d->lock);
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].r.len == len && !memcmp(d->v[i].r.id, id, len))
			goto cleanup;
	v = grow__reserve(d->v, &d->cap, d->n, sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		goto cleanup;
	}
	d->v = v;
	memset(&v[d->n], 0, sizeof(v[d->n]));
	memcpy(v[d->n].r.id, id, len);
	v[d->n].r.len = len;
	d->n++;
	pthread_cond_signal(&d->work);
cleanup:
	pthread_mutex_unlock(&d->lock);
	return err;
}

int debuginfod__take(struct debuginfod *d, struct debuginfod_result *r)
{
	int got = 0;

	pthread_mutex_lock(&d->lock);
	if (d->taken < d->nr_done) {
		*r = d->v[d->taken].r;
		d->v[d->taken++].r.path = NULL;
		got = 1;
	}
	pthread_mutex_unlock(&d->lock);
	return got;
}

bool debuginfod__wait(struct debuginfod *d, unsigned ms)
{
	struct timespec until;
	bool all;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&d->lock);
	while (d->nr_done < d->n && !pthread_cond_timedwait(&d->done, &d->lock, &until))
		;
	all = d->nr_done == d->n;
	pthread_mutex_unlock(&d->lock);
	return all;
}

size_t debuginfod__pending(struct debuginfod *d)
{
	size_t n;

	pthread_mutex_lock(&d->lock);
	n = d->n - d->nr_done;
	pthread_mutex_unlock(&d->lock);
	return n;
}

bool debuginfod__answered(struct debuginfod *d)
{
	bool a;

	pthread_mutex_lock(&d->lock);
	a = d->answered;
	pthread_mutex_unlock(&d->lock);
	return a;
}

int debuginfod__take_error(struct debuginfod *d, struct debuginfod_result *why)
{
	int err = 0;

	memset(why, 0, sizeof(*why));
	pthread_mutex_lock(&d->lock);
	if (d->down_err && !d->down_told) {
		err = d->down_err;
		*why = d->down;
		d->down.path = NULL;
		d->down_told = true;
	}
	pthread_mutex_unlock(&d->lock);
	return err;
}
