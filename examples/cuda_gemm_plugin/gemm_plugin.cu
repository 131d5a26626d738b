/*
 * gemm_plugin.cu - a CUDA GEMM of your own, tested by ulpgate with no test code: C = A B in
 * binary32, one output a thread, built by nvcc against the installed <ulpgate/ulpgate.h> and
 * loaded with `ulpgate run --plugin build/libgemmkernels.so --no-builtin`.
 *
 * The bound it claims, UG_BOUND_TREE with the default depth K - 1: each output is a serial dot
 * product of K terms; with or without FMA contraction (nvcc's default -fmad=true) every product
 * is rounded at most once and passes through at most K - 1 additions: gamma_K sum |a_ik b_kj|.
 */
/* what nvcc's flags allow (its default -fmad=true contracts a*b + t into an FMA): ulpgate reads
 * it from the plugin, as it does for its own CUDA kernels */
#define UG_PLUGIN_PROPS UG_VP_FMA
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <ulpgate/ulpgate.h>

__global__ void my_gemm_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m || col >= n) return;
    float t = 0.0f;
    for (int i = 0; i < k; i++) t += a[(size_t)row * k + i] * b[(size_t)i * n + col];
    c[(size_t)row * n + col] = t;
}

/* One launch; its time in *ms when ms is not NULL. */
static cudaError_t my_gemm_launch(const float *a, const float *b, float *c, int m, int n, int k, float *ms)
{
    dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
    cudaEvent_t e0 = 0, e1 = 0;
    if (ms) {
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        cudaEventRecord(e0);
    }
    my_gemm_kernel<<<grid, block>>>(a, b, c, m, n, k);
    cudaError_t err = cudaGetLastError();
    if (ms) {
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(ms, e0, e1);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* The launcher (the contract of <ulpgate/ulpgate.h>): copies in, runs (timed when c->reps > 0:
 * one warm-up, then the median of c->reps runs), copies out, frees on every path. */
static int my_gemm(const ug_kernel *kern, ug_call *c)
{
    (void)kern;
    const float *a = ug_in_f32(c, 0), *b = ug_in_f32(c, 1);
    float *out = ug_out_f32(c);
    int m = (int)ug_dim(c, 0), n = (int)ug_dim(c, 1), k = (int)ug_dim(c, 2);
    size_t sa = (size_t)m * k * sizeof(float), sb = (size_t)k * n * sizeof(float), sc = (size_t)m * n * sizeof(float);
    float *da = NULL, *db = NULL, *dc = NULL;
    cudaError_t err = cudaMalloc(&da, sa);
    if (err == cudaSuccess) err = cudaMalloc(&db, sb);
    if (err == cudaSuccess) err = cudaMalloc(&dc, sc);
    if (err == cudaSuccess) err = cudaMemcpy(da, a, sa, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) err = cudaMemcpy(db, b, sb, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) err = my_gemm_launch(da, db, dc, m, n, k, NULL);
    if (err == cudaSuccess && c->reps > 0) {
        float *t = (float *)malloc((size_t)c->reps * sizeof *t);
        for (int r = 0; t && err == cudaSuccess && r < c->reps; r++) err = my_gemm_launch(da, db, dc, m, n, k, &t[r]);
        if (t && err == cudaSuccess) {
            qsort(t, (size_t)c->reps, sizeof *t, cmp_float);
            c->time_ms = t[c->reps / 2];
        }
        free(t);
    }
    if (err == cudaSuccess) err = cudaMemcpy(out, dc, sc, cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    if (err != cudaSuccess) {
        snprintf(c->err, sizeof c->err, "my_gemm: %s", cudaGetErrorString(err));
        return 1;
    }
    return 0;
}

UG_PLUGIN(
    {.name = "my_gemm", .op = UG_OP_GEMM, .backend = UG_CUDA, .bound = UG_BOUND_TREE, .run = my_gemm,
     .doc = "one output a thread, t += a*b in k order (nvcc -fmad=true)"},
)
