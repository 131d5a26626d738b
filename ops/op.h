/*
 * op.h - the operation table: what an operation is (sum, dot, GEMM, ...), one descriptor per
 * operation, and the registry of them.
 *
 * The harness measures kernels of several operations; everything that depends on which one
 * (how many inputs and how long, how many outputs, how the exact result of an output is
 * computed, the terms behind an output's a-priori bound, the corpus file's "# op:" line, the
 * hunt's domain, GB/s or GFLOP/s, whether the GPU oracle pays) is a field of the operation's
 * descriptor, and the run loop, input generation, corpus files, the hunt, the reports and the
 * gate ask the descriptor.  Nothing outside ops/ and the kernel families' own launchers
 * switches on the operation (tests/layers.py checks it).
 *
 *   ops/sum.c, ops/dot.c, ops/gemm.c   one descriptor each (ug_op_sum_desc, ...)
 *   ops/ops.c                          the registry: by id, by name, in order; ug_op_register()
 *                                      for operations defined outside the tree (a test, a plugin)
 *
 * The built-in ids are kernels/kernel.h's UG_OP_SUM, UG_OP_DOT and UG_OP_GEMM (kernels name
 * their operation by id and cannot include this folder); ug_op_register() hands out the ids after
 * them.  ops/meson.build lists the built-in descriptors, in id order.
 */
#ifndef UG_OP_H
#define UG_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "oracle/oracle.h"

/* An input's size parameters: dim[0..nsizes) in the descriptor's order ("n"; "M", "N", "K").
 * A vector operation uses dim[0] only (the harness may fill dim[1], dim[2] with the same n).
 * batch: room for a batch dimension (independent problems of this shape); 0 and 1 both mean
 * one problem, which is all the harness makes today. */
typedef struct ug_shape {
    size_t dim[3];
    size_t batch;
} ug_shape;

/* How an operation's inputs lie in memory, which is what input generation, the corpus files and
 * the hunt's mutation and shrinking need to know:
 *   UG_LAYOUT_VECTORS  every input is a vector of dim[0] elements, index-aligned (x[i], y[i]
 *                      form term i): a distribution fills x alone (arity 1: a sum's fill) or
 *                      the pair (arity 2: a dot's fill); a corpus file holds `arity` values a line.
 *                      An input may hold several such vectors one after the other (a LayerNorm's
 *                      parameters [w | b]: in_len 2 dim[0]; ug_op_in_width says how many): a
 *                      corpus line then holds one value of each (x w b), the hunt's shrink keeps
 *                      index i of each, `ulpgate check` takes one file each
 *   UG_LAYOUT_MATMUL   A is dim[0] x dim[2] (M x K), B dim[2] x dim[1] (K x N), row-major: the
 *                      GEMM fill; a corpus file holds one value a line, A then B */
typedef enum { UG_LAYOUT_VECTORS, UG_LAYOUT_MATMUL } ug_layout;

/* What an operation's outputs form: one value, a vector, a row-major matrix. */
typedef enum { UG_OUT_SCALAR, UG_OUT_VECTOR, UG_OUT_MATRIX } ug_out_kind;

/* How a point's figures summarise its outputs.  UG_SUMMARY_WORST_MEAN: the max of each error
 * over every output of every trial (and the worst output kept for the failure report), the mean
 * over all of them: what every operation uses today. */
typedef enum { UG_SUMMARY_WORST_MEAN } ug_summary;

/* Which speed a point reports: GB/s of input read (memory-bound operations) or GFLOP/s. */
typedef enum { UG_RATE_GBPS, UG_RATE_GFLOPS } ug_rate;

typedef struct ug_op_desc {
    ug_op id;                 /* UG_OP_SUM ...; a registered one: set by ug_op_register() */
    const char *name;         /* "sum": results rows, `--op`, the corpus file's "# op: sum" */
    const char *doc;          /* one line: what it computes */
    int arity;                /* inputs: 1 or 2 */
    const char *roles[2];     /* each input's name: "x", "y"; "A", "B"; an input of several
                                 vectors names each, space-separated ("w b") */
    const char *term_noun;    /* what one term of its input is, plural: "values", "pairs" */
    int nsizes;               /* size parameters: 1 (n) or 3 (M, N, K) */
    const char *size_names;   /* "n" or "MxNxK" (`--shape MxNxK`, `# op: gemm MxNxK`) */
    ug_layout layout;
    ug_out_kind out_kind;
    ug_summary summary;
    ug_rate rate;
    /* The bound's terms: each term a product of two binary32 values (one more rounding in the
     * kernel: kernels/bounds.c's UG_TERMS_PRODUCTS) or a value. */
    ug_terms terms_kind;
    /* A correctly rounded result per output (sums, dots, GEMM today): the ug_exact records are
     * exact sums of terms.  false is room for non-linear results (softmax, norms) whose
     * exact() gives the correctly rounded value through other means. */
    bool exact_is_sum;
    /* Whether the failure report's "terms that matter" (index-aligned terms removed one at a
     * time) applies: vector operations whose output is the sum of its terms. */
    bool term_attribution;
    /* Special values: how the exact result of an output with NaN or infinite terms is formed
     * (oracle.h's rules for sums and dots), one line for the docs. */
    const char *specials;
    /* The hunt: values searched have |v| in [2^-hunt_exp, 2^hunt_exp] (so that no partial
     * result can overflow or underflow), restarts drawn from GenSum (false) or GenDot (true),
     * each size parameter at most hunt_max_size (`hunt --n`); the search mutates values, the
     * shrink removes elements by the layout (index-aligned terms; or rows, columns, K). */
    int hunt_exp;
    bool hunt_products;
    size_t hunt_max_size;

    /* ---- functions of the shape ------------------------------------------------------------ */
    size_t (*in_len)(const ug_shape *s, int input);   /* elements of input 0 or 1 */
    size_t (*outputs)(const ug_shape *s);             /* outputs of one trial */
    size_t (*terms)(const ug_shape *s);               /* terms behind each output (the bound's n) */
    double (*work)(const ug_shape *s);                /* operations of one trial: n, M N K */
    double (*flops)(const ug_shape *s);               /* GFLOP/s numerator (UG_RATE_GFLOPS) */
    double (*bytes)(const ug_shape *s);               /* GB/s numerator (UG_RATE_GBPS) */

    /* ---- exact results --------------------------------------------------------------------- */
    /* Every output of one trial with the selected CPU oracle (fast or MPFR: oracle.h). */
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
    /* Every output of one trial of binary64 inputs (issue 23: x, y hold binary64 values; the
     * 16- and 8-bit formats embed in binary32 and take exact() above).  NULL: the operation
     * has no binary64 path, and a binary64 input of it is refused. */
    void (*exact64)(const double *x, const double *y, const ug_shape *s, ug_exact *out);
    /* With no --oracle, whether the GPU oracle answers a GPU case's input of this shape sooner
     * than the fast CPU oracle (NULL: never).  The rule depends on the input alone. */
    bool (*gpu_oracle_pays)(const ug_shape *s);

    /* ---- optional (NULL: the behaviour of sums, dots and GEMMs) ------------------------------ */
    /* Terms behind output e when the outputs differ (a scan's output i sums i + 1 values: its
     * bound's n and its kernel's depth at that n); NULL: terms(s) for every output. */
    size_t (*terms_at)(const ug_shape *s, size_t e);
    /* The a-priori bound of kernel k for one output (lambda <= 0), or the probabilistic one at
     * lambda, from n = terms, S = the record's sum_abs and s_abs = |exact|, when it is not the
     * sum's or dot's arithmetic (ops/norm.c: nrm2 maps the sum of squares' bound through the
     * square root); NULL: kernels/bounds.c with terms_kind. */
    double (*bound)(const ug_kernel *k, size_t n, double S, double s_abs, double lambda);
    /* Fills input 1 of trial (a normalisation layer's weight, or weight then bias: in_len(s, 1)
     * values) itself,
     * the distribution filling input 0 alone: layer parameters are not data.  NULL: the
     * distribution fills both inputs (a dot's pairs). */
    void (*fill_params)(float *y, const ug_shape *s, uint64_t seed, uint32_t trial);
} ug_op_desc;

/* The built-in descriptors (ops/sum.c, ops/dot.c, ops/gemm.c, ops/scan.c, ops/norm.c). */
extern const ug_op_desc ug_op_sum_desc, ug_op_dot_desc, ug_op_gemm_desc;
extern const ug_op_desc ug_op_scan_desc, ug_op_exscan_desc, ug_op_nrm2_desc, ug_op_asum_desc;

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
/* The terms behind output e of d at shape s (terms_at, else terms). */
size_t ug_op_terms_at(const ug_op_desc *d, const ug_shape *s, size_t e);
/* The row operations of issue 25 (ops/softmax.c, logsumexp.c, rmsnorm.c, layernorm.c). */
extern const ug_op_desc ug_op_softmax_desc, ug_op_logsumexp_desc, ug_op_rmsnorm_desc,
    ug_op_layernorm_desc;

/* ---- the registry (ops/ops.c) --------------------------------------------------------------- */

/* The descriptor of id; NULL for an id no one registered. */
const ug_op_desc *ug_op_get(ug_op id);
/* By name ("sum"); NULL if none. */
const ug_op_desc *ug_op_find(const char *name);
/* Every operation, built-in first, then in registration order; NULL past the end. */
const ug_op_desc *ug_op_at(size_t i);
size_t ug_op_count(void);
/* Register an operation defined outside the tree: call from a constructor, before anything
 * runs.  Sets d->id (the next free id after the built-ins) and returns it; -1 (with a message
 * on stderr) for a name already taken, a descriptor missing a required function, or a full
 * table. */
ug_op ug_op_register(ug_op_desc *d);
/* "sum"; "op#7" for an unknown id. */
const char *ug_op_name(ug_op op);
/* The names of every operation, "sum, dot or gemm", into buf (usage messages). */
const char *ug_op_names(char *buf, size_t len);

/* ---- helpers over a descriptor ------------------------------------------------------------ */

/* The shape of n (a vector operation's length; every dimension of a square GEMM). */
ug_shape ug_shape_square(size_t n);
/* Parse text as the op's size ("1000"; "MxNxK", or "N" for N x N x N), each size in
 * 1 .. max.  0, or -1 with err saying what is wrong. */
int ug_op_parse_shape(const ug_op_desc *d, const char *text, size_t max, ug_shape *s, char *err,
                      size_t errlen);
/* The size as the run names it: "1000"; a GEMM "MxNxK", or "N" when square and compact. */
const char *ug_op_shape_text(const ug_op_desc *d, const ug_shape *s, bool compact, char *buf,
                             size_t len);
/* The elements of every input of one trial (sum of in_len). */
double ug_op_elements_in(const ug_op_desc *d, const ug_shape *s);
/* How many index-aligned vectors of dim[0] values input i of a UG_LAYOUT_VECTORS operation
 * holds, one after the other: in_len at dim[0] = 1 (1 for x, y; 2 for a LayerNorm's [w | b]);
 * 0 for an input it does not read; 1 for every input of another layout. */
int ug_op_in_width(const ug_op_desc *d, int i);
/* The vectors of every input together: the values of a corpus line (x w b: 3), the files of
 * `ulpgate check`. */
int ug_op_width(const ug_op_desc *d);

/* The a-priori bound of kernel k for one output of n terms of its operation, S = sum |terms|
 * (an upper bound), s_abs = |exact|: kernels/bounds.c's arithmetic with the descriptor's term
 * kind.  +inf when S is not finite or the bound vacuous, 0 for UG_BOUND_NONE. */
double ug_kernel_bound(const ug_kernel *k, size_t n, double S, double s_abs);
/* The probabilistic bound (kernels/bounds.c's ug_bound_prob_terms) the same way. */
double ug_kernel_bound_prob(const ug_kernel *k, size_t n, double S, double s_abs, double lambda);

/* ---- a call's buffers, sized by its operation ------------------------------------------- */

/* The shape of a call's dimensions (c->n, c->gemm_n, c->gemm_k) for its operation. */
ug_shape ug_call_shape(const ug_call *c);
/* Elements of input i of c (0 for an input its operation does not read), and of its output. */
size_t ug_call_in_count(const ug_call *c, int i);
size_t ug_call_out_count(const ug_call *c);
/* Hand c (op and sizes set) binary32 buffers: x (and y: NULL for an operation of one input)
 * in, out for the result(s), with their counts: how a test or case fills a call by hand. */
void ug_call_set_f32(ug_call *c, const float *x, const float *y, float *out);
/* Whether k takes binary32 buffers: its inputs (of the op's arity) and its output stored in
 * binary32, whatever it accumulates or rounds its operands to (serial_f64acc, the TF32 GEMMs):
 * the kernels UG_FOR_KERNELS walks; the others are the format kernels of issue 23
 * (UG_FOR_FMT_KERNELS).  O(1).  (Here, with the op's arity, so that the run loop and the
 * measurement both ask it without depending on each other.) */
bool ug_kernel_is_f32(const ug_kernel *k);

#endif
