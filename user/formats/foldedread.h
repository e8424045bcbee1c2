/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Reading folded stacks back (faultline diff): the format folded__write() writes. */
#ifndef FAULTLINE_FOLDEDREAD_H
#define FAULTLINE_FOLDEDREAD_H

#include <stdint.h>
#include <stdio.h>
#include "formats/folded.h"
#include "model/profile.h"

#define FOLDED_MAX_FRAMES 1024 /* a line with more is refused (the tree is walked recursively) */
#define FOLDED_MAX_ERRORS 5    /* bad lines reported one by one; the rest are counted */

/*
 * Reads "frame;frame;...;leaf VALUE" lines from @in into @p, each stack added with VALUE as
 * metric @m (metric__counts()); lines of the same stack add up. VALUE is what follows the
 * last space: a whole decimal number up to INT64_MAX. Frame names may hold spaces; a trailing
 * "\r" is dropped and blank lines are skipped. Each bad line (no value, a value that is not
 * such a number, no frames, an empty frame, more than FOLDED_MAX_FRAMES frames, a NUL byte)
 * is reported on @errs as "faultline: NAME:LINE: reason" (@name is the file's name; after
 * FOLDED_MAX_ERRORS of them only their number), and makes the read fail once the whole file
 * was read. Returns 0, -EINVAL (bad lines), -ENOMEM, or -errno of a read error (reported too).
 */
int folded__read(FILE *in, const char *name, struct profile *p, enum fl_metric m, FILE *errs);

/*
 * folded__read() of a whole file faultline wrote, which ends every line with a newline: a last
 * line without one means the file was cut short (maybe in the middle of a number, which would
 * still parse), and is a bad line too ("NAME:LINE: the last line has no newline ...").
 */
int folded__read_file(FILE *in, const char *name, struct profile *p, enum fl_metric m, FILE *errs);

/*
 * The layout line @line (folded.h), as the first line of a file: 1 and *@l when it is one, 0
 * when it is not one (a stack, or a file of another tool), -EINVAL when it starts as one but
 * names no known metric or layout. The readers above skip a first line that is one, and
 * refuse it as a bad line when it is malformed.
 */
int folded__parse_layout(const char *line, struct folded_layout *l);

#endif /* FAULTLINE_FOLDEDREAD_H */
