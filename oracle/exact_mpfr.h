/*
 * exact_mpfr.h - the MPFR side of the oracle beyond oracle.h: the exact value itself as an MPFR
 * number (for output that shows every bit, such as `ulpgate oracle`).  Only MPFR-side code
 * includes this header; the fast oracle never does (oracle/meson.build builds it without MPFR).
 */
#ifndef UG_ORACLE_EXACT_MPFR_H
#define UG_ORACLE_EXACT_MPFR_H

#include <mpfr.h>
#include <stddef.h>

#include "oracle/oracle.h"

/* The exact value of sum x_i (y == NULL) or sum x_i*y_i of binary32 inputs, as an MPFR number
 * of the precision that holds it exactly (s is initialised here; the caller clears it).
 * Special values follow oracle.h's rules: s becomes NaN or +-inf.  Returns the class.
 * Cost: as ug_exact_sum_f32_mpfr / ug_exact_dot_f32_mpfr. */
ug_xclass ug_mpfr_exact_value_f32(const float *x, size_t incx, const float *y, size_t incy,
                                  size_t n, mpfr_t s);

/* RN32 (rnd MPFR_RNDN) or RD32 (MPFR_RNDD) of s, with binary32's subnormals and overflow
 * (+-inf beyond FLT_MAX under RN, -inf / FLT_MAX under RD).  MPFR's exponent range is restored
 * before it returns. */
float ug_mpfr_round_f32(mpfr_srcptr s, mpfr_rnd_t rnd);

#endif
