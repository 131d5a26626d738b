/*
 * sumdot.cu - the GPU oracle's exact sums and dot products of binary32 (oracle/gpu.h).
 *
 * Decomposition (the arithmetic is oracle/gpu_arith.h's; oracle/gpu_model.c runs this same
 * decomposition on the host, and the self-test checks it against MPFR):
 *   - a batch is a list of segments; each segment is cut into chunks of UGG_CHUNK_* terms
 *     (host: ugg_segments_run), one block per chunk (ugg_chunk_kernel);
 *   - in a block, thread t takes the chunk's terms t, t + TPB, t + 2 TPB, ... (coalesced: a warp
 *     reads 32 consecutive floats), in batches of UNROLL, the next batch loading while this one
 *     is binned; loads past the end read the identity term -0 (sum) or -0 * +0 (dot), which adds
 *     nothing and keeps the "every term is -0" flag: so every term of the chunk is binned
 *     exactly once, by exactly one thread;
 *   - each thread bins its terms into its own column of shared memory, bins[b][tid] (no other
 *     thread touches it: no atomics, no synchronisation; the [b][tid] layout puts a warp's 32
 *     64-bit bins in distinct banks whatever b each lane picks), at most 2^11 terms a thread,
 *     so bins stay below 2^43;
 *   - the thread's bins become limbs (ugg_bins_to_limbs), the block adds its threads' limbs and
 *     counts (int64 additions of values below 2^33: exact) into the chunk's fields;
 *   - a segment's chunks' fields are added (one thread when it has at most one chunk, a block
 *     otherwise: exact int64 additions, fewer than 2^23 chunks) and rounded once (ugg_finish).
 * Every merge is an integer addition, so the result does not depend on the order or the
 * shapes: it is the exact value, rounded once.
 * Throughput design (sums): 16 loads in flight per thread at all times (24 KiB per SM, what an
 * H100's ~3.35 TB/s needs at ~0.8 us latency: ~20 KiB), 12 warps per SM (3 blocks of 128
 * threads x 64 KiB of bins), ~16 instructions and one 64-bit shared read-modify-write per term:
 * shared memory allows ~8 terms per clock per SM, memory bandwidth needs ~3 on an H100.
 */
#include "gpu_oracle.cuh"

#include <stdlib.h>
#include <string.h>

namespace {

enum { MERGE_TPB = 256 };

template <int OP> struct shape;
template <> struct shape<UGG_OP_SUM> {
    static const int TPB = UGG_TPB_SUM, WINS = UGG_SUM_WINS, NL = UGG_SUM_LIMBS,
                     BINS = 2 * UGG_SUM_WINS, UNROLL = 16, BIAS = UGG_SUM_BIAS;
};
template <> struct shape<UGG_OP_DOT> {
    static const int TPB = UGG_TPB_DOT, WINS = UGG_DOT_WINS, NL = UGG_DOT_LIMBS,
                     BINS = 2 * UGG_DOT_WINS, UNROLL = 8, BIAS = UGG_DOT_BIAS;
};

template <int OP> constexpr size_t shared_bytes()
{
    return (size_t)shape<OP>::BINS * shape<OP>::TPB * sizeof(uint64_t);
}

/* One term into the thread's bins (column `mine`, stride TPB) or its special counts. */
template <int OP>
__device__ __forceinline__ void bin_term(uint32_t a, uint32_t b, uint64_t *mine,
                                         uint32_t &nan_terms, uint32_t &posinf, uint32_t &neginf,
                                         uint32_t &notneg)
{
    const int TPB = shape<OP>::TPB;
    int cls = OP == UGG_OP_DOT ? ugg_dot_special(a, b) : ugg_sum_special(a);
    if (cls) { /* rare: NaN and inf terms carry no pieces */
        nan_terms += cls == UGG_T_NAN;
        posinf += cls == UGG_T_POSINF;
        neginf += cls == UGG_T_NEGINF;
    } else if (OP == UGG_OP_DOT) {
        uint32_t bin, lo, hi;
        ugg_dot_pieces(a, b, &bin, &lo, &hi);
        mine[bin * TPB] += lo;
        mine[(bin + 8) * TPB] += hi;
    } else {
        uint32_t bin, piece;
        ugg_sum_piece(a, &bin, &piece);
        mine[bin * TPB] += piece;
    }
    notneg |= OP == UGG_OP_DOT ? ugg_dot_not_negzero(a, b) : ugg_sum_not_negzero(a);
}

/* Terms i, i + TPB, ..., i + (UNROLL - 1) TPB of a chunk of len (the identity past the end). */
template <int OP>
__device__ __forceinline__ void load_batch(const uint32_t *__restrict__ xs,
                                           const uint32_t *__restrict__ ys, uint32_t i,
                                           uint32_t len, uint32_t *a, uint32_t *b)
{
#pragma unroll
    for (int u = 0; u < shape<OP>::UNROLL; u++) {
        uint32_t k = i + u * shape<OP>::TPB; /* < 2^17 + 2^12: no overflow */
        a[u] = k < len ? __ldg(xs + k) : 0x80000000u;
        b[u] = OP == UGG_OP_DOT && k < len ? __ldg(ys + k) : 0u;
    }
}

/* One block per chunk: part[chunk * F + f] = the chunk's fields (UGG_FIELDS(NL)). */
template <int OP>
__global__ void __launch_bounds__(shape<OP>::TPB, 3)
    chunk_kernel(const uint32_t *__restrict__ x, const uint32_t *__restrict__ y,
                 const ugg_chunk *__restrict__ chunks, int64_t *__restrict__ part)
{
    typedef shape<OP> S;
    const int F = UGG_FIELDS(S::NL);
    extern __shared__ uint64_t bins[]; /* [BINS][TPB], then reused as [F][TPB] */
    const int tid = threadIdx.x;
    const ugg_chunk c = chunks[blockIdx.x];
    uint64_t *mine = bins + tid;
    for (int b = 0; b < S::BINS; b++)
        mine[b * S::TPB] = 0;
    uint32_t nan_terms = 0, posinf = 0, neginf = 0, notneg = 0;
    const uint32_t *xs = x + c.x, *ys = OP == UGG_OP_DOT ? y + c.y : x;
    const uint32_t step = S::TPB * S::UNROLL;
    uint32_t a[S::UNROLL], b[S::UNROLL], na[S::UNROLL], nb[S::UNROLL];
    load_batch<OP>(xs, ys, tid, c.len, a, b);
    for (uint32_t i = tid; i < c.len; i += step) {
        load_batch<OP>(xs, ys, i + step, c.len, na, nb); /* in flight while a is binned */
#pragma unroll
        for (int u = 0; u < S::UNROLL; u++)
            bin_term<OP>(a[u], b[u], mine, nan_terms, posinf, neginf, notneg);
#pragma unroll
        for (int u = 0; u < S::UNROLL; u++) {
            a[u] = na[u];
            b[u] = nb[u];
        }
    }
    int64_t sl[S::NL], al[S::NL];
    ugg_bins_to_limbs(mine, S::TPB, S::WINS, sl, al);
    __syncthreads(); /* every thread has read its bins: the memory becomes the fields */
    int64_t *red = (int64_t *)bins;
#pragma unroll
    for (int l = 0; l < S::NL; l++) {
        red[l * S::TPB + tid] = sl[l];
        red[(S::NL + l) * S::TPB + tid] = al[l];
    }
    red[(2 * S::NL) * S::TPB + tid] = nan_terms;
    red[(2 * S::NL + 1) * S::TPB + tid] = posinf;
    red[(2 * S::NL + 2) * S::TPB + tid] = neginf;
    red[(2 * S::NL + 3) * S::TPB + tid] = notneg;
    __syncthreads();
    for (int f = tid; f < F; f += S::TPB) {
        int64_t s = 0;
        for (int t = 0; t < S::TPB; t++)
            s += red[f * S::TPB + t];
        part[(size_t)blockIdx.x * F + f] = s;
    }
}

/* Segments with at most one chunk: one thread each. */
template <int OP>
__global__ void merge_single(const int64_t *__restrict__ part, const ugg_seg *__restrict__ segs,
                             uint64_t nseg, ug_exact *out)
{
    typedef shape<OP> S;
    const int F = UGG_FIELDS(S::NL);
    uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseg)
        return;
    ugg_seg g = segs[s];
    if (g.last - g.first > 1)
        return;
    int64_t f[F];
    for (int i = 0; i < F; i++)
        f[i] = g.last > g.first ? part[g.first * F + i] : 0;
    ugg_finish(f, S::NL, -S::BIAS, g.n, &out[g.dest]);
}

/* Segments with more chunks: one block each, every thread adding a stride of chunks. */
template <int OP>
__global__ void __launch_bounds__(MERGE_TPB)
    merge_multi(const int64_t *__restrict__ part, const ugg_seg *__restrict__ segs, ug_exact *out)
{
    typedef shape<OP> S;
    const int F = UGG_FIELDS(S::NL);
    __shared__ int64_t red[MERGE_TPB];
    __shared__ int64_t tot[F];
    ugg_seg g = segs[blockIdx.x];
    if (g.last - g.first <= 1)
        return; /* (merge_single's) */
    int64_t acc[F];
#pragma unroll
    for (int i = 0; i < F; i++)
        acc[i] = 0;
    for (uint64_t c = g.first + threadIdx.x; c < g.last; c += MERGE_TPB)
#pragma unroll
        for (int i = 0; i < F; i++)
            acc[i] += part[c * F + i];
    for (int i = 0; i < F; i++) {
        red[threadIdx.x] = acc[i];
        __syncthreads();
        for (int w = MERGE_TPB / 2; w > 0; w >>= 1) {
            if ((int)threadIdx.x < w)
                red[threadIdx.x] += red[threadIdx.x + w];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            tot[i] = red[0];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        ugg_finish(tot, S::NL, -S::BIAS, g.n, &out[g.dest]);
}

template <int OP>
int run_chunks(const float *d_x, const float *d_y, const ugg_chunk *d_chunks, uint64_t nchunks,
               const ugg_seg *d_segs, uint64_t nseg, int all_single, ug_exact *d_out, char *err,
               size_t len)
{
    typedef shape<OP> S;
    const int F = UGG_FIELDS(S::NL);
    static ugg_dbuf part;
    static int configured;
    if (!configured) { /* more than the default 48 KiB of dynamic shared memory, and the L1
                        * split that fits three blocks per SM */
        UGG_TRY(cudaFuncSetAttribute(chunk_kernel<OP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)shared_bytes<OP>()));
        UGG_TRY(cudaFuncSetAttribute(chunk_kernel<OP>,
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
        chunk_kernel<OP><<<(unsigned)nchunks, S::TPB, shared_bytes<OP>()>>>(
            (const uint32_t *)d_x, (const uint32_t *)(d_y ? d_y : d_x), d_chunks,
            (int64_t *)part.p);
        UGG_LAUNCHED();
    }
    if (nseg) {
        merge_single<OP><<<(unsigned)((nseg + 127) / 128), 128>>>((const int64_t *)part.p, d_segs,
                                                                  nseg, d_out);
        UGG_LAUNCHED();
        if (!all_single) {
            merge_multi<OP><<<(unsigned)nseg, MERGE_TPB>>>((const int64_t *)part.p, d_segs, d_out);
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

} // namespace

int ugg_run_chunks(int op, const float *d_x, const float *d_y, const ugg_chunk *d_chunks,
                   uint64_t nchunks, const ugg_seg *d_segs, uint64_t nseg, int all_single,
                   ug_exact *d_out, char *err, size_t len)
{
    return op == UGG_OP_DOT
               ? run_chunks<UGG_OP_DOT>(d_x, d_y, d_chunks, nchunks, d_segs, nseg, all_single,
                                        d_out, err, len)
               : run_chunks<UGG_OP_SUM>(d_x, d_y, d_chunks, nchunks, d_segs, nseg, all_single,
                                        d_out, err, len);
}

/* The descriptors: segment i's chunks cover [off + c CH, off + min((c + 1) CH, n)). */
int ugg_segments_run(int op, const float *d_x, const float *d_y, const uint64_t *off,
                     const uint64_t *n, size_t count, ug_exact *d_out, char *err, size_t len)
{
    static ugg_dbuf dchunks, dsegs;
    const uint64_t CH = op == UGG_OP_DOT ? UGG_CHUNK_DOT : UGG_CHUNK_SUM;
    uint64_t nchunks = 0;
    int all_single = 1, rc = 1;
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
