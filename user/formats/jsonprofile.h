/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Reading a --json profile back (faultline diff): its stacks with every counter. */
#ifndef FAULTLINE_JSONPROFILE_H
#define FAULTLINE_JSONPROFILE_H

#include <stdio.h>
#include "model/profile.h"

/*
 * Reads the document @in holds into @p: a --json file, or a --json-stream file, of which the
 * last line (the final document) is read. Each entry of "stacks" is added with its frames
 * and all its counters, so any metric can be compared. Problems are reported on @errs as
 * "faultline: NAME: reason". Returns 0, -EINVAL (not a faultline/1 document), -ENOMEM, or
 * -errno of a read error.
 */
int jsonprofile__read(FILE *in, const char *name, struct profile *p, FILE *errs);

#endif /* FAULTLINE_JSONPROFILE_H */
