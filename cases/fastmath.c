/*
 * fastmath.c - what host -ffast-math does to the CPU kernels (their @fastmath build: -O3
 * -ffast-math, kernels/meson.build), as assertions.
 *
 * -ffast-math lets the compiler treat binary32 arithmetic as real arithmetic: it may
 * reassociate (-fassociative-math) and so simplify Kahan's compensation (t - s) - y to 0,
 * turning compensated summation back into plain summation.  The compensated kernels of
 * kernels/cpu are protected: every value whose rounding carries the compensation passes through
 * an empty asm barrier (kernels/cpu/opaque.h) that the compiler cannot see through, and the
 * finiteness tests are integer tests that -ffinite-math-only cannot fold.  kahan_f32_plain is
 * the same loop without the barriers: the control that shows the protection is what matters.
 *
 * What is asserted, and why:
 *  - compensation_kept: each protected kernel (kahan_f32, neumaier_f32, dot_kahan_f32) gives, in
 *    its @fastmath build, the same bits as in its @default build on every input (probe,
 *    uniform(0,1), GenSum/GenDot at condition 1e8: the barriers pin every rounding, so the code
 *    computes what is written), and so stays within its
 *    a-priori class: at most 2 + 4nu ulp on condition-1 data (Kahan, Higham (4.8); the probe
 *    below is condition 1 as well), bound ratio <= 1;
 *  - kahan_f32_plain@default is Kahan (compiled as written): the same ULP limit;
 *  - kahan_f32_plain@fastmath: the harness says which happened, "compensates" (within Kahan's
 *    limit) or "compensation deleted: at the plain-summation level" (beyond it), and asserts,
 *    for GCC (the compiler of CI and of this project's builds, checked), that it was deleted:
 *    if a GCC ever stops deleting it, the control shows nothing and this case says so;
 *  - order_kept: which of the seven-methods post's kernels -ffast-math left in their written
 *    order (bitwise equal to @default) is reported, not asserted: nothing promises either; what
 *    holds for every order (the tree class with depth n - 1, kernels/bounds.c) is asserted by
 *    the reduce, dot and gemm cases.
 * The probe: 1 followed by 65535 copies of 2^-24.  Summed in that order without compensation
 * every addition is a tie that rounds back to 1 (result 1, 32767 ulp from the exact
 * 1 + 65535 * 2^-24); any plain order that adds the 1 early loses most of the small terms.
 * Compensated, the result is RN32 of the exact sum, 0x1.01p+0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"

enum { UG_FM_PROBE_N = 1 << 16, UG_FM_TRIALS = 20 };

/* The compensated kernels and whether their source is protected against reassociation. */
static const struct {
    const char *name;
    ug_op op;
    bool protected_source;
} ug_fm_kernels[] = {
    {"kahan_f32", UG_OP_SUM, true},
    {"neumaier_f32", UG_OP_SUM, true},
    {"dot_kahan_f32", UG_OP_DOT, true},
    {"kahan_f32_plain", UG_OP_SUM, false},
};
enum { UG_FM_KERNELS = sizeof ug_fm_kernels / sizeof ug_fm_kernels[0] };

/* Kahan's a-priori limit in ulp on data of condition 1 (S = |s|, |s| < 2^24 ulp(s)):
 * (2u + 4nu^2) S = (2 + 4nu) u|s| <= (2 + 4nu) ulp. */
static double ug_fm_kahan_ulp_limit(size_t n) { return 2 + 4 * (double)n * 0x1p-24; }

static const ug_kernel *ug_fm_find(ug_t *t, const char *name, const char *variant)
{
    char id[96];
    snprintf(id, sizeof id, "%s@%s", name, variant);
    const ug_kernel *k = ug_builtin_kernel(t, id);
    UG_ASSERT_MSG(k != NULL, "kernel %s is not registered (kernels/meson.build's cpu_variants)", id);
    return k;
}

/* The probe input (1, then 2^-24 repeated) for a sum or, with y = 1, a dot. */
static ug_input *ug_fm_probe(ug_t *t, ug_op op)
{
    float *x = malloc(UG_FM_PROBE_N * sizeof *x), *y = malloc(UG_FM_PROBE_N * sizeof *y);
    UG_ASSERT_MSG(x && y, "out of memory for the probe");
    x[0] = 1.0f;
    for (int i = 1; i < UG_FM_PROBE_N; i++) x[i] = 0x1p-24f;
    for (int i = 0; i < UG_FM_PROBE_N; i++) y[i] = 1.0f;
    /* a sum (arity 1) reads x alone */
    ug_input *in = ug_input_from_data(t, op, "probe_1_then_2^-24", x, y, UG_FM_PROBE_N);
    free(x);
    free(y);
    return in;
}

typedef struct {
    const char *verdict;
    double probe_ulp, data_ulp;
} ug_fm_row;

/* One compensated kernel in both builds on the inputs (probe, condition-1 data, ill-conditioned
 * data); the assertions of the header. */
static void ug_fm_kernel(ug_t *t, int i, ug_input *const in[3], ug_fm_row rows[2])
{
    const char *name = ug_fm_kernels[i].name;
    ug_input *probe = in[0], *data = in[1];
    ug_result *r[2][3]; /* [variant: default, fastmath][input] */
    for (int v = 0; v < 2; v++) {
        const ug_kernel *k = ug_fm_find(t, name, v ? "fastmath" : "default");
        for (int j = 0; j < 3; j++) {
            r[v][j] = ug_measure(t, k, in[j]);
            UG_EXPECT_BOUND_RATIO_MAX(r[v][j], 1.0); /* its declared class */
            bool compensated_claim = ug_fm_kernels[i].protected_source || v == 0;
            if (compensated_claim && j < 2) /* Kahan's limit on condition-1 data (header) */
                UG_EXPECT_ULP_MAX(r[v][j], ug_fm_kahan_ulp_limit(in[j]->shape.dim[0]));
        }
        bool compensates = r[v][0]->ulp_max <= ug_fm_kahan_ulp_limit(probe->shape.dim[0]) &&
                           r[v][1]->ulp_max <= ug_fm_kahan_ulp_limit(data->shape.dim[0]);
        rows[v].verdict = compensates ? "compensates"
                                      : "compensation deleted: at the plain-summation level";
        rows[v].probe_ulp = r[v][0]->ulp_max;
        rows[v].data_ulp = r[v][1]->ulp_max;
    }
    if (ug_fm_kernels[i].protected_source) {
        static const char *const what[] = {"probe", "condition_1", "condition_1e8"};
        for (int j = 0; j < 3; j++) {
            ug_point(t, "same_bits %s@fastmath %s@default %s", name, name, what[j]);
            UG_EXPECT_BITWISE_EQ(r[1][j], r[0][j]); /* protected: computes what is written */
        }
    } else {
        ug_point(t, "control %s@fastmath", name);
        ug_note(t, "%s@fastmath: %s (probe %.4g ulp, data %.4g ulp; Kahan's limit %.4g ulp)", name,
                rows[1].verdict, rows[1].probe_ulp, rows[1].data_ulp,
                ug_fm_kahan_ulp_limit(probe->shape.dim[0]));
#if defined(__GNUC__) && !defined(__clang__)
        UG_EXPECT_MSG(r[1][0]->ulp_max > ug_fm_kahan_ulp_limit(probe->shape.dim[0]),
                      "GCC -O3 -ffast-math kept the unprotected compensation (%.4g ulp on the "
                      "probe): the control no longer shows that the barriers matter",
                      r[1][0]->ulp_max);
#endif
    }
}

UG_CASE(fastmath, compensation_kept)
{
    ug_input *probe_sum = ug_fm_probe(t, UG_OP_SUM), *probe_dot = ug_fm_probe(t, UG_OP_DOT);
    if (probe_sum->first_trial != 0) ug_skip(t, "fastmath/compensation_kept: one trial per probe");
    ug_dist d = ug_uniform(0, 1); /* condition 1 for sums; for dots S = |s| too (all >= 0) */
    const size_t n = 100000;
    ug_dist gs = ug_gensum(1e8), gd = ug_gendot(1e8); /* every branch of Neumaier's update */
    ug_input *sums[3] = {probe_sum, ug_input_make(t, UG_OP_SUM, &d, n, UG_FM_TRIALS),
                         ug_input_make(t, UG_OP_SUM, &gs, 1000, UG_FM_TRIALS)};
    ug_input *dots[3] = {probe_dot, ug_input_make(t, UG_OP_DOT, &d, n, UG_FM_TRIALS),
                         ug_input_make(t, UG_OP_DOT, &gd, 1000, UG_FM_TRIALS)};
    ug_fm_row rows[UG_FM_KERNELS][2];
    for (int i = 0; i < UG_FM_KERNELS; i++) {
        bool dot = ug_op_get(ug_fm_kernels[i].op)->shape->arity > 1;
        ug_fm_kernel(t, i, dot ? dots : sums, rows[i]);
    }
    /* the plain sum for comparison: the level a deleted compensation falls to */
    ug_result *serial[2];
    for (int v = 0; v < 2; v++) {
        serial[v] = ug_measure(t, ug_fm_find(t, "serial_f32", v ? "fastmath" : "default"), probe_sum);
        UG_EXPECT_BOUND_RATIO_MAX(serial[v], 1.0);
    }
    ug_point(t, "table");
    ug_note(t, "host -ffast-math and compensated summation: max ulp error on the probe (n = %d) "
               "and on uniform(0,1) (n = %zu, %d trials)", UG_FM_PROBE_N, n, UG_FM_TRIALS);
    ug_note(t, "%-26s %12s %12s  %s", "kernel", "probe ulp", "data ulp", "verdict");
    for (int i = 0; i < UG_FM_KERNELS; i++)
        for (int v = 0; v < 2; v++)
            ug_note(t, "%-26s %12.4g %12.4g  %s%s", ug_fm_find(t, ug_fm_kernels[i].name,
                                                               v ? "fastmath" : "default")->id,
                    rows[i][v].probe_ulp, rows[i][v].data_ulp, rows[i][v].verdict,
                    ug_fm_kernels[i].protected_source ? " (protected)" : " (no barriers)");
    for (int v = 0; v < 2; v++)
        ug_note(t, "%-26s %12.4g %12s  plain summation, for comparison", serial[v]->kernel->id,
                serial[v]->ulp_max, "");
}

UG_CASE(fastmath, order_kept)
{
    /* Which of the seven-methods post's kernels -ffast-math left in the order written: bitwise
     * equal to @default on every trial.  Reported; the bounds are asserted on both builds. */
    ug_dist d = ug_normal(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 10000, UG_FM_TRIALS);
    char lines[16][160];
    int count = 0;
    UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CPU, "*@fastmath") {
        if (k->method == 0) continue;
        ug_result *fm = ug_measure(t, k, in);
        UG_EXPECT_BOUND_RATIO_MAX(fm, 1.0); /* the order-free class (depth n - 1) */
        ug_result *def = ug_measure(t, ug_fm_find(t, k->name, "default"), in);
        UG_EXPECT_BOUND_RATIO_MAX(def, 1.0);
        size_t same = 0;
        for (int tr = 0; tr < in->trials && !fm->failed_run && !def->failed_run; tr++)
            same += memcmp(fm->out[tr], def->out[tr], sizeof(float)) == 0;
        ug_result_extra(fm, "trials_same_bits_as_default", (double)same);
        if (count < 16)
            snprintf(lines[count++], sizeof lines[0], "method %d %-20s %3zu of %d trials the same "
                     "bits as @default: %s; ulp_max %.4g (@default %.4g)", k->method, k->name, same,
                     in->trials, same == (size_t)in->trials ? "order kept" : "reordered",
                     fm->ulp_max, def->ulp_max);
    }
    ug_point(t, "table");
    ug_note(t, "-O3 -ffast-math and the seven-methods post's kernels (normal(0,1), n = 10000):");
    for (int i = 0; i < count; i++) ug_note(t, "%s", lines[i]);
}
