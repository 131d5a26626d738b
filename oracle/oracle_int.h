/*
 * oracle_int.h - what the oracle's own files share (not part of the public contract).
 */
#ifndef UG_ORACLE_INT_H
#define UG_ORACLE_INT_H

#include <mpfr.h>
#include <stddef.h>
#include <stdint.h>

#include "oracle.h"
#include "fast.h"
#include "special.h"

/* The exact value of sum x_i (y == NULL) or sum x_i*y_i of binary32 inputs, as an MPFR number
 * of the precision that holds it exactly (s is initialised here; the caller clears it).
 * Special values follow oracle.h's rules: s becomes NaN or +-inf.  Returns the class. */
ug_xclass ug_mpfr_exact_value_f32(const float *x, size_t incx, const float *y, size_t incy,
                                  size_t n, mpfr_t s);

#endif
