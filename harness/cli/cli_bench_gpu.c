/*
 * cli_bench_gpu.c - `ulpgate bench oracle --gpu`: the GPU oracle beside what it replaces and
 * what it is measured against, in one run (the device side is oracle/cuda/bench.cu):
 *   - the exact sum of 2^30 normal(0,1) binary32 values (4 GiB, made on the device): the GPU
 *     oracle's time, GB/s and share of the device's memory bandwidth, beside cub_reduce (a
 *     binary32 sum, not exact) on the same data, and the fast CPU oracle on a copy of it; the
 *     two oracles' records compared;
 *   - every element of an n^3 SGEMM, n = 1024, 2048, 4096 (normal(0,1)), then of the same with
 *     bfloat16 operands and cuBLAS's bf16 GEMM (cuBLASLt's kernel) in place of SGEMM: cuBLAS's own
 *     time, the GPU oracle's (exact records of every element plus the ULP error of every
 *     element of the cuBLAS result, on the device), the copy of the records to the host, the
 *     fast CPU oracle's time; every element of the two oracles compared;
 *   - where the GPU oracle pays: GEMMs of 64^3 to 1024^3 and 8 sums of 2^10 to 2^24 terms
 *     through the harness's own calls (copies included) on both oracles, beside the choice the
 *     harness makes with no --oracle (ug_gpu_oracle_pays).
 * Exit status 1 if any record differs (or something fails), 2 without a GPU.  Memory: ~4.5 GiB
 * on the host at the peak (the sum's copy; then two sets of 16 M records, 1.3 GiB), ~5 GiB on
 * the device.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/device.h"
#include "base/par.h"
#include "base/sys.h"
#include "harness/cli/cli.h"
#include "oracle/gpu.h"
#include "harness/run/run.h"

/* The exact sum: GPU, cub, CPU.  Returns 0 if the records agree. */
static int bench_gpu_sum(const ug_gpu_oracle_ops *ops)
{
    const size_t n = (size_t)1 << 30;
    char err[400] = "";
    ug_gpu_bench_sum r;
    float *x = malloc(n * sizeof *x);
    if (!x) {
        printf("exact sum of 2^30 binary32: no 4 GiB of host memory for the CPU's copy\n");
        return 1;
    }
    if (ops->bench_sum(n, x, &r, err, sizeof err)) {
        printf("exact sum of 2^30 binary32: %s\n", err);
        free(x);
        return 1;
    }
    ug_exact cpu;
    double t0 = ug_now_s();
    ug_exact_sum_f32_fast(x, n, &cpu);
    double cpu_ms = (ug_now_s() - t0) * 1e3;
    free(x);
    double gb = (double)n * sizeof(float) / 1e9;
    int same = ug_exact_equal(&r.exact, &cpu);
    printf("GPU oracle bench on %s (memory bandwidth %.0f GB/s from its attributes)\n", r.device,
           r.peak_gbs);
    printf("exact sum of 2^30 binary32 values (normal(0,1), 4 GiB on the device):\n");
    printf("  %-28s %10s %10s %12s\n", "", "ms", "GB/s", "% of peak");
    double g_or = gb / (r.oracle_ms * 1e-3), g_cub = gb / (r.cub_ms * 1e-3);
    printf("  %-28s %10.3f %10.0f %11.1f%%\n", "gpu oracle (exact)", r.oracle_ms, g_or,
           r.peak_gbs > 0 ? 100 * g_or / r.peak_gbs : 0);
    printf("  %-28s %10.3f %10.0f %11.1f%%\n", "cub_reduce (binary32 sum)", r.cub_ms, g_cub,
           r.peak_gbs > 0 ? 100 * g_cub / r.peak_gbs : 0);
    printf("  %-28s %10.3f %10.0f   (%d threads)\n", "cpu oracle (fast, exact)", cpu_ms,
           gb / (cpu_ms * 1e-3), ug_par_threads());
    printf("  exact sum %a; cub_reduce %a is %.3g ulp off\n", r.exact.hi, (double)r.cub_sum,
           ug_error_of(&r.exact, r.cub_sum).ulp);
    printf("  gpu == cpu (hi, lo, rn, rd, class; sum_abs within 1e-12): %s\n", same ? "yes" : "NO");
    return !same;
}

/* Every element of n^3: cuBLAS, GPU oracle + verification, copy, CPU oracle, comparison.
 * bf16: the operands rounded to bfloat16 and cuBLAS's bf16 GEMM in place of SGEMM. */
static int bench_gpu_gemm(const ug_gpu_oracle_ops *ops, size_t n, bool bf16)
{
    char err[400] = "";
    float *A = malloc(n * n * sizeof *A), *B = malloc(n * n * sizeof *B);
    ug_exact *Cg = malloc(n * n * sizeof *Cg), *Cc = malloc(n * n * sizeof *Cc);
    ug_gpu_bench_gemm r;
    int rc = 1;
    if (!A || !B || !Cg || !Cc) {
        printf("  %6zu no host memory\n", n);
        goto out;
    }
    ug_bench_fill_normal(A, n * n, 1000 + n);
    ug_bench_fill_normal(B, n * n, 2000 + n);
    for (size_t i = 0; bf16 && i < n * n; i++) {
        A[i] = (float)ug_fmt_round(UG_BF16, A[i], UG_RN);
        B[i] = (float)ug_fmt_round(UG_BF16, B[i], UG_RN);
    }
    if (ops->bench_gemm(A, B, n, bf16, Cg, &r, err, sizeof err)) {
        printf("  %-4s %6zu %s\n", bf16 ? "bf16" : "f32", n, err);
        goto out;
    }
    double t0 = ug_now_s();
    ug_exact_gemm_f32_fast(A, B, n, n, n, Cc);
    double cpu_s = ug_now_s() - t0;
    size_t equal = 0;
    for (size_t i = 0; i < n * n; i++)
        equal += ug_exact_equal(&Cg[i], &Cc[i]);
    printf("  %-4s %6zu %12.2f %10.2f %10.2f %10.3f %5dx%-2d %7zu %10.2f %13zu/%zu\n",
           bf16 ? "bf16" : "f32", n, r.oracle_ms,
           r.copy_ms, r.sgemm_ms, cpu_s, r.info.S, r.info.T, r.info.fallback, r.ulp_max, equal,
           n * n);
    if (r.info.dp4a)
        printf("         (cuBLAS refused int8 GEMM: the exact dp4a kernel ran instead)\n");
    rc = equal != n * n;
out:
    free(A);
    free(B);
    free(Cg);
    free(Cc);
    return rc;
}

/* Median of REPS timings of one oracle call (seconds); -1 if a call fails (message in err). */
enum { REPS = 5 };
typedef int (*ug_bench_call)(void *arg, char *err, size_t len);
static double bench_median(ug_bench_call f, void *arg, char *err, size_t len)
{
    double t[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = ug_now_s();
        if (f(arg, err, len)) return -1;
        t[r] = ug_now_s() - t0;
    }
    return ug_bench_median(t, REPS);
}

typedef struct {
    const float *A, *B;
    size_t n, trials;
    const float *const *x;
    const size_t *ns;
    ug_exact *out;
} ug_bench_job;

static int call_gemm_cpu(void *arg, char *err, size_t len)
{
    ug_bench_job *j = arg;
    (void)err, (void)len;
    ug_exact_gemm_f32_fast(j->A, j->B, j->n, j->n, j->n, j->out);
    return 0;
}
static int call_gemm_gpu(void *arg, char *err, size_t len)
{
    ug_bench_job *j = arg;
    return ug_exact_gemm_f32_gpu(j->A, j->B, j->n, j->n, j->n, j->out, NULL, err, len);
}
static int call_sums_cpu(void *arg, char *err, size_t len)
{
    ug_bench_job *j = arg;
    (void)err, (void)len;
    for (size_t i = 0; i < j->trials; i++) ug_exact_sum_f32_fast(j->x[i], j->ns[i], &j->out[i]);
    return 0;
}
static int call_sums_gpu(void *arg, char *err, size_t len)
{
    ug_bench_job *j = arg;
    return ug_exact_sums_f32_gpu(j->x, j->ns, j->trials, j->out, err, len);
}

/* One row of the crossing table: both oracles on job j, which is faster, and the default
 * choice.  0, or -1 with the GPU's error printed. */
static int crossover_row(const char *label, ug_bench_call cpu, ug_bench_call gpu,
                         ug_bench_job *j, bool pays)
{
    char err[400] = "";
    double c = bench_median(cpu, j, err, sizeof err);
    double g = bench_median(gpu, j, err, sizeof err);
    if (g < 0) {
        printf("  %s: %s\n", label, err);
        return -1;
    }
    printf("  %-22s %12.3f %12.3f %8s %16s\n", label, c * 1e3, g * 1e3, g < c ? "gpu" : "cpu",
           pays ? "gpu" : "cpu");
    return 0;
}

/* Where the GPU oracle pays: the harness's own calls (host arrays in, records back, copies and
 * launches included), medians of REPS, beside the fast CPU oracle and the default choice
 * (ug_gpu_oracle_pays).  The cross-check the harness adds to a GPU answer is not included. */
static int bench_gpu_crossover(void)
{
    static const size_t gemm_n[] = {64, 128, 256, 384, 512, 768, 1024};
    static const size_t sum_n[] = {(size_t)1 << 10, (size_t)1 << 16, (size_t)1 << 20,
                                   (size_t)1 << 24};
    enum { TRIALS = 8 };
    size_t nmax = gemm_n[sizeof gemm_n / sizeof *gemm_n - 1], smax = sum_n[3];
    float *A = malloc(nmax * nmax * sizeof *A), *B = malloc(nmax * nmax * sizeof *B);
    float *X = malloc(TRIALS * smax * sizeof *X);
    ug_exact *out = malloc(nmax * nmax * sizeof *out);
    const float *x[TRIALS];
    size_t ns[TRIALS];
    char label[40];
    int rc = 1;
    if (!A || !B || !X || !out) {
        printf("where the GPU oracle pays: no host memory\n");
        goto out;
    }
    ug_bench_fill_normal(A, nmax * nmax, 31);
    ug_bench_fill_normal(B, nmax * nmax, 32);
    ug_bench_fill_normal(X, TRIALS * smax, 33);
    printf("where the GPU oracle pays (the harness's calls: host arrays in, records out; medians "
           "of %d; %d CPU threads):\n", REPS, ug_par_threads());
    printf("  %-22s %12s %12s %8s %16s\n", "input", "cpu ms", "gpu ms", "faster",
           "default oracle");
    for (size_t k = 0; k < sizeof gemm_n / sizeof *gemm_n; k++) {
        size_t n = gemm_n[k];
        ug_bench_job j = {A, B, n, 0, NULL, NULL, out};
        snprintf(label, sizeof label, "gemm %zu^3", n);
        if (crossover_row(label, call_gemm_cpu, call_gemm_gpu, &j,
                          ug_gpu_oracle_pays(UG_OP_GEMM, &(ug_shape){{n, n, n}})))
            goto out;
    }
    for (size_t k = 0; k < sizeof sum_n / sizeof *sum_n; k++) {
        for (int i = 0; i < TRIALS; i++) {
            x[i] = X + (size_t)i * sum_n[k];
            ns[i] = sum_n[k];
        }
        ug_bench_job j = {NULL, NULL, 0, TRIALS, x, ns, out};
        snprintf(label, sizeof label, "%d sums of %zu", TRIALS, sum_n[k]);
        if (crossover_row(label, call_sums_cpu, call_sums_gpu, &j,
                          ug_gpu_oracle_pays(UG_OP_SUM, &(ug_shape){{sum_n[k]}})))
            goto out;
    }
    rc = 0;
out:
    free(A);
    free(B);
    free(X);
    free(out);
    return rc;
}

int ug_bench_oracle_gpu(int threads)
{
    const ug_gpu_oracle_ops *ops = ug_gpu_oracle();
    char why[300] = "";
    if (ops == &ug_gpu_oracle_cuda)
        ug_device_probe(NULL, 0); /* selects the device before the oracle touches it */
    if (!ops->bench_sum || !ops->bench_gemm || !ug_gpu_oracle_available(why, sizeof why)) {
        fprintf(stderr, "ulpgate bench oracle --gpu: no GPU oracle to time (%s)\n",
                why[0] ? why : ops->name);
        return 2;
    }
    ug_par_set_threads(threads);
    int failed = bench_gpu_sum(ops);
    printf("every element of an n^3 product (normal(0,1)); ms on the device, medians.\n"
           "f32: cuBLAS SGEMM (pedantic); bf16: operands rounded to bfloat16, cuBLAS is\n"
           "cublasGemmEx bf16 x bf16 -> binary32 (CUBLAS_COMPUTE_32F: cuBLASLt's kernel):\n");
    printf("  %-4s %6s %12s %10s %10s %10s %8s %7s %10s %18s\n", "ops", "n", "gpu oracle",
           "to host", "cuBLAS", "cpu oracle", "slices", "fallbk", "cuBLAS ulp", "gpu == cpu");
    printf("  %-4s %6s %12s %10s %10s %10s %8s %7s %10s %18s\n", "", "", "ms (+verify)", "ms",
           "ms", "s", "S x T", "elems", "max", "elements");
    static const size_t sizes[] = {1024, 2048, 4096};
    for (int bf16 = 0; bf16 < 2; bf16++)
        for (int k = 0; k < 3; k++)
            failed |= bench_gpu_gemm(ops, sizes[k], bf16);
    printf("cpu oracle: the fast exact oracle on %d threads\n", ug_par_threads());
    failed |= bench_gpu_crossover();
    return failed ? 1 : 0;
}
