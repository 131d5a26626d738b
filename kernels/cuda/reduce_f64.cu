/*
 * reduce_f64.cu - binary64 reductions on the GPU: binary64 in, accumulator and out.
 * What scientific codes run, and the one whose results users find not reproducible.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -std=c++20 -c reduce_f64.cu
 *
 *   reduce_f64_grid     reduce_grid.cu's fixed shape in binary64: G = min(ceil(n/256), 1024)
 *                       blocks of 256 threads, thread g sums x[g], x[g+T], ... serially, a
 *                       sequential-halving block tree, one block of 1024 over the partials.
 *                       f64_tree, D = (m-1) + 8 + ceil(log2 G) (fmt_cuda.cuh), capped at n-1.
 *   cub_reduce_f64      cub::DeviceReduce::Sum on double: order not documented, so D = n-1.
 *                       Run-to-run deterministic on one GPU as CCCL documents it for
 *                       DeviceReduce (not GPU to GPU); the lead's H100 run checks it.
 *   reduce_f64_atomic   per-thread serial slices, atomicAdd(double *) into a shared word per
 *                       block, then atomicAdd(double *) of the block words into *out: arrival
 *                       order, declared nondeterministic.  D = (m-1) + 255 + (G-1), capped at
 *                       n-1 (any order of the atomic additions).  Binary64 atomics round to
 *                       nearest and keep subnormals (no flush, unlike atom.add.f32).
 *   dot_f64_grid        reduce_f64_grid over x[i]*y[i] (the default build contracts a += x*y
 *                       into one FMA: one rounding for product and sum, within gamma_{D+1}).
 */
#include "kernels/cuda/fmt_cuda.cuh"

#include <cub/device/device_reduce.cuh>

UG_CUDA_BEGIN

// ----------------------------------------------------------------------------
// kernels

/* Sequential-halving tree over a block of B (a power of two) doubles; thread 0 gets the root. */
template <int B>
__device__ __forceinline__ double ug_block_tree_f64(double v)
{
    __shared__ double sh[B];
    const unsigned t = threadIdx.x;
    sh[t] = v;
    for (unsigned s = B / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (t < s) sh[t] = sh[t] + sh[t + s];
    }
    return sh[0];
}

/* Thread g's grid-stride slice in index order: x[i] (DOT false) or x[i]*y[i]. */
template <bool DOT>
__device__ __forceinline__ double ug_slice_f64(const double *__restrict__ x,
                                               const double *__restrict__ y, size_t n)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    double a = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T)
        a += DOT ? x[i] * y[i] : x[i];
    return a;
}

template <bool DOT>
__global__ void __launch_bounds__(UG_GRID_BLOCK)
ug_f64_partials_kernel(const double *__restrict__ x, const double *__restrict__ y, size_t n,
                       double *partials)
{
    double a = ug_block_tree_f64<UG_GRID_BLOCK>(ug_slice_f64<DOT>(x, y, n));
    if (threadIdx.x == 0) partials[blockIdx.x] = a;
}

__global__ void __launch_bounds__(UG_FINAL_BLOCK)
ug_f64_final_kernel(const double *partials, unsigned G, double *out)
{
    double a = ug_block_tree_f64<UG_FINAL_BLOCK>(threadIdx.x < G ? partials[threadIdx.x] : 0.0);
    if (threadIdx.x == 0) *out = a;
}

// per-thread slices, atomically added into a shared word, block words into *out (zeroed by the
// host before each launch): two layers of arrival-order summation
__global__ void __launch_bounds__(UG_GRID_BLOCK)
ug_f64_atomic_kernel(const double *__restrict__ x, size_t n, double *out)
{
    __shared__ double block_sum;
    if (threadIdx.x == 0) block_sum = 0.0;
    double a = ug_slice_f64<false>(x, NULL, n);
    __syncthreads();
    atomicAdd(&block_sum, a);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, block_sum);
}

// ----------------------------------------------------------------------------
// depth functions (host)

static size_t ug_depth_f64_atomic(size_t n)
{
    if (n <= 1) return 0;
    size_t G = ug_grid_blocks(n), m = ug_div_up(n, G * UG_GRID_BLOCK);
    size_t d = (m - 1) + (UG_GRID_BLOCK - 1) + (G - 1);
    return d < n - 1 ? d : n - 1;
}

// ----------------------------------------------------------------------------
// launchers

template <bool DOT>
static int ug_run_f64_grid(const ug_kernel *k, ug_call *c)
{
    size_t n = c->shape.dim[0];
    return ug_fmt_grid_run<double>(k, c, DOT, n, 0, [&](void *d_x, void *d_y, double *d_part, unsigned G,
                                                          double *d_out) {
        ug_f64_partials_kernel<DOT><<<G, UG_GRID_BLOCK>>>((const double *)d_x, (const double *)d_y,
                                                          n, d_part);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        ug_f64_final_kernel<<<1, UG_FINAL_BLOCK>>>(d_part, G, d_out);
        return cudaGetLastError();
    });
}

static int ug_run_f64_atomic(const ug_kernel *k, ug_call *c)
{
    void *d_x = NULL;
    double *d_out = NULL;
    size_t n = c->shape.dim[0];
    unsigned G = 0;
    if (ug_cuda_enter(k, c)) return 1;
    G = ug_grid_blocks(n);
    UG_CUDA_TRY(c, ug_fmt_upload(&d_x, &c->in[0], 0));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(double)));
    ug_fmt_cuda_run(
        c, d_out, [&] { return cudaMemsetAsync(d_out, 0, sizeof(double)); },
        [&] {
            ug_f64_atomic_kernel<<<G, UG_GRID_BLOCK>>>((const double *)d_x, n, d_out);
            return cudaGetLastError();
        });
cleanup:
    cudaFree(d_x);
    cudaFree(d_out);
    return c->err[0] != 0;
}

static int ug_run_cub_f64(const ug_kernel *k, ug_call *c)
{
    void *d_x = NULL, *d_temp = NULL;
    double *d_out = NULL;
    size_t temp_bytes = 0;
    long long n = 0;
    if (ug_cuda_enter(k, c)) return 1;
    n = (long long)c->shape.dim[0];
    UG_CUDA_TRY(c, ug_fmt_upload(&d_x, &c->in[0], 0));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(double)));
    UG_CUDA_TRY(c, cub::DeviceReduce::Sum(NULL, temp_bytes, (const double *)d_x, d_out, n));
    UG_CUDA_TRY(c, cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));
    ug_fmt_cuda_run(c, d_out, ug_no_prepare, [&] {
        return cub::DeviceReduce::Sum(d_temp, temp_bytes, (const double *)d_x, d_out, n);
    });
cleanup:
    cudaFree(d_x);
    cudaFree(d_temp);
    cudaFree(d_out);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// the launcher and the registry rows

enum { REDUCE_F64_GRID, CUB_REDUCE_F64, REDUCE_F64_ATOMIC, DOT_F64_GRID };

int ug_reduce_f64_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case REDUCE_F64_GRID: return ug_run_f64_grid<false>(k, c);
    case CUB_REDUCE_F64: return ug_run_cub_f64(k, c);
    case REDUCE_F64_ATOMIC: return ug_run_f64_atomic(k, c);
    case DOT_F64_GRID: return ug_run_f64_grid<true>(k, c);
    }
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

const ug_kernel ug_reduce_f64_kernels[] = {
    {.name = "reduce_f64_grid", .op = UG_OP_SUM, .backend = UG_CUDA, .op_fmt = UG_F64,
     .acc_fmt = UG_F64, .out_fmt = UG_F64, .in_store = {UG_F64}, .bound = UG_BOUND_F64_TREE,
     .depth = ug_fmt_depth_grid, .version = REDUCE_F64_GRID,
     .doc = "binary64 per-thread slices, block tree, second pass (binary64 in and out)"},
    {.name = "cub_reduce_f64", .op = UG_OP_SUM, .backend = UG_CUDA, .op_fmt = UG_F64,
     .acc_fmt = UG_F64, .out_fmt = UG_F64, .in_store = {UG_F64}, .bound = UG_BOUND_F64_TREE,
     .depth = ug_depth_serial, .version = CUB_REDUCE_F64,
     .doc = "cub::DeviceReduce::Sum on double, order undocumented (depth n-1)"},
    {.name = "reduce_f64_atomic", .op = UG_OP_SUM, .backend = UG_CUDA, .op_fmt = UG_F64,
     .acc_fmt = UG_F64, .out_fmt = UG_F64, .in_store = {UG_F64}, .nondeterministic = true,
     .bound = UG_BOUND_F64_TREE, .depth = ug_depth_f64_atomic, .version = REDUCE_F64_ATOMIC,
     .doc = "binary64 slices, atomicAdd(double *) per block then into *out: arrival order"},
    {.name = "dot_f64_grid", .op = UG_OP_DOT, .backend = UG_CUDA, .op_fmt = UG_F64,
     .acc_fmt = UG_F64, .out_fmt = UG_F64, .in_store = {UG_F64, UG_F64},
     .bound = UG_BOUND_F64_TREE, .depth = ug_fmt_depth_grid, .version = DOT_F64_GRID,
     .doc = "binary64 dot: per-thread a += x*y slices, block tree, second pass"},
};

UG_CUDA_END

UG_FAMILY(reduce_f64, ug_reduce_f64_kernels, ug_reduce_f64_run)
