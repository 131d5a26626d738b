/*
 * gpu_reduce.c - every GPU reduction kernel on every distribution of the foundation issue, n from
 * 1 to 2^26 (2^28 in the slow suite), the CUDA kernels' findings as assertions.
 *
 * What is asserted, and why:
 *  - every kernel, distribution and size: bound ratio <= 1 (the a-priori class and depth of the
 *    kernel's registry line; a ratio above 1 is a bug in the kernel or in its declared depth);
 *  - on one-signed data (uniform(0,1), lognormal, constant; condition number 1, so ULP error is
 *    meaningful): max ULP error below a per-kernel limit measured on the GPU machine, with the
 *    headroom given in the table;
 *  - special values: an exact sum that is NaN or infinite must come out as exactly that (ULP
 *    error 0, see oracle.h), so the same ULP limits hold with NaN/inf/0 injected;
 *  - a kernel whose max_n is below n is skipped at that n; max_exceeded asserts the clear
 *    refusal past max_n.
 * Tables: at n = 2^20 and 2^26, per kernel, max ULP, bound ratio and GB/s.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ug.h"

static const size_t ug_sizes[] = {1,     2,      3,       1000,          1023,         1024,
                                  1025,  10000,  1000000, (size_t)1 << 20, (size_t)1 << 26};
/* GenSum needs room for its construction. */
static const size_t ug_sizes_gensum[] = {1000, 1023, 1024, 1025, 10000, 1000000, (size_t)1 << 20,
                                         (size_t)1 << 26};
static const size_t ug_sizes_slow[] = {(size_t)1 << 28};

static int ug_red_trials(ug_t *t, size_t n)
{
    return ug_trials(t, n <= 10000 ? 10 : n <= ((size_t)1 << 20) ? 3 : 1);
}

/* Max ULP error on one-signed data (uniform(0,1), lognormal(0,1), constant 0.1, with specials),
 * every size up to 2^26: measured on the GPU machine (an H200, seed 0x5eed), x 2 headroom.
 * A-priori the limit is gamma_D 2^24 ~ D ulp (S = |s| < 2^24 ulp(s)): D = 26 for the trees at
 * 2^26, 281 for the grid kernels' serial slices; the measured errors are far below. */
typedef struct {
    const char *kernel;
    double ulp_max;
    const char *why;
} ug_red_limit;

static const ug_red_limit ug_red_limits[] = {
    {"reduce_interleaved", 2 * 1.74, "measured 1.74 (uniform(0,1), n=1025)"},
    {"reduce_sequential", 2 * 1.15, "measured 1.15 (uniform(0,1), n=1025)"},
    {"reduce_warp_shuffle", 2 * 1.74, "the same complete tree as interleaved: measured 1.74"},
    {"reduce_fold", 2 * 1.08, "measured 1.07 (uniform(0,1), n=10^4)"},
    {"reduce_bitonic_fold", 2 * 1.27, "measured 1.27 (uniform(0,1), n=10^6)"},
    {"reduce_warp_shuffle_grid", 2 * 32.0, "256-term serial slices: measured 32 (constant, 2^26)"},
    /* a-priori: fl32 of a value within gamma64_D S of s (D <= 281): 0.5 ulp + 2^-20 at most */
    {"reduce_f64acc", 0.5 + 0x1p-20, "correctly rounded but for binary64 error: measured 0.5"},
    {"reduce_kahan", 1.0, "faithful (the a-priori gamma_5 S allows ~5 ulp): measured 0.5"},
    /* a-priori: u|s| + gamma^2 S -> 0.5 ulp + a tiny term on one-signed data */
    {"reduce_neumaier", 0.5 + 0x1p-20, "measured 0.5"},
    {"cub_reduce", 2 * 2.0, "measured 2.0 (constant, 2^20)"},
    /* reduce_atomic, reduce_atomic_grid: arrival-order serial sums, error grows with n and
     * differs run to run (measured up to 9.2e6 ulp, constant 0.1 at 2^26, where the fp32
     * accumulator stops growing); only the a-priori bound gamma_D S is asserted */
};

static double ug_red_limit_of(const ug_kernel *k)
{
    for (size_t i = 0; i < sizeof ug_red_limits / sizeof ug_red_limits[0]; i++)
        if (strcmp(ug_red_limits[i].kernel, k->name) == 0) return ug_red_limits[i].ulp_max;
    return INFINITY; /* atomic kernels, or a new kernel until it is measured */
}

/* One table line per kernel for the sizes the issue reports on. */
typedef struct {
    const char *name;
    double ulp_max, ratio, gbps, time_ms;
    bool skipped;
} ug_red_row;

static void ug_red_table(ug_t *t, const ug_dist *d, size_t n, const ug_red_row *rows, int count)
{
    char label[96];
    ug_point(t, "table n=%zu %s", n, ug_dist_describe(d, label, sizeof label));
    ug_note(t, "%-26s %10s %10s %10s %9s", "kernel", "ulp_max", "ratio", "ms", "GB/s");
    for (int i = 0; i < count; i++) {
        if (rows[i].skipped)
            ug_note(t, "%-26s %10s  (n > max_n)", rows[i].name, "skipped");
        else
            ug_note(t, "%-26s %10.3g %10.3g %10.4g %9.1f", rows[i].name, rows[i].ulp_max,
                    rows[i].ratio, rows[i].time_ms, rows[i].gbps);
    }
}

/* Every GPU reduction on d over the sizes; one_signed: assert the ULP table too. */
static void ug_red_all(ug_t *t, ug_dist d, const size_t *ns, size_t count, bool one_signed)
{
    for (size_t i = 0; i < count; i++) {
        size_t n = ns[i];
        if (!ug_n_selected(t, n)) continue;
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, ug_red_trials(t, n));
        ug_red_row rows[32];
        int kernels = 0;
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CUDA, "*") {
            ug_red_row *row = kernels < 32 ? &rows[kernels++] : NULL;
            if (row) memset(row, 0, sizeof *row), row->name = k->name;
            if (k->max_n && n > k->max_n) { /* the refusal itself: gpu_reduce/max_exceeded */
                if (row) row->skipped = true;
                continue;
            }
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c, depths in kernels/cuda */
            if (one_signed) UG_EXPECT_ULP_MAX(r, ug_red_limit_of(k));
            if (row) {
                row->ulp_max = r->ulp_max;
                row->ratio = r->bound_ratio_max;
                row->gbps = r->gbps;
                row->time_ms = r->time_ms;
            }
        }
        if (n == ((size_t)1 << 20) || n >= ((size_t)1 << 26)) ug_red_table(t, &d, n, rows, kernels);
        ug_input_free(t, in);
    }
}

#define UG_ALL(ns) ns, sizeof(ns) / sizeof((ns)[0])

UG_CASE_EX(gpu_reduce, uniform01, UG_CASE_GPU) { ug_red_all(t, ug_uniform(0, 1), UG_ALL(ug_sizes), true); }
UG_CASE_EX(gpu_reduce, uniform_pm1, UG_CASE_GPU) { ug_red_all(t, ug_uniform(-1, 1), UG_ALL(ug_sizes), false); }
UG_CASE_EX(gpu_reduce, normal, UG_CASE_GPU) { ug_red_all(t, ug_normal(0, 1), UG_ALL(ug_sizes), false); }
UG_CASE_EX(gpu_reduce, lognormal, UG_CASE_GPU) { ug_red_all(t, ug_lognormal(0, 1), UG_ALL(ug_sizes), true); }
UG_CASE_EX(gpu_reduce, expuniform, UG_CASE_GPU) { ug_red_all(t, ug_expuniform(-60, 60), UG_ALL(ug_sizes), false); }
UG_CASE_EX(gpu_reduce, constant, UG_CASE_GPU) { ug_red_all(t, ug_constant(0.1), UG_ALL(ug_sizes), true); }
UG_CASE_EX(gpu_reduce, sorted_asc, UG_CASE_GPU) { ug_red_all(t, ug_sorted(ug_normal(0, 1), UG_ORDER_ASC), UG_ALL(ug_sizes), false); }
UG_CASE_EX(gpu_reduce, sorted_desc, UG_CASE_GPU) { ug_red_all(t, ug_sorted(ug_normal(0, 1), UG_ORDER_DESC), UG_ALL(ug_sizes), false); }
UG_CASE_EX(gpu_reduce, alternating, UG_CASE_GPU) { ug_red_all(t, ug_alternating(ug_uniform(0, 1)), UG_ALL(ug_sizes), false); }
UG_CASE_EX(gpu_reduce, gensum_1e3, UG_CASE_GPU) { ug_red_all(t, ug_gensum(1e3), UG_ALL(ug_sizes_gensum), false); }
UG_CASE_EX(gpu_reduce, gensum_1e8, UG_CASE_GPU) { ug_red_all(t, ug_gensum(1e8), UG_ALL(ug_sizes_gensum), false); }
UG_CASE_EX(gpu_reduce, gensum_1e16, UG_CASE_GPU) { ug_red_all(t, ug_gensum(1e16), UG_ALL(ug_sizes_gensum), false); }
UG_CASE_EX(gpu_reduce, normal_2e28, UG_CASE_GPU | UG_CASE_SLOW) { ug_red_all(t, ug_normal(0, 1), UG_ALL(ug_sizes_slow), false); }
UG_CASE_EX(gpu_reduce, uniform01_2e28, UG_CASE_GPU | UG_CASE_SLOW) { ug_red_all(t, ug_uniform(0, 1), UG_ALL(ug_sizes_slow), true); }

/* Special values on one-signed data: NaN, +inf, -inf and signed zeros injected; a NaN or
 * infinite exact sum must come out exactly (ULP error 0), a finite one within the table.
 * Dense (30%) at the tiny sizes so that n = 1..3 see specials too, sparse (1%) above. */
UG_CASE_EX(gpu_reduce, specials, UG_CASE_GPU)
{
    static const size_t tiny[] = {1, 2, 3, 17};
    static const size_t big[] = {1000, 1025, 10000, 1000000};
    const unsigned mask = UG_SP_NAN | UG_SP_POSINF | UG_SP_NEGINF | UG_SP_ZERO;
    ug_red_all(t, ug_with_specials(ug_uniform(0, 1), 0.3, mask), UG_ALL(tiny), true);
    ug_red_all(t, ug_with_specials(ug_uniform(0, 1), 0.01, mask), UG_ALL(big), true);
}

/* Subnormals (random signs): ordinary fp32 adds of subnormals round only once a sum needs
 * more than 24 bits above 2^-149, and the classes cover that, so every kernel but the atomic
 * ones keeps its bound ratio <= 1.  PTX atom.add.f32 flushes subnormal inputs and results to
 * zero, so the atomic kernels lose every term here: their result is noted, not asserted
 * (their class does not model flushing). */
UG_CASE_EX(gpu_reduce, subnormals, UG_CASE_GPU)
{
    static const size_t ns[] = {1, 1000, 1000000};
    ug_dist d = ug_with_specials(ug_uniform(0, 1), 1.0, UG_SP_SUBNORMAL);
    UG_FOR_N(t, n, ns) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, ug_red_trials(t, n));
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CUDA, "*") {
            ug_result *r = ug_measure(t, k, in);
            if (strncmp(k->name, "reduce_atomic", 13) == 0) {
                ug_note(t, "%s on subnormals: got %.9g (trial 0), rel_max %.3g, bound ratio %.3g "
                        "(atomics flush subnormals to 0)", k->name,
                        r->out && r->out[0] ? (double)r->out[0][0] : NAN, r->rel_max,
                        r->bound_ratio_max);
                continue;
            }
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
        }
        ug_input_free(t, in);
    }
}

/* Past max_n a kernel refuses with a clear error instead of overflowing the seed's int
 * indices.  The input is calloc'ed (pages untouched unless read) and never read: the refusal
 * comes before any copy. */
UG_CASE_EX(gpu_reduce, max_exceeded, UG_CASE_GPU)
{
    UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CUDA, "*") {
        if (!k->max_n) continue;
        ug_point(t, "max_n %s", k->name);
        size_t n = k->max_n + 1;
        float *x = calloc(n, sizeof *x);
        UG_ASSERT_MSG(x != NULL, "cannot reserve %zu floats", n);
        float out = 0;
        ug_call c;
        memset(&c, 0, sizeof c);
        c.op = UG_OP_SUM;
        c.n = n;
        c.x = x;
        c.out = &out;
        int rc = ug_kernel_run(k, &c);
        free(x);
        UG_EXPECT_MSG(rc != 0, "%s accepted n = %zu > max_n = %zu", k->name, n, k->max_n);
        UG_EXPECT_MSG(strstr(c.err, "max_n") && strstr(c.err, k->name),
                      "%s: unclear refusal: \"%s\"", k->name, c.err);
        ug_note(t, "%s: \"%s\"", k->name, c.err);
    }
}
