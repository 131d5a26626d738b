/*
 * norm.cu - fp32 vector norms on the GPU: a naive grid nrm2, cuBLAS Snrm2 and Sasum.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -c norm.cu.  Built in the default variant only
 * (kernels/meson.build: --use_fast_math's approximate square root is no rounding the bound
 * covers).
 *
 *   nrm2_naive_grid   the grid shape of reduce_grid.cu (G = min(ceil(n/256), 1024) blocks of
 *                     256 threads, thread g summing x[g], x[g+T], ... serially), on x_i * x_i
 *                     (contracted to fma by nvcc's default -fmad=true: one rounding instead of
 *                     two, within the same bound), a block tree of 256, a final tree over the
 *                     G partials in one block of 1024, then sqrtf (correctly rounded: -prec-sqrt
 *                     is true by default).  Sum-of-squares depth (ops/norm.c counts the product
 *                     separately): (m - 1) + 8 + ceil(log2 G), m = ceil(n / T).  Overflows
 *                     near sqrt(FLT_MAX) as the CPU's nrm2_naive does.
 *   cublas_snrm2      cublasSnrm2: its algorithm is not documented (a scaled or a two-pass
 *                     form); declared with the classic scaled form's depth 5n
 *                     (kernels/cpu/norm.c), the largest of the textbook forms: a failure means
 *                     the declaration is wrong, and says so
 *   cublas_sasum      cublasSasum: order not documented, depth n - 1
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <cublas_v2.h>
#include <limits.h>

UG_CUDA_BEGIN

static size_t ug_depth_nrm2_grid(size_t n)
{
    size_t T = (size_t)ug_grid_blocks(n ? n : 1) * UG_GRID_BLOCK, m = ug_div_up(n, T);
    size_t d = (m ? m - 1 : 0) + UG_GRID_BLOCK_LOG2 + ug_depth_log2(ug_grid_blocks(n ? n : 1));
    return n && d > n - 1 ? n - 1 : d;
}

static size_t ug_depth_scaled_5n(size_t n) { return 5 * n; }

/* Block tree over s[0 .. blockDim.x) (a power of two), in place; the sum lands in s[0]. */
__device__ void ug_block_tree(float *s)
{
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if ((int)threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
}

__global__ void ug_sumsq_grid(const float *x, size_t n, float *partials)
{
    __shared__ float s[UG_GRID_BLOCK];
    size_t T = (size_t)gridDim.x * blockDim.x, g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (size_t i = g; i < n; i += T) acc += x[i] * x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    ug_block_tree(s);
    if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

__global__ void ug_sqrt_of_partials(const float *partials, unsigned count, float *out)
{
    __shared__ float s[UG_FINAL_BLOCK];
    s[threadIdx.x] = threadIdx.x < count ? partials[threadIdx.x] : 0.0f;
    __syncthreads();
    ug_block_tree(s);
    if (threadIdx.x == 0) out[0] = sqrtf(s[0]);
}

static int ug_run_nrm2_grid(const ug_kernel *k, ug_call *c)
{
    const float *d_x = NULL;
    float *d_part = NULL, *d_out = NULL;
    unsigned G = 0;
    if (ug_cuda_enter(k, c)) return 1;
    G = ug_grid_blocks(c->shape.dim[0]);
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), c->shape.dim[0], &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_part, G * sizeof(float)));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    ug_cuda_run(c, d_out, 1, ug_no_prepare, [&] {
        ug_sumsq_grid<<<G, UG_GRID_BLOCK>>>(d_x, c->shape.dim[0], d_part);
        ug_sqrt_of_partials<<<1, UG_FINAL_BLOCK>>>(d_part, G, d_out);
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_part);
    cudaFree(d_out);
    return c->err[0] != 0;
}

static cublasHandle_t g_norm_cublas;

/* cublasSnrm2 (asum false) or cublasSasum, the result written to device memory. */
static int ug_run_cublas_norm(const ug_kernel *k, ug_call *c, bool asum)
{
    const float *d_x = NULL;
    float *d_out = NULL;
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    if (ug_cuda_enter(k, c)) return 1;
    if (c->shape.dim[0] > INT_MAX) {
        ug_cuda_failf(c, "%s: n=%zu: cuBLAS takes an int length", k->name, c->shape.dim[0]);
        return 1;
    }
    if (!g_norm_cublas) {
        cublasHandle_t h = NULL;
        if ((status = cublasCreate(&h)) != CUBLAS_STATUS_SUCCESS) {
            ug_cuda_failf(c, "%s: cublasCreate: %s", k->name, cublasGetStatusString(status));
            return 1;
        }
        if ((status = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE)) != CUBLAS_STATUS_SUCCESS) {
            ug_cuda_failf(c, "%s: cublasSetPointerMode: %s", k->name, cublasGetStatusString(status));
            cublasDestroy(h);
            return 1;
        }
        g_norm_cublas = h;
    }
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), c->shape.dim[0], &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    if (ug_cuda_run(c, d_out, 1, ug_no_prepare, [&] {
            status = asum ? cublasSasum(g_norm_cublas, (int)c->shape.dim[0], d_x, 1, d_out)
                          : cublasSnrm2(g_norm_cublas, (int)c->shape.dim[0], d_x, 1, d_out);
            return status == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
        }) &&
        status != CUBLAS_STATUS_SUCCESS)
        ug_cuda_failf(c, "%s: %s(n=%zu): %s", k->name, asum ? "cublasSasum" : "cublasSnrm2", c->shape.dim[0],
                      cublasGetStatusString(status));
cleanup:
    cudaFree(d_out);
    return c->err[0] != 0;
}

enum { NRM2_NAIVE_GRID, CUBLAS_SNRM2, CUBLAS_SASUM };

int ug_norm_gpu_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case NRM2_NAIVE_GRID: return ug_run_nrm2_grid(k, c);
    case CUBLAS_SNRM2: return ug_run_cublas_norm(k, c, false);
    case CUBLAS_SASUM: return ug_run_cublas_norm(k, c, true);
    }
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

const ug_kernel ug_norm_gpu_kernels[] = {
    {.name = "nrm2_naive_grid", .op = UG_OP_NRM2, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_nrm2_grid, .version = NRM2_NAIVE_GRID,
     .doc = "sqrtf of a grid-wide fp32 sum of x*x (reduce_grid's shape): overflows near 1.8e19"},
    {.name = "cublas_snrm2", .op = UG_OP_NRM2, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_scaled_5n, .version = CUBLAS_SNRM2,
     .doc = "cublasSnrm2; algorithm not documented: the classic scaled form's depth 5n"},
    {.name = "cublas_sasum", .op = UG_OP_ASUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = CUBLAS_SASUM,
     .doc = "cublasSasum; order not documented: depth n-1"},
};

UG_CUDA_END

UG_FAMILY(norm_gpu, ug_norm_gpu_kernels, ug_norm_gpu_run)
