/*
 * xacc.h - an exact fixed-point accumulator for binary64 numbers (Neal's "small
 * superaccumulator", arXiv:1505.05571), and the roundings of its value that ug_exact needs.
 * The fast oracle adds the few binary64 partial sums of its extraction levels here
 * (exact_fast.c, exact_gemm.c); nothing in this module rounds until a value is read.
 *
 * Representation.  72 signed 64-bit chunks, chunk i worth 2^(32 i - 1074), covering every
 * binary64 quantum (2^-1074) up to 2^1230, i.e. any sum of up to 2^64 binary64 numbers with
 * room for the sign.  The value is the plain sum of c[i] 2^(32 i - 1074); a chunk may hold any
 * int64_t between normalisations (a negative middle chunk is fine).
 *
 * Why it is exact.  A finite binary64 number is a 53-bit integer m times 2^e with e >= -1074; m
 * shifted left by (e + 1074) mod 32 spans at most 53 + 31 = 84 bits, i.e. 3 consecutive 32-bit
 * digits, each below 2^32 in magnitude: each of the 3 chunks it lands in changes by less than
 * 2^32.  From a normalised state (every chunk in [0, 2^32) but the top one, which is below 2^31
 * in magnitude) 2^30 additions therefore move a chunk by less than 2^62, far from int64_t's
 * limits; the accumulator normalises (carry propagation, exact) after at most 2^30 additions.
 *
 * Reading it.  Carry-propagate into 32-bit digits (two's complement, then magnitude and sign),
 * find the top bit and round the magnitude with round and sticky bits, in integer arithmetic:
 * RN64 (hi), RN64 of the exact difference s - hi (lo), RN32 and RD32 with binary32's subnormal
 * quantum 2^-149 and its overflow threshold (FLT_MAX + 2^103 for RN; RD of a positive value
 * beyond FLT_MAX is FLT_MAX).
 *
 * Usage: ug_xacc_init once, ug_xacc_add finite values, ug_xacc_fill (or ug_xacc_mag_up) to read;
 * ug_xacc_reset to reuse.  One accumulator per thread; ug_xacc_merge joins them.
 */
#ifndef UG_XACC_H
#define UG_XACC_H

#include <stddef.h>
#include <stdint.h>

#include "oracle/oracle.h"

enum {
    UG_XACC_N = 72,              /* chunks */
    UG_XACC_BASE = -1074,        /* chunk 0's weight is 2^UG_XACC_BASE */
    UG_XACC_NORM_EVERY = 1 << 30 /* additions between normalisations (see above) */
};

typedef struct ug_xacc {
    int64_t c[UG_XACC_N]; /* chunk i worth 2^(32 i + UG_XACC_BASE) */
    int lo, hi;           /* touched chunks (hi < lo: none); c[hi] carries the sign */
    uint32_t adds;        /* additions since the last normalisation */
} ug_xacc;

/* Sets a to zero.  Cost: clears all 72 chunks (~580 bytes). */
void ug_xacc_init(ug_xacc *a);

/* Sets a (initialised) back to zero.  Cost: O(touched chunks), so one accumulator can serve
 * many short sums (one per GEMM element). */
void ug_xacc_reset(ug_xacc *a);

/* a += d, exactly, for a finite binary64 d (zeros of either sign change nothing).  Cost: ~3 ns,
 * plus a normalisation (O(touched chunks)) every UG_XACC_NORM_EVERY additions. */
void ug_xacc_add(ug_xacc *a, double d);

/* dst += src, exactly; src is normalised on the way (its value is unchanged).  Cost: three
 * normalisations and one pass, O(touched chunks). */
void ug_xacc_merge(ug_xacc *dst, ug_xacc *src);

/* For a nonzero value s: sets e->cls = UG_X_FINITE, e->hi = RN64(s) (+-inf beyond binary64),
 * e->lo = RN64(s - hi) (0 when hi is infinite), e->rn = RN32(s), e->rd = RD32(s), and returns 1;
 * e->sum_abs is untouched.  For zero returns 0 and touches nothing: the sign of an exact zero is
 * the caller's rule (special.h).  a is unchanged.  Cost: O(touched chunks), ~100-200 ns. */
int ug_xacc_fill(const ug_xacc *a, ug_exact *e);

/* |s| rounded up to binary64 (RU64; +inf beyond DBL_MAX), 0 for zero.  a is unchanged.  Cost:
 * O(touched chunks). */
double ug_xacc_mag_up(const ug_xacc *a);

/* The large accumulator (Neal's "large superaccumulator", arXiv:1505.05571, section 3): for
 * sums of binary64 numbers spread over a wide exponent range, where the extraction levels of
 * exact_fast.c would need a pass per ~40 bits of range.  One bin per sign and exponent field
 * (4096) adds the 52-bit fractions of the numbers that share them, in a uint64_t, and counts
 * the additions; a bin is moved into an ug_xacc (exactly: xacc.c, xbig_spill, says why it fits)
 * after UG_XBIG_ADDS of them, and all bins at ug_xbig_flush.  ~44 KiB: allocate it. */
enum {
    UG_XBIG_N = 4096,   /* bins: sign bit and 11 exponent bits */
    UG_XBIG_ADDS = 2048 /* additions per bin between spills: 2^11 fractions < 2^63 */
};

typedef struct ug_xbig {
    uint64_t c[UG_XBIG_N];   /* sum of the fractions added to bin ix since its last spill */
    int32_t left[UG_XBIG_N]; /* additions left before bin ix spills */
} ug_xbig;

/* Sets g to zero.  Cost: ~44 KiB written. */
void ug_xbig_init(ug_xbig *g);

/* The exact sum of the n finite binary64 numbers v, added to g (bins) and a (spills): the value
 * of g plus a grows by exactly sum v.  NaN or inf in v: undefined (the caller screens them).
 * Cost: ~1 ns a number (a load, an add and a counter per number), plus a spill (~5 ns) every
 * UG_XBIG_ADDS additions to one bin. */
void ug_xbig_add_n(ug_xbig *g, ug_xacc *a, const double *v, size_t n);

/* Moves every bin of g into a (exactly) and leaves g zero.  Cost: a scan of the 4096 bins. */
void ug_xbig_flush(ug_xbig *g, ug_xacc *a);

/* Normalise every `every` additions instead of UG_XACC_NORM_EVERY (0, or anything larger:
 * back to UG_XACC_NORM_EVERY), so that tests run the carry code on real sums.  Process-wide,
 * for every accumulator; the value of a sum never depends on it.  Cost: O(1). */
void ug_xacc_set_norm_interval(uint32_t every);

#endif
