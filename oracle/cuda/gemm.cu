/*
 * gemm.cu - the GPU oracle's GEMM: every element of A B exact (oracle/gpu.h), by error-free
 * slicing into int8 digits and int8 tensor-core products (oracle/gpu_gemm_arith.h proves the
 * exactness conditions; oracle/gpu_model.c runs this pipeline on the host and the self-test
 * checks it against MPFR).
 *
 * Pipeline (all on the device, default stream):
 *   1. Bt = B^T (tiled transpose), so that B's columns are rows like A's;
 *   2. spans of A's rows and Bt's rows (one warp per row), copied to the host, which chooses S
 *      and T (ugg_choose_slices) and plans the products (ugg_gemm_plan);
 *   3. slices: A_sl (Mp x S Kp int8, slice s at columns [s Kp, (s + 1) Kp)) and |A_sl|; Bt_sl
 *      (Np x T Kp, slice t at block T - 1 - t) and |Bt_sl|; zero digits for padding and for rows
 *      the slices do not cover;
 *   4. per panel of output rows (bounded memory), each planned product twice (signed digits
 *      and |digits|) with cublasGemmEx, int8 in, int32 out, CUBLAS_COMPUTE_32I:
 *          cublasGemmEx(T, N, m = Np, n = rows, k = klen, 1, Bt_sl + bcol (lda T Kp),
 *                       A_sl + i0 S Kp + acol (ldb S Kp), 0, P (ldc Np))
 *      computes, column-major, P[j + i Np] = sum_k op(Bt_sl)(j, k) A_sl(k, i) with
 *      op(Bt_sl)(j, k) = Bt_sl[j T Kp + bcol + k] (transposed: cuBLAS's k x m operand is Bt_sl's
 *      row j) and A_sl(k, i) = A_sl[(i0 + i) S Kp + acol + k]: i.e. row-major
 *      P[i][j] = sum_k A_sl[i][acol + k] Bt_sl[j][bcol + k], exactly what the model computes.
 *      The "TN" form with every dimension, leading dimension and offset a multiple of 16 meets
 *      the IMMA kernels' requirements.  Once per process a self-check runs one such product
 *      with cuBLAS and with an exact dp4a kernel of ours on random digits: if cuBLAS refuses
 *      int8 or disagrees (this reading of its arguments wrong), the dp4a kernel computes every
 *      product (the same sums, int32, the same bound), and the reason goes to stderr once;
 *   5. reconstruction, one thread per element: sum of the products at their weights in six
 *      limbs, one rounding (ugg_gemm_finish); elements the slices cannot do are appended to a
 *      list (atomic counter: the order varies, the records do not);
 *   6. the fallback: one exact dot (sumdot.cu's bins) per listed element, A's row against Bt's
 *      row, written to its place.
 * Expected on an H100 for 4096^3 normal(0,1) (not measured here: no GPU): S = T = 6-7 slices,
 * 2 x 11-13 int8 GEMMs of 4096 x 4096 x (up to 7 x 4096), ~10 T int8 ops in all: ~6-10 ms at
 * 1000-1600 TOPS; slicing, reconstruction and fallback ~1-3 ms.
 */
#include "oracle/cuda/gpu_oracle.cuh"

#include <cublas_v2.h>
#include <nvtx3/nvToolsExtMemCudaRt.h>

#include <stdlib.h>
#include <string.h>

namespace {

enum { SPAN_WARPS = 8, SLICE_TPB = 256, REC_TPB = 128, FB_TPB = 128, PANEL_MAX = 65520 };
const size_t PANEL_BUDGET = (size_t)2 << 30; /* bytes of int32 products per panel (both) */

size_t pad16(size_t v)
{
    return (v + UGG_PAD - 1) / UGG_PAD * UGG_PAD;
}

/* out (cols x rows) = in (rows x cols)^T; blocks of 32 x 8 threads move 32 x 32 tiles. */
__global__ void transpose(const float *__restrict__ in, float *__restrict__ out, uint64_t rows,
                          uint64_t cols)
{
    __shared__ float tile[32][33];
    uint64_t c = (uint64_t)blockIdx.x * 32 + threadIdx.x;
    for (uint64_t tr = blockIdx.y; tr < (rows + 31) / 32; tr += gridDim.y) {
        uint64_t r0 = tr * 32;
        for (int y = threadIdx.y; y < 32; y += 8)
            tile[y][threadIdx.x] = (r0 + y < rows && c < cols) ? in[(r0 + y) * cols + c] : 0.0f;
        __syncthreads();
        uint64_t oc = r0 + threadIdx.x;
        for (int y = threadIdx.y; y < 32; y += 8) {
            uint64_t orow = (uint64_t)blockIdx.x * 32 + y;
            if (orow < cols && oc < rows)
                out[orow * rows + oc] = tile[threadIdx.x][y];
        }
        __syncthreads();
    }
}

/* One warp per row: the row's span (ugg_span_add per element, merged across lanes). */
__global__ void spans(const float *__restrict__ X, uint64_t rows, uint64_t cols, ugg_span *out)
{
    uint64_t row = (uint64_t)blockIdx.x * SPAN_WARPS + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows)
        return; /* the whole warp */
    ugg_span s;
    ugg_span_init(&s);
    const uint32_t *r = (const uint32_t *)X + row * cols;
    for (uint64_t k = lane; k < cols; k += 32)
        ugg_span_add(&s, __ldg(r + k));
    for (int o = 16; o > 0; o >>= 1) {
        ugg_span b;
        b.maxtop = __shfl_xor_sync(0xffffffffu, s.maxtop, o);
        b.minlsb = __shfl_xor_sync(0xffffffffu, s.minlsb, o);
        b.special = __shfl_xor_sync(0xffffffffu, s.special, o);
        ugg_span_merge(&s, &b);
    }
    if (lane == 0)
        out[row] = s;
}

/* Digits of X's rows (rows x cols) into sl and abs_sl (rows_p x S Kp): element (row, k) gives
 * digit s at row S Kp + slot(s) Kp + k, slot(s) = s, or S - 1 - s when reverse; zero for
 * padding and uncovered rows.  One thread per k (consecutive bytes per warp). */
__global__ void slice(const float *__restrict__ X, uint64_t rows, uint64_t cols, uint64_t rows_p,
                      uint64_t Kp, const ugg_span *__restrict__ sp, int S, int reverse,
                      int8_t *__restrict__ sl, int8_t *__restrict__ abs_sl)
{
    uint64_t k = (uint64_t)blockIdx.x * SLICE_TPB + threadIdx.x;
    if (k >= Kp)
        return;
    for (uint64_t row = blockIdx.y; row < rows_p; row += gridDim.y) {
        uint32_t b = 0;
        uint64_t v = 0;
        if (row < rows && k < cols && ugg_span_slices(&sp[row]) <= S) {
            b = __ldg((const uint32_t *)X + row * cols + k);
            v = ugg_scaled(b, ugg_span_r(&sp[row]), S);
        }
        uint64_t at0 = row * (uint64_t)S * Kp + k;
        for (int s = 0; s < S; s++) {
            int d = ugg_slice_digit(v, S, s);
            uint64_t at = at0 + (uint64_t)(reverse ? S - 1 - s : s) * Kp;
            sl[at] = ugg_signed_digit(b, d);
            abs_sl[at] = (int8_t)d;
        }
    }
}

/* The exact int8 product without cuBLAS: P[i ldc + j] = sum_k A[i lda + k] B[j ldb + k], k <
 * klen (a multiple of 16; rows 4-byte aligned), int32 via dp4a: the same sums as the plan's
 * bound keeps exact.  16 x 16 threads, 64 k a step. */
__global__ void i8gemm_dp4a(const int8_t *__restrict__ A, int lda, const int8_t *__restrict__ B,
                            int ldb, int rows, int cols, int klen, int32_t *__restrict__ P,
                            int ldc)
{
    __shared__ int As[16][17], Bs[16][17];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * 16 + ty, j = blockIdx.x * 16 + tx;
    int acc = 0;
    for (int k0 = 0; k0 < klen; k0 += 64) {
        int kw = k0 + 4 * tx, ar = blockIdx.y * 16 + ty, br = blockIdx.x * 16 + ty;
        As[ty][tx] = (ar < rows && kw < klen) ? *(const int *)(A + (size_t)ar * lda + kw) : 0;
        Bs[ty][tx] = (br < cols && kw < klen) ? *(const int *)(B + (size_t)br * ldb + kw) : 0;
        __syncthreads();
        for (int w = 0; w < 16; w++)
            acc = __dp4a(As[ty][w], Bs[tx][w], acc);
        __syncthreads();
    }
    if (i < rows && j < cols)
        P[(size_t)i * ldc + j] = acc;
}

/* One thread per element of the panel (rows i0 .. i0 + rows): its record, or its index on the
 * fallback list. */
__global__ void reconstruct(const int32_t *__restrict__ Ps, const int32_t *__restrict__ Pa,
                            const ugg_gemm_prod *__restrict__ prods, int np, uint64_t plane,
                            uint64_t Np, uint64_t i0, uint64_t rows, uint64_t N, int kpos,
                            const ugg_span *__restrict__ spa, const ugg_span *__restrict__ spb,
                            int S, int T, ug_exact *C, uint64_t *fb, unsigned long long *nfb)
{
    uint64_t j = (uint64_t)blockIdx.x * REC_TPB + threadIdx.x;
    if (j >= N)
        return;
    for (uint64_t ii = blockIdx.y; ii < rows; ii += gridDim.y) {
        uint64_t i = i0 + ii;
        int done = 0;
        if (kpos && ugg_span_slices(&spa[i]) <= S && ugg_span_slices(&spb[j]) <= T) {
            int64_t ws[UGG_GEMM_LIMBS] = {0, 0, 0, 0, 0, 0};
            int64_t wa[UGG_GEMM_LIMBS] = {0, 0, 0, 0, 0, 0};
            for (int p = 0; p < np; p++) {
                uint64_t at = (uint64_t)p * plane + ii * Np + j;
                ugg_wide_add(ws, Ps[at], prods[p].shift);
                ugg_wide_add(wa, Pa[at], prods[p].shift);
            }
            int base = ugg_span_r(&spa[i]) + ugg_span_r(&spb[j]) - 7 * (S + T);
            done = ugg_gemm_finish(ws, wa, base, &C[i * N + j]);
        }
        if (!done)
            fb[atomicAdd(nfb, 1ULL)] = i * N + j;
    }
}

/* The fallback's chunk and segment descriptors: element e = fb[e] = i N + j is the dot of A's
 * row i and Bt's row j, nck chunks of UGG_CHUNK_DOT terms. */
__global__ void fallback_desc(const uint64_t *__restrict__ fb, uint64_t nfb, uint64_t N,
                              uint64_t K, uint64_t nck, ugg_chunk *chunks, ugg_seg *segs)
{
    uint64_t e = (uint64_t)blockIdx.x * FB_TPB + threadIdx.x;
    if (e >= nfb)
        return;
    uint64_t idx = fb[e], i = idx / N, j = idx % N;
    for (uint64_t c = 0; c < nck; c++) {
        uint64_t k0 = c * UGG_CHUNK_DOT;
        ugg_chunk ch;
        ch.x = i * K + k0;
        ch.y = j * K + k0;
        ch.len = (uint32_t)(K - k0 < UGG_CHUNK_DOT ? K - k0 : UGG_CHUNK_DOT);
        ch.pad = 0;
        chunks[e * nck + c] = ch;
    }
    ugg_seg g;
    g.first = e * nck;
    g.last = (e + 1) * nck;
    g.dest = idx;
    g.n = K;
    segs[e] = g;
}

cublasHandle_t g_cublas;
int g_dp4a = -1; /* -1: not decided yet (self-check), 0: cuBLAS, 1: the dp4a kernel */

/* One planned product: P (rows x Np, ld Np) = A_panel[:, acol..] Bt_sl[:, bcol..]^T, with
 * cuBLAS (returns its status) or with the dp4a kernel. */
cublasStatus_t product_with(int dp4a, const int8_t *A_panel, int lda, const int8_t *Bt_sl, int ldb,
                            int rows_p, int Np, const ugg_gemm_prod *p, int32_t *P)
{
    if (!dp4a) {
        const int32_t one = 1, zero = 0;
        return cublasGemmEx(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, Np, rows_p, p->klen, &one,
                            Bt_sl + p->bcol, CUDA_R_8I, ldb, A_panel + p->acol, CUDA_R_8I, lda,
                            &zero, P, CUDA_R_32I, Np, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    }
    dim3 grid((unsigned)((Np + 15) / 16), (unsigned)((rows_p + 15) / 16)), block(16, 16);
    i8gemm_dp4a<<<grid, block>>>(A_panel + p->acol, lda, Bt_sl + p->bcol, ldb, rows_p, Np,
                                 p->klen, P, Np);
    return CUBLAS_STATUS_SUCCESS;
}

/* Tells compute-sanitizer's initcheck that cuBLAS wrote P (bytes from P): some of its int8
 * kernels store in a way initcheck does not see (on the H100 at 1024 x 1024 x 2048, TN, beta 0:
 * every read of the product flagged, yet it equals a plain kernel's, element for element).  A
 * no-op without a tool attached. */
void mark_written_by_cublas(const void *P, size_t bytes)
{
    static nvtxDomainHandle_t domain = nvtxDomainCreateA("ulpgate");
    nvtxMemVirtualRangeDesc_t range;
    nvtxMemMarkInitializedBatch_t batch;
    memset(&range, 0, sizeof range);
    memset(&batch, 0, sizeof batch);
    range.ptr = P;
    range.size = bytes;
    batch.extCompatID = NVTX_EXT_COMPATID_MEM;
    batch.structSize = sizeof batch;
    batch.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    batch.regionDescCount = 1;
    batch.regionDescElementSize = sizeof range;
    batch.regionDescElements = &range;
    nvtxMemCudaMarkInitialized(domain, 0, 0, &batch);
}

/* Random int8 digits in [-127, 127]. */
__global__ void fill_digits(int8_t *p, uint64_t n, uint32_t seed)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint32_t h = ((uint32_t)i ^ seed) * 2654435761u;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        p[i] = (int8_t)((int)(h % 255) - 127);
    }
}

/* Once per process: one product in the layout of the plan (offsets, leading dimensions, a
 * concatenation of slices) by cuBLAS and by the dp4a kernel; cuBLAS is used only if it accepts
 * int8 and agrees on every element.  Sets g_dp4a. */
int int8_selfcheck(char *err, size_t len)
{
    enum { R = 48, C = 64, S = 3, T = 2, KP = 96 };
    const ugg_gemm_prod p = {KP, 0, 2 * KP, 0}; /* slices 1-2 of A against blocks 0-1 of B */
    int8_t *a = NULL, *b = NULL;
    int32_t *p1 = NULL, *p2 = NULL;
    int32_t *h1 = (int32_t *)malloc(R * C * sizeof *h1);
    int32_t *h2 = (int32_t *)malloc(R * C * sizeof *h2);
    const char *why = NULL;
    int rc = 1;
    cublasStatus_t st;
    if (!h1 || !h2) {
        ugg_failf(err, len, "GPU oracle: out of host memory");
        goto fail;
    }
    UGG_TRY(cudaMalloc((void **)&a, R * S * KP));
    UGG_TRY(cudaMalloc((void **)&b, C * T * KP));
    UGG_TRY(cudaMalloc((void **)&p1, R * C * sizeof *p1));
    UGG_TRY(cudaMalloc((void **)&p2, R * C * sizeof *p2));
    fill_digits<<<(R * S * KP + 255) / 256, 256>>>(a, R * S * KP, 1);
    fill_digits<<<(C * T * KP + 255) / 256, 256>>>(b, C * T * KP, 2);
    UGG_LAUNCHED();
    st = product_with(0, a, S * KP, b, T * KP, R, C, &p, p1);
    if (st == CUBLAS_STATUS_SUCCESS)
        mark_written_by_cublas(p1, R * C * sizeof *p1);
    product_with(1, a, S * KP, b, T * KP, R, C, &p, p2);
    UGG_LAUNCHED();
    UGG_TRY(cudaMemcpy(h2, p2, R * C * sizeof *h2, cudaMemcpyDeviceToHost));
    if (st != CUBLAS_STATUS_SUCCESS) {
        why = cublasGetStatusString(st);
    } else {
        UGG_TRY(cudaMemcpy(h1, p1, R * C * sizeof *h1, cudaMemcpyDeviceToHost));
        if (memcmp(h1, h2, R * C * sizeof *h1) != 0)
            why = "its int8 products differ from the dp4a kernel's";
    }
    g_dp4a = why != NULL;
    if (why)
        fprintf(stderr, "ulpgate: GPU oracle: cublasGemmEx int8 not used (%s); the exact dp4a "
                        "kernel computes the products (slower)\n", why);
    rc = 0;
fail:
    cudaFree(a);
    cudaFree(b);
    cudaFree(p1);
    cudaFree(p2);
    free(h1);
    free(h2);
    return rc;
}

int product(const int8_t *A_panel, int lda, const int8_t *Bt_sl, int ldb, int rows_p, int Np,
            const ugg_gemm_prod *p, int32_t *P, char *err, size_t len)
{
    cublasStatus_t st = product_with(g_dp4a, A_panel, lda, Bt_sl, ldb, rows_p, Np, p, P);
    if (st != CUBLAS_STATUS_SUCCESS) {
        ugg_failf(err, len, "GPU oracle: cublasGemmEx (int8 x int8 -> int32, %d x %d x %d): %s",
                  Np, rows_p, p->klen, cublasGetStatusString(st));
        return 1;
    }
    UGG_LAUNCHED();
    if (!g_dp4a)
        mark_written_by_cublas(P, (size_t)rows_p * Np * sizeof *P);
    return 0;
fail:
    return 1;
}

} // namespace

int ugg_gemm_resident(const float *d_A, const float *d_B, size_t M, size_t N, size_t K,
                      ug_exact *d_C, ug_gpu_gemm_info *info, char *err, size_t len)
{
    static ugg_dbuf dBt, dsp, das, daa, dbs, dba, dps, dpa, dprods, dfb, dnfb, dch, dseg;
    ug_gpu_gemm_info inf = {0, 0, 0, 0, 0};
    ugg_span *hsp = NULL;
    ugg_gemm_prod *prods = NULL;
    size_t Mp = pad16(M), Np = pad16(N), Kp = pad16(K);
    uint64_t hr[UGG_SLICES_NONE + 1] = {0}, hc[UGG_SLICES_NONE + 1] = {0};
    unsigned long long nfb = 0;
    int S = 1, T = 1, np = 0, rc = 1;
    ugg_span *d_sp;
    float *d_Bt;
    if (M == 0 || N == 0)
        goto done;
    if (!g_cublas && cublasCreate(&g_cublas) != CUBLAS_STATUS_SUCCESS) {
        g_cublas = NULL;
        ugg_failf(err, len, "GPU oracle: cublasCreate failed");
        return 1;
    }
    if (g_dp4a < 0 && int8_selfcheck(err, len))
        return 1;
    /* 1, 2: Bt and the spans */
    UGG_TRY(ugg_reserve(&dBt, (N * K > 0 ? N * K : 1) * sizeof(float)));
    UGG_TRY(ugg_reserve(&dsp, (M + N) * sizeof(ugg_span)));
    d_Bt = (float *)dBt.p;
    d_sp = (ugg_span *)dsp.p;
    if (K) {
        size_t row_tiles = (K + 31) / 32;
        dim3 grid((unsigned)((N + 31) / 32), (unsigned)(row_tiles < 65535 ? row_tiles : 65535));
        transpose<<<grid, dim3(32, 8)>>>(d_B, d_Bt, K, N);
        UGG_LAUNCHED();
        spans<<<(unsigned)((M + SPAN_WARPS - 1) / SPAN_WARPS), 32 * SPAN_WARPS>>>(d_A, M, K, d_sp);
        UGG_LAUNCHED();
        spans<<<(unsigned)((N + SPAN_WARPS - 1) / SPAN_WARPS), 32 * SPAN_WARPS>>>(d_Bt, N, K,
                                                                                 d_sp + M);
        UGG_LAUNCHED();
    } else {
        UGG_TRY(cudaMemset(d_sp, 0, (M + N) * sizeof(ugg_span))); /* unused: all fallback */
    }
    hsp = (ugg_span *)malloc((M + N) * sizeof *hsp);
    if (!hsp) {
        ugg_failf(err, len, "GPU oracle: out of host memory");
        goto fail;
    }
    UGG_TRY(cudaMemcpy(hsp, d_sp, (M + N) * sizeof *hsp, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < M; i++)
        hr[ugg_span_slices(&hsp[i])]++;
    for (size_t j = 0; j < N; j++)
        hc[ugg_span_slices(&hsp[M + j])]++;
    ugg_choose_slices(hr, hc, M, N, K, &S, &T);
    np = K ? ugg_gemm_plan(S, T, (int)Kp, NULL, 0) : 0;
    prods = (ugg_gemm_prod *)malloc((np ? np : 1) * sizeof *prods);
    if (!prods) {
        ugg_failf(err, len, "GPU oracle: out of host memory");
        goto fail;
    }
    ugg_gemm_plan(S, T, (int)Kp, prods, np);
    UGG_TRY(ugg_reserve(&dfb, M * N * sizeof(uint64_t)));
    UGG_TRY(ugg_reserve(&dnfb, sizeof(unsigned long long)));
    UGG_TRY(cudaMemset(dnfb.p, 0, sizeof(unsigned long long)));
    {
        /* 3: slices (only with terms: K == 0 leaves every element to the fallback, +0) */
        size_t lda = (size_t)S * Kp, ldb = (size_t)T * Kp;
        size_t Pm = PANEL_BUDGET / ((size_t)(np ? np : 1) * Np * 8) / UGG_PAD * UGG_PAD;
        Pm = Pm < (size_t)UGG_PAD ? (size_t)UGG_PAD : Pm;
        Pm = Pm > (size_t)PANEL_MAX ? (size_t)PANEL_MAX : Pm;
        Pm = Pm > Mp ? Mp : Pm;
        if (K) {
            UGG_TRY(ugg_reserve(&das, Mp * lda));
            UGG_TRY(ugg_reserve(&daa, Mp * lda));
            UGG_TRY(ugg_reserve(&dbs, Np * ldb));
            UGG_TRY(ugg_reserve(&dba, Np * ldb));
            UGG_TRY(ugg_reserve(&dprods, np * sizeof *prods));
            UGG_TRY(ugg_reserve(&dps, (size_t)np * Pm * Np * sizeof(int32_t)));
            UGG_TRY(ugg_reserve(&dpa, (size_t)np * Pm * Np * sizeof(int32_t)));
            UGG_TRY(cudaMemcpy(dprods.p, prods, np * sizeof *prods, cudaMemcpyHostToDevice));
            unsigned gy = (unsigned)(Mp < 65535 ? Mp : 65535);
            slice<<<dim3((unsigned)((Kp + SLICE_TPB - 1) / SLICE_TPB), gy), SLICE_TPB>>>(
                d_A, M, K, Mp, Kp, d_sp, S, 0, (int8_t *)das.p, (int8_t *)daa.p);
            UGG_LAUNCHED();
            gy = (unsigned)(Np < 65535 ? Np : 65535);
            slice<<<dim3((unsigned)((Kp + SLICE_TPB - 1) / SLICE_TPB), gy), SLICE_TPB>>>(
                d_Bt, N, K, Np, Kp, d_sp + M, T, 1, (int8_t *)dbs.p, (int8_t *)dba.p);
            UGG_LAUNCHED();
        }
        /* 4, 5: per panel, the products and the reconstruction */
        for (size_t i0 = 0; i0 < M; i0 += Pm) {
            size_t rows = M - i0 < Pm ? M - i0 : Pm, rows_p = pad16(rows);
            for (int p = 0; p < np; p++) {
                int32_t *Ps = (int32_t *)dps.p + (size_t)p * Pm * Np;
                int32_t *Pa = (int32_t *)dpa.p + (size_t)p * Pm * Np;
                if (product((const int8_t *)das.p + i0 * lda, (int)lda, (const int8_t *)dbs.p,
                            (int)ldb, (int)rows_p, (int)Np, &prods[p], Ps, err, len) ||
                    product((const int8_t *)daa.p + i0 * lda, (int)lda, (const int8_t *)dba.p,
                            (int)ldb, (int)rows_p, (int)Np, &prods[p], Pa, err, len))
                    goto fail;
            }
            dim3 grid((unsigned)((N + REC_TPB - 1) / REC_TPB),
                      (unsigned)(rows < 65535 ? rows : 65535));
            reconstruct<<<grid, REC_TPB>>>((const int32_t *)dps.p, (const int32_t *)dpa.p,
                                           (const ugg_gemm_prod *)dprods.p, np, Pm * Np, Np, i0,
                                           rows, N, K > 0, d_sp, d_sp + M, S, T, d_C,
                                           (uint64_t *)dfb.p, (unsigned long long *)dnfb.p);
            UGG_LAUNCHED();
        }
    }
    /* 6: the fallback */
    UGG_TRY(cudaMemcpy(&nfb, dnfb.p, sizeof nfb, cudaMemcpyDeviceToHost));
    if (nfb) {
        uint64_t nck = (K + UGG_CHUNK_DOT - 1) / UGG_CHUNK_DOT;
        UGG_TRY(ugg_reserve(&dch, (nfb * nck > 0 ? nfb * nck : 1) * sizeof(ugg_chunk)));
        UGG_TRY(ugg_reserve(&dseg, nfb * sizeof(ugg_seg)));
        fallback_desc<<<(unsigned)((nfb + FB_TPB - 1) / FB_TPB), FB_TPB>>>(
            (const uint64_t *)dfb.p, nfb, N, K, nck, (ugg_chunk *)dch.p, (ugg_seg *)dseg.p);
        UGG_LAUNCHED();
        if (ugg_run_chunks(UGG_OP_DOT, d_A, d_Bt, (const ugg_chunk *)dch.p, nfb * nck,
                           (const ugg_seg *)dseg.p, nfb, nck <= 1, d_C, err, len))
            goto fail;
    }
done:
    inf.S = S;
    inf.T = T;
    inf.products = np;
    inf.fallback = nfb;
    inf.dp4a = g_dp4a == 1;
    if (info)
        *info = inf;
    rc = 0;
fail:
    free(hsp);
    free(prods);
    return rc;
}

int ugg_gemm_host(const float *A, const float *B, size_t M, size_t N, size_t K, ug_exact *C,
                  ug_gpu_gemm_info *info, char *err, size_t len)
{
    static ugg_dbuf dA, dB, dC;
    if (M == 0 || N == 0)
        return ugg_gemm_resident(NULL, NULL, M, N, K, NULL, info, err, len);
    UGG_TRY(ugg_reserve(&dA, (M * K > 0 ? M * K : 1) * sizeof(float)));
    UGG_TRY(ugg_reserve(&dB, (K * N > 0 ? K * N : 1) * sizeof(float)));
    UGG_TRY(ugg_reserve(&dC, M * N * sizeof(ug_exact)));
    if (K) {
        UGG_TRY(cudaMemcpy(dA.p, A, M * K * sizeof(float), cudaMemcpyHostToDevice));
        UGG_TRY(cudaMemcpy(dB.p, B, K * N * sizeof(float), cudaMemcpyHostToDevice));
    }
    if (ugg_gemm_resident((const float *)dA.p, (const float *)dB.p, M, N, K, (ug_exact *)dC.p,
                          info, err, len))
        return 1;
    UGG_TRY(cudaMemcpy(C, dC.p, M * N * sizeof(ug_exact), cudaMemcpyDeviceToHost));
    return 0;
fail:
    return 1;
}
