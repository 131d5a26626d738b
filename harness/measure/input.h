/*
 * input.h - a measurement's input (harness/measure/input.c): every trial's inputs for one size
 * with the oracle's exact results, drawn from a distribution or given by the caller, and what
 * the GPU oracle did for them.  Part of measure.h, the half of the case API below the run loop.
 */
#ifndef UG_MEASURE_INPUT_H
#define UG_MEASURE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "oracle/oracle.h"
#include "ops/op.h"
#include "harness/inputs/dist.h"

typedef struct ug_t ug_t; /* the context a measurement belongs to (a running case) */

/* ---- inputs ------------------------------------------------------------------------------ */

/* Every trial's inputs for one size, with the oracle's exact results (computed once, shared by
 * every kernel measured on it).  Owned by the case; freed at its end or by ug_input_free(). */
typedef struct ug_input {
    ug_op op;
    const ug_op_desc *desc; /* op's descriptor, looked up once when the input is made */
    ug_dist dist;
    char label[160];      /* distribution description (or data label), part of the stream id */
    ug_shape shape;       /* the sizes, the operation's dims in order (base/opshape.h):
                             shape.dim[0] is a vector's n, a GEMM's M (then N, K) */
    int trials;           /* how many trials exist (the case's count, or --trials) */
    int first_trial;      /* --trial T: only trial T is made (trials = 1, first_trial = T) */
    float **x, **y;       /* [trial - first_trial]: inputs 0 and 1 as floats */
    float **more[UG_MAX_INPUTS - 2]; /* [input - 2][trial - first_trial]: inputs 2 .. of an
                             operation of more (attention's V); NULL for one of two at most */
    ug_opts opts;         /* the options every call on it takes (attention's scale, causal) */
    ug_fmt fmt[UG_MAX_INPUTS]; /* the format each input is drawn and stored in (the dist's) */
    void **data[UG_MAX_INPUTS]; /* [input][trial - first_trial]: the input stored in fmt[a]
                             where that is not binary32 (NULL for binary32: x, y are the storage).
                             binary64: double arrays, the only copy (x, y are NULL); 16- and 8-bit:
                             encoded elements, and x, y hold the same values as floats (exact) */
    ug_exact **exact;     /* [trial - first_trial][element] */
    double *kappa;        /* per trial: max over elements of sum_abs / |s| (condition number) */
    uint64_t stream_id;
    uint64_t serial;      /* unique in the process: with the trial, the identity of its bytes, so
                             a GPU launcher can reuse the device copy another kernel made */
} ug_input;

ug_input *ug_input_make(ug_t *t, ug_op op, const ug_dist *d, size_t n, int trials);
/* Any operation's inputs of shape s (its dims in order, base/opshape.h): a rectangular GEMM's
 * A M x K and B K x N are &(ug_shape){{M, N, K}}. */
ug_input *ug_input_make_shape(ug_t *t, ug_op op, const ug_dist *d, const ug_shape *s, int trials);
/* Inputs supplied by the case (e.g. read from a corpus file): one trial, data copied; y only
 * for a dot or GEMM (a GEMM's A and B are n x n, row-major). */
ug_input *ug_input_from_data(ug_t *t, ug_op op, const char *label, const float *x, const float *y,
                             size_t n);
/* A binary64 input of a sum or dot (one trial, n elements each) from the caller's data, exact
 * results from the binary64 oracle (the operation's exact64; a corpus "# format: f64" file). */
ug_input *ug_input_from_f64(ug_t *t, ug_op op, const char *label, const double *x,
                            const double *y, size_t n);
/* The same for any operation: one trial of shape s, each input op's in_len(s, i) values. */
ug_input *ug_input_from_shape(ug_t *t, ug_op op, const char *label, const float *x,
                              const float *y, const ug_shape *s);
/* An operation of several inputs laid out as heads (base/opshape.h's UG_LAYOUT_HEADS:
 * attention's Q, K, V of shape s, with its batch, heads and kv_heads) and per-call options o:
 * every input of every trial drawn from d, each input on its own stream of (seed, case, label,
 * input), then shaped by tw (NULL: as drawn): tw->fn(v, n, input, s, o) edits input `input`'s n
 * values in place (a case's outlier channels: a pure function of the values and indices), then
 * every value is rounded to tw->round_to (0 or UG_F32: kept binary32; UG_BF16, UG_F16: the
 * input stored in that format too, for the kernels that read it: ug_input_set_format).  The
 * label is d's description, tw->name and the format and options ("normal(0,1) outlier bf16
 * causal"): the row's dist.  The exact results come from the descriptor's exact_in.  An
 * operation of vectors or matrices is refused (ug_input_make); so is one without exact_in. */
typedef struct ug_input_tweak {
    const char *name; /* in the label; NULL: none */
    void (*fn)(float *v, size_t n, int input, const ug_shape *s, const ug_opts *o);
    ug_fmt round_to;
} ug_input_tweak;
ug_input *ug_input_make_heads(ug_t *t, ug_op op, const ug_dist *d, const ug_shape *s,
                              const ug_opts *o, int trials, const ug_input_tweak *tw);
/* Input a (0 ..) of trial i (counted from first_trial) as floats; NULL for binary64 data. */
static inline float *ug_input_vals(const ug_input *in, int a, int i)
{
    float **v = a == 0 ? in->x : a == 1 ? in->y : a < UG_MAX_INPUTS ? in->more[a - 2] : NULL;
    return v ? v[i] : NULL;
}
/* Declare the values of in (every trial) to be of format f, one that embeds in binary32 (f16,
 * bf16, e4m3, e5m2; f32 and wider: nothing done): each input is also stored in f (data[]), for
 * the kernels of that format.  The caller has checked that every value is one of f (ug_fmt_store
 * rounds).  Cost: one pass over the values. */
void ug_input_set_format(ug_input *in, ug_fmt f);
/* An input's operation descriptor, and its shape (in->shape). */
const ug_op_desc *ug_input_op(const ug_input *in);
ug_shape ug_input_shape(const ug_input *in);
void ug_input_free(ug_t *t, ug_input *in);

/* What the GPU oracle did in this run (harness/measure/input.c): results it gave, how many of them were
 * recomputed by the fast CPU oracle and compared, how many differed; impl: its implementation
 * ("cuda", "model", ...), NULL when it was not used. */
typedef struct ug_gpu_oracle_tally {
    size_t results, checked, differ;
    const char *impl;
} ug_gpu_oracle_tally;
ug_gpu_oracle_tally ug_gpu_oracle_counts(void);
/* Whether, with no --oracle, the GPU oracle answers an input of op (M x N x K for a GEMM) sooner
 * than the fast CPU oracle: GEMMs of at least 2^27 multiply-adds (harness/measure/input.c says why). */
bool ug_gpu_oracle_pays(ug_op op, const ug_shape *s);

#endif
