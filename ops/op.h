/*
 * op.h - the operation table: what an operation is (sum, dot, GEMM, ...), one descriptor per
 * operation, and the registry of them.
 *
 * The harness measures kernels of several operations; everything that depends on which one
 * (how the exact result of an output is computed, the a-priori bound's arithmetic, the hunt's
 * domain, whether the GPU oracle pays; and through its shape row: how many inputs and how long,
 * how many outputs, the terms behind each, the corpus file's "# op:" line, GB/s or GFLOP/s) is
 * a field of the operation's descriptor, and the run loop, input generation, corpus files, the hunt, the reports and the
 * gate ask the descriptor.  Nothing outside ops/ and the kernel families' own launchers
 * switches on the operation (tests/layers.py checks it).
 *
 *   ops/sum.c, ops/dot.c, ops/gemm.c   one descriptor each (ug_op_sum_desc, ...)
 *   ops/ops.c                          the registry: by id, by name, in order; ug_op_register()
 *                                      for operations defined outside the tree (a test, a plugin)
 *
 * The shape half of an operation (its name, inputs, dims, outputs, terms) is a row of the table
 * beside the format table, base/opshape.h, which every layer reads; a descriptor here holds the
 * rest: the exact result, the bound and the GPU hooks, and states only what differs from the
 * defaults (zero, NULL).  The built-in ids are the public header's UG_OP_SUM ... (kernels name
 * their operation by id); ug_op_register() hands out the ids after them.  ops/meson.build lists
 * the built-in descriptors, in id order.
 */
#ifndef UG_OP_H
#define UG_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opshape.h"
#include "kernels/kernel.h"
#include "oracle/oracle.h"

/* How a point's figures summarise its outputs.  UG_SUMMARY_WORST_MEAN: the max of each error
 * over every output of every trial (and the worst output kept for the failure report), the mean
 * over all of them: what every operation uses today. */
typedef enum { UG_SUMMARY_WORST_MEAN } ug_summary;

typedef struct ug_op_desc {
    /* The operation's shape row (base/opshape.h: name, inputs, dims, outputs, terms):
     * UG_OPSHAPE(UG_OP_SUM) for a built-in one; ug_op_register sets it for one registered.
     * Its id and name are the operation's. */
    const ug_opshape *shape;
    /* Every field below states only what differs from its default: zero, false, NULL. */
    const char *doc;          /* one line: what it computes */
    ug_summary summary;       /* default UG_SUMMARY_WORST_MEAN */
    /* The bound's terms: each term a product of two binary32 values (one more rounding in the
     * kernel: kernels/bounds.c's UG_TERMS_PRODUCTS) or a value (UG_TERMS_VALUES, the
     * default). */
    ug_terms terms_kind;
    /* A correctly rounded result per output (sums, dots, GEMM today): the ug_exact records are
     * exact sums of terms.  false is room for non-linear results (softmax, norms) whose
     * exact() gives the correctly rounded value through other means. */
    bool exact_is_sum;
    /* Whether the failure report's "terms that matter" (index-aligned terms removed one at a
     * time) applies: vector operations whose output is the sum of its terms. */
    bool term_attribution;
    /* A row operation (softmax, logsumexp, rmsnorm, layernorm): computed over the
     * last axis of a batch of rows, input 1 (the layer's parameters) shared by every row
     * (`ulpgate check --axis`, the GPU rows speed table). */
    bool over_rows;
    /* Special values: how the exact result of an output with NaN or infinite terms is formed
     * (oracle.h's rules for sums and dots), one line for the docs. */
    const char *specials;
    /* The hunt: values searched have |v| in [2^-hunt_exp, 2^hunt_exp] (so that no partial
     * result can overflow or underflow), restarts drawn from GenSum (false) or GenDot (true),
     * each size parameter at most hunt_max_size (`hunt --n`); the search mutates values, the
     * shrink removes elements by the layout (index-aligned terms; or rows, columns, K).
     * Defaults: hunt_exp 0 is 100, hunt_max_size 0 is 2^24. */
    int hunt_exp;
    bool hunt_products;
    size_t hunt_max_size;

    /* ---- exact results --------------------------------------------------------------------- */
    /* An operation of more than two inputs (attention: Q, K, V): every output of one trial
     * from its inputs in order (binary32 arrays of ug_op_in_len each; 16-bit inputs widened
     * exactly) and the call's options (scale, causal), the records of output 0 then output 1.
     * Such an operation leaves exact, exact_fast and exact_one_fast NULL and sets bound_at:
     * its inputs come from ug_input_make_heads (harness/run/ug.h), the run loop grades both
     * outputs, the hunt searches its inputs as one vector; corpus files (two inputs a line at
     * most) refuse it with a message. */
    void (*exact_in)(const float *const *in, const ug_shape *s, const ug_opts *o,
                     ug_exact *out);
    /* Required: exact, exact_fast, exact_one_fast.  The records of every output of a trial
     * come one output buffer after the other (base/opshape.h's ug_opshape_outputs).
     * Every output of one trial with the selected CPU oracle (fast or MPFR: oracle.h). */
    void (*exact)(const float *x, const float *y, const ug_shape *s, ug_exact *out);
    /* The same with the fast oracle (the GPU oracle's cross-check), every output ... */
    void (*exact_fast)(const float *x, const float *y, const ug_shape *s, ug_exact *out);
    /* ... and output e alone. */
    void (*exact_one_fast)(const float *x, const float *y, const ug_shape *s, size_t e,
                           ug_exact *out);
    /* The GPU oracle (oracle/gpu.h) for count trials at once: out[i] gets trial i's outputs.
     * 0, or -1 with err set.  NULL: the GPU oracle does not compute this operation. */
    int (*exact_gpu)(float *const *x, float *const *y, size_t count, const ug_shape *s,
                     ug_exact *const *out, char *err, size_t errlen);
    /* Every output of one trial of binary64 inputs (x, y hold binary64 values; the
     * 16- and 8-bit formats embed in binary32 and take exact() above).  NULL: the operation
     * has no binary64 path, and a binary64 input of it is refused. */
    void (*exact64)(const double *x, const double *y, const ug_shape *s, ug_exact *out);
    /* With no --oracle, whether the GPU oracle answers a GPU case's input of this shape sooner
     * than the fast CPU oracle (NULL: never).  The rule depends on the input alone. */
    bool (*gpu_oracle_pays)(const ug_shape *s);

    /* ---- optional (NULL: the behaviour of sums, dots and GEMMs) ------------------------------ */
    /* The a-priori bound of kernel k for one output (lambda <= 0), or the probabilistic one at
     * lambda, from n = terms, S = the record's sum_abs and s_abs = |exact|, when it is not the
     * sum's or dot's arithmetic (ops/norm.c: nrm2 maps the sum of squares' bound through the
     * square root); NULL: kernels/bounds.c with terms_kind. */
    double (*bound)(const ug_kernel *k, size_t n, double S, double s_abs, double lambda);
    /* The a-priori bound of kernel k for output e of one trial from every record of the trial
     * (e's own, and others: attention's O bound needs its row's lse record), the shape and the
     * call's options, where a bound is not a function of e's record alone (ops/attention.c:
     * ug_attention_bound); +inf for none (the output unchecked, the point's check fails).
     * Used before `bound` and kernels/bounds.c; no probabilistic bound then. */
    double (*bound_at)(const ug_kernel *k, const ug_shape *s, const ug_opts *o,
                       const ug_exact *records, size_t e);
    /* Fills input 1 of trial (a normalisation layer's weight, or weight then bias: in_len(s, 1)
     * values) itself,
     * the distribution filling input 0 alone: layer parameters are not data.  NULL: the
     * distribution fills both inputs (a dot's pairs). */
    void (*fill_params)(float *y, const ug_shape *s, uint64_t seed, uint32_t trial);
    /* Makes a trial's drawn inputs (x, y: in_len values each) ones the operation takes, in
     * place, after the distribution filled them: the block-scaled GEMM quantizes them with its
     * format's rule, so that its inputs are exactly block-scaled arrays.  NULL: as drawn. */
    void (*shape_inputs)(float *x, float *y, const ug_shape *s);
    /* The bound classes of <ulpgate/ulpgate.h> that describe a kernel of this operation (its
     * arithmetic is one the class's derivation covers), UG_BOUND_NONE-terminated; what `check
     * --bound CLASS` and ulpgate.check(bound=) accept for it.  NULL: none. */
    const ug_bound_class *classes;
} ug_op_desc;

/* The vector operations' descriptors (ops/sum.c, ops/dot.c, ops/gemm.c, ops/scan.c, ops/norm.c). */
extern const ug_op_desc ug_op_sum_desc, ug_op_dot_desc, ug_op_gemm_desc;
extern const ug_op_desc ug_op_scan_desc, ug_op_exscan_desc, ug_op_nrm2_desc, ug_op_asum_desc;

/* The GEMM's exact paths over binary32 A (M x K) and B (K x N) of shape s (ops/gemm.c), shared
 * by every GEMM-shaped operation whose values are binary32 numbers (ops/gemm_bs.c: its
 * block-scaled values are): every output, every output with the fast oracle, output e alone,
 * count trials on the GPU oracle, and whether that oracle pays at this shape. */
void ug_gemm_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out);
void ug_gemm_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out);
void ug_gemm_exact_one_fast(const float *x, const float *y, const ug_shape *s, size_t e,
                            ug_exact *out);
int ug_gemm_exact_gpu(float *const *x, float *const *y, size_t count, const ug_shape *s,
                      ug_exact *const *out, char *err, size_t errlen);
bool ug_gemm_gpu_oracle_pays(const ug_shape *s);

/* ---- the references of the vector operations (ops/scan.c, ops/norm.c) ---------------------- */

/* Every prefix sum of x[0..n) exactly (out[i]: x_0..x_i; exclusive: x_0..x_(i-1)), with the
 * superaccumulator (fast) or an exact MPFR running sum; identical records.  O(n). */
void ug_exact_prefix_f32_fast(const float *x, size_t n, bool exclusive, ug_exact *out);
void ug_exact_prefix_f32_mpfr(const float *x, size_t n, bool exclusive, ug_exact *out);
/* ||x||_2 correctly rounded: sqrt of the exact sum of squares (superaccumulator, or MPFR), the
 * square root by Ziv's strategy (ops/norm.c); identical records.  sum_abs = RU64(||x||).
 * Returns the precision in bits that decided the rounding, 0 for a special or exact zero, -1
 * when undecided at the cap (the record is then NaN, and a message went to stderr). */
int ug_exact_nrm2_f32_fast(const float *x, size_t n, ug_exact *out);
int ug_exact_nrm2_f32_mpfr(const float *x, size_t n, ug_exact *out);
/* The row operations (ops/softmax.c, logsumexp.c, rmsnorm.c, layernorm.c). */
extern const ug_op_desc ug_op_softmax_desc, ug_op_logsumexp_desc, ug_op_rmsnorm_desc,
    ug_op_layernorm_desc;

/* ---- attention (ops/attention.c) -------------------------------------------------------------- */

extern const ug_op_desc ug_op_attention_desc;
/* The block-scaled GEMM (ops/gemm_bs.c). */
extern const ug_op_desc ug_op_gemm_bs_desc;
/* The scale a call of shape s takes: o->scale rounded to binary32, or RN32(1/sqrt(d)) for 0
 * (oracle/attention/exact_attention.h's default). */
float ug_attention_scale(const ug_shape *s, const ug_opts *o);
/* The a-priori bound of attention kernel k for output e of one trial (O's records then lse's:
 * ug_opshape_outputs), from the trial's records (the row's lse record carries the scores'
 * magnitude A, an O record its weighted |V| sum W; kernels/bounds_attn.c): +inf for a kernel
 * of no attention class. */
double ug_attention_bound(const ug_kernel *k, const ug_shape *s, const ug_opts *o,
                          const ug_exact *records, size_t e);

/* ---- the registry (ops/ops.c) --------------------------------------------------------------- */

/* The descriptor of id; NULL for an id no one registered. */
const ug_op_desc *ug_op_get(ug_op id);
/* By name ("sum"); NULL if none. */
const ug_op_desc *ug_op_find(const char *name);
/* Every operation, built-in first, then in registration order; NULL past the end. */
const ug_op_desc *ug_op_at(size_t i);
size_t ug_op_count(void);
/* Register an operation defined outside the tree: call from a constructor, before anything
 * runs.  Registers its shape row (ug_opshape_register: sets shape->id, the next free id after
 * the built-ins), points d->shape at it and returns the id; -1 (with a message on stderr) for a
 * name already taken, a shape the table refuses, a descriptor missing a required function, or
 * a full table. */
ug_op ug_op_register(ug_op_desc *d, ug_opshape *shape);
/* "sum"; "op#7" for an unknown id. */
const char *ug_op_name(ug_op op);
/* The names of every operation, "sum, dot or gemm", into buf (usage messages). */
const char *ug_op_names(char *buf, size_t len);

/* ---- the descriptor's shape (base/opshape.h's rules, through d->shape) ---------------------- */

static inline ug_op ug_op_id(const ug_op_desc *d) { return d->shape->id; }
static inline size_t ug_op_in_len(const ug_op_desc *d, const ug_shape *s, int i)
{
    return ug_opshape_in_len(d->shape, s, i);
}
/* Every output of one trial (all output buffers, one after the other). */
static inline size_t ug_op_outputs(const ug_op_desc *d, const ug_shape *s)
{
    return ug_opshape_outputs(d->shape, s);
}
static inline size_t ug_op_terms(const ug_op_desc *d, const ug_shape *s)
{
    return ug_opshape_terms(d->shape, s);
}
/* The terms behind output e of d at shape s. */
static inline size_t ug_op_terms_at(const ug_op_desc *d, const ug_shape *s, size_t e)
{
    return ug_opshape_terms_at(d->shape, s, e);
}
static inline double ug_op_work(const ug_op_desc *d, const ug_shape *s)
{
    return ug_opshape_work(d->shape, s);
}
/* The numerator of the point's rate: GFLOP/s's flops or GB/s's bytes (d->shape->rate). */
static inline double ug_op_rate_numerator(const ug_op_desc *d, const ug_shape *s)
{
    return d->shape->rate == UG_RATE_GFLOPS ? ug_opshape_flops(d->shape, s)
                                            : ug_opshape_bytes(d->shape, s);
}
/* Parse text as the op's size ("1000"; "MxNxK", or "N" for N x N x N), each size in
 * 1 .. max.  0, or -1 with err saying what is wrong. */
static inline int ug_op_parse_shape(const ug_op_desc *d, const char *text, size_t max,
                                    ug_shape *s, char *err, size_t errlen)
{
    return ug_opshape_parse(d->shape, text, max, s, err, errlen);
}
/* The size as the run names it: "1000"; a GEMM "MxNxK", or "N" when square and compact. */
static inline const char *ug_op_shape_text(const ug_op_desc *d, const ug_shape *s, bool compact,
                                           char *buf, size_t len)
{
    return ug_opshape_text(d->shape, s, compact, buf, len);
}
/* The elements of every input of one trial. */
static inline double ug_op_elements_in(const ug_op_desc *d, const ug_shape *s)
{
    return ug_opshape_elements_in(d->shape, s);
}
/* How many index-aligned vectors of dim[0] values input i of a UG_LAYOUT_VECTORS operation
 * holds (1 for x, y; 2 for a LayerNorm's [w | b]; 0 for an input it does not read), and all of
 * its inputs together (the values of a corpus line, the files of `ulpgate check`). */
static inline int ug_op_in_width(const ug_op_desc *d, int i)
{
    return d ? ug_opshape_in_width(d->shape, i) : 0;
}
static inline int ug_op_width(const ug_op_desc *d) { return d ? ug_opshape_width(d->shape) : 0; }

/* The a-priori bound of kernel k for one output of n terms of its operation, S = sum |terms|
 * (an upper bound), s_abs = |exact|: kernels/bounds.c's arithmetic with the descriptor's term
 * kind.  +inf when S is not finite or the bound vacuous, 0 for UG_BOUND_NONE. */
double ug_kernel_bound(const ug_kernel *k, size_t n, double S, double s_abs);
/* The probabilistic bound (kernels/bounds.c's ug_bound_prob_terms) the same way. */
double ug_kernel_bound_prob(const ug_kernel *k, size_t n, double S, double s_abs, double lambda);

/* A call's buffers (ug_call_in_count, ug_call_set_f32, ug_kernel_is_f32): base/opshape.h. */

#endif
