/* workers.h - `run --gpus`: one worker process per GPU (harness/scale/workers.c). */
#ifndef UG_WORKERS_H
#define UG_WORKERS_H

#include <stdbool.h>
#include <stdio.h>

/* Run the selection given by args (the `run` options, without --gpus, --report, --tap, --shard)
 * as shards_per_gpu x GPUs shards over the GPUs of spec ("all" or "0,1,..."), one worker process
 * per GPU at a time; on out one TAP stream (tap) or the compact output (a line per shard,
 * failures in full, a summary); the merged results.json in report_dir (or none).  A stop
 * signal (SIGINT, SIGTERM, SIGHUP) is forwarded to the workers, and what they and the finished
 * shards measured is merged and written, marked interrupted.  Returns the exit status: 0, 1 a
 * failure, 2 a worker or merge error, 128 + the signal after one. */
int ug_run_workers(const char *spec, int shards_per_gpu, char *const *args, int nargs,
                   const char *report_dir, bool tap, FILE *out);

#endif
