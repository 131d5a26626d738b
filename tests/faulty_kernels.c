/*
 * faulty_kernels.c - CPU kernels that are wrong on purpose, registered only in the self-test
 * program, and the cases that show the harness catches each of them.
 *
 *   sum_skips_write     never writes its output                      -> "every output written"
 *   gemm_skips_one      leaves C[0][0] unwritten                     -> "every output written"
 *   sum_nan_to_zero     serial sum that returns 0 for a NaN sum      -> infinite bound ratio
 *   dot_drops_last      serial dot without its last product          -> bound ratio above 1
 *   sum_flush_to_zero   serial sum flushing subnormal operands and results to zero, as a GPU
 *                       build with --ftz=true does                   -> reported as flush-to-zero
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/run/ug.h"
#include "kernels/registry_testing.h"

enum { SUM_SKIPS_WRITE, GEMM_SKIPS_ONE, SUM_NAN_TO_ZERO, DOT_DROPS_LAST, SUM_FLUSH_TO_ZERO };

/* v, or a signed zero where v is subnormal (flush-to-zero). */
static float ug_ftz(float v) { return fabsf(v) < 0x1p-126f ? copysignf(0.0f, v) : v; }

static int ug_faulty_run(const ug_kernel *k, ug_call *c)
{
    const float *x = ug_in_f32(c, 0), *y = ug_in_f32(c, 1);
    float *out = ug_out_f32(c);
    switch (k->version) {
    case SUM_SKIPS_WRITE: return 0;
    case GEMM_SKIPS_ONE:
        for (size_t i = 0; i < c->shape.dim[0]; i++)
            for (size_t j = 0; j < c->shape.dim[1]; j++) {
                if (i == 0 && j == 0) continue;
                float a = 0.0f;
                for (size_t l = 0; l < c->shape.dim[2]; l++) a += x[i * c->shape.dim[2] + l] * y[l * c->shape.dim[1] + j];
                out[i * c->shape.dim[1] + j] = a;
            }
        return 0;
    case SUM_NAN_TO_ZERO: {
        float a = 0.0f;
        for (size_t i = 0; i < c->shape.dim[0]; i++) a += x[i];
        out[0] = isnan(a) ? 0.0f : a;
        return 0;
    }
    case SUM_FLUSH_TO_ZERO: {
        float a = 0.0f;
        for (size_t i = 0; i < c->shape.dim[0]; i++) a = ug_ftz(ug_ftz(a) + ug_ftz(x[i]));
        out[0] = a;
        return 0;
    }
    case DOT_DROPS_LAST: {
        float a = 0.0f;
        for (size_t i = 0; i + 1 < c->shape.dim[0]; i++) a += x[i] * y[i];
        out[0] = a;
        return 0;
    }
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version", k->name);
    return 1;
}

static const ug_kernel ug_faulty_kernels[] = {
    {.name = "sum_skips_write", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = SUM_SKIPS_WRITE, .doc = "test only: never writes its output"},
    {.name = "gemm_skips_one", .op = UG_OP_GEMM, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = GEMM_SKIPS_ONE, .doc = "test only: leaves C[0][0] unwritten"},
    {.name = "sum_nan_to_zero", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = SUM_NAN_TO_ZERO, .doc = "test only: serial sum, 0 where the sum is NaN"},
    {.name = "dot_drops_last", .op = UG_OP_DOT, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = DOT_DROPS_LAST, .doc = "test only: serial dot without its last product"},
    {.name = "sum_flush_to_zero", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = SUM_FLUSH_TO_ZERO, .doc = "test only: serial sum with flush-to-zero arithmetic"},
};

#undef UG_BUILD_VARIANT
#define UG_BUILD_VARIANT default
UG_FAMILY(faulty, ug_faulty_kernels, ug_faulty_run)

__attribute__((constructor)) static void ug_faulty_register(void)
{
    ug_registry_add_family(&ug_family_faulty_default);
}

/* Measure kernel `name` on in, declared to fail; then assert that it failed for the reason
 * given (a substring of the failure). */
static void ug_expect_caught(ug_t *t, const char *name, const ug_input *in, const char *why,
                             bool (*caught)(const ug_result *r))
{
    const ug_kernel *k = ug_kernel_find(name);
    UG_ASSERT_MSG(k != NULL, "%s not registered", name);
    ug_result *r = ug_measure(t, k, in);
    ug_xfail(t, why);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
    ug_point(t, "%s caught", name);
    UG_EXPECT_MSG(caught(r), "%s was not caught the intended way (unwritten %zu, ratio %g)", name,
                  r->unwritten, r->bound_ratio_max);
}

static bool ug_caught_unwritten(const ug_result *r) { return r->unwritten > 0; }
static bool ug_caught_ratio(const ug_result *r) { return r->bound_ratio_max > 1; }

UG_CASE(faulty, unwritten_outputs_fail)
{
    ug_dist d = ug_uniform(0, 1);
    ug_input *s = ug_input_make(t, UG_OP_SUM, &d, 100, 2);
    ug_expect_caught(t, "sum_skips_write", s, "writes nothing on purpose", ug_caught_unwritten);
    ug_input *g = ug_input_make_shape(t, UG_OP_GEMM, &d, &(ug_shape){{7, 5, 3}}, 2);
    ug_expect_caught(t, "gemm_skips_one", g, "leaves one output unwritten on purpose", ug_caught_unwritten);
}

UG_CASE(faulty, nan_sum_returned_as_zero_fails)
{
    float x[3] = {1.0f, NAN, 2.0f};
    ug_input *in = ug_input_from_data(t, UG_OP_SUM, "one_nan", x, NULL, 3);
    ug_expect_caught(t, "sum_nan_to_zero", in, "returns 0 for a NaN sum on purpose", ug_caught_ratio);
}

UG_CASE(faulty, dot_missing_a_product_fails)
{
    ug_dist d = ug_uniform(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_DOT, &d, 1000, 3);
    ug_expect_caught(t, "dot_drops_last", in, "drops its last product on purpose", ug_caught_ratio);
}

/* Flush-to-zero is recognised: on subnormal terms (their exact sums subnormal at n = 3, mostly
 * normal at n = 1000) the flushing sum returns zeros, which fail the bound (declared) and are
 * counted as flush-to-zero in every trial; serial_f32 (gradual underflow) flushes none. */
UG_CASE(faulty, flush_to_zero_is_reported)
{
    ug_dist d = ug_with_specials(ug_uniform(0, 1), 1.0, UG_SP_SUBNORMAL);
    static const size_t ns[] = {3, 1000};
    const ug_kernel *ftz = ug_kernel_find("sum_flush_to_zero"), *ieee = ug_kernel_find("serial_f32");
    UG_ASSERT_MSG(ftz && ieee, "sum_flush_to_zero and serial_f32 are registered");
    for (size_t i = 0; i < 2; i++) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, ns[i], 4);
        ug_result *r = ug_measure(t, ftz, in);
        ug_xfail(t, "flushes to zero on purpose");
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
        ug_result *g = ug_measure(t, ieee, in);
        UG_EXPECT_BOUND_RATIO_MAX(g, 1.0);
        ug_point(t, "flush_counted n=%zu", ns[i]);
        size_t flushed = ug_result_flushed_to_zero(r), kept = ug_result_flushed_to_zero(g);
        UG_EXPECT_MSG(flushed == r->count && kept == 0, "flushed outputs: %zu of %zu (want all), "
                      "serial_f32 %zu (want 0)", flushed, r->count, kept);
    }
}
