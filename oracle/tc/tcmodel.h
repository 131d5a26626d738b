/*
 * tcmodel.h - a bit-accurate model of a tensor core's inner product, d = c + sum a_i b_i, as the
 * hardware computes it: a second oracle beside the exact one (the exact one says how far a GEMM
 * is from the real result; this one says whether it is the hardware's result, bit for bit).
 *
 * The model is Khattak & Mikaitis's parameterised block FMA ("Accurate Models of NVIDIA Tensor
 * Cores", arXiv 2512.07004; their MATLAB models, github.com/north-numerical-computing/
 * MATLAB-tensor-core, models/tools/Generic_BFMA_TC.m and GEMM.m), which refines Fasi, Higham,
 * Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 7:e330 (2021).
 * One block (ug_tc_block) of at most `block` products and the accumulator c:
 *   1. every product a_i b_i is exact: significand s_i = s(a_i) s(b_i) in [0, 4), exponent
 *      e_i = e(a_i) + e(b_i) (an input's exponent clamped to its format's emin: subnormals keep
 *      a significand below 1, nothing renormalises them); zero products drop out;
 *   2. a product with s_i >= 2 is renormalised (s_i / 2, e_i + 1: exact);
 *   3. the block keeps E = neab extra bits below the output's 23rd fraction bit, one more
 *      (carry_bit) when the products of the largest pre-normalisation exponent include one
 *      with s >= 2 and that exponent is at least c's (c = 0: always);
 *   4. every term (the products and c) is aligned to the largest exponent m: its magnitude is
 *      cut to a multiple of 2^(m - 23 - E), truncated (align = RZ, as published for every GPU)
 *      or rounded to nearest-even (align = RNE); signs are applied after, so truncation is
 *      toward zero term by term;
 *   5. the aligned terms are added exactly (a fixed-point sum: no rounding, no normalisation
 *      inside the block);
 *   6. the sum is normalised once and rounded to the output: precision p_out + min(neab, 0)
 *      (binary32: 24; the fp8 accumulator of the H100, neab = -10: 14 bits), the output's
 *      exponent range and subnormals, mode `final` (RZ or RNE); beyond the range: +-inf.
 * A dot product of K terms is blocks of `block` consecutive terms, each block's result the
 * next block's c (recursive summation of the blocks, as GEMM.m does).  NaN or infinity among
 * the products or c: NaN if any is NaN or both infinities occur, else that infinity.
 *   7. the result is stored in store_fmt: rounded once more, to nearest-even, where store_fmt
 *      is narrower than the accumulator (cuBLASLt's epilogue writing a bf16 or fp16 D from a
 *      binary32 accumulator: lt_bf16_out_bf16, lt_f16_out_f16), else as it is (UG_F32, the
 *      default 0, holds a binary32 or binary16 accumulator exactly).
 * The inputs are rounded to in_fmt first (nearest-even, ug_fmt_round: a value out of the
 * format's range becomes its infinity or NaN), as GEMM.m takes them; the special rule sees the
 * rounded inputs.
 *
 * Cost: O(K) per dot product, integer arithmetic in 64 bits (a term is below 2^(26 + E) after
 * alignment, a block of at most 64 terms sums below 2^(33 + E)); every step is exact but the
 * two the model names (alignment, final rounding), so the model is exact by construction.
 */
#ifndef UG_TCMODEL_H
#define UG_TCMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { UG_TC_RZ, UG_TC_RNE } ug_tc_rmode;

enum { UG_TC_MAX_BLOCK = 64, UG_TC_NEAB_MIN = -20, UG_TC_NEAB_MAX = 8 };

typedef struct ug_tc_params {
    ug_fmt in_fmt;       /* the inputs a_i, b_i: f16, bf16, tf32, e4m3, e5m2 */
    ug_fmt out_fmt;      /* c and d: f32 or f16 */
    int block;           /* products fused per block: one alignment, one rounding (1..64) */
    int neab;            /* extra alignment bits; negative: a narrower accumulator */
    bool carry_bit;      /* step 3's extra bit for a leading product in [2, 4) */
    ug_tc_rmode align;   /* step 4 */
    ug_tc_rmode final;   /* step 6 */
    bool in_subnormals;  /* false: subnormal inputs are read as zero */
    bool out_subnormals; /* false: a subnormal block result becomes zero */
    ug_fmt store_fmt;    /* step 7: D's storage, f32 (default), f16 or bf16 */
} ug_tc_params;

/* The significand bits of a block's result: p(out_fmt) + min(neab, 0). */
int ug_tc_acc_precision(const ug_tc_params *p);
/* NULL if p is a model this file computes; else what is wrong with it (a static string). */
const char *ug_tc_params_invalid(const ug_tc_params *p);
/* One block: c + sum of the n <= block products a[i] b[i] (inputs numbers of in_fmt, finite),
 * c a finite number of the accumulator.  O(n). */
double ug_tc_block(const ug_tc_params *p, const double *a, const double *b, int n, double c);
/* c + sum_{i<k} a[i sa] b[i sb] in blocks of p->block (special values as above); NaN for a
 * model ug_tc_params_invalid refuses.  O(k). */
double ug_tc_dot(const ug_tc_params *p, const double *a, size_t sa, const double *b, size_t sb,
                 size_t k, double c);
/* D = A B (beta = 0), A M x K and B K x N row-major, as the model's dot products (the inputs
 * rounded to in_fmt once each: O(MK + KN), then O(MNK)). */
void ug_tc_gemm(const ug_tc_params *p, const double *A, const double *B, double *D, size_t M,
                size_t N, size_t K);
/* "rz" / "rne"; parse returns -1 for anything else. */
const char *ug_tc_rmode_name(ug_tc_rmode m);
int ug_tc_rmode_parse(const char *s);

#ifdef __cplusplus
}
#endif
#endif
