/*
 * cli_bench_rows.c - `ulpgate bench rows [--rows R] [--n N] [--mpfr-rows M] [--threads T]`: how
 * fast the softmax and log-sum-exp references are (oracle/rows/transcend_fast.c), beside MPFR
 * alone (transcend.c), in one run.
 *
 * R rows of N normal(0,1) logits (default 4096 x 4096: 2^24 softmax outputs, and 4096
 * log-sum-exps of 2^24 logits in all); the fast path over every row on T threads (0: every
 * core), timed whole; MPFR alone over the first M rows (default 8) on the same threads, its
 * time scaled to R rows (it costs the same per row: the same work for every row at 128 bits),
 * and those M rows' records compared with the fast path's bit for bit.  Prints one line per
 * operation: seconds for R rows, fast (wall, and the process's CPU seconds: on a shared host
 * CPU s / T is what idle cores take) vs MPFR, the speedup, the rows the fast path left to
 * MPFR.  Exit 1 if a record differs, 2 on a usage error.  ~10 s on 2 cores at the default.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/par.h"
#include "base/sys.h"
#include "harness/cli/cli.h"
#include "oracle/rows/transcend.h"

typedef struct {
    const float *x;
    size_t n;
    bool lse, mpfr;
    ug_exact *out;     /* rows x outs records */
    size_t rows;
    size_t *fallback;  /* per worker: rows the fast path passed on */
    double cpu_s;      /* the process's CPU seconds over the run (all threads) */
} ug_bench_rows_ctx;

/* CPU seconds of this process, every thread: on a shared host, CPU s / threads is the wall
 * time the same work takes on idle cores. */
static double ug_bench_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Worker w of workers: rows [rows w / workers, rows (w+1) / workers). */
static void ug_bench_rows_worker(void *vctx, int w, int workers)
{
    ug_bench_rows_ctx *c = vctx;
    size_t outs = c->lse ? 1 : c->n, lo = c->rows * (size_t)w / (size_t)workers,
           hi = c->rows * (size_t)(w + 1) / (size_t)workers;
    ug_ziv_stats_reset(); /* per thread */
    for (size_t r = lo; r < hi; r++) {
        const float *x = c->x + r * c->n;
        ug_exact *o = c->out + r * outs;
        if (c->mpfr) {
            if (c->lse) ug_exact_logsumexp_row_mpfr(x, c->n, o);
            else ug_exact_softmax_row_mpfr(x, c->n, o);
        } else {
            if (c->lse) ug_exact_logsumexp_row_fast(x, c->n, o);
            else ug_exact_softmax_row_fast(x, c->n, o);
        }
    }
    c->fallback[w] = ug_ziv_stats_get().fallback_rows;
}

/* Seconds for rows [0, rows) through one path; *fallback: rows passed on to MPFR. */
static double ug_bench_rows_run(ug_bench_rows_ctx *c, size_t rows, size_t *fallback)
{
    int workers = ug_par_threads() < (int)rows ? ug_par_threads() : (int)rows;
    c->rows = rows;
    c->fallback = ug_xcalloc((size_t)workers, sizeof *c->fallback);
    double t0 = ug_now_s(), c0 = ug_bench_cpu_s();
    ug_par_run(workers, ug_bench_rows_worker, c);
    double s = ug_now_s() - t0;
    c->cpu_s = ug_bench_cpu_s() - c0;
    *fallback = 0;
    for (int w = 0; w < workers; w++) *fallback += c->fallback[w];
    free(c->fallback);
    return s;
}

static int ug_bench_rows_usage(const char *why, const char *arg)
{
    fprintf(stderr, "ulpgate bench rows: %s '%s'\n"
                    "usage: ulpgate bench rows [--rows R] [--n N] [--mpfr-rows M] [--threads T]\n",
            why, arg);
    return 2;
}

int ug_bench_rows(int argc, char **argv)
{
    long rows = 4096, n = 4096, mrows = 8, threads = 0;
    for (int i = 1; i < argc; i++) {
        long *v = !strcmp(argv[i], "--rows") ? &rows : !strcmp(argv[i], "--n") ? &n
                  : !strcmp(argv[i], "--mpfr-rows") ? &mrows : !strcmp(argv[i], "--threads") ? &threads
                  : NULL;
        if (!v || i + 1 >= argc) return ug_bench_rows_usage("unknown option", argv[i]);
        char *end;
        *v = strtol(argv[++i], &end, 10);
        if (*end || *v < (v == &threads ? 0 : 1) || *v > (1L << 24))
            return ug_bench_rows_usage("not a count in range:", argv[i]);
    }
    if (mrows > rows) mrows = rows;
    if ((double)rows * (double)n > (double)(1L << 26))
        return ug_bench_rows_usage("rows x n above 2^26:", argv[argc - 1]);
    ug_par_set_threads((int)threads);
    size_t N = (size_t)rows * (size_t)n;
    float *x = ug_xmalloc(N * sizeof *x);
    ug_bench_fill_normal(x, N, 3);
    ug_exact *fast = ug_xmalloc(N * sizeof *fast), *ref = ug_xmalloc((size_t)mrows * (size_t)n * sizeof *ref);
    printf("ulpgate bench rows: %ld rows of %ld normal(0,1) binary32 logits, %d threads; MPFR "
           "alone timed on %ld rows and scaled to %ld\n",
           rows, n, ug_par_threads(), mrows, rows);
    printf("  %-10s %10s %9s %11s %14s %9s %12s %7s\n", "operation", "outputs", "fast s",
           "fast CPU s", "MPFR alone s", "speedup", "fast->MPFR", "equal");
    int failed = 0;
    for (int lse = 0; lse < 2; lse++) {
        size_t outs = lse ? 1 : (size_t)n, fb, fbm;
        ug_bench_rows_ctx c = {x, (size_t)n, lse, false, fast, 0, NULL, 0};
        double tf = ug_bench_rows_run(&c, (size_t)rows, &fb);
        ug_bench_rows_ctx m = {x, (size_t)n, lse, true, ref, 0, NULL, 0};
        double tm = ug_bench_rows_run(&m, (size_t)mrows, &fbm) * (double)rows / (double)mrows;
        size_t bad = 0;
        for (size_t i = 0; i < (size_t)mrows * outs; i++) bad += !ug_exact_equal(&fast[i], &ref[i]);
        printf("  %-10s %10zu %9.2f %11.2f %14.1f %8.0fx %7zu rows %7s\n",
               lse ? "logsumexp" : "softmax", (size_t)rows * outs, tf, c.cpu_s, tm, tm / tf, fb,
               bad ? "NO" : "yes");
        failed |= bad != 0;
    }
    free(x);
    free(fast);
    free(ref);
    return failed;
}
