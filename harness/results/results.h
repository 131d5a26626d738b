/*
 * results.h - what a run produced: one row per test point, gathered by the run loop into a
 * ug_results list that the report writer, compare, the gate and merge read (the same structure
 * whether it was just measured or read back from a results.json).
 *
 * A row's identity: id = "<case> <kernel>@<variant> <dist> <n>" for a measurement (n as MxNxK
 * for a rectangular GEMM) and "<case> <point>" for a check that measured nothing; each part has
 * no space (spaces in a point name become '_'), so the id splits back into its parts, which are
 * also given as separate fields.
 */
#ifndef UG_RESULTS_H
#define UG_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ug_result ug_result;

typedef enum {
    UG_ST_PASS,   /* every check held */
    UG_ST_FAIL,   /* a check failed */
    UG_ST_SKIP,   /* not run (no device, --n...) */
    UG_ST_XFAIL,  /* failed as declared (per-kernel expected failure, with its reason) */
    UG_ST_XPASS,  /* declared to fail but passed: a failure (the declaration went stale) */
} ug_status;

const char *ug_status_name(ug_status s); /* "pass", "fail", "skip", "xfail", "xpass" */

/* The figures a case or a corpus check can put a limit on (ug.h's UG_EXPECT_*). */
typedef enum {
    UG_M_ULP_MAX, UG_M_ULP_MEAN, UG_M_REL_MAX, UG_M_REL_MEAN, UG_M_ABS_MAX, UG_M_RATIO_MAX,
} ug_metric;


/* A closed test point as the run loop receives it. */
typedef struct ug_point_record {
    const char *name;        /* TAP name: "reduce/normal serial_f32@default n=1000" */
    ug_status status;
    int failures;
    const char *skip_reason; /* for UG_ST_SKIP */
    const char *xfail;       /* the declared reason for UG_ST_XFAIL / UG_ST_XPASS */
    const char *diag;        /* "# ..." lines */
    const ug_result *result; /* the measurement, or NULL for a check point */
} ug_point_record;

/* The worst element of a measurement, as a report keeps it. */
typedef struct ug_row_worst {
    bool set;
    int trial;
    size_t element;
    double got, exact, exact_lo, ulp, rel, abs, bound_ratio;
} ug_row_worst;

typedef struct ug_row {
    /* identity */
    char id[512];
    bool measured;           /* a measurement (else a check point with no figures) */
    char case_name[128];
    char point[256];         /* the TAP name */
    char kernel[64];         /* name@variant */
    char kernel_name[48], variant[24];
    char backend[8], op[8], bound_class[16];
    char dist[160];
    char device[128];        /* "cpu" or the GPU's name */
    size_t n, m, gemm_n, k;  /* n: sum/dot length, or M of a GEMM (m = M, gemm_n = N, k = K) */
    bool deterministic;
    /* what ran */
    int trials, first_trial;
    size_t elements, count;
    uint64_t seed;
    /* figures */
    double ulp_max, ulp_mean, rel_max, rel_mean, abs_max;
    double abs_err_sum, rel_err_sum, abs_err_sum_rd, rel_err_sum_rd;
    double bound_ratio_max, bound_ratio_mean, apriori_ratio_max, prob_ratio_max;
    double prob_lambda, prob_failure;
    size_t bound_vacuous, bound_unchecked, unwritten, correctly_rounded;
    double kappa_max;
    int repeats, distinct_results;
    double time_ms, gbps, gflops;
    uint64_t ulp_hist[16];
    ug_row_worst worst_ulp, worst_bound_ratio;
    int method;
    int n_extra;
    struct { char name[40]; double value; } extra[16];
    /* outcome */
    ug_status status;
    int failures;
    char note[512];          /* skip reason, expected-failure reason, or kernel error */
} ug_row;

/* A unit the run visited (a case, or a row of a case's table) and its wall time. */
typedef struct ug_unit_time {
    char name[128];
    double seconds;
} ug_unit_time;

typedef struct ug_results {
    ug_row *rows;
    size_t count, cap;
    int passed, failed, skipped, xfailed, xpassed;
    ug_unit_time *units;     /* every unit visited, in order */
    size_t n_units, cap_units;
} ug_results;

/* Append a copy of row (counts updated from its status). */
void ug_results_add(ug_results *res, const ug_row *row);
void ug_results_free(ug_results *res);
/* The row with this id, or NULL (linear: callers that look up many build their own index). */
const ug_row *ug_results_find(const ug_results *res, const char *id);
/* Record a visited unit and its wall time. */
void ug_results_add_unit(ug_results *res, const char *name, double seconds);
/* Append every row and unit of src to dst (counts added). */
void ug_results_append(ug_results *dst, const ug_results *src);
/* "N passed, N failed, N skipped[, N failed as expected][, N passed unexpectedly]" */
void ug_results_summary(const ug_results *res, char *buf, size_t len);
/* The run's verdict: 1 if any row failed or passed unexpectedly, else 0. */
int ug_results_status(const ug_results *res);

/* Fill row from a closed point of the case `case_name` (device: "cpu" or the GPU's name for
 * CUDA kernels; seed: the run's). */
void ug_row_from_point(ug_row *row, const char *case_name, const ug_point_record *p,
                       const char *device, uint64_t seed);
/* The id of a measurement row from its parts (see above). */
void ug_row_make_id(ug_row *row);

/* Whether a distribution has a condition number worth a column and a plot (GenSum, GenDot). */
bool ug_dist_has_kappa(const char *dist);
/* The suite of a case: "reduce" of "reduce/normal". */
void ug_case_suite(const char *case_name, char *suite, size_t len);

#endif
