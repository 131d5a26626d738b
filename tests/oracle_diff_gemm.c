/*
 * oracle_diff_gemm.c - differential tests, continued (tests/oracle_diff.c has the generators):
 * the fast GEMM against per-element MPFR dots, strided dots, and the kernel sets other than the
 * one this CPU gets (AVX2, generic) on a sample of everything; the binary32 sum's direct path at
 * its exactness threshold.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/fast.h"
#include "tests/oracle_diff.h"

static void run_gemm(ug_t *t, const char *stream, int matrices)
{
    drng r = od_drng_make(t, stream);
    tally ty = {0, 0};
    for (int m = 0; m < matrices; m++) {
        size_t M = 1 + od_rbelow(&r, 20), N = 1 + od_rbelow(&r, 24);
        size_t K = m % 4 == 3 ? 4000 + od_rbelow(&r, 5000) : 1 + od_rbelow(&r, 600);
        float *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B);
        ug_exact *C = malloc(M * N * sizeof *C);
        UG_ASSERT_MSG(A && B && C, "out of memory");
        gen ga = od_gen_pick(&r, -150, 120), gb = od_gen_pick(&r, -150, 120);
        if (m % 3 == 0)
            ga.kind = gb.kind = G_NORMAL;
        for (size_t i = 0; i < M * K; i++)
            A[i] = od_gen_f32(&r, &ga);
        for (size_t i = 0; i < K * N; i++)
            B[i] = od_gen_f32(&r, &gb);
        switch (m % 6) {
        case 1: /* a zero row of A and a zero column of B (signed zeros) */
            for (size_t k = 0; k < K; k++) {
                A[k] = (k % 2) ? -0.0f : 0.0f;
                B[k * N] = -0.0f;
            }
            break;
        case 2: /* row 0 of A cancels in pairs: exact zeros against columns with equal pairs */
            for (size_t k = 0; k + 1 < K; k += 2) {
                A[k + 1] = -A[k];
                for (size_t j = 0; j < N; j++)
                    B[(k + 1) * N + j] = B[k * N + j];
            }
            if (K % 2)
                A[K - 1] = 0.0f;
            break;
        case 4: /* a special in one row and one column */
            A[(M - 1) * K + od_rbelow(&r, (uint32_t)K)] = (od_r64(&r) & 1) ? INFINITY : NAN;
            B[od_rbelow(&r, (uint32_t)K) * N + N - 1] = -INFINITY;
            break;
        default:
            break;
        }
        ug_exact_gemm_f32_fast(A, B, M, N, K, C);
        for (size_t i = 0; i < M; i++)
            for (size_t j = 0; j < N; j++) {
                ug_exact ref;
                ug_exact_dot_f32_mpfr(A + i * K, 1, B + j, N, K, &ref);
                ty.vectors++;
                if (!ug_exact_equal(&C[i * N + j], &ref))
                    od_report_mismatch(t, &ty, "gemm element", (long)(m * 10000 + (int)(i * N + j)),
                                    A + i * K, NULL, NULL, K, &C[i * N + j], &ref);
            }
        free(A);
        free(B);
        free(C);
    }
    od_finish(t, "gemm elements", &ty);
}

UG_CASE(oracle_diff, gemm)
{
    run_gemm(t, "oracle_diff/gemm", 24);
}

/* Strided dots (the general path gathers them) and a GEMM big enough for each thread's
 * two-or-three-levels statistics to roll over. */
UG_CASE(oracle_diff, strided_and_larger_gemm)
{
    drng r = od_drng_make(t, "oracle_diff/strided");
    tally ty = {0, 0};
    enum { CAP = 3 * 5000 };
    float *x = malloc(CAP * sizeof *x), *y = malloc(CAP * sizeof *y);
    UG_ASSERT_MSG(x && y, "out of memory");
    for (long v = 0; v < 3000; v++) {
        size_t incx = 1 + od_rbelow(&r, 3), incy = 1 + od_rbelow(&r, 3);
        size_t n = v % 100 == 0 ? 2500 + od_rbelow(&r, 2500) : od_short_len(&r);
        gen gx = od_gen_pick(&r, -150, 120), gy = od_gen_pick(&r, -150, 120);
        for (size_t i = 0; i < n * 3; i++) {
            x[i] = od_gen_f32(&r, &gx);
            y[i] = od_gen_f32(&r, &gy);
        }
        ug_exact a, b;
        ug_exact_dot_f32_fast(x, incx, y, incy, n, &a);
        ug_exact_dot_f32_mpfr(x, incx, y, incy, n, &b);
        ty.vectors++;
        if (!ug_exact_equal(&a, &b))
            od_report_mismatch(t, &ty, "strided dot", v, x, y, NULL, n, &a, &b);
    }
    free(x);
    free(y);
    od_finish(t, "strided dots", &ty);

    /* 72 x 64 x 96, normal values with one row scaled far down (three levels needed there) */
    size_t M = 72, N = 64, K = 96;
    float *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B);
    ug_exact *C = malloc(M * N * sizeof *C);
    UG_ASSERT_MSG(A && B && C, "out of memory");
    gen g = {G_NORMAL, 0, 0, 0};
    for (size_t i = 0; i < M * K; i++)
        A[i] = od_gen_f32(&r, &g) * (i / K == 5 || i % 17 == 3 ? 0x1p-40f : 1.0f);
    for (size_t i = 0; i < K * N; i++)
        B[i] = od_gen_f32(&r, &g);
    ug_exact_gemm_f32_fast(A, B, M, N, K, C);
    tally tg = {0, 0};
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            ug_exact ref;
            ug_exact_dot_f32_mpfr(A + i * K, 1, B + j, N, K, &ref);
            tg.vectors++;
            if (!ug_exact_equal(&C[i * N + j], &ref))
                od_report_mismatch(t, &tg, "gemm element", (long)(i * N + j), A + i * K, NULL, NULL,
                                K, &C[i * N + j], &ref);
        }
    free(A);
    free(B);
    free(C);
    od_finish(t, "larger gemm", &tg);
}

/* The kernel sets other than the one chosen for this CPU (AVX2 intrinsics where AVX-512 would
 * be used; the generic vector-extension kernels everywhere), on a sample of the above. */
UG_CASE(oracle_diff, other_kernels)
{
    const char *best = ug_fast_kernels_get()->name;
    static const char *const sets[] = {"avx2", "generic"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        if (!strcmp(sets[i], best))
            continue; /* the other cases ran it */
        if (ug_fast_kernels_select(sets[i]) != 0) {
            ug_note(t, "%s kernels: not supported by this CPU", sets[i]);
            continue;
        }
        ug_note(t, "%s kernels:", sets[i]);
        od_run_short_sum32(t, 30000, "oracle_diff/other/sum32");
        od_run_short_dot32(t, 30000, "oracle_diff/other/dot32");
        od_run_short_sum64(t, 20000, "oracle_diff/other/sum64");
        od_run_long(t, "oracle_diff/other/long", 8);
        run_gemm(t, "oracle_diff/other/gemm", 8);
    }
    ug_fast_kernels_select("auto");
}

/* The binary32 sum's direct path (exact_fast.c, block_fused) at its threshold.  After a block of
 * max |x| = 1 (e = 1) a full block of 2048 terms (L = 11) has s = e + 1 + L = 13 and u = 2^-39:
 * a term counts as exact in binary64 lanes when |x| >= t = 2^(s-29) = 2^-16 (a multiple of u);
 * a nonzero |x| < t is a residual and sends the block to the general path.
 *   - each kernel set's UG_F_SUM32_DIRECT flags a residual for |x| = t's predecessor (the binade
 *     below), not for t nor its successor, nor for -t, in the vector body and in the tail;
 *   - whole sums against MPFR with the second block's terms in [1, 2) (partial sums past 2^11,
 *     whose binary64 quantum is 2^-41) and one probe term: t's predecessor, t, its successor, -t,
 *     and 2^-18 (1 + 2^-23) and 2^-19 (1 + 2^-23) (last bits 2^-41 and 2^-42).  The threshold is
 *     conservative: the partial sums stay below 2^(s-1) = 2^12, so multiples of 2^-41 (|x| >=
 *     2^-18) are exact too; the last probe is not, so a threshold 3 binades too low loses its
 *     bit and the record differs from MPFR's (1 or 2 binades low would be slower, not wrong). */
UG_CASE(oracle_diff, sum32_direct_threshold)
{
    enum { N = 4096, H = 2048 };
    const float tt = 0x1p-16f;
    const float probes[] = {nextafterf(tt, 0), tt, nextafterf(tt, 1), -tt, 0x1.000002p-18f,
                            0x1.000002p-19f};
    drng r = od_drng_make(t, "oracle_diff/sum32_direct_threshold");
    float *x = malloc((N + 3) * sizeof *x);
    UG_ASSERT_MSG(x, "out of memory");
    const char *best = ug_fast_kernels_get()->name;
    static const char *const sets[] = {"auto", "avx512", "avx2", "generic"};
    for (size_t si = 0; si < sizeof sets / sizeof *sets; si++) {
        if ((si && !strcmp(sets[si], best)) || ug_fast_kernels_select(sets[si]) != 0) continue;
        const ug_fast_kernels *k = ug_fast_kernels_get();
        for (size_t p = 0; p < 4; p++) /* the kernel's residual test alone */
            for (int tail = 0; tail < 2; tail++) {
                size_t n = tail ? H + 3 : H;
                for (size_t i = 0; i < n; i++) x[i] = 1 + (float)od_rbelow(&r, 1u << 23) * 0x1p-23f;
                x[tail ? H + 2 : 5] = probes[p];
                double sig[3] = {tt, 0, 0};
                ug_fused_out o;
                k->fused[UG_F_SUM32_DIRECT](x, NULL, n, sig, &o);
                bool want = fabsf(probes[p]) < tt;
                UG_EXPECT_MSG(o.residual == want, "%s kernels: |x| = %a in the %s: residual %d, want %d",
                              k->name, (double)probes[p], tail ? "tail" : "vector body",
                              (int)o.residual, (int)want);
            }
        for (size_t p = 0; p < sizeof probes / sizeof *probes; p++) {
            for (size_t i = 0; i < H; i++) x[i] = 2 * (float)od_rbelow(&r, 1u << 24) * 0x1p-24f - 1;
            x[0] = 1;
            for (size_t i = H; i < N; i++) x[i] = 1 + (float)od_rbelow(&r, 1u << 23) * 0x1p-23f;
            x[H + 1 + od_rbelow(&r, H - 1)] = probes[p];
            ug_exact a, b;
            ug_exact_sum_f32_fast(x, N, &a);
            ug_exact_sum_f32_mpfr(x, N, &b);
            UG_EXPECT_MSG(ug_exact_equal(&a, &b), "%s kernels, probe %a: fast hi %a lo %a, MPFR hi %a lo %a",
                          k->name, (double)probes[p], a.hi, a.lo, b.hi, b.lo);
        }
    }
    ug_fast_kernels_select("auto");
    free(x);
}
