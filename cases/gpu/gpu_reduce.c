/*
 * gpu_reduce.c - every GPU reduction kernel on every distribution of the foundation issue, n from
 * 1 to 2^26 (2^28 in the slow suite), the CUDA kernels' findings as assertions.
 *
 * What is asserted, and why:
 *  - every kernel, distribution and size: bound ratio <= 1 (the a-priori class and depth of the
 *    kernel's registry line, or the probabilistic bound at lambda = 9 where that is vacuous; a
 *    ratio above 1 is a bug in the kernel or in its declared depth).  Atomics too;
 *  - special values: an exact sum that is NaN or infinite must come out as exactly that, else
 *    the ratio is infinite (oracle.h's rules);
 *  - expected failures, each declared per kernel with its reason (strict: a pass is reported);
 *  - a kernel whose max_n is below n is skipped at that n; max_exceeded asserts the clear
 *    refusal past max_n.
 * Tables: at n = 2^20 and 2^26, per kernel, max ULP, bound ratio and GB/s.  Measured figures
 * are not bounds: they are gated by the per-device baselines (reports/baselines/).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness/run/ug.h"

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

/* The probabilistic bound where the worst case is vacuous (D u >= 1: the unknown-order kernels,
 * cub_reduce and reduce_atomic, at n >= 2^24): lambda = 9, so an output of n terms exceeds
 * gamma~_D(9) S with probability at most 2n exp(-9^2 (1-u)^2 / 2) = 5.2e-18 n, 3.5e-10 at
 * n = 2^26 (Higham & Mary 2019; kernels/bounds.c).  The model (independent, mean-zero errors)
 * does not hold for a serial binary32 accumulation in arrival order once the running sum grows
 * far beyond the terms: on one-signed or sorted data the sum climbs past 2^24 times the terms
 * and every term below half an ulp is absorbed the same way (0.1 stops adding once the sum
 * passes 2^21; uniform(0,1) terms below 2 are lost past 2^25).  That is declared below as the
 * expected failure it is. */
#define UG_RED_LAMBDA 9.0

/* Kernels that accumulate in arrival order into one binary32 word (atomics), where the worst
 * case is vacuous and the data make the running sum grow steadily (one-signed or sorted). */
static bool ug_red_stagnates(const ug_kernel *k, const ug_dist *d, size_t n)
{
    return strncmp(k->name, "reduce_atomic", 13) == 0 && ug_kernel_depth(k, n) * 0x1p-24 >= 1 &&
           (ug_dist_one_signed(d) || d->order != UG_ORDER_NONE);
}

/* One table line per kernel for the sizes the issue reports on. */
typedef struct {
    const char *name;
    double ulp_max, ratio, gbps, time_ms;
    bool skipped;
} ug_red_row;

static void ug_red_table(ug_t *t, const ug_dist *d, size_t n, const ug_red_row *rows, int count)
{
    char label[160];
    ug_point(t, "table n=%zu %s", n, ug_dist_describe(d, label, sizeof label));
    ug_note(t, "%-34s %10s %10s %10s %9s", "kernel", "ulp_max", "ratio", "ms", "GB/s");
    for (int i = 0; i < count; i++) {
        if (rows[i].skipped)
            ug_note(t, "%-34s %10s  (n > max_n)", rows[i].name, "skipped");
        else
            ug_note(t, "%-34s %10.3g %10.3g %10.4g %9.1f", rows[i].name, rows[i].ulp_max,
                    rows[i].ratio, rows[i].time_ms, rows[i].gbps);
    }
}

/* Every GPU reduction on d over the sizes; on one-signed data (the distribution says so) the ULP
 * table is asserted too. */
static void ug_red_all(ug_t *t, ug_dist d, const size_t *ns, size_t count)
{
    ug_prob_lambda(t, UG_RED_LAMBDA);
    for (size_t i = 0; i < count; i++) {
        size_t n = ns[i];
        if (!ug_n_selected(t, n)) continue;
        /* no CUDA sum kernel in this run (a GEMM plugin alone): no input of up to 2^26 terms */
        if (!ug_any_kernel_fmt(t, UG_OP_SUM, UG_CUDA, "*", UG_F32)) continue;
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, ug_red_trials(t, n));
        ug_red_row rows[64];
        int kernels = 0;
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CUDA, "*") {
            ug_red_row *row = kernels < 64 ? &rows[kernels++] : NULL;
            if (row) memset(row, 0, sizeof *row), row->name = k->id;
            if (k->max_n && n > k->max_n) { /* the refusal itself: gpu_reduce/max_exceeded */
                if (row) row->skipped = true;
                continue;
            }
            ug_result *r = ug_measure(t, k, in);
            if (ug_red_stagnates(k, &d, n))
                ug_xfail(t, "arrival-order binary32 accumulation of one-signed or sorted data "
                            "absorbs terms below half an ulp of the growing sum: the probabilistic "
                            "model does not hold");
            /* a-priori (kernels/bounds.c, depths in kernels/cuda), probabilistic where vacuous */
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
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

static const ug_param ug_red_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"uniform_pm1", UG_UNIFORM(-1, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"lognormal", UG_LOGNORMAL(0, 1)},
    {"expuniform", UG_EXPUNIFORM(-60, 60)},
    {"constant", UG_CONSTANT(0.1)},
    {"sorted_asc", UG_NORMAL(0, 1, .order = UG_ORDER_ASC)},
    {"sorted_desc", UG_NORMAL(0, 1, .order = UG_ORDER_DESC)},
    {"alternating", UG_UNIFORM(0, 1, .alternate = 1)},
    {"gensum_1e3", UG_GENSUM(1e3), UG_SIZES(ug_sizes_gensum)},
    {"gensum_1e8", UG_GENSUM(1e8), UG_SIZES(ug_sizes_gensum)},
    {"gensum_1e16", UG_GENSUM(1e16), UG_SIZES(ug_sizes_gensum)},
};

static const ug_param ug_red_dists_slow[] = {
    {"normal_2e28", UG_NORMAL(0, 1), UG_SIZES(ug_sizes_slow)},
    {"uniform01_2e28", UG_UNIFORM(0, 1), UG_SIZES(ug_sizes_slow)},
};

static void ug_red_row_all(ug_t *t)
{
    const ug_param *p = ug_param_of(t);
    if (p->sizes)
        ug_red_all(t, p->dist, p->sizes, p->n_sizes);
    else
        ug_red_all(t, p->dist, UG_ALL(ug_sizes));
}

UG_CASE_OVER(gpu_reduce, ug_red_dists, UG_CASE_GPU) { ug_red_row_all(t); }
UG_CASE_OVER(gpu_reduce, ug_red_dists_slow, UG_CASE_GPU | UG_CASE_SLOW) { ug_red_row_all(t); }

/* Special values on one-signed data: NaN, +inf, -inf and signed zeros injected; a NaN or
 * infinite exact sum must come out exactly (ULP error 0), a finite one within the table.
 * Dense (30%) at the tiny sizes so that n = 1..3 see specials too, sparse (1%) above. */
UG_CASE_EX(gpu_reduce, specials, UG_CASE_GPU)
{
    static const size_t tiny[] = {1, 2, 3, 17};
    static const size_t big[] = {1000, 1025, 10000, 1000000};
    const unsigned mask = UG_SP_NAN | UG_SP_POSINF | UG_SP_NEGINF | UG_SP_ZERO;
    ug_red_all(t, ug_with_specials(ug_uniform(0, 1), 0.3, mask), UG_ALL(tiny));
    ug_red_all(t, ug_with_specials(ug_uniform(0, 1), 0.01, mask), UG_ALL(big));
}

/* Subnormals (random signs): ordinary fp32 adds of subnormals round only once a sum needs
 * more than 24 bits above 2^-149, and the classes cover that, so every kernel built without
 * flush-to-zero keeps its bound ratio <= 1 and returns no subnormal result as zero (asserted).
 * Flush-to-zero, reported as such (harness/measure/ftz.c), where it is declared: PTX atom.add.f32
 * flushes subnormal inputs and results in every build (the atomic rows say so, .ftz), and the
 * @fastmath builds flush every subnormal operand of a binary32 addition (--use_fast_math implies
 * --ftz=true).  A declared flush is part of the kernel's arithmetic: its bound gains one flush
 * per term and per sum, (2n - 1) 2^-126 (kernels/bounds.c), so the declared kernels keep their
 * ratio <= 1 and an undeclared flush breaches at once.  The @fastmath builds must show the flush
 * (from n = 2 on every kernel adds, so a zero comes back); a binary64 accumulator's conversion of
 * the terms may or may not flush, so that is reported, not expected.
 */
UG_CASE_EX(gpu_reduce, subnormals, UG_CASE_GPU)
{
    static const size_t ns[] = {1, 1000, 1000000};
    ug_dist d = ug_with_specials(ug_uniform(0, 1), 1.0, UG_SP_SUBNORMAL);
    UG_FOR_N(t, n, ns) {
        if (!ug_any_kernel_fmt(t, UG_OP_SUM, UG_CUDA, "*", UG_F32)) continue;
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, ug_red_trials(t, n));
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CUDA, "*") {
            ug_result *r = ug_measure(t, k, in);
            size_t flushed = ug_result_flushed_to_zero(r);
            bool ftz_build = (ug_kernel_props(k) & UG_VP_FTZ) != 0;
            bool expect_ftz = ftz_build && n >= 2 && k->acc_fmt != UG_F64;
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
            if (r->failed_run) continue;
            ug_result_extra(r, "flushed_to_zero", (double)flushed);
            if (expect_ftz)
                UG_EXPECT_MSG(flushed > 0, "%s: built with --ftz=true, yet no subnormal result "
                              "came back as zero", k->id);
            else if (!ftz_build && !k->ftz)
                UG_EXPECT_MSG(flushed == 0, "%s: %zu subnormal results came back as zero in a "
                              "build without flush-to-zero", k->id, flushed);
            if (flushed) ug_note(t, "%s: flush-to-zero: %zu of %zu outputs", k->id, flushed, r->count);
        }
        ug_input_free(t, in);
    }
}

/* Past max_n a kernel refuses with a clear error instead of overflowing the posts' int
 * indices.  The input is mapped (pages untouched unless read) and never read: the refusal
 * comes before any copy. */
UG_CASE_EX(gpu_reduce, max_exceeded, UG_CASE_GPU)
{
    UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CUDA, "*") {
        if (!k->max_n) continue;
        ug_point(t, "max_n %s", k->id);
        size_t n = k->max_n + 1;
        /* mapped, not calloc'ed: free() under MALLOC_PERTURB_ (meson sets it) would write every
         * one of these 4 GiB of never-touched pages */
        float *x = mmap(NULL, n * sizeof *x, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
        UG_ASSERT_MSG(x != MAP_FAILED, "cannot reserve %zu floats", n);
        float out = 0;
        ug_call c;
        memset(&c, 0, sizeof c);
        c.op = UG_OP_SUM;
        c.shape.dim[0] = n;
        ug_call_set_f32(&c, x, NULL, &out);
        int rc = ug_kernel_run(k, &c);
        munmap(x, n * sizeof *x);
        UG_EXPECT_MSG(rc != 0, "%s accepted n = %zu > max_n = %zu", k->name, n, k->max_n);
        UG_EXPECT_MSG(strstr(c.err, "max_n") && strstr(c.err, k->name),
                      "%s: unclear refusal: \"%s\"", k->name, c.err);
        ug_note(t, "%s: \"%s\"", k->name, c.err);
    }
}
