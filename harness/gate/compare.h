/*
 * compare.h - comparing two runs row by row: the merge gate's judgement (harness/gate/compare.c) and
 * how it is printed (harness/gate/compare_print.c).
 *
 * Rows are matched by id (case, kernel@variant, distribution, n).  For each gated metric the
 * verdict is worse, better or same:
 *   - deterministic kernels: exact (error against an exact oracle has no noise): any increase of
 *     an error figure, any decrease of the correctly rounded count, is worse;
 *   - nondeterministic kernels: their status, and their ulp_mean against the history of honest
 *     runs BASE keeps (history.h: a stated false-red rate per run), or, where BASE holds fewer
 *     than UG_HIST_MIN runs, beyond the row's slack s (new > s * old) - better only beyond it,
 *     "within slack" in between; their maxima are reported, not gated;
 *   - a row whose status went from passing to failing is worse;
 *   - distinct results: a deterministic kernel measured with repeats must keep 1 (any increase is
 *     worse); a nondeterministic one's vary by nature: "changed (not gated)".
 *   - a bound loosened: bound_ratio_max fell while none of ulp_max, ulp_mean, rel_max did (the
 *     bound grew, the error stayed) is worse, not better (deterministic rows);
 *   - a row whose bits depend on the CPU model (row.machine, UG_VP_CPU_MODEL): as its kernel's
 *     determinism says between runs on the same CPU model (the fingerprint's "cpu"); between
 *     runs on other models, or where either side did not record its model, on its status alone
 *     (every output within its bound), its figures "changed (not gated)";
 *   - a row only in NEW that fails (fail, xpass) is a regression too;
 *   - a row of BASE that NEW should hold but does not (NEW a results.json): skipped now (pass ->
 *     skip: "no longer measured" would otherwise pass), or missing though NEW ran its unit with
 *     a selection that takes it in (ug_expected_in) is a regression: a row is taken out of
 *     BASE only with a reason (`baseline update --prune --reason`).
 * Timing is reported, gated only when asked (time_slack > 0: new > time_slack * old is worse).
 * Rows whose inputs differ (trials, first trial, outputs, seed) are listed, not judged.
 *
 * NEW is not accepted at all (ug_comparison.refused: the gate fails with each reason) when it
 * cannot stand for the run the baseline holds: interrupted, no rows, fewer rows than its summary
 * counts (truncated), another device key, another seed, another build (cflags, build or nvcc
 * flags of a compared row: fingerprint.h), a reduced run (meta.limits), or no row compared at
 * all.
 */
#ifndef UG_COMPARE_H
#define UG_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "harness/gate/baseline.h"

enum {
    UG_GM_ULP_MAX, UG_GM_ULP_MEAN, UG_GM_REL_MAX, UG_GM_BOUND_RATIO_MAX, UG_GM_CORRECTLY_ROUNDED,
    UG_GM_DISTINCT, UG_GM_COUNT
};

typedef struct ug_gated_info {
    const char *name;     /* as in results.json */
    bool higher_better;   /* correctly_rounded */
} ug_gated_info;
extern const ug_gated_info ug_gated[UG_GM_COUNT];

/* The metric's value in a row; NAN when the row has none (distinct results of a row measured
 * without repeats). */
double ug_gated_value(const ug_row *r, int m);
/* Whether metric m is judged (else reported only) for a row; nondet: the row is
 * nondeterministic (it has a slack > 1). */
bool ug_metric_gated(int m, bool nondet);

typedef enum { UG_V_NA, UG_V_SAME, UG_V_WITHIN, UG_V_CHANGED, UG_V_BETTER, UG_V_WORSE } ug_verdict;
/* "", "same", "within slack", "changed (not gated)", "better", "worse" */
const char *ug_verdict_name(ug_verdict v);

/* The verdict on one figure: slack 1 is exact (deterministic).  NaN is worse than any number,
 * +inf worse than any finite one; equal values (inf == inf, NaN == NaN) are the same. */
ug_verdict ug_judge(double old, double now, bool higher_better, double slack);
/* "pass", "xfail" are passing, "fail" and "xpass" failing: worse when a passing row fails. */
ug_verdict ug_judge_status(ug_status old, ug_status now);
/* Why a row's inputs differ ("trials 100 -> 10"), or "" when they are the same: seed, trials,
 * first trial, and the outputs of a deterministic row (a nondeterministic row's count also
 * holds its repeats, which depend on its kernel's time). */
void ug_inputs_differ(const ug_row *a, const ug_row *b, char *why, size_t len);

typedef struct ug_cmp_row {
    size_t base, now;            /* indexes into the two sides' rows */
    double slack;                /* 1: deterministic */
    ug_verdict m[UG_GM_COUNT];    /* per metric */
    ug_verdict status, time;     /* time: UG_V_NA unless both were timed */
    ug_verdict verdict;          /* the row's: worse if any is, else better if any is, ... */
    unsigned env;                /* fingerprint parts changed that this row depends on */
    char inputs[160];            /* non-empty: its inputs differ (why); not judged */
    bool bound_loosened;         /* bound_ratio_max fell with the error: m[] says worse */
    bool machine;                /* its bits depend on the CPU model (row.machine) ... */
    bool other_cpu;              /* ... and the two sides ran on other (or unrecorded) CPU models:
                                    judged on its status (the bound) only, figures reported */
    /* a nondeterministic row judged by its history (history.h): BASE's k runs, the new run's t
     * and its upper tail p (worse when p < alpha_row; better when 1 - p < alpha_row) */
    bool hist;
    size_t hist_k;
    double hist_t, hist_p;
    double hist_dlog;            /* ln(new ulp_mean) - the history's mean of them */
} ug_cmp_row;

/* A kernel whose nondeterministic rows together moved beyond their histories (history.h). */
typedef struct ug_cmp_drift {
    char kernel[64];
    size_t rows;                 /* its rows judged by history */
    double z, p;                 /* their combined statistic and its upper tail */
    double ratio;                /* the geometric mean of new ulp_mean / the history's */
    bool worse;                  /* p < alpha_kernel */
} ug_cmp_drift;

enum { UG_CMP_MAX_REFUSED = 8 };

typedef struct ug_cmp_opts {
    double time_slack;           /* > 0: gate timing by this factor */
} ug_cmp_opts;

typedef struct ug_comparison {
    const ug_baseline *base, *now;
    ug_cmp_opts opts;
    ug_cmp_row *rows;            /* matched rows, in NEW's order */
    size_t n_rows;
    size_t *only_base, n_only_base; /* rows of BASE not in NEW (removed, or not run) */
    size_t *only_new, n_only_new;   /* rows of NEW not in BASE (new kernels, cases, sizes) */
    size_t regressed, improved, same, within, inputs_changed, timed;
    size_t other_cpu;            /* rows judged on status only: machine-dependent, measured on
                                    another (or an unrecorded) CPU model */
    size_t hist_rows;            /* nondeterministic rows judged by their history */
    double alpha_row, alpha_kernel; /* the false-red budget per row and per kernel */
    ug_cmp_drift *drift;         /* every kernel with rows judged by history */
    size_t n_drift, drifted;     /* ... and how many of them are worse */
    double time_ratio_median;    /* of the rows timed on both sides (0 when none) */
    bool device_differs;         /* the device keys differ */
    unsigned env;                /* fingerprint parts that changed for some matched row */
    struct { char old[192], now[192]; size_t rows; } env_part[UG_FP_NFIELDS];
    size_t *new_failing, n_new_failing; /* rows of NEW not in BASE that fail (regressions) */
    size_t *skipped_now, n_skipped_now; /* rows of BASE that NEW skipped: index into base */
    size_t *skip_of;                    /* ... and the skipped row of NEW (now->ran.rows) */
    size_t *vanished, n_vanished;       /* rows of BASE missing from NEW though it ran their
                                           unit with a selection that takes them in */
    char refused[UG_CMP_MAX_REFUSED][448]; /* why NEW is not accepted ("NEW was interrupted") */
    size_t n_refused;
} ug_comparison;

/* Whether NEW (a results.json) should hold base's row r: NEW ran r's unit (its case or corpus
 * file), and NEW's --kernel (a glob on name or name@variant), --n, --format and --no-builtin
 * take r in (for the last two: r's kernel measured somewhere in NEW). */
bool ug_expected_in(const ug_baseline *now, const ug_row *r);

/* Whether the gate fails: a regression, a kernel drifted beyond its history, a new row that
 * fails, a row skipped now or gone, or NEW not accepted. */
bool ug_cmp_fails(const ug_comparison *c);

/* Compare now against base (both stay owned by the caller and must outlive c).  Cost:
 * O(rows log rows). */
void ug_compare(const ug_baseline *base, const ug_baseline *now, const ug_cmp_opts *opts,
                ug_comparison *c);
void ug_comparison_free(ug_comparison *c);

/* ---- printing (compare_print.c) -------------------------------------------------------------- */

/* The terminal report: environment warnings, regressions (every metric of each: old -> new,
 * ratio, verdict), improvements, rows in one side only, inputs changed, counts, timing.
 * all: list every matched row, not only the changed ones. */
void ug_cmp_print_text(const ug_comparison *c, ug_buf *out, bool all);
/* The comment for a merge request (compare_md.c): NEW not accepted and environment warnings,
 * then the regressions worst first, grouped by kernel, each row one line that says what it is
 * ("new failure", "bound loosened", "error grew x111"), then the improvements, the rows in one
 * side only, the counts and timing (changes below the timer's resolution hidden).  At most
 * max_rows rows per list, and never more than UG_MD_LIMIT bytes in all: what does not fit is
 * counted in a line that names the full report (full_report: a URL or path; NULL: the command
 * that prints every row). */
enum { UG_MD_LIMIT = 65536 };
void ug_cmp_print_markdown(const ug_comparison *c, ug_buf *out, size_t max_rows,
                           const char *full_report);
/* Shared by the two printers (compare_print.c): a row's rule "[deterministic: exact]", the
 * fingerprint parts named by a bit set, the environment warnings, the timing lines, and whether
 * a time changed by more than the timer can resolve. */
void ug_cmp_row_rule(const ug_comparison *c, const ug_cmp_row *r, char *buf, size_t len);
/* `compare --explain GLOB`: every compared row whose id matches (a glob, or the id itself)
 * with its rule, verdict and how sure it is, its figures, the CPU models of a machine-dependent
 * row, a nondeterministic row's history and its statistics, and the loosenings on record.
 * Returns how many rows it explained (0: none matches; the caller says so). */
size_t ug_cmp_print_explain(const ug_comparison *c, const char *glob, ug_buf *out);
/* How sure a regression of the row is, in words: certain (bits changed, a status that fails),
 * the probability the history rule assigns, or the slack of one run (a static buffer). */
const char *ug_cmp_row_certainty(const ug_comparison *c, const ug_cmp_row *r);
void ug_cmp_env_names(unsigned env, char *buf, size_t len);
void ug_cmp_env_warnings(const ug_comparison *c, ug_buf *out, const char *prefix,
                         const char *item, bool md);
void ug_cmp_timing(const ug_comparison *c, ug_buf *out, const char *item);
bool ug_time_change_visible(const ug_row *o, const ug_row *n);
/* "0.5", "6.3e+03", "inf" (%.4g) and a ratio "x13.3" / "from 0" / "" into buf. */
const char *ug_fmt_fig(double v, char buf[32]);
const char *ug_fmt_ratio(double old, double now, char buf[32]);

#endif
