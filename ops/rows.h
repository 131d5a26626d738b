/*
 * rows.h - what the row operations' descriptors share (ops/softmax.c, logsumexp.c, rmsnorm.c,
 * layernorm.c; issue 25): the functions of the shape of a row of n values, one output's
 * reference taken from the whole row's, and the descriptor fields every one of them has.
 */
#ifndef UG_OPS_ROWS_H
#define UG_OPS_ROWS_H

#include "ops/op.h"

/* A row of n = s->dim[0]: n terms behind each output (the bound's n), n operations a trial. */
size_t ug_rows_terms(const ug_shape *s);
double ug_rows_work(const ug_shape *s);
/* n outputs (softmax and the norms: one per value). */
size_t ug_rows_outputs_n(const ug_shape *s);
/* Input 0 (the row) of n; no other input (softmax, logsumexp). */
size_t ug_rows_in_len_x(const ug_shape *s, int input);

/* The records of one row, all of them (a row operation's exact or exact_fast). */
typedef void (*ug_rows_all_fn)(const float *x, const float *y, const ug_shape *s, ug_exact *out);
/* Output e of the row alone, from all's records of the whole row: one output of a softmax or a
 * norm costs the row's sum anyway.  O(n) scratch. */
void ug_rows_exact_one(ug_rows_all_fn all, const float *x, const float *y, const ug_shape *s,
                       size_t e, ug_exact *out);

/* The fields every row operation's descriptor has: one size n, index-aligned vectors, the
 * worst/mean summary, GB/s, values as the bound's terms, results that are not sums (no "terms
 * that matter"), GenSum restarts for the hunt up to rows of 2^16, and the shape functions
 * above.  A descriptor puts UG_ROWS_DESC_COMMON among its own designated initialisers. */
#define UG_ROWS_DESC_COMMON                                                                   \
    .nsizes = 1, .size_names = "n", .layout = UG_LAYOUT_VECTORS,                              \
    .summary = UG_SUMMARY_WORST_MEAN, .rate = UG_RATE_GBPS, .terms_kind = UG_TERMS_VALUES,    \
    .exact_is_sum = false, .term_attribution = false, .hunt_products = false,                 \
    .hunt_max_size = (size_t)1 << 16, .terms = ug_rows_terms, .work = ug_rows_work

#endif
