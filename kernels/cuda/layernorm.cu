/*
 * layernorm.cu - CUDA RMSNorm and LayerNorm kernels, binary32 in, binary32 accumulation
 * (kernels/bounds_rows.c has the bounds; every sum's order has depth <= n - 1, as the classes
 * assume).  eps = 1e-5 (oracle/rows/transcend.h's UG_NORM_EPS).  Built in the default variant
 * only: --use_fast_math's approximate division and sqrt are outside the classes' model.
 *
 *   rmsnorm_block_cuda            one block of 256 threads per row, block reduction of x^2
 *                                                                               rmsnorm
 *   layernorm_block_cuda          one block per row, two passes (mean, then (x - mean)^2)
 *                                                                               layernorm_twopass
 *   rmsnorm_warp_bf16out_cuda     one warp per row, binary32 accumulation, output rounded to
 *                                 bfloat16 (the shape of Apex's and PyTorch's fused kernels for
 *                                 bf16 activations)                             rmsnorm + bf16 out
 *   layernorm_warp_bf16out_cuda   the same for LayerNorm, two passes (Apex merges per-lane
 *                                 Welford states instead: no bound derived for that here)
 *                                                                               layernorm_twopass + bf16 out
 *   rmsnorm_warp_bf16_cuda        bfloat16 x and w, one warp per row, binary32 accumulation,
 *   layernorm_warp_bf16_cuda      bfloat16 out (the Apex/PyTorch layer for bf16 activations;
 *                                 LayerNorm in two passes)    rmsnorm / layernorm_twopass + bf16 out
 *   rmsnorm_split_cuda            the sum of squares of a row split over 4 blocks below 64
 *                                 rows, 1 from 64 (a small batch given more blocks a row, as
 *                                 libraries do), the parts added in order by a second kernel:
 *                                 another summation order in another batch, so not
 *                                 batch-invariant (cases/gpu/gpu_invariance.c expects it)
 *                                                                               rmsnorm
 * The bf16-out rows take binary32 inputs and declare .out_fmt = UG_BF16; the bf16 rows take
 * bfloat16 data (the weights and biases of ops/norm_params.h are exact in bfloat16), widened
 * exactly.  The parameters p: RMSNorm's weight w (n); LayerNorm's [w | b] (2n,
 * ops/layernorm.c), the output ((x - mean) r) w + b (nvcc may fuse the last product and the
 * bias into one FMA: one rounding fewer, inside the class's model).
 */
#include <cuda_bf16.h>

#include "kernels/cuda/fmt_cuda.cuh"
#include "kernels/cuda/ug_cuda.cuh"

UG_CUDA_BEGIN

#define UG_LN_BLOCK 256
#define UG_LN_WARPS 4 /* rows per block of the warp kernels */

__device__ float ug_ln_warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Sum of v over the block (every thread gets it): warp sums, then the first warp. */
__device__ float ug_ln_block_sum(float v, float *shared)
{
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = ug_ln_warp_sum(v);
    __syncthreads(); /* shared reused between calls */
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = threadIdx.x < UG_LN_BLOCK / 32 ? shared[threadIdx.x] : 0.0f;
    if (warp == 0) v = ug_ln_warp_sum(v);
    if (threadIdx.x == 0) shared[0] = v;
    __syncthreads();
    return shared[0];
}

__device__ void ug_store(unsigned short *y, size_t i, float v)
{
    y[i] = __bfloat16_as_ushort(__float2bfloat16_rn(v));
}

/* layer: LayerNorm (p = [w | b]) or RMSNorm (no mean, no bias; p = w). */
template <bool layer>
__global__ void ug_norm_block_kernel(const float *x, const float *p, float *y, size_t n)
{
    __shared__ float shared[UG_LN_BLOCK / 32];
    const float *xr = x + blockIdx.x * n;
    float *yr = y + blockIdx.x * n;
    float s = 0.0f, mean = 0.0f, q = 0.0f;
    if (layer) {
        for (size_t j = threadIdx.x; j < n; j += UG_LN_BLOCK) s += xr[j];
        mean = ug_ln_block_sum(s, shared) / (float)n;
    }
    for (size_t j = threadIdx.x; j < n; j += UG_LN_BLOCK) {
        float d = xr[j] - mean;
        q += d * d;
    }
    float r = 1.0f / sqrtf(ug_ln_block_sum(q, shared) / (float)n + 1e-5f);
    for (size_t j = threadIdx.x; j < n; j += UG_LN_BLOCK) {
        float v = ((xr[j] - mean) * r) * p[j];
        yr[j] = layer ? v + p[n + j] : v;
    }
}

/* rmsnorm_split_cuda, pass 1: block b sums the squares of slice b % parts of row b / parts. */
__global__ void ug_rms_split_part_kernel(const float *x, float *part, size_t n, unsigned parts)
{
    __shared__ float shared[UG_LN_BLOCK / 32];
    size_t row = blockIdx.x / parts, p = blockIdx.x % parts, len = (n + parts - 1) / parts;
    size_t j0 = p * len, j1 = j0 + len < n ? j0 + len : n;
    const float *xr = x + row * n;
    float q = 0.0f;
    for (size_t j = j0 + threadIdx.x; j < j1; j += UG_LN_BLOCK) q += xr[j] * xr[j];
    q = ug_ln_block_sum(q, shared);
    if (threadIdx.x == 0) part[blockIdx.x] = q;
}

/* Pass 2: one block a row, the parts added in order, then y = (x r) w. */
__global__ void ug_rms_split_out_kernel(const float *x, const float *w, const float *part,
                                        float *y, size_t n, unsigned parts)
{
    const float *xr = x + blockIdx.x * n;
    float *yr = y + blockIdx.x * n;
    float q = 0.0f;
    for (unsigned p = 0; p < parts; p++) q += part[(size_t)blockIdx.x * parts + p];
    float r = 1.0f / sqrtf(q / (float)n + 1e-5f);
    for (size_t j = threadIdx.x; j < n; j += UG_LN_BLOCK) yr[j] = (xr[j] * r) * w[j];
}

/* An input value widened to binary32 (exact for bfloat16). */
__device__ float ug_ld(const float *p, size_t i) { return p[i]; }
__device__ float ug_ld(const __nv_bfloat16 *p, size_t i) { return __bfloat162float(p[i]); }

template <bool layer, class In, class Out>
__global__ void ug_norm_warp_kernel(const In *x, const In *p, Out *y, size_t rows, size_t n)
{
    size_t row = (size_t)blockIdx.x * UG_LN_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    const In *xr = x + row * n;
    float s = 0.0f, mean = 0.0f, q = 0.0f;
    if (layer) {
        for (size_t j = lane; j < n; j += 32) s += ug_ld(xr, j);
        mean = ug_ln_warp_sum(s) / (float)n;
    }
    for (size_t j = lane; j < n; j += 32) {
        float d = ug_ld(xr, j) - mean;
        q += d * d;
    }
    float r = 1.0f / sqrtf(ug_ln_warp_sum(q) / (float)n + 1e-5f);
    for (size_t j = lane; j < n; j += 32) {
        float v = ((ug_ld(xr, j) - mean) * r) * ug_ld(p, j);
        ug_store(y, row * n + j, layer ? v + ug_ld(p, n + j) : v);
    }
}

enum { RMS_BLOCK, LN_BLOCK, RMS_WARP_BF16, LN_WARP_BF16, RMS_BF16, LN_BF16, RMS_SPLIT };

/* The bfloat16-in rows: x and the parameters (w, or [w | b]) uploaded as stored, y in
 * bfloat16. */
static int ug_norm_bf16_run(const ug_kernel *k, ug_call *c)
{
    void *d_x = NULL, *d_p = NULL, *d_y = NULL;
    size_t n = c->shape.dim[0], count = c->in[0].count, rows = n ? count / n : 0;
    size_t bytes = count * sizeof(__nv_bfloat16);
    unsigned wblocks = (unsigned)ug_div_up(rows, UG_LN_WARPS);
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_fmt_upload(&d_x, &c->in[0], 0));
    UG_CUDA_TRY(c, ug_fmt_upload(&d_p, &c->in[1], 0));
    UG_CUDA_TRY(c, cudaMalloc(&d_y, bytes));
    ug_cuda_run_bytes(c, d_y, bytes, ug_no_prepare, [&] {
        const __nv_bfloat16 *x = (const __nv_bfloat16 *)d_x, *p = (const __nv_bfloat16 *)d_p;
        unsigned short *y = (unsigned short *)d_y;
        if (k->version == RMS_BF16)
            ug_norm_warp_kernel<false><<<wblocks, 32 * UG_LN_WARPS>>>(x, p, y, rows, n);
        else
            ug_norm_warp_kernel<true><<<wblocks, 32 * UG_LN_WARPS>>>(x, p, y, rows, n);
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_x);
    cudaFree(d_p);
    cudaFree(d_y);
    return c->err[0] != 0;
}

int ug_layernorm_cuda_run(const ug_kernel *k, ug_call *c)
{
    const float *d_x = NULL, *d_p = NULL;
    void *d_y = NULL;
    float *d_part = NULL;
    size_t n = c->shape.dim[0], count = c->in[0].count, rows = n ? count / n : 0;
    unsigned parts = rows < 64 ? 4 : 1; /* rmsnorm_split_cuda: more blocks a row, small batch */
    bool bf16 = k->version == RMS_WARP_BF16 || k->version == LN_WARP_BF16;
    size_t bytes = count * (bf16 ? sizeof(unsigned short) : sizeof(float));
    unsigned wblocks = (unsigned)ug_div_up(rows, UG_LN_WARPS);
    if (k->version == RMS_BF16 || k->version == LN_BF16) return ug_norm_bf16_run(k, c);
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), count, &d_x));
    UG_CUDA_TRY(c, ug_cuda_input(c, 1, ug_in_f32(c, 1), c->in[1].count, &d_p));
    UG_CUDA_TRY(c, cudaMalloc(&d_y, bytes));
    if (k->version == RMS_SPLIT) UG_CUDA_TRY(c, cudaMalloc(&d_part, (rows ? rows : 1) * parts * sizeof(float)));
    ug_cuda_run_bytes(c, d_y, bytes, ug_no_prepare, [&] {
        float *yf = (float *)d_y;
        unsigned short *yb = (unsigned short *)d_y;
        switch (k->version) {
        case RMS_BLOCK: ug_norm_block_kernel<false><<<(unsigned)rows, UG_LN_BLOCK>>>(d_x, d_p, yf, n); break;
        case LN_BLOCK: ug_norm_block_kernel<true><<<(unsigned)rows, UG_LN_BLOCK>>>(d_x, d_p, yf, n); break;
        case RMS_SPLIT:
            ug_rms_split_part_kernel<<<(unsigned)(rows * parts), UG_LN_BLOCK>>>(d_x, d_part, n, parts);
            ug_rms_split_out_kernel<<<(unsigned)rows, UG_LN_BLOCK>>>(d_x, d_p, d_part, yf, n, parts);
            break;
        case RMS_WARP_BF16:
            ug_norm_warp_kernel<false><<<wblocks, 32 * UG_LN_WARPS>>>(d_x, d_p, yb, rows, n);
            break;
        default: ug_norm_warp_kernel<true><<<wblocks, 32 * UG_LN_WARPS>>>(d_x, d_p, yb, rows, n); break;
        }
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_y);
    cudaFree(d_part);
    return c->err[0] != 0;
}

// Batch-invariant: one block (or one warp) a row, the same reduction tree whatever the number
// of rows (the grid grows, a row's arithmetic does not).
const ug_kernel ug_layernorm_cuda_kernels[] = {
    {.name = "rmsnorm_block_cuda", .op = UG_OP_RMSNORM, .backend = UG_CUDA, .batch_invariant = true, .bound = UG_BOUND_RMSNORM,
     .version = RMS_BLOCK, .doc = "RMSNorm, one block of 256 threads per row, fp32 accumulation"},
    {.name = "layernorm_block_cuda", .op = UG_OP_LAYERNORM, .backend = UG_CUDA,
     .batch_invariant = true, .bound = UG_BOUND_LAYERNORM_TWOPASS, .version = LN_BLOCK,
     .doc = "LayerNorm, one block per row, two passes, fp32 accumulation"},
    {.name = "rmsnorm_warp_bf16out_cuda", .op = UG_OP_RMSNORM, .backend = UG_CUDA, .out_fmt = UG_BF16,
     .batch_invariant = true, .bound = UG_BOUND_RMSNORM, .version = RMS_WARP_BF16,
     .doc = "RMSNorm, one warp per row, fp32 accumulation, bf16 output (Apex/PyTorch shape)"},
    {.name = "layernorm_warp_bf16out_cuda", .op = UG_OP_LAYERNORM, .backend = UG_CUDA,
     .out_fmt = UG_BF16, .batch_invariant = true, .bound = UG_BOUND_LAYERNORM_TWOPASS, .version = LN_WARP_BF16,
     .doc = "LayerNorm, one warp per row, two passes, fp32 accumulation, bf16 output"},
    {.name = "rmsnorm_warp_bf16_cuda", .op = UG_OP_RMSNORM, .backend = UG_CUDA,
     .out_fmt = UG_BF16, .in_store = {UG_BF16, UG_BF16}, .batch_invariant = true, .bound = UG_BOUND_RMSNORM, .version = RMS_BF16,
     .doc = "RMSNorm, bf16 x and w, one warp per row, fp32 accumulation, bf16 out (Apex/PyTorch)"},
    {.name = "layernorm_warp_bf16_cuda", .op = UG_OP_LAYERNORM, .backend = UG_CUDA,
     .out_fmt = UG_BF16, .in_store = {UG_BF16, UG_BF16}, .batch_invariant = true, .bound = UG_BOUND_LAYERNORM_TWOPASS,
     .version = LN_BF16, .doc = "LayerNorm, bf16 x, w and b, one warp per row, two passes, fp32 accumulation, bf16 out"},
    {.name = "rmsnorm_split_cuda", .op = UG_OP_RMSNORM, .backend = UG_CUDA, .bound = UG_BOUND_RMSNORM,
     .version = RMS_SPLIT, .doc = "RMSNorm, a row's sum of squares over 4 blocks below 64 rows, 1 from 64: not batch-invariant"},
};

UG_CUDA_END

UG_FAMILY(layernorm, ug_layernorm_cuda_kernels, ug_layernorm_cuda_run)
