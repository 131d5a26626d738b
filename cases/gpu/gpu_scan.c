/*
 * gpu_scan.c - every GPU scan and norm kernel (kernels/cuda/scan.cu, kernels/cuda/norm.cu):
 * Hillis-Steele, Blelloch, the decoupled look-back, CUB's InclusiveSum/ExclusiveSum, Thrust's
 * inclusive_scan; the naive grid nrm2, cuBLAS Snrm2 and Sasum; on the CPU cases'
 * distributions and their adversarial inputs, n from 1 to 2^22.
 *
 * What is asserted, and why: bound ratio <= 1 for every output (a scan's output i against its
 * own depth at i + 1 terms, the depth functions of scan.cu; nrm2 through the root, ops/norm.c).
 * The nondeterministic rows (the look-back and the libraries' scans) run several times on each
 * input; every run is graded; gpu_scan/determinism counts their distinct results (and asserts
 * one for the rows declared deterministic).  Expected failures: nrm2_naive_grid where x_i^2 overflows
 * (elements near sqrt(FLT_MAX)) or vanishes (below 2^-75), as the CPU's nrm2_naive.
 * gpu_scan/speed prints every kernel's speed beside CUB's and Thrust's scans and cuBLAS's
 * Snrm2 and Sasum, in one run on one input (a TAP note table, as gpu_reduce's).
 * Without a CUDA device: 1..0 # SKIP.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cases/scan_profile.h"
#include "harness/run/ug.h"

static const size_t ug_gscan_sizes[] = {1, 2, 3, 1000, 1023, 1024, 1025, 4097, 100000,
                                        ((size_t)1 << 20) + 3};
static const size_t ug_gscan_sizes_gen[] = {1000, 4097, 100000, (size_t)1 << 20};
static const size_t ug_gscan_sizes_small[] = {1, 3, 1000, 100000};

static int ug_gscan_trials(size_t n) { return n <= 4097 ? 3 : 1; }

static const ug_param ug_gscan_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"gensum_1e8", UG_GENSUM(1e8), UG_SIZES(ug_gscan_sizes_gen)},
    {"gensum_1e16", UG_GENSUM(1e16), UG_SIZES(ug_gscan_sizes_gen)},
    {"lognormal_alternating", UG_LOGNORMAL(0, 3, .alternate = 1), UG_SIZES(ug_gscan_sizes_small)},
    {"specials", UG_NORMAL(0, 1, .special_rate = 0.01, .specials = UG_SP_ALL),
     UG_SIZES(ug_gscan_sizes_small)},
};

UG_CASE_OVER(gpu_scan, ug_gscan_dists, UG_CASE_GPU)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_SCAN, UG_OP_EXSCAN};
    for (int o = 0; o < 2; o++) {
        UG_FOR_SIZES(t, n, ug_gscan_sizes) {
            if (!ug_any_kernel_fmt(t, ops[o], UG_CUDA, "*", UG_F32)) continue; /* none selected */
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, ug_gscan_trials(n));
            UG_FOR_KERNELS(t, k, ops[o], UG_CUDA, "*") {
                ug_result *r = ug_measure(t, k, in);
                ug_along_profile(r, in); /* the report's error along the prefix */
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* per output: kernels/cuda/scan.cu */
            }
            ug_input_free(t, in);
        }
    }
}

static const size_t ug_gnorm_sizes[] = {1, 2, 3, 1000, 1025, 100000, (size_t)1 << 22};
static const size_t ug_gnorm_sizes_small[] = {1, 3, 1000};

/* What a row's values do to the naive grid nrm2's squares (ug_gnorm_xfail): some may overflow,
 * every pair overflows, every square flushes. */
enum { UG_GNORM_SOME_OVERFLOW = 1u << 0, UG_GNORM_PAIRS_OVERFLOW = 1u << 1,
       UG_GNORM_SQUARES_FLUSH = 1u << 2 };

static const ug_param ug_gnorm_dists[] = {
    {"norm_normal", UG_NORMAL(0, 1)},
    {"norm_lognormal", UG_LOGNORMAL(0, 3)},
    {"norm_expuniform_100", UG_EXPUNIFORM(-100, 100), .flags = UG_GNORM_SOME_OVERFLOW},
    {"norm_near_sqrt_fltmax", UG_UNIFORM(1e19, 1.8e19), .flags = UG_GNORM_PAIRS_OVERFLOW},
    {"norm_below_sqrt_denorm", UG_UNIFORM(1e-24, 3e-23), .flags = UG_GNORM_SQUARES_FLUSH},
    {"norm_specials", UG_NORMAL(0, 1, .special_rate = 0.01, .specials = UG_SP_ALL),
     UG_SIZES(ug_gnorm_sizes_small)},
};

/* Whether some trial of in holds an element with |x| outside [lo, hi] (nonzero), or (nan_inf)
 * both a NaN and an infinity. */
static bool ug_gnorm_some(const ug_input *in, double lo, double hi, bool nan_inf)
{
    for (int tr = 0; tr < in->trials; tr++) {
        const float *x = in->x[tr];
        bool nan = false, inf = false;
        for (size_t i = 0; x && i < in->shape.dim[0]; i++) {
            double a = fabs((double)x[i]);
            nan |= isnan(x[i]), inf |= isinf(x[i]);
            if (!nan_inf && a != 0 && (a < lo || a > hi)) return true;
        }
        if (nan_inf && nan && inf) return true;
    }
    return false;
}

/* The range failures of the naive grid nrm2, as cases/norm.c declares the CPU's; and cuBLAS's
 * Snrm2 on a vector with a NaN and an infinity (measured on the H100: it returns +inf, the
 * norm is NaN). */
static const char *ug_gnorm_xfail(const ug_kernel *k, const ug_param *p, size_t n,
                                  const ug_input *in)
{
    if (strcmp(k->name, "cublas_snrm2") == 0 && ug_gnorm_some(in, 0, 0, true))
        return "cuBLAS Snrm2 returns +inf for a vector holding a NaN and an infinity: the norm is NaN";
    if (strcmp(k->name, "nrm2_naive_grid") != 0) return NULL;
    /* one element: the result is sqrt(fl(x^2)), wrong exactly when x^2 leaves binary32's range */
    if (n == 1 && ug_gnorm_some(in, 0x1p-75, 0x1p64, false))
        return "x^2 leaves binary32's range (|x| < 2^-75 or > 2^64): the square is 0 or +inf";
    if ((p->flags & UG_GNORM_PAIRS_OVERFLOW) && n >= 2)
        return "x_i^2 overflows binary32: the sum of squares is +inf";
    /* exponents uniform in +-100: fails exactly when some square overflows (|x| > 2^64: +inf), or
     * at n = 1 when the one square flushes (below); at n = 2 the H100 run drew neither */
    if ((p->flags & UG_GNORM_SOME_OVERFLOW) && n >= 2 && ug_gnorm_some(in, 0, 0x1p64, false))
        return "some x_i^2 overflows binary32 (|x_i| > 2^64): the sum of squares is +inf";
    if (p->flags & UG_GNORM_SQUARES_FLUSH)
        return "x_i^2 below 2^-149: the squares flush to 0, the norm comes out 0";
    return NULL;
}

UG_CASE_OVER(gpu_scan, ug_gnorm_dists, UG_CASE_GPU)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_NRM2, UG_OP_ASUM};
    /* cuBLAS's norms declare depth 5n (order undocumented): vacuous from n = 2^22 / 5 on; there
     * the probabilistic bound at lambda 9 is asserted, 2n exp(-81/2) = 1.7e-10 a failure by
     * chance per output (Higham & Mary 2019) */
    ug_prob_lambda(t, 9.0);
    for (int o = 0; o < 2; o++) {
        UG_FOR_SIZES(t, n, ug_gnorm_sizes) {
            if (!ug_any_kernel_fmt(t, ops[o], UG_CUDA, "*", UG_F32)) continue; /* none selected */
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, ug_gscan_trials(n));
            UG_FOR_KERNELS(t, k, ops[o], UG_CUDA, "*") {
                ug_result *r = ug_measure(t, k, in);
                const char *why = ug_gnorm_xfail(k, p, n, in);
                if (why) ug_xfail(t, why);
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* ops/norm.c, kernels/cuda/norm.cu */
            }
            ug_input_free(t, in);
        }
    }
}

/* Run-to-run determinism, as cases/gpu/gpu_determinism.c checks the reductions': a row declared
 * deterministic (the three-phase scans, the grid nrm2, cuBLAS's norms) must give one bitwise
 * result over 12 runs of one input; the look-back and the libraries' scans are declared
 * nondeterministic (which predecessors a tile finds published depends on timing): their count of
 * distinct results is reported (a note and the row's figure), not asserted. */
UG_CASE_EX(gpu_scan, determinism, UG_CASE_GPU)
{
    static const ug_op ops[] = {UG_OP_SCAN, UG_OP_EXSCAN, UG_OP_NRM2, UG_OP_ASUM};
    ug_dist d = ug_normal(0, 1);
    for (int o = 0; o < 4; o++) {
        if (!ug_any_kernel_fmt(t, ops[o], UG_CUDA, "*", UG_F32)) continue; /* none selected */
        ug_input *in = ug_input_make(t, ops[o], &d, 1000003, 1);
        UG_FOR_KERNELS(t, k, ops[o], UG_CUDA, "*") {
            ug_result *r = ug_measure_repeat(t, k, in, 12);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
            if (!k->nondeterministic) {
                UG_EXPECT_DISTINCT_MAX(r, 1);
            } else {
                ug_note(t, "%s (nondeterministic): %d distinct results in %d runs", k->name,
                        r->distinct_results, r->repeats);
                ug_result_extra(r, "distinct_results", r->distinct_results);
            }
        }
        ug_input_free(t, in);
    }
}

/* The speed table: every scan kernel (CUB's DeviceScan and Thrust among them) at n = 2^22 and
 * every norm kernel (cuBLAS Snrm2 and Sasum among them) at n = 2^24, normal(0, 1), one trial,
 * each graded as above (bound ratio <= 1) and timed by ug_measure (the median of its timed runs,
 * CUDA events around the launch alone; GB/s from the operation's bytes).  The scans stop at
 * 2^22: their reference records every prefix (~1 s and 700 MB of records per 2^24 outputs on one
 * core), the norms' is one sum.  Cost in the default GPU suite: ~2 s, most of it the oracle. */
typedef struct {
    const char *name;
    double ulp_max, ratio, ms, gbps;
} ug_gspeed_row;

static void ug_gspeed_table(ug_t *t, ug_op op, size_t n, const ug_gspeed_row *rows, int count)
{
    ug_point(t, "speed table %s n=%zu normal(0,1)", ug_op_get(op)->shape->name, n);
    ug_note(t, "%-34s %10s %10s %10s %9s", "kernel", "ulp_max", "ratio", "ms", "GB/s");
    for (int i = 0; i < count; i++)
        ug_note(t, "%-34s %10.3g %10.3g %10.4g %9.1f", rows[i].name, rows[i].ulp_max, rows[i].ratio,
                rows[i].ms, rows[i].gbps);
}

UG_CASE_EX(gpu_scan, speed, UG_CASE_GPU)
{
    static const struct {
        ug_op op;
        size_t n;
    } runs[] = {{UG_OP_SCAN, (size_t)1 << 22}, {UG_OP_EXSCAN, (size_t)1 << 22},
                {UG_OP_NRM2, (size_t)1 << 24}, {UG_OP_ASUM, (size_t)1 << 24}};
    ug_dist d = ug_normal(0, 1);
    ug_prob_lambda(t, 9.0); /* cuBLAS's norms: depth 5n, vacuous at 2^24 (as above) */
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        if (!ug_n_selected(t, runs[i].n)) continue;
        if (!ug_any_kernel_fmt(t, runs[i].op, UG_CUDA, "*", UG_F32)) continue; /* none selected */
        ug_input *in = ug_input_make(t, runs[i].op, &d, runs[i].n, 1);
        ug_gspeed_row rows[32];
        int count = 0;
        UG_FOR_KERNELS(t, k, runs[i].op, UG_CUDA, "*") {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
            if (count < 32 && !r->failed_run)
                rows[count++] = (ug_gspeed_row){k->id, r->ulp_max, r->bound_ratio_max, r->time_ms,
                                                r->gbps};
        }
        if (count) ug_gspeed_table(t, runs[i].op, runs[i].n, rows, count);
        ug_input_free(t, in);
    }
}
