/*
 * fa2_launch.cu - FlashAttention-2's own forward kernel (Dao-AILab/flash-attention,
 * csrc/flash_attn/src) called without PyTorch: a Flash_fwd_params filled as flash_api.cpp's
 * mha_fwd and set_params_fprop fill it, then run_mha_fwd_<bfloat16, 64 | 128, causal>, the
 * explicit instantiations of flash_fwd_hdim{64,128}_bf16{,_causal}_sm80.cu compiled beside this
 * file from the tree given to -Dflash_attn_src (meson.build here).  fa2_plugin.c declares the
 * ulpgate row; this file is its launcher (ug_fa2_run).
 *
 * What is FA2's and what is ours.  The kernels, their tiles (hdim 64: 128 x 128 blocks, hdim 128:
 * 128 x 64 on sm_80/sm_90, 4 warps), the online softmax (exp2 of the raw score times
 * scale log2 e, minus the scaled max), the bf16 P before P V, the 1/l scaling and the bf16 O
 * are FA2's, untouched.  Ours: the parameters (below, each set as mha_fwd sets it), the device
 * copies, the timing, and the errors (the c10 shim's exception caught here: nothing escapes into
 * C).  The path is mha_fwd's num_splits = 1 path (run_mha_fwd_, not the split-KV kernel its
 * heuristic picks when batch x heads x ceil(L / 64) blocks leave SMs idle, e.g. decode shapes):
 * the split-KV instantiations are not built.
 *
 * Layout: ulpgate's attention buffers are (batch, heads, L, d) for Q and O, (batch, kv_heads,
 * S, d) for K and V, (batch, heads, L) for lse: FA2's strides describe them with no copy (its
 * own tensors are (batch, L, heads, d); the strides are per axis, so any order is one call).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exception>

/* FA2's headers and the shim: outside this tree, on the include path (meson.build) */
#include <c10/cuda/CUDAException.h> /* the shim: fa2_shim::cuda_error */
#include <cutlass/numeric_types.h>
#include <flash.h>
#include <namespace_config.h>

#include "examples/flash_attn2_plugin/fa2_launch.h"

using bf16 = cutlass::bfloat16_t;

// ---------------------------------------------------------------------------------------------
// the parameters, as flash_api.cpp's mha_fwd and set_params_fprop set them

static int round_multiple(int x, int m) { return (x + m - 1) / m * m; }

/* Flash_fwd_params for one call on device buffers q k v o lse (bf16, bf16, bf16, bf16, float).
 * mha_fwd's choices for what ulpgate's call can ask: no dropout (p_dropout 0: p_dropout = 1 the
 * keep probability), no softcap, no alibi, no local window; causal is window_size_right = 0 with
 * window_size_left = seqlen_k (set_params_fprop's rewrite of -1), and, as mha_fwd does, a causal
 * call of one query row is run as non-causal (bottom-right aligned, row 0 sees every key). */
static void fa2_params(FLASH_NAMESPACE::Flash_fwd_params &p, const ug_fa2_problem *pb, void *q,
                       void *k, void *v, void *o, float *lse, bool *causal)
{
    const int64_t L = (int64_t)pb->L, S = (int64_t)pb->S, d = (int64_t)pb->d;
    p = {};
    p.is_bf16 = true;
    p.q_ptr = q;
    p.k_ptr = k;
    p.v_ptr = v;
    p.o_ptr = o;
    p.q_row_stride = d;
    p.q_head_stride = L * d;
    p.q_batch_stride = (int64_t)pb->heads * L * d;
    p.k_row_stride = p.v_row_stride = d;
    p.k_head_stride = p.v_head_stride = S * d;
    p.k_batch_stride = p.v_batch_stride = (int64_t)pb->kv_heads * S * d;
    p.o_row_stride = d;
    p.o_head_stride = L * d;
    p.o_batch_stride = (int64_t)pb->heads * L * d;
    p.cu_seqlens_q = p.cu_seqlens_k = p.seqused_k = p.leftpad_k = nullptr;
    p.p_ptr = nullptr; /* no softmax returned: ReturnSoftmaxConst false */
    p.softmax_lse_ptr = lse;
    p.b = (int)pb->batch;
    p.h = (int)pb->heads;
    p.h_k = (int)pb->kv_heads;
    p.h_h_k_ratio = p.h / p.h_k;
    p.seqlen_q = (int)L;
    p.seqlen_k = (int)S;
    p.seqlen_q_rounded = round_multiple((int)L, 128);
    p.seqlen_k_rounded = round_multiple((int)S, 128);
    p.d = (int)d;
    p.d_rounded = round_multiple((int)d, 32);
    /* softmax_scale is a float in mha_fwd; scale_softmax_log2 its product with M_LOG2E in
     * double, rounded to float: the same two roundings here */
    float scale = pb->scale;
    p.softcap = 0.0f;
    p.scale_softmax = scale;
    p.scale_softmax_log2 = (float)(scale * M_LOG2E);
    p.p_dropout = 1.f - 0.f;
    p.p_dropout_in_uint8_t = (uint8_t)floor(p.p_dropout * 255.0);
    p.rp_dropout = 1.f / p.p_dropout;
    p.scale_softmax_rp_dropout = p.rp_dropout * p.scale_softmax;
    bool is_causal = pb->causal && L != 1;
    int wl = -1, wr = is_causal ? 0 : -1;
    p.is_causal = wl < 0 && wr == 0;
    if (wl < 0 && wr >= 0) wl = (int)S;
    p.window_size_left = wl;
    p.window_size_right = wr;
    p.is_seqlens_k_cumulative = true;
    p.num_splits = 1;
    p.alibi_slopes_ptr = nullptr;
    p.unpadded_lse = false;
    p.seqlenq_ngroups_swapped = false;
    *causal = is_causal;
}

/* The instantiation of FA2 for (d, causal): defined in flash_fwd_hdim*_bf16*_sm80.cu. */
static void fa2_dispatch(FLASH_NAMESPACE::Flash_fwd_params &p, bool causal, cudaStream_t st)
{
    if (p.d == 64) {
        if (causal) FLASH_NAMESPACE::run_mha_fwd_<bf16, 64, true>(p, st);
        else FLASH_NAMESPACE::run_mha_fwd_<bf16, 64, false>(p, st);
    } else {
        if (causal) FLASH_NAMESPACE::run_mha_fwd_<bf16, 128, true>(p, st);
        else FLASH_NAMESPACE::run_mha_fwd_<bf16, 128, false>(p, st);
    }
}

// ---------------------------------------------------------------------------------------------
// the call

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* One launch of FA2 (timed into *ms when ms is not NULL), its errors as a cudaError_t; an
 * exception of the shim (C10_CUDA_CHECK inside FA2's launch code) becomes its code and message. */
static cudaError_t fa2_launch(FLASH_NAMESPACE::Flash_fwd_params &p, bool causal, float *ms,
                              char *err, size_t errlen)
{
    cudaEvent_t e0 = 0, e1 = 0;
    cudaError_t rc = cudaSuccess;
    try {
        if (ms) {
            rc = cudaEventCreate(&e0);
            if (rc == cudaSuccess) rc = cudaEventCreate(&e1);
            if (rc == cudaSuccess) rc = cudaEventRecord(e0);
        }
        if (rc == cudaSuccess) fa2_dispatch(p, causal, 0);
        if (rc == cudaSuccess) rc = cudaGetLastError();
        if (rc == cudaSuccess && ms) {
            rc = cudaEventRecord(e1);
            if (rc == cudaSuccess) rc = cudaEventSynchronize(e1);
            if (rc == cudaSuccess) rc = cudaEventElapsedTime(ms, e0, e1);
        }
        if (rc == cudaSuccess) rc = cudaDeviceSynchronize();
        if (rc != cudaSuccess) snprintf(err, errlen, "FlashAttention-2: %s", cudaGetErrorString(rc));
    } catch (const fa2_shim::cuda_error &x) {
        rc = x.code;
        snprintf(err, errlen, "FlashAttention-2's launch: %s", x.what());
    } catch (const std::exception &x) {
        rc = cudaErrorUnknown;
        snprintf(err, errlen, "FlashAttention-2's launch: %s", x.what());
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return rc;
}

extern "C" int ug_fa2_run(const ug_fa2_problem *pb, ug_fa2_buffers *io, char *err, size_t errlen,
                          bool *unsupported)
{
    *unsupported = false;
    /* the device asked first: FA2's hardware_info.h (hdim 128's sm8x test) exits the process
     * when cudaGetDevice fails, and a plugin must never exit */
    int ndev = 0, dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        cudaGetLastError();
        *unsupported = true;
        snprintf(err, errlen, "FlashAttention-2: no CUDA device");
        return 1;
    }
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
        prop.major < 8) {
        *unsupported = true;
        snprintf(err, errlen, "FlashAttention-2 needs sm_80 or newer");
        return 1;
    }
    size_t P = pb->batch * pb->heads, Pk = pb->batch * pb->kv_heads;
    size_t nq = P * pb->L * pb->d, nk = Pk * pb->S * pb->d, nl = P * pb->L;
    void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
    float *lse = nullptr;
    cudaError_t rc = cudaMalloc(&q, nq * 2);
    if (rc == cudaSuccess) rc = cudaMalloc(&k, nk * 2);
    if (rc == cudaSuccess) rc = cudaMalloc(&v, nk * 2);
    if (rc == cudaSuccess) rc = cudaMalloc(&o, nq * 2);
    if (rc == cudaSuccess) rc = cudaMalloc((void **)&lse, nl * sizeof(float));
    if (rc == cudaSuccess) rc = cudaMemcpy(q, io->q, nq * 2, cudaMemcpyHostToDevice);
    if (rc == cudaSuccess) rc = cudaMemcpy(k, io->k, nk * 2, cudaMemcpyHostToDevice);
    if (rc == cudaSuccess) rc = cudaMemcpy(v, io->v, nk * 2, cudaMemcpyHostToDevice);
    /* O and lse poisoned (NaN), so an output FA2 leaves unwritten is an error, not a zero */
    if (rc == cudaSuccess) rc = cudaMemset(o, 0xff, nq * 2);
    if (rc == cudaSuccess) rc = cudaMemset(lse, 0xff, nl * sizeof(float));
    if (rc != cudaSuccess) {
        snprintf(err, errlen, "FlashAttention-2's buffers: %s", cudaGetErrorString(rc));
        goto err;
    }
    {
        FLASH_NAMESPACE::Flash_fwd_params p;
        bool causal;
        fa2_params(p, pb, q, k, v, o, lse, &causal);
        rc = fa2_launch(p, causal, nullptr, err, errlen);
        if (rc == cudaErrorNoKernelImageForDevice || rc == cudaErrorInvalidDeviceFunction)
            *unsupported = true; /* built for another -gencode than this GPU's */
        if (rc != cudaSuccess) goto err;
        if (pb->reps > 0) {
            float *t = (float *)malloc((size_t)pb->reps * sizeof *t);
            if (!t) {
                snprintf(err, errlen, "out of host memory for %d timings", pb->reps);
                rc = cudaErrorMemoryAllocation;
                goto err;
            }
            for (int r = 0; rc == cudaSuccess && r < pb->reps; r++)
                rc = fa2_launch(p, causal, &t[r], err, errlen);
            if (rc == cudaSuccess) {
                qsort(t, (size_t)pb->reps, sizeof *t, cmp_float);
                io->time_ms = t[pb->reps / 2];
            }
            free(t);
            if (rc != cudaSuccess) goto err;
        }
    }
    rc = cudaMemcpy(io->o, o, nq * 2, cudaMemcpyDeviceToHost);
    if (rc == cudaSuccess) rc = cudaMemcpy(io->lse, lse, nl * sizeof(float), cudaMemcpyDeviceToHost);
    if (rc != cudaSuccess) snprintf(err, errlen, "FlashAttention-2's results: %s", cudaGetErrorString(rc));
err:
    cudaFree(q);
    cudaFree(k);
    cudaFree(v);
    cudaFree(o);
    cudaFree(lse);
    return rc == cudaSuccess ? 0 : 1;
}
