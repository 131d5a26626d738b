/*
 * matmul.cu - fp32 row-major C = A*B (A M x K, B K x N, C M x N) as the published posts wrote it.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -lineinfo -Xcompiler=-Wall,-Wextra -c matmul.cu
 *
 * Versions:
 *   matmul_naive        the Kahan-matmul post: 1-D grid of 256-thread blocks, one output a thread,
 *                       t += a*b over k in order.  Bound: tree, depth K-1 (gamma_K S).
 *   matmul_kahan        the Kahan-matmul post's compensated loop as written: y -= a*b; r = t - y;
 *                       y = (r - t) + y; t = r.  Bound: Kahan class.
 *   matmul_tiled        the CUDA-optimisation post's 16x16 shared-memory tiles, with bounds checks so that any
 *                       M, N, K works (the post assumes multiples of 16), the missing second
 *                       __syncthreads() added and the store moved after the tile loop (the
 *                       post's listing stores inside the loop, as Pd[Row][Col]).  The dot
 *                       product is still accumulated over k in order.  Bound: depth K-1.
 *   matmul_tiled_kahan  the tiled kernel with the Kahan-matmul post's compensated update.  Bound: Kahan.
 *
 * Floating point as the posts built it: nvcc's default -fmad=true contracts t += a*b into
 * t = fma(a, b, t) and y -= a*b into y = fma(-a, b, y): one rounding per step instead of two.
 * This keeps every bound (each term still passes through at most K roundings, and Kahan's
 * analysis holds for exact real terms a*b).  The file is built in every CUDA variant
 * (kernels/meson.build): @default (contraction), @nofma (-fmad=false: every product rounded
 * on its own, the build that reproduces the Kahan-matmul post's printed figures) and @fastmath
 * (--use_fast_math: contraction, flush-to-zero, approximate division; nvcc never reassociates,
 * so the compensation is still computed as written).
 * The tiled kernels skip the tile's k beyond K (a test uniform over the block) instead of
 * adding zero products: a Kahan step with a zero term is not a no-op (it folds the
 * compensation in), so skipping keeps them equal to the untiled loops step for step.
 * Limits: the posts' int indexing is kept, so M*N, M*K and K*N must stay below 2^31
 * (checked in run(), clear error).
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <limits.h>

#define THREAD_NUM 256
#define TILE_WIDTH 16

UG_CUDA_BEGIN

// ----------------------------------------------------------------------------
// kernels

// the Kahan-matmul post's matMultCUDA (without its clock() probes), generalised from n x n to M x N x K
__global__ void matmul_naive_kernel(const float *a, const float *b, float *c, int M, int N,
                                           int K)
{
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;
    const int idx = bid * THREAD_NUM + tid;
    const int row = idx / N;
    const int column = idx % N;
    int i;

    if (row < M && column < N) {
        float t = 0;

        for (i = 0; i < K; i++) {
            t += a[row * K + i] * b[i * N + column];
        }
        c[row * N + column] = t;
    }
}

// the Kahan-matmul post's compensated version: the same shape, Kahan's update with y as -(compensation)
__global__ void matmul_kahan_kernel(const float *a, const float *b, float *c, int M, int N,
                                           int K)
{
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;
    const int idx = bid * THREAD_NUM + tid;
    const int row = idx / N;
    const int column = idx % N;
    int i;

    if (row < M && column < N) {
        float t = 0;
        float y = 0;

        for (i = 0; i < K; i++) {
            float r;

            y -= a[row * K + i] * b[i * N + column];
            r = t - y;
            y = (r - t) + y;
            t = r;
        }
        c[row * N + column] = t;
    }
}

// the CUDA-optimisation post's MatrixMulKernel: tiles of A and B staged in shared memory, zero-filled at the edges
template <bool KAHAN>
__global__ void matmul_tiled_kernel(const float *Md, const float *Nd, float *Pd, int M,
                                           int N, int K)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int bx = blockIdx.x;
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;
    float y = 0; // Kahan only
    for (int m = 0; m < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++m) {
        int kbase = m * TILE_WIDTH;
        Mds[ty][tx] = (Row < M && kbase + tx < K) ? Md[Row * K + (kbase + tx)] : 0.0f;
        Nds[ty][tx] = (kbase + ty < K && Col < N) ? Nd[(kbase + ty) * N + Col] : 0.0f;
        __syncthreads();
        int kend = K - kbase < TILE_WIDTH ? K - kbase : TILE_WIDTH;
        for (int k = 0; k < kend; ++k) {
            if (KAHAN) {
                float r;
                y -= Mds[ty][k] * Nds[k][tx];
                r = Pvalue - y;
                y = (r - Pvalue) + y;
                Pvalue = r;
            } else {
                Pvalue += Mds[ty][k] * Nds[k][tx];
            }
        }
        __syncthreads(); // the tiles are overwritten next iteration
    }
    if (Row < M && Col < N) Pd[Row * N + Col] = Pvalue;
}

// ----------------------------------------------------------------------------
// launcher

enum { MATMUL_NAIVE, MATMUL_KAHAN, MATMUL_TILED, MATMUL_TILED_KAHAN };

int ug_matmul_run(const ug_kernel *k, ug_call *c)
{
    const float *d_a = NULL, *d_b = NULL;
    float *d_c = NULL;
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    int m = 0, n = 0, kk = 0;
    if (ug_cuda_enter(k, c)) return 1;
    if (M * N > INT_MAX || M * K > INT_MAX || K * N > INT_MAX) {
        ug_cuda_failf(c, "%s: M=%zu N=%zu K=%zu: M*N, M*K and K*N must be < 2^31 (the posts' "
                      "int indexing)", k->name, M, N, K);
        return 1;
    }
    m = (int)M;
    n = (int)N;
    kk = (int)K;
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), M * K, &d_a));
    UG_CUDA_TRY(c, ug_cuda_input(c, 1, ug_in_f32(c, 1), K * N, &d_b));
    UG_CUDA_TRY(c, cudaMalloc(&d_c, M * N * sizeof(float)));
    ug_cuda_run(c, d_c, M * N, ug_no_prepare, [&] {
        unsigned blocks_1d = (unsigned)ug_div_up(M * N, THREAD_NUM);
        dim3 tiles((unsigned)ug_div_up(N, TILE_WIDTH), (unsigned)ug_div_up(M, TILE_WIDTH));
        dim3 tile(TILE_WIDTH, TILE_WIDTH);
        switch (k->version) {
        case MATMUL_NAIVE: matmul_naive_kernel<<<blocks_1d, THREAD_NUM>>>(d_a, d_b, d_c, m, n, kk); break;
        case MATMUL_KAHAN: matmul_kahan_kernel<<<blocks_1d, THREAD_NUM>>>(d_a, d_b, d_c, m, n, kk); break;
        case MATMUL_TILED: matmul_tiled_kernel<false><<<tiles, tile>>>(d_a, d_b, d_c, m, n, kk); break;
        case MATMUL_TILED_KAHAN: matmul_tiled_kernel<true><<<tiles, tile>>>(d_a, d_b, d_c, m, n, kk); break;
        default: return cudaErrorInvalidValue;
        }
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_c);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// registry rows.  nvcc contracts a*b + t into one FMA (the posts' builds did too); every bound
// below holds with or without it.

// Every version is batch-invariant: one thread an output, k in order (the tiled ones in
// 16-wide tiles of k, still in order); M only changes how many threads run.
const ug_kernel ug_matmul_kernels[] = {
    {.name = "matmul_naive", .op = UG_OP_GEMM, .backend = UG_CUDA, .batch_invariant = true, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = MATMUL_NAIVE,
     .doc = "Kahan-matmul post: one output a thread, 1-D grid of 256, t += a*b in k order"},
    {.name = "matmul_kahan", .op = UG_OP_GEMM, .backend = UG_CUDA, .batch_invariant = true, .bound = UG_BOUND_KAHAN,
     .version = MATMUL_KAHAN,
     .doc = "Kahan-matmul post: y -= a*b; r = t - y; y = (r - t) + y; t = r (Kahan)"},
    {.name = "matmul_tiled", .op = UG_OP_GEMM, .backend = UG_CUDA, .batch_invariant = true, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = MATMUL_TILED,
     .doc = "tiled-matmul post: 16x16 shared-memory tiles, any size, k order kept"},
    {.name = "matmul_tiled_kahan", .op = UG_OP_GEMM, .backend = UG_CUDA, .batch_invariant = true, .bound = UG_BOUND_KAHAN,
     .version = MATMUL_TILED_KAHAN, .doc = "the tiled kernel with the Kahan-matmul post's update"},
};

UG_CUDA_END

UG_FAMILY(matmul, ug_matmul_kernels, ug_matmul_run)
