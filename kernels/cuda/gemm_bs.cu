/*
 * gemm_bs.cu - CUDA kernels of the block-scaled GEMM (ops/gemm_bs.c): A and B packed on the host
 * into the block-scaled storage (base/bsfp8.h: e4m3 element bytes, an E8M0 scale byte per
 * 1 x 128 tile of A and per 128 x 128 block of B), the bytes uploaded, C binary32.
 *
 *   gemm_bs_dequant_cuda       one thread an output: elements x scales to binary32 (exact), an
 *                              fmaf chain over k                                   tree
 *   gemm_bs_mma_promoted       DeepSeek-V3's recipe: mma.sync m16n8k32 e4m3 on the elements,
 *                              the tensor core's accumulator restarted every 128 terms, each
 *                              chunk times 2^(e_a + e_b) added to a binary32 sum  bs_fp8_promoted
 *   gemm_bs_mma_unpromoted     the same, one accumulator for all of K: at a chunk's end it is
 *                              rescaled by the power of two between the chunk's scales and the
 *                              next's (exact), at the end by the last chunk's; claims
 *                              bs_fp8_promoted, which it breaks on long K where mma.sync e4m3 is
 *                              the fp8 tensor core's narrow accumulator.  On sm_90 it is not:
 *                              ptxas turns it into F2FP.F16.E4M3 conversions and two
 *                              HMMA.16816.F32 (the f16 path, a 24-bit accumulator), so there
 *                              the kernel keeps the class
 *   gemm_bs_lt_blockscaled     cuBLASLt's block-scaled fp8 GEMM: A's tiles as
 *                              CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F, B's blocks as
 *                              BLK128x128_32F, the E8M0 scales as their binary32 values (exact);
 *                              order unknown: depth K - 1 within a chunk          bs_fp8_promoted
 *   gemm_bs_lt_fast_accum      cuBLASLt's fp8 GEMM with one binary32 scale per tensor and
 *                              CUBLASLT_MATMUL_DESC_FAST_ACCUM: wgmma's accumulator kept over all
 *                              of K, never promoted; valid only where every tile of A shares one
 *                              scale and every block of B another (uniform(0, 1) data does),
 *                              unsupported elsewhere, saying so.  Claims bs_fp8_promoted and
 *                              breaks it on long K: the H200's 14-bit fp8 accumulator
 *
 * cuBLASLt's block-scaled modes (CUDA 13's cublasLt.h, cublasLtMatmulMatrixScale_t):
 * SCALAR_32F (one scale per tensor), VEC16_UE4M3 (NVFP4: an E4M3 scale per 16 elements),
 * VEC32_UE8M0 (MX: an E8M0 scale per 32), OUTER_VEC_32F (a binary32 scale per row of A and per
 * column of B), VEC128_32F (a binary32 scale per 128 elements along K) and BLK128x128_32F (per
 * 128 x 128 block).  The two MX/NVFP4 modes are Blackwell's block-scaled tensor cores (sm_100+);
 * on Hopper cuBLAS 12.9 added OUTER_VEC_32F, VEC128_32F and BLK128x128_32F for fp8 -- DeepSeek's
 * 1x128 / 128x128 layout, the one this row calls.  Wherever the library refuses (another GPU, a
 * shape it does not take: K not a multiple of 16), the point is skipped with the library's own
 * status string.  The scale tensors' layout is not in the header; it is the one PyTorch's
 * _scaled_mm hands these two modes on Hopper: the 1 x 128 (VEC128_32F) scales of A with A's
 * rows fastest, the row count padded to a multiple of 4, one such row per 128 of K; the
 * 128 x 128 (BLK128x128_32F) scales of B with K's blocks fastest, their count padded to a
 * multiple of 4, one such column per 128 columns of B.  Not yet run on a GPU (a wrong layout
 * shows as errors far past the class, never as a pass).
 *
 * fp8 mma.sync needs sm_89 or later: elsewhere the mma rows are skipped, saying so.
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <cublasLt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bsfp8.h"

UG_CUDA_BEGIN

enum { BS_DEQUANT, BS_MMA_PROMOTED, BS_MMA_UNPROMOTED, BS_LT, BS_LT_FAST };
enum { UG_BS_LT_WORKSPACE = 32 << 20 };

__constant__ float ug_bs_e4m3[256]; /* e4m3 code -> value */

// ----------------------------------------------------------------------------
// device code

/* The scale exponent e_a + e_b of output (r, c) at chunk q; 0 outside the matrix. */
static __device__ __forceinline__ int ug_bs_shift(const uint8_t *sa, const uint8_t *sb, int r,
                                                  int c, int q, int M, int N, int KB, int NB)
{
    if (r >= M || c >= N) return 0;
    return (int)sa[(size_t)r * KB + q] - 127 + (int)sb[(size_t)q * NB + c / 128] - 127;
}

__global__ void ug_bs_dequant_kernel(const uint8_t *ea, const uint8_t *sa, const uint8_t *eb,
                                     const uint8_t *sb, float *C, int M, int N, int K, int KB,
                                     int NB)
{
    size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (size_t)M * N) return;
    int i = (int)(e / N), j = (int)(e % N);
    float acc = 0.f;
    for (int k = 0; k < K; k++) {
        float a = ldexpf(ug_bs_e4m3[ea[(size_t)i * K + k]], (int)sa[(size_t)i * KB + k / 128] - 127);
        float b = ldexpf(ug_bs_e4m3[eb[(size_t)k * N + j]], (int)sb[(size_t)(k / 128) * NB + j / 128] - 127);
        acc = fmaf(a, b, acc);
    }
    C[e] = acc;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
static __device__ __forceinline__ unsigned ug_bs_pack4(const unsigned char *p)
{
    return (unsigned)p[0] | ((unsigned)p[1] << 8) | ((unsigned)p[2] << 16) | ((unsigned)p[3] << 24);
}
#endif

/* One warp a 16 x 8 tile of C, k in order, tiles staged in shared memory and zero-filled past
 * the edges (tensorcore.cu's mma_e4m3 loop); the fragment's outputs (r, c): d[0] (g, 2q),
 * d[1] (g, 2q + 1), d[2] (g + 8, 2q), d[3] (g + 8, 2q + 1). */
template <bool PROMOTE>
__global__ void ug_bs_mma_kernel(const unsigned char *A, const unsigned char *Bt,
                                 const uint8_t *sa, const uint8_t *sb, float *C, int M, int N,
                                 int K, int KB, int NB, int *unsupported)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    __shared__ __align__(16) unsigned char As[16][32];
    __shared__ __align__(16) unsigned char Bs[8][32];
    const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
    const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    const int rr[4] = {row0 + g, row0 + g, row0 + g + 8, row0 + g + 8};
    const int cc[4] = {col0 + 2 * q, col0 + 2 * q + 1, col0 + 2 * q, col0 + 2 * q + 1};
    float d[4] = {0.f, 0.f, 0.f, 0.f}, p[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = lane; i < 512; i += 32) {
            int r = i / 32, kk = i % 32;
            As[r][kk] = row0 + r < M && k0 + kk < K ? A[(size_t)(row0 + r) * K + k0 + kk] : 0;
        }
        for (int i = lane; i < 256; i += 32) {
            int n = i / 32, kk = i % 32;
            Bs[n][kk] = col0 + n < N && k0 + kk < K ? Bt[(size_t)(col0 + n) * K + k0 + kk] : 0;
        }
        __syncwarp();
        unsigned a0 = ug_bs_pack4(&As[g][4 * q]), a1 = ug_bs_pack4(&As[g + 8][4 * q]);
        unsigned a2 = ug_bs_pack4(&As[g][4 * q + 16]), a3 = ug_bs_pack4(&As[g + 8][4 * q + 16]);
        unsigned b0 = ug_bs_pack4(&Bs[g][4 * q]), b1 = ug_bs_pack4(&Bs[g][4 * q + 16]);
        float *acc = PROMOTE ? p : d;
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        if ((k0 + 32) % 128 == 0 || k0 + 32 >= K) { /* the chunk's end */
            int ch = k0 / 128;
            for (int j = 0; j < 4; j++) {
                int s = ug_bs_shift(sa, sb, rr[j], cc[j], ch, M, N, KB, NB);
                if (PROMOTE) {
                    d[j] += ldexpf(p[j], s); /* exact product, one rounded addition */
                    p[j] = 0.f;
                } else {
                    int next = k0 + 32 < K ? ug_bs_shift(sa, sb, rr[j], cc[j], ch + 1, M, N, KB, NB) : 0;
                    d[j] = ldexpf(d[j], s - next);
                }
            }
        }
        __syncwarp();
    }
    for (int j = 0; j < 4; j++)
        if (rr[j] < M && cc[j] < N) C[(size_t)rr[j] * N + cc[j]] = d[j];
#else
    (void)A, (void)Bt, (void)sa, (void)sb, (void)C, (void)M, (void)N, (void)K, (void)KB, (void)NB;
    if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0) *unsupported = 1;
#endif
}

// ----------------------------------------------------------------------------
// cuBLASLt

#define UG_BS_LT_TRY(c, expr) UG_CUBLASLT_TRY((c), "gemm_bs.cu", expr)

static cublasLtHandle_t g_bs_lt;

/* The cuBLASLt plan of one call: C^T (N x M, column-major) = B^T A^T, cuBLAS's A our B^T (K x N
 * column-major: Bt) transposed, its B our A (K x M column-major: A row-major), as tensorcore.cu
 * calls fp8 ("TN", the layout cuBLASLt's fp8 takes).  0, or nonzero with c->err (and
 * c->unsupported where the library says so, in its own words). */
typedef struct {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulHeuristicResult_t heur;
} ug_bs_lt_plan;

static void ug_bs_lt_free(ug_bs_lt_plan *p)
{
    if (p->la) cublasLtMatrixLayoutDestroy(p->la);
    if (p->lb) cublasLtMatrixLayoutDestroy(p->lb);
    if (p->lc) cublasLtMatrixLayoutDestroy(p->lc);
    if (p->op) cublasLtMatmulDescDestroy(p->op);
}

static int ug_bs_lt_plan_make(ug_call *c, ug_bs_lt_plan *p, size_t M, size_t N, size_t K,
                              const float *d_sa, const float *d_sb, bool fast)
{
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    int32_t mode_a = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F; /* cuBLAS's A: our B */
    int32_t mode_b = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;     /* cuBLAS's B: our A */
    cublasLtMatmulPreference_t pref = NULL;
    size_t ws = UG_BS_LT_WORKSPACE;
    int returned = 0;
    if (!g_bs_lt) UG_BS_LT_TRY(c, cublasLtCreate(&g_bs_lt));
    UG_BS_LT_TRY(c, cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    UG_BS_LT_TRY(c, cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    UG_BS_LT_TRY(c, cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (fast) { /* one scale per tensor (the default mode), the accumulator never promoted */
        const int8_t on = 1;
        UG_BS_LT_TRY(c, cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &on, sizeof on));
    } else {
        UG_BS_LT_TRY(c, cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_a, sizeof mode_a));
        UG_BS_LT_TRY(c, cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_b, sizeof mode_b));
    }
    UG_BS_LT_TRY(c, cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &d_sb, sizeof d_sb));
    UG_BS_LT_TRY(c, cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &d_sa, sizeof d_sa));
    UG_BS_LT_TRY(c, cublasLtMatrixLayoutCreate(&p->la, CUDA_R_8F_E4M3, K, N, (int64_t)K));
    UG_BS_LT_TRY(c, cublasLtMatrixLayoutCreate(&p->lb, CUDA_R_8F_E4M3, K, M, (int64_t)K));
    UG_BS_LT_TRY(c, cublasLtMatrixLayoutCreate(&p->lc, CUDA_R_32F, N, M, (int64_t)N));
    UG_BS_LT_TRY(c, cublasLtMatmulPreferenceCreate(&pref));
    UG_BS_LT_TRY(c, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                         &ws, sizeof ws));
    UG_BS_LT_TRY(c, cublasLtMatmulAlgoGetHeuristic(g_bs_lt, p->op, p->la, p->lb, p->lc, p->lc, pref,
                                                   1, &p->heur, &returned));
    if (returned == 0) {
        ug_cuda_failf(c, "cublasLtMatmulAlgoGetHeuristic: no algorithm for %s fp8 at M=%zu "
                      "N=%zu K=%zu on this GPU",
                      fast ? "per-tensor scaled, fast-accumulating" : "block-scaled (VEC128_32F x "
                      "BLK128x128_32F)", M, N, K);
        c->unsupported = true;
    }
cleanup:
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// the launcher

/* Host buffers of one call: the packed storage (ug_bs_pack), B's elements transposed (N x K)
 * for the mma and cuBLASLt rows, and cuBLASLt's binary32 scales. */
typedef struct {
    uint8_t *ea, *sa, *eb, *sb, *ebt;
    float *fa, *fb;
    size_t lda_s, ldb_s; /* fa's and fb's leading dimensions: M and KB padded to 4 */
} ug_bs_host;

static void ug_bs_host_free(ug_bs_host *h)
{
    free(h->ea), free(h->sa), free(h->eb), free(h->sb), free(h->ebt), free(h->fa), free(h->fb);
}

/* Pack the call's inputs (per_tensor: cuBLASLt's scales as one value each, refused as
 * unsupported unless every tile or block shares it); 0, or nonzero with c->err. */
static int ug_bs_host_pack(ug_call *c, ug_bs_host *h, size_t M, size_t N, size_t K,
                           bool per_tensor)
{
    ug_bs_grid ga = ug_bs_grid_a(M, K), gb = ug_bs_grid_b(K, N);
    size_t KB = ug_bs_grid_across(&ga), NB = ug_bs_grid_across(&gb);
    char why[300];
    h->ea = (uint8_t *)malloc(M * K), h->eb = (uint8_t *)malloc(K * N), h->ebt = (uint8_t *)malloc(K * N);
    h->sa = (uint8_t *)malloc(M * KB), h->sb = (uint8_t *)malloc(KB * NB);
    h->lda_s = (M + 3) / 4 * 4, h->ldb_s = (KB + 3) / 4 * 4;
    h->fa = (float *)calloc(h->lda_s * KB, sizeof(float));
    h->fb = (float *)calloc(h->ldb_s * NB, sizeof(float));
    if (!h->ea || !h->eb || !h->ebt || !h->sa || !h->sb || !h->fa || !h->fb) {
        ug_cuda_failf(c, "gemm_bs: out of host memory packing %zu x %zu x %zu", M, N, K);
        return 1;
    }
    if (ug_bs_pack(&ga, ug_in_f32(c, 0), h->ea, h->sa, why, sizeof why)) {
        ug_cuda_failf(c, "input A: %s", why);
        return 1;
    }
    if (ug_bs_pack(&gb, ug_in_f32(c, 1), h->eb, h->sb, why, sizeof why)) {
        ug_cuda_failf(c, "input B: %s", why);
        return 1;
    }
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++) h->ebt[j * K + k] = h->eb[k * N + j];
    if (per_tensor) { /* one scale for A, one for B: every tile and block must share it */
        for (size_t e = 1; e < M * KB; e++)
            if (h->sa[e] != h->sa[0]) {
                ug_cuda_failf(c, "per-tensor scale: A's tiles have scales 2^%d and 2^%d (one "
                              "scale a tensor takes only data whose blocks share one)",
                              (int)h->sa[0] - 127, (int)h->sa[e] - 127);
                c->unsupported = true;
                return 1;
            }
        for (size_t e = 1; e < KB * NB; e++)
            if (h->sb[e] != h->sb[0]) {
                ug_cuda_failf(c, "per-tensor scale: B's blocks have scales 2^%d and 2^%d (one "
                              "scale a tensor takes only data whose blocks share one)",
                              (int)h->sb[0] - 127, (int)h->sb[e] - 127);
                c->unsupported = true;
                return 1;
            }
        h->fa[0] = ldexpf(1.f, (int)h->sa[0] - 127), h->fb[0] = ldexpf(1.f, (int)h->sb[0] - 127);
        return 0;
    }
    /* cuBLASLt's layouts (the file's header; run on the H200 by gpu_gemm_bs/scales, where the
     * three other orders of A's and B's scale indices fail) */
    for (size_t q = 0; q < KB; q++) {
        for (size_t i = 0; i < M; i++)
            h->fa[q * h->lda_s + i] = ldexpf(1.f, (int)h->sa[i * KB + q] - 127);
        for (size_t b = 0; b < NB; b++)
            h->fb[b * h->ldb_s + q] = ldexpf(1.f, (int)h->sb[q * NB + b] - 127);
    }
    return 0;
}

int ug_gemm_bs_gpu_run(const ug_kernel *k, ug_call *c)
{
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    size_t KB = (K + 127) / 128, NB = (N + 127) / 128;
    ug_bs_host h;
    memset(&h, 0, sizeof h);
    ug_bs_lt_plan plan;
    memset(&plan, 0, sizeof plan);
    uint8_t *d_ea = NULL, *d_sa = NULL, *d_eb = NULL, *d_sb = NULL;
    float *d_c = NULL, *d_fa = NULL, *d_fb = NULL;
    void *d_ws = NULL;
    int *d_flag = NULL;
    float table[256];
    if (ug_cuda_enter(k, c)) return 1;
    if (M * N > INT_MAX || M * K > INT_MAX || K * N > INT_MAX) {
        ug_cuda_failf(c, "%s: M=%zu N=%zu K=%zu: M*N, M*K and K*N must be < 2^31", k->name, M, N, K);
        return 1;
    }
    const bool lt = k->version == BS_LT || k->version == BS_LT_FAST;
    if (ug_bs_host_pack(c, &h, M, N, K, k->version == BS_LT_FAST)) goto cleanup;
    for (int i = 0; i < 256; i++) table[i] = (float)ug_fmt_decode(UG_E4M3, (uint64_t)i);
    UG_CUDA_TRY(c, cudaMemcpyToSymbol(ug_bs_e4m3, table, sizeof table));
    UG_CUDA_TRY(c, cudaMalloc((void **)&d_ea, M * K));
    UG_CUDA_TRY(c, cudaMalloc((void **)&d_eb, K * N));
    UG_CUDA_TRY(c, cudaMalloc((void **)&d_sa, M * KB));
    UG_CUDA_TRY(c, cudaMalloc((void **)&d_sb, KB * NB));
    UG_CUDA_TRY(c, cudaMalloc((void **)&d_c, M * N * sizeof(float)));
    UG_CUDA_TRY(c, cudaMemcpy(d_ea, h.ea, M * K, cudaMemcpyHostToDevice));
    UG_CUDA_TRY(c, cudaMemcpy(d_eb, k->version == BS_DEQUANT ? h.eb : h.ebt, K * N, cudaMemcpyHostToDevice));
    UG_CUDA_TRY(c, cudaMemcpy(d_sa, h.sa, M * KB, cudaMemcpyHostToDevice));
    UG_CUDA_TRY(c, cudaMemcpy(d_sb, h.sb, KB * NB, cudaMemcpyHostToDevice));
    if (k->version == BS_MMA_PROMOTED || k->version == BS_MMA_UNPROMOTED) {
        UG_CUDA_TRY(c, cudaMalloc((void **)&d_flag, sizeof(int)));
        UG_CUDA_TRY(c, cudaMemset(d_flag, 0, sizeof(int)));
    }
    if (lt) {
        UG_CUDA_TRY(c, ug_cuda_upload(&d_fa, h.fa, h.lda_s * KB));
        UG_CUDA_TRY(c, ug_cuda_upload(&d_fb, h.fb, h.ldb_s * NB));
        UG_CUDA_TRY(c, cudaMalloc(&d_ws, UG_BS_LT_WORKSPACE));
        if (ug_bs_lt_plan_make(c, &plan, M, N, K, d_fa, d_fb, k->version == BS_LT_FAST)) goto cleanup;
    }
    {
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        const int m = (int)M, n = (int)N, kk = (int)K, kb = (int)KB, nb = (int)NB;
        auto launch = [&]() -> cudaError_t {
            dim3 grid((unsigned)ug_div_up(N, 8), (unsigned)ug_div_up(M, 16));
            const float one = 1.f, zero = 0.f;
            switch (k->version) {
            case BS_DEQUANT:
                ug_bs_dequant_kernel<<<(unsigned)ug_div_up(M * N, 256), 256>>>(d_ea, d_sa, d_eb, d_sb,
                                                                               d_c, m, n, kk, kb, nb);
                break;
            case BS_MMA_PROMOTED:
                ug_bs_mma_kernel<true><<<grid, 32>>>(d_ea, d_eb, d_sa, d_sb, d_c, m, n, kk, kb, nb, d_flag);
                break;
            case BS_MMA_UNPROMOTED:
                ug_bs_mma_kernel<false><<<grid, 32>>>(d_ea, d_eb, d_sa, d_sb, d_c, m, n, kk, kb, nb, d_flag);
                break;
            case BS_LT:
            case BS_LT_FAST:
                status = cublasLtMatmul(g_bs_lt, plan.op, &one, d_eb, plan.la, d_ea, plan.lb, &zero, d_c,
                                        plan.lc, d_c, plan.lc, &plan.heur.algo, d_ws,
                                        UG_BS_LT_WORKSPACE, 0);
                if (status != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
                break;
            default: return cudaErrorInvalidValue;
            }
            return cudaGetLastError();
        };
        if (ug_cuda_run(c, d_c, M * N, ug_no_prepare, launch)) {
            if (status != CUBLAS_STATUS_SUCCESS) {
                ug_cuda_failf(c, "%s: cublasLtMatmul(M=%zu, N=%zu, K=%zu): %s", k->name, M, N, K,
                              cublasGetStatusString(status));
                c->unsupported = status == CUBLAS_STATUS_NOT_SUPPORTED ||
                                 status == CUBLAS_STATUS_ARCH_MISMATCH;
            }
            goto cleanup;
        }
    }
    if (d_flag) {
        int flag = 0;
        UG_CUDA_TRY(c, cudaMemcpy(&flag, d_flag, sizeof flag, cudaMemcpyDeviceToHost));
        if (flag) {
            ug_cuda_failf(c, "%s: built without an sm_89+ target: no fp8 mma.sync here", k->name);
            c->unsupported = true;
        }
    }
cleanup:
    ug_bs_lt_free(&plan);
    cudaFree(d_ea), cudaFree(d_eb), cudaFree(d_sa), cudaFree(d_sb), cudaFree(d_c);
    cudaFree(d_fa), cudaFree(d_fb), cudaFree(d_ws), cudaFree(d_flag);
    ug_bs_host_free(&h);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// registry rows

/* The mma rows' depth, as tensorcore.cu's: 8 steps a 32-product instruction. */
static size_t ug_bs_depth_mma32(size_t n) { return n ? 8 * ug_div_up(n, 32) : 0; }

// The dequantize and mma rows are batch-invariant (one output a thread, or a warp a 16 x 8
// tile, k in order; M changes only how many run); cuBLASLt's choice of algorithm may follow M.
const ug_kernel ug_gemm_bs_gpu_kernels[] = {
    {.name = "gemm_bs_dequant_cuda", .op = UG_OP_GEMM_BS, .backend = UG_CUDA, .batch_invariant = true,
     .bound = UG_BOUND_TREE, .depth = ug_depth_serial, .version = BS_DEQUANT,
     .doc = "block-scaled fp8 dequantized to binary32 on CUDA cores, fmaf chain over k"},
    {.name = "gemm_bs_mma_promoted", .op = UG_OP_GEMM_BS, .backend = UG_CUDA, .op_fmt = UG_E4M3,
     .batch_invariant = true, .bound = UG_BOUND_BS_FP8_PROMOTED, .depth = ug_bs_depth_mma32,
     .version = BS_MMA_PROMOTED,
     .doc = "DeepSeek-V3's recipe: mma.sync e4m3, promoted with its scales every 128 terms"},
    {.name = "gemm_bs_mma_unpromoted", .op = UG_OP_GEMM_BS, .backend = UG_CUDA, .op_fmt = UG_E4M3,
     .batch_invariant = true, .bound = UG_BOUND_BS_FP8_PROMOTED, .depth = ug_bs_depth_mma32,
     .version = BS_MMA_UNPROMOTED,
     .doc = "the same without promotion: K in the tensor core's accumulator (f16 HMMA on sm_90)"},
    {.name = "gemm_bs_lt_blockscaled", .op = UG_OP_GEMM_BS, .backend = UG_CUDA, .op_fmt = UG_E4M3,
     .bound = UG_BOUND_BS_FP8_PROMOTED, .depth = ug_depth_serial, .version = BS_LT,
     .doc = "cuBLASLt fp8 with VEC128_32F (A) and BLK128x128_32F (B) scales"},
    {.name = "gemm_bs_lt_fast_accum", .op = UG_OP_GEMM_BS, .backend = UG_CUDA, .op_fmt = UG_E4M3,
     .bound = UG_BOUND_BS_FP8_PROMOTED, .depth = ug_depth_serial, .version = BS_LT_FAST,
     .doc = "cuBLASLt fp8, one scale a tensor, FAST_ACCUM: never promoted (fails on long K)"},
};

UG_CUDA_END

UG_FAMILY(gemm_bs_gpu, ug_gemm_bs_gpu_kernels, ug_gemm_bs_gpu_run)
