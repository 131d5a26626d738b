/*
 * measure.h - what a measurement is, the half of the case API (harness/run/ug.h) below the run
 * loop: an input with its exact results, a kernel measured on it (every output against the
 * exact result, the figures of a test point), a kernel run on data of the caller's own, the GPU.
 *
 * A measurement knows nothing of cases, shards or reports: it belongs to a context, ug_t, of
 * which it reads its own part (harness/measure/mctx.h: the seed, the oracle, the trial, the
 * name that seeds its inputs) and to which it reports through hooks (a point opened, a failure,
 * a skip); harness/run's running case is that context.
 */
#ifndef UG_MEASURE_H
#define UG_MEASURE_H

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
    /* a kernel declared nondeterministic whose repeats all gave the same bits, every trial: its
     * figures are one run's, its row graded as a deterministic one's (with a note) */
    bool measured_deterministic;
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
/* Flush-to-zero (harness/measure/ftz.c): whether got is a signed zero where the exact value of nterms
 * terms is nonzero and subnormal, or a sum of terms at the subnormal scale (gradual underflow
 * would give a nonzero result), and how many of r's outputs (first run of each trial) are. */
bool ug_is_flush_to_zero(double got, const ug_exact *x, size_t nterms);
size_t ug_result_flushed_to_zero(const ug_result *r);
/* All outputs correctly rounded (r->correctly_rounded == r->count). */
bool ug_result_correctly_rounded(const ug_result *r);

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

/* ---- the GPU, and kernels run directly ------------------------------------------------------ */

bool ug_gpu_available(void);
/* A kernel run on data of the case's own (not via ug_measure): returns 0, or records the
 * kernel's error as a failure and returns nonzero.  A CPU kernel runs on fenced copies of the
 * call's buffers (kernels/kernel.h ug_kernel_run_fenced): one element past either end faults. */
int ug_run_kernel(ug_t *t, const ug_kernel *k, ug_call *c, const char *file, int line);

#endif
