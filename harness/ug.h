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
 * Each ug_measure() opens a TAP test point "case kernel n=N"; the assertions that follow attach
 * to it until the next ug_measure() or the end of the case.  Assertions made before any
 * measurement attach to a test point named after the case itself.
 * UG_EXPECT_* records a failure and goes on; UG_ASSERT_* records it and ends the case.
 * The loops honour --kernel, --n and --trial, so a failure's rerun line reproduces exactly it.
 */
#ifndef UG_H
#define UG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernels/kernel.h"
#include "../oracle/oracle.h"
#include "dist.h"

typedef struct ug_t ug_t; /* the running case's context */

/* ---- registration ------------------------------------------------------------------------- */

enum {
    UG_CASE_GPU = 1 << 0,         /* needs a CUDA device: skipped cleanly without one */
    UG_CASE_SLOW = 1 << 1,        /* only with --slow (meson suite 'slow') */
    UG_CASE_SHOULD_FAIL = 1 << 2, /* a canary: left out of a plain run, runs when --filter names it */
};

typedef struct ug_case {
    const char *name; /* "suite/name" */
    const char *file;
    int line;
    unsigned flags;
    void (*fn)(ug_t *t);
    struct ug_case *next;
} ug_case;

void ug_case_register(ug_case *c);
const ug_case *ug_cases(void); /* in registration order sorted by name */

#define UG_CASE_EX(suite, cname, cflags)                                                     \
    static void ug_case_fn_##suite##_##cname(ug_t *t);                                      \
    static ug_case ug_case_##suite##_##cname = {#suite "/" #cname, __FILE__, __LINE__,       \
                                                (cflags), ug_case_fn_##suite##_##cname, 0};  \
    __attribute__((constructor)) static void ug_case_reg_##suite##_##cname(void)            \
    {                                                                                        \
        ug_case_register(&ug_case_##suite##_##cname);                                       \
    }                                                                                        \
    static void ug_case_fn_##suite##_##cname(ug_t *t __attribute__((unused)))
#define UG_CASE(suite, cname) UG_CASE_EX(suite, cname, 0)

/* ---- inputs ------------------------------------------------------------------------------ */

/* Every trial's inputs for one size, with the oracle's exact results (computed once, shared by
 * every kernel measured on it).  Owned by the case; freed at its end or by ug_input_free(). */
typedef struct ug_input {
    ug_op op;
    ug_dist dist;
    char label[96];       /* distribution description, part of the stream id */
    size_t n;             /* sum/dot length; gemm: M = N = K = n unless gemm_* set */
    size_t gemm_m, gemm_n, gemm_k;
    int trials;           /* how many trials exist (the case's count, or --trials) */
    int first_trial;      /* --trial T: only trial T is made (trials = 1, first_trial = T) */
    float **x, **y;       /* [trial - first_trial] */
    ug_exact **exact;     /* [trial - first_trial][element] */
    double *kappa;        /* per trial: max over elements of sum_abs / |s| (condition number) */
    uint64_t stream_id;
} ug_input;

ug_input *ug_input_make(ug_t *t, ug_op op, const ug_dist *d, size_t n, int trials);
/* Rectangular GEMM: A M x K, B K x N. */
ug_input *ug_input_make_gemm(ug_t *t, const ug_dist *d, size_t M, size_t N, size_t K, int trials);
/* Inputs supplied by the case (e.g. read from a corpus file): one trial, data copied. */
ug_input *ug_input_from_data(ug_t *t, ug_op op, const char *label, const float *x, const float *y,
                             size_t n);
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
    char dist[96];              /* the input's distribution label */
    size_t n, gemm_m, gemm_n, gemm_k;
    int trials, first_trial;
    size_t elements;            /* outputs per trial */
    size_t count;               /* trials * elements */
    double ulp_max, ulp_mean, rel_max, rel_mean, abs_max;
    double abs_err_sum, rel_err_sum;      /* sums over every output (seed 004's metric, exact) */
    double abs_err_sum_seedref, rel_err_sum_seedref; /* same against RD32(s), seed 004's oracle */
    double bound_ratio_max, bound_ratio_mean;
    size_t bound_vacuous;       /* outputs whose a-priori bound is infinite (gamma_D with D u >= 1):
                                   their ratio counts as 0, so say how many there were */
    double kappa_max;
    ug_worst worst_ulp, worst_rel, worst_abs, worst_ratio;
    uint64_t ulp_hist[16];      /* ulp error buckets: [0], (0,1/4], (1/4,1/2], (1/2,1], (1,2], ... */
    bool correctly_rounded;     /* every output == RN32(s) (bitwise, NaN == NaN) */
    int distinct_results;       /* ug_measure_repeat: distinct outputs over the repeats */
    int repeats;
    double time_ms, gbps, gflops; /* median time of one run (trial 0); 0 when not timed */
    float **out;                /* [trial] outputs, kept for bitwise comparisons */
    bool failed_run;            /* the kernel itself failed (error in run_error) */
    char run_error[512];
    int seed_method;
    /* extra numeric fields for results.json (name, value) */
    int n_extra;
    struct { char name[40]; double value; } extra[16];
} ug_result;

/* Run kernel k on every trial of in, measure every output against the exact result, time it
 * (GPU kernels always; CPU kernels once), and open a test point.  A kernel failure (launch
 * error, fault, size limit) becomes a failed assertion on that test point. */
ug_result *ug_measure(ug_t *t, const ug_kernel *k, const ug_input *in);
/* Run k `repeats` times on trial 0 and count the distinct bitwise outputs (r->distinct_results);
 * also measures the first run like ug_measure. */
ug_result *ug_measure_repeat(ug_t *t, const ug_kernel *k, const ug_input *in, int repeats);
void ug_result_extra(ug_result *r, const char *name, double value);

/* ---- loops that honour --kernel / --n / --trial -------------------------------------------- */

const ug_kernel *ug_next_kernel(ug_t *t, size_t *it, ug_op op, int backend, const char *glob);
bool ug_n_selected(ug_t *t, size_t n);
bool ug_gpu_available(void);

#define UG_ANY_BACKEND (-1)
#define UG_FOR_KERNELS(t, k, op, backend, glob)                                               \
    for (size_t k##_it = 0; k##_it != (size_t)-1; k##_it = (size_t)-1)                        \
        for (const ug_kernel *k; (k = ug_next_kernel((t), &k##_it, (op), (backend), (glob)));)
#define UG_FOR_N(t, n, array)                                                                 \
    for (size_t n##_i = 0, n = 0; n##_i < sizeof(array) / sizeof((array)[0]); n##_i++)        \
        if ((n = (array)[n##_i]), ug_n_selected((t), n))

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
/* Skip the rest of the case with a reason (TAP "# SKIP reason"). */
void ug_skip(ug_t *t, const char *reason);
/* A kernel run on data of the case's own (not via ug_measure): returns 0, or records the
 * kernel's error as a failure and returns nonzero. */
int ug_run_kernel(ug_t *t, const ug_kernel *k, ug_call *c, const char *file, int line);

/* ---- assertions ----------------------------------------------------------------------------- */

typedef enum {
    UG_M_ULP_MAX, UG_M_ULP_MEAN, UG_M_REL_MAX, UG_M_REL_MEAN, UG_M_ABS_MAX, UG_M_RATIO_MAX,
} ug_metric;

bool ug_check_metric(ug_t *t, const ug_result *r, ug_metric m, double limit, const char *expr,
                     const char *file, int line, bool fatal);
bool ug_check_bitwise(ug_t *t, const ug_result *a, const ug_result *b, const char *expr,
                      const char *file, int line, bool fatal);
bool ug_check_correctly_rounded(ug_t *t, const ug_result *r, const char *expr, const char *file,
                                int line, bool fatal);
bool ug_check_distinct_max(ug_t *t, const ug_result *r, int max, const char *expr,
                           const char *file, int line, bool fatal);
bool ug_check(ug_t *t, bool ok, const char *expr, const char *file, int line, bool fatal,
              const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* For UG_ASSERT_*: leaves the case (longjmp to its end). */
void ug_abort_case(ug_t *t) __attribute__((noreturn));

#define UG__M(t, r, m, lim, expr, fatal)                                                      \
    do {                                                                                       \
        if (!ug_check_metric((t), (r), (m), (lim), (expr), __FILE__, __LINE__, (fatal)) &&   \
            (fatal))                                                                          \
            ug_abort_case(t);                                                                  \
    } while (0)

#define UG_EXPECT_ULP_MAX(r, lim) UG__M(t, r, UG_M_ULP_MAX, lim, "UG_EXPECT_ULP_MAX(" #r ", " #lim ")", 0)
#define UG_ASSERT_ULP_MAX(r, lim) UG__M(t, r, UG_M_ULP_MAX, lim, "UG_ASSERT_ULP_MAX(" #r ", " #lim ")", 1)
#define UG_EXPECT_ULP_MEAN(r, lim) UG__M(t, r, UG_M_ULP_MEAN, lim, "UG_EXPECT_ULP_MEAN(" #r ", " #lim ")", 0)
#define UG_ASSERT_ULP_MEAN(r, lim) UG__M(t, r, UG_M_ULP_MEAN, lim, "UG_ASSERT_ULP_MEAN(" #r ", " #lim ")", 1)
#define UG_EXPECT_REL_MAX(r, lim) UG__M(t, r, UG_M_REL_MAX, lim, "UG_EXPECT_REL_MAX(" #r ", " #lim ")", 0)
#define UG_ASSERT_REL_MAX(r, lim) UG__M(t, r, UG_M_REL_MAX, lim, "UG_ASSERT_REL_MAX(" #r ", " #lim ")", 1)
#define UG_EXPECT_REL_MEAN(r, lim) UG__M(t, r, UG_M_REL_MEAN, lim, "UG_EXPECT_REL_MEAN(" #r ", " #lim ")", 0)
#define UG_EXPECT_ABS_MAX(r, lim) UG__M(t, r, UG_M_ABS_MAX, lim, "UG_EXPECT_ABS_MAX(" #r ", " #lim ")", 0)
#define UG_ASSERT_ABS_MAX(r, lim) UG__M(t, r, UG_M_ABS_MAX, lim, "UG_ASSERT_ABS_MAX(" #r ", " #lim ")", 1)
#define UG_EXPECT_BOUND_RATIO_MAX(r, lim) UG__M(t, r, UG_M_RATIO_MAX, lim, "UG_EXPECT_BOUND_RATIO_MAX(" #r ", " #lim ")", 0)
#define UG_ASSERT_BOUND_RATIO_MAX(r, lim) UG__M(t, r, UG_M_RATIO_MAX, lim, "UG_ASSERT_BOUND_RATIO_MAX(" #r ", " #lim ")", 1)

#define UG_EXPECT_BITWISE_EQ(a, b)                                                             \
    ((void)ug_check_bitwise(t, (a), (b), "UG_EXPECT_BITWISE_EQ(" #a ", " #b ")", __FILE__, __LINE__, 0))
#define UG_EXPECT_CORRECTLY_ROUNDED(r)                                                         \
    ((void)ug_check_correctly_rounded(t, (r), "UG_EXPECT_CORRECTLY_ROUNDED(" #r ")", __FILE__, __LINE__, 0))
#define UG_EXPECT_DISTINCT_MAX(r, m)                                                           \
    ((void)ug_check_distinct_max(t, (r), (m), "UG_EXPECT_DISTINCT_MAX(" #r ", " #m ")", __FILE__, __LINE__, 0))

/* Plain unit-test checks (oracle and distribution tests).  fmt/...: what the values were. */
#define UG_EXPECT(cond) ((void)ug_check(t, !!(cond), "UG_EXPECT(" #cond ")", __FILE__, __LINE__, 0, "%s", ""))
#define UG_ASSERT(cond)                                                                        \
    do {                                                                                       \
        if (!ug_check(t, !!(cond), "UG_ASSERT(" #cond ")", __FILE__, __LINE__, 1, "%s", ""))       \
            ug_abort_case(t);                                                                  \
    } while (0)
#define UG_EXPECT_MSG(cond, ...) ((void)ug_check(t, !!(cond), "UG_EXPECT(" #cond ")", __FILE__, __LINE__, 0, __VA_ARGS__))
#define UG_ASSERT_MSG(cond, ...)                                                               \
    do {                                                                                       \
        if (!ug_check(t, !!(cond), "UG_ASSERT(" #cond ")", __FILE__, __LINE__, 1, __VA_ARGS__)) \
            ug_abort_case(t);                                                                  \
    } while (0)

#endif
