/*
 * tensorcore.cu - GEMMs on the tensor cores with 16- and 8-bit operands: cuBLASLt
 * with bf16, fp16 and fp8 operands, a hand-written mma.sync bf16 GEMM in the style of the seeds'
 * tiled kernel (kernels/cuda/matmul.cu), and fp8 mma.sync GEMMs with and without promotion of
 * the accumulator to binary32 every 128 terms.  Built once (the default variant).
 *
 * Compile (meson does it): nvcc -arch=sm_90 -c tensorcore.cu.  Link: -lcublasLt.
 *
 * Inputs: the harness hands binary32 A (M x K) and B (K x N), row-major.  The launcher rounds
 * them on the device to the row's operand format (op_fmt) to nearest-even with CUDA's
 * conversions (__float2bfloat16_rn, __float2half_rn, __nv_cvt_float_to_fp8(x, __NV_NOSAT, .):
 * correctly rounded, e4m3 overflow to NaN as base/format.h's ug_fmt_encode), B transposed to
 * N x K (the "col" operand of mma.sync, the "T" of cuBLASLt's TN layout that fp8 requires).
 * The oracle grades the exact product of the binary32 inputs: the rounding of the operands is
 * part of the kernel's error, and of its bound (kernels/bounds.c, block_fma: r S).  The output
 * is binary32 (the accumulator; the binary16 accumulator of lt_f16_acc16 widened exactly), or
 * for the *_out_* rows the binary32 accumulator converted by cuBLASLt's epilogue to the 16-bit
 * D type (round to nearest-even: one more rounding, in the bound and in the model).
 *
 * Rows (order of operations unknown for cuBLASLt: depth K - 1, every tree):
 *   lt_bf16            cuBLASLt, bf16 x bf16, CUBLAS_COMPUTE_32F, binary32 out   block_fma
 *   lt_f16             fp16 x fp16, CUBLAS_COMPUTE_32F, binary32 out             block_fma
 *   lt_f16_acc16       fp16 x fp16, CUBLAS_COMPUTE_16F (binary16 accumulation and output,
 *                      widened exactly)                                          block_fma, p 11
 *   lt_bf16_out_bf16   bf16 x bf16, CUBLAS_COMPUTE_32F, D in bf16 (out_fmt)      block_fma + u_out
 *   lt_f16_out_f16     fp16 x fp16, CUBLAS_COMPUTE_32F, D in fp16 (out_fmt)      block_fma + u_out
 *   lt_e4m3[_fast]     e4m3 x e4m3, binary32 out, CUBLASLT_MATMUL_DESC_FAST_ACCUM off/on
 *   lt_e4m3_e5m2[_fast]  e4m3 x e5m2 (cuBLASLt's A e4m3 = our B, its B e5m2 = our A)
 *   mma_bf16           mma.sync.m16n8k16 bf16, one warp a 16 x 8 tile, k in order: depth
 *                      4 ceil(K/16) (blocks of >= 4 products inside one instruction)
 *   mma_e4m3           mma.sync.m16n8k32 e4m3, k in order in the tensor core's accumulator:
 *                      depth 8 ceil(K/32)
 *   mma_e4m3_promoted  the same, the accumulator restarted from zero every 128 terms and each
 *                      chunk added to a binary32 sum (DeepSeek-V3's promotion): block_fma_promoted
 * fp8 needs sm_89 or later (mma.sync e4m3, cuBLASLt fp8): elsewhere the points skip, saying so;
 * cuBLASLt's fp8 also needs M, N, K multiples of 16 (it answers NOT_SUPPORTED: skipped).
 *
 * Launch configurations (c->launch_config, cases/gpu/gpu_invariance.c): the same logical GEMM
 *   0 as is               1 on a non-blocking stream of its own
 *   2 cuBLASLt without workspace (mma: as 0)
 *   3 16 more rows of A (zeros) computed, the first M rows read back
 *   4 a batch of two identical problems (strided batch; mma: gridDim.z = 2), the second read
 *   5 cuBLASLt split-K 4 on the heuristic's algorithm (unsupported when it refuses; mma: none)
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

UG_CUDA_BEGIN

enum { LT_BF16, LT_F16, LT_F16_ACC16, LT_E4M3, LT_E4M3_FAST, LT_E4M3_E5M2, LT_E4M3_E5M2_FAST,
       MMA_BF16, MMA_E4M3, MMA_E4M3_PROMOTED, LT_BF16_OUT_BF16, LT_F16_OUT_F16 };

enum { UG_TC_EXTRA_ROWS = 16, UG_TC_SPLITK = 4, UG_TC_PROMOTE = 128 };
static const size_t UG_TC_WORKSPACE = (size_t)32 << 20;

// ----------------------------------------------------------------------------
// operand conversion (device, correctly rounded to nearest-even)

template <int F>
__global__ void ug_tc_convert(const float *src, void *dst, size_t rows, size_t cols, int transpose)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    size_t r = i / cols, q = i % cols, o = transpose ? q * rows + r : i;
    float x = src[i];
    if (F == UG_BF16) ((__nv_bfloat16 *)dst)[o] = __float2bfloat16_rn(x);
    if (F == UG_F16) ((__half *)dst)[o] = __float2half_rn(x);
    if (F == UG_E4M3) ((__nv_fp8_storage_t *)dst)[o] = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3);
    if (F == UG_E5M2) ((__nv_fp8_storage_t *)dst)[o] = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2);
}

static cudaError_t ug_tc_convert_to(ug_fmt f, const float *src, void *dst, size_t rows, size_t cols,
                                    int transpose, cudaStream_t s)
{
    unsigned blocks = (unsigned)ug_div_up(rows * cols, 256);
    if (!blocks) return cudaSuccess;
    switch (f) {
    case UG_BF16: ug_tc_convert<UG_BF16><<<blocks, 256, 0, s>>>(src, dst, rows, cols, transpose); break;
    case UG_F16: ug_tc_convert<UG_F16><<<blocks, 256, 0, s>>>(src, dst, rows, cols, transpose); break;
    case UG_E4M3: ug_tc_convert<UG_E4M3><<<blocks, 256, 0, s>>>(src, dst, rows, cols, transpose); break;
    case UG_E5M2: ug_tc_convert<UG_E5M2><<<blocks, 256, 0, s>>>(src, dst, rows, cols, transpose); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

/* binary16 -> binary32, exact. */
__global__ void ug_tc_widen_f16(const __half *src, float *dst, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) dst[i] = __half2float(src[i]);
}

// ----------------------------------------------------------------------------
// mma.sync kernels: one warp computes one 16 x 8 tile of C, k in order, the tiles of A (16 x k)
// and of B^T (8 x k) staged in shared memory and zero-filled past the edges (a zero product
// adds nothing to a block: it changes neither the largest addend nor the sum).  Fragment layouts
// of the PTX ISA (mma.m16n8k16 .bf16, mma.m16n8k32 .e4m3): g = lane / 4, q = lane % 4.

static __device__ __forceinline__ unsigned ug_pack2(unsigned short lo, unsigned short hi)
{
    return (unsigned)lo | ((unsigned)hi << 16);
}

__global__ void ug_mma_bf16_kernel(const unsigned short *A, const unsigned short *Bt, float *C,
                                   int M, int N, int K)
{
    __shared__ unsigned short As[16][16];
    __shared__ unsigned short Bs[8][16];
    const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
    const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    const size_t zA = (size_t)blockIdx.z * M * K, zB = (size_t)blockIdx.z * N * K;
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) {
            int r = i / 16, kk = i % 16;
            As[r][kk] = row0 + r < M && k0 + kk < K ? A[zA + (size_t)(row0 + r) * K + k0 + kk] : 0;
        }
        for (int i = lane; i < 128; i += 32) {
            int n = i / 16, kk = i % 16;
            Bs[n][kk] = col0 + n < N && k0 + kk < K ? Bt[zB + (size_t)(col0 + n) * K + k0 + kk] : 0;
        }
        __syncwarp();
        unsigned a0 = ug_pack2(As[g][2 * q], As[g][2 * q + 1]);
        unsigned a1 = ug_pack2(As[g + 8][2 * q], As[g + 8][2 * q + 1]);
        unsigned a2 = ug_pack2(As[g][2 * q + 8], As[g][2 * q + 9]);
        unsigned a3 = ug_pack2(As[g + 8][2 * q + 8], As[g + 8][2 * q + 9]);
        unsigned b0 = ug_pack2(Bs[g][2 * q], Bs[g][2 * q + 1]);
        unsigned b1 = ug_pack2(Bs[g][2 * q + 8], Bs[g][2 * q + 9]);
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncwarp(); // the tiles are overwritten next iteration
    }
    float *Cz = C + (size_t)blockIdx.z * M * N;
    int r = row0 + g, cc = col0 + 2 * q;
    if (r < M && cc < N) Cz[(size_t)r * N + cc] = d[0];
    if (r < M && cc + 1 < N) Cz[(size_t)r * N + cc + 1] = d[1];
    if (r + 8 < M && cc < N) Cz[(size_t)(r + 8) * N + cc] = d[2];
    if (r + 8 < M && cc + 1 < N) Cz[(size_t)(r + 8) * N + cc + 1] = d[3];
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
static __device__ __forceinline__ unsigned ug_pack4(const unsigned char *p)
{
    return (unsigned)p[0] | ((unsigned)p[1] << 8) | ((unsigned)p[2] << 16) | ((unsigned)p[3] << 24);
}
#endif

/* PROMOTE: the tensor core accumulates UG_TC_PROMOTE terms (4 instructions) from zero, then the
 * chunk is added to the binary32 sum d with an ordinary (round-to-nearest) addition. */
template <bool PROMOTE>
__global__ void ug_mma_e4m3_kernel(const unsigned char *A, const unsigned char *Bt, float *C,
                                   int M, int N, int K, int *unsupported)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    __shared__ __align__(16) unsigned char As[16][32];
    __shared__ __align__(16) unsigned char Bs[8][32];
    const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
    const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    const size_t zA = (size_t)blockIdx.z * M * K, zB = (size_t)blockIdx.z * N * K;
    float d[4] = {0.f, 0.f, 0.f, 0.f}, p[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int i = lane; i < 512; i += 32) {
            int r = i / 32, kk = i % 32;
            As[r][kk] = row0 + r < M && k0 + kk < K ? A[zA + (size_t)(row0 + r) * K + k0 + kk] : 0;
        }
        for (int i = lane; i < 256; i += 32) {
            int n = i / 32, kk = i % 32;
            Bs[n][kk] = col0 + n < N && k0 + kk < K ? Bt[zB + (size_t)(col0 + n) * K + k0 + kk] : 0;
        }
        __syncwarp();
        unsigned a0 = ug_pack4(&As[g][4 * q]), a1 = ug_pack4(&As[g + 8][4 * q]);
        unsigned a2 = ug_pack4(&As[g][4 * q + 16]), a3 = ug_pack4(&As[g + 8][4 * q + 16]);
        unsigned b0 = ug_pack4(&Bs[g][4 * q]), b1 = ug_pack4(&Bs[g][4 * q + 16]);
        float *acc = PROMOTE ? p : d;
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        if (PROMOTE && ((k0 + 32) % UG_TC_PROMOTE == 0 || k0 + 32 >= K)) {
            for (int j = 0; j < 4; j++) d[j] += p[j], p[j] = 0.f;
        }
        __syncwarp();
    }
    float *Cz = C + (size_t)blockIdx.z * M * N;
    int r = row0 + g, cc = col0 + 2 * q;
    if (r < M && cc < N) Cz[(size_t)r * N + cc] = d[0];
    if (r < M && cc + 1 < N) Cz[(size_t)r * N + cc + 1] = d[1];
    if (r + 8 < M && cc < N) Cz[(size_t)(r + 8) * N + cc] = d[2];
    if (r + 8 < M && cc + 1 < N) Cz[(size_t)(r + 8) * N + cc + 1] = d[3];
#else
    (void)A, (void)Bt, (void)C, (void)M, (void)N, (void)K;
    if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0) *unsupported = 1;
#endif
}

// ----------------------------------------------------------------------------
// the launcher

#define UG_LT_TRY(c, expr) UG_CUBLASLT_TRY((c), "tensorcore.cu", expr)

static cublasLtHandle_t g_lt;

/* What a row runs: operand formats of our A and B, cuBLASLt's compute type, fast accumulation;
 * out16: D in a 16-bit format (the row's out_fmt) under a binary32 accumulator. */
typedef struct {
    ug_fmt fa, fb;
    bool lt, f16acc, fast, fp8, promote, out16;
} ug_tc_cfg;

static ug_tc_cfg ug_tc_cfg_of(int version)
{
    switch (version) {
    case LT_BF16: return {UG_BF16, UG_BF16, true, false, false, false, false, false};
    case LT_F16: return {UG_F16, UG_F16, true, false, false, false, false, false};
    case LT_F16_ACC16: return {UG_F16, UG_F16, true, true, false, false, false, false};
    case LT_BF16_OUT_BF16: return {UG_BF16, UG_BF16, true, false, false, false, false, true};
    case LT_F16_OUT_F16: return {UG_F16, UG_F16, true, false, false, false, false, true};
    case LT_E4M3: return {UG_E4M3, UG_E4M3, true, false, false, true, false, false};
    case LT_E4M3_FAST: return {UG_E4M3, UG_E4M3, true, false, true, true, false, false};
    case LT_E4M3_E5M2: return {UG_E5M2, UG_E4M3, true, false, false, true, false, false};
    case LT_E4M3_E5M2_FAST: return {UG_E5M2, UG_E4M3, true, false, true, true, false, false};
    case MMA_BF16: return {UG_BF16, UG_BF16, false, false, false, false, false, false};
    case MMA_E4M3: return {UG_E4M3, UG_E4M3, false, false, false, true, false, false};
    default: return {UG_E4M3, UG_E4M3, false, false, false, true, true, false};
    }
}

static cudaDataType_t ug_tc_cuda_type(ug_fmt f)
{
    switch (f) {
    case UG_BF16: return CUDA_R_16BF;
    case UG_F16: return CUDA_R_16F;
    case UG_E4M3: return CUDA_R_8F_E4M3;
    default: return CUDA_R_8F_E5M2;
    }
}

/* The device's compute capability as 10 major + minor (0 when it cannot be read). */
static int ug_tc_cc(void)
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return 10 * major + minor;
}

/* Whether some output's sum of |products| may exceed binary16's largest value: S_ij <=
 * (sum_k |a_ik|) max |b| (every partial sum of a binary16 accumulation is at most S_ij(1 + its
 * error), checked by the bound's range rule; here the kernel refuses up front instead of
 * overflowing).  O(MK + KN) on the host. */
static bool ug_tc_f16acc_may_overflow(const ug_call *c, size_t M, size_t N, size_t K)
{
    const float *a = ug_in_f32(c, 0), *b = ug_in_f32(c, 1);
    double row_max = 0, b_max = 0;
    for (size_t i = 0; i < M; i++) {
        double r = 0;
        for (size_t k = 0; k < K; k++) r += fabs((double)a[i * K + k]);
        if (!(r <= row_max)) row_max = r;
    }
    for (size_t e = 0; e < K * N; e++)
        if (!(fabs((double)b[e]) <= b_max)) b_max = fabs((double)b[e]);
    /* the operands rounded to binary16 may grow by (1 + 2^-11) each */
    return !(row_max * b_max * (1 + 0x1p-11) * (1 + 0x1p-11) <= 65504.0);
}

/* One GEMM of a row under launch configuration c->launch_config (the header).  Device buffers:
 * the binary32 inputs (the shared cache), their conversions (rows = M + extra, times batches),
 * the binary32 output (and the 16-bit one of lt_f16_acc16, widened into it, or of the out16
 * rows, copied back as it is: c->out is in the row's out_fmt).  Cost: two conversion passes
 * over A and B, then the GEMM. */
static int ug_tc_run(const ug_kernel *k, ug_call *c)
{
    const ug_tc_cfg cfg = ug_tc_cfg_of(k->version);
    const float *d_a32 = NULL, *d_b32 = NULL;
    void *d_a = NULL, *d_bt = NULL, *d_ws = NULL;
    float *d_c = NULL;
    __half *d_c16 = NULL;
    int *d_flag = NULL;
    cudaStream_t stream = NULL;
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    const int config = c->launch_config;
    size_t rows = M + (config == 3 ? UG_TC_EXTRA_ROWS : 0), batches = config == 4 ? 2 : 1;
    size_t ws_bytes = config == 2 ? 0 : UG_TC_WORKSPACE;
    size_t ea = ug_fmt_bytes(cfg.fa), eb = ug_fmt_bytes(cfg.fb);
    cublasLtMatmulHeuristicResult_t heur;
    if (ug_cuda_enter(k, c)) return 1;
    if (config < 0 || config > 5) {
        ug_cuda_failf(c, "%s: launch_config %d: this family has 0..5", k->name, config);
        return 1;
    }
    if (cfg.fp8 && ug_tc_cc() < 89) {
        ug_cuda_failf(c, "%s: fp8 tensor cores need compute capability 8.9 or later (this GPU: "
                      "%d.%d)", k->name, ug_tc_cc() / 10, ug_tc_cc() % 10);
        c->unsupported = true;
        return 1;
    }
    if (!cfg.lt && (config == 5)) {
        ug_cuda_failf(c, "%s: a hand-written kernel has no split-K configuration", k->name);
        c->unsupported = true;
        return 1;
    }
    if (cfg.f16acc && ug_tc_f16acc_may_overflow(c, M, N, K)) {
        ug_cuda_failf(c, "%s: max_i sum_k |a_ik| * max |b_kj| exceeds 65504: a binary16 "
                      "accumulator may overflow, no bound holds: not run", k->name);
        c->unsupported = true;
        return 1;
    }
    if (rows * K * batches > INT_MAX || K * N * batches > INT_MAX || rows * N * batches > INT_MAX) {
        ug_cuda_failf(c, "%s: M=%zu N=%zu K=%zu: M*K, K*N and M*N must be < 2^31", k->name, M, N, K);
        return 1;
    }
    if (config == 1) UG_CUDA_TRY(c, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), M * K, &d_a32));
    UG_CUDA_TRY(c, ug_cuda_input(c, 1, ug_in_f32(c, 1), K * N, &d_b32));
    UG_CUDA_TRY(c, cudaMalloc(&d_a, rows * K * ea * batches));
    UG_CUDA_TRY(c, cudaMalloc(&d_bt, K * N * eb * batches));
    UG_CUDA_TRY(c, cudaMalloc(&d_c, rows * N * sizeof(float) * batches));
    UG_CUDA_TRY(c, cudaMemset(d_a, 0, rows * K * ea * batches)); /* the extra rows: zeros */
    for (size_t z = 0; z < batches; z++) {
        UG_CUDA_TRY(c, ug_tc_convert_to(cfg.fa, d_a32, (char *)d_a + z * rows * K * ea, M, K, 0, NULL));
        UG_CUDA_TRY(c, ug_tc_convert_to(cfg.fb, d_b32, (char *)d_bt + z * K * N * eb, K, N, 1, NULL));
    }
    if (cfg.f16acc || cfg.out16) UG_CUDA_TRY(c, cudaMalloc(&d_c16, rows * N * sizeof(__half) * batches));
    if (!cfg.lt) UG_CUDA_TRY(c, cudaMalloc(&d_flag, sizeof(int)));
    if (d_flag) UG_CUDA_TRY(c, cudaMemset(d_flag, 0, sizeof(int)));
    UG_CUDA_TRY(c, cudaDeviceSynchronize());

    if (cfg.lt) {
        /* TN: cuBLASLt's A is our B^T (K x N column-major, op T), its B our A (K x M column-
         * major = A row-major), D = (B^T)^T A^T ... = C^T column-major N x M = C row-major. */
        const cublasComputeType_t ct = cfg.f16acc ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F;
        const cudaDataType_t st = cfg.f16acc ? CUDA_R_16F : CUDA_R_32F;
        const cudaDataType_t dt = cfg.f16acc ? CUDA_R_16F
                                  : cfg.out16 ? ug_tc_cuda_type(k->out_fmt) : CUDA_R_32F;
        cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
        int8_t fast = cfg.fast ? 1 : 0;
        int returned = 0;
        if (!g_lt) UG_LT_TRY(c, cublasLtCreate(&g_lt));
        UG_LT_TRY(c, cublasLtMatmulDescCreate(&op, ct, st));
        UG_LT_TRY(c, cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
        UG_LT_TRY(c, cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
        if (cfg.fp8)
            UG_LT_TRY(c, cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                        sizeof fast));
        UG_LT_TRY(c, cublasLtMatrixLayoutCreate(&la, ug_tc_cuda_type(cfg.fb), K, N, (int64_t)K));
        UG_LT_TRY(c, cublasLtMatrixLayoutCreate(&lb, ug_tc_cuda_type(cfg.fa), K, rows, (int64_t)K));
        UG_LT_TRY(c, cublasLtMatrixLayoutCreate(&lc, dt, N, rows, (int64_t)N));
        if (batches > 1) {
            int32_t count = (int32_t)batches;
            int64_t sa = (int64_t)(K * N), sb = (int64_t)(rows * K), sc = (int64_t)(rows * N);
            UG_LT_TRY(c, cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
            UG_LT_TRY(c, cublasLtMatrixLayoutSetAttribute(lb, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
            UG_LT_TRY(c, cublasLtMatrixLayoutSetAttribute(lc, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
            UG_LT_TRY(c, cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa));
            UG_LT_TRY(c, cublasLtMatrixLayoutSetAttribute(lb, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb));
            UG_LT_TRY(c, cublasLtMatrixLayoutSetAttribute(lc, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sc, sizeof sc));
        }
        UG_LT_TRY(c, cublasLtMatmulPreferenceCreate(&pref));
        UG_LT_TRY(c, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &ws_bytes, sizeof ws_bytes));
        UG_LT_TRY(c, cublasLtMatmulAlgoGetHeuristic(g_lt, op, la, lb, lc, lc, pref, 1, &heur, &returned));
        if (returned == 0) {
            ug_cuda_failf(c, "%s: cuBLASLt has no algorithm for M=%zu N=%zu K=%zu here", k->name, M, N, K);
            c->unsupported = true;
            goto cleanup;
        }
        if (config == 5) {
            uint32_t splitk = UG_TC_SPLITK;
            cublasLtMatmulHeuristicResult_t check;
            UG_LT_TRY(c, cublasLtMatmulAlgoConfigSetAttribute(&heur.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                                              &splitk, sizeof splitk));
            UG_LT_TRY(c, cublasLtMatmulAlgoCheck(g_lt, op, la, lb, lc, lc, &heur.algo, &check));
            if (check.workspaceSize > ws_bytes) {
                ug_cuda_failf(c, "%s: split-K %d needs %zu bytes of workspace", k->name,
                              UG_TC_SPLITK, check.workspaceSize);
                c->unsupported = true;
                goto cleanup;
            }
        }
        if (ws_bytes) UG_CUDA_TRY(c, cudaMalloc(&d_ws, ws_bytes));
    }
    {
        const size_t out_off = (batches - 1) * rows * N;
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        auto launch = [&]() -> cudaError_t {
            /* the harness poisons d_c on the legacy stream; a non-blocking stream waits for it */
            cudaError_t e = stream ? cudaDeviceSynchronize() : cudaSuccess;
            if (e != cudaSuccess) return e;
            if (cfg.lt) {
                const float one = 1.0f, zero = 0.0f;
                const __half h1 = __float2half(1.0f), h0 = __float2half(0.0f);
                const void *alpha = cfg.f16acc ? (const void *)&h1 : (const void *)&one;
                const void *beta = cfg.f16acc ? (const void *)&h0 : (const void *)&zero;
                void *out = cfg.f16acc || cfg.out16 ? (void *)d_c16 : (void *)d_c;
                status = cublasLtMatmul(g_lt, op, alpha, d_bt, la, d_a, lb, beta, out, lc, out, lc,
                                        &heur.algo, d_ws, ws_bytes, stream);
                if (status != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
                if (cfg.f16acc)
                    ug_tc_widen_f16<<<(unsigned)ug_div_up(rows * N * batches, 256), 256, 0, stream>>>(
                        d_c16, d_c, rows * N * batches);
            } else {
                dim3 grid((unsigned)ug_div_up(N, 8), (unsigned)ug_div_up(rows, 16), (unsigned)batches);
                const int m = (int)rows, n = (int)N, kk = (int)K;
                if (k->version == MMA_BF16)
                    ug_mma_bf16_kernel<<<grid, 32, 0, stream>>>((const unsigned short *)d_a,
                                                                (const unsigned short *)d_bt, d_c, m, n, kk);
                else if (cfg.promote)
                    ug_mma_e4m3_kernel<true><<<grid, 32, 0, stream>>>((const unsigned char *)d_a,
                                                                      (const unsigned char *)d_bt, d_c, m, n, kk, d_flag);
                else
                    ug_mma_e4m3_kernel<false><<<grid, 32, 0, stream>>>((const unsigned char *)d_a,
                                                                       (const unsigned char *)d_bt, d_c, m, n, kk, d_flag);
            }
            e = cudaGetLastError();
            return e == cudaSuccess && stream ? cudaStreamSynchronize(stream) : e;
        };
        /* the out16 rows' D is what the harness reads (2 bytes an element, out_fmt) */
        int failed = cfg.out16 ? ug_cuda_run_bytes(c, d_c16 + out_off, M * N * sizeof(__half),
                                                   ug_no_prepare, launch)
                               : ug_cuda_run(c, d_c + out_off, M * N, ug_no_prepare, launch);
        if (failed) {
            if (status != CUBLAS_STATUS_SUCCESS) {
                ug_cuda_failf(c, "%s: cublasLtMatmul(M=%zu, N=%zu, K=%zu, config %d): %s", k->name,
                              M, N, K, config, cublasGetStatusString(status));
                c->unsupported = status == CUBLAS_STATUS_NOT_SUPPORTED ||
                                 status == CUBLAS_STATUS_ARCH_MISMATCH;
            }
            goto cleanup;
        }
        if (d_flag) {
            int flag = 0;
            UG_CUDA_TRY(c, cudaMemcpy(&flag, d_flag, sizeof flag, cudaMemcpyDeviceToHost));
            if (flag) {
                ug_cuda_failf(c, "%s: built without an sm_89+ target: no fp8 mma.sync here", k->name);
                c->unsupported = true;
            }
        }
    }
cleanup:
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (op) cublasLtMatmulDescDestroy(op);
    cudaFree(d_a);
    cudaFree(d_bt);
    cudaFree(d_c);
    cudaFree(d_c16);
    cudaFree(d_ws);
    cudaFree(d_flag);
    if (stream) cudaStreamDestroy(stream);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// depth functions (the block steps any term passes through; kernels/bounds.c, block_fma): an
// instruction of k products holds at least k/4 blocks (4 products: the smallest published
// block, V100's), the instructions in k order.

static size_t ug_depth_mma16(size_t n) { return n ? 4 * ug_div_up(n, 16) : 0; }
static size_t ug_depth_mma32(size_t n) { return n ? 8 * ug_div_up(n, 32) : 0; }

#define UG_TC_ROW(nm, ver, opf, accf, cls, dep, text)                                          \
    {.name = nm, .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = opf, .acc_fmt = accf,          \
     .bound = cls, .depth = dep, .version = ver, .doc = text}
// The hand-written mma rows are batch-invariant: a warp a 16x8 tile, k in order, and each output
// of an mma.sync is its own row of A times its column of B (rows past M are zeros that no other
// row reads): M changes the grid, not a row's arithmetic (gpu_invariance/configs asserts "M + 16
// rows" for them too).  cuBLASLt picks its algorithm by M: not declared.
#define UG_TC_ROW_INVARIANT(nm, ver, opf, accf, cls, dep, text)                                \
    {.name = nm, .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = opf, .acc_fmt = accf,          \
     .batch_invariant = true, .bound = cls, .depth = dep, .version = ver, .doc = text}

const ug_kernel ug_tensorcore_kernels[] = {
    UG_TC_ROW("lt_bf16", LT_BF16, UG_BF16, UG_F32, UG_BOUND_BLOCK_FMA, ug_depth_serial,
              "cuBLASLt bf16 x bf16, CUBLAS_COMPUTE_32F, binary32 out; order unknown: depth K-1"),
    UG_TC_ROW("lt_f16", LT_F16, UG_F16, UG_F32, UG_BOUND_BLOCK_FMA, ug_depth_serial,
              "cuBLASLt fp16 x fp16, CUBLAS_COMPUTE_32F, binary32 out; depth K-1"),
    UG_TC_ROW("lt_f16_acc16", LT_F16_ACC16, UG_F16, UG_F16, UG_BOUND_BLOCK_FMA, ug_depth_serial,
              "cuBLASLt fp16 x fp16, CUBLAS_COMPUTE_16F (binary16 accumulator and output); depth K-1"),
    {.name = "lt_bf16_out_bf16", .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = UG_BF16,
     .acc_fmt = UG_F32, .out_fmt = UG_BF16, .bound = UG_BOUND_BLOCK_FMA, .depth = ug_depth_serial,
     .version = LT_BF16_OUT_BF16, .doc = "cuBLASLt bf16 x bf16, CUBLAS_COMPUTE_32F, D in bf16 "
     "(the binary32 result rounded to nearest by the epilogue); depth K-1"},
    {.name = "lt_f16_out_f16", .op = UG_OP_GEMM, .backend = UG_CUDA, .op_fmt = UG_F16,
     .acc_fmt = UG_F32, .out_fmt = UG_F16, .bound = UG_BOUND_BLOCK_FMA, .depth = ug_depth_serial,
     .version = LT_F16_OUT_F16, .doc = "cuBLASLt fp16 x fp16, CUBLAS_COMPUTE_32F, D in fp16 "
     "(the binary32 result rounded to nearest by the epilogue); depth K-1"},
    UG_TC_ROW("lt_e4m3", LT_E4M3, UG_E4M3, UG_F32, UG_BOUND_BLOCK_FMA, ug_depth_serial,
              "cuBLASLt fp8 e4m3 x e4m3, binary32 out, no fast accumulation; depth K-1"),
    UG_TC_ROW("lt_e4m3_fast", LT_E4M3_FAST, UG_E4M3, UG_F32, UG_BOUND_BLOCK_FMA, ug_depth_serial,
              "cuBLASLt fp8 e4m3 x e4m3, CUBLASLT_MATMUL_DESC_FAST_ACCUM; depth K-1"),
    UG_TC_ROW("lt_e4m3_e5m2", LT_E4M3_E5M2, UG_E5M2, UG_F32, UG_BOUND_BLOCK_FMA, ug_depth_serial,
              "cuBLASLt fp8 e4m3 (B) x e5m2 (A), binary32 out, no fast accumulation; depth K-1"),
    UG_TC_ROW("lt_e4m3_e5m2_fast", LT_E4M3_E5M2_FAST, UG_E5M2, UG_F32, UG_BOUND_BLOCK_FMA,
              ug_depth_serial, "cuBLASLt fp8 e4m3 (B) x e5m2 (A), FAST_ACCUM; depth K-1"),
    UG_TC_ROW_INVARIANT("mma_bf16", MMA_BF16, UG_BF16, UG_F32, UG_BOUND_BLOCK_FMA, ug_depth_mma16,
              "mma.sync m16n8k16 bf16, a warp a 16x8 tile, k in order (seeds' tiled style)"),
    UG_TC_ROW_INVARIANT("mma_e4m3", MMA_E4M3, UG_E4M3, UG_F32, UG_BOUND_BLOCK_FMA, ug_depth_mma32,
              "mma.sync m16n8k32 e4m3, k in order in the tensor core's accumulator"),
    UG_TC_ROW_INVARIANT("mma_e4m3_promoted", MMA_E4M3_PROMOTED, UG_E4M3, UG_F32, UG_BOUND_BLOCK_FMA_PROMOTED,
              ug_depth_mma32, "mma.sync m16n8k32 e4m3, promoted to a binary32 sum every 128 terms"),
};

UG_CUDA_END

UG_FAMILY(tensorcore, ug_tensorcore_kernels, ug_tc_run)
