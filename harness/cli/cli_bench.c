/*
 * cli_bench.c - `ulpgate bench oracle [--big] [--threads N]`: how fast the oracles are.
 *
 * Single-threaded sum and dot of n = 2^18 normal(0,1) binary32 values (pairs: 1 MiB per
 * operand, cache-resident, so the figures measure computation rather than the memory system,
 * which made 2^20 noisy on shared hosts), timed for
 *   (a) the seven-methods post's MPFR loop: mpfr_set_flt + mpfr_add into a 1024-bit accumulator
 *       (dot: two mpfr_set_flt, mpfr_mul, mpfr_add), rounding toward -inf as the post does;
 *   (b) mpfr_sum over the terms (setting the terms included, allocating them not);
 *   (c) the fast exact path, checked bitwise against the MPFR oracle;
 * then every element of an n x n x n SGEMM verified (ug_exact_gemm_f32_fast + ug_error_of of a
 * dummy result; the fast oracle whatever --oracle says) on ug_par_threads() threads for
 * n = 1024, 2048 (and 4096 with --big), with a spot check of 64 elements against the MPFR
 * oracle.  Median of 51 runs for the fast path, 5 for the MPFR loops.  The last line is
 * `speedup vs the seven-methods post's MPFR loop: sum <X>x, dot <Y>x`.  Exit status 1 if any
 * fast result differs from MPFR's.  ~5-10 s on 2 cores without --big; --big needs ~1 GiB
 * (C: 16 M ug_exact).  --gpu: the GPU oracle's bench instead (cli_bench_gpu.c).
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/par.h"
#include "base/sys.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_check.h"
#include "oracle/fast.h"
#include "oracle/oracle.h"

/* (a) the seven-methods post's loop; returns its RD32 result. */
static float post_loop(const float *x, const float *y, size_t n)
{
    mpfr_t a, t, u;
    mpfr_inits2(1024, a, t, u, (mpfr_ptr)0);
    mpfr_set_flt(a, 0.0f, MPFR_RNDD);
    for (size_t i = 0; i < n; i++) {
        mpfr_set_flt(t, x[i], MPFR_RNDD);
        if (y) {
            mpfr_set_flt(u, y[i], MPFR_RNDD);
            mpfr_mul(t, t, u, MPFR_RNDD);
        }
        mpfr_add(a, a, t, MPFR_RNDD);
    }
    float r = mpfr_get_flt(a, MPFR_RNDD);
    mpfr_clears(a, t, u, (mpfr_ptr)0);
    return r;
}

/* (b) mpfr_sum over terms[] (already allocated), result exact at 700 bits (products of binary32
 * values span 2^-298 .. 2^256, plus carries: see exact_mpfr.c). */
static void mpfr_sum_run(mpfr_t *terms, mpfr_ptr *ptrs, const float *x, const float *y, size_t n)
{
    mpfr_t s, u;
    mpfr_init2(s, 700);
    mpfr_init2(u, 24);
    for (size_t i = 0; i < n; i++) {
        mpfr_set_flt(terms[i], x[i], MPFR_RNDN);
        if (y) {
            mpfr_set_flt(u, y[i], MPFR_RNDN);
            mpfr_mul(terms[i], terms[i], u, MPFR_RNDN);
        }
        ptrs[i] = terms[i];
    }
    mpfr_sum(s, ptrs, n, MPFR_RNDN);
    mpfr_clear(u);
    mpfr_clear(s);
}

typedef struct op_times {
    double post_ns, sum_ns, fast_ns;
    int equal;
} op_times;

static op_times bench_op(const float *x, const float *y, size_t n, mpfr_t *terms,
                         mpfr_ptr *ptrs)
{
    op_times r;
    double t[51];
    for (int i = 0; i < 5; i++) {
        double t0 = ug_now_s();
        volatile float sink = post_loop(x, y, n);
        (void)sink;
        t[i] = ug_now_s() - t0;
    }
    r.post_ns = ug_bench_median(t, 5) / (double)n * 1e9;
    for (int i = 0; i < 5; i++) {
        double t0 = ug_now_s();
        mpfr_sum_run(terms, ptrs, x, y, n);
        t[i] = ug_now_s() - t0;
    }
    r.sum_ns = ug_bench_median(t, 5) / (double)n * 1e9;
    ug_exact fast, ref;
    for (int i = 0; i < 51; i++) {
        double t0 = ug_now_s();
        if (y)
            ug_exact_dot_f32_fast(x, 1, y, 1, n, &fast);
        else
            ug_exact_sum_f32_fast(x, n, &fast);
        t[i] = ug_now_s() - t0;
    }
    r.fast_ns = ug_bench_median(t, 51) / (double)n * 1e9;
    if (y)
        ug_exact_dot_f32_mpfr(x, 1, y, 1, n, &ref);
    else
        ug_exact_sum_f32_mpfr(x, n, &ref);
    r.equal = ug_exact_equal(&fast, &ref);
    return r;
}

/* Every element of an n^3 GEMM: exact results plus the error of a dummy result (RN32 with its
 * last bit flipped, so ug_error_of does real work).  Returns seconds, or -1 without memory;
 * *mismatches: spot-checked elements that differ from MPFR. */
static double bench_gemm(size_t n, int *mismatches)
{
    float *A = malloc(n * n * sizeof *A), *B = malloc(n * n * sizeof *B);
    ug_exact *C = malloc(n * n * sizeof *C);
    double secs = -1;
    *mismatches = 0;
    if (!A || !B || !C)
        goto out;
    ug_bench_fill_normal(A, n * n, 1000 + n);
    ug_bench_fill_normal(B, n * n, 2000 + n);
    double t0 = ug_now_s();
    ug_exact_gemm_f32_fast(A, B, n, n, n, C);
    double ulp_sum = 0;
    for (size_t i = 0; i < n * n; i++) {
        float got = ug_bits_f32(ug_f32_bits(C[i].rn) ^ 1);
        ulp_sum += ug_error_of(&C[i], got).ulp;
    }
    secs = ug_now_s() - t0;
    if (!(ulp_sum > 0))
        (*mismatches)++;
    uint64_t seed = 42;
    for (int c = 0; c < 64; c++) {
        size_t i = ug_bench_mix(&seed) % n, j = ug_bench_mix(&seed) % n;
        ug_exact ref;
        ug_exact_dot_f32_mpfr(A + i * n, 1, B + j, n, n, &ref);
        if (!ug_exact_equal(&C[i * n + j], &ref))
            (*mismatches)++;
    }
out:
    free(A);
    free(B);
    free(C);
    return secs;
}

int ug_cmd_bench_oracle(int argc, char **argv)
{
    int big = 0, gpu = 0, threads = 0;
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return ug_bench_check(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "rows") == 0)
        return ug_bench_rows(argc - 1, argv + 1);
    if (argc < 2 || strcmp(argv[1], "oracle") != 0) {
        fprintf(stderr, "usage: ulpgate bench oracle [--big] [--gpu] [--threads N]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--big")) {
            big = 1;
        } else if (!strcmp(argv[i], "--gpu")) {
            gpu = 1;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v > 1024) {
                fprintf(stderr, "ulpgate bench oracle: --threads: '%s' is not a count 0..1024\n",
                        argv[i]);
                return 2;
            }
            threads = (int)v;
        } else {
            fprintf(stderr, "ulpgate bench oracle: unknown option '%s'\n"
                            "usage: ulpgate bench oracle [--big] [--gpu] [--threads N]\n",
                    argv[i]);
            return 2;
        }
    }
    if (gpu)
        return ug_bench_oracle_gpu(threads);

    const size_t n = (size_t)1 << 18;
    float *x = ug_xmalloc(n * sizeof *x), *y = ug_xmalloc(n * sizeof *y);
    mpfr_t *terms = ug_xmalloc(n * sizeof *terms);
    mpfr_ptr *ptrs = ug_xmalloc(n * sizeof *ptrs);
    ug_bench_fill_normal(x, n, 1);
    ug_bench_fill_normal(y, n, 2);
    for (size_t i = 0; i < n; i++)
        mpfr_init2(terms[i], 64);

    ug_par_set_threads(1);
    printf("ulpgate bench oracle: fast kernels %s; sum/dot single-threaded, n = %zu, "
           "normal(0,1) binary32\n",
           ug_fast_kernels_get()->name, n);
    op_times s = bench_op(x, NULL, n, terms, ptrs);
    op_times d = bench_op(x, y, n, terms, ptrs);
    for (size_t i = 0; i < n; i++)
        mpfr_clear(terms[i]);
    free(terms);
    free(ptrs);
    free(x);
    free(y);

    printf("%-40s %12s %12s %12s %12s\n", "", "sum ns/elem", "sum elem/s", "dot ns/elem",
           "dot elem/s");
    printf("%-40s %12.2f %12.3g %12.2f %12.3g\n", "(a) the seven-methods post's MPFR loop",
           s.post_ns,
           1e9 / s.post_ns, d.post_ns, 1e9 / d.post_ns);
    printf("%-40s %12.2f %12.3g %12.2f %12.3g\n", "(b) mpfr_sum", s.sum_ns, 1e9 / s.sum_ns,
           d.sum_ns, 1e9 / d.sum_ns);
    printf("%-40s %12.3f %12.3g %12.3f %12.3g\n", "(c) fast exact", s.fast_ns, 1e9 / s.fast_ns,
           d.fast_ns, 1e9 / d.fast_ns);
    printf("fast == MPFR (hi, lo, rn, rd, class): sum %s, dot %s\n", s.equal ? "yes" : "NO",
           d.equal ? "yes" : "NO");
    int failed = !s.equal || !d.equal;

    ug_par_set_threads(threads);
    printf("GEMM verification, every element (ug_exact_gemm_f32_fast + ug_error_of), "
           "%d threads:\n",
           ug_par_threads());
    printf("  %6s %10s %14s %14s %22s\n", "n", "seconds", "elements/s", "ns/MAC*thread",
           "spot check vs MPFR");
    size_t sizes[3] = {1024, 2048, 4096};
    for (int k = 0; k < (big ? 3 : 2); k++) {
        int mism;
        double secs = bench_gemm(sizes[k], &mism);
        double nn = (double)sizes[k];
        if (secs < 0) {
            printf("  %6zu out of memory\n", sizes[k]);
            failed = 1;
            continue;
        }
        printf("  %6zu %10.3f %14.4g %14.3f %19s\n", sizes[k], secs, nn * nn / secs,
               secs * ug_par_threads() / (nn * nn * nn) * 1e9,
               mism ? "MISMATCH" : "64/64 equal");
        failed |= mism != 0;
    }
    printf("speedup vs the seven-methods post's MPFR loop: sum %.0fx, dot %.0fx\n",
           s.post_ns / s.fast_ns,
           d.post_ns / d.fast_ns);
    return failed ? 1 : 0;
}
