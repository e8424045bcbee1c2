/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The files the outputs go to (--folded, --json, --json-stream, --svg, --pprof, diff --svg).
 *
 * An output is opened when the session starts, before anything is attached, so that a path
 * that cannot be written ends the session at once instead of after an hour of tracing. A
 * whole-file output is written under a temporary name in the same directory and renamed over
 * its name only once it is complete and on disk: a failed write (a full disk) leaves the old
 * file, or none, never a truncated one that looks complete.
 */
#ifndef FAULTLINE_OUTPUT_H
#define FAULTLINE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct output {
	const char *path; /* as given ("-": stdout); NULL: not in use */
	char *final;	  /* what the temporary file is renamed over: @path, or a symlink's file */
	char *tmp;	  /* the temporary file; NULL: written in place */
	FILE *f;	  /* NULL for a FIFO until the write: opening it waits for its reader */
	bool existed;	  /* @final was there: a failed write keeps it */
};

/*
 * Opens @path for a whole-file output in @o ("-": stdout): a temporary file beside it, or
 * @path itself when it is not a regular file (a device, a FIFO, stdout's or stderr's own
 * file). Returns 0 or -errno, reported as "cannot write PATH: CAUSE".
 */
int output__open(struct output *o, const char *path);

/* Opens @path in place (the file is read while it grows: --json-stream), truncated. */
int output__open_stream(struct output *o, const char *path);

/* The stream to write @o's content to in *@f. Returns 0 or -errno (not reported: pass it to
 * output__close()). */
int output__file(struct output *o, FILE **f);

/*
 * Ends the output after its content was written with result @err: checks the stream, syncs
 * the temporary file and renames it over the final name, or removes it on any error. Closes
 * all but stdout. Returns the first error, reported as "writing PATH failed: CAUSE".
 */
int output__close(struct output *o, int err);

/* Drops an output that will not be written (the session failed): its temporary file goes. */
void output__discard(struct output *o);

/* @o's path for messages ("stdout" for "-"). */
const char *output__name(const struct output *o);

/* The error of the last writes to @f (stdout or stderr), flushed: 0 or -errno. */
int output__stream_error(FILE *f);

#endif /* FAULTLINE_OUTPUT_H */
