/*
 * oracle_gpu_gemm.c - the GEMM corpus of the GPU oracle's tests (tests/oracle_gpu.h): every
 * element of random and adversarial products against MPFR's dot, bit for bit, whichever path
 * (slices, fallback) the element took; and the hand-picked edges.  Generators:
 * tests/oracle_diff.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "tests/oracle_diff.h"
#include "tests/oracle_gpu.h"

/* 2^e as binary32 (-149 <= e <= 127) */
static float p2(int e)
{
    return e >= -126 ? ug_bits_f32((uint32_t)(e + 127) << 23) : ug_bits_f32(1u << (e + 149));
}

/* A value with a full random significand at exponent e. */
static float full(drng *r, int e)
{
    float v = ug_bits_f32(0x3f800000u | ((uint32_t)od_r64(r) & 0x7fffff)) * p2(e);
    return (od_r64(r) & 1) ? -v : v;
}

enum { SC_NORMAL, SC_WINDOWS, SC_ZEROS, SC_CANCEL, SC_SPECIALS, SC_WIDE, SC_FEWBITS,
       SC_EXTREMES, SC_DEEP, SC_COUNT };

/* Fills A (M x K) and B (K x N) for scenario sc. */
static void fill(drng *r, int sc, float *A, float *B, size_t M, size_t N, size_t K)
{
    gen ga = od_gen_pick(r, -150, 120), gb = od_gen_pick(r, -150, 120);
    if (sc == SC_NORMAL)
        ga.kind = gb.kind = G_NORMAL;
    if (sc == SC_FEWBITS) {
        ga.kind = gb.kind = G_FEWBITS;
        ga.e0 = gb.e0 = -10;
        ga.e1 = gb.e1 = 10;
    }
    for (size_t i = 0; i < M * K; i++)
        A[i] = od_gen_f32(r, &ga);
    for (size_t i = 0; i < K * N; i++)
        B[i] = od_gen_f32(r, &gb);
    switch (sc) {
    case SC_ZEROS: /* row 0 of A and column 0 of B: signed zeros only; one element of A -0 */
        for (size_t k = 0; k < K; k++) {
            A[k] = (k % 3) ? -0.0f : 0.0f;
            B[k * N] = (od_r64(r) & 1) ? -0.0f : 0.0f;
        }
        if (M > 1)
            for (size_t k = 0; k < K; k++)
                A[K + k] = -0.0f; /* row 1: every term -0 against a positive column */
        for (size_t k = 0; k < K && N > 1; k++)
            B[k * N + 1] = fabsf(B[k * N + 1]);
        break;
    case SC_CANCEL: /* row 0 of A cancels in pairs against equal pairs of B's rows */
        for (size_t k = 0; k + 1 < K; k += 2) {
            A[k + 1] = -A[k];
            memcpy(B + (k + 1) * N, B + k * N, N * sizeof *B);
        }
        if (K % 2)
            A[K - 1] = 0.0f;
        break;
    case SC_SPECIALS: /* NaN or inf in the last row and -inf in the last column */
        A[(M - 1) * K + od_rbelow(r, (uint32_t)K)] = (od_r64(r) & 1) ? INFINITY : NAN;
        B[od_rbelow(r, (uint32_t)K) * N + N - 1] = -INFINITY;
        if (od_rbelow(r, 2)) /* 0 * inf in another element */
            A[od_rbelow(r, (uint32_t)K)] = 0.0f;
        break;
    case SC_WIDE: /* a row and a column wider than 56 bits (fallback) next to normal ones */
        for (size_t i = 0; i < M * K; i++)
            A[i] = full(r, (int)od_rbelow(r, 20) - 10);
        for (size_t i = 0; i < K * N; i++)
            B[i] = full(r, (int)od_rbelow(r, 20) - 10);
        A[od_rbelow(r, (uint32_t)K)] = full(r, 60);
        B[od_rbelow(r, (uint32_t)K) * N] = full(r, -70);
        break;
    case SC_EXTREMES: /* products near 2^256 (binary32 overflow) and near 2^-298 (subnormal) */
        for (size_t i = 0; i < M * K; i++)
            A[i] = full(r, i % 2 ? 127 : -149 + (int)od_rbelow(r, 30));
        for (size_t i = 0; i < K * N; i++)
            B[i] = full(r, od_rbelow(r, 2) ? 127 - (int)od_rbelow(r, 3)
                                           : -149 + (int)od_rbelow(r, 10));
        break;
    case SC_DEEP: /* every row and column 50-56 bits wide: S = T = 8, K pieces when K is big */
        for (size_t i = 0; i < M * K; i++)
            A[i] = full(r, (int)od_rbelow(r, 8) - 4);
        for (size_t i = 0; i < K * N; i++)
            B[i] = full(r, (int)od_rbelow(r, 8) - 4);
        for (size_t i = 0; i < M; i++)
            A[i * K + od_rbelow(r, (uint32_t)K)] = full(r, -30);
        for (size_t j = 0; j < N; j++)
            B[od_rbelow(r, (uint32_t)K) * N + j] = full(r, -29);
        break;
    default:
        break;
    }
}

void og_run_gemm_corpus(ug_t *t, const ug_gpu_oracle_ops *ops, const char *stream, int matrices,
                        int big, og_gemm_paths *paths)
{
    drng r = od_drng_make(t, stream);
    tally ty = {0, 0};
    memset(paths, 0, sizeof *paths);
    od_use_gpu(ops); /* names the oracle in mismatch reports */
    for (int m = 0; m < matrices + (big ? 1 : 0); m++) {
        int sc = m < matrices ? m % SC_COUNT : SC_DEEP;
        size_t M = 1 + od_rbelow(&r, 24), N = 1 + od_rbelow(&r, 24);
        size_t K = m % 5 == 4 ? 1000 + od_rbelow(&r, 8000) : 1 + od_rbelow(&r, 300);
        if (sc == SC_DEEP && m % 2) /* diagonals of 8 pairs past the int8 product limit */
            K = 17000 + od_rbelow(&r, 2000);
        if (K > 1000) { /* MPFR per element is the cost */
            M = 1 + M % 8;
            N = 1 + N % 8;
        }
        if (m == matrices) { /* beyond one product's K: pieces per pair */
            M = N = 2;
            K = 140000;
        }
        float *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B);
        ug_exact *C = malloc(M * N * sizeof *C);
        UG_ASSERT_MSG(A && B && C, "out of memory");
        fill(&r, sc, A, B, M, N, K);
        if (m == matrices) /* row 0 of -0s: its elements take the fallback, several chunks long */
            for (size_t k = 0; k < K; k++)
                A[k] = -0.0f;
        ug_gpu_gemm_info info;
        char err[400] = "";
        int rc = ops->gemm_f32(A, B, M, N, K, C, &info, err, sizeof err);
        UG_EXPECT_MSG(rc == 0, "%s GEMM %zux%zux%zu failed: %s", ops->name, M, N, K, err);
        if (rc == 0) {
            paths->matrices++;
            paths->elements += M * N;
            paths->fallback += info.fallback;
            paths->max_slices = info.S > paths->max_slices ? info.S : paths->max_slices;
            paths->max_slices = info.T > paths->max_slices ? info.T : paths->max_slices;
            paths->pieces += info.products > info.S + info.T - 1;
            for (size_t i = 0; i < M; i++)
                for (size_t j = 0; j < N; j++) {
                    ug_exact ref, *got = &C[i * N + j];
                    ug_exact_dot_f32_mpfr(A + i * K, 1, B + j, N, K, &ref);
                    ty.vectors++;
                    if (!ug_exact_equal(got, &ref) ||
                        ug_f64_bits(got->sum_abs) != ug_f64_bits(ref.sum_abs))
                        od_report_mismatch(t, &ty, "gpu gemm element",
                                           (long)m * 10000 + (long)(i * N + j), A + i * K, NULL,
                                           NULL, K, got, &ref);
                }
        }
        free(A);
        free(B);
        free(C);
    }
    ug_note(t, "%s GEMM: %zu matrices, %zu elements (%zu by the fallback), slices up to %d, "
               "%d with K pieces", ops->name, paths->matrices, paths->elements, paths->fallback,
            paths->max_slices, paths->pieces);
    od_finish(t, "gemm elements", &ty);
}

/* ---- edges ----------------------------------------------------------------------------------- */

static int same_exact(const ug_exact *a, const ug_exact *b)
{
    return ug_exact_equal(a, b) && ug_f64_bits(a->sum_abs) == ug_f64_bits(b->sum_abs);
}

void og_run_edges(ug_t *t, const ug_gpu_oracle_ops *ops)
{
    static const float v[][4] = {
        {0}, {-0.0f}, {-0.0f, -0.0f}, {-0.0f, 0.0f}, {1.0f, -1.0f}, {-1.0f, 1.0f, -0.0f},
        {NAN, 1.0f}, {INFINITY, -INFINITY}, {INFINITY, 1.0f}, {-INFINITY, -0.0f},
        {0x1.fffffep127f, 0x1p103f}, {0x1.fffffep127f, 0x1p102f}, {-0x1.fffffep127f, -0x1p104f},
        {0x1p-149f, 0x1p-149f, -0x1p-149f}, {0x1.8p-148f, -0x1p-149f}, {1.0f, 0x1p-24f},
    };
    static const float w[][4] = {
        {0}, {1.0f}, {-1.0f, 1.0f}, {-1.0f, -1.0f}, {-0.0f, 0.0f}, {1.0f, 1.0f, 1.0f},
        {1.0f, 1.0f}, {0.0f, 1.0f}, {1.0f, -1.0f}, {0.0f, 1.0f},
        {1.0f, 1.0f}, {1.0f, 1.0f}, {1.0f, 1.0f},
        {1.0f, 1.0f, 1.0f}, {1.0f, 1.0f}, {1.0f, 1.0f},
    };
    static const size_t len[] = {0, 1, 2, 2, 2, 3, 2, 2, 2, 2, 2, 2, 2, 3, 2, 2};
    enum { NV = sizeof len / sizeof len[0] };
    const float *xs[NV], *ys[NV];
    size_t ns[NV];
    ug_exact got[NV], ref;
    char err[400] = "";
    for (int op = 0; op < 2; op++) {
        for (int i = 0; i < NV; i++) {
            xs[i] = v[i];
            ys[i] = w[i];
            ns[i] = len[i];
        }
        int rc = op ? ops->dots_f32(xs, ys, ns, NV, got, err, sizeof err)
                    : ops->sums_f32(xs, ns, NV, got, err, sizeof err);
        UG_EXPECT_MSG(rc == 0, "%s: %s", ops->name, err);
        for (int i = 0; i < NV && rc == 0; i++) {
            if (op)
                ug_exact_dot_f32_mpfr(v[i], 1, w[i], 1, len[i], &ref);
            else
                ug_exact_sum_f32_mpfr(v[i], len[i], &ref);
            UG_EXPECT_MSG(same_exact(&got[i], &ref),
                          "%s %s edge %d (n=%zu): hi=%a rn=%a cls=%d sum_abs=%a, mpfr hi=%a rn=%a "
                          "cls=%d sum_abs=%a", ops->name, op ? "dot" : "sum", i, len[i],
                          got[i].hi, (double)got[i].rn, got[i].cls, got[i].sum_abs, ref.hi,
                          (double)ref.rn, ref.cls, ref.sum_abs);
        }
        rc = op ? ops->dots_f32(xs, ys, ns, 1, got, err, sizeof err) /* the empty one alone */
                : ops->sums_f32(xs, ns, 1, got, err, sizeof err);
        UG_EXPECT_MSG(rc == 0 && got[0].cls == UG_X_FINITE && ug_f64_bits(got[0].hi) == 0 &&
                          got[0].sum_abs == 0,
                      "%s: the empty %s alone is not +0 (%s)", ops->name, op ? "dot" : "sum", err);
    }
    /* K = 0: every element the empty dot; 1 x 1 x 1; M = 0 */
    float a[6] = {-0.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f};
    float b[6] = {0.0f, -5.0f, 7.0f, 0.0f, 0.0f, 0.0f};
    ug_exact C[6];
    ug_gpu_gemm_info info;
    int rc = ops->gemm_f32(a, b, 2, 3, 0, C, &info, err, sizeof err);
    UG_EXPECT_MSG(rc == 0, "%s GEMM K = 0: %s", ops->name, err);
    for (int i = 0; i < 6 && rc == 0; i++)
        UG_EXPECT_MSG(C[i].cls == UG_X_FINITE && ug_f64_bits(C[i].hi) == 0 && C[i].sum_abs == 0,
                      "%s GEMM K = 0: element %d is not +0", ops->name, i);
    for (int k = 0; k < 2; k++) { /* (-0) * (+0) = -0; 2 * -5 */
        rc = ops->gemm_f32(a + k, b + k, 1, 1, 1, C, &info, err, sizeof err);
        ug_exact_dot_f32_mpfr(a + k, 1, b + k, 1, 1, &ref);
        UG_EXPECT_MSG(rc == 0 && same_exact(&C[0], &ref), "%s GEMM 1x1x1 (%a * %a): hi=%a, mpfr %a",
                      ops->name, (double)a[k], (double)b[k], C[0].hi, ref.hi);
    }
    rc = ops->gemm_f32(a, b, 0, 3, 2, C, &info, err, sizeof err);
    UG_EXPECT_MSG(rc == 0, "%s GEMM M = 0: %s", ops->name, err);
}
