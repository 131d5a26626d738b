/*
 * scan.cu - fp32 prefix sums on the GPU: the textbook shapes and the library calls.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -c scan.cu.  Built in the default variant only
 * (kernels/meson.build): the depths below analyse the code as written, contraction aside (a
 * scan multiplies nothing).
 *
 *   scan_hillis_steele_gpu  blocks of B = 1024 elements, Hillis-Steele in shared memory (log2 B
 *                           double-buffered sweeps); the block totals scanned the same way,
 *                           recursively; each block's prefix added to its outputs
 *   scan_blelloch_gpu       the same three phases with Blelloch's work-efficient up/down-sweep
 *                           (GPU Gems 3, ch. 39: 512 threads, two elements each), exclusive in
 *                           the block, + x[i] for the inclusive output
 *   scan_lookback_gpu       a single-pass decoupled look-back scan (Merrill & Garland 2016):
 *                           tiles of T = 1024 (256 threads x 4 items) taken in launch order
 *                           by an atomic counter; each thread scans its 4 items serially, the
 *                           block scans the 256 thread totals (Hillis-Steele), thread 0 publishes
 *                           the tile aggregate (flag A), looks back over the predecessors'
 *                           words summing aggregates until an inclusive prefix (flag P), and
 *                           publishes its own P.  Which predecessors have a P when a tile looks
 *                           back depends on timing: the association, hence the bits, may vary
 *                           run to run (nondeterministic)
 *   cub_inclusive_scan      cub::DeviceScan::InclusiveSum; cub_exclusive_scan ExclusiveSum
 *   thrust_inclusive_scan   thrust::inclusive_scan(thrust::device, ...)
 *
 * Depths, of an output of m terms (ops/scan.c grades output i against its own m; every depth
 * is also capped at m - 1: a sum of m terms formed by additions of disjoint partial sums, and
 * additions of exact zeros, pass no term through more than m - 1 rounded additions):
 *   hillis_steele  m <= B: ceil(log2 m) (position j is final after ceil(log2(j + 1)) sweeps);
 *                  m > B: the block total (log2 B = 10) + the block-sum scan's output over the
 *                  b = floor((m - 1) / B) earlier blocks (the same function at b) + the add: 11
 *                  + D(b); a term of the own block: 10 + 1 <= that
 *   blelloch       m <= B: 2 ceil(log2 m) + 1 (kernels/cpu/scan.c's argument, + x[i]);
 *                  m > B: 1 + max(21, 10 + D(b)) (the local inclusive 21, or the up-sweep
 *                  total 10 and the block-sum scan's D(b), then the add)
 *   lookback       a term of another thread of its tile: its thread's serial 3 + the block
 *                  scan 8 + (tile prefix + thread prefix) 1 + the final add 1 = 13; a term of an
 *                  earlier tile: its tile's aggregate (3 + 8 = 11), then along the look-back
 *                  chain at most 2 additions per tile index it crosses (in a window: running =
 *                  A + running; or at a P: excl = P + running, P = excl + A), then the same 2:
 *                  D(m) = 13 + 2 floor((m - 1) / T)
 *   cub, thrust    order not documented: m - 1 (any order of m terms)
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <cub/device/device_scan.cuh>
#include <limits.h>
#include <string.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

UG_CUDA_BEGIN

#define UG_SCAN_B 1024       /* elements of a block of the three-phase scans */
#define UG_SCAN_B_LOG2 10
#define UG_LB_THREADS 256    /* the look-back scan: threads per tile ... */
#define UG_LB_ITEMS 4        /* ... and items per thread: T = 1024 */
#define UG_LB_TILE (UG_LB_THREADS * UG_LB_ITEMS)
#define UG_SCAN_MAX_LEVELS 8

static size_t ug_cap(size_t d, size_t m) { return m && d > m - 1 ? m - 1 : d; }

static size_t ug_depth_hs_gpu(size_t m)
{
    if (m <= UG_SCAN_B) return ug_depth_log2(m);
    return ug_cap(UG_SCAN_B_LOG2 + 1 + ug_depth_hs_gpu((m - 1) / UG_SCAN_B), m);
}

static size_t ug_depth_blelloch_gpu(size_t m)
{
    if (m <= UG_SCAN_B) return ug_cap(2 * ug_depth_log2(m) + 1, m);
    size_t up = UG_SCAN_B_LOG2 + ug_depth_blelloch_gpu((m - 1) / UG_SCAN_B);
    return ug_cap(1 + (up > 2 * UG_SCAN_B_LOG2 + 1 ? up : 2 * UG_SCAN_B_LOG2 + 1), m);
}

static size_t ug_depth_lookback(size_t m)
{
    return ug_cap(13 + 2 * (m ? (m - 1) / UG_LB_TILE : 0), m);
}

// ----------------------------------------------------------------------------
// three-phase scans: block scan (+ block totals), scan of the totals, add the prefixes

/* Hillis-Steele over one block of UG_SCAN_B elements (zeros past n), double-buffered. */
__global__ void ug_block_hs(const float *in, float *out, float *totals, size_t n)
{
    __shared__ float buf[2][UG_SCAN_B];
    size_t base = (size_t)blockIdx.x * UG_SCAN_B;
    for (int i = threadIdx.x; i < UG_SCAN_B; i += blockDim.x)
        buf[0][i] = base + i < n ? in[base + i] : 0.0f;
    __syncthreads();
    int cur = 0;
    for (int d = 1; d < UG_SCAN_B; d *= 2) {
        for (int i = threadIdx.x; i < UG_SCAN_B; i += blockDim.x)
            buf[cur ^ 1][i] = i >= d ? buf[cur][i] + buf[cur][i - d] : buf[cur][i];
        cur ^= 1;
        __syncthreads();
    }
    for (int i = threadIdx.x; i < UG_SCAN_B; i += blockDim.x)
        if (base + i < n) out[base + i] = buf[cur][i];
    if (totals && threadIdx.x == 0) totals[blockIdx.x] = buf[cur][UG_SCAN_B - 1];
}

/* Blelloch over one block (512 threads, two elements each), inclusive output; the block total
 * is the up-sweep's root. */
__global__ void ug_block_blelloch(const float *in, float *out, float *totals, size_t n)
{
    __shared__ float t[UG_SCAN_B];
    size_t base = (size_t)blockIdx.x * UG_SCAN_B;
    int tid = threadIdx.x;
    for (int i = tid; i < UG_SCAN_B; i += blockDim.x) t[i] = base + i < n ? in[base + i] : 0.0f;
    __syncthreads();
    for (int d = 1; d < UG_SCAN_B; d *= 2) { /* up-sweep */
        for (int k = tid * 2 * d; k < UG_SCAN_B; k += blockDim.x * 2 * d)
            t[k + 2 * d - 1] += t[k + d - 1];
        __syncthreads();
    }
    if (tid == 0) {
        if (totals) totals[blockIdx.x] = t[UG_SCAN_B - 1];
        t[UG_SCAN_B - 1] = 0.0f;
    }
    __syncthreads();
    for (int d = UG_SCAN_B / 2; d >= 1; d /= 2) { /* down-sweep */
        for (int k = tid * 2 * d; k < UG_SCAN_B; k += blockDim.x * 2 * d) {
            float l = t[k + d - 1];
            t[k + d - 1] = t[k + 2 * d - 1];
            t[k + 2 * d - 1] += l;
        }
        __syncthreads();
    }
    for (int i = tid; i < UG_SCAN_B; i += blockDim.x)
        if (base + i < n) out[base + i] = t[i] + in[base + i];
}

/* out[i] = prefix[b - 1] + out[i] for the blocks b >= 1 (prefix: the inclusive scan of the
 * block totals). */
__global__ void ug_add_prefix(float *out, const float *prefix, size_t n)
{
    size_t b = blockIdx.x + 1, base = b * UG_SCAN_B;
    for (int i = threadIdx.x; i < UG_SCAN_B; i += blockDim.x)
        if (base + i < n) out[base + i] = prefix[b - 1] + out[base + i];
}

/* The levels of the three-phase scan: totals[l] holds the block totals of level l, scans[l]
 * their inclusive scan (level l + 1's output). */
struct ug_levels {
    float *totals[UG_SCAN_MAX_LEVELS], *scans[UG_SCAN_MAX_LEVELS];
    size_t len[UG_SCAN_MAX_LEVELS + 1];
    int count;
};

static cudaError_t ug_levels_alloc(ug_levels *L, size_t n)
{
    memset(L, 0, sizeof *L);
    L->len[0] = n;
    while (L->len[L->count] > UG_SCAN_B && L->count < UG_SCAN_MAX_LEVELS) {
        size_t nb = ug_div_up(L->len[L->count], UG_SCAN_B);
        cudaError_t e = cudaMalloc(&L->totals[L->count], nb * sizeof(float));
        if (e == cudaSuccess) e = cudaMalloc(&L->scans[L->count], nb * sizeof(float));
        if (e != cudaSuccess) return e;
        L->len[++L->count] = nb;
    }
    return cudaSuccess;
}

static void ug_levels_free(ug_levels *L)
{
    for (int l = 0; l < UG_SCAN_MAX_LEVELS; l++) cudaFree(L->totals[l]), cudaFree(L->scans[l]);
}

/* Level l: scan in (len[l]) into out; recursion on its totals. */
static cudaError_t ug_three_phase(const ug_levels *L, int l, const float *in, float *out, bool bl)
{
    size_t n = L->len[l];
    unsigned blocks = (unsigned)ug_div_up(n, UG_SCAN_B);
    float *tot = l < L->count ? L->totals[l] : NULL;
    if (bl) ug_block_blelloch<<<blocks, UG_SCAN_B / 2>>>(in, out, tot, n);
    else ug_block_hs<<<blocks, UG_SCAN_B>>>(in, out, tot, n);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || !tot) return e;
    if ((e = ug_three_phase(L, l + 1, tot, L->scans[l], bl)) != cudaSuccess) return e;
    if (blocks > 1) ug_add_prefix<<<blocks - 1, 256>>>(out, L->scans[l], n);
    return cudaGetLastError();
}

static int ug_run_three_phase(const ug_kernel *k, ug_call *c, bool blelloch)
{
    const float *d_x = NULL;
    float *d_out = NULL;
    ug_levels L;
    memset(&L, 0, sizeof L);
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), c->shape.dim[0], &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, c->shape.dim[0] * sizeof(float)));
    UG_CUDA_TRY(c, ug_levels_alloc(&L, c->shape.dim[0]));
    ug_cuda_run(c, d_out, c->shape.dim[0], ug_no_prepare,
                [&] { return ug_three_phase(&L, 0, d_x, d_out, blelloch); });
cleanup:
    cudaFree(d_out);
    ug_levels_free(&L);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// single-pass decoupled look-back

enum { UG_LB_X = 0, UG_LB_A = 1, UG_LB_P = 2 };

__device__ __forceinline__ unsigned long long ug_lb_word(int flag, float v)
{
    return ((unsigned long long)flag << 32) | __float_as_uint(v);
}

__global__ void ug_scan_lookback_kernel(const float *in, float *out, size_t n,
                                        unsigned long long *status, unsigned *counter)
{
    __shared__ float tot[2][UG_LB_THREADS];
    __shared__ unsigned s_tile;
    __shared__ float s_excl;
    int tid = threadIdx.x;
    if (tid == 0) s_tile = atomicAdd(counter, 1u); /* tiles in the order blocks start */
    __syncthreads();
    size_t tile = s_tile, base = tile * UG_LB_TILE + (size_t)tid * UG_LB_ITEMS;
    float item[UG_LB_ITEMS], s = 0.0f;
    for (int j = 0; j < UG_LB_ITEMS; j++) {
        float v = base + j < n ? in[base + j] : 0.0f;
        s = j ? s + v : v;
        item[j] = s;
    }
    tot[0][tid] = s;
    __syncthreads();
    int cur = 0;
    for (int d = 1; d < UG_LB_THREADS; d *= 2) { /* Hillis-Steele over the thread totals */
        tot[cur ^ 1][tid] = tid >= d ? tot[cur][tid] + tot[cur][tid - d] : tot[cur][tid];
        cur ^= 1;
        __syncthreads();
    }
    if (tid == 0) {
        float agg = tot[cur][UG_LB_THREADS - 1], excl = 0.0f;
        volatile unsigned long long *st = status;
        if (tile == 0) {
            atomicExch(&status[0], ug_lb_word(UG_LB_P, agg));
        } else {
            atomicExch(&status[tile], ug_lb_word(UG_LB_A, agg));
            __threadfence();
            float running = 0.0f;
            bool have = false;
            for (size_t k = tile - 1;; k--) {
                unsigned long long w;
                while (((w = st[k]) >> 32) == UG_LB_X) {
                }
                float v = __uint_as_float((unsigned)w);
                if ((w >> 32) == UG_LB_P) {
                    excl = have ? v + running : v;
                    break;
                }
                running = have ? v + running : v;
                have = true;
            }
            __threadfence();
            atomicExch(&status[tile], ug_lb_word(UG_LB_P, excl + agg));
        }
        s_excl = excl;
    }
    __syncthreads();
    float thread_excl = tid ? tot[cur][tid - 1] : 0.0f, prefix;
    if (tile && tid) prefix = s_excl + thread_excl;
    else prefix = tile ? s_excl : thread_excl;
    bool any = tile || tid;
    for (int j = 0; j < UG_LB_ITEMS; j++)
        if (base + j < n) out[base + j] = any ? prefix + item[j] : item[j];
}

static int ug_run_lookback(const ug_kernel *k, ug_call *c)
{
    const float *d_x = NULL;
    float *d_out = NULL;
    unsigned long long *d_status = NULL;
    unsigned *d_counter = NULL;
    size_t tiles = 0;
    if (ug_cuda_enter(k, c)) return 1;
    tiles = ug_div_up(c->shape.dim[0], UG_LB_TILE);
    if (tiles > UINT_MAX) {
        ug_cuda_failf(c, "%s: n=%zu: more tiles than an unsigned counter holds", k->name, c->shape.dim[0]);
        return 1;
    }
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), c->shape.dim[0], &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, c->shape.dim[0] * sizeof(float)));
    UG_CUDA_TRY(c, cudaMalloc(&d_status, tiles * sizeof *d_status));
    UG_CUDA_TRY(c, cudaMalloc(&d_counter, sizeof *d_counter));
    ug_cuda_run(
        c, d_out, c->shape.dim[0],
        [&] { /* every tile's word back to X, the counter to 0: outside the timed launch */
            cudaError_t e = cudaMemsetAsync(d_status, 0, tiles * sizeof *d_status);
            return e == cudaSuccess ? cudaMemsetAsync(d_counter, 0, sizeof *d_counter) : e;
        },
        [&] {
            ug_scan_lookback_kernel<<<(unsigned)tiles, UG_LB_THREADS>>>(d_x, d_out, c->shape.dim[0], d_status,
                                                                       d_counter);
            return cudaGetLastError();
        });
cleanup:
    cudaFree(d_out);
    cudaFree(d_status);
    cudaFree(d_counter);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// CUB and Thrust

static int ug_run_cub_scan(const ug_kernel *k, ug_call *c, bool exclusive)
{
    const float *d_x = NULL;
    float *d_out = NULL;
    void *d_temp = NULL;
    size_t temp_bytes = 0;
    int n = 0;
    if (ug_cuda_enter(k, c)) return 1;
    if (c->shape.dim[0] > INT_MAX) {
        ug_cuda_failf(c, "%s: n=%zu: this call takes an int count", k->name, c->shape.dim[0]);
        return 1;
    }
    n = (int)c->shape.dim[0];
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), c->shape.dim[0], &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, c->shape.dim[0] * sizeof(float)));
    if (exclusive) UG_CUDA_TRY(c, cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, d_x, d_out, n));
    else UG_CUDA_TRY(c, cub::DeviceScan::InclusiveSum(NULL, temp_bytes, d_x, d_out, n));
    UG_CUDA_TRY(c, cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));
    ug_cuda_run(c, d_out, c->shape.dim[0], ug_no_prepare, [&] {
        return exclusive ? cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_x, d_out, n)
                         : cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_x, d_out, n);
    });
cleanup:
    cudaFree(d_out);
    cudaFree(d_temp);
    return c->err[0] != 0;
}

static int ug_run_thrust_scan(const ug_kernel *k, ug_call *c)
{
    const float *d_x = NULL;
    float *d_out = NULL;
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), c->shape.dim[0], &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, c->shape.dim[0] * sizeof(float)));
    ug_cuda_run(c, d_out, c->shape.dim[0], ug_no_prepare, [&] {
        thrust::inclusive_scan(thrust::device, d_x, d_x + c->shape.dim[0], d_out);
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_out);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// the launcher and the registry rows

enum { SCAN_HS_GPU, SCAN_BLELLOCH_GPU, SCAN_LOOKBACK_GPU, CUB_INCLUSIVE, CUB_EXCLUSIVE, THRUST_INCLUSIVE };

int ug_scan_gpu_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case SCAN_HS_GPU: return ug_run_three_phase(k, c, false);
    case SCAN_BLELLOCH_GPU: return ug_run_three_phase(k, c, true);
    case SCAN_LOOKBACK_GPU: return ug_run_lookback(k, c);
    case CUB_INCLUSIVE: return ug_run_cub_scan(k, c, false);
    case CUB_EXCLUSIVE: return ug_run_cub_scan(k, c, true);
    case THRUST_INCLUSIVE: return ug_run_thrust_scan(k, c);
    }
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

const ug_kernel ug_scan_gpu_kernels[] = {
    {.name = "scan_hillis_steele_gpu", .op = UG_OP_SCAN, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_hs_gpu, .version = SCAN_HS_GPU,
     .doc = "Hillis-Steele blocks of 1024, block totals scanned recursively, prefixes added"},
    {.name = "scan_blelloch_gpu", .op = UG_OP_SCAN, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_blelloch_gpu, .version = SCAN_BLELLOCH_GPU,
     .doc = "Blelloch up/down-sweep blocks of 1024 (GPU Gems 3 ch. 39), recursive totals"},
    {.name = "scan_lookback_gpu", .op = UG_OP_SCAN, .backend = UG_CUDA, .nondeterministic = true,
     .bound = UG_BOUND_TREE, .depth = ug_depth_lookback, .version = SCAN_LOOKBACK_GPU,
     .doc = "single-pass decoupled look-back (Merrill & Garland 2016), tiles of 1024"},
    {.name = "cub_inclusive_scan", .op = UG_OP_SCAN, .backend = UG_CUDA, .nondeterministic = true,
     .bound = UG_BOUND_TREE, .depth = ug_depth_serial, .version = CUB_INCLUSIVE,
     .doc = "cub::DeviceScan::InclusiveSum (fp32); order not documented: depth m-1"},
    {.name = "cub_exclusive_scan", .op = UG_OP_EXSCAN, .backend = UG_CUDA, .nondeterministic = true,
     .bound = UG_BOUND_TREE, .depth = ug_depth_serial, .version = CUB_EXCLUSIVE,
     .doc = "cub::DeviceScan::ExclusiveSum (fp32); order not documented: depth m-1"},
    {.name = "thrust_inclusive_scan", .op = UG_OP_SCAN, .backend = UG_CUDA, .nondeterministic = true,
     .bound = UG_BOUND_TREE, .depth = ug_depth_serial, .version = THRUST_INCLUSIVE,
     .doc = "thrust::inclusive_scan(thrust::device) (fp32); depth m-1"},
};

UG_CUDA_END

UG_FAMILY(scan_gpu, ug_scan_gpu_kernels, ug_scan_gpu_run)
