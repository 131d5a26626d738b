/*
 * toy_fmt.h - FP5 E3M1, a number format defined in the test tree only: the proof that a
 * format is a row registered with base/format.h's ug_fmt_register (e3m1_format.c), a kernel
 * family that stores its output in it (e3m1_kernels.c) and a case (e3m1_case.c), with no change
 * to the harness.  tests/toy_fmt_test.sh runs it through conversions, `ulpgate run --report`,
 * `ulpgate report`, `baseline update` and the gate.
 *
 * FP5 E3M1, a layout no standard defines (so no built-in row has it), shaped like OCP MX's
 * FP6/FP4 elements: 1 sign bit, 3 exponent bits (bias 3), 1 mantissa bit; subnormals at
 * exponent field 0 (0.M x 2^-2); no infinity, no NaN: every one of the 32 codes is a number, the
 * largest +-24 (0 111 1 = 1.5 x 2^4), the smallest subnormal 2^-3.  Conversion to it: round to
 * nearest, ties to even, and a magnitude beyond 24 saturates to +-24 (OCP MX's rule for its
 * elements, which have no inf to overflow to).  A NaN has no code: the toy writes +-24.  Stored
 * one code a byte, in its low 5 bits.
 */
#ifndef UG_TOY_FMT_H
#define UG_TOY_FMT_H

#include "base/format.h"

/* E3M1's id: registered (ug_fmt_register) on the first call. */
ug_fmt ug_toy_e3m1(void);

/* The reference conversions, written from the spec's definition and independent of
 * base/format.c: the value of code c (0..31), and the code of v (nearest of the 32 values,
 * ties to the even mantissa, saturating; NaN: +-24). */
double ug_toy_e3m1_value(unsigned c);
unsigned ug_toy_e3m1_code(double v);

#endif
