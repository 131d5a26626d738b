/*
 * result.h - what a measurement found: a test point's figures and its worst outputs (filled by
 * harness/measure/measure.c and kernel_call.c, read by the run loop).  Part of measure.h.
 */
#ifndef UG_MEASURE_RESULT_H
#define UG_MEASURE_RESULT_H

#include "harness/measure/input.h"

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

#endif
