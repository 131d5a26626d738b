/*
 * dist_fmt.c - unit tests of the distributions drawn in a number format
 * (harness/inputs/fmt_dist.c):
 *   dist/fmt_values       every value of every base kind is a value of its format (RN_f(v) == v),
 *                         inside its range, and reproducible (same seed: same values; another
 *                         trial: others); the binary32 fill refuses a format's distribution
 *   dist/fmt_specials     each format's special set: e4m3's 448 and its NaN, e5m2's infinities,
 *                         binary16 subnormals, bfloat16's tiny normals; e4m3 infinities refused
 *   dist/fmt_kappa        GenSum / GenDot in binary64 (kappa up to 1e32), binary16, bfloat16 and
 *                         e5m2 reach kappa within the last term's one rounding (2^(2-p) relative,
 *                         the exact condition number from the binary64 oracle); a kappa beyond a
 *                         format's exponent range is refused with the limit
 *   dist/fmt_gemm         GEMM operands drawn in f16, bf16, e4m3, e5m2: values of the format,
 *                         reproducible, measured by a binary32 GEMM kernel
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"
#include "oracle/oracle.h"

static const ug_fmt ug_df_formats[] = {UG_F64, UG_F16, UG_BF16, UG_E4M3, UG_E5M2};
enum { UG_DF_N = 4099 };

static int ug_df_fill(const ug_dist *d, ug_op op, uint32_t trial, double *x, double *y, size_t n,
                      char *err)
{
    ug_shape s = ug_shape_square(n);
    return ug_dist_fill_fmt(d, ug_op_get(op), 0x5eed, 42, trial, x, y, &s, err, 256);
}

UG_CASE(dist, fmt_values)
{
    const ug_dist kinds[] = {ug_normal(0, 1), ug_uniform(-3, 5), ug_lognormal(0, 0.5),
                             ug_expuniform(-8, 8), ug_constant(0.1),
                             ug_sorted(ug_normal(0, 1), UG_ORDER_ABS_DESC),
                             ug_alternating(ug_uniform(0, 1))};
    double *x = malloc(UG_DF_N * sizeof *x), *y = malloc(UG_DF_N * sizeof *y);
    double *x2 = malloc(UG_DF_N * sizeof *x2), *y2 = malloc(UG_DF_N * sizeof *y2);
    char err[256], name[160];
    UG_ASSERT(x && y && x2 && y2);
    for (size_t f = 0; f < sizeof ug_df_formats / sizeof ug_df_formats[0]; f++)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            ug_dist d = ug_in_format(kinds[k], ug_df_formats[f]);
            ug_dist_describe(&d, name, sizeof name);
            ug_point(t, "%s", name);
            UG_ASSERT_MSG(ug_df_fill(&d, UG_OP_DOT, 0, x, y, UG_DF_N, err) == 0, "%s", err);
            size_t bad = 0, first = 0;
            double maxf = ug_format_of(d.fmt)->max;
            for (size_t i = 0; i < UG_DF_N; i++) {
                bool ok = ug_fmt_round(d.fmt, x[i], UG_RN) == x[i] && fabs(x[i]) <= maxf &&
                          ug_fmt_round(d.fmt, y[i], UG_RN) == y[i];
                if (!ok && !bad++) first = i;
            }
            UG_EXPECT_MSG(bad == 0, "%zu values not of %s, first x[%zu] = %a", bad,
                          ug_fmt_name(d.fmt), first, x[first]);
            UG_EXPECT_MSG(strstr(name, "|in(") != NULL, "description %s names no format", name);
            UG_ASSERT(ug_df_fill(&d, UG_OP_DOT, 0, x2, y2, UG_DF_N, err) == 0);
            UG_EXPECT_MSG(memcmp(x, x2, UG_DF_N * sizeof *x) == 0, "not reproducible");
            UG_ASSERT(ug_df_fill(&d, UG_OP_DOT, 1, x2, y2, UG_DF_N, err) == 0);
            if (d.kind != UG_D_CONSTANT)
                UG_EXPECT_MSG(memcmp(x, x2, UG_DF_N * sizeof *x) != 0, "trial 1 = trial 0");
            if (d.order == UG_ORDER_ABS_DESC)
                for (size_t i = 1; i < UG_DF_N; i++)
                    if (!(fabs(x[i - 1] * y[i - 1]) >= fabs(x[i] * y[i]))) {
                        UG_EXPECT_MSG(false, "not ordered at %zu", i);
                        break;
                    }
        }
    ug_point(t, "a binary32 buffer refuses a format's distribution");
    ug_dist d = ug_in_format(ug_normal(0, 1), UG_BF16);
    float f[4];
    UG_EXPECT_MSG(ug_dist_fill_sum(&d, 1, 2, 0, f, 4, err, sizeof err) != 0 && strstr(err, "bf16"),
                  "%s", err);
    ug_point(t, "parameters beyond the format's range are refused");
    d = ug_in_format(ug_normal(0, 100), UG_E4M3); /* 8.58 * 100 > 448 */
    UG_EXPECT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, 8, err) != 0 && strstr(err, "e4m3"), "%s",
                  err);
    d = ug_in_format(ug_expuniform(-300, 300), UG_F64);
    UG_EXPECT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, 8, err) == 0, "%s", err);
    d = ug_in_format(ug_expuniform(-30, 3), UG_F16); /* 2^-30 < 2^-24 */
    UG_EXPECT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, 8, err) != 0 && strstr(err, "f16"), "%s",
                  err);
    free(x);
    free(y);
    free(x2);
    free(y2);
}

/* How many of x[0..n) satisfy pred. */
#define UG_DF_COUNT(x, n, pred)                                                                \
    ({                                                                                         \
        size_t c_ = 0;                                                                         \
        for (size_t i_ = 0; i_ < (n); i_++) {                                                  \
            double v = (x)[i_];                                                                \
            c_ += (pred);                                                                      \
        }                                                                                      \
        c_;                                                                                    \
    })

UG_CASE(dist, fmt_specials)
{
    enum { N = 20000 };
    double *x = malloc(N * sizeof *x);
    char err[256];
    UG_ASSERT(x);
    ug_point(t, "e4m3: 448 and its one NaN, no infinity");
    ug_dist d = ug_in_format(ug_with_specials(ug_normal(0, 1), 0.05,
                                              UG_SP_NAN | UG_SP_MAX | UG_SP_SUBNORMAL), UG_E4M3);
    UG_ASSERT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, N, err) == 0, "%s", err);
    UG_EXPECT(UG_DF_COUNT(x, N, fabs(v) == 448) > 100);
    UG_EXPECT(UG_DF_COUNT(x, N, isnan(v) && (ug_fmt_encode(UG_E4M3, v) & 0x7f) == 0x7f) > 100);
    UG_EXPECT(UG_DF_COUNT(x, N, v != 0 && fabs(v) < 0x1p-6) > 100); /* subnormal: < 2^-6 */
    UG_EXPECT(UG_DF_COUNT(x, N, isinf(v)) == 0);
    d.specials |= UG_SP_POSINF;
    UG_EXPECT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, N, err) != 0 && strstr(err, "infinity"),
                  "e4m3 with +inf: %s", err);
    ug_point(t, "e2m1: +-6, its subnormal +-0.5; no NaN, no infinity");
    d = ug_in_format(ug_with_specials(ug_normal(0, 0.5), 0.05, UG_SP_MAX | UG_SP_SUBNORMAL), UG_E2M1);
    UG_ASSERT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, N, err) == 0, "%s", err);
    UG_EXPECT(UG_DF_COUNT(x, N, fabs(v) == 6) > 100 && UG_DF_COUNT(x, N, fabs(v) == 0.5) > 100);
    UG_EXPECT(UG_DF_COUNT(x, N, ug_fmt_round(UG_E2M1, v, UG_RN) != v) == 0);
    d.specials |= UG_SP_NAN;
    UG_EXPECT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, N, err) != 0 && strstr(err, "no NaN"),
                  "e2m1 with NaN: %s", err);
    ug_point(t, "e5m2: both infinities, max 57344");
    d = ug_in_format(ug_with_specials(ug_normal(0, 1), 0.05,
                                      UG_SP_POSINF | UG_SP_NEGINF | UG_SP_MAX), UG_E5M2);
    UG_ASSERT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, N, err) == 0, "%s", err);
    UG_EXPECT(UG_DF_COUNT(x, N, v == INFINITY) > 100 && UG_DF_COUNT(x, N, v == -INFINITY) > 100);
    UG_EXPECT(UG_DF_COUNT(x, N, fabs(v) == 57344) > 100);
    ug_point(t, "binary16 subnormals: below 2^-14, multiples of 2^-24, both signs");
    d = ug_in_format(ug_with_specials(ug_normal(0, 1), 1, UG_SP_SUBNORMAL), UG_F16);
    UG_ASSERT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, N, err) == 0, "%s", err);
    UG_EXPECT(UG_DF_COUNT(x, N, v != 0 && fabs(v) < 0x1p-14 && fmod(fabs(v), 0x1p-24) == 0) == N);
    UG_EXPECT(UG_DF_COUNT(x, N, v < 0) > N / 3 && UG_DF_COUNT(x, N, v > 0) > N / 3);
    UG_EXPECT(UG_DF_COUNT(x, N, fabs(v) > 0x1p-15) > N / 3); /* the range is covered */
    ug_point(t, "bfloat16 tiny normals: [2^-126, 2^-125), values of bfloat16");
    d = ug_in_format(ug_with_specials(ug_normal(0, 1), 1, UG_SP_TINY), UG_BF16);
    UG_ASSERT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, N, err) == 0, "%s", err);
    UG_EXPECT(UG_DF_COUNT(x, N, fabs(v) >= 0x1p-126 && fabs(v) < 0x1p-125 &&
                                    ug_fmt_round(UG_BF16, v, UG_RN) == v) == N);
    UG_EXPECT(UG_DF_COUNT(x, N, fabs(v) > 0x1p-126) > N / 2); /* not just the smallest */
    ug_point(t, "binary64 NaN and zeros of both signs");
    d = ug_in_format(ug_with_specials(ug_normal(0, 1), 0.1, UG_SP_NAN | UG_SP_ZERO), UG_F64);
    UG_ASSERT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, N, err) == 0, "%s", err);
    UG_EXPECT(UG_DF_COUNT(x, N, isnan(v)) > 500);
    UG_EXPECT(UG_DF_COUNT(x, N, v == 0 && signbit(v)) > 300 && UG_DF_COUNT(x, N, v == 0 && !signbit(v)) > 300);
    free(x);
}

/* The exact condition number sum|terms| / |sum| of a fill: both sums exact (the binary64
 * oracle; sum |x_i y_i| as the dot of |x| and |y|), one division. */
static double ug_df_kappa(const double *x, const double *y, size_t n)
{
    double *ax = malloc(n * sizeof *ax), *ay = malloc(n * sizeof *ay);
    for (size_t i = 0; i < n; i++) {
        ax[i] = fabs(x[i]);
        ay[i] = y ? fabs(y[i]) : 1;
    }
    ug_exact e, a;
    if (y) {
        ug_exact_dot_f64(x, 1, y, 1, n, &e);
        ug_exact_dot_f64(ax, 1, ay, 1, n, &a);
    } else {
        ug_exact_sum_f64(x, n, &e);
        ug_exact_sum_f64(ax, n, &a);
    }
    free(ax);
    free(ay);
    return a.hi / fabs(e.hi);
}

UG_CASE(dist, fmt_kappa)
{
    static const struct {
        ug_fmt f;
        double kappa;
    } rows[] = {{UG_F64, 1}, {UG_F64, 1e3}, {UG_F64, 1e16}, {UG_F64, 1e32}, {UG_F16, 10},
                {UG_F16, 1e3}, {UG_BF16, 1e3}, {UG_BF16, 1e6}, {UG_BF16, 1e12}, {UG_E5M2, 100}};
    /* enough terms to cancel log2 kappa binades p - 1 bits at a time (n = 2, 3 reach small
     * kappa only: fmt_dist.c) */
    static const size_t ns[] = {100, 1000, 4097};
    double *x = malloc(4097 * sizeof *x), *y = malloc(4097 * sizeof *y);
    char err[256];
    UG_ASSERT(x && y);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (int dot = 0; dot < 2; dot++) {
            ug_dist d = ug_in_format(dot ? ug_gendot(rows[r].kappa) : ug_gensum(rows[r].kappa),
                                     rows[r].f);
            const ug_format *F = ug_format_of(rows[r].f);
            /* the last term's rounding, u = 2^-p of |F - D| <= 2|F| (sum; a dot's division and
             * rounding twice that), A and D read as RN64 (2^-53 each): kappa within
             * 2^(3-p) + 2^-50 relative */
            double tol = ldexp(1, 3 - F->p) + 0x1p-50;
            ug_point(t, "%s %s kappa %g", ug_fmt_name(rows[r].f), dot ? "gendot" : "gensum",
                     rows[r].kappa);
            for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
                size_t n = ns[j];
                if (ug_df_fill(&d, dot ? UG_OP_DOT : UG_OP_SUM, (uint32_t)j, x, y, n, err)) {
                    UG_EXPECT_MSG(false, "n = %zu: %s", n, err);
                    continue;
                }
                double k = ug_df_kappa(x, dot ? y : NULL, n);
                UG_EXPECT_MSG(fabs(k / rows[r].kappa - 1) <= tol, "n = %zu: kappa %.17g, want %g "
                              "within %g", n, k, rows[r].kappa, tol);
            }
        }
    ug_point(t, "a kappa beyond the format's exponent range is refused");
    ug_dist d = ug_in_format(ug_gensum(1e12), UG_F16);
    UG_EXPECT_MSG(ug_df_fill(&d, UG_OP_SUM, 0, x, NULL, 1000, err) != 0 && strstr(err, "f16") &&
                  strstr(err, "range"), "%s", err);
    free(x);
    free(y);
}

/* GEMM operands drawn in a format (fmt_dist.c, ug_fd_gemm): every value of A (M x K) and B
 * (K x N) a value of the format, the encoded buffers equal to the binary32 copies the binary32
 * kernels read, reproducible from (seed, stream, trial) and another trial giving others; the
 * vector constructions refused; a binary32 GEMM kernel measured on the bf16 operands within its
 * a-priori bound (the exact results from the binary32 oracle: bf16 embeds in binary32). */
UG_CASE(dist, fmt_gemm)
{
    static const ug_fmt fmts[] = {UG_F16, UG_BF16, UG_E4M3, UG_E5M2};
    enum { M = 5, N = 7, K = 3 };
    ug_shape sh = {{M, N, K}, 1};
    const ug_op_desc *od = ug_op_get(UG_OP_GEMM);
    double a[M * K], b[K * N], a2[M * K], b2[K * N];
    char err[256];
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        ug_dist d = ug_in_format(ug_normal(0, 1), fmts[f]);
        ug_point(t, "gemm operands in %s: values of the format, stored and copied exactly",
                 ug_fmt_name(fmts[f]));
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d, &(ug_shape){{M, N, K}}, 2);
        UG_ASSERT(in->fmt[0] == fmts[f] && in->fmt[1] == fmts[f] && in->trials == 2);
        size_t bad = 0, differ = 0;
        for (int i = 0; i < in->trials; i++)
            for (int o = 0; o < 2; o++) {
                const float *v = o ? in->y[i] : in->x[i];
                for (size_t e = 0; e < (o ? (size_t)K * N : (size_t)M * K); e++) {
                    bad += ug_fmt_round(fmts[f], v[e], UG_RN) != v[e];
                    differ += ug_fmt_load(fmts[f], in->data[o][i], e) != v[e];
                }
            }
        UG_EXPECT_MSG(bad == 0 && differ == 0, "%zu values not of %s, %zu buffers differ", bad,
                      ug_fmt_name(fmts[f]), differ);
        ug_input_free(t, in);

        ug_point(t, "gemm operands in %s: reproducible from (seed, stream, trial)",
                 ug_fmt_name(fmts[f]));
        UG_ASSERT_MSG(ug_dist_fill_fmt(&d, od, 0x5eed, 42, 0, a, b, &sh, err, sizeof err) == 0,
                      "%s", err);
        UG_ASSERT(ug_dist_fill_fmt(&d, od, 0x5eed, 42, 0, a2, b2, &sh, err, sizeof err) == 0);
        UG_EXPECT(memcmp(a, a2, sizeof a) == 0 && memcmp(b, b2, sizeof b) == 0);
        UG_ASSERT(ug_dist_fill_fmt(&d, od, 0x5eed, 42, 1, a2, b2, &sh, err, sizeof err) == 0);
        UG_EXPECT(memcmp(a, a2, sizeof a) != 0 && memcmp(b, b2, sizeof b) != 0);
        UG_EXPECT(memcmp(a, b, sizeof a) != 0); /* A and B from different purposes */
    }
    ug_point(t, "gemm operands: gendot and orderings are refused, naming the distribution");
    ug_dist g = ug_in_format(ug_gendot(1e3), UG_BF16);
    UG_EXPECT(ug_dist_fill_fmt(&g, od, 0x5eed, 42, 0, a, b, &sh, err, sizeof err) != 0 &&
              strstr(err, "elementwise only") != NULL);

    const ug_kernel *k = ug_kernel_find("gemm_naive_cpu");
    UG_ASSERT_MSG(k != NULL, "gemm_naive_cpu not registered");
    ug_dist d = ug_in_format(ug_normal(0, 1), UG_BF16);
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d, &(ug_shape){{16, 16, 64}}, 2);
    ug_result *r = ug_measure(t, k, in); /* its point: every output within its bound */
    UG_EXPECT_MSG(!r->failed_run && r->count == 2 * 16 * 16, "count %zu", r->count);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
}
