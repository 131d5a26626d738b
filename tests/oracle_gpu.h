/*
 * oracle_gpu.h - what the GPU oracle's tests share: the GEMM corpus (tests/oracle_gpu_gemm.c),
 * run on the host model (tests/oracle_gpu_model.c) and on the device (tests/oracle_diff_gpu.c).
 */
#ifndef UG_TESTS_ORACLE_GPU_H
#define UG_TESTS_ORACLE_GPU_H

#include "oracle/gpu.h"
#include "harness/run/ug.h"

/* Which paths a GEMM corpus went through (summed over its matrices). */
typedef struct og_gemm_paths {
    size_t elements, fallback, matrices;
    int max_slices;      /* largest S or T chosen */
    int pieces;          /* matrices whose plan had per-pair K pieces */
} og_gemm_paths;

/* `matrices` random and adversarial GEMMs (dynamic ranges within and beyond the slices, zero
 * rows and columns with signed zeros, exact cancellation, specials, ties, binary32 overflow and
 * subnormal results, K from 1 to past one int8 product's limit) through ops, every element
 * compared with MPFR's dot (ug_exact_equal and sum_abs bit for bit).  big: add K = 140000. */
void og_run_gemm_corpus(ug_t *t, const ug_gpu_oracle_ops *ops, const char *stream, int matrices,
                        int big, og_gemm_paths *paths);

/* Hand-picked edges through ops, each against MPFR: empty sums and dots (alone and inside a
 * batch), signed zeros and their products, NaN, inf - inf, 0 * inf, binary32 overflow, K = 0
 * products (every element the empty dot, +0) and a one-element product. */
void og_run_edges(ug_t *t, const ug_gpu_oracle_ops *ops);

#endif
