/*
 * check.h - grading outputs someone else computed: the library under `ulpgate check`
 * (harness/cli/cli_check.c, the .npy front end) and the Python extension.
 *
 * The caller hands over the inputs and the kernel's outputs as typed arrays in memory
 * (base/array.h: the element format, the byte order, the shape; C-contiguous: strides not given
 * or the canonical ones, anything else is refused naming the array).
 * Nothing is copied: native little-endian binary32 (binary64 for binary64 inputs) is read in
 * place, every other format is widened a row at a time into a row-sized buffer (exactly:
 * binary16, bfloat16 and fp8 embed in binary32, binary32 in binary64).  The exact results come
 * from the operation table (ops/op.h: the descriptor's exact(), the selected fast or MPFR oracle)
 * or, for binary64 inputs, from the oracle's binary64 sum and an MPFR dot here; every output is
 * graded against its exact value, and ug_check_result holds every figure `check --json` prints.
 *
 *   ug_check_opts o;
 *   ug_check_opts_init(&o);
 *   o.op = "dot";
 *   o.ulp_max = 4;
 *   ug_array in[2] = {{.name = "x", .data = x, .fmt = UG_F32, .ndim = 2, .shape = {B, n}},
 *                           {.name = "y", .data = y, .fmt = UG_F32, .ndim = 2, .shape = {B, n}}};
 *   ug_array got = {.name = "got", .data = g, .fmt = UG_F32, .ndim = 1, .shape = {B}};
 *   ug_check_result r;
 *   char err[512];
 *   if (ug_check_run(&o, in, 2, &got, &r, err, sizeof err) != 0) -> bad input: err says why
 *   r.ok: no limit passed; ug_check_failure_text(&buf, &r): the worst element and the verdict
 *
 * Shapes (a leading batch axis is a batch of independent problems):
 *   sum, asum, nrm2:   X (n) or (B, n);               GOT () or (1,); (B,) or (B, 1)
 *   scan, exscan:      X (n) or (B, n);               GOT the shape of X (every prefix)
 *   dot:               X, Y (n) or (B, n), the same;  GOT as sum
 *   gemm:              A (M, K) or (B, M, K), B (K, N) or (B, K, N);  GOT (M, N) or (B, M, N)
 *   row operations (softmax, logsumexp, rmsnorm, layernorm: no a-priori bound, not sums):
 *                      X (n) or (B, n) over the last axis; then the parameters, each (n): a
 *                      weight (rmsnorm), a weight and a bias (layernorm); GOT as X, or one per
 *                      row (logsumexp)
 * Which operations: ug_check_supported() (the registry's descriptors that fit one of the above).
 */
#ifndef UG_CHECK_H
#define UG_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/array.h"
#include "base/buf.h"
#include "base/format.h"
#include "ops/op.h"
#include "oracle/oracle.h"

enum { UG_CHECK_MAX_INPUTS = 3 };

/* ug_check_opts.axis when none was given. */
#define UG_CHECK_AXIS_NONE (-1000)


/* What to grade and against which limits.  ug_check_opts_init() sets every field to "not given". */
typedef struct ug_check_opts {
    const char *op;        /* the operation's name in the registry (ug_op_find): "sum", "dot" */
    double ulp_max;        /* fail an output past this many ULP of GOT's format; < 0: no limit */
    double rel_max;        /* fail an output past this relative error; < 0: no limit */
    bool correctly_rounded; /* fail an output that is not bit for bit RN_F(exact) (NaN: any
                              NaN): run's `correctly_rounded` check */
    const char *bound;     /* fail an output past the a-priori bound of this class: "tree" (u of
                              GOT's format, this library's derivation) or a class of the
                              operation (its descriptor's classes: "bf16_out", "block_fma",
                              "softmax_online", ...: kernels/bounds.c's arithmetic, the code that
                              grades a kernel of that class); NULL: no bound limit */
    ug_fmt acc_fmt;        /* a class's accumulator (UG_FMT_COUNT: not given, binary32) */
    const char *tc_model;  /* block_fma's tensor-core model: NULL or "envelope" (every published
                              model inside it), or a GPU of reports/tensorcore/params.tsv
                              ("H100", or a device name holding one): its published rows */
    ug_fmt op_fmt;         /* a class's operand format, the MMA's inputs of block_fma
                              (UG_FMT_COUNT: not given: the inputs' own when narrower than
                              binary32, else binary32) */
    double depth;          /* the tree bound's depth D (a whole number); < 0: n - 1 */
    int axis;              /* a row operation's axis: -1 or ndim - 1 (the last, the only one
                              read); UG_CHECK_AXIS_NONE: not given */
    double eps;            /* rmsnorm / layernorm: the epsilon; 0: not given (the descriptor's,
                              1e-5 rounded to binary32, the only one computed) */
    bool causal;           /* attention: the mask, bottom-right aligned */
    double scale;          /* attention: the scale (0: RN32(1/sqrt(d))) */
    bool mpfr;             /* the MPFR oracle (ug_oracle_select: for the whole process) */
    /* Called with every output's exact record (i: its index, C order over GOT) as it is
     * graded, when not NULL: what ulpgate.exact() returns (python/ulpgate/_ext/check.c). */
    void (*each_exact)(void *ctx, size_t i, const ug_exact *e);
    void *each_ctx;
} ug_check_opts;

/* Every figure of one check, over every output (what `check --json` prints). */
typedef struct ug_check_result {
    const ug_op_desc *op;
    ug_fmt in_fmt[UG_CHECK_MAX_INPUTS], out_fmt;
    int inputs;            /* input arrays: the op's vectors (ug_op_width): x w b */
    size_t batch;          /* problems (1 without a batch axis) */
    size_t per;            /* outputs of one problem (1; M N for gemm; n for scan and rows) */
    size_t outputs;        /* batch * per */
    size_t n;              /* terms behind each output (n; K) */
    size_t M, N, K;
    size_t depth;          /* the bound's D */
    bool has_bound;        /* the operation has a tree bound (sums of terms, nrm2); false for the
                              row operations */
    double gamma;          /* gamma_K(u_F) of the tree bound (+inf: vacuous; NaN: a class's) */
    ug_bound_class bound_class; /* the class graded (tree by default; UG_BOUND_NONE: none) */
    ug_fmt acc_fmt, op_fmt;   /* a class's accumulator and operand formats */
    char block_model[300];    /* a class's tensor-core model: "envelope", or its published rows */
    double operand_max;    /* a class's: the largest |input element| (its underflow term) */
    double rho_max;        /* a class's: the largest relative part of a bound (check_out.c) */
    double zero_bound_max; /* a class's: the largest absolute rest of a bound */
    double ulp_max, ulp_sum, ulp_mean, rel_max;
    double ratio_max;      /* max error / bound over the outputs whose bound is finite */
    size_t vacuous;        /* finite outputs whose bound is vacuous (+inf: K u >= 1, or no bound
                              at all: a row operation): no ratio, never a ratio of 0 */
    size_t specials;       /* outputs whose exact value is NaN or infinite */
    size_t correctly_rounded; /* outputs bit for bit RN_F(exact) (NaN: any NaN) */
    size_t wrong_sign_zeros;  /* outputs that are a zero of the sign RN_F(exact) does not have */
    size_t nonfinite;      /* outputs that are NaN or infinite where the exact value is finite
                              and RN_F(exact) is not that infinity: never ok, limit or not */
    size_t worst;          /* the output of the largest ULP error (the first of them; on a tie one
                              that is not correctly rounded); meaningless when outputs == 0 */
    bool worst_cr;         /* the worst output is the correctly rounded one */
    ug_exact worst_e;
    double worst_got, worst_want, worst_ulp, worst_rel;
    double worst_ratio;    /* NaN: its bound is vacuous */
    double worst_bound;    /* its a-priori bound (ug_check_bound; +inf vacuous, NaN special) */
    uint64_t worst_got_bits, worst_want_bits; /* their encodings in GOT's format (got's as
                                                 stored in the array, by ug_check_run) */
    double atol_part;      /* max over outputs of gamma (S - |s|) + the products' underflow */
    double rtol, atol;     /* the tolerance for assert_close (+inf: none, the bound vacuous) */
    const char *oracle;    /* "fast", "mpfr", "mpfr (binary64 products)" */
    /* the limits asked for (copied from the options) and the verdict */
    double limit_ulp, limit_rel;
    bool limit_bound, limit_cr;
    bool ok;               /* no limit passed */
    char verdict[192];     /* "ok" or "FAIL: ..." */
} ug_check_result;

/* Every option "not given", op NULL.  O(1). */
void ug_check_opts_init(ug_check_opts *o);

/* Whether check grades op (by its descriptor's fields: a sum of terms of index-aligned vectors
 * or a matrix product, an operation of one vector with its own exact results (scan, nrm2),
 * a row operation); ug_check_row_op: the row operations among them.  O(1). */
bool ug_check_supported(const ug_op_desc *op);
bool ug_check_row_op(const ug_op_desc *op);
/* The names of every operation check grades, "sum, dot, ... or attention" (attention through
 * check_attn.c's path), into buf.  O(ops). */
const char *ug_check_op_names(char *buf, size_t len);
/* The bound classes check grades op under, "tree, kahan, ..." (tree first, for the operations
 * it applies to, then the descriptor's classes), into buf.  O(classes). */
const char *ug_check_class_names(const ug_op_desc *op, char *buf, size_t len);

/* The options alone, before any data: the operation known and graded, the bound class, the
 * axis given only to a row operation, eps only to a norm.  On success *op and *inputs (how
 * many input arrays it takes) are set; 0, or 2 with err set ("--op: 'x' is not ...": the words
 * of the command line's options).  O(ops). */
int ug_check_prepare(const ug_check_opts *o, const ug_op_desc **op, int *inputs, char *err,
                     size_t errlen);

/* Grade got against the exact results of o->op on in[0 .. nin): fills r (every figure, the
 * verdict against o's limits: r->ok).  The verdict fails on the first of: no outputs while a
 * limit is given (nothing graded passes nothing); an output past ulp_max ULP (NaN for a number
 * and a number for NaN are infinite errors); with ulp_max <= 0.5 or rel_max == 0, a zero of the
 * wrong sign (not the correctly rounded result, though 0 in value); with correctly_rounded, an
 * output that is not bit for bit the correctly rounded result; past rel_max; with a bound,
 * any output whose bound is vacuous (it bounds nothing), then error / bound > 1.
 * 0 when graded (passed or not), 2 on input it cannot grade (err says which array and what:
 * "NAME: shape (3,): ...", a format the operation does not take; r is then undefined), 3 when
 * the memory to grade one problem is refused (err says how much; nothing stays allocated): the
 * scratch the oracle will need is tried first, so that its allocations, which end the process
 * when refused, are not the ones that fail.  Selects the MPFR oracle for the process when o->mpfr.
 * Cost: the oracle's on the inputs (~1-2 ns a binary32 term with the fast oracle; MPFR
 * ~0.3 us a binary64 product), one pass over GOT, O(n) scratch for a row (M K + K N for a
 * GEMM problem) and O(outputs of one problem) records; no copy of a native array. */
int ug_check_run(const ug_check_opts *o, const ug_array *in, int nin,
                 const ug_array *got, ug_check_result *r, char *err, size_t errlen);

/* ---- the figures as text (check_out.c) ------------------------------------------------------ */

/* The table `ulpgate check` prints (every line), appended to b.  O(1). */
void ug_check_table(ug_buf *b, const ug_check_result *r);
/* The one-line JSON object of `check --json` (docs/check.md lists the keys), with '\n'. */
void ug_check_json(ug_buf *b, const ug_check_result *r);
/* The lines of a failure, as the table prints them: the worst element ("worst      output 3:
 * got 0x... (..)  want 0x... (..)  exact ~..  12.7 ulp") and the verdict ("result     FAIL:
 * ..."); what an assertion message shows.  O(1). */
void ug_check_failure_text(ug_buf *b, const ug_check_result *r);

/* The pieces ug_check_run is made of, for a caller that computes the exact records itself (the
 * bench): the tree bound of one output, one output folded into r, the tolerance derived from r
 * (check_out.c has the derivation). */
double ug_check_bound(const ug_check_result *r, const ug_exact *e);
void ug_check_add(ug_check_result *r, size_t i, const ug_exact *e, double got);
/* ug_check_add with the output's bound given (+inf: vacuous), for an operation whose bound is
 * not a function of the output's record alone (attention's: the descriptor's bound_at). */
void ug_check_add_bound(ug_check_result *r, size_t i, const ug_exact *e, double got, double b);
/* The verdict against o's limits into r->ok and r->verdict (check.c: the rules at
 * ug_check_run). */
void ug_check_verdict(const ug_check_opts *o, ug_check_result *r);
/* The class o->bound names when it is one of op's (tree: of the operations it applies to);
 * UG_BOUND_NONE otherwise.  O(classes). */
ug_bound_class ug_check_class(const ug_op_desc *op, const char *name);

/* sum x[i*incx] y[i*incy] of binary64 values exactly into e (check_f64.c: MPFR, an accumulator
 * wide enough for every product; specials as oracle.h).  Cost: ~0.3 us a term. */
void ug_check_dot_f64(const double *x, size_t incx, const double *y, size_t incy, size_t n,
                      ug_exact *e);

/* ---- attention (check_attn.c) --------------------------------------------------------------- */

/* Grade an attention output computed elsewhere: in[0..3) Q (L, d), K (S, d), V (S, dv), O
 * (L, dv); or with leading axes (H, ...) or (B, H, ...), K and V of H_kv heads, H a multiple
 * of H_kv (grouped-query: query head h reads key/value head h / (H / H_kv)); lse (NULL: not
 * graded) (L), (H, L) or (B, H, L), Q's leading axes in Q's order.  o: op "attention", the
 * limits (ulp_max, rel_max, correctly_rounded), bound (an attention class: the descriptor's
 * bound_at, as `run` grades a kernel of that class), mpfr, causal (bottom-right aligned) and
 * scale (0: RN32(1/sqrt(d))).  The exact records are the descriptor's exact_in.  O's figures
 * into ro, lse's into rl (rl->outputs 0 when lse is NULL), each with its verdict.  0, 2 bad
 * input (err names the array), 3 memory refused.  Cost: the oracle's (~1 us per key per query
 * row), Q K V widened to binary32 once, a record per output. */
int ug_check_attention(const ug_check_opts *o, const ug_array in[3],
                       const ug_array *got, const ug_array *lse,
                       ug_check_result *ro, ug_check_result *rl, char *err, size_t errlen);
void ug_check_tolerance(ug_check_result *r);

#endif
