/*
 * registry.c - the one registry of kernels under test, CPU and GPU.  Add a kernel: write its
 * run function in its family's file, declare it in that family's header, add one line here.
 * Fields: name, op, backend, in/acc/out formats, deterministic, bound class, depth function,
 * run, max_n (0: none), seed-004 method (0: none), one-line doc.
 */
#include "kernel.h"

#include <string.h>

#include "cpu/cpu_kernels.h"
#ifdef UG_HAVE_CUDA
#include "cuda/cuda_api.h"
#endif

#define UG_K(name, op, be, in, acc, out, det, bound, depth, run, max_n, seed, doc)            \
    {name, op, be, in, acc, out, det, bound, depth, run, max_n, seed, doc}

static const ug_kernel ug_registry[] = {
    /* --- CPU reductions (kernels/cpu/reduce.c): seed 004's seven methods, then the classics --- */
    UG_K("serial_f32", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cpu_serial_f32, 0, 1, "seed 004 method 1: a += x[i] in binary32"),
    UG_K("serial_f64acc", UG_OP_SUM, UG_CPU, UG_F32, UG_F64, UG_F32, true, UG_BOUND_WIDE_ACC,
         ug_depth_serial, ug_cpu_serial_f64acc, 0, 2, "seed 004 method 2: binary64 accumulator, rounded once"),
    UG_K("sorted_abs_serial", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cpu_sorted_abs_serial, 0, 3, "seed 004 method 3: sort by |x| ascending, then serial"),
    UG_K("sqrt_blocks", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_sqrt_blocks, ug_cpu_sqrt_blocks, 0, 4, "seed 004 method 4: recursive blocks of ceil(sqrt n)"),
    UG_K("pairwise_halves", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_log2, ug_cpu_pairwise_halves, 0, 5, "seed 004 method 5: recursive halves down to one element"),
    UG_K("fold", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_log2, ug_cpu_fold, 0, 6, "seed 004 method 6: x[i] += x[n-1-i], halve, repeat"),
    UG_K("sorted_fold", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_log2, ug_cpu_sorted_fold, 0, 7, "seed 004 method 7: sort ascending by value, then fold"),
    UG_K("kahan_f32", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_KAHAN,
         NULL, ug_cpu_kahan_f32, 0, 0, "Kahan compensated summation in binary32"),
    UG_K("neumaier_f32", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_NEUMAIER,
         NULL, ug_cpu_neumaier_f32, 0, 0, "Neumaier (improved Kahan-Babuska) summation in binary32"),
    UG_K("pairwise_block8", UG_OP_SUM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_pairwise_block8, ug_cpu_pairwise_block8, 0, 0, "pairwise halves with a serial base case of 8 (as libraries ship)"),
    /* --- CPU dot products (kernels/cpu/dot.c) --- */
    UG_K("dot_serial_f32", UG_OP_DOT, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cpu_dot_serial_f32, 0, 0, "a += x[i]*y[i] in binary32, product rounded then sum rounded"),
    UG_K("dot_kahan_f32", UG_OP_DOT, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_KAHAN,
         NULL, ug_cpu_dot_kahan_f32, 0, 0, "Kahan-compensated dot product in binary32 (seed 000's update, no FMA)"),
    UG_K("gemm_naive_cpu", UG_OP_GEMM, UG_CPU, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cpu_gemm_naive, 0, 0, "C[i][j] = serial binary32 dot of row i and column j"),

#ifdef UG_HAVE_CUDA
    /* --- CUDA kernels (kernels/cuda/): BEGIN CUDA SECTION (kept by the kernels/cuda owner) --- */
    /* matmul (kernels/cuda/matmul.cu, vendor.cu): nvcc contracts a*b + t into one FMA (seed
     * builds did too); every bound below holds with or without it.  TF32: acc_fmt = compute type. */
    UG_K("matmul_naive", UG_OP_GEMM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cuda_matmul_naive, 0, 0, "seed 000: one output a thread, 1-D grid of 256, t += a*b in k order"),
    UG_K("matmul_kahan", UG_OP_GEMM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_KAHAN,
         NULL, ug_cuda_matmul_kahan, 0, 0, "seed 000: y -= a*b; r = t - y; y = (r - t) + y; t = r (Kahan)"),
    UG_K("matmul_tiled", UG_OP_GEMM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cuda_matmul_tiled, 0, 0, "seed 002: 16x16 shared-memory tiles, any size, k order kept"),
    UG_K("matmul_tiled_kahan", UG_OP_GEMM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_KAHAN,
         NULL, ug_cuda_matmul_tiled_kahan, 0, 0, "seed 002's tiles with seed 000's Kahan update"),
    UG_K("matmul_naive_nofma", UG_OP_GEMM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cuda_matmul_naive_nofma, 0, 0, "matmul_naive with products rounded (__fmul_rn): seed 000 built without FMA"),
    UG_K("matmul_kahan_nofma", UG_OP_GEMM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_KAHAN,
         NULL, ug_cuda_matmul_kahan_nofma, 0, 0, "matmul_kahan with products rounded (__fmul_rn): seed 000 built without FMA"),
    UG_K("cublas_sgemm", UG_OP_GEMM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cuda_cublas_sgemm, 0, 0, "cuBLAS SGEMM, pedantic fp32 math; order unknown: depth K-1"),
    UG_K("cublas_sgemm_tf32", UG_OP_GEMM, UG_CUDA, UG_F32, UG_TF32, UG_F32, true, UG_BOUND_TF32,
         ug_depth_serial, ug_cuda_cublas_sgemm_tf32, 0, 0, "cuBLAS SGEMM, TF32 tensor-op math; depth K-1"),
    /* reductions, the seeds' own (kernels/cuda/reduce_seed.cu): single block where the seed had
     * one; max_n 2^30 keeps the seeds' int index arithmetic from overflowing */
    UG_K("reduce_atomic", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, false, UG_BOUND_TREE,
         ug_depth_serial, ug_cuda_reduce_atomic, (size_t)1 << 30, 1, "seed 004 method 1: <<<1,1024>>>, atomicAdd of every element (n <= 2^30)"),
    UG_K("reduce_interleaved", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_log2, ug_cuda_reduce_interleaved, 0, 0, "seed 002 tree 1 (t % (2*stride)), 1024 a block, repeated on the partials"),
    UG_K("reduce_sequential", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_log2, ug_cuda_reduce_sequential, 0, 0, "seed 002 tree 2 (stride >>= 1), 1024 a block, repeated on the partials"),
    UG_K("reduce_warp_shuffle", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_log2, ug_cuda_reduce_warp_shuffle, (size_t)1 << 30, 5, "seed 004 method 5: <<<1,1024>>> warp/block shuffle tiers (n <= 2^30)"),
    UG_K("reduce_fold", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_log2, ug_cuda_reduce_fold, (size_t)1 << 30, 6, "seed 004 method 6: <<<1,1024>>> fold x[i] += x[n-1-i] (n <= 2^30)"),
    UG_K("reduce_bitonic_fold", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_log2, ug_cuda_reduce_bitonic_fold, (size_t)1 << 24, 7, "seed 004 method 7: <<<1,1024>>> bitonic sort, then fold (n <= 2^24: one-SM sort time)"),
    /* reductions, grid-wide (kernels/cuda/reduce_grid.cu): <= 1024 blocks of 256, shape fixed by n */
    UG_K("reduce_atomic_grid", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, false, UG_BOUND_TREE,
         ug_cuda_depth_atomic_grid, ug_cuda_reduce_atomic_grid, 0, 0, "per-thread fp32 partials, atomicAdd per block then into *out"),
    UG_K("reduce_warp_shuffle_grid", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_cuda_depth_grid_tree, ug_cuda_reduce_warp_shuffle_grid, 0, 0, "per-thread fp32 partials, seed 004's shuffle block reduce, second pass"),
    UG_K("reduce_f64acc", UG_OP_SUM, UG_CUDA, UG_F32, UG_F64, UG_F32, true, UG_BOUND_WIDE_ACC,
         ug_cuda_depth_grid_tree, ug_cuda_reduce_f64acc, 0, 0, "fp64 per-thread partials and trees, rounded once to fp32"),
    UG_K("reduce_kahan", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_cuda_depth_kahan_grid, ug_cuda_reduce_kahan, 0, 0, "Kahan per thread, TwoSum trees carrying compensations; effective depth 5"),
    UG_K("reduce_neumaier", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_NEUMAIER,
         NULL, ug_cuda_reduce_neumaier, 0, 0, "Neumaier per thread, TwoSum trees carrying compensations"),
    UG_K("cub_reduce", UG_OP_SUM, UG_CUDA, UG_F32, UG_F32, UG_F32, true, UG_BOUND_TREE,
         ug_depth_serial, ug_cuda_cub_reduce, 0, 0, "cub::DeviceReduce::Sum (fp32); order unknown: depth n-1"),
    /* --- END CUDA SECTION --- */
#endif
};

size_t ug_kernel_count(void) { return sizeof(ug_registry) / sizeof(ug_registry[0]); }

const ug_kernel *ug_kernel_at(size_t i) { return i < ug_kernel_count() ? &ug_registry[i] : NULL; }

const ug_kernel *ug_kernel_find(const char *name)
{
    for (size_t i = 0; i < ug_kernel_count(); i++)
        if (strcmp(ug_registry[i].name, name) == 0) return &ug_registry[i];
    return NULL;
}
