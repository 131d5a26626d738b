/*
 * softmax.cu - CUDA softmax and log-sum-exp kernels, one warp per row (the shape of the
 * softmax kernels in llm.c, PyTorch's persistent softmax and Triton's tutorial): the row's
 * max and sum are warp-shuffle reductions, so every addition a term passes through is one of
 * at most n - 1 (the classes' gamma_{n-1} holds for this order too).  kernels/bounds_rows.c
 * has the bounds.  expf here is CUDA's (2 ulps, within the classes' 4); the family is built in
 * the default variant only (--use_fast_math's __expf is outside the model).
 *
 *   softmax_warp_cuda    max-shifted, two passes over the row        softmax_shifted
 *   softmax_online_cuda  each lane a running (max, sum) (Milakov & Gimelshein 2018), merged
 *                        across the warp by d = d1 exp(m1 - m) + d2 exp(m2 - m)  softmax_online
 *   logsumexp_warp_cuda  max-shifted: m + log(sum exp(x_j - m)), one output a row; logf is
 *                        CUDA's (1 ulp, within c_l's 4)                             lse_shifted
 *   logsumexp_online_cuda  m + log(d), (m, d) softmax_online_cuda's one-pass state  lse_online
 * In the formats attention feeds them: bfloat16 or binary16 logits widened exactly
 * on load, the same binary32 warp arithmetic, the output stored once in the 16-bit format
 * (__float2bfloat16_rn / __float2half_rn: round to nearest even, subnormals kept) or in binary32
 * (the shape of PyTorch's softmax on a bf16 tensor, with and without dtype=torch.float32):
 *   softmax_warp_bf16_cuda        bf16 in, bf16 out   softmax_shifted + the output's rounding
 *   softmax_warp_bf16f32_cuda     bf16 in, f32 out    softmax_shifted
 *   softmax_warp_f16_cuda         f16 in, f16 out     softmax_shifted + the output's rounding
 *   softmax_warp_f16f32_cuda      f16 in, f32 out     softmax_shifted
 *   logsumexp_warp_bf16_cuda      bf16 in, f32 out    lse_shifted (FlashAttention's LSE is
 *   logsumexp_warp_f16_cuda       f16 in, f32 out     lse_shifted  binary32)
 *   logsumexp_warp_bf16bf16_cuda  bf16 in, bf16 out   lse_shifted + the output's rounding
 *   logsumexp_warp_f16f16_cuda    f16 in, f16 out     lse_shifted + the output's rounding
 *                                 (torch.logsumexp keeps the input's dtype).
 * A binary16 log-sum-exp of binary16 logits is at most 65504 + ln n, and binary16 rounds to inf
 * from 65520 on: logsumexp_warp_f16f16_cuda declares max_n = 2^22 (exact at most 65519.25; the
 * lse_shifted bound on its binary32 value, 0.61 there, keeps that below 65520 too), so its
 * output never overflows where it runs, and a longer row is refused with that reason.
 * bfloat16 and binary32 hold every log-sum-exp of logits of their own format plus ln n.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/fmt_cuda.cuh"
#include "kernels/cuda/ug_cuda.cuh"

UG_CUDA_BEGIN

#define UG_SM_WARPS 4 /* rows per block of 128 threads */

// ---------------------------------------------------------------------------------------------
// loads and stores: a 16-bit logit widened exactly, an output rounded once to its format

__device__ float ug_sm_ld(const float *p, size_t i) { return p[i]; }
__device__ float ug_sm_ld(const __nv_bfloat16 *p, size_t i) { return __bfloat162float(p[i]); }
__device__ float ug_sm_ld(const __half *p, size_t i) { return __half2float(p[i]); }
__device__ void ug_sm_st(float *p, size_t i, float v) { p[i] = v; }
__device__ void ug_sm_st(__nv_bfloat16 *p, size_t i, float v) { p[i] = __float2bfloat16_rn(v); }
__device__ void ug_sm_st(__half *p, size_t i, float v) { p[i] = __float2half_rn(v); }

// ---------------------------------------------------------------------------------------------
// the row's state, binary32 whatever the storage

/* The two passes of a max-shifted row, in every lane of its warp: m = the row's max (a warp
 * max of each lane's), then s = sum exp(x_j - m) (each lane's strided sum, then a warp sum).
 * The softmax and log-sum-exp warp kernels share it, so both see the same m and s. */
template <class In>
__device__ void ug_shifted_row(const In *xr, size_t n, unsigned lane, float &m, float &s)
{
    m = -INFINITY;
    s = 0.0f;
    for (size_t j = lane; j < n; j += 32) m = fmaxf(m, ug_sm_ld(xr, j));
    m = ug_warp_max(m);
    for (size_t j = lane; j < n; j += 32) s += expf(ug_sm_ld(xr, j) - m);
    s = ug_warp_sum(s);
}

/* Merge two online states (m, d); an empty one is (-inf, 0), merged exactly (exp(0) = 1). */
__device__ void ug_online_merge(float &m, float &d, float m2, float d2)
{
    float M = fmaxf(m, m2);
    if (M == -INFINITY) return;
    d = (m == M ? d : d * expf(m - M)) + (m2 == M ? d2 : d2 * expf(m2 - M));
    m = M;
}

/* The row's online state (m, d) in every lane: each lane a running (max, sum), merged across
 * the warp. */
template <class In>
__device__ void ug_online_row(const In *xr, size_t n, unsigned lane, float &m, float &d)
{
    m = -INFINITY;
    d = 0.0f;
    for (size_t j = lane; j < n; j += 32) {
        float v = ug_sm_ld(xr, j);
        if (v > m) {
            d = d * expf(m - v) + 1.0f;
            m = v;
        } else {
            d += expf(v - m);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o), d2 = __shfl_xor_sync(0xffffffffu, d, o);
        ug_online_merge(m, d, m2, d2);
    }
}

/* The row's (m, s) in every lane of its warp: max-shifted (two passes) or online (one). */
template <bool online, class In>
__device__ void ug_row_state(const In *xr, size_t n, unsigned lane, float &m, float &s)
{
    if (online) ug_online_row(xr, n, lane, m, s);
    else ug_shifted_row(xr, n, lane, m, s);
}

// ---------------------------------------------------------------------------------------------
// the kernels: one warp a row, In the logits' storage, Out the output's

/* Softmax, one warp a row: y_j = exp(x_j - m) / s, rounded once more where Out is 16-bit. */
template <bool online, class In, class Out>
__global__ void ug_softmax_rows_kernel(const In *x, Out *y, size_t rows, size_t n)
{
    size_t row = (size_t)blockIdx.x * UG_SM_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return; /* whole warps leave together */
    const In *xr = x + row * n;
    float m, s;
    ug_row_state<online>(xr, n, lane, m, s);
    for (size_t j = lane; j < n; j += 32) ug_sm_st(y, row * n + j, expf(ug_sm_ld(xr, j) - m) / s);
}

/* Log-sum-exp, one output a row: the softmax's (m, s), then m + log(s) (s >= 1: the max's term
 * is exp(0) = 1).  An infinite max gives NaN (x - m = inf - inf), as the CPU form
 * logsumexp_shifted_cpu does; the cases draw finite logits. */
template <bool online, class In, class Out>
__global__ void ug_logsumexp_rows_kernel(const In *x, Out *y, size_t rows, size_t n)
{
    size_t row = (size_t)blockIdx.x * UG_SM_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    float m, s;
    ug_row_state<online>(x + row * n, n, lane, m, s);
    if (lane == 0) ug_sm_st(y, row, m + logf(s));
}

// ---------------------------------------------------------------------------------------------
// the launcher

enum { SOFTMAX_WARP, SOFTMAX_ONLINE, LSE_WARP, LSE_ONLINE, SOFTMAX_16, LSE_16 };

/* One launch of the max-shifted 16-bit-input kernel on the device buffers x (In) and y (Out). */
template <class In, class Out>
static cudaError_t ug_softmax16_launch(bool lse, const void *x, void *y, size_t rows, size_t n)
{
    unsigned blocks = (unsigned)ug_div_up(rows, UG_SM_WARPS);
    if (lse) ug_logsumexp_rows_kernel<false><<<blocks, 32 * UG_SM_WARPS>>>((const In *)x, (Out *)y, rows, n);
    else ug_softmax_rows_kernel<false><<<blocks, 32 * UG_SM_WARPS>>>((const In *)x, (Out *)y, rows, n);
    return cudaGetLastError();
}

/* The 16-bit-input rows: x uploaded as stored (bfloat16 or binary16), y in the row's out_fmt
 * (the input's format or binary32).  ug_kernel_run has checked the call's formats against the
 * row's.  Cost: one upload of 2 count bytes, the output's bytes back. */
static int ug_softmax16_run(const ug_kernel *k, ug_call *c)
{
    void *d_x = NULL, *d_y = NULL;
    size_t n = c->shape.dim[0], count = c->in[0].count, rows = n ? count / n : 0;
    bool lse = k->version == LSE_16, bf16 = k->in_store[0] == UG_BF16, o32 = k->out_fmt == UG_F32;
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_fmt_upload(&d_x, &c->in[0], 0));
    UG_CUDA_TRY(c, cudaMalloc(&d_y, c->out[0].count * ug_fmt_bytes(c->out[0].fmt)));
    ug_fmt_cuda_run(c, d_y, ug_no_prepare, [&] {
        if (bf16 && o32) return ug_softmax16_launch<__nv_bfloat16, float>(lse, d_x, d_y, rows, n);
        if (bf16) return ug_softmax16_launch<__nv_bfloat16, __nv_bfloat16>(lse, d_x, d_y, rows, n);
        if (o32) return ug_softmax16_launch<__half, float>(lse, d_x, d_y, rows, n);
        return ug_softmax16_launch<__half, __half>(lse, d_x, d_y, rows, n);
    });
cleanup:
    cudaFree(d_x);
    cudaFree(d_y);
    return c->err[0] != 0;
}

int ug_softmax_cuda_run(const ug_kernel *k, ug_call *c)
{
    const float *d_x = NULL;
    float *d_y = NULL;
    if (k->version == SOFTMAX_16 || k->version == LSE_16) return ug_softmax16_run(k, c);
    size_t n = c->shape.dim[0], count = c->in[0].count, rows = n ? count / n : 0;
    size_t outs = k->version >= LSE_WARP ? rows : count; /* one value a row, or n */
    unsigned blocks = (unsigned)ug_div_up(rows, UG_SM_WARPS);
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), count, &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_y, outs * sizeof(float)));
    ug_cuda_run(c, d_y, outs, ug_no_prepare, [&] {
        if (k->version == SOFTMAX_WARP)
            ug_softmax_rows_kernel<false><<<blocks, 32 * UG_SM_WARPS>>>(d_x, d_y, rows, n);
        else if (k->version == SOFTMAX_ONLINE)
            ug_softmax_rows_kernel<true><<<blocks, 32 * UG_SM_WARPS>>>(d_x, d_y, rows, n);
        else if (k->version == LSE_WARP)
            ug_logsumexp_rows_kernel<false><<<blocks, 32 * UG_SM_WARPS>>>(d_x, d_y, rows, n);
        else
            ug_logsumexp_rows_kernel<true><<<blocks, 32 * UG_SM_WARPS>>>(d_x, d_y, rows, n);
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_y);
    return c->err[0] != 0;
}

/* Every row here is one warp's: its lanes take the row's columns in a fixed order and shuffle
 * the same tree whatever the number of rows, so each declares batch invariance (asserted by
 * gpu_invariance/batch; equal at batches 1, 3, 64, 1000 on the H200, 2026-11-28). */
const ug_kernel ug_softmax_cuda_kernels[] = {
    {.name = "softmax_warp_cuda", .op = UG_OP_SOFTMAX, .backend = UG_CUDA,
     .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED, .version = SOFTMAX_WARP,
     .doc = "one warp per row: shuffle max, sum exp(x - max), divide (llm.c/PyTorch shape)"},
    {.name = "softmax_online_cuda", .op = UG_OP_SOFTMAX, .backend = UG_CUDA,
     .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_ONLINE, .version = SOFTMAX_ONLINE,
     .doc = "one warp per row, online (max, sum) per lane merged by shuffles (Milakov & Gimelshein)"},
    {.name = "logsumexp_warp_cuda", .op = UG_OP_LOGSUMEXP, .backend = UG_CUDA,
     .batch_invariant = true, .bound = UG_BOUND_LSE_SHIFTED, .version = LSE_WARP,
     .doc = "log-sum-exp, one warp per row: shuffle max, sum exp(x - max), max + log(sum)"},
    {.name = "logsumexp_online_cuda", .op = UG_OP_LOGSUMEXP, .backend = UG_CUDA,
     .batch_invariant = true, .bound = UG_BOUND_LSE_ONLINE, .version = LSE_ONLINE,
     .doc = "log-sum-exp, one warp per row, online (max, sum) per lane merged by shuffles"},
    {.name = "softmax_warp_bf16_cuda", .op = UG_OP_SOFTMAX, .backend = UG_CUDA,
     .out_fmt = UG_BF16, .in_store = {UG_BF16}, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED, .version = SOFTMAX_16,
     .doc = "bf16 logits, one warp per row, max-shifted, fp32 arithmetic, bf16 out (PyTorch softmax on bf16)"},
    {.name = "softmax_warp_bf16f32_cuda", .op = UG_OP_SOFTMAX, .backend = UG_CUDA,
     .in_store = {UG_BF16}, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED, .version = SOFTMAX_16,
     .doc = "bf16 logits, one warp per row, max-shifted, fp32 arithmetic and out"},
    {.name = "softmax_warp_f16_cuda", .op = UG_OP_SOFTMAX, .backend = UG_CUDA,
     .out_fmt = UG_F16, .in_store = {UG_F16}, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED, .version = SOFTMAX_16,
     .doc = "fp16 logits, one warp per row, max-shifted, fp32 arithmetic, fp16 out"},
    {.name = "softmax_warp_f16f32_cuda", .op = UG_OP_SOFTMAX, .backend = UG_CUDA,
     .in_store = {UG_F16}, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED, .version = SOFTMAX_16,
     .doc = "fp16 logits, one warp per row, max-shifted, fp32 arithmetic and out"},
    {.name = "logsumexp_warp_bf16_cuda", .op = UG_OP_LOGSUMEXP, .backend = UG_CUDA,
     .in_store = {UG_BF16}, .batch_invariant = true, .bound = UG_BOUND_LSE_SHIFTED, .version = LSE_16,
     .doc = "log-sum-exp of bf16 logits, one warp per row, fp32 arithmetic and out (FlashAttention's LSE)"},
    {.name = "logsumexp_warp_f16_cuda", .op = UG_OP_LOGSUMEXP, .backend = UG_CUDA,
     .in_store = {UG_F16}, .batch_invariant = true, .bound = UG_BOUND_LSE_SHIFTED, .version = LSE_16,
     .doc = "log-sum-exp of fp16 logits, one warp per row, fp32 arithmetic and out"},
    {.name = "logsumexp_warp_bf16bf16_cuda", .op = UG_OP_LOGSUMEXP, .backend = UG_CUDA,
     .out_fmt = UG_BF16, .in_store = {UG_BF16}, .batch_invariant = true, .bound = UG_BOUND_LSE_SHIFTED, .version = LSE_16,
     .doc = "log-sum-exp of bf16 logits, fp32 arithmetic, bf16 out (torch.logsumexp on bf16)"},
    {.name = "logsumexp_warp_f16f16_cuda", .op = UG_OP_LOGSUMEXP, .backend = UG_CUDA,
     .out_fmt = UG_F16, .in_store = {UG_F16}, .batch_invariant = true, .bound = UG_BOUND_LSE_SHIFTED, .version = LSE_16,
     .max_n = (size_t)1 << 22,
     .doc = "log-sum-exp of fp16 logits, fp32 arithmetic, fp16 out; n <= 2^22 keeps 65504 + ln n "
            "below fp16's overflow (65520)"},
};

UG_CUDA_END

UG_FAMILY(softmax, ug_softmax_cuda_kernels, ug_softmax_cuda_run)
