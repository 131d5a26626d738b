/*
 * softmax.cu - CUDA softmax and log-sum-exp kernels, binary32 in and out, one warp per row (the shape of the
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
 */
#include "kernels/cuda/ug_cuda.cuh"

UG_CUDA_BEGIN

#define UG_SM_WARPS 4 /* rows per block of 128 threads */

__device__ float ug_warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ float ug_warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* The two passes of a max-shifted row, in every lane of its warp: m = the row's max (a warp
 * max of each lane's), then s = sum exp(x_j - m) (each lane's strided sum, then a warp sum).
 * The softmax and log-sum-exp warp kernels share it, so both see the same m and s. */
__device__ void ug_shifted_row(const float *xr, size_t n, unsigned lane, float &m, float &s)
{
    m = -INFINITY;
    s = 0.0f;
    for (size_t j = lane; j < n; j += 32) m = fmaxf(m, xr[j]);
    m = ug_warp_max(m);
    for (size_t j = lane; j < n; j += 32) s += expf(xr[j] - m);
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
__device__ void ug_online_row(const float *xr, size_t n, unsigned lane, float &m, float &d)
{
    m = -INFINITY;
    d = 0.0f;
    for (size_t j = lane; j < n; j += 32) {
        float v = xr[j];
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
template <bool online>
__device__ void ug_row_state(const float *xr, size_t n, unsigned lane, float &m, float &s)
{
    if (online) ug_online_row(xr, n, lane, m, s);
    else ug_shifted_row(xr, n, lane, m, s);
}

/* Softmax, one warp a row: y_j = exp(x_j - m) / s. */
template <bool online>
__global__ void ug_softmax_rows_kernel(const float *x, float *y, size_t rows, size_t n)
{
    size_t row = (size_t)blockIdx.x * UG_SM_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return; /* whole warps leave together */
    const float *xr = x + row * n;
    float m, s;
    ug_row_state<online>(xr, n, lane, m, s);
    for (size_t j = lane; j < n; j += 32) y[row * n + j] = expf(xr[j] - m) / s;
}

/* Log-sum-exp, one output a row: the softmax's (m, s), then m + log(s) (s >= 1: the max's term
 * is exp(0) = 1).  An infinite max gives NaN (x - m = inf - inf), as the CPU form
 * logsumexp_shifted_cpu does; the cases draw finite logits. */
template <bool online>
__global__ void ug_logsumexp_rows_kernel(const float *x, float *y, size_t rows, size_t n)
{
    size_t row = (size_t)blockIdx.x * UG_SM_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    float m, s;
    ug_row_state<online>(x + row * n, n, lane, m, s);
    if (lane == 0) y[row] = m + logf(s);
}

enum { SOFTMAX_WARP, SOFTMAX_ONLINE, LSE_WARP, LSE_ONLINE };

int ug_softmax_cuda_run(const ug_kernel *k, ug_call *c)
{
    const float *d_x = NULL;
    float *d_y = NULL;
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

const ug_kernel ug_softmax_cuda_kernels[] = {
    {.name = "softmax_warp_cuda", .op = UG_OP_SOFTMAX, .backend = UG_CUDA,
     .bound = UG_BOUND_SOFTMAX_SHIFTED, .version = SOFTMAX_WARP,
     .doc = "one warp per row: shuffle max, sum exp(x - max), divide (llm.c/PyTorch shape)"},
    {.name = "softmax_online_cuda", .op = UG_OP_SOFTMAX, .backend = UG_CUDA,
     .bound = UG_BOUND_SOFTMAX_ONLINE, .version = SOFTMAX_ONLINE,
     .doc = "one warp per row, online (max, sum) per lane merged by shuffles (Milakov & Gimelshein)"},
    {.name = "logsumexp_warp_cuda", .op = UG_OP_LOGSUMEXP, .backend = UG_CUDA,
     .bound = UG_BOUND_LSE_SHIFTED, .version = LSE_WARP,
     .doc = "log-sum-exp, one warp per row: shuffle max, sum exp(x - max), max + log(sum)"},
    {.name = "logsumexp_online_cuda", .op = UG_OP_LOGSUMEXP, .backend = UG_CUDA,
     .bound = UG_BOUND_LSE_ONLINE, .version = LSE_ONLINE,
     .doc = "log-sum-exp, one warp per row, online (max, sum) per lane merged by shuffles"},
};

UG_CUDA_END

UG_FAMILY(softmax, ug_softmax_cuda_kernels, ug_softmax_cuda_run)
