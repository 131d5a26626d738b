/*
 * attention.cu - CUDA attention kernels: the GPU forms of kernels/cpu/attention.h's
 * arithmetic, and FlashAttention-2's tiled kernel on tensor cores.  Built once (the default
 * variant: nvcc's -fmad=true may contract a * b + c, which every class's model covers; CUDA's
 * expf, exp2f and logf are within 2 ulps, inside the classes' 8u; --use_fast_math's __expf and
 * FlashAttention-2's own __logf are outside the model).  kernels/bounds_attn.c bounds each class.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -c attention.cu
 *
 * The call (ops/attention.c): Q (L x d), K (S x d), V (S x dv) row-major per head in in[0..2],
 * the heads after the batch, query head h reading key/value head h / (heads / kv_heads); O in
 * out[0] (binary32, or bfloat16 for the bf16 rows), the row log-sum-exp in out[1] (binary32);
 * the scale c->opts.scale (0: RN32(1/sqrt(d))), UG_OPT_CAUSAL bottom-right (row i sees keys
 * k <= i + S - L).  A row that sees no key gets O = NaN and lse = -inf, the reference's values
 * (FlashAttention-2 writes 0 and +inf there: a convention).
 *
 *   attn_naive_cuda          three passes in binary32: the scores to a workspace (one thread a
 *                            score, serial dot), the shifted softmax (one warp a row, the sum a
 *                            lane-strided + shuffle tree), P V (one thread an output, keys in
 *                            order)                                              attn_naive
 *   attn_naive_bf16_cuda     PyTorch's bf16 math attention (Golden et al.'s baseline): the same
 *                            on bf16 Q K V, P rounded to bf16 before P V, O to bf16
 *                                                                                attn_naive_bf16
 *   attn_online_cuda         FlashAttention-2's loop in binary32, one warp a query row: blocks of
 *                            64 keys, a running max and sum, O rescaled by exp(m_old - m_new),
 *                            times 1/l at the end                                attn_online
 *   attn_fa2_bf16_mma        FlashAttention-2's forward kernel in miniature: 64 query rows a
 *                            block of 4 warps, 16 a warp, key blocks of 64 staged in shared
 *                            memory; S = Q K^T and P V by mma.sync.m16n8k16 bf16 with binary32
 *                            accumulators (the S fragments reused as P's A operand in registers),
 *                            the online softmax in registers with exp2f(fma(s, c log2 e, -m c
 *                            log2 e)) (softmax.h), row sums thread-local then over the quad, P
 *                            to bf16 before P V, O to bf16, lse = m c + log l; d = dv = 64 or
 *                            128                                                 attn_fa2_mma
 *   attn_splitkv_size_cuda   Flash-Decoding: one warp a (query row, split), splits of 256 keys
 *                            from key 0, each an online pass giving its normalised O_s and lse_s;
 *                            then FlashAttention-2's combine, one warp a row: lse = lmax + log
 *                            sum exp(lse_s - lmax), O = sum exp(lse_s - lse) O_s  attn_split_size
 *   attn_splitkv_count_cuda  the same with 8 splits of ceil(S / 8) keys over the call's key
 *                            length S (flash_api.cpp's num_splits over seqlen_k) attn_split_count
 *
 * Split boundaries are over the call's keys, as Flash-Decoding cuts them: with a fixed split
 * size a row's result does not depend on S beyond the keys it sees (invariant under chunked
 * prefill and decode); with a fixed count the split size is ceil(S / 8), so the same row of a
 * longer call is cut elsewhere (not invariant).  ug_attn_splitkv_cpu cuts the same way (over S);
 * the class's bound also covers a per-row cut (kernels/bounds_attn.c, step 5).
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <cuda_bf16.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

UG_CUDA_BEGIN

enum { A_NAIVE, A_NAIVE_BF16, A_ONLINE, A_FA2_MMA, A_SPLIT_SIZE, A_SPLIT_COUNT };
enum {
    UG_ATTN_BLOCK = 64,       /* keys a block of the online loops (FlashAttention-2's kBlockN) */
    UG_ATTN_SPLIT = 256,      /* keys a split, attn_splitkv_size_cuda */
    UG_ATTN_SPLITS = 8,       /* splits, attn_splitkv_count_cuda */
    UG_ATTN_MAX_DV = 256,     /* the warp-a-row kernels hold dv / 32 <= 8 columns a lane */
    UG_ATTN_WARPS = 4,        /* warps a block (rows of a block in the warp-a-row kernels) */
};

/* One call's sizes, by value into every kernel. */
struct attn_dims {
    int L, S, d, dv, H, Hkv, P; /* P = batch x heads */
    float scale;
    bool causal;
};

// ----------------------------------------------------------------------------
// shared helpers

/* The keys row i sees (kernels/cpu/attention.c's ug_attn_kkeys). */
__host__ __device__ int attn_keys(const attn_dims &a, int i)
{
    if (!a.causal) return a.S;
    long n = (long)i + a.S + 1 - a.L;
    return n <= 0 ? 0 : n < a.S ? (int)n : a.S;
}

/* The key/value head of query problem p (batch-major, heads inside): on the device, what
 * base/opshape.c's ug_shape_kv_problem is on the host. */
__device__ size_t attn_kv(const attn_dims &a, int p)
{
    return (size_t)(p / a.H) * a.Hkv + (size_t)((p % a.H) / (a.H / a.Hkv));
}

__device__ __forceinline__ float ldx(const float *p, size_t i) { return p[i]; }
__device__ __forceinline__ float ldx(const unsigned short *p, size_t i)
{
    return __uint_as_float((unsigned)p[i] << 16);
}
__device__ __forceinline__ void stx(float *p, size_t i, float v) { p[i] = v; }
/* v is already a bfloat16 value (or NaN): its top half is exact */
__device__ __forceinline__ void stx(unsigned short *p, size_t i, float v)
{
    p[i] = __bfloat16_as_ushort(__float2bfloat16_rn(v));
}
__device__ __forceinline__ float bf16r(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

/* q . k in binary32, t in order (a * b + c may be one FMA: within gamma_d). */
template <typename T>
__device__ float dot_serial(const T *q, const T *k, int d)
{
    float acc = 0.0f;
    for (int t = 0; t < d; t++) acc += ldx(q, t) * ldx(k, t);
    return acc;
}

// ----------------------------------------------------------------------------
// naive three-pass: scores to a workspace, the shifted softmax, P V

/* Pass 1: sc[r][k] = fl(c fl(q_i . k_k)) for the keys row r = (p, i) sees, one thread a score. */
template <typename T>
__global__ void naive_scores(const T *Q, const T *K, float *sc, attn_dims a)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t r = blockIdx.y; r < (size_t)a.P * a.L; r += gridDim.y) {
        int p = (int)(r / a.L), i = (int)(r % a.L);
        if (k >= attn_keys(a, i)) continue;
        const T *q = Q + r * a.d, *kk = K + (attn_kv(a, p) * a.S + k) * a.d;
        sc[r * a.S + k] = a.scale * dot_serial(q, kk, a.d);
    }
}

/* Pass 2, one warp a row: m = max, e_k = exp(s_k - m), l = sum e_k (lane-strided, then a
 * shuffle tree), P = e / l in place (bf16: rounded to bfloat16), lse = m + log(l). */
template <bool B16>
__global__ void naive_softmax(float *sc, float *lse, attn_dims a)
{
    size_t r = (size_t)blockIdx.x * UG_ATTN_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (r >= (size_t)a.P * a.L) return;
    int n = attn_keys(a, (int)(r % a.L));
    float *s = sc + r * a.S;
    if (!n) {
        if (lane == 0) lse[r] = -INFINITY;
        return;
    }
    float m = -INFINITY, l = 0.0f;
    for (int k = lane; k < n; k += 32) m = fmaxf(m, s[k]);
    m = ug_warp_max(m);
    for (int k = lane; k < n; k += 32) {
        s[k] = expf(s[k] - m);
        l += s[k];
    }
    l = ug_warp_sum(l);
    for (int k = lane; k < n; k += 32) s[k] = B16 ? bf16r(s[k] / l) : s[k] / l;
    if (lane == 0) lse[r] = m + logf(l);
}

/* Pass 3, one thread an output: o_j = sum_k P_k V_kj, k in order (bf16: O rounded). */
template <typename T, bool B16>
__global__ void naive_pv(const float *sc, const T *V, T *O, attn_dims a)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= a.dv) return;
    for (size_t r = blockIdx.y; r < (size_t)a.P * a.L; r += gridDim.y) {
        int n = attn_keys(a, (int)(r % a.L));
        const T *v = V + attn_kv(a, (int)(r / a.L)) * a.S * a.dv + j;
        const float *p = sc + r * a.S;
        float o = n ? 0.0f : NAN;
        for (int k = 0; k < n; k++) o += p[k] * ldx(v, (size_t)k * a.dv);
        stx(O, r * a.dv + j, B16 ? bf16r(o) : o);
    }
}

// ----------------------------------------------------------------------------
// FlashAttention-2's loop in binary32, one warp a query row (and split-KV's splits)

/* One online pass of query q over keys [k0, k1) in blocks of UG_ATTN_BLOCK: lane t scores keys
 * b0 + t and b0 + 32 + t, the block's max a shuffle max, the rescale, then the keys in order:
 * l += p (every lane the same sum) and acc[c] += p V_k,lane+32c.  Leaves the unnormalised acc,
 * the max m and the sum l (kernels/cpu/attention.c's online_pass). */
__device__ void online_pass(const float *q, const float *K, const float *V, const attn_dims &a,
                            int k0, int k1, unsigned lane, float acc[UG_ATTN_MAX_DV / 32],
                            float &m_out, float &l_out)
{
    float m = -INFINITY, l = 0.0f;
    #pragma unroll
    for (int c = 0; c < UG_ATTN_MAX_DV / 32; c++) acc[c] = 0.0f;
    for (int b0 = k0; b0 < k1; b0 += UG_ATTN_BLOCK) {
        int b1 = min(b0 + UG_ATTN_BLOCK, k1);
        int ka = b0 + (int)lane, kb = ka + 32;
        float sa = ka < b1 ? a.scale * dot_serial(q, K + (size_t)ka * a.d, a.d) : -INFINITY;
        float sb = kb < b1 ? a.scale * dot_serial(q, K + (size_t)kb * a.d, a.d) : -INFINITY;
        float mb = ug_warp_max(fmaxf(m, fmaxf(sa, sb)));
        float alpha = m == -INFINITY ? 0.0f : expf(m - mb);
        l *= alpha;
        #pragma unroll
        for (int c = 0; c < UG_ATTN_MAX_DV / 32; c++) acc[c] *= alpha;
        float pa = expf(sa - mb), pb = expf(sb - mb);
        for (int k = b0; k < b1; k++) {
            int t = k - b0;
            float p = __shfl_sync(0xffffffffu, t < 32 ? pa : pb, t % 32);
            l += p;
            const float *v = V + (size_t)k * a.dv;
            #pragma unroll
            for (int c = 0; c < UG_ATTN_MAX_DV / 32; c++) {
                int j = (int)lane + 32 * c;
                if (j < a.dv) acc[c] += p * v[j];
            }
        }
        m = mb;
    }
    m_out = m;
    l_out = l;
}

/* One warp a row: the online pass over the row's keys, O = acc * fl(1/l), lse = m + log(l). */
__global__ void online_rows(const float *Q, const float *K, const float *V, float *O, float *lse,
                            attn_dims a)
{
    size_t r = (size_t)blockIdx.x * UG_ATTN_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (r >= (size_t)a.P * a.L) return;
    int n = attn_keys(a, (int)(r % a.L));
    size_t kv = attn_kv(a, (int)(r / a.L));
    float acc[UG_ATTN_MAX_DV / 32], m, l;
    online_pass(Q + r * a.d, K + kv * a.S * a.d, V + kv * a.S * a.dv, a, 0, n, lane, acc, m, l);
    float inv = 1.0f / l;
    #pragma unroll
    for (int c = 0; c < UG_ATTN_MAX_DV / 32; c++) {
        int j = (int)lane + 32 * c;
        if (j < a.dv) O[r * a.dv + j] = n ? acc[c] * inv : NAN;
    }
    if (lane == 0) lse[r] = n ? m + logf(l) : -INFINITY;
}

/* Split-KV, one warp a (row, split): splits of `size` keys from key 0 (ns of them over the call's
 * S); a split past the row's keys does nothing.  Writes the split's normalised O_s and lse_s. */
__global__ void split_pass(const float *Q, const float *K, const float *V, float *Os, float *ls,
                           attn_dims a, int size, int ns)
{
    size_t w = (size_t)blockIdx.x * UG_ATTN_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (w >= (size_t)a.P * a.L * ns) return;
    size_t r = w / ns;
    int s = (int)(w % ns), n = attn_keys(a, (int)(r % a.L)), k0 = s * size;
    if (k0 >= n) return;
    size_t kv = attn_kv(a, (int)(r / a.L));
    float acc[UG_ATTN_MAX_DV / 32], m, l;
    online_pass(Q + r * a.d, K + kv * a.S * a.d, V + kv * a.S * a.dv, a, k0, min(k0 + size, n),
                lane, acc, m, l);
    float inv = 1.0f / l;
    #pragma unroll
    for (int c = 0; c < UG_ATTN_MAX_DV / 32; c++) {
        int j = (int)lane + 32 * c;
        if (j < a.dv) Os[w * a.dv + j] = acc[c] * inv;
    }
    if (lane == 0) ls[w] = m + logf(l);
}

/* FlashAttention-2's combine (flash_fwd_kernel.h, combine_attn_seqk_parallel), one warp a row,
 * the row's splits in order in every lane: lmax, sum exp(lse_s - lmax), lse = log(sum) + lmax,
 * O_j = sum_s exp(lse_s - lse) O_s,j (lane-strided columns). */
__global__ void split_combine(const float *Os, const float *ls, float *O, float *lse, attn_dims a,
                              int size, int ns)
{
    size_t r = (size_t)blockIdx.x * UG_ATTN_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (r >= (size_t)a.P * a.L) return;
    int n = attn_keys(a, (int)(r % a.L)), nr = (n + size - 1) / size;
    const float *lr = ls + r * ns, *orow = Os + r * ns * a.dv;
    float lmax = -INFINITY, sum = 0.0f;
    for (int s = 0; s < nr; s++) lmax = lr[s] > lmax ? lr[s] : lmax;
    for (int s = 0; s < nr; s++) sum += expf(lr[s] - lmax);
    float L = logf(sum) + lmax;
    for (int j = (int)lane; j < a.dv; j += 32) {
        float o = 0.0f;
        for (int s = 0; s < nr; s++) o += expf(lr[s] - L) * orow[(size_t)s * a.dv + j];
        O[r * a.dv + j] = n ? o : NAN;
    }
    if (lane == 0) lse[r] = n ? L : -INFINITY;
}

// ----------------------------------------------------------------------------
// FlashAttention-2 on tensor cores (bf16, mma.sync.m16n8k16, binary32 accumulators).
// Fragment layouts of the PTX ISA (g = lane / 4, q = lane % 4): A (16 x 16, row) a0 = (g, 2q..),
// a1 = (g + 8, 2q..), a2 = (g, 2q + 8..), a3 = (g + 8, 2q + 8..); B (16 x 8, col) b0 = (k 2q..,
// n g), b1 = (k 2q + 8.., n g); C c0 c1 = (g, 2q, 2q + 1), c2 c3 = (g + 8, 2q, 2q + 1).  The
// score tiles of keys 16c .. 16c + 15 (two n8 tiles) are, packed to bf16, exactly the A operand
// of P V's k16 step c (FlashAttention-2's convert_layout_acc_Aregs).

__device__ __forceinline__ unsigned pack2(unsigned short lo, unsigned short hi)
{
    return (unsigned)lo | ((unsigned)hi << 16);
}

__device__ __forceinline__ unsigned pack_bf16(float lo, float hi)
{
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi); /* .x = lo: the low half */
    return (unsigned)__bfloat16_as_ushort(h.x) | ((unsigned)__bfloat16_as_ushort(h.y) << 16);
}

__device__ __forceinline__ void mma_bf16(float d[4], unsigned a0, unsigned a1, unsigned a2,
                                         unsigned a3, unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* One block: 64 query rows of problem blockIdx.y, warp w rows 16w .. 16w + 15 of them; the key
 * blocks 0, 64, ... up to the keys its last row sees (a block past a row's keys adds exact
 * zeros: p = exp2(-inf) = 0, alpha = exp2(0) = 1), K and V staged in shared memory (rows past S
 * zero).  sl2 = fl(c log2 e) (params.scale_softmax_log2). */
template <int D>
__global__ void __launch_bounds__(128) fa2_mma(const unsigned short *Q, const unsigned short *K,
                                               const unsigned short *V, unsigned short *O,
                                               float *lse, attn_dims a, float sl2)
{
    __shared__ __align__(16) unsigned short Ks[UG_ATTN_BLOCK][D + 8];
    __shared__ __align__(16) unsigned short Vs[UG_ATTN_BLOCK][D + 8];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane >> 2, q = lane & 3;
    const int p = blockIdx.y, rblk = blockIdx.x * 64, ra = rblk + 16 * warp + g, rb = ra + 8;
    const size_t kv = attn_kv(a, p);
    const unsigned short *Qp = Q + (size_t)p * a.L * D, *Kp = K + kv * a.S * D, *Vp = V + kv * a.S * D;
    const int na = ra < a.L ? attn_keys(a, ra) : 0, nb = rb < a.L ? attn_keys(a, rb) : 0;
    const int nmax = attn_keys(a, min(a.L - 1, rblk + 63));

    unsigned qf[D / 16][4];
    #pragma unroll
    for (int c = 0; c < D / 16; c++) {
        const int t = 16 * c + 2 * q;
        const unsigned short *qa = Qp + (size_t)ra * D, *qb = Qp + (size_t)rb * D;
        qf[c][0] = ra < a.L ? pack2(qa[t], qa[t + 1]) : 0u;
        qf[c][1] = rb < a.L ? pack2(qb[t], qb[t + 1]) : 0u;
        qf[c][2] = ra < a.L ? pack2(qa[t + 8], qa[t + 9]) : 0u;
        qf[c][3] = rb < a.L ? pack2(qb[t + 8], qb[t + 9]) : 0u;
    }
    float o[D / 8][4];
    #pragma unroll
    for (int j = 0; j < D / 8; j++) o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.0f;
    float ma = -INFINITY, mb = -INFINITY, la = 0.0f, lb = 0.0f;

    for (int b0 = 0; b0 < nmax; b0 += UG_ATTN_BLOCK) {
        __syncthreads(); /* the previous block's tiles are read */
        for (int e = tid; e < UG_ATTN_BLOCK * D / 2; e += 128) {
            int r = e / (D / 2), t = 2 * (e % (D / 2));
            bool in = b0 + r < a.S;
            const size_t at = (size_t)(b0 + r) * D + t;
            *(unsigned *)&Ks[r][t] = in ? *(const unsigned *)(Kp + at) : 0u;
            *(unsigned *)&Vs[r][t] = in ? *(const unsigned *)(Vp + at) : 0u;
        }
        __syncthreads();
        /* S = Q K^T: eight n8 tiles of keys, raw scores (c applied in the exponent) */
        float s[8][4];
        #pragma unroll
        for (int j = 0; j < 8; j++) {
            s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
            #pragma unroll
            for (int c = 0; c < D / 16; c++) {
                const unsigned short *kr = Ks[8 * j + g];
                mma_bf16(s[j], qf[c][0], qf[c][1], qf[c][2], qf[c][3],
                         pack2(kr[16 * c + 2 * q], kr[16 * c + 2 * q + 1]),
                         pack2(kr[16 * c + 2 * q + 8], kr[16 * c + 2 * q + 9]));
            }
            const int key = b0 + 8 * j + 2 * q;
            if (key >= na) s[j][0] = -INFINITY;
            if (key + 1 >= na) s[j][1] = -INFINITY;
            if (key >= nb) s[j][2] = -INFINITY;
            if (key + 1 >= nb) s[j][3] = -INFINITY;
        }
        /* the online softmax (softmax.h: softmax_rescale_o), rows ra (c0, c1) and rb (c2, c3) */
        float xa = ma, xb = mb;
        #pragma unroll
        for (int j = 0; j < 8; j++) {
            xa = fmaxf(xa, fmaxf(s[j][0], s[j][1]));
            xb = fmaxf(xb, fmaxf(s[j][2], s[j][3]));
        }
        xa = fmaxf(xa, __shfl_xor_sync(0xffffffffu, xa, 1));
        xa = fmaxf(xa, __shfl_xor_sync(0xffffffffu, xa, 2));
        xb = fmaxf(xb, __shfl_xor_sync(0xffffffffu, xb, 1));
        xb = fmaxf(xb, __shfl_xor_sync(0xffffffffu, xb, 2));
        const float alpha_a = ma == -INFINITY ? 0.0f : exp2f((ma - xa) * sl2);
        const float alpha_b = mb == -INFINITY ? 0.0f : exp2f((mb - xb) * sl2);
        const float msa = xa == -INFINITY ? 0.0f : xa * sl2, msb = xb == -INFINITY ? 0.0f : xb * sl2;
        la *= alpha_a;
        lb *= alpha_b;
        #pragma unroll
        for (int j = 0; j < D / 8; j++) {
            o[j][0] *= alpha_a;
            o[j][1] *= alpha_a;
            o[j][2] *= alpha_b;
            o[j][3] *= alpha_b;
        }
        #pragma unroll
        for (int j = 0; j < 8; j++) {
            s[j][0] = exp2f(__fmaf_rn(s[j][0], sl2, -msa));
            s[j][1] = exp2f(__fmaf_rn(s[j][1], sl2, -msa));
            s[j][2] = exp2f(__fmaf_rn(s[j][2], sl2, -msb));
            s[j][3] = exp2f(__fmaf_rn(s[j][3], sl2, -msb));
            la += s[j][0];
            la += s[j][1];
            lb += s[j][2];
            lb += s[j][3];
        }
        /* P V: P rounded to bf16 (the A operand), V from shared memory as the col operand */
        #pragma unroll
        for (int c = 0; c < UG_ATTN_BLOCK / 16; c++) {
            const unsigned a0 = pack_bf16(s[2 * c][0], s[2 * c][1]);
            const unsigned a1 = pack_bf16(s[2 * c][2], s[2 * c][3]);
            const unsigned a2 = pack_bf16(s[2 * c + 1][0], s[2 * c + 1][1]);
            const unsigned a3 = pack_bf16(s[2 * c + 1][2], s[2 * c + 1][3]);
            const int k = 16 * c + 2 * q;
            #pragma unroll
            for (int j = 0; j < D / 8; j++) {
                const int col = 8 * j + g;
                mma_bf16(o[j], a0, a1, a2, a3, pack2(Vs[k][col], Vs[k + 1][col]),
                         pack2(Vs[k + 8][col], Vs[k + 9][col]));
            }
        }
        ma = xa;
        mb = xb;
    }
    /* the row sums over the quad, then O = bf16(acc / l) and lse = m c + log(l) */
    la += __shfl_xor_sync(0xffffffffu, la, 1);
    la += __shfl_xor_sync(0xffffffffu, la, 2);
    lb += __shfl_xor_sync(0xffffffffu, lb, 1);
    lb += __shfl_xor_sync(0xffffffffu, lb, 2);
    const float ia = 1.0f / la, ib = 1.0f / lb;
    unsigned short *Oa = O + ((size_t)p * a.L + ra) * D, *Ob = O + ((size_t)p * a.L + rb) * D;
    #pragma unroll
    for (int j = 0; j < D / 8; j++) {
        const int col = 8 * j + 2 * q;
        if (ra < a.L) {
            stx(Oa, col, na ? o[j][0] * ia : NAN);
            stx(Oa, col + 1, na ? o[j][1] * ia : NAN);
        }
        if (rb < a.L) {
            stx(Ob, col, nb ? o[j][2] * ib : NAN);
            stx(Ob, col + 1, nb ? o[j][3] * ib : NAN);
        }
    }
    if (q == 0 && ra < a.L) lse[(size_t)p * a.L + ra] = na ? ma * a.scale + logf(la) : -INFINITY;
    if (q == 0 && rb < a.L) lse[(size_t)p * a.L + rb] = nb ? mb * a.scale + logf(lb) : -INFINITY;
}

// ----------------------------------------------------------------------------
// the launcher

static unsigned grid_rows(size_t rows) { return (unsigned)(rows < 65535 ? rows : 65535); }

/* The call's heads on the device: Q, K, V uploaded as they are (binary32 or bf16 bits), O in
 * the row's format, lse binary32, the naive workspace (P L S scores) or the splits' (P L ns
 * (dv + 1)); one normal run and the timing through ug_cuda_run_bytes (O poisoned before each
 * launch, lse too), lse copied back.  Cost: the kernels' own, O(P L S d) each. */
static int ug_attention_cuda_run(const ug_kernel *k, ug_call *c)
{
    void *d_q = NULL, *d_k = NULL, *d_v = NULL, *d_o = NULL;
    float *d_lse = NULL, *d_ws = NULL, *d_ls = NULL;
    const bool b16 = k->in_store[0] == UG_BF16;
    const size_t es = b16 ? 2 : 4;
    const size_t L = ug_dim(c, 0), S = ug_dim(c, 1), d = ug_dim(c, 2), dv = ug_dim(c, 3);
    const size_t H = c->shape.heads ? c->shape.heads : 1, B = c->shape.batch ? c->shape.batch : 1;
    const size_t Hkv = c->shape.kv_heads ? c->shape.kv_heads : H;
    const size_t P = ug_shape_problems(&c->shape, false), Pkv = ug_shape_problems(&c->shape, true);
    const size_t nq = P * L * d, nk = Pkv * S * d, nv = Pkv * S * dv, no = P * L * dv;
    const int ns = k->version == A_SPLIT_SIZE ? (int)ug_div_up(S, UG_ATTN_SPLIT) : UG_ATTN_SPLITS;
    const int size = k->version == A_SPLIT_SIZE ? UG_ATTN_SPLIT : (int)ug_div_up(S, UG_ATTN_SPLITS);
    attn_dims a;
    float *lse_host = ug_output_f32(c, 1);
    if (ug_cuda_enter(k, c)) return 1;
    if (!lse_host || c->out[1].count < P * L || H % Hkv || c->in[0].count < nq ||
        c->in[1].count < nk || c->in[2].count < nv || c->out[0].count < no) {
        ug_cuda_failf(c, "%s: buffers do not match L %zu S %zu d %zu dv %zu, heads %zu of %zu "
                      "key/value heads, batch %zu (or no binary32 lse output)", k->name, L, S, d,
                      dv, H, Hkv, B);
        return 1;
    }
    if (P * L * (S > d ? S : d) > INT_MAX || S > INT_MAX / 2) {
        ug_cuda_failf(c, "%s: L %zu S %zu d %zu x %zu heads: beyond this kernel's int indexing",
                      k->name, L, S, d, P);
        return 1;
    }
    if (k->version == A_FA2_MMA && (d != dv || (d != 64 && d != 128))) {
        ug_cuda_failf(c, "%s: head dimension d %zu dv %zu: this kernel has d = dv = 64 or 128",
                      k->name, d, dv);
        c->unsupported = true;
        return 1;
    }
    if ((k->version == A_ONLINE || k->version >= A_SPLIT_SIZE) && dv > UG_ATTN_MAX_DV) {
        ug_cuda_failf(c, "%s: dv %zu: one warp a row holds at most %d columns", k->name, dv,
                      UG_ATTN_MAX_DV);
        c->unsupported = true;
        return 1;
    }
    a = {(int)L, (int)S, (int)d, (int)dv, (int)H, (int)Hkv, (int)P,
         c->opts.scale > 0 ? (float)c->opts.scale : (float)(1.0 / sqrt((double)d)),
         (c->opts.flags & UG_OPT_CAUSAL) != 0};
    UG_CUDA_TRY(c, cudaMalloc(&d_q, nq * es));
    UG_CUDA_TRY(c, cudaMalloc(&d_k, nk * es));
    UG_CUDA_TRY(c, cudaMalloc(&d_v, nv * es));
    UG_CUDA_TRY(c, cudaMalloc(&d_o, no * es));
    UG_CUDA_TRY(c, cudaMalloc(&d_lse, P * L * sizeof(float)));
    UG_CUDA_TRY(c, cudaMemcpy(d_q, c->in[0].data, nq * es, cudaMemcpyHostToDevice));
    UG_CUDA_TRY(c, cudaMemcpy(d_k, c->in[1].data, nk * es, cudaMemcpyHostToDevice));
    UG_CUDA_TRY(c, cudaMemcpy(d_v, c->in[2].data, nv * es, cudaMemcpyHostToDevice));
    if (k->version == A_NAIVE || k->version == A_NAIVE_BF16)
        UG_CUDA_TRY(c, cudaMalloc(&d_ws, P * L * S * sizeof(float)));
    if (k->version >= A_SPLIT_SIZE) {
        UG_CUDA_TRY(c, cudaMalloc(&d_ws, P * L * ns * dv * sizeof(float)));
        UG_CUDA_TRY(c, cudaMalloc(&d_ls, P * L * ns * sizeof(float)));
    }
    {
        const size_t rows = P * L;
        const unsigned warps_grid = (unsigned)ug_div_up(rows, UG_ATTN_WARPS);
        const float sl2 = (float)((double)a.scale * 1.4426950408889634);
        auto prepare = [&]() -> cudaError_t { return cudaMemsetAsync(d_lse, UG_CUDA_POISON_BYTE, rows * 4); };
        auto launch = [&]() -> cudaError_t {
            const float *q32 = (const float *)d_q, *k32 = (const float *)d_k, *v32 = (const float *)d_v;
            const unsigned short *q16 = (const unsigned short *)d_q, *k16 = (const unsigned short *)d_k,
                                 *v16 = (const unsigned short *)d_v;
            dim3 gs((unsigned)ug_div_up(S, 128), grid_rows(rows)), gp((unsigned)ug_div_up(dv, 128), grid_rows(rows));
            switch (k->version) {
            case A_NAIVE:
                naive_scores<<<gs, 128>>>(q32, k32, d_ws, a);
                naive_softmax<false><<<warps_grid, 32 * UG_ATTN_WARPS>>>(d_ws, d_lse, a);
                naive_pv<float, false><<<gp, 128>>>(d_ws, v32, (float *)d_o, a);
                break;
            case A_NAIVE_BF16:
                naive_scores<<<gs, 128>>>(q16, k16, d_ws, a);
                naive_softmax<true><<<warps_grid, 32 * UG_ATTN_WARPS>>>(d_ws, d_lse, a);
                naive_pv<unsigned short, true><<<gp, 128>>>(d_ws, v16, (unsigned short *)d_o, a);
                break;
            case A_ONLINE:
                online_rows<<<warps_grid, 32 * UG_ATTN_WARPS>>>(q32, k32, v32, (float *)d_o, d_lse, a);
                break;
            case A_FA2_MMA: {
                dim3 g((unsigned)ug_div_up(L, 64), (unsigned)P);
                if (d == 64) fa2_mma<64><<<g, 128>>>(q16, k16, v16, (unsigned short *)d_o, d_lse, a, sl2);
                else fa2_mma<128><<<g, 128>>>(q16, k16, v16, (unsigned short *)d_o, d_lse, a, sl2);
                break;
            }
            default: {
                unsigned gw = (unsigned)ug_div_up(rows * (size_t)ns, UG_ATTN_WARPS);
                split_pass<<<gw, 32 * UG_ATTN_WARPS>>>(q32, k32, v32, d_ws, d_ls, a, size, ns);
                split_combine<<<warps_grid, 32 * UG_ATTN_WARPS>>>(d_ws, d_ls, (float *)d_o, d_lse,
                                                                   a, size, ns);
                break;
            }
            }
            return cudaGetLastError();
        };
        if (P > 65535 && k->version == A_FA2_MMA) {
            ug_cuda_failf(c, "%s: %zu heads: at most 65535 a call", k->name, P);
            goto cleanup;
        }
        if (ug_cuda_run_bytes(c, d_o, no * es, prepare, launch)) goto cleanup;
        UG_CUDA_TRY(c, cudaMemcpy(lse_host, d_lse, rows * sizeof(float), cudaMemcpyDeviceToHost));
    }
cleanup:
    cudaFree(d_q);
    cudaFree(d_k);
    cudaFree(d_v);
    cudaFree(d_o);
    cudaFree(d_lse);
    cudaFree(d_ws);
    cudaFree(d_ls);
    return c->err[0] != 0;
}

#define UG_ATTN_BF16_IO .out_fmt = UG_BF16, .in_store = {UG_BF16, UG_BF16, UG_BF16}
#define UG_ATTN_F32_ROW(nm, inv, ver, cls, text)                                               \
    {.name = nm, .op = UG_OP_ATTENTION, .backend = UG_CUDA, .batch_invariant = inv, .bound = cls, \
     .version = ver, .doc = text}

/* Batch invariance (.batch_invariant): a row's arithmetic here reads only its own q, its kv
 * head's keys from key 0 in fixed blocks (64; the split size's 256) and never the call's L, S,
 * batch or heads beyond its own key count, so its bits hold at any batch and under chunked
 * prefill and decode (the invariance cases assert it: gpu_invariance/batch, H200 2026-11-28).
 * Not the split count: its split size is ceil(S / 8) of the call's S. */

const ug_kernel ug_attention_cuda_kernels[] = {
    UG_ATTN_F32_ROW("attn_naive_cuda", true, A_NAIVE, UG_BOUND_ATTN_NAIVE,
                    "three passes: scores to a workspace, shifted softmax a warp a row, P V"),
    {.name = "attn_naive_bf16_cuda", .op = UG_OP_ATTENTION, .backend = UG_CUDA, UG_ATTN_BF16_IO,
     .batch_invariant = true, .bound = UG_BOUND_ATTN_NAIVE_BF16, .version = A_NAIVE_BF16,
     .doc = "PyTorch's bf16 math attention: binary32 scores and softmax, P and O rounded to bf16"},
    UG_ATTN_F32_ROW("attn_online_cuda", true, A_ONLINE, UG_BOUND_ATTN_ONLINE,
                    "FlashAttention-2's loop in binary32, a warp a row: blocks of 64, O rescaled"),
    {.name = "attn_fa2_bf16_mma", .op = UG_OP_ATTENTION, .backend = UG_CUDA, UG_ATTN_BF16_IO,
     .batch_invariant = true, .bound = UG_BOUND_ATTN_FA2_MMA, .version = A_FA2_MMA,
     .doc = "FlashAttention-2 tiles: mma.sync bf16 S = QK^T and P V, online softmax in registers, "
            "bf16 P and O; d 64, 128"},
    UG_ATTN_F32_ROW("attn_splitkv_size_cuda", true, A_SPLIT_SIZE, UG_BOUND_ATTN_SPLIT_SIZE,
                    "Flash-Decoding: a warp a (row, split of 256 keys from key 0), FA2's combine"),
    UG_ATTN_F32_ROW("attn_splitkv_count_cuda", false, A_SPLIT_COUNT, UG_BOUND_ATTN_SPLIT_COUNT,
                    "Flash-Decoding: 8 splits of ceil(S/8) keys over the call's S, FA2's combine"),
};

UG_CUDA_END

UG_FAMILY(attention_gpu, ug_attention_cuda_kernels, ug_attention_cuda_run)
