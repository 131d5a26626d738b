/*
 * reduce_half.cu - reductions of 16-bit data on the GPU: bfloat16 and binary16
 * inputs with a binary32 accumulator, the packed-half accumulation that keeps the sum in
 * binary16, and the bf16-in/bf16-out row sum of normalisation layers.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -std=c++20 -c reduce_half.cu
 *
 * Every 16-bit value converts exactly to binary32 (__bfloat162float, __half2float), and a
 * product of two of them is exact in binary32 unless it underflows.
 *
 *   reduce_bf16_f32acc_shuffle  reduce_grid.cu's fixed shape (G = min(ceil(n/256), 1024)
 *   reduce_f16_f32acc_shuffle   blocks of 256, serial binary32 slices per thread) with the
 *   dot_bf16_f32acc_shuffle     seven-methods post's warp-shuffle block reduce and a second
 *   dot_f16_f32acc_shuffle      pass over the partials; binary32 out.  tree class, D = (m-1) +
 *                               8 + ceil(log2 G) (fmt_cuda.cuh); a dot's a += x*y is one FMA
 *                               in the default build (exact product, one rounding).
 *   reduce_f16_hadd2            binary16 in, accumulator and out: each thread adds element
 *                               pairs (x[2j], x[2j+1]) as __half2 with __hadd2 over a
 *                               grid-stride of pairs, combines its two lanes with __hadd, then a
 *                               binary16 warp-shuffle block tree and a second pass.  f16_acc
 *                               class, D = (m2-1) + 1 + 8 + ceil(log2 G) over the P = ceil(n/2)
 *                               pairs (m2 pairs a thread, G = ug_grid_blocks(P)), capped at n-1.
 *                               Vacuous from D = 2048 on; a partial sum past 65504 overflows.
 *   rowsum_bf16                 one block of 256 threads for the row (as LayerNorm/RMSNorm
 *                               kernels reduce a row): binary32 serial per thread over
 *                               x[t], x[t+256], ..., an xor-butterfly warp reduce (llm.c's
 *                               warpReduceSum), the 8 warp sums through shared memory and a
 *                               butterfly again, rounded once to bfloat16 (__float2bfloat16_rn).
 *                               bf16_out class, D = (m-1) + 5 + 3 with m = ceil(n/256), capped
 *                               at n-1.
 */
#include "kernels/cuda/fmt_cuda.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/shuffle_reduce.cuh"

UG_CUDA_BEGIN

// ----------------------------------------------------------------------------
// binary32 accumulation of 16-bit data

__device__ __forceinline__ float ug_widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float ug_widen(__half v) { return __half2float(v); }

template <class T, bool DOT>
__global__ void __launch_bounds__(UG_GRID_BLOCK)
ug_half_partials_kernel(const T *__restrict__ x, const T *__restrict__ y, size_t n, float *partials)
{
    const size_t T_ = (size_t)gridDim.x * blockDim.x;
    float a = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T_)
        a += DOT ? ug_widen(x[i]) * ug_widen(y[i]) : ug_widen(x[i]);
    float sum = shuffle_block_reduce_sum(a);
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

// the partials, zero-padded to 1024, through the same block reduce
__global__ void __launch_bounds__(UG_FINAL_BLOCK)
ug_half_final_kernel(const float *partials, unsigned G, float *out)
{
    float sum = shuffle_block_reduce_sum(threadIdx.x < G ? partials[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) *out = sum;
}

// ----------------------------------------------------------------------------
// binary16 accumulation: __hadd2 on packed pairs

__device__ __forceinline__ __half ug_warp_sum_half(__half v)
{
    for (int i = 1; i < 32; i <<= 1) v = __hadd(v, __shfl_down_sync(0xffffffffu, v, i));
    return v;
}

/* shuffle_block_reduce_sum in binary16: warp trees, the warp sums through shared memory, warp
 * 0's tree over them (zeros beyond blockDim/32): log2(blockDim) additions. */
__device__ __forceinline__ __half ug_block_sum_half(__half v)
{
    __shared__ __half shared[32];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    v = ug_warp_sum_half(v);
    if (lane == 0) shared[wid] = v;
    __syncthreads();
    if (threadIdx.x < 32)
        v = ug_warp_sum_half(threadIdx.x < (blockDim.x >> 5) ? shared[lane] : __float2half(0.0f));
    return v;
}

// P pairs (the buffer holds 2P halves, the last one zero when n is odd)
__global__ void __launch_bounds__(UG_GRID_BLOCK)
ug_hadd2_partials_kernel(const __half2 *__restrict__ x2, size_t P, __half *partials)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    __half2 a = __float2half2_rn(0.0f);
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < P; j += T)
        a = __hadd2(a, x2[j]);
    __half sum = ug_block_sum_half(__hadd(__low2half(a), __high2half(a)));
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void __launch_bounds__(UG_FINAL_BLOCK)
ug_hadd2_final_kernel(const __half *partials, unsigned G, __half *out)
{
    __half sum = ug_block_sum_half(threadIdx.x < G ? partials[threadIdx.x] : __float2half(0.0f));
    if (threadIdx.x == 0) *out = sum;
}

// ----------------------------------------------------------------------------
// the row sum of normalisation layers: bf16 in, binary32 accumulation, bf16 out

#define UG_ROW_BLOCK 256

__device__ __forceinline__ float ug_warp_butterfly(float v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__global__ void __launch_bounds__(UG_ROW_BLOCK)
ug_rowsum_bf16_kernel(const __nv_bfloat16 *__restrict__ row, size_t n, __nv_bfloat16 *out)
{
    __shared__ float warp_sums[UG_ROW_BLOCK / 32];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    float a = 0.0f;
    for (size_t i = threadIdx.x; i < n; i += UG_ROW_BLOCK) a += __bfloat162float(row[i]);
    a = ug_warp_butterfly(a);
    if (lane == 0) warp_sums[wid] = a;
    __syncthreads();
    if (wid == 0) {
        a = ug_warp_butterfly(lane < UG_ROW_BLOCK / 32 ? warp_sums[lane] : 0.0f);
        if (lane == 0) *out = __float2bfloat16_rn(a); // the one rounding to bfloat16
    }
}

// ----------------------------------------------------------------------------
// depth functions (host)

static size_t ug_depth_hadd2(size_t n)
{
    if (n <= 1) return 0;
    size_t P = ug_div_up(n, 2), G = ug_grid_blocks(P), m2 = ug_div_up(P, G * UG_GRID_BLOCK);
    size_t d = (m2 - 1) + 1 + UG_GRID_BLOCK_LOG2 + ug_fmt_ceil_log2(G);
    return d < n - 1 ? d : n - 1;
}

/* m - 1 serial additions, 5 butterfly levels in a warp, 3 over the 8 warp sums (the
 * butterfly's levels 16 and 8 add exact zeros there). */
static size_t ug_depth_rowsum(size_t n)
{
    if (n <= 1) return 0;
    size_t d = (ug_div_up(n, UG_ROW_BLOCK) - 1) + 5 + 3;
    return d < n - 1 ? d : n - 1;
}

// ----------------------------------------------------------------------------
// launchers

template <class T, bool DOT>
static int ug_run_half_f32acc(const ug_kernel *k, ug_call *c)
{
    size_t n = c->shape.dim[0];
    return ug_fmt_grid_run<float>(k, c, DOT, n, 0, [&](void *d_x, void *d_y, float *d_part, unsigned G,
                                                        float *d_out) {
        ug_half_partials_kernel<T, DOT><<<G, UG_GRID_BLOCK>>>((const T *)d_x, (const T *)d_y, n,
                                                              d_part);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        ug_half_final_kernel<<<1, UG_FINAL_BLOCK>>>(d_part, G, d_out);
        return cudaGetLastError();
    });
}

/* Pairs of binary16 (the odd tail padded with a zero half): the packed __hadd2 passes. */
static int ug_run_hadd2(const ug_kernel *k, ug_call *c)
{
    size_t P = ug_div_up(c->shape.dim[0], 2);
    return ug_fmt_grid_run<__half>(k, c, false, P, c->shape.dim[0] % 2 ? sizeof(__half) : 0,
                                   [&](void *d_x, void *, __half *d_part, unsigned G, __half *d_out) {
        ug_hadd2_partials_kernel<<<G, UG_GRID_BLOCK>>>((const __half2 *)d_x, P, d_part);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        ug_hadd2_final_kernel<<<1, UG_FINAL_BLOCK>>>(d_part, G, d_out);
        return cudaGetLastError();
    });
}

static int ug_run_rowsum_bf16(const ug_kernel *k, ug_call *c)
{
    void *d_x = NULL;
    __nv_bfloat16 *d_out = NULL;
    size_t n = c->shape.dim[0];
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_fmt_upload(&d_x, &c->in[0], 0));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(__nv_bfloat16)));
    ug_fmt_cuda_run(c, d_out, ug_no_prepare, [&] {
        ug_rowsum_bf16_kernel<<<1, UG_ROW_BLOCK>>>((const __nv_bfloat16 *)d_x, n, d_out);
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_x);
    cudaFree(d_out);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// the launcher and the registry rows

enum { REDUCE_BF16_F32ACC, REDUCE_F16_F32ACC, DOT_BF16_F32ACC, DOT_F16_F32ACC, REDUCE_F16_HADD2,
       ROWSUM_BF16 };

int ug_reduce_half_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case REDUCE_BF16_F32ACC: return ug_run_half_f32acc<__nv_bfloat16, false>(k, c);
    case REDUCE_F16_F32ACC: return ug_run_half_f32acc<__half, false>(k, c);
    case DOT_BF16_F32ACC: return ug_run_half_f32acc<__nv_bfloat16, true>(k, c);
    case DOT_F16_F32ACC: return ug_run_half_f32acc<__half, true>(k, c);
    case REDUCE_F16_HADD2: return ug_run_hadd2(k, c);
    case ROWSUM_BF16: return ug_run_rowsum_bf16(k, c);
    }
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

const ug_kernel ug_reduce_half_kernels[] = {
    {.name = "reduce_bf16_f32acc_shuffle", .op = UG_OP_SUM, .backend = UG_CUDA,
     .in_store = {UG_BF16}, .bound = UG_BOUND_TREE, .depth = ug_fmt_depth_grid,
     .version = REDUCE_BF16_F32ACC,
     .doc = "bfloat16 in: binary32 slices, warp-shuffle block reduce, second pass; binary32 out"},
    {.name = "reduce_f16_f32acc_shuffle", .op = UG_OP_SUM, .backend = UG_CUDA,
     .in_store = {UG_F16}, .bound = UG_BOUND_TREE, .depth = ug_fmt_depth_grid,
     .version = REDUCE_F16_F32ACC,
     .doc = "binary16 in: binary32 slices, warp-shuffle block reduce, second pass; binary32 out"},
    {.name = "dot_bf16_f32acc_shuffle", .op = UG_OP_DOT, .backend = UG_CUDA,
     .in_store = {UG_BF16, UG_BF16}, .bound = UG_BOUND_TREE, .depth = ug_fmt_depth_grid,
     .version = DOT_BF16_F32ACC,
     .doc = "bfloat16 dot: exact binary32 products, binary32 slices and shuffle trees"},
    {.name = "dot_f16_f32acc_shuffle", .op = UG_OP_DOT, .backend = UG_CUDA,
     .in_store = {UG_F16, UG_F16}, .bound = UG_BOUND_TREE, .depth = ug_fmt_depth_grid,
     .version = DOT_F16_F32ACC,
     .doc = "binary16 dot: exact binary32 products, binary32 slices and shuffle trees"},
    {.name = "reduce_f16_hadd2", .op = UG_OP_SUM, .backend = UG_CUDA, .op_fmt = UG_F16,
     .acc_fmt = UG_F16, .out_fmt = UG_F16, .in_store = {UG_F16}, .bound = UG_BOUND_F16_ACC,
     .depth = ug_depth_hadd2, .version = REDUCE_F16_HADD2,
     .doc = "binary16 packed pairs summed with __hadd2, binary16 trees: the sum stays binary16"},
    {.name = "rowsum_bf16", .op = UG_OP_SUM, .backend = UG_CUDA, .out_fmt = UG_BF16,
     .in_store = {UG_BF16}, .bound = UG_BOUND_BF16_OUT, .depth = ug_depth_rowsum,
     .version = ROWSUM_BF16,
     .doc = "normalisation-layer row sum: bf16 in, one block, binary32 butterflies, bf16 out once"},
};

UG_CUDA_END

UG_FAMILY(reduce_half, ug_reduce_half_kernels, ug_reduce_half_run)
