/*
 * gemm_bs.c - the block-scaled GEMM C = A B: A (M x K) and B (K x N) block-scaled FP8 arrays
 * (base/bsfp8.h: E4M3 elements, a power-of-two E8M0 scale per 1 x 128 tile of A and per
 * 128 x 128 block of B, DeepSeek-V3's shapes with the UE8M0 rule), C binary32, M x N.
 *
 * Why an operation of its own rather than a GEMM input format: its inputs must be block-scaled
 * arrays, which the plain GEMM's kernels and cases (every binary32 GEMM kernel on every drawn
 * matrix) do not hold; a separate operation keeps its kernels on its own inputs and its rows
 * apart.  The call's buffers hold the arrays' values in binary32, which is exact (an element of
 * 4 significant bits times a power of two within range: bsfp8.h), so every layer that hands a
 * GEMM its inputs (corpus files, the hunt, `ulpgate check`) hands these too; a kernel packs them
 * into the agreed storage (elements and scale bytes, ug_bs_pack) before it computes, and
 * refuses, naming the element, a value that is not block-scaled.  The harness quantizes what a
 * distribution draws with the format's own rule (shape_inputs), so an input is exactly
 * representable and its exact result is the plain GEMM oracle's:
 *     C[i][j] = sum_k (a_ik s_a)(b_kj s_b),
 * every product exact in binary64 and summed by the exact accumulator (oracle/exact_gemm.c).
 */
#include "base/bsfp8.h"
#include "ops/op.h"

#define M_(s) ((s)->dim[0])
#define N_(s) ((s)->dim[1])
#define K_(s) ((s)->dim[2])

static void ug_gemm_bs_shape_inputs(float *x, float *y, const ug_shape *s)
{
    ug_bs_grid a = ug_bs_grid_a(M_(s), K_(s)), b = ug_bs_grid_b(K_(s), N_(s));
    ug_bs_quantize(&a, x);
    ug_bs_quantize(&b, y);
}

/* tree: dequantize-then-binary32 (the dequantized values are the inputs: nothing is rounded
 * before the binary32 arithmetic, whose class is the plain GEMM's); bs_fp8_promoted: the fp8
 * tensor-core recipe with promotion (kernels/bounds.c). */
static const ug_bound_class ug_gemm_bs_classes[] = {UG_BOUND_TREE, UG_BOUND_BS_FP8_PROMOTED,
                                                    UG_BOUND_NONE};

const ug_op_desc ug_op_gemm_bs_desc = {
    .shape = UG_OPSHAPE(UG_OP_GEMM_BS),
    .doc = "C = A B of block-scaled fp8 matrices (e4m3, UE8M0 scales per 1x128 / 128x128)",
    .terms_kind = UG_TERMS_PRODUCTS,
    .exact_is_sum = true,
    .specials = "per element, as dot",
    .hunt_exp = 50,
    .hunt_products = true,
    .hunt_max_size = 4096,
    .exact = ug_gemm_exact, /* binary32 values: the GEMM's exact paths */
    .exact_fast = ug_gemm_exact_fast,
    .exact_one_fast = ug_gemm_exact_one_fast,
    .exact_gpu = ug_gemm_exact_gpu,
    .gpu_oracle_pays = ug_gemm_gpu_oracle_pays,
    .shape_inputs = ug_gemm_bs_shape_inputs,
    .classes = ug_gemm_bs_classes,
};
