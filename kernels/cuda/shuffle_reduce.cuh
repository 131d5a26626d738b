/*
 * shuffle_reduce.cuh - the seven-methods post's device helpers, as written (only renamed with a shuffle_ prefix so
 * they cannot collide with std:: names): the warp and block shuffle reductions of its method 5.
 * Shared by reduce_posts.cu (the post's own single-block kernel) and reduce_grid.cu (the
 * grid-wide shuffle reduction).
 */
#ifndef UG_SHUFFLE_REDUCE_CUH
#define UG_SHUFFLE_REDUCE_CUH

#include <cuda_runtime.h>

/* Seed: shfl_down with offsets 1, 2, 4, 8, 16.  Lane 0 ends with the complete binary tree of
 * the 32 lanes with adjacent pairing ((v0+v1)+(v2+v3))+...: 5 additions for every lane's
 * value.  (The other lanes hold partial garbage; only lane 0's value is used.) */
__inline__ __device__ float shuffle_warp_reduce_sum(float value)
{
    const unsigned int FINAL_MASK = 0xffffffff;
    for (int i = 1; i < 32; i <<= 1)
        value += __shfl_down_sync(FINAL_MASK, value, i);
    return value;
}

/* Seed: warp sums into shared[warp], then warp 0 reduces them (zeros beyond blockDim/32).
 * Thread 0's result is the complete binary tree over the block's values in thread order:
 * log2(blockDim.x) additions for a block of a power-of-two size (32..1024).  The caller must
 * __syncthreads() before the next call (the post's callers do). */
__inline__ __device__ float shuffle_block_reduce_sum(float val)
{
    static __shared__ float shared[32];
    int lane = threadIdx.x & 0x1f;
    int wid = threadIdx.x >> 5;
    val = shuffle_warp_reduce_sum(val);
    if (lane == 0) {
        shared[wid] = val;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        val = shuffle_warp_reduce_sum((threadIdx.x < (blockDim.x >> 5)) ? shared[lane] : 0);
    }
    return val;
}

#endif
