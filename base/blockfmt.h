/*
 * blockfmt.h - block-scaled formats: an element format (format.h), a scale format, a block shape
 * and, where the recipe has one, a binary32 tensor scale; the rules that pick a block's scale
 * from its largest magnitude, and the exact value of a stored element.  The bottom layer
 * (base/): the kernels declare a block format, the oracle and the cases read the same table.
 *
 * The built-in rows:
 *   mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4   OCP MX v1.0: 1x32 blocks, E8M0 scale
 *   nvfp4                                                   E2M1, 1x16 blocks, E4M3 scale, and a
 *                                                           binary32 tensor scale
 *   fp8_1x128, fp8_128x128                                  DeepSeek-V3: E4M3, binary32 scale per
 *                                                           1x128 tile / 128x128 block
 *
 * Storage of a block-scaled array: elements one per byte (the format's low bits), row-major;
 * scales one per block, row-major over the block grid, in the scale format's storage (E8M0 one
 * byte, E4M3 one byte, binary32 four bytes); the tensor scale one binary32.
 *
 * E8M0 (OCP MX v1.0, section 5.4): unsigned, 8 exponent bits, no significand: code c is 2^(c-127)
 * for c = 0 .. 254, 0xFF is NaN; no zero, no infinity.
 */
#ifndef UG_BLOCKFMT_H
#define UG_BLOCKFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { UG_SCALE_E8M0, UG_SCALE_E4M3, UG_SCALE_F32, UG_SCALE_KIND_COUNT } ug_scale_kind;

/* How a block's scale follows from its largest magnitude amax (emax_elem: the exponent of the
 * element format's largest binade, max_elem its largest finite value). */
typedef enum {
    UG_SRULE_OCP,   /* OCP MX v1.0: X = 2^(floor(log2(amax)) - emax_elem), E8M0; elements beyond
                       max_elem (amax / X can reach 2 * 2^emax_elem) saturate */
    UG_SRULE_CEIL,  /* the round-up variant some libraries use: the smallest power of two X with
                       amax / X <= max_elem (no element saturates), E8M0 */
    UG_SRULE_NVFP4, /* two-level: tensor scale T = RN_f32(amax_tensor / (448 * 6)); block scale
                       RN_e4m3(amax_block / (6 * T)) (the exact quotient, rounded once,
                       saturating at 448) */
    UG_SRULE_AMAX,  /* DeepSeek-V3: binary32 scale RN_f32(amax / 448) (the exact quotient, rounded
                       once) */
    UG_SRULE_COUNT
} ug_scale_rule;

typedef struct ug_blockfmt {
    const char *name;           /* "mxfp8_e4m3", ... (the rows above) */
    ug_fmt elem;                /* element format */
    ug_scale_kind scale;        /* scale format */
    int block_rows, block_cols; /* 1x32 (MX), 1x16 (NVFP4), 1x128 / 128x128 (DeepSeek) */
    bool tensor_scale;          /* a binary32 scale per tensor as well (NVFP4) */
    ug_scale_rule rule;         /* the recipe's own rule */
    const char *doc;
} ug_blockfmt;

/* The rows: the built-ins, then the registered ones.  ug_blockfmt_at(i) for i < count, else
 * NULL; by name NULL if none.  O(rows). */
size_t ug_blockfmt_count(void);
const ug_blockfmt *ug_blockfmt_at(size_t i);
const ug_blockfmt *ug_blockfmt_by_name(const char *name);

/* A block format defined outside the tree (a test's) registers its row, from a constructor: the
 * row is copied (its strings must stay valid).  Refused -- -1, and why in err -- for a name that
 * is taken or empty, an element format that is not a stored format of at most 8 bits, a block
 * of no element, a rule that does not fit the scale (OCP and CEIL: E8M0; NVFP4: E4M3 with a
 * tensor scale; AMAX: binary32), or a full table.  Returns its index. */
enum { UG_BLOCKFMT_REGISTERED_MAX = 8 };
int ug_blockfmt_register(const ug_blockfmt *row, char *err, size_t errlen);

const char *ug_scale_kind_name(ug_scale_kind k);  /* "e8m0", "e4m3", "f32"; "?" */
const char *ug_scale_rule_name(ug_scale_rule r);  /* "ocp", "ceil", "nvfp4", "amax"; "?" */
ug_scale_rule ug_scale_rule_parse(const char *name); /* UG_SRULE_COUNT if none */
size_t ug_scale_bytes(ug_scale_kind k);           /* 1, 1, 4 */
bool ug_scale_rule_fits(ug_scale_rule r, ug_scale_kind k, bool tensor_scale);

// --- E8M0 ------------------------------------------------------------------------------------

enum { UG_E8M0_NAN = 0xff, UG_E8M0_BIAS = 127 };
double ug_e8m0_decode(uint8_t c);   /* 2^(c-127); NaN for 0xFF */

// --- scales ------------------------------------------------------------------------------------

/* A scale: its code in the scale format (E8M0 and E4M3: the byte; binary32: the bit pattern)
 * and its value (exact).  A NaN scale (amax NaN or infinite) makes every element of its block
 * NaN; a zero scale (E4M3 and binary32 only: amax 0, or a quotient below the least subnormal)
 * makes every element zero. */
typedef struct ug_scale {
    uint32_t code;
    double value;
} ug_scale;

/* The binary32 tensor scale of NVFP4: RN_f32(amax_tensor / 2688); amax_tensor 0 gives 0 (then
 * every block scale is 0), NaN or infinite gives NaN.  O(1). */
double ug_nvfp4_tensor_scale(double amax_tensor);

/* The scale rule r gives a block of largest magnitude amax (>= 0, or NaN) in element format elem
 * stored as scale kind k; tensor: the tensor scale (UG_SRULE_NVFP4 only; else ignored).  Special
 * cases, all documented in docs/formats.md:
 *   amax NaN or +inf          the scale format's NaN (E8M0 0xFF, E4M3 0x7F, binary32 0x7FC00000)
 *   amax 0                    E8M0: code 0 (2^-127, the least); E4M3 / binary32: zero
 *   an exponent below -127    E8M0: clamped to code 0 (a subnormal amax lands there); above 127
 *                             (never, for binary32 input): 0xFF
 * Exact: the quotients are rounded once from the exact real (format.h's round2).  O(1). */
ug_scale ug_scale_of(ug_scale_rule r, ug_fmt elem, ug_scale_kind k, double amax, double tensor);

/* The value of scale code c in kind k (E8M0: 2^(c-127); E4M3: its value; binary32: the float). */
double ug_scale_decode(ug_scale_kind k, uint32_t c);

/* RN of the exact quotient x / d (d > 0 finite, x finite) in format f, saturating when sat (a
 * UG_NAN_NONE format saturates anyway): one rounding, no double rounding.  O(1). */
double ug_div_round(ug_fmt f, double x, double d, bool sat);

/* The element a correct quantizer stores for input x of a block whose scale is s (value, with
 * the tensor scale multiplied in): RN, saturating at the element format's max, of x / s; zero
 * for a zero scale, NaN for a NaN scale or x.  O(1). */
double ug_blockfmt_elem_of(ug_fmt elem, double x, double s);

/* The exact value of a stored element: decode(elem code) * scale * tensor (tensor 1 where the
 * format has none).  Exact in binary64: an element of at most 4 significant bits times a scale of
 * at most 24 (binary32, E4M3 x binary32 28) bits, in binary64's range.  O(1). */
double ug_blockfmt_value(const ug_blockfmt *B, uint32_t elem_code, uint32_t scale_code,
                         double tensor);

#ifdef __cplusplus
}
#endif
#endif
