/* par.c - see par.h. */
#include "base/par.h"

#include "base/fenv.h"
#include "base/sys.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int ug_par_setting; /* 0: every online core */

void ug_par_set_threads(int threads) { atomic_store(&ug_par_setting, threads > 0 ? threads : 0); }

int ug_par_threads(void)
{
    int t = atomic_load(&ug_par_setting);
    if (t <= 0) {
        /* read once: glibc reads /sys/devices/system/cpu/online at every call, and a run asks
         * at every trial (200,000 file reads for 200,000 trials of a small sum) */
        static atomic_int cores;
        t = atomic_load(&cores);
        if (t <= 0) {
            long online = sysconf(_SC_NPROCESSORS_ONLN);
            t = online > 0 ? (int)online : 1;
            atomic_store(&cores, t);
        }
    }
    return t > UG_PAR_MAX ? UG_PAR_MAX : t;
}

typedef struct {
    ug_par_worker_fn fn;
    void *ctx;
    int w, workers;
    bool trapped;  /* the calling thread holds a trap for memory refused (base/sys.h) */
    size_t oom;    /* trapped: the bytes this worker was refused, 0 if none */
} ug_par_task;

/* A worker under its own trap when the caller holds one: memory refused ends this worker's part
 * (its allocations leaked) and is reported to the caller's trap once every worker has joined,
 * since a jump from here would leave the others reading the caller's frame. */
static void *ug_par_task_main(void *p)
{
    ug_par_task *t = p;
    /* a worker computes exact values: under the known floating-point environment, whatever a
     * kernel or a plugin's loading left behind (base/fenv.h) */
    if (t->w > 0) ug_fenv_set_known();
    if (!t->trapped) {
        t->fn(t->ctx, t->w, t->workers);
        return NULL;
    }
    ug_oom_trap trap;
    if (setjmp(trap.at)) {
        t->oom = ug_oom_refused() ? ug_oom_refused() : 1;
        return NULL;
    }
    ug_oom_trap_push(&trap);
    t->fn(t->ctx, t->w, t->workers);
    ug_oom_trap_pop(&trap);
    return NULL;
}

void ug_par_run(int workers, ug_par_worker_fn fn, void *ctx)
{
    if (workers > UG_PAR_MAX) workers = UG_PAR_MAX;
    if (workers <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_t th[UG_PAR_MAX];
    ug_par_task task[UG_PAR_MAX];
    bool started[UG_PAR_MAX];
    bool trapped = ug_oom_trapped();
    for (int w = 0; w < workers; w++) task[w] = (ug_par_task){fn, ctx, w, workers, trapped, 0};
    for (int w = 1; w < workers; w++)
        started[w] = pthread_create(&th[w], NULL, ug_par_task_main, &task[w]) == 0;
    ug_par_task_main(&task[0]);
    for (int w = 1; w < workers; w++) {
        if (started[w])
            pthread_join(th[w], NULL);
        else
            ug_par_task_main(&task[w]);
    }
    for (int w = 0; w < workers; w++)
        if (task[w].oom) ug_out_of_memory(task[w].oom);
}

int ug_par_workers_for(size_t n, size_t min_chunk, int max_workers)
{
    size_t nt = (size_t)ug_par_threads();
    if (max_workers > 0 && nt > (size_t)max_workers) nt = (size_t)max_workers;
    if (min_chunk < 1) min_chunk = 1;
    if (nt > n / min_chunk) nt = n / min_chunk;
    return nt < 1 ? 1 : (int)nt;
}

typedef struct {
    size_t n;
    ug_par_range_fn fn;
    void *ctx;
} ug_par_range_job;

static void ug_par_range_worker(void *p, int w, int workers)
{
    const ug_par_range_job *j = p;
    size_t per = j->n / (size_t)workers, extra = j->n % (size_t)workers, k = (size_t)w;
    size_t lo = per * k + (k < extra ? k : extra);
    size_t hi = lo + per + (k < extra);
    if (hi > lo) j->fn(j->ctx, lo, hi);
}

void ug_par_range(size_t n, size_t min_chunk, int max_workers, ug_par_range_fn fn, void *ctx)
{
    if (n == 0) return;
    ug_par_range_job j = {n, fn, ctx};
    ug_par_run(ug_par_workers_for(n, min_chunk, max_workers), ug_par_range_worker, &j);
}
