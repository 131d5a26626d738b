/*
 * oracle_int.h - what the oracle's own files share (not part of the public contract).
 */
#ifndef UG_ORACLE_INT_H
#define UG_ORACLE_INT_H

#include <mpfr.h>
#include <stddef.h>
#include <stdint.h>

#include "oracle.h"
#include "special.h"

/* The exact value of sum x_i (y == NULL) or sum x_i*y_i of binary32 inputs, as an MPFR number
 * of the precision that holds it exactly (s is initialised here; the caller clears it).
 * Special values follow oracle.h's rules: s becomes NaN or +-inf.  Returns the class. */
ug_xclass ug_mpfr_exact_value_f32(const float *x, size_t incx, const float *y, size_t incy,
                                  size_t n, mpfr_t s);

/* ---- exact_fast.c test hooks ----------------------------------------------------------------- */

/* Self-test of the exact accumulator on adversarial addition sequences against the MPFR
 * oracle; 0, or -1 with what differed in why. */
int ug_fast_selftest(char *why, size_t whylen);

/* ---- fast_kernels.c: the vector inner loops of exact_fast.c ---------------------------------- */

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
    const char *name; /* "avx512" or "generic" */
    ug_fused_fn fused[UG_F_COUNT];
    ug_terms_fn terms[3]; /* by ug_terms_kind */
    ug_level_fn level;
} ug_fast_kernels;

/* The kernels in use (the best the CPU runs, unless ug_fast_kernels_select chose). */
const ug_fast_kernels *ug_fast_kernels_get(void);
/* "avx512", "generic", or "auto"/NULL; returns -1 (and changes nothing) if the CPU lacks it. */
int ug_fast_kernels_select(const char *name);

#endif
