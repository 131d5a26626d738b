/*
 * fast.h - inside the fast oracle: the vector kernels' table (fast_generic.c, fast_avx2.c,
 * fast_avx512.c, chosen in fast_select.c) and the helpers that exact_fast.c (sums, dots) and
 * exact_gemm.c share.  Not part of the oracle's public contract (oracle.h); nothing here
 * depends on MPFR.
 */
#ifndef UG_ORACLE_FAST_H
#define UG_ORACLE_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "base/bits.h"
#include "oracle/oracle.h"

/* ---- shared by exact_fast.c and exact_gemm.c ------------------------------------------------- */

/* The upper-bound factor applied to a Neumaier sum of |terms| (exact_fast.c, sum_abs, says why
 * 1 + 2^-43 suffices). */
#define UG_FAST_SABS_UP (1.0 + 0x1p-43)

/* 2^e for -1022 <= e <= 1023, built from its bits (ldexp is a libm call, and this runs per
 * GEMM element). */
static inline double ug_fast_pow2(int e)
{
    return ug_bits_f64((uint64_t)(e + 1023) << 52);
}

/* ceil(log2(n)) for n >= 1. */
static inline int ug_fast_ceil_log2(size_t n)
{
    int L = 0;
    while (((size_t)1 << L) < n)
        L++;
    return L;
}

/* ---- the vector kernels: the inner loops of the extraction passes ---------------------------- */

typedef enum { UG_TERMS_SUM32, UG_TERMS_SUM64, UG_TERMS_DOT32 } ug_terms_kind;

/* What a fused extraction pass returns: the sums of the q's of each level (exact), sum |term|
 * (16 lanes), max |term| (when the instance computes it), and whether any residual below the
 * last level is nonzero. */
typedef struct ug_fused_out {
    double level[3];
    double sum_abs, max_abs;
    int residual;
} ug_fused_out;

/* Fused pass over n terms of a block (a: binary32 or binary64 values; b: the second factors of
 * a dot, else unused), sig[l] the sigma of level l (exact_fast.c). */
typedef void (*ug_fused_fn)(const void *a, const float *b, size_t n, const double *sig,
                            ug_fused_out *o);
/* The terms in binary64 into buf (when buf is not NULL), st[0] = max |term|, st[1] = sum |term|. */
typedef void (*ug_terms_fn)(const void *a, const float *b, size_t n, double *buf, double st[2]);
/* One extraction level: dst = src - q, *sum = sum q; returns max |dst|.  src may equal dst. */
typedef double (*ug_level_fn)(const double *src, double *dst, size_t n, double sigma,
                              double *sum);

/* fused[] instances: <terms>_<levels>, M = also computes max_abs (the others leave it 0).
 * UG_F_SUM32_DIRECT is no extraction: level[0] = sum x_i in binary64 lanes, max_abs, and
 * residual = some nonzero |x_i| < sig[0] (exact_fast.c, block_fused, says why that suffices). */
enum {
    UG_F_SUM32_DIRECT, UG_F_SUM64_2M, UG_F_DOT32_2M, UG_F_DOT32_2, UG_F_DOT32_3, UG_F_COUNT
};

typedef struct ug_fast_kernels {
    const char *name; /* "avx512", "avx2" or "generic" */
    ug_fused_fn fused[UG_F_COUNT];
    ug_terms_fn terms[3]; /* by ug_terms_kind */
    ug_level_fn level;
} ug_fast_kernels;

/* The exact dot of binary64 vectors x, y (n products, unit stride) as the sum of the 2n
 * binary64 terms p = RN64(x_i y_i), e = fma(x_i, y_i, -p), formed block by block
 * (exact_fast.c, range_sum).  Returns -1 (out undefined) if some finite nonzero product is
 * off the range where x_i y_i = p + e exactly (|p| < 2^-968, or not finite: NaN and inf
 * inputs too); else 0 with out filled, except that an exact zero is +0 (the caller applies
 * the sign rule) and sum_abs is NaN: the caller computes it from x and y (exact_dot64.c), so
 * none is accumulated here.  Cost: ~1 pass over x and y plus the sum's; no allocation beyond
 * the large accumulator of wide data. */
int ug_exact_dot64_stream(const double *x, const double *y, size_t n, ug_exact *out);

/* The kernels in use (the best the CPU runs, unless ug_fast_kernels_select chose). */
const ug_fast_kernels *ug_fast_kernels_get(void);
/* "avx512", "avx2", "generic", or "auto"/NULL (the best); returns -1 (and changes nothing) if
 * the CPU lacks it.  Process-wide. */
int ug_fast_kernels_select(const char *name);

#endif
