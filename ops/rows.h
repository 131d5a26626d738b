/*
 * rows.h - what the row operations' descriptors share (ops/softmax.c, logsumexp.c, rmsnorm.c,
 * layernorm.c): the functions of the shape of a row of n values, one output's
 * reference taken from the whole row's, and the descriptor fields every one of them has.
 */
#ifndef UG_OPS_ROWS_H
#define UG_OPS_ROWS_H

#include "ops/op.h"

/* The records of one row, all of them (a row operation's exact or exact_fast). */
typedef void (*ug_rows_all_fn)(const float *x, const float *y, const ug_shape *s, ug_exact *out);
/* Output e of the row alone, from all's records of the whole row: one output of a softmax or a
 * norm costs the row's sum anyway.  O(n) scratch. */
void ug_rows_exact_one(ug_rows_all_fn all, const float *x, const float *y, const ug_shape *s,
                       size_t e, ug_exact *out);

/* The fields every row operation's descriptor has that differ from the defaults: a row
 * operation (over_rows), GenSum restarts for the hunt up to rows of 2^16 (its shape row, base/opshape.c, says the rest).  A
 * descriptor puts UG_ROWS_DESC_COMMON among its own designated initialisers. */
#define UG_ROWS_DESC_COMMON .over_rows = true, .hunt_max_size = (size_t)1 << 16

#endif
