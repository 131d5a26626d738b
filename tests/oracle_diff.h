/*
 * oracle_diff.h - what the differential tests share (tests/oracle_diff.c: generators, short and
 * long vectors; tests/oracle_diff_gemm.c: GEMM, strided dots, the other kernel sets).
 */
#ifndef UG_TESTS_ORACLE_DIFF_H
#define UG_TESTS_ORACLE_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "oracle/gpu.h"
#include "harness/inputs/rng.h"
#include "harness/run/ug.h"

/* A random stream for one test (od_drng_make) and its position. */
typedef struct drng {
    ug_stream s;
    uint64_t i;
} drng;

/* Generator kinds (od_gen_f32). */
enum { G_BITS, G_WINDOW, G_SUBNORMAL, G_FEWBITS, G_SMALLINT, G_NORMAL, G_NKINDS };

/* A generator: its kind and, for windows, the exponent range of the vector. */
typedef struct gen {
    int kind;
    int e0, e1; /* G_WINDOW, G_FEWBITS: exponents in [e0, e1] */
    int scale;  /* G_SMALLINT: common power of two */
} gen;

/* Vectors compared and how many differed. */
typedef struct tally {
    long vectors, bad;
} tally;

/* The stream for `what` under the run's seed; 64 random bits; uniform in [0, n). */
drng od_drng_make(ug_t *t, const char *what);
uint64_t od_r64(drng *r);
uint32_t od_rbelow(drng *r, uint32_t n);
/* A random generator for a vector whose exponents lie in [emin, emax], and one value from it. */
gen od_gen_pick(drng *r, int emin, int emax);
float od_gen_f32(drng *r, const gen *g);

/* The oracle the od_run_* functions put under test: NULL (the default) the fast oracle, or a
 * GPU oracle (tests/oracle_gpu_model.c, tests/oracle_diff_gpu.c): its binary32 sums and dots,
 * batched, against MPFR with sum_abs bit for bit (both RU64); binary64 sums are left out. */
void od_use_gpu(const ug_gpu_oracle_ops *ops);

/* Records a difference from MPFR (the first 5 are reported with their inputs). */
void od_report_mismatch(ug_t *t, tally *ty, const char *what, long index, const float *x,
                        const float *y, const double *xd, size_t n, const ug_exact *a,
                        const ug_exact *b);
/* The tally as a note, and an assertion that nothing differed. */
void od_finish(ug_t *t, const char *what, tally *ty);

/* A short vector's length, 1-48 (mostly short). */
size_t od_short_len(drng *r);
/* count random short vectors (sums of binary32, dots, sums of binary64) from stream, each
 * compared; then od_finish. */
void od_run_short_sum32(ug_t *t, long count, const char *stream);
void od_run_short_dot32(ug_t *t, long count, const char *stream);
void od_run_short_sum64(ug_t *t, long count, const char *stream);
/* `vectors` long vectors (2k-70k terms, every 8th beyond 2^18), each as a binary32 sum, a dot
 * and a binary64 sum. */
void od_run_long(ug_t *t, const char *stream, int vectors);

#endif
