/*
 * format.h - the number formats of kernels' buffers and arithmetic, in one table, and the
 * functions that round to, measure in, and encode/decode them.  The bottom layer (base/): the
 * kernels (kernel rows, typed call buffers), the oracle (exact rounding, ULP error) and the
 * harness (buffers, metrics) all read the same table.
 *
 * A format is binary floating point of precision p (significand bits, the implicit bit
 * included), normal exponents emin..emax (a normal x has 2^emin <= |x| < 2^(emax+1)),
 * subnormals down to 2^(emin-p+1), and:
 *   binary32, binary64, binary16, bfloat16, fp8 e5m2: IEEE-style: +-inf, NaN = all-ones exponent
 *     with a nonzero fraction; rounding beyond the largest finite value overflows to +-inf.
 *   fp8 e4m3 (OCP 8-bit floating point, "E4M3FN"): no infinity; one NaN per sign (S.1111.111);
 *     the all-ones exponent holds normal numbers up to 448.  Rounding beyond 448 (at unbounded
 *     exponent) gives NaN: the non-saturating conversion (the saturating one is a kernel's choice).
 *   TF32: an operand rounding, not a storage format (bits = 0): binary32's range with p = 11,
 *     stored in a binary32 whose low 13 fraction bits are zero (tensor-core GEMMs round their
 *     binary32 operands to it).
 *   OCP MX v1.0's element formats FP6 e3m2, FP6 e2m3, FP4 e2m1 (UG_NAN_NONE): every code a
 *     number, no inf, no NaN; rounding beyond max saturates to +-max.  Stored one code a byte.
 * The ug_fmt enum is stable: UG_F32 = 0 (the default of every kernel row and buffer), and the
 * first five values keep the numbers they had in kernels/kernel.h.
 */
#ifndef UG_FORMAT_H
#define UG_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "include/ulpgate/ulpgate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ug_fmt (UG_F32 ... UG_FMT_COUNT) is declared by the public header, for plugins. */

/* How a format encodes NaN. */
typedef enum {
    UG_NAN_IEEE,   /* all-ones exponent, nonzero fraction (2^(p-1) - 1 patterns per sign) */
    UG_NAN_ALLONES, /* only the all-ones pattern below the sign (fp8 e4m3: one per sign) */
    UG_NAN_NONE     /* no NaN and (inf false) no infinity: every pattern is a number, rounding
                     * beyond max saturates to +-max (OCP MX FP6/FP4); encode writes qnan's
                     * pattern (with NaN's sign) for a NaN, the row's choice */
} ug_nan_rule;

typedef struct ug_format {
    const char *name;   /* "f32", "f64", "tf32", "f16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3",
                         * "e2m1" */
    int bits;           /* storage bits (8, 16, 32, 64; a registered row 4..16, stored in the
                         * low bits of ceil(bits/8) bytes); 0: an operand rounding, not stored */
    int p;              /* precision, the implicit bit included */
    int emin, emax;     /* normal exponents; the bias of the encoding is 1 - emin */
    bool subnormals;    /* every format here has them (gradual underflow) */
    bool inf;           /* has +-infinity */
    ug_nan_rule nan;
    uint32_t qnan;      /* the canonical (positive, quiet) NaN encoding ug_fmt_encode writes */
    double max;         /* largest finite value */
} ug_format;

typedef enum { UG_RN, UG_RD } ug_rmode; /* nearest-even; toward -inf */

/* The table row of f (a built-in one or a registered one); NULL for a value out of range. */
const ug_format *ug_format_of(ug_fmt f);
const char *ug_fmt_name(ug_fmt f);          /* "?" out of range */
/* By name ("f16", or a registered row's); returns UG_FMT_COUNT if none. */
ug_fmt ug_fmt_parse(const char *name);

/* A format defined outside the tree (a test's: tests/toy_fmt/) registers its row, from a
 * constructor, before any lookup of it: the row is copied (its name must stay valid) and gets
 * the next id after the built-ins, UG_FMT_COUNT + 1, + 2, ... (UG_FMT_COUNT itself stays the
 * "none" every caller of ug_fmt_parse tests for); every function here, hence every layer, then
 * takes that id.  Refused -- UG_FMT_COUNT returned, and why in err -- for a name that is taken
 * or empty, a full table (UG_FMT_REGISTERED_MAX), or a row that is not a binary format this file
 * encodes: bits 4..16 (or 0), p >= 2, at least two exponent bits, emin..emax the exponents the
 * encoding holds (1 - bias .. top - bias, top one less for UG_NAN_IEEE), subnormals, max the
 * largest finite value, inf only with UG_NAN_IEEE.  O(formats). */
enum { UG_FMT_REGISTERED_MAX = 16 };
ug_fmt ug_fmt_register(const ug_format *row, char *err, size_t errlen);

/* Bytes of one stored element: ceil(bits/8) (0 for TF32: not a storage format). */
size_t ug_fmt_bytes(ug_fmt f);

/* The quantum of r's binade in f: 2^(max(e, emin) - p + 1) for |r| in [2^e, 2^(e+1)), the
 * subnormal quantum 2^(emin-p+1) for zero, the last finite binade's quantum for +-inf, NaN for
 * NaN.  For binary32 it is ug_ulp32.  r need not be a number of f (its binade is what counts).
 * Exact (a power of two). */
double ug_fmt_ulp(ug_fmt f, double r);

/* Round the exact value s = hi + lo to f, where hi = RN64(s) and lo = RN64(s - hi) (lo = 0 for
 * a plain double; only lo's sign matters for p < 53, see the proof in format.c), in mode m,
 * with f's overflow rule: RN beyond max (at unbounded exponent) -> +-inf (e4m3: NaN); RD of a
 * positive value beyond max -> max, of a negative one -> -inf (e4m3: NaN); a UG_NAN_NONE
 * format (no inf, no NaN) saturates: +-max either way.  hi = +-inf is an
 * overflowed binary64 value.  NaN in, NaN out.  Zero keeps hi's sign; s = 0 exactly gives hi.
 * Returns the result as a double (exact: every format here is a subset of binary64).  O(1). */
double ug_fmt_round2(ug_fmt f, double hi, double lo, ug_rmode m);
static inline double ug_fmt_round(ug_fmt f, double v, ug_rmode m)
{
    return ug_fmt_round2(f, v, 0.0, m);
}

/* Decode / encode one stored element of a 8-, 16-, 32- or 64-bit format (bits in the low
 * bits).  Encode rounds to nearest-even first (overflow rule above); NaN becomes f's canonical
 * NaN with v's sign.  Decode of an out-of-range pattern or of TF32 gives NaN. */
double ug_fmt_decode(ug_fmt f, uint64_t bits);
uint64_t ug_fmt_encode(ug_fmt f, double v);

/* The saturating conversion (OCP 8-bit spec's saturation mode, CUDA's __NV_SATFINITE): round to
 * nearest-even, then a result beyond max in magnitude -- a finite overflow or an infinite v --
 * is +-max; NaN stays NaN.  The harness itself converts with the non-saturating
 * ug_fmt_round/ug_fmt_encode above (a generated input never overflows: it is drawn in range);
 * this is the reference for kernels that saturate.  O(1). */
double ug_fmt_round_sat(ug_fmt f, double v);
uint64_t ug_fmt_encode_sat(ug_fmt f, double v);

/* Element i of a buffer stored in f, as a double (exact); store rounds v to nearest-even. */
double ug_fmt_load(ug_fmt f, const void *data, size_t i);
void ug_fmt_store(ug_fmt f, void *data, size_t i, double v);

#ifdef __cplusplus
}
#endif
#endif
