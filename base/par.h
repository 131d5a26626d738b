/*
 * par.h - the one way this program runs work on several threads, and the one thread setting
 * (`--threads`).  Results never depend on the thread count: callers make every piece of work a
 * function of its index (or merge per-worker parts exactly).
 */
#ifndef UG_PAR_H
#define UG_PAR_H

#include <stddef.h>

/* Threads for parallel work: 0 (the default) means every online core; capped at UG_PAR_MAX. */
enum { UG_PAR_MAX = 256 };
void ug_par_set_threads(int threads);
int ug_par_threads(void);

/* Runs fn(ctx, w, workers) for w = 0 .. workers-1, worker 0 on the calling thread, and returns
 * when all are done.  A thread that cannot be created has its worker run on the calling thread
 * afterwards, so every w runs exactly once whatever happens.  workers <= 1: one plain call.
 * Cost: one pthread_create/join per extra worker (~20 us). */
typedef void (*ug_par_worker_fn)(void *ctx, int w, int workers);
void ug_par_run(int workers, ug_par_worker_fn fn, void *ctx);

/* fn(ctx, lo, hi) over [0, n) in contiguous chunks of at least min_chunk items, one chunk per
 * worker (at most max_workers when > 0, else ug_par_threads()). */
typedef void (*ug_par_range_fn)(void *ctx, size_t lo, size_t hi);
void ug_par_range(size_t n, size_t min_chunk, int max_workers, ug_par_range_fn fn, void *ctx);

/* How many workers ug_par_range would use for n items: also the size of per-worker arrays a
 * caller allocates. */
int ug_par_workers_for(size_t n, size_t min_chunk, int max_workers);

#endif
