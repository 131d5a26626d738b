/*
 * reduce_posts.cu - the published posts' own GPU reductions, fp32 in and out, kept as the posts wrote
 * them (single block where the post used one), with the host side made safe for any n >= 1.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -lineinfo -Xcompiler=-Wall,-Wextra -c reduce_seed.cu
 *
 * Versions (registry name: kernel; depth = most rounding additions any element passes through):
 *   reduce_atomic       seven-methods post, method 1: one block of 1024, every element atomicAdd'ed into
 *                       *out; order unknown -> depth n-1; nondeterministic.  n <= 2^30.
 *   reduce_interleaved  CUDA-optimisation post, tree 1: t % (2*stride) == 0 in shared memory, 1024 elements a
 *                       block, one partial per block; the same kernel again on the partials
 *                       until one is left (deterministic).  depth ceil(log2 n).
 *   reduce_sequential   CUDA-optimisation post, tree 2: stride = blockDim/2 ... >>= 1, if (t < stride); the
 *                       same multi-pass scheme.  depth ceil(log2 n).
 *   reduce_warp_shuffle seven-methods post, method 5: <<<1,1024>>> warp/block shuffle hierarchy with its
 *                       4 tiers in shared memory.  depth ceil(log2 n).  n <= 2^30.
 *   reduce_fold         seven-methods post, method 6: <<<1,1024>>> x[i] += x[size-1-i], size = (size+1)/2.
 *                       depth ceil(log2 n).  n <= 2^30.
 *   reduce_bitonic_fold seven-methods post, method 7: <<<1,1024>>> bitonic sort ascending, then the fold.
 *                       depth ceil(log2 n).  n <= 2^24: the sort is log2(n)(log2(n)+1)/2
 *                       passes over the array by one SM, latency-bound once the array leaves
 *                       L2.  Measured on an H200 (event time of one call): 25 ms at 2^20,
 *                       118 ms at 2^22, 955 ms at 2^24; 2^26 would take several seconds a
 *                       call, and the harness makes 11 calls to time one.
 * Single-block speeds at 2^26 (H200): fold 25 ms (11 GB/s), warp shuffle 47 ms (5.7 GB/s),
 * atomic 118 ms (2.3 GB/s: ~570 M same-address atomics/s); the grid-wide kernels and CUB reach
 * ~3.8 TB/s.
 *
 * Depths.  An addition with an operand exactly 0 is exact, so padding with zeros adds no
 * rounding; the depth counts only additions of two values that both come from real elements.
 *  - Both seed-002 trees over a power-of-two block with the elements as a prefix and zeros
 *    after: the interleaved tree is the complete binary tree with adjacent pairing; the
 *    sequential one pairs t with t + stride, and at stride s the addition at t is nontrivial
 *    only if t + s < m (m elements), which needs s < m: ceil(log2 m) levels.  Applying the
 *    same block tree to the block partials (again a prefix) composes into one complete tree
 *    over 1024^passes leaves with the n elements as a prefix: ceil(log2 n) in all.
 *  - Method 5: every block_reduce_sum is the complete tree over 1024 values (5 warp levels +
 *    5 levels across warps); the tiers hold partials in order and the final flush reduces each
 *    tier zero-padded into the next one at its next index, which is where the complete
 *    1024-ary tree of 1024-leaf binary trees would put it: again one complete binary tree over
 *    a zero-padded prefix, ceil(log2 n).  (Its shared array has one slot in the top tier, so
 *    the post's comment "1024^4 elements" is wrong past 2^40; int indexing limits it first.)
 *  - Fold: each pass adds at most one value to each survivor and halves the count (rounded
 *    up): ceil(log2 n).
 *  - Bitonic sort on a non-power-of-two n: the post's `if (k >= size) break` skips exactly the
 *    comparators whose upper index is past the end.  That is the power-of-two network run on
 *    the data padded with +inf at the end: a comparator (a < k) with k past the end would
 *    compare x[a] <= +inf and never swap, and a pad is never moved below the end (a swap
 *    moves the larger value up).  So the sort is correct for every n with no physical
 *    padding, and the fold sees only the n real elements.  (Checked against qsort for every
 *    n in 1..1100 with a CPU emulation of the network, +inf values included.)  NaN compares
 *    false and is never moved; the sum is still NaN, as it must be.
 *
 * Special values and atomics: PTX atom/red.add.f32 flushes subnormal inputs and results to
 * zero.  reduce_atomic therefore loses subnormal terms (each at most 2^-126, far below the
 * bound gamma_{n-1} S unless every term is tiny; on the H200 an all-subnormal input sums to
 * 0); the other kernels use ordinary IEEE adds (no -ftz), which keep subnormals.
 */
#include "kernels/cuda/ug_cuda.cuh"

#include <limits.h>

#include "kernels/cuda/shuffle_reduce.cuh"

#define UG_SEED_THREADS 1024
#define UG_TREE_BLOCK 1024

UG_CUDA_BEGIN

// ----------------------------------------------------------------------------
// kernels

// seven-methods post, method 1, as written: every element atomically added into *out by one block.
__global__ void sum_atomic_kernel(const float *in, float *out, int size)
{
    if (threadIdx.x == 0) {
        *out = 0.0f;
    }
    __syncthreads();
    for (int tid = threadIdx.x; tid < size; tid += blockDim.x) {
        atomicAdd(out, in[tid]);
    }
}

// CUDA-optimisation post, tree 1, as written (t % (2*stride)), over one element a thread with zeros past n;
// one partial per block.  blockDim.x must be a power of two (t + stride stays in the block).
__global__ void interleaved_tree_kernel(const float *in, float *out, size_t size)
{
    __shared__ float partialSum[UG_TREE_BLOCK];
    unsigned int t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    partialSum[t] = i < size ? in[i] : 0.0f;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        if (t % (2 * stride) == 0)
            partialSum[t] += partialSum[t + stride];
    }
    if (t == 0) out[blockIdx.x] = partialSum[0];
}

// CUDA-optimisation post, tree 2, as written (stride halves, contiguous active threads); same framing.
__global__ void sequential_tree_kernel(const float *in, float *out, size_t size)
{
    __shared__ float partialSum[UG_TREE_BLOCK];
    unsigned int t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    partialSum[t] = i < size ? in[i] : 0.0f;
    for (unsigned int stride = blockDim.x >> 1; stride > 0; stride >>= 1) {
        __syncthreads();
        if (t < stride)
            partialSum[t] += partialSum[t + stride];
    }
    if (t == 0) out[blockIdx.x] = partialSum[0];
}

// seven-methods post, method 5, as written: one block walks the array 1024 elements at a time; block sums
// climb 4 tiers of 1024 partials in shared memory; the tiers are flushed upward at the end.
__global__ void hierarchy_reduce_sum_kernel(const float *in, float *out, int size)
{
    const int BLOCK_SIZE = 1024;
    const int TIERS = 4; // the post says "supports up to 1024^4(1TB) array"; see the header
    static __shared__ float shared[(TIERS - 1) * BLOCK_SIZE + 1];
    static __shared__ int indices[TIERS];
    if (threadIdx.x < TIERS) {
        indices[threadIdx.x] = 0;
    }
    for (int tid = 0; tid < size; tid += blockDim.x) {
        float sum = shuffle_block_reduce_sum(tid + threadIdx.x < size ? in[tid + threadIdx.x] : 0.0f);
        if (threadIdx.x == 0) {
            shared[indices[0]++] = sum;
        }
        __syncthreads();
        for (int i = 0; i < TIERS - 1 && indices[i] == blockDim.x; i++) {
            float sum = shuffle_block_reduce_sum(shared[BLOCK_SIZE * i + threadIdx.x]);
            if (threadIdx.x == 0) {
                indices[i] = 0;
                shared[BLOCK_SIZE * (i + 1) + indices[i + 1]++] = sum;
            }
            __syncthreads();
        }
    }
    for (int i = 0; i < TIERS - 1; i++) {
        float sum = shuffle_block_reduce_sum(
            threadIdx.x < indices[i] ? shared[BLOCK_SIZE * i + threadIdx.x] : 0.0f);
        if (threadIdx.x == 0) {
            shared[BLOCK_SIZE * (i + 1) + indices[i + 1]++] = sum;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *out = shared[(TIERS - 1) * BLOCK_SIZE];
    }
}

// seven-methods post, method 7's compare-exchange, as written (ascending: the larger value goes up).
__inline__ __device__ void compare_swap(float *arr, int a, int b)
{
    if (arr[a] > arr[b]) {
        float t = arr[a];
        arr[a] = arr[b];
        arr[b] = t;
    }
}

// seven-methods post, method 7: one pass of comparators at distance `stride`; the first pass of a stage
// compares mirror pairs (inverted), which makes the network sort ascending with no direction
// bits.  Comparators reaching past size are skipped (see the header: virtual +inf padding).
__inline__ __device__ void bitonic_sort_merge(float *arr, int stride, int size, bool inverted)
{
    for (int tid = threadIdx.x;; tid += blockDim.x) {
        int gid = tid / stride;
        int mid = tid % stride;
        int j = gid * stride * 2;
        int k = j + stride + mid;
        if (k >= size) {
            break;
        }
        compare_swap(arr, inverted ? j + stride - mid - 1 : j + mid, k);
    }
}

// seven-methods post, method 7, as written (the post spells it bitnoic_sort_kernel): sort in place.
__global__ void bitonic_sort_kernel(float *arr, int size)
{
    for (int i = 1; i < size; i *= 2) {
        bitonic_sort_merge(arr, i, size, true);
        __syncthreads();
        for (int j = i / 2; j != 0; j /= 2) {
            bitonic_sort_merge(arr, j, size, false);
            __syncthreads();
        }
    }
}

// seven-methods post, method 6, as written: fold the array onto its first half until one value is left
// (in place: the caller passes a scratch copy).
__global__ void fold_reduce_sum_kernel(float *in, float *out, int size)
{
    for (; size != 1; size = (size + 1) / 2) {
        for (int tid = threadIdx.x; tid < size / 2; tid += blockDim.x) {
            in[tid] += in[size - 1 - tid];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *out = *in;
    }
}

// ----------------------------------------------------------------------------
// launchers

typedef void (*ug_tree_kernel)(const float *, float *, size_t);

/* The multi-pass block tree: pass after pass of `tree` (1024 elements a block, one partial a
 * block) until one value is left, written to d_out.  p1 holds ceil(n/1024) floats, p2
 * ceil(n/1024^2) (>= 1); they alternate as destinations. */
static cudaError_t ug_tree_passes(ug_tree_kernel tree, const float *d_x, size_t n, float *p1,
                                  float *p2, float *d_out)
{
    const float *src = d_x;
    float *spare = p1;
    size_t count = n;
    do {
        size_t blocks = ug_div_up(count, UG_TREE_BLOCK);
        float *dst = blocks == 1 ? d_out : spare;
        tree<<<(unsigned)blocks, UG_TREE_BLOCK>>>(src, dst, count);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        spare = dst == p1 ? p2 : p1;
        src = dst;
        count = blocks;
    } while (count > 1);
    return cudaSuccess;
}

static int ug_run_tree(const ug_kernel *k, ug_call *c, ug_tree_kernel tree)
{
    const float *d_x = NULL;
    float *d_p1 = NULL, *d_p2 = NULL, *d_out = NULL;
    size_t n = c->shape.dim[0], n1 = ug_div_up(n, UG_TREE_BLOCK), n2 = ug_div_up(n1, UG_TREE_BLOCK);
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), n, &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_p1, n1 * sizeof(float)));
    UG_CUDA_TRY(c, cudaMalloc(&d_p2, n2 * sizeof(float)));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    ug_cuda_run(c, d_out, 1, ug_no_prepare,
                [&] { return ug_tree_passes(tree, d_x, n, d_p1, d_p2, d_out); });
cleanup:
    cudaFree(d_p1);
    cudaFree(d_p2);
    cudaFree(d_out);
    return c->err[0] != 0;
}

/* The seven-methods post's single-block kernels that read the input and write one float: <<<1, 1024>>>. */
static int ug_run_single_block(const ug_kernel *k, ug_call *c,
                               void (*kernel)(const float *, float *, int))
{
    const float *d_x = NULL;
    float *d_out = NULL;
    int size = 0;
    if (ug_cuda_enter(k, c)) return 1;
    size = (int)c->shape.dim[0]; /* n <= max_n = 2^30 */
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), c->shape.dim[0], &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    ug_cuda_run(c, d_out, 1, ug_no_prepare, [&] {
        kernel<<<1, UG_SEED_THREADS>>>(d_x, d_out, size);
        return cudaGetLastError();
    });
cleanup:
    cudaFree(d_out);
    return c->err[0] != 0;
}

/* Fold and bitonic+fold work in place: the input stays pristine in d_x and each run (timed or
 * not) starts from a device-to-device copy made outside the timed interval. */
static int ug_run_in_place(const ug_kernel *k, ug_call *c, bool sort_first)
{
    const float *d_x = NULL;
    float *d_work = NULL, *d_out = NULL;
    int size = 0;
    if (ug_cuda_enter(k, c)) return 1;
    size = (int)c->shape.dim[0]; /* n <= max_n = 2^30 */
    UG_CUDA_TRY(c, ug_cuda_input(c, 0, ug_in_f32(c, 0), c->shape.dim[0], &d_x));
    UG_CUDA_TRY(c, cudaMalloc(&d_work, c->shape.dim[0] * sizeof(float)));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    ug_cuda_run(
        c, d_out, 1,
        [&] { return cudaMemcpyAsync(d_work, d_x, c->shape.dim[0] * sizeof(float), cudaMemcpyDeviceToDevice); },
        [&] {
            if (sort_first) {
                bitonic_sort_kernel<<<1, UG_SEED_THREADS>>>(d_work, size);
                cudaError_t e = cudaGetLastError();
                if (e != cudaSuccess) return e;
            }
            fold_reduce_sum_kernel<<<1, UG_SEED_THREADS>>>(d_work, d_out, size);
            return cudaGetLastError();
        });
cleanup:
    cudaFree(d_work);
    cudaFree(d_out);
    return c->err[0] != 0;
}

enum { REDUCE_ATOMIC, REDUCE_INTERLEAVED, REDUCE_SEQUENTIAL, REDUCE_WARP_SHUFFLE, REDUCE_FOLD,
       REDUCE_BITONIC_FOLD };

int ug_reduce_posts_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case REDUCE_ATOMIC: return ug_run_single_block(k, c, sum_atomic_kernel);
    case REDUCE_INTERLEAVED: return ug_run_tree(k, c, interleaved_tree_kernel);
    case REDUCE_SEQUENTIAL: return ug_run_tree(k, c, sequential_tree_kernel);
    case REDUCE_WARP_SHUFFLE: return ug_run_single_block(k, c, hierarchy_reduce_sum_kernel);
    case REDUCE_FOLD: return ug_run_in_place(k, c, false);
    case REDUCE_BITONIC_FOLD: return ug_run_in_place(k, c, true);
    }
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

// ----------------------------------------------------------------------------
// registry rows.  max_n 2^30 keeps the posts' int index arithmetic from overflowing.

const ug_kernel ug_reduce_posts_kernels[] = {
    {.name = "reduce_atomic", .op = UG_OP_SUM, .backend = UG_CUDA, .nondeterministic = true,
     .ftz = true, .bound = UG_BOUND_TREE, .depth = ug_depth_serial, .version = REDUCE_ATOMIC,
     .max_n = UG_SEED_MAX_N, .method = 1,
     .doc = "seven-methods post, method 1: <<<1,1024>>>, atomicAdd of every element (n <= 2^30)"},
    {.name = "reduce_interleaved", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_log2, .version = REDUCE_INTERLEAVED,
     .doc = "CUDA-optimisation post, tree 1 (t % (2*stride)), 1024 a block, repeated on the partials"},
    {.name = "reduce_sequential", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_log2, .version = REDUCE_SEQUENTIAL,
     .doc = "CUDA-optimisation post, tree 2 (stride >>= 1), 1024 a block, repeated on the partials"},
    {.name = "reduce_warp_shuffle", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_log2, .version = REDUCE_WARP_SHUFFLE, .max_n = UG_SEED_MAX_N, .method = 5,
     .doc = "seven-methods post, method 5: <<<1,1024>>> warp/block shuffle tiers (n <= 2^30)"},
    {.name = "reduce_fold", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_log2, .version = REDUCE_FOLD, .max_n = UG_SEED_MAX_N, .method = 6,
     .doc = "seven-methods post, method 6: <<<1,1024>>> fold x[i] += x[n-1-i] (n <= 2^30)"},
    {.name = "reduce_bitonic_fold", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_log2, .version = REDUCE_BITONIC_FOLD, .max_n = (size_t)1 << 24, .method = 7,
     .doc = "seven-methods post, method 7: <<<1,1024>>> bitonic sort, then fold (n <= 2^24: one-SM sort time)"},
};

UG_CUDA_END

UG_FAMILY(reduce_posts, ug_reduce_posts_kernels, ug_reduce_posts_run)
