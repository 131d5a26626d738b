/*
 * sumdot.cu - the GPU oracle's exact sums and dot products of binary32 (oracle/gpu.h).
 *
 * Decomposition (the arithmetic is oracle/gpu_arith.h's; oracle/gpu_model.c runs this same
 * decomposition on the host, and the self-test checks it against MPFR):
 *   - a batch is a list of segments; each segment is cut into chunks of UGG_CHUNK_* terms
 *     (host: ugg_segments_run; a single segment needs no descriptors, see `plan`), one block
 *     per chunk;
 *   - sums (sum_chunk_kernel): every term of the chunk is read by exactly one thread; a term
 *     within the thread's register window (gpu_arith.h) is added to one of its two uint64
 *     registers, any other term (out of the window, NaN, inf) goes to the block's one set of
 *     bins in shared memory by an atomic addition; at the end the registers go to the bins as
 *     pieces, and one thread turns the bins into the chunk's limbs and counts;
 *   - dots (dot_chunk_kernel): thread t takes the chunk's terms t, t + TPB, ... (coalesced), in
 *     batches of DOT_UNROLL, the next batch loading while this one is binned; loads past the end
 *     read the identity term -0 * +0; each thread bins its products' two pieces into its own
 *     column of shared memory, bins[b][tid] (no atomics; the [b][tid] layout puts a warp's 32
 *     64-bit bins in distinct banks whatever b each lane picks), at most 2^9 terms a thread;
 *     the threads' bins become limbs (ugg_bins_to_limbs), which the block adds;
 *   - a segment's chunks' fields are added (one thread when it has at most one chunk, a block
 *     otherwise: exact int64 additions, fewer than 2^23 chunks) and rounded once (ugg_finish).
 * Every merge is an integer addition, so the result does not depend on the order or the
 * shapes: it is the exact value, rounded once.
 * Throughput design (sums, the case `bench oracle --gpu` times): per term ~10 integer
 * instructions (ugg_reg_term) and no memory access but its load, for data whose terms lie within
 * 2^16 of the thread's first ones (normal-like data); 16-byte loads, UGG_SUM_VEC of them in
 * flight per thread, UGG_SUM_BLOCKS_PER_SM blocks of 128 threads per SM (registers are the only
 * limit: 2 KiB of shared memory a block), i.e. 32 KiB in flight per SM, what an H100's
 * bandwidth-latency product needs.  Chosen by timing the variants on an H100 (2^30 normal
 * terms, GB/s): (VEC, blocks) = (1, 16) 2898, (4, 8) 2887, (2, 8) 2850, (2, 12) 2809, (1, 12)
 * 2769; cub_reduce 3077-3096.  Data spread over many binades (adversarial cases) go through
 * the shared atomics: terms spread uniformly over 200 binades run at 1155 GB/s.
 */
#include "oracle/cuda/gpu_oracle.cuh"

#include <stdlib.h>
#include <string.h>

namespace {

enum { MERGE_TPB = 1024, DOT_UNROLL = 8 };

enum { SUM_VEC = UGG_SUM_VEC, SUM_BLOCKS_PER_SM = UGG_SUM_BLOCKS_PER_SM };

template <int OP> struct shape;
template <> struct shape<UGG_OP_SUM> {
    static const int WINS = UGG_SUM_WINS, NL = UGG_SUM_LIMBS, BINS = 2 * UGG_SUM_WINS,
                     BIAS = UGG_SUM_BIAS;
};
template <> struct shape<UGG_OP_DOT> {
    static const int WINS = UGG_DOT_WINS, NL = UGG_DOT_LIMBS, BINS = 2 * UGG_DOT_WINS,
                     BIAS = UGG_DOT_BIAS;
};

/* The dot kernel's bins: BINS x TPB uint64 (35 KiB). */
constexpr size_t dot_shared_bytes()
{
    return (size_t)shape<UGG_OP_DOT>::BINS * UGG_TPB_DOT * sizeof(uint64_t);
}

/* The plan of a run: the chunk and segment descriptors on the device, or (chunks == NULL) one
 * segment `one` cut into chunks of CH terms from offset one_x (one_y), nothing uploaded. */
struct plan {
    const ugg_chunk *chunks;
    const ugg_seg *segs;
    ugg_seg one;
    uint64_t one_x, one_y;
};

__device__ __forceinline__ ugg_chunk chunk_at(const plan &p, uint64_t i, uint64_t CH)
{
    if (p.chunks)
        return p.chunks[i];
    ugg_chunk c;
    c.x = p.one_x + i * CH;
    c.y = p.one_y + i * CH;
    c.len = (uint32_t)(p.one.n - i * CH < CH ? p.one.n - i * CH : CH);
    c.pad = 0;
    return c;
}

__device__ __forceinline__ ugg_seg seg_at(const plan &p, uint64_t i)
{
    return p.segs ? p.segs[i] : p.one;
}

/* ---- sums ----------------------------------------------------------------------------------- */

/* A sum term that the registers do not take: its special count, or its piece into the warp's
 * bins (a shared atomic: rare for data within 2^16 of its largest values; a zero piece, as
 * zeros and the padding give, costs no atomic). */
__device__ __forceinline__ void sum_term_to_bins(uint32_t w, unsigned long long *bins,
                                                 uint32_t &nan_terms, uint32_t &posinf,
                                                 uint32_t &neginf)
{
    int cls = ugg_sum_special(w);
    nan_terms += cls == UGG_T_NAN;
    posinf += cls == UGG_T_POSINF;
    neginf += cls == UGG_T_NEGINF;
    uint32_t bin, piece;
    ugg_sum_piece(w, &bin, &piece);
    if (!cls && piece)
        atomicAdd(&bins[bin], (unsigned long long)piece);
}

/* 16-byte words i, i + TPB, ..., i + (SUM_VEC - 1) TPB of the chunk's aligned body (nv words);
 * past the end, four -0 terms. */
__device__ __forceinline__ void load_words(const uint4 *__restrict__ xv, uint32_t i, uint32_t nv,
                                           uint4 *a)
{
#pragma unroll
    for (int u = 0; u < SUM_VEC; u++) {
        uint32_t k = i + u * UGG_TPB_SUM;
        a[u] = k < nv ? __ldg(xv + k) : make_uint4(0x80000000u, 0x80000000u, 0x80000000u,
                                                    0x80000000u);
    }
}

/* Sums: one block per chunk, part[chunk * F + f] = its fields.  Each warp has one set of bins in
 * shared memory (512 bytes, added to by shared atomics); each thread keeps its window's terms in two
 * registers (gpu_arith.h, "register windows") and adds them to its warp's bins at the end.
 * The chunk's terms before the first 128-byte boundary (at most 31) and after the last 16-byte
 * word (at most 3) go to the bins, one a thread; the body is read as 16-byte words, word i by
 * thread i mod TPB (a warp reads 512 aligned bytes), SUM_VEC words a thread in flight while
 * the previous SUM_VEC are added.  A thread takes at most 4 ceil(2^15 / TPB) + 2 <= 2^11
 * terms, what the window's bound needs. */
__global__ void __launch_bounds__(UGG_TPB_SUM, SUM_BLOCKS_PER_SM)
    sum_chunk_kernel(const uint32_t *__restrict__ x, plan p, int64_t *__restrict__ part)
{
    typedef shape<UGG_OP_SUM> S;
    const int F = UGG_FIELDS(S::NL), WARPS = UGG_TPB_SUM / 32;
    __shared__ unsigned long long bins[WARPS][S::BINS];
    __shared__ uint32_t counts[4];
    const uint32_t tid = threadIdx.x;
    for (uint32_t b = tid; b < WARPS * S::BINS; b += UGG_TPB_SUM)
        bins[b / S::BINS][b % S::BINS] = 0;
    if (tid < 4)
        counts[tid] = 0;
    __syncthreads();
    unsigned long long *mine = bins[tid / 32];
    const ugg_chunk c = chunk_at(p, blockIdx.x, UGG_CHUNK_SUM);
    const uint32_t *xs = x + c.x;
    const ugg_sum_cut cut = ugg_sum_cut_chunk(xs, c.len);
    const uint32_t head = cut.head, nv = cut.nv, tail0 = cut.tail0;
    uint32_t nan_terms = 0, posinf = 0, neginf = 0, notneg = 0;
    if (tid < head || tid + tail0 < c.len) { /* head: thread t < 31 takes term t; tail alike */
        uint32_t w = tid < head ? __ldg(xs + tid) : 0x80000000u;
        uint32_t v = tid + tail0 < c.len ? __ldg(xs + tail0 + tid) : 0x80000000u;
        sum_term_to_bins(w, mine, nan_terms, posinf, neginf);
        sum_term_to_bins(v, mine, nan_terms, posinf, neginf);
        notneg |= ugg_sum_not_negzero(w) | ugg_sum_not_negzero(v);
    }
    const uint4 *xv = (const uint4 *)(xs + head);
    const uint32_t step = UGG_TPB_SUM * SUM_VEC;
    uint4 a[SUM_VEC], na[SUM_VEC];
    load_words(xv, tid, nv, a);
    uint32_t emax = 0;
#pragma unroll
    for (int u = 0; u < SUM_VEC; u++)
        emax = max(emax, max(max(ugg_f32_exp(a[u].x), ugg_f32_exp(a[u].y)),
                             max(ugg_f32_exp(a[u].z), ugg_f32_exp(a[u].w))));
    const uint32_t lo = ugg_reg_window(emax);
    uint64_t pos = 0, neg = 0;
    for (uint32_t i = tid; i < nv; i += step) {
        load_words(xv, i + step, nv, na); /* in flight while a is added */
#pragma unroll
        for (int u = 0; u < SUM_VEC; u++) {
            const uint32_t w4[4] = {a[u].x, a[u].y, a[u].z, a[u].w};
#pragma unroll
            for (int j = 0; j < 4; j++) {
                if (!ugg_reg_term(w4[j], lo, &pos, &neg))
                    sum_term_to_bins(w4[j], mine, nan_terms, posinf, neginf);
                notneg |= ugg_sum_not_negzero(w4[j]);
            }
            a[u] = na[u];
        }
    }
    uint32_t bin, p32, h32;
    if (pos) {
        ugg_reg_pieces(pos, lo, 0, &bin, &p32, &h32);
        atomicAdd(&mine[bin], (unsigned long long)p32);
        atomicAdd(&mine[bin + 8], (unsigned long long)h32);
    }
    if (neg) {
        ugg_reg_pieces(neg, lo, 1, &bin, &p32, &h32);
        atomicAdd(&mine[bin], (unsigned long long)p32);
        atomicAdd(&mine[bin + 8], (unsigned long long)h32);
    }
    if (nan_terms | posinf | neginf) {
        atomicAdd(&counts[0], nan_terms);
        atomicAdd(&counts[1], posinf);
        atomicAdd(&counts[2], neginf);
    }
    if (notneg)
        atomicOr(&counts[3], 1u);
    __syncthreads();
    if (tid < S::BINS) /* the warps' bins into warp 0's: each below 2^50 ((2^17 + 4 TPB) pieces
                        * below 2^32 in all) */
        for (int w = 1; w < WARPS; w++)
            bins[0][tid] += bins[w][tid];
    __syncthreads();
    if (tid == 0) {
        int64_t sl[S::NL], al[S::NL];
        ugg_bins_to_limbs((const uint64_t *)bins[0], 1, S::WINS, sl, al);
        int64_t *out = part + (size_t)blockIdx.x * F;
        for (int l = 0; l < S::NL; l++) {
            out[l] = sl[l];
            out[S::NL + l] = al[l];
        }
        for (int k = 0; k < 4; k++)
            out[2 * S::NL + k] = counts[k];
    }
}

/* ---- dots ---------------------------------------------------------------------------------- */

/* One product into the thread's bins (column `mine`, stride TPB) or its special counts. */
__device__ __forceinline__ void dot_term(uint32_t a, uint32_t b, uint64_t *mine,
                                         uint32_t &nan_terms, uint32_t &posinf, uint32_t &neginf,
                                         uint32_t &notneg)
{
    int cls = ugg_dot_special(a, b);
    if (cls) { /* rare: NaN and inf terms carry no pieces */
        nan_terms += cls == UGG_T_NAN;
        posinf += cls == UGG_T_POSINF;
        neginf += cls == UGG_T_NEGINF;
    } else {
        uint32_t bin, lo, hi;
        ugg_dot_pieces(a, b, &bin, &lo, &hi);
        mine[bin * UGG_TPB_DOT] += lo;
        mine[(bin + 8) * UGG_TPB_DOT] += hi;
    }
    notneg |= ugg_dot_not_negzero(a, b);
}

/* Terms i, i + TPB, ..., i + (DOT_UNROLL - 1) TPB of a chunk of len (-0 * +0 past the end). */
__device__ __forceinline__ void dot_load_batch(const uint32_t *__restrict__ xs,
                                               const uint32_t *__restrict__ ys, uint32_t i,
                                               uint32_t len, uint32_t *a, uint32_t *b)
{
#pragma unroll
    for (int u = 0; u < DOT_UNROLL; u++) {
        uint32_t k = i + u * UGG_TPB_DOT; /* < 2^15 + 2^9: no overflow */
        a[u] = k < len ? __ldg(xs + k) : 0x80000000u;
        b[u] = k < len ? __ldg(ys + k) : 0u;
    }
}

/* Dots: one block per chunk, part[chunk * F + f] = its fields. */
__global__ void __launch_bounds__(UGG_TPB_DOT, 3)
    dot_chunk_kernel(const uint32_t *__restrict__ x, const uint32_t *__restrict__ y, plan p,
                     int64_t *__restrict__ part)
{
    typedef shape<UGG_OP_DOT> S;
    const int TPB = UGG_TPB_DOT, F = UGG_FIELDS(S::NL);
    extern __shared__ uint64_t bins[]; /* [BINS][TPB], then reused as [F][TPB] */
    const int tid = threadIdx.x;
    const ugg_chunk c = chunk_at(p, blockIdx.x, UGG_CHUNK_DOT);
    uint64_t *mine = bins + tid;
    for (int b = 0; b < S::BINS; b++)
        mine[b * TPB] = 0;
    uint32_t nan_terms = 0, posinf = 0, neginf = 0, notneg = 0;
    const uint32_t *xs = x + c.x, *ys = y + c.y;
    const uint32_t step = TPB * DOT_UNROLL;
    uint32_t a[DOT_UNROLL], b[DOT_UNROLL], na[DOT_UNROLL], nb[DOT_UNROLL];
    dot_load_batch(xs, ys, tid, c.len, a, b);
    for (uint32_t i = tid; i < c.len; i += step) {
        dot_load_batch(xs, ys, i + step, c.len, na, nb); /* in flight while a is binned */
#pragma unroll
        for (int u = 0; u < DOT_UNROLL; u++)
            dot_term(a[u], b[u], mine, nan_terms, posinf, neginf, notneg);
#pragma unroll
        for (int u = 0; u < DOT_UNROLL; u++) {
            a[u] = na[u];
            b[u] = nb[u];
        }
    }
    int64_t sl[S::NL], al[S::NL];
    ugg_bins_to_limbs(mine, TPB, S::WINS, sl, al);
    __syncthreads(); /* every thread has read its bins: the memory becomes the fields */
    int64_t *red = (int64_t *)bins;
#pragma unroll
    for (int l = 0; l < S::NL; l++) {
        red[l * TPB + tid] = sl[l];
        red[(S::NL + l) * TPB + tid] = al[l];
    }
    red[(2 * S::NL) * TPB + tid] = nan_terms;
    red[(2 * S::NL + 1) * TPB + tid] = posinf;
    red[(2 * S::NL + 2) * TPB + tid] = neginf;
    red[(2 * S::NL + 3) * TPB + tid] = notneg;
    __syncthreads();
    for (int f = tid; f < F; f += TPB) {
        int64_t s = 0;
        for (int t = 0; t < TPB; t++)
            s += red[f * TPB + t];
        part[(size_t)blockIdx.x * F + f] = s;
    }
}

/* ---- merges and launches ---------------------------------------------------------------------- */

/* Segments with at most one chunk: one thread each. */
template <int OP>
__global__ void merge_single(const int64_t *__restrict__ part, plan p, uint64_t nseg,
                             ug_exact *out)
{
    typedef shape<OP> S;
    const int F = UGG_FIELDS(S::NL);
    uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseg)
        return;
    ugg_seg g = seg_at(p, s);
    if (g.last - g.first > 1)
        return;
    int64_t f[F];
    for (int i = 0; i < F; i++)
        f[i] = g.last > g.first ? part[g.first * F + i] : 0;
    ugg_finish(f, S::NL, -S::BIAS, g.n, &out[g.dest]);
}

/* Segments with more chunks: one block each.  Thread t < R F (R = MERGE_TPB / F) adds field
 * t mod F of chunks first + t / F, + R, + 2 R, ...: a warp reads consecutive words (the fields
 * of a chunk are contiguous, so are the chunks), 8 loads in flight; then one thread per field
 * adds the R partial sums. */
template <int OP>
__global__ void __launch_bounds__(MERGE_TPB)
    merge_multi(const int64_t *__restrict__ part, plan p, ug_exact *out)
{
    typedef shape<OP> S;
    const int F = UGG_FIELDS(S::NL), R = MERGE_TPB / F;
    __shared__ int64_t red[R * F];
    __shared__ int64_t tot[F];
    ugg_seg g = seg_at(p, blockIdx.x);
    if (g.last - g.first <= 1)
        return; /* (merge_single's) */
    const int t = threadIdx.x;
    if (t < R * F) {
        int64_t acc = 0;
        const int f = t % F;
#pragma unroll 8
        for (uint64_t c = g.first + t / F; c < g.last; c += R)
            acc += part[c * F + f];
        red[t] = acc;
    }
    __syncthreads();
    if (t < F) {
        int64_t s = 0;
        for (int r = 0; r < R; r++)
            s += red[r * F + t];
        tot[t] = s;
    }
    __syncthreads();
    if (t == 0)
        ugg_finish(tot, S::NL, -S::BIAS, g.n, &out[g.dest]);
}

/* The chunk kernel of OP over the plan's nchunks chunks, then the merges of its nseg segments. */
template <int OP>
int run_plan(const float *d_x, const float *d_y, const plan &p, uint64_t nchunks, uint64_t nseg,
             int all_single, ug_exact *d_out, char *err, size_t len)
{
    const int F = UGG_FIELDS(shape<OP>::NL);
    static ugg_dbuf part;
    static int configured;
    if (OP == UGG_OP_DOT && !configured) { /* more than the default 48 KiB of dynamic shared
                                            * memory, and the L1 split that fits 3 blocks */
        UGG_TRY(cudaFuncSetAttribute(dot_chunk_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)dot_shared_bytes()));
        UGG_TRY(cudaFuncSetAttribute(dot_chunk_kernel,
                                     cudaFuncAttributePreferredSharedMemoryCarveout,
                                     (int)cudaSharedmemCarveoutMaxShared));
        configured = 1;
    }
    if (nchunks > 0x7fffffffu) {
        ugg_failf(err, len, "GPU oracle: %llu chunks in one call (at most 2^31 - 1)",
                  (unsigned long long)nchunks);
        return 1;
    }
    UGG_TRY(ugg_reserve(&part, (nchunks ? nchunks : 1) * F * sizeof(int64_t)));
    if (nchunks) {
        if (OP == UGG_OP_DOT)
            dot_chunk_kernel<<<(unsigned)nchunks, UGG_TPB_DOT, dot_shared_bytes()>>>(
                (const uint32_t *)d_x, (const uint32_t *)d_y, p, (int64_t *)part.p);
        else
            sum_chunk_kernel<<<(unsigned)nchunks, UGG_TPB_SUM>>>((const uint32_t *)d_x, p,
                                                                 (int64_t *)part.p);
        UGG_LAUNCHED();
    }
    if (nseg) {
        merge_single<OP><<<(unsigned)((nseg + 127) / 128), 128>>>((const int64_t *)part.p, p,
                                                                  nseg, d_out);
        UGG_LAUNCHED();
        if (!all_single) {
            merge_multi<OP><<<(unsigned)nseg, MERGE_TPB>>>((const int64_t *)part.p, p, d_out);
            UGG_LAUNCHED();
        }
    }
    return 0;
fail:
    return 1;
}

/* Host pointers: segments packed into the device buffers (one copy per segment when few,
 * through a host staging buffer when many), run, records back. */
int host_batch(int op, const float *const *x, const float *const *y, const size_t *n,
               size_t count, ug_exact *out, char *err, size_t len)
{
    static ugg_dbuf dx, dy, dout;
    uint64_t *off = (uint64_t *)malloc(count * sizeof *off);
    uint64_t *nn = (uint64_t *)malloc(count * sizeof *nn);
    float *stage = NULL;
    uint64_t total = 0;
    int rc = 1;
    if (!off || !nn) {
        ugg_failf(err, len, "GPU oracle: out of host memory");
        goto fail;
    }
    for (size_t i = 0; i < count; i++) {
        off[i] = total;
        nn[i] = n[i];
        total += n[i];
    }
    UGG_TRY(ugg_reserve(&dx, (total ? total : 1) * sizeof(float)));
    if (op == UGG_OP_DOT)
        UGG_TRY(ugg_reserve(&dy, (total ? total : 1) * sizeof(float)));
    UGG_TRY(ugg_reserve(&dout, count * sizeof(ug_exact)));
    for (int v = 0; v < (op == UGG_OP_DOT ? 2 : 1); v++) {
        const float *const *src = v ? y : x;
        float *dst = (float *)(v ? dy.p : dx.p);
        if (count <= 64) {
            for (size_t i = 0; i < count; i++)
                if (n[i])
                    UGG_TRY(cudaMemcpy(dst + off[i], src[i], n[i] * sizeof(float),
                                       cudaMemcpyHostToDevice));
            continue;
        }
        if (!stage && !(stage = (float *)malloc((total ? total : 1) * sizeof(float)))) {
            ugg_failf(err, len, "GPU oracle: out of host memory");
            goto fail;
        }
        for (size_t i = 0; i < count; i++)
            memcpy(stage + off[i], src[i], n[i] * sizeof(float));
        UGG_TRY(cudaMemcpy(dst, stage, total * sizeof(float), cudaMemcpyHostToDevice));
    }
    if (ugg_segments_run(op, (const float *)dx.p, op == UGG_OP_DOT ? (const float *)dy.p : NULL,
                         off, nn, count, (ug_exact *)dout.p, err, len))
        goto fail;
    UGG_TRY(cudaMemcpy(out, dout.p, count * sizeof(ug_exact), cudaMemcpyDeviceToHost));
    rc = 0;
fail:
    free(off);
    free(nn);
    free(stage);
    return rc;
}

/* run_plan for a run-time op (a sum reads d_x only). */
int run_plan_op(int op, const float *d_x, const float *d_y, const plan &p, uint64_t nchunks,
                uint64_t nseg, int all_single, ug_exact *d_out, char *err, size_t len)
{
    return op == UGG_OP_DOT
               ? run_plan<UGG_OP_DOT>(d_x, d_y, p, nchunks, nseg, all_single, d_out, err, len)
               : run_plan<UGG_OP_SUM>(d_x, d_x, p, nchunks, nseg, all_single, d_out, err, len);
}

} // namespace

int ugg_run_chunks(int op, const float *d_x, const float *d_y, const ugg_chunk *d_chunks,
                   uint64_t nchunks, const ugg_seg *d_segs, uint64_t nseg, int all_single,
                   ug_exact *d_out, char *err, size_t len)
{
    plan p;
    memset(&p, 0, sizeof p);
    p.chunks = d_chunks;
    p.segs = d_segs;
    return run_plan_op(op, d_x, d_y, p, nchunks, nseg, all_single, d_out, err, len);
}

/* The descriptors: segment i's chunks cover [off + c CH, off + min((c + 1) CH, n)). */
int ugg_segments_run(int op, const float *d_x, const float *d_y, const uint64_t *off,
                     const uint64_t *n, size_t count, ug_exact *d_out, char *err, size_t len)
{
    static ugg_dbuf dchunks, dsegs;
    const uint64_t CH = op == UGG_OP_DOT ? UGG_CHUNK_DOT : UGG_CHUNK_SUM;
    uint64_t nchunks = 0;
    int all_single = 1, rc = 1;
    if (count == 1) { /* one segment (a long sum, the bench): the kernels cut it themselves */
        plan p;
        memset(&p, 0, sizeof p);
        p.one.last = (n[0] + CH - 1) / CH;
        p.one.n = n[0];
        p.one_x = p.one_y = off[0];
        return run_plan_op(op, d_x, d_y, p, p.one.last, 1, p.one.last <= 1, d_out, err, len);
    }
    for (size_t i = 0; i < count; i++) {
        uint64_t c = (n[i] + CH - 1) / CH;
        nchunks += c;
        all_single &= c <= 1;
    }
    ugg_chunk *chunks = (ugg_chunk *)malloc((nchunks ? nchunks : 1) * sizeof *chunks);
    ugg_seg *segs = (ugg_seg *)malloc((count ? count : 1) * sizeof *segs);
    if (!chunks || !segs) {
        ugg_failf(err, len, "GPU oracle: out of host memory");
        goto fail;
    }
    {
        uint64_t k = 0;
        for (size_t i = 0; i < count; i++) {
            segs[i].first = k;
            for (uint64_t c0 = 0; c0 < n[i]; c0 += CH, k++) {
                chunks[k].x = chunks[k].y = off[i] + c0;
                chunks[k].len = (uint32_t)(n[i] - c0 < CH ? n[i] - c0 : CH);
                chunks[k].pad = 0;
            }
            segs[i].last = k;
            segs[i].dest = i;
            segs[i].n = n[i];
        }
    }
    UGG_TRY(ugg_reserve(&dchunks, (nchunks ? nchunks : 1) * sizeof *chunks));
    UGG_TRY(ugg_reserve(&dsegs, (count ? count : 1) * sizeof *segs));
    if (nchunks)
        UGG_TRY(cudaMemcpy(dchunks.p, chunks, nchunks * sizeof *chunks, cudaMemcpyHostToDevice));
    UGG_TRY(cudaMemcpy(dsegs.p, segs, count * sizeof *segs, cudaMemcpyHostToDevice));
    rc = ugg_run_chunks(op, d_x, d_y, (const ugg_chunk *)dchunks.p, nchunks,
                        (const ugg_seg *)dsegs.p, count, all_single, d_out, err, len);
fail:
    free(chunks);
    free(segs);
    return rc;
}

int ugg_sums_host(const float *const *x, const size_t *n, size_t count, ug_exact *out, char *err,
                  size_t len)
{
    return host_batch(UGG_OP_SUM, x, NULL, n, count, out, err, len);
}

int ugg_dots_host(const float *const *x, const float *const *y, const size_t *n, size_t count,
                  ug_exact *out, char *err, size_t len)
{
    return host_batch(UGG_OP_DOT, x, y, n, count, out, err, len);
}
