/*
 * bounds.c - the a-priori bound machinery itself: depth functions checked against a simulation
 * of each summation tree, and a kernel with a wrongly declared class caught by its bound ratio.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ug.h"

/* ---- depth by simulation ------------------------------------------------------------------------ */
/* Each value carries the most roundings any of its terms has been through; a + b costs one more,
 * except adding to the literal 0.0f that starts an accumulator (exact). */
typedef struct { size_t depth; bool zero; } ug_sim;

static ug_sim ug_sim_add(ug_sim a, ug_sim b)
{
    if (a.zero) return b;
    if (b.zero) return a;
    return (ug_sim){(a.depth > b.depth ? a.depth : b.depth) + 1, false};
}

static ug_sim ug_sim_sqrt_blocks(size_t n)
{
    static const ug_sim leaf = {0, false};
    if (n == 1) return leaf;
    if (n == 2) return ug_sim_add(leaf, leaf);
    size_t m = (size_t)ceil(sqrt((double)n));
    ug_sim a = {0, true};
    for (size_t l = 0; l < n; l += m) a = ug_sim_add(a, ug_sim_sqrt_blocks(l + m < n ? m : n - l));
    return a;
}

static ug_sim ug_sim_halves(size_t n)
{
    if (n == 1) return (ug_sim){0, false};
    return ug_sim_add(ug_sim_halves(n / 2), ug_sim_halves(n - n / 2));
}

static ug_sim ug_sim_block8(size_t n)
{
    if (n <= 8) {
        ug_sim a = {0, true};
        for (size_t i = 0; i < n; i++) a = ug_sim_add(a, (ug_sim){0, false});
        return a;
    }
    return ug_sim_add(ug_sim_block8(n / 2), ug_sim_block8(n - n / 2));
}

static size_t ug_sim_fold(size_t n)
{
    size_t *d = calloc(n, sizeof *d), r;
    for (; n != 1; n = (n + 1) / 2)
        for (size_t i = 0; i < n / 2; i++) {
            size_t a = d[i], b = d[n - 1 - i];
            d[i] = (a > b ? a : b) + 1;
        }
    r = d[0];
    free(d);
    return r;
}

static size_t ug_declared_depth(ug_t *t, const char *kernel, size_t n)
{
    const ug_kernel *k = ug_kernel_find(kernel);
    UG_ASSERT_MSG(k != NULL, "kernel %s is not registered", kernel);
    return ug_kernel_depth(k, n);
}

static void ug_check_depths(ug_t *t, size_t n, bool with_fold)
{
    size_t sqrt_blocks = ug_declared_depth(t, "sqrt_blocks", n);
    size_t block8 = ug_declared_depth(t, "pairwise_block8", n);
    UG_ASSERT_MSG(sqrt_blocks == ug_sim_sqrt_blocks(n).depth,
                  "n=%zu: sqrt_blocks declared %zu, tree has %zu", n, sqrt_blocks,
                  ug_sim_sqrt_blocks(n).depth);
    UG_ASSERT_MSG(ug_depth_log2(n) == ug_sim_halves(n).depth,
                  "n=%zu: pairwise_halves declared %zu, tree has %zu", n, ug_depth_log2(n),
                  ug_sim_halves(n).depth);
    UG_ASSERT_MSG(block8 == ug_sim_block8(n).depth,
                  "n=%zu: pairwise_block8 declared %zu, tree has %zu", n, block8,
                  ug_sim_block8(n).depth);
    if (with_fold)
        UG_ASSERT_MSG(ug_depth_log2(n) == ug_sim_fold(n), "n=%zu: fold declared %zu, tree has %zu",
                      n, ug_depth_log2(n), ug_sim_fold(n));
}

UG_CASE(bounds, depth_functions_match_trees)
{
    /* Every n up to 3000 and a few large ones: the declared depth must equal the tree's. */
    for (size_t n = 1; n <= 3000; n++) ug_check_depths(t, n, true);
    ug_check_depths(t, 65537, true);
    ug_check_depths(t, 1000000, false);
    ug_check_depths(t, 1000001, false);
}

UG_CASE(bounds, gamma_values)
{
    /* Hand values: serial sum of n terms, tree class: gamma_{n-1} S with u = 2^-24. */
    const ug_kernel *k = ug_kernel_find("serial_f32");
    UG_ASSERT(k != NULL);
    double u = 0x1p-24;
    double b = ug_kernel_bound(k, 3, 1.0, 1.0); /* gamma_2 = 2u/(1-2u) */
    UG_EXPECT_MSG(fabs(b / (2 * u / (1 - 2 * u)) - 1) < 1e-11, "gamma_2 bound %.17g", b);
    UG_EXPECT_MSG(ug_kernel_bound(k, 1, 5.0, 5.0) == 0, "one term: no rounding, bound 0");
    UG_EXPECT_MSG(isinf(ug_kernel_bound(k, 100, INFINITY, 1.0)), "non-finite S: infinite bound");
    /* dot adds the product's rounding: gamma_n for n terms serially */
    const ug_kernel *d = ug_kernel_find("dot_serial_f32");
    UG_ASSERT(d != NULL);
    b = ug_kernel_bound(d, 4, 2.0, 1.0);
    UG_EXPECT_MSG(fabs(b / (2.0 * 4 * u / (1 - 4 * u)) - 1) < 1e-11, "gamma_4 * 2 bound %.17g", b);
}

/* serial_f32's code under a pairwise class: the bound ratio must expose the wrong declaration. */
static ug_kernel ug_misdeclared_row(const ug_kernel *serial)
{
    ug_kernel k = *serial;
    k.name = "serial_f32_declared_pairwise";
    k.depth = ug_depth_log2;
    k.doc = "serial summation wrongly declared with depth ceil(log2 n)";
    snprintf(k.id, sizeof k.id, "%s@%s", k.name, k.variant);
    return k;
}

UG_CASE(bounds, wrong_class_is_caught)
{
    /* 1 followed by 4095 copies of 2^-24: each small term is lost against 1 (ties to even), so
     * the serial error is 4095 * 2^-24, while the pairwise bound is only
     * gamma_12 * (1 + 4095 * 2^-24) ~ 12 * 2^-24: ratio ~ 340. */
    enum { N = 4096 };
    float *x = malloc(N * sizeof *x);
    UG_ASSERT(x != NULL);
    x[0] = 1.0f;
    for (int i = 1; i < N; i++) x[i] = 0x1p-24f;
    ug_input *in = ug_input_from_data(t, UG_OP_SUM, "one_then_half_ulps", x, NULL, N);
    free(x);
    const ug_kernel *serial = ug_kernel_find("serial_f32");
    UG_ASSERT(serial != NULL);
    static ug_kernel misdeclared;
    misdeclared = ug_misdeclared_row(serial);
    ug_result *wrong = ug_measure(t, &misdeclared, in);
    UG_EXPECT_MSG(wrong->bound_ratio_max > 100, "ratio %.3g: the wrong class went unnoticed",
                  wrong->bound_ratio_max);
    ug_result *right = ug_measure(t, ug_kernel_find("serial_f32"), in);
    UG_EXPECT_BOUND_RATIO_MAX(right, 1.0); /* the true class (D = n-1) holds */
}
