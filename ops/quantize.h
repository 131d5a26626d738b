/*
 * quantize.h - quantization graded exactly: a quantizer's output (kernels/quantize.h) against
 * the scale rule it claims (base/blockfmt.h).
 *
 * Scales bit for bit: every block's scale code against the rule's for the block's amax (and, for
 * NVFP4, the tensor scale against the rule's); where one differs, which other rule of the same
 * scale format gives it ("ceil" for an OCP quantizer that rounds up, "nvfp4 without its tensor
 * scale" for one that drops it).  Elements given the quantizer's own scales (so one bad scale
 * does not make a block's every element wrong as well): each must be RN, saturating, of
 * x / (scale x tensor), compared by value (+0 and -0 alike; a NaN scale's block not graded).
 * Error: per block, the largest |x - value| the quantizer's output keeps, against the best the
 * format could do (the rule's scale, and for a power-of-two scale its neighbours 2X and X/2,
 * with correctly rounded elements): how many blocks keep more, and the largest excess.
 */
#ifndef UG_OPS_QUANTIZE_H
#define UG_OPS_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/quantize.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ug_qgrade {
    size_t blocks, scale_differ, elems, elem_wrong;
    bool tensor_differs;      /* NVFP4: the tensor scale is not the rule's */
    float tensor_got, tensor_want;
    /* the first block whose scale differs (scale_differ > 0) */
    size_t scale_block;
    uint32_t scale_got, scale_want;
    const char *scale_matches; /* the other rule it matches, or NULL */
    /* the first wrong element (elem_wrong > 0): its index, block, the block's scale codes */
    size_t elem_index, elem_block;
    uint32_t elem_got, elem_want, elem_scale_got, elem_scale_want;
    float elem_x;
    /* the error figures */
    size_t err_worse_blocks;  /* blocks keeping more error than the best the format could do */
    double err_excess_max;    /* the largest (got - best) / best over them (inf: best 0) */
} ug_qgrade;

/* Grade c (the output of a call of a quantizer of block format B claiming rule) against the
 * rule.  O(rows x cols).  0, or 1 with err set for a call that does not fit B. */
int ug_quantize_grade(const ug_blockfmt *B, ug_scale_rule rule, const ug_quantize_call *c,
                      ug_qgrade *g, char *err, size_t errlen);

/* The first failure in words: "block 3: scale 0x7b, the rule (ocp) says 0x7a (matches ceil)", or
 * "block 3 (scale 0x86, rule's 0x86): element 97 (x = 0x1.cp+8): 0x7f, want 0x7e".  "" when the
 * grade passes. */
void ug_qgrade_text(const ug_blockfmt *B, ug_scale_rule rule, const ug_qgrade *g, char *buf,
                    size_t len);

#ifdef __cplusplus
}
#endif
#endif
