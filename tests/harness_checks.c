/*
 * harness_checks.c - the assertions themselves: a limit exactly at the measured value holds, one
 * just below fails (and the failure is recorded, not lost); a declared expected failure turns a
 * failure into XFAIL; specials count as infinite errors; the coverage rule names a kernel no case
 * measured.  Inputs with errors known exactly by hand.
 */
#include <math.h>
#include <string.h>

#include "harness/run/context.h"
#include "ug_config.h"
#include "harness/inputs/rng.h"

/* 1 + 2^-24 summed serially in binary32 gives 1 (the tie rounds to even): error exactly 2^-24,
 * half an ulp of 1 (ulp32(1) = 2^-23); relative error 2^-24 / (1 + 2^-24). */
static ug_input *ug_half_ulp_input_named(ug_t *t, const char *label)
{
    float x[2] = {1.0f, 0x1p-24f};
    return ug_input_from_data(t, UG_OP_SUM, label, x, NULL, 2);
}

static ug_input *ug_half_ulp_input(ug_t *t) { return ug_half_ulp_input_named(t, "one_plus_half_ulp"); }

UG_CASE(harness, limits_are_inclusive_and_exact)
{
    ug_input *in = ug_half_ulp_input(t);
    const ug_kernel *k = ug_kernel_find("serial_f32");
    UG_ASSERT(k != NULL);
    ug_result *r = ug_measure(t, k, in);
    UG_EXPECT_ULP_MAX(r, 0.5);              /* exactly at the value: holds */
    UG_EXPECT_ULP_MEAN(r, 0.5);
    UG_EXPECT_REL_MAX(r, 0x1p-24 / (1 + 0x1p-24));
    UG_EXPECT_ABS_MAX(r, 0x1p-24);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
    UG_EXPECT_MSG(r->ulp_max == 0.5 && r->abs_max == 0x1p-24, "errors %g ulp, %a abs: not the hand values",
                  r->ulp_max, r->abs_max);
    /* RN32(1 + 2^-24) = 1 (the tie goes to even): half an ulp off, and correctly rounded */
    UG_EXPECT_CORRECTLY_ROUNDED(r);
    UG_EXPECT_MSG(r->correctly_rounded == 1 && r->ulp_hist[2] == 1,
                  "correctly rounded %zu, histogram bucket (1/4,1/2] %llu", r->correctly_rounded,
                  (unsigned long long)r->ulp_hist[2]);
    /* just below the value: each check must fail, and say so (the same input under another
     * name: one row id per measurement) */
    ug_result *r2 = ug_measure(t, k, ug_half_ulp_input_named(t, "one_plus_half_ulp_again"));
    ug_xfail(t, "limits just below the measured errors on purpose");
    UG_EXPECT_ULP_MAX(r2, nextafter(0.5, 0));
    UG_EXPECT_ULP_MEAN(r2, nextafter(0.5, 0));
    UG_EXPECT_ABS_MAX(r2, nextafter(0x1p-24, 0));
    UG_EXPECT_BOUND_RATIO_MAX(r2, r->bound_ratio_max * (1 - 0x1p-52));
    int failures = t->pt.failures;
    ug_point(t, "every check below the value failed");
    UG_EXPECT_MSG(failures == 4, "%d of the 4 checks below the value failed", failures);
}

UG_CASE(harness, ulp_histogram_bucket_edges)
{
    /* every bucket's upper edge is inclusive, the next value above it is the next bucket */
    UG_EXPECT(ug_ulp_bucket(0) == 0);
    UG_EXPECT(ug_ulp_bucket(0x1p-40) == 1 && ug_ulp_bucket(0.25) == 1);
    for (int b = 2; b <= 14; b++) {
        double edge = ldexp(1, b - 3), below = ldexp(1, b - 4);
        UG_EXPECT_MSG(ug_ulp_bucket(edge) == b && ug_ulp_bucket(nextafter(below, 1e300)) == b,
                      "bucket %d: (%g, %g]", b, below, edge);
    }
    UG_EXPECT(ug_ulp_bucket(2048) == 14 && ug_ulp_bucket(nextafter(2048, 1e300)) == 15);
    UG_EXPECT(ug_ulp_bucket(INFINITY) == 15 && ug_ulp_bucket(NAN) == 15);
}

UG_CASE(harness, means_over_every_output)
{
    /* C = A B, 2 x 2: A = [1 2^-24; 1 0], B = [1 1; 1 0].  C00 = 1 + 2^-24 rounds to 1 (half an
     * ulp); the three others are 1 exactly.  Mean ULP error 0.5 / 4, exactly. */
    float a[4] = {1.0f, 0x1p-24f, 1.0f, 0.0f}, b[4] = {1.0f, 1.0f, 1.0f, 0.0f};
    ug_input *in = ug_input_from_data(t, UG_OP_GEMM, "half_ulp_in_one_of_four", a, b, 2);
    ug_result *r = ug_measure(t, ug_kernel_find("gemm_naive_cpu"), in);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
    UG_EXPECT_MSG(r->count == 4 && r->ulp_mean == 0.125 && r->ulp_max == 0.5,
                  "%zu outputs, mean %.17g, max %g ulp: by hand 4, 0.125, 0.5", r->count,
                  r->ulp_mean, r->ulp_max);
}

UG_CASE(harness, assert_ends_the_case)
{
    ug_input *in = ug_half_ulp_input(t);
    ug_result *r = ug_measure(t, ug_kernel_find("serial_f32"), in);
    ug_xfail(t, "an ASSERT that fails on purpose");
    UG_ASSERT_ULP_MAX(r, 0.25);
    ug_point(t, "not reached");
    UG_EXPECT_MSG(0, "the case went on after a failed UG_ASSERT");
}

UG_CASE(harness, specials_are_infinite_errors)
{
    /* exact sum +inf: a kernel result NaN or finite is an infinite error in every metric */
    float x[3] = {1.0f, INFINITY, 2.0f};
    ug_input *in = ug_input_from_data(t, UG_OP_SUM, "with_inf", x, NULL, 3);
    ug_result *r = ug_measure(t, ug_kernel_find("serial_f32"), in);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* serial_f32 returns +inf: right */
    ug_error e = ug_error_of(&in->exact[0][0], NAN);
    ug_point(t, "nan where the sum is +inf");
    UG_EXPECT_MSG(isinf(e.abs) && isinf(e.rel) && isinf(e.ulp), "NaN for +inf: errors %g %g %g", e.abs, e.rel, e.ulp);
    e = ug_error_of(&in->exact[0][0], 3.0);
    UG_EXPECT_MSG(isinf(e.ulp), "3 for +inf: ulp error %g", e.ulp);
    e = ug_error_of(&in->exact[0][0], INFINITY);
    UG_EXPECT_MSG(e.ulp == 0 && e.abs == 0, "+inf for +inf: error %g", e.ulp);
}

UG_CASE(harness, streams_differ_by_case)
{
    /* An input's random stream is a function of the case and the distribution's name
     * (docs/cases.md, "Input distributions"): the same distribution in two cases draws
     * different numbers. */
    ug_dist d = ug_normal(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 16, 1);
    uint64_t want = ug_hash64("normal(0,1)", ug_hash64("harness/streams_differ_by_case", UG_HASH64_INIT));
    UG_EXPECT_MSG(in->stream_id == want, "stream id %#llx, by the documented formula %#llx",
                  (unsigned long long)in->stream_id, (unsigned long long)want);
    UG_EXPECT_MSG(want != ug_hash64("normal(0,1)", ug_hash64("harness/other", UG_HASH64_INIT)),
                  "two cases share a stream");
}

UG_CASE(harness, coverage_names_unmeasured_kernels)
{
    /* a results list that measured serial_f32 only: every other CPU kernel is unmeasured */
    ug_results res = {0};
    ug_row row;
    memset(&row, 0, sizeof row);
    row.measured = true;
    row.status = UG_ST_PASS;
    snprintf(row.kernel, sizeof row.kernel, "serial_f32@default");
    ug_results_add(&res, &row);
    const char *missing[64];
    size_t count = ug_unmeasured_kernels(&res, false, missing, 64);
    bool has_kahan = false, has_serial = false, has_fixture = false;
    for (size_t i = 0; i < count && i < 64; i++) {
        has_kahan |= strcmp(missing[i], "kahan_f32@default") == 0;
        has_serial |= strcmp(missing[i], "serial_f32@default") == 0;
        /* this program's own broken kernels (tests/faulty_kernels.c) are fixtures, not kernels
         * under test */
        has_fixture |= strcmp(missing[i], "sum_skips_write@default") == 0;
    }
    UG_EXPECT_MSG(has_kahan && !has_serial, "%zu unmeasured: kahan_f32 %s, serial_f32 %s", count,
                  has_kahan ? "named" : "missing", has_serial ? "wrongly named" : "not named");
    UG_EXPECT_MSG(!has_fixture, "%s", "the fixture sum_skips_write is named as unmeasured");
    ug_results_free(&res);
}

/* A canary of the harness: it declares an expected failure and then passes, so the run must
 * report an unexpected pass and fail (tests/cli_test.sh runs it by name). */
UG_CASE_EX(harness_xpass, stale_declaration, UG_CASE_SHOULD_FAIL)
{
    ug_input *in = ug_half_ulp_input(t);
    ug_result *r = ug_measure(t, ug_kernel_find("serial_f32"), in);
    ug_xfail(t, "declared to fail, but it holds");
    UG_EXPECT_ULP_MAX(r, 0.5);
}

/* A canary of the harness: two points with one name (one row id) in one run; the second must
 * fail, since the gate, merge and a rerun line could not tell them apart (tests/cli_test.sh). */
UG_CASE_EX(harness_dup, same_point_twice, UG_CASE_SHOULD_FAIL)
{
    for (int i = 0; i < 2; i++) {
        ug_point(t, "the same name");
        UG_EXPECT(1 + 1 == 2);
    }
}

/* Where the default oracle choice sends an input (input.c): GEMMs from 2^27 multiply-adds,
 * sums and dots never, whatever the machine. */
UG_CASE(harness, gpu_oracle_answers_where_it_pays)
{
    UG_EXPECT(ug_gpu_oracle_pays(UG_OP_GEMM, &(ug_shape){{512, 512, 512}}));  /* 2^27 */
    UG_EXPECT(!ug_gpu_oracle_pays(UG_OP_GEMM, &(ug_shape){{512, 512, 511}})); /* one K short */
    UG_EXPECT(!ug_gpu_oracle_pays(UG_OP_GEMM, &(ug_shape){{255, 255, 255}}));
    UG_EXPECT(ug_gpu_oracle_pays(UG_OP_GEMM, &(ug_shape){{1000, 1000, 1000}}));
    UG_EXPECT(ug_gpu_oracle_pays(UG_OP_GEMM, &(ug_shape){{1, 1, (size_t)1 << 27}}));
    UG_EXPECT(!ug_gpu_oracle_pays(UG_OP_GEMM, &(ug_shape){{0, 4096, 4096}}));
    UG_EXPECT(!ug_gpu_oracle_pays(UG_OP_SUM, &(ug_shape){{(size_t)1 << 30, 0, 0}}));
    UG_EXPECT(!ug_gpu_oracle_pays(UG_OP_DOT, &(ug_shape){{(size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 30}}));
}

#if UG_CUDA_BUILT
int ug_cublas_lazy_check(char *err, size_t len);
int ug_cublas_lazy_count(void);
#endif

/* kernels/cuda/cublas_lazy.cu: cuBLAS and cuBLASLt are loaded at their first call, not linked.
 * Every function it stands in for must resolve in the toolkit the build found (a name that
 * does not would fail only on a GPU, at that kernel's first call): checked here, on any
 * machine, no GPU needed. */
UG_CASE(harness, cublas_lazy_resolves)
{
#if UG_CUDA_BUILT
    char err[700] = "";
    int n = ug_cublas_lazy_count(), missing = ug_cublas_lazy_check(err, sizeof err);
    UG_EXPECT_MSG(n >= 28, "%d cuBLAS functions registered: fewer than the tree calls", n);
    UG_EXPECT_MSG(missing == 0, "%d of %d cuBLAS functions do not resolve: %s", missing, n, err);
#else
    ug_skip(t, "a build without CUDA links no cuBLAS");
#endif
}
