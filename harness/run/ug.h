/*
 * ug.h - what a test case sees: registration, inputs, measurements, assertions.
 *
 * A case is a function registered at load time (constructor attribute: no central table):
 *
 *   UG_CASE(reduce, normal) {                       // case "reduce/normal"
 *       static const size_t ns[] = {1, 1000, 10000};
 *       ug_dist d = ug_normal(0, 1);
 *       UG_FOR_N(t, n, ns) {
 *           ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, 100);   // trials x inputs + exact
 *           UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CPU, "*") {
 *               ug_result *r = ug_measure(t, k, in);                  // one TAP test point
 *               UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);   // a-priori bound: > 1 is a bug
 *           }
 *       }
 *   }
 *
 * One body over a table of distributions (as µnit's parameters): every row is a case of its own,
 * "<suite>/<row name>", and the body reads its row with ug_param_of(t):
 *
 *   static const ug_param dists[] = {{"normal", ug_normal(0, 1)}, {"uniform01", ug_uniform(0, 1)}};
 *   UG_CASE_OVER(reduce, dists, 0) { const ug_dist *d = &ug_param_of(t)->dist; ... }
 *
 * Each ug_measure() opens a TAP test point "case kernel@variant n=N"; the assertions that follow
 * attach to it until the next ug_measure() or the end of the case.  Assertions made before any
 * measurement attach to a test point named after the case itself.
 * UG_EXPECT_* records a failure and goes on; UG_ASSERT_* records it and ends the case.  Every
 * check has both forms (one template below).  The loops honour --kernel, --n and --trial, so a
 * failure's rerun line reproduces exactly it.
 */
#ifndef UG_H
#define UG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "oracle/oracle.h"
#include "ops/op.h"
#include "harness/inputs/dist.h"
#include "harness/results/results.h"

typedef struct ug_t ug_t; /* the running case's context */

/* ---- registration ------------------------------------------------------------------------- */

enum {
    UG_CASE_GPU = 1 << 0,         /* needs a CUDA device: skipped cleanly without one */
    UG_CASE_SLOW = 1 << 1,        /* only with --slow (meson suite 'slow') */
    UG_CASE_SHOULD_FAIL = 1 << 2, /* a canary: left out of a plain run, runs when --filter names it */
};

/* One row of a case's parameter table: the case "<suite>/<name>" runs the body with it.  What
 * the body does with the row is in these fields, never in its name (renaming a row changes its
 * id, not what it tests); a body reads the ones its table fills:
 *   op     the operation, in a table of several (default UG_OP_SUM)
 *   shape  a shape the row gives (attention's L and S, batch and heads; its d the body's)
 *   opts   the call's options (UG_OPT_CAUSAL; its scale)
 *   tweak  a transform of the drawn inputs (outlier channels), NULL none
 *   flags  what else the body does for the row: the case's own bits, defined beside its table */
struct ug_input_tweak;
typedef struct ug_param {
    const char *name;
    ug_dist dist;
    const size_t *sizes;  /* NULL: the body's own sizes (UG_FOR_SIZES) */
    size_t n_sizes;
    int trials;           /* 0: the body's own count */
    ug_op op;
    ug_shape shape;
    ug_opts opts;
    const struct ug_input_tweak *tweak;
    unsigned flags;
} ug_param;
#define UG_SIZES(array) (array), sizeof(array) / sizeof((array)[0])

typedef struct ug_case {
    const char *name;     /* "suite/name", or "suite" for a parameter table */
    const char *file;
    int line;
    unsigned flags;
    void (*fn)(ug_t *t);
    const ug_param *params; /* NULL, or a table of n_params rows */
    size_t n_params;
    struct ug_case *next;
} ug_case;

void ug_case_register(ug_case *c);

#define UG_CASE_DEFINE_(suite, cname, fullname, cflags, ptable, pcount)                      \
    static void ug_case_fn_##suite##_##cname(ug_t *t);                                      \
    static ug_case ug_case_##suite##_##cname = {fullname, __FILE__, __LINE__, (cflags),      \
                                                ug_case_fn_##suite##_##cname, ptable, pcount, 0}; \
    __attribute__((constructor)) static void ug_case_reg_##suite##_##cname(void)            \
    {                                                                                        \
        ug_case_register(&ug_case_##suite##_##cname);                                       \
    }                                                                                        \
    static void ug_case_fn_##suite##_##cname(ug_t *t __attribute__((unused)))
#define UG_CASE_EX(suite, cname, cflags) UG_CASE_DEFINE_(suite, cname, #suite "/" #cname, cflags, 0, 0)
#define UG_CASE(suite, cname) UG_CASE_EX(suite, cname, 0)
/* One case per row of table (a static const ug_param array): "<suite>/<row name>". */
#define UG_CASE_OVER(suite, table, cflags)                                                     \
    UG_CASE_DEFINE_(suite, table, #suite, cflags, table, sizeof(table) / sizeof((table)[0]))

/* The running case's parameter row (NULL for a plain case). */
const ug_param *ug_param_of(const ug_t *t);

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
/* Rectangular GEMM: A M x K, B K x N. */
ug_input *ug_input_make_gemm(ug_t *t, const ug_dist *d, size_t M, size_t N, size_t K, int trials);
/* Inputs supplied by the case (e.g. read from a corpus file): one trial, data copied; y only
 * for a dot or GEMM (a GEMM's A and B are n x n, row-major). */
ug_input *ug_input_from_data(ug_t *t, ug_op op, const char *label, const float *x, const float *y,
                             size_t n);
/* The same for a rectangular GEMM: A M x K and B K x N, row-major. */
ug_input *ug_input_from_gemm(ug_t *t, const char *label, const float *A, const float *B,
                             size_t M, size_t N, size_t K);
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

/* ---- measurements ------------------------------------------------------------------------ */

typedef struct ug_worst {
    int trial;
    size_t index;  /* output element */
    double got;
    ug_exact exact;
    ug_error err;
    double bound, ratio;
    bool set;
} ug_worst;

typedef struct ug_result {
    const ug_kernel *kernel;
    const ug_input *in;         /* NULL once the case frees the input */
    char dist[160];             /* the input's distribution label */
    ug_shape shape;             /* the input's sizes */
    int trials, first_trial;
    size_t elements;            /* outputs per trial */
    size_t count;               /* trials * elements */
    double ulp_max, ulp_mean, rel_max, rel_mean, abs_max;
    double abs_err_sum, rel_err_sum;      /* sums over every output (the seven-methods post's metric) */
    double abs_err_sum_rd, rel_err_sum_rd; /* same against RD32(s), the post's rounded-down reference */
    /* bound ratio |got - s| / bound per output: the a-priori bound where it is finite, else the
     * probabilistic one at the case's lambda (ug_prob_lambda); a special value where s is NaN
     * or infinite is right (0) or an infinite error */
    double bound_ratio_max, bound_ratio_mean;
    double apriori_ratio_max;   /* over the outputs with a finite a-priori bound */
    double prob_ratio_max;      /* the probabilistic bound's ratio (lambda > 0), every output */
    double prob_lambda, prob_failure; /* lambda, and the largest failure probability it implies */
    size_t bound_vacuous;       /* outputs whose a-priori bound is vacuous (gamma_D, D u >= 1):
                                   checked by the probabilistic bound instead */
    size_t bound_unchecked;     /* outputs with no finite bound at all (no class, or vacuous and
                                   lambda = 0): the bound ratio check cannot hold for them */
    size_t unwritten;           /* outputs the kernel never wrote (the poison pattern was left) */
    size_t out_of_range;        /* outputs beyond the formats' range (ug_measure_out_of_range):
                                   nonzero makes the point a skip */
    bool checked;               /* some effective check looked at this measurement */
    double operand_max;         /* largest |operand| of the input, for the classes that round
                                   operands to a narrower format (ug_kernel_bound_underflow) */
    double kappa_max;
    ug_worst worst_ulp, worst_rel, worst_abs, worst_ratio;
    uint64_t ulp_hist[16];      /* ulp error buckets (ug_ulp_bucket): [0], (0,1/4], (1/4,1/2],
                                   (1/2,1], (1,2], ..., (1024,2048], >2048 */
    size_t correctly_rounded;   /* outputs == RN32(s) (bitwise, NaN == NaN) */
    int distinct_results;       /* ug_measure_repeat: distinct outputs over the repeats */
    int repeats;
    double time_ms, gbps, gflops; /* median time of one run (trial 0); 0 when not timed */
    float **out;                /* [trial] outputs, kept for bitwise comparisons */
    bool failed_run;            /* the kernel itself failed (error in run_error) */
    char run_error[512];
    /* extra numeric fields for results.json (name, value) */
    int n_extra;
    struct { char name[40]; double value; } extra[16];
} ug_result;

/* The ulp_hist bucket of an ULP error: 0 for exact, b in 1..14 for (2^(b-4), 2^(b-3)], 15 beyond
 * 2048 (and NaN). */
int ug_ulp_bucket(double ulp);

/* Run kernel k on every trial of in, measure every output against the exact result, time it
 * (GPU kernels always; CPU kernels once), and open a test point.  A kernel failure (launch
 * error, fault, size limit) becomes a failed assertion on that test point. */
ug_result *ug_measure(ug_t *t, const ug_kernel *k, const ug_input *in);
/* Run k `repeats` times on trial 0 and count the distinct bitwise outputs (r->distinct_results);
 * also measures the first run like ug_measure. */
ug_result *ug_measure_repeat(ug_t *t, const ug_kernel *k, const ug_input *in, int repeats);
void ug_result_extra(ug_result *r, const char *name, double value);
/* Output e of trial i of r (counted from first_trial) as a double, and the format of its
 * buffer: out_fmt for output 0's elements, out_more_fmt[j - 1] for output j's (an operation of
 * several outputs: attention's O, then its row log-sum-exp). */
double ug_result_output(const ug_result *r, int i, size_t e);
ug_fmt ug_result_out_fmt(const ug_result *r, size_t e);
/* Flush-to-zero (harness/run/ftz.c): whether got is a signed zero where the exact value of nterms
 * terms is nonzero and subnormal, or a sum of terms at the subnormal scale (gradual underflow
 * would give a nonzero result), and how many of r's outputs (first run of each trial) are. */
bool ug_is_flush_to_zero(double got, const ug_exact *x, size_t nterms);
size_t ug_result_flushed_to_zero(const ug_result *r);
/* All outputs correctly rounded (r->correctly_rounded == r->count). */
bool ug_result_correctly_rounded(const ug_result *r);

/* ---- loops that honour --kernel / --n / --trial -------------------------------------------- */

/* The next kernel of op, backend and glob after *it: ug_next_kernel the kernels of binary32
 * buffers (inputs and output; ug_kernel_is_f32), ug_next_kernel_fmt those whose input is stored
 * in in_fmt (UG_F32: the same as ug_next_kernel). */
const ug_kernel *ug_next_kernel(ug_t *t, size_t *it, ug_op op, int backend, const char *glob);
const ug_kernel *ug_next_kernel_fmt(ug_t *t, size_t *it, ug_op op, int backend, const char *glob,
                                    ug_fmt in_fmt);
/* The next kernel whose input 0 is stored in in_fmt, whatever its accumulator and output
 * formats: the row operations' walk, where a binary32-in, bfloat16-out layer kernel
 * belongs beside the binary32 ones (ug_next_kernel skips it: not ug_kernel_is_f32). */
const ug_kernel *ug_next_kernel_in(ug_t *t, size_t *it, ug_op op, int backend, const char *glob,
                                   ug_fmt in_fmt);
bool ug_n_selected(ug_t *t, size_t n);
bool ug_gpu_available(void);
/* Whether the walk UG_FOR_FMT_KERNELS(t, k, op, backend, glob, in_fmt) would select a kernel
 * (in_fmt UG_F32: UG_FOR_KERNELS's), honouring --kernel and --format: a case about to draw a
 * large input (and its exact results) for kernels that may all be left out -- --no-builtin with
 * a plugin of another operation, --kernel -- asks first and skips that input when none is. */
bool ug_any_kernel_fmt(ug_t *t, ug_op op, int backend, const char *glob, ug_fmt in_fmt);

#define UG_ANY_BACKEND (-1)
#define UG_FOR_KERNELS(t, k, op, backend, glob)                                               \
    for (size_t k##_it = 0; k##_it != (size_t)-1; k##_it = (size_t)-1)                        \
        for (const ug_kernel *k; (k = ug_next_kernel((t), &k##_it, (op), (backend), (glob)));)
/* The same over the kernels whose input is stored in format fmt (the format kernels:
 * binary64, binary16, bfloat16 data), for an input drawn in it (ug_in_format). */
#define UG_FOR_FMT_KERNELS(t, k, op, backend, glob, fmt)                                      \
    for (size_t k##_it = 0; k##_it != (size_t)-1; k##_it = (size_t)-1)                        \
        for (const ug_kernel *k;                                                               \
             (k = ug_next_kernel_fmt((t), &k##_it, (op), (backend), (glob), (fmt)));)
/* Every kernel of op whose input is stored in fmt, any output format (ug_next_kernel_in): the
 * walk of the row cases (cases/rows.c, cases/gpu/gpu_rows.c); sum, dot and gemm keep theirs. */
#define UG_FOR_IN_KERNELS(t, k, op, backend, glob, fmt)                                       \
    for (size_t k##_it = 0; k##_it != (size_t)-1; k##_it = (size_t)-1)                        \
        for (const ug_kernel *k;                                                               \
             (k = ug_next_kernel_in((t), &k##_it, (op), (backend), (glob), (fmt)));)
#define UG_FOR_N(t, n, array)                                                                 \
    for (size_t n##_i = 0, n = 0; n##_i < sizeof(array) / sizeof((array)[0]); n##_i++)        \
        if ((n = (array)[n##_i]), ug_n_selected((t), n))
/* The sizes of the running parameter row when it has its own, else array. */
#define UG_FOR_SIZES(t, n, array)                                                             \
    for (size_t n##_i = 0, n = 0, n##_c = ug_param_of(t) && ug_param_of(t)->sizes            \
                                              ? ug_param_of(t)->n_sizes                        \
                                              : sizeof(array) / sizeof((array)[0]);            \
         n##_i < n##_c; n##_i++)                                                               \
        if ((n = ug_param_of(t) && ug_param_of(t)->sizes ? ug_param_of(t)->sizes[n##_i]       \
                                                          : (array)[n##_i]),                   \
            ug_n_selected((t), n))

/* A case's per-kernel table: an array of structs whose first member is `const char *kernel`
 * (a kernel's name).  Returns the row for k, or NULL when the table has none.  Every name in
 * the table must be a registered kernel: an unknown one fails the test point, naming it (a
 * table cannot go silently stale when a kernel is renamed). */
const void *ug_kernel_row(ug_t *t, const void *table, size_t count, size_t size, const ug_kernel *k);
#define UG_KERNEL_ROW(t, table, k)                                                            \
    ((const __typeof__((table)[0]) *)ug_kernel_row((t), (table), sizeof(table) / sizeof((table)[0]), \
                                                   sizeof((table)[0]), (k)))

/* ---- expected failures and the probabilistic bound ------------------------------------------- */

/* Declare that the open test point (the last measurement) fails, with the reason: its failures
 * then report as TAP "not ok ... # TODO reason" (expected), and if every check holds the point
 * is an unexpected pass, which fails the run: the declaration cannot go stale unnoticed. */
void ug_xfail(ug_t *t, const char *reason);
/* What the open check point found, in one line (the batch-invariance cases: "equal at batches 1,
 * 3, 64, 1000", or the first differing row): results.json's note of a row that has no skip,
 * expected-failure or kernel-error note, and the report's invariance table. */
void ug_point_finding(ug_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* lambda of the probabilistic bound for the measurements that follow in this case (0, the
 * default: none, so a vacuous a-priori bound leaves an output unchecked).  A case that measures
 * where the worst case is vacuous states its lambda, with the failure probability it implies:
 * 2n exp(-lambda^2/2) per output of n terms (ug_prob_failure). */
void ug_prob_lambda(ug_t *t, double lambda);

/* ---- notes and context --------------------------------------------------------------------- */

/* A TAP diagnostic line ("# ...") under the current test point; for tables and explanations. */
void ug_note(ug_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t ug_seed(const ug_t *t);
const char *ug_case_name(const ug_t *t);
/* Default trial count, or --trials when given. */
int ug_trials(const ug_t *t, int dflt);
/* Close the open test point and open one named "case <name>" for the checks that follow
 * (comparisons across kernels, tables). */
void ug_point(ug_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The open test point's skip reason ("no CUDA device", "out of range: ..."), NULL when it is not
 * skipped (or none is open). */
const char *ug_point_skip_reason(const ug_t *t);
/* Skip the rest of the case with a reason (TAP "# SKIP reason"). */
void ug_skip(ug_t *t, const char *reason);
/* A built-in kernel a case is about, by name (ug_kernel_find): when the built-in kernels are not
 * loaded (--no-builtin: a plugin's kernels alone) the case is skipped, saying so; else the
 * kernel, or NULL when there is no such kernel (the caller asserts). */
const ug_kernel *ug_builtin_kernel(ug_t *t, const char *name);
/* A kernel run on data of the case's own (not via ug_measure): returns 0, or records the
 * kernel's error as a failure and returns nonzero. */
int ug_run_kernel(ug_t *t, const ug_kernel *k, ug_call *c, const char *file, int line);

/* ---- assertions ----------------------------------------------------------------------------- */

/* ug_metric: harness/results/results.h */

/* Each returns true when the check holds; otherwise it records the failure (file:line, the
 * expression, the worst element, the rerun line) on the open test point and returns false. */
bool ug_check_metric(ug_t *t, const ug_result *r, ug_metric m, double limit, const char *expr,
                     const char *file, int line);
bool ug_check_bitwise(ug_t *t, const ug_result *a, const ug_result *b, const char *expr,
                      const char *file, int line);
bool ug_check_correctly_rounded(ug_t *t, const ug_result *r, const char *expr, const char *file,
                                int line);
bool ug_check_distinct_max(ug_t *t, const ug_result *r, int max, const char *expr,
                           const char *file, int line);
bool ug_check(ug_t *t, bool ok, const char *expr, const char *file, int line, const char *fmt,
              ...) __attribute__((format(printf, 6, 7)));
/* For UG_ASSERT_*: leaves the case (longjmp to its end). */
void ug_abort_case(ug_t *t) __attribute__((noreturn));

/* The one template every check goes through: EXPECT (fatal 0) records and goes on, ASSERT
 * (fatal 1) ends the case. */
#define UG__CHECK(fatal, call)                                                                 \
    do {                                                                                       \
        if (!(call) && (fatal)) ug_abort_case(t);                                              \
    } while (0)
#define UG__METRIC(fatal, form, m, r, lim)                                                     \
    UG__CHECK(fatal, ug_check_metric(t, (r), (m), (lim), form "(" #r ", " #lim ")", __FILE__, __LINE__))

#define UG_EXPECT_ULP_MAX(r, lim) UG__METRIC(0, "UG_EXPECT_ULP_MAX", UG_M_ULP_MAX, r, lim)
#define UG_ASSERT_ULP_MAX(r, lim) UG__METRIC(1, "UG_ASSERT_ULP_MAX", UG_M_ULP_MAX, r, lim)
#define UG_EXPECT_ULP_MEAN(r, lim) UG__METRIC(0, "UG_EXPECT_ULP_MEAN", UG_M_ULP_MEAN, r, lim)
#define UG_ASSERT_ULP_MEAN(r, lim) UG__METRIC(1, "UG_ASSERT_ULP_MEAN", UG_M_ULP_MEAN, r, lim)
#define UG_EXPECT_REL_MAX(r, lim) UG__METRIC(0, "UG_EXPECT_REL_MAX", UG_M_REL_MAX, r, lim)
#define UG_ASSERT_REL_MAX(r, lim) UG__METRIC(1, "UG_ASSERT_REL_MAX", UG_M_REL_MAX, r, lim)
#define UG_EXPECT_REL_MEAN(r, lim) UG__METRIC(0, "UG_EXPECT_REL_MEAN", UG_M_REL_MEAN, r, lim)
#define UG_ASSERT_REL_MEAN(r, lim) UG__METRIC(1, "UG_ASSERT_REL_MEAN", UG_M_REL_MEAN, r, lim)
#define UG_EXPECT_ABS_MAX(r, lim) UG__METRIC(0, "UG_EXPECT_ABS_MAX", UG_M_ABS_MAX, r, lim)
#define UG_ASSERT_ABS_MAX(r, lim) UG__METRIC(1, "UG_ASSERT_ABS_MAX", UG_M_ABS_MAX, r, lim)
#define UG_EXPECT_BOUND_RATIO_MAX(r, lim) UG__METRIC(0, "UG_EXPECT_BOUND_RATIO_MAX", UG_M_RATIO_MAX, r, lim)
#define UG_ASSERT_BOUND_RATIO_MAX(r, lim) UG__METRIC(1, "UG_ASSERT_BOUND_RATIO_MAX", UG_M_RATIO_MAX, r, lim)

#define UG_EXPECT_BITWISE_EQ(a, b)                                                             \
    UG__CHECK(0, ug_check_bitwise(t, (a), (b), "UG_EXPECT_BITWISE_EQ(" #a ", " #b ")", __FILE__, __LINE__))
#define UG_ASSERT_BITWISE_EQ(a, b)                                                             \
    UG__CHECK(1, ug_check_bitwise(t, (a), (b), "UG_ASSERT_BITWISE_EQ(" #a ", " #b ")", __FILE__, __LINE__))
#define UG_EXPECT_CORRECTLY_ROUNDED(r)                                                         \
    UG__CHECK(0, ug_check_correctly_rounded(t, (r), "UG_EXPECT_CORRECTLY_ROUNDED(" #r ")", __FILE__, __LINE__))
#define UG_ASSERT_CORRECTLY_ROUNDED(r)                                                         \
    UG__CHECK(1, ug_check_correctly_rounded(t, (r), "UG_ASSERT_CORRECTLY_ROUNDED(" #r ")", __FILE__, __LINE__))
#define UG_EXPECT_DISTINCT_MAX(r, m)                                                           \
    UG__CHECK(0, ug_check_distinct_max(t, (r), (m), "UG_EXPECT_DISTINCT_MAX(" #r ", " #m ")", __FILE__, __LINE__))
#define UG_ASSERT_DISTINCT_MAX(r, m)                                                           \
    UG__CHECK(1, ug_check_distinct_max(t, (r), (m), "UG_ASSERT_DISTINCT_MAX(" #r ", " #m ")", __FILE__, __LINE__))

/* Plain unit-test checks (oracle and distribution tests).  fmt/...: what the values were. */
#define UG_EXPECT(cond) UG__CHECK(0, ug_check(t, !!(cond), "UG_EXPECT(" #cond ")", __FILE__, __LINE__, "%s", ""))
#define UG_ASSERT(cond) UG__CHECK(1, ug_check(t, !!(cond), "UG_ASSERT(" #cond ")", __FILE__, __LINE__, "%s", ""))
#define UG_EXPECT_MSG(cond, ...) UG__CHECK(0, ug_check(t, !!(cond), "UG_EXPECT(" #cond ")", __FILE__, __LINE__, __VA_ARGS__))
#define UG_ASSERT_MSG(cond, ...) UG__CHECK(1, ug_check(t, !!(cond), "UG_ASSERT(" #cond ")", __FILE__, __LINE__, __VA_ARGS__))

#endif
