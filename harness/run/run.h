/*
 * run.h - running the cases, as the command line asks (harness/run/options.h): the run loop,
 * and the report written from what it collected.
 */
#ifndef UG_RUN_H
#define UG_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/kernel.h"
#include "oracle/oracle.h"
#include "base/sys.h"
#include "harness/measure/measure.h"
#include "harness/results/results.h"
#include "harness/run/options.h"

/* Fill row from a closed point of the case `case_name` (harness/run/point.c: the run fills the
 * row; harness/results/ holds its schema).  device: "cpu" or the GPU's name for CUDA kernels;
 * seed: the run's. */
void ug_row_from_point(ug_row *row, const char *case_name, const ug_point_record *p,
                       const char *device, uint64_t seed);

/* struct ug_options, what a run is asked to do: harness/run/options.h */

/* Whether f is among k's formats: an input's storage (of the op's arity), the operand
 * rounding, the accumulator or the output (`--format`).  O(1). */
bool ug_kernel_has_format(const ug_kernel *k, ug_fmt f);
/* "in>acc>out" ("f32>f64>f32"; inputs stored apart "f16,f32>..."; an operand rounding other
 * than the inputs' appended as " op tf32"), for `ulpgate list`. */
void ug_kernel_formats(const ug_kernel *k, char *buf, size_t len);

/* How a sharded run split the selection (ug_run fills it when opt->shard_n > 0). */
typedef struct ug_shard_info {
    int k, n;
    uint64_t plan;          /* fingerprint of the whole plan (harness/run/shard.c) */
    size_t count;           /* selected units, all shards */
    const char **names;     /* [count], every selected unit ... */
    int *assign;            /* ... and its shard */
} ug_shard_info;

/* Run every selected case, TAP on out, each test point's row appended to res.  Returns the
 * exit status: 0 every check held, 1 a failure (or an unexpected pass), 2 a usage error
 * (message on stderr; nothing ran). */
int ug_run(const ug_options *opt, ug_results *res, FILE *out);
/* The plan of the last sharded ug_run (NULL after an unsharded one). */
const ug_shard_info *ug_run_shard_info(void);
/* Whether the run used a GPU (the report's meta block says which). */
bool ug_run_used_gpu(void);


/* results.json in opt->report_dir, written atomically (a temporary file renamed over it).
 * argc/argv: the command line, recorded in the meta block.  0, or -1 with a message on stderr
 * naming the file. (harness/run/report_write.c) */
int ug_report_write(const ug_options *opt, const ug_results *res, int argc, char **argv);

/* Before the run: the report directory created if need be, one run at a time (locked), ulpgate's
 * own or new (harness/results/report_mark.h: a folder holding results.json, summary.md,
 * index.html or junit.xml that ulpgate did not write is refused), writable (a byte written and
 * synced in it), DIR/results.json not a directory; then marked in progress (argc/argv recorded
 * in the marker) until ug_report_write writes results.json.  0, or -1 with a message on stderr
 * naming DIR.  (harness/run/report_write.c) */
int ug_report_check(const char *dir, int argc, char **argv);
/* ug_report_check's steps with the reason in err (not printed): *lock_fd < 0 takes the folder's
 * lock into it (the caller's to ug_dir_unlock; held until the process ends otherwise), else it
 * is held already.  The pytest plugin's report (python/ulpgate/_ext/report.c) goes through it. */
int ug_report_prepare(const char *dir, int argc, char **argv, int *lock_fd, char *err,
                      size_t errlen);
/* The run wrote no report (a usage error before it measured anything): its in-progress marker
 * goes, the folder's files are as they were. */
void ug_report_abandon(const char *dir);

/* The text of a results.json (ug_report_json) is written by harness/results/results_write.c. */


#endif
