/*
 * reduce_grid.cu - grid-wide fp32 reductions sized for the whole GPU, and the depth functions
 * of their summation trees.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -lineinfo -Xcompiler=-Wall,-Wextra -c reduce_grid.cu
 *
 * Shape (ug_cuda.cuh; a function of n alone, so results and depths do not depend on the GPU):
 * G = min(ceil(n/256), 1024) blocks of B = 256 threads, T = G*B threads; thread g sums
 * x[g], x[g+T], x[g+2T], ... serially (m = ceil(n/T) elements at most, loaded 8 at a time and
 * added in index order), the block combines its 256 states in a tree, one block of 1024
 * threads combines the G block partials (zeros past G).
 *
 * Versions (registry name: per-thread accumulation / block combine / final combine):
 *   reduce_atomic_grid       fp32 serial / atomicAdd into a shared word / atomicAdd into *out.
 *                            Nondeterministic (seven-methods post, method 1's idea, whole GPU).
 *   reduce_warp_shuffle_grid fp32 serial / the seven-methods post's block_reduce_sum (shuffles) / the same
 *                            over the partials (seven-methods post, method 5's primitives, whole GPU).
 *   reduce_f64acc            fp64 serial / fp64 tree / fp64 tree, rounded once to fp32.
 *   reduce_kahan             Kahan (the Kahan-matmul post's update) / TwoSum tree of the sums with the
 *                            compensations and TwoSum errors summed alongside / same; result
 *                            s + corr rounded once.
 *   reduce_neumaier          Neumaier (Fast2Sum by magnitude) / same combine as reduce_kahan.
 *
 * Depths (most rounding additions any element passes through; an addition of an exact 0 is
 * exact, and a tree of n nonzero leaves has at most n-1 additions of two nonzero values, so
 * every depth is also capped at n-1):
 *   grid tree      (m-1) + log2(B) + ceil(log2 G)   [serial, block tree, final tree over a
 *                  zero-padded prefix of G: ceil(log2 G) nontrivial levels]
 *   atomic grid    (m-1) + (B-1) + (G-1)            [serial, B then G atomic adds, any order]
 * Compensated kernels:
 *   reduce_neumaier: every main-part addition is error-free (Fast2Sum per thread, TwoSum in
 *     the trees), so s = s_main + sum of the errors exactly; the errors are summed in fp32 and
 *     added once: Ogita-Rump-Oishi's Sum2 argument in another order, the UG_BOUND_NEUMAIER
 *     class u|s| + gamma_D^2 S with D = ug_depth_neumaier_grid (below): the errors total at
 *     most gamma_D S and are summed through depth D.
 *   reduce_kahan: Kahan's compensation is not exact, so the class is UG_BOUND_TREE with an
 *     effective depth (ug_depth_kahan_grid).  Per thread, fl(s_g - c_g) is Kahan's sum of
 *     the slice with one more element 0, so by the UG_BOUND_KAHAN class (kernels/bounds.c:
 *     (2u + 4 n u^2) S) it is within (2u + 4(m+1)u^2) S_g of the slice's sum e_g; the real
 *     value s_g - c_g is one rounding further: |s_g - c_g - e_g| <= (3u + (4m+7)u^2) S_g, and
 *     |c_g| <= |s_g - e_g| + |e_g - (s_g - c_g)| <= (5u + O(m u^2)) S_g.  The trees are
 *     error-free on the sums (TwoSum, depth <= 8 + 10 = 18, so their errors total <= gamma_18
 *     S) and sum compensations and errors in fp32 at depth <= 2*18 = 36, adding <= gamma_36
 *     (6u + gamma_18) S <= 900 u^2 S.  The final rounding adds u|s| <= uS.  In all
 *     |res - s| <= 4uS + (4m + 900) u^2 S <= 5uS <= gamma_5 S while (4m + 900) u <= 1, which
 *     holds for m <= 2^21 (n <= 2^39); beyond, depth 5 + m/2^21 (each further u covers
 *     2^22 more of m).
 *
 * Special values: the compensated kernels drop a compensation or TwoSum error that is not
 * finite (it is inf - inf = NaN as soon as a partial sum overflows or meets an infinity), so
 * an infinite exact sum comes out as that infinity and a NaN input as NaN, like plain sums.
 * Atomics (reduce_atomic_grid) flush subnormal inputs and results to zero (PTX atom.add.f32).
 */
#include "kernels/cuda/ug_cuda.cuh"

#include "kernels/cuda/shuffle_reduce.cuh"

UG_CUDA_BEGIN

// ----------------------------------------------------------------------------
// per-thread accumulators and the states they hand to the trees

struct ug_comp {   /* a compensated value: s + corr */
    float s, corr;
};

/* Knuth's TwoSum: s + e == a + b exactly (RN, no overflow).  A non-finite s makes e NaN;
 * then e is dropped so the state carries the infinity (or NaN) of s alone. */
__device__ __forceinline__ ug_comp ug_two_sum(float a, float b)
{
    float s = a + b;
    float bb = s - a;
    float e = (a - (s - bb)) + (b - bb);
    return ug_comp{s, isfinite(s) ? e : 0.0f};
}

struct ug_op_f64 {
    typedef double state;
    __device__ static state zero() { return 0.0; }
    __device__ static state combine(state a, state b) { return a + b; }
    __device__ static float result(state a) { return (float)a; } // the one rounding to fp32
};

struct ug_op_comp {
    typedef ug_comp state;
    __device__ static state zero() { return ug_comp{0.0f, 0.0f}; }
    // exact on the sums; the compensations and the new error are summed in fp32
    __device__ static state combine(state a, state b)
    {
        ug_comp r = ug_two_sum(a.s, b.s);
        r.corr = (a.corr + b.corr) + r.corr;
        return r;
    }
    __device__ static float result(state a) { return isfinite(a.s) ? a.s + a.corr : a.s; }
};

// plain fp32 slices (the shuffle and atomic kernels combine them their own way)
struct ug_acc_f32 {
    float s = 0.0f;
    __device__ void add(float x) { s += x; }
};

struct ug_acc_f64 {
    typedef ug_op_f64 op;
    double s = 0.0;
    __device__ void add(float x) { s += (double)x; }
    __device__ double state() const { return s; }
};

// Kahan as the Kahan-matmul post writes it (y = x - c; t = s + y; c = (t - s) - y; s = t), c dropped when t
// is not finite; the state is s - c (corr = -c).
struct ug_acc_kahan {
    typedef ug_op_comp op;
    float s = 0.0f, c = 0.0f;
    __device__ void add(float x)
    {
        float y = x - c;
        float t = s + y;
        c = isfinite(t) ? (t - s) - y : 0.0f;
        s = t;
    }
    __device__ ug_comp state() const { return ug_comp{s, -c}; }
};

// Neumaier: the rounding error of t = s + x recovered exactly by Fast2Sum ordered by magnitude.
struct ug_acc_neumaier {
    typedef ug_op_comp op;
    float s = 0.0f, c = 0.0f;
    __device__ void add(float x)
    {
        float t = s + x;
        float e = fabsf(s) >= fabsf(x) ? (s - t) + x : (x - t) + s;
        c += isfinite(t) ? e : 0.0f;
        s = t;
    }
    __device__ ug_comp state() const { return ug_comp{s, c}; }
};

// ----------------------------------------------------------------------------
// kernels

/* Thread g's grid-stride slice, added in index order; UG_GRID_UNROLL loads are issued before
 * the first add so that several are in flight (the order of the adds is unchanged). */
template <class Acc>
__device__ __forceinline__ void ug_grid_slice(const float *__restrict__ x, size_t n, Acc &acc)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UG_GRID_UNROLL - 1) * T < n; i += UG_GRID_UNROLL * T) {
        float v[UG_GRID_UNROLL];
#pragma unroll
        for (int u = 0; u < UG_GRID_UNROLL; u++) v[u] = x[i + u * T];
#pragma unroll
        for (int u = 0; u < UG_GRID_UNROLL; u++) acc.add(v[u]);
    }
    for (; i < n; i += T) acc.add(x[i]);
}

/* Sequential-halving tree over a block of B (a power of two) states; thread 0 gets the root. */
template <class Op, int B>
__device__ __forceinline__ typename Op::state ug_block_tree(typename Op::state v)
{
    __shared__ typename Op::state sh[B];
    const unsigned t = threadIdx.x;
    sh[t] = v;
    for (unsigned s = B / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (t < s) sh[t] = Op::combine(sh[t], sh[t + s]);
    }
    return sh[0]; // meaningful in thread 0, which wrote it last
}

// first pass: slice, then the block tree; one state per block
template <class Acc>
__global__ void __launch_bounds__(UG_GRID_BLOCK)
ug_grid_partials_kernel(const float *__restrict__ x, size_t n, typename Acc::op::state *partials)
{
    Acc acc;
    ug_grid_slice(x, n, acc);
    typename Acc::op::state st = ug_block_tree<typename Acc::op, UG_GRID_BLOCK>(acc.state());
    if (threadIdx.x == 0) partials[blockIdx.x] = st;
}

// second pass: one block of 1024 over the G <= 1024 partials, rounded to fp32 once
template <class Op>
__global__ void __launch_bounds__(UG_FINAL_BLOCK)
ug_grid_final_kernel(const typename Op::state *partials, unsigned G, float *out)
{
    typename Op::state v = threadIdx.x < G ? partials[threadIdx.x] : Op::zero();
    v = ug_block_tree<Op, UG_FINAL_BLOCK>(v);
    if (threadIdx.x == 0) *out = Op::result(v);
}

// seven-methods post, method 5's block_reduce_sum as the block combine of fp32 slices
__global__ void __launch_bounds__(UG_GRID_BLOCK)
ug_shuffle_partials_kernel(const float *__restrict__ x, size_t n, float *partials)
{
    ug_acc_f32 acc;
    ug_grid_slice(x, n, acc);
    float sum = shuffle_block_reduce_sum(acc.s);
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

// ... and over the partials, zero-padded to 1024
__global__ void __launch_bounds__(UG_FINAL_BLOCK)
ug_shuffle_final_kernel(const float *partials, unsigned G, float *out)
{
    float sum = shuffle_block_reduce_sum(threadIdx.x < G ? partials[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0) *out = sum;
}

// fp32 slices, atomically added into a shared word, block words atomically added into *out
// (which the host zeroes before the launch): two layers of arrival-order summation
__global__ void __launch_bounds__(UG_GRID_BLOCK)
ug_atomic_grid_kernel(const float *__restrict__ x, size_t n, float *out)
{
    __shared__ float block_sum;
    ug_acc_f32 acc;
    if (threadIdx.x == 0) block_sum = 0.0f;
    ug_grid_slice(x, n, acc);
    __syncthreads();
    atomicAdd(&block_sum, acc.s);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, block_sum);
}

// ----------------------------------------------------------------------------
// depth functions (host; see the header for the derivations)

static size_t ug_ceil_log2(size_t v)
{
    size_t d = 0;
    while (((size_t)1 << d) < v) d++;
    return d;
}

/* Elements per thread (at most) and blocks of the grid shape for n. */
static void ug_grid_shape(size_t n, size_t *m, size_t *G)
{
    *G = ug_grid_blocks(n);
    *m = ug_div_up(n, *G * UG_GRID_BLOCK);
}

size_t ug_depth_grid_tree(size_t n)
{
    size_t m, G, d;
    if (n <= 1) return 0;
    ug_grid_shape(n, &m, &G);
    d = (m - 1) + UG_GRID_BLOCK_LOG2 + ug_ceil_log2(G);
    return d < n - 1 ? d : n - 1;
}

size_t ug_depth_atomic_grid(size_t n)
{
    size_t m, G, d;
    if (n <= 1) return 0;
    ug_grid_shape(n, &m, &G);
    d = (m - 1) + (UG_GRID_BLOCK - 1) + (G - 1);
    return d < n - 1 ? d : n - 1;
}

/* reduce_neumaier: the depth D of the NEUMAIER class (kernels/bounds.c: u|s| + gamma_D^2 S).
 * The main sums are error-free but for the per-thread additions, so their errors total at most
 * u (m - 1 + log2 B + ceil(log2 G)) S; the errors are summed serially per thread (m - 2
 * additions) and then pass two roundings at every tree level ((a.corr + b.corr) + r.corr):
 * m + 2 (log2 B + ceil(log2 G)) bounds both depths. */
size_t ug_depth_neumaier_grid(size_t n)
{
    size_t m, G;
    if (n <= 1) return 0;
    ug_grid_shape(n, &m, &G);
    return m + 2 * (UG_GRID_BLOCK_LOG2 + ug_ceil_log2(G));
}

size_t ug_depth_kahan_grid(size_t n)
{
    size_t m, G;
    if (n <= 1) return 0;
    ug_grid_shape(n, &m, &G);
    return 5 + (m >> 21);
}

// ----------------------------------------------------------------------------
// launchers

/* The two-pass tree reductions: upload, partials buffer, run, time. */
template <class Acc>
static int ug_run_grid(const ug_kernel *k, ug_call *c)
{
    typedef typename Acc::op::state state;
    const float *d_x = NULL;
    float *d_out = NULL;
    state *d_part = NULL;
    size_t n = c->shape.dim[0];
    unsigned G = 0;
    if (ug_cuda_enter(k, c)) return 1;
    G = ug_grid_blocks(n);
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), n, &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_part, G * sizeof(state)));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    ug_cuda_run(c, d_out, 1, ug_no_prepare, [&] {
        ug_grid_partials_kernel<Acc><<<G, UG_GRID_BLOCK>>>(d_x, n, d_part);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        ug_grid_final_kernel<typename Acc::op><<<1, UG_FINAL_BLOCK>>>(d_part, G, d_out);
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_part);
    cudaFree(d_out);
    return c->err[0] != 0;
}

static int ug_run_shuffle_grid(const ug_kernel *k, ug_call *c)
{
    const float *d_x = NULL;
    float *d_part = NULL, *d_out = NULL;
    size_t n = c->shape.dim[0];
    unsigned G = 0;
    if (ug_cuda_enter(k, c)) return 1;
    G = ug_grid_blocks(n);
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), n, &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_part, G * sizeof(float)));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    ug_cuda_run(c, d_out, 1, ug_no_prepare, [&] {
        ug_shuffle_partials_kernel<<<G, UG_GRID_BLOCK>>>(d_x, n, d_part);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        ug_shuffle_final_kernel<<<1, UG_FINAL_BLOCK>>>(d_part, G, d_out);
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_part);
    cudaFree(d_out);
    return c->err[0] != 0;
}

static int ug_run_atomic_grid(const ug_kernel *k, ug_call *c)
{
    const float *d_x = NULL;
    float *d_out = NULL;
    size_t n = c->shape.dim[0];
    unsigned G = 0;
    if (ug_cuda_enter(k, c)) return 1;
    G = ug_grid_blocks(n);
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), n, &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    ug_cuda_run(
        c, d_out, 1, [&] { return cudaMemsetAsync(d_out, 0, sizeof(float)); },
        [&] {
            ug_atomic_grid_kernel<<<G, UG_GRID_BLOCK>>>(d_x, n, d_out);
            return cudaGetLastError();
        });
cleanup:
    cudaFree(d_out);
    return c->err[0] != 0;
}

// ----------------------------------------------------------------------------
// the launcher and the registry rows

enum { REDUCE_ATOMIC_GRID, REDUCE_WARP_SHUFFLE_GRID, REDUCE_F64ACC, REDUCE_KAHAN, REDUCE_NEUMAIER };

int ug_reduce_grid_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case REDUCE_ATOMIC_GRID: return ug_run_atomic_grid(k, c);
    case REDUCE_WARP_SHUFFLE_GRID: return ug_run_shuffle_grid(k, c);
    case REDUCE_F64ACC: return ug_run_grid<ug_acc_f64>(k, c);
    case REDUCE_KAHAN: return ug_run_grid<ug_acc_kahan>(k, c);
    case REDUCE_NEUMAIER: return ug_run_grid<ug_acc_neumaier>(k, c);
    }
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

const ug_kernel ug_reduce_grid_kernels[] = {
    {.name = "reduce_atomic_grid", .op = UG_OP_SUM, .backend = UG_CUDA, .nondeterministic = true,
     .ftz = true, .bound = UG_BOUND_TREE, .depth = ug_depth_atomic_grid, .version = REDUCE_ATOMIC_GRID,
     .doc = "per-thread fp32 partials, atomicAdd per block then into *out"},
    {.name = "reduce_warp_shuffle_grid", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_grid_tree, .version = REDUCE_WARP_SHUFFLE_GRID,
     .doc = "per-thread fp32 partials, the seven-methods post's shuffle block reduce, second pass"},
    {.name = "reduce_f64acc", .op = UG_OP_SUM, .backend = UG_CUDA, .acc_fmt = UG_F64,
     .bound = UG_BOUND_WIDE_ACC, .depth = ug_depth_grid_tree, .version = REDUCE_F64ACC,
     .doc = "fp64 per-thread partials and trees, rounded once to fp32"},
    {.name = "reduce_kahan", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_kahan_grid, .version = REDUCE_KAHAN,
     .doc = "Kahan per thread, TwoSum trees carrying compensations; effective depth 5"},
    {.name = "reduce_neumaier", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_NEUMAIER,
     .depth = ug_depth_neumaier_grid, .version = REDUCE_NEUMAIER, .doc = "Neumaier per thread, TwoSum trees carrying compensations"},
};

UG_CUDA_END

UG_FAMILY(reduce_grid, ug_reduce_grid_kernels, ug_reduce_grid_run)
