/*
 * toy_op.h - max_abs, an operation defined in the test tree only: the proof that an operation
 * is its descriptor (max_abs_op.c), its kernels (max_abs_kernels.c) and its cases
 * (max_abs_case.c), with no change to the harness.  tests/toy_op_test.sh runs it through
 * `ulpgate run --report`, `ulpgate report` and the gate.
 */
#ifndef UG_TOY_OP_H
#define UG_TOY_OP_H

#include "kernels/kernel.h"

/* max_abs's id: registered (ops/op.h's ug_op_register) on the first call. */
ug_op ug_toy_max_abs(void);

#endif
