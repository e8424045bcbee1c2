/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * C++ demangling through libstdc++'s __cxa_demangle, looked up at run time so that faultline has
 * no build or run dependency on libstdc++: without it, names stay mangled.
 */
#ifndef FAULTLINE_DEMANGLE_H
#define FAULTLINE_DEMANGLE_H

#include <stdbool.h>

struct demangler;

/* Loads libstdc++.so.6 if present. Returns NULL only when out of memory; a demangler without
 * libstdc++ still works and returns names unchanged. */
struct demangler *demangler__new(void);
void demangler__free(struct demangler *d); /* accepts NULL */

/* True when __cxa_demangle was found. */
bool demangler__available(const struct demangler *d);

/* Returns a malloc'ed copy of @name demangled ("fl::alpha(int)"), or of @name unchanged when it is
 * not an Itanium-ABI name ("_Z..."), when it does not demangle, or when @d is NULL or has no
 * __cxa_demangle. Returns NULL only when out of memory. */
char *demangler__demangle(const struct demangler *d, const char *name);

#endif /* FAULTLINE_DEMANGLE_H */
