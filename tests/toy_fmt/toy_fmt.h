/*
 * toy_fmt.h - OCP MX FP6 E3M2, a number format defined in the test tree only: the proof that a
 * format is a row registered with base/format.h's ug_fmt_register (e3m2_format.c), a kernel
 * family that stores its output in it (e3m2_kernels.c) and a case (e3m2_case.c), with no change
 * to the harness.  tests/toy_fmt_test.sh runs it through conversions, `ulpgate run --report`,
 * `ulpgate report`, `baseline update` and the gate.
 *
 * FP6 E3M2 (OCP Microscaling Formats (MX) v1.0, section 5.3.2): 1 sign bit, 3 exponent bits
 * (bias 3), 2 mantissa bits; subnormals at exponent field 0 (0.M x 2^-2); no infinity, no NaN:
 * every one of the 64 codes is a number, the largest +-28 (0 111 11 = 1.75 x 2^4), the
 * smallest subnormal 2^-4.  Conversion to it: round to nearest, ties to even, and a magnitude
 * beyond 28 saturates to +-28 (the spec's rule for the FP6/FP4 elements, which have no inf to
 * overflow to).  A NaN has no code: the toy writes +-28 (the spec leaves it to the
 * implementation).  Stored one code a byte, in its low 6 bits.
 */
#ifndef UG_TOY_FMT_H
#define UG_TOY_FMT_H

#include "base/format.h"

/* E3M2's id: registered (ug_fmt_register) on the first call. */
ug_fmt ug_toy_e3m2(void);

/* The reference conversions, written from the spec's definition and independent of
 * base/format.c: the value of code c (0..63), and the code of v (nearest of the 64 values,
 * ties to the even mantissa, saturating; NaN: +-28). */
double ug_toy_e3m2_value(unsigned c);
unsigned ug_toy_e3m2_code(double v);

#endif
