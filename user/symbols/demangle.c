/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"

/* char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status) */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

struct demangler {
	void *handle;
	cxa_demangle_fn demangle;
};

struct demangler *demangler__new(void)
{
	struct demangler *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->handle = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (d->handle)
		d->demangle = (cxa_demangle_fn)dlsym(d->handle, "__cxa_demangle");
	return d;
}

void demangler__free(struct demangler *d)
{
	if (!d)
		return;
	if (d->handle)
		dlclose(d->handle);
	free(d);
}

bool demangler__available(const struct demangler *d)
{
	return d && d->demangle;
}

char *demangler__demangle(const struct demangler *d, const char *name)
{
	char *out;
	int status = -1;

	if (!demangler__available(d) || strncmp(name, "_Z", 2) != 0)
		return strdup(name);
	out = d->demangle(name, NULL, NULL, &status);
	if (status != 0 || !out) {
		free(out);
		return strdup(name);
	}
	return out;
}
