/*
 * history.h - the rule that judges a nondeterministic row by what many honest runs of it showed
 * (harness/gate/history.c).
 *
 * A nondeterministic kernel (atomics: the order of its additions changes from run to run) gives
 * another mean error every run.  One run's figure says nothing of that spread, so a fixed slack
 * around it is a coin of unknown bias.  The baseline keeps, per nondeterministic row, the
 * ulp_mean of up to UG_HIST_MAX honest runs; the gate models the logarithm of a run's ulp_mean
 * as normal with the history's mean and spread and asks how likely the new run is under it
 * (Student's t prediction interval: the mean and spread are themselves estimated from k runs):
 *
 *   y = ln(max(ulp_mean, UG_HIST_FLOOR)),  ybar, s from the k runs,  s' = max(s, UG_HIST_SD_MIN)
 *   t = (y_new - ybar) / (s' sqrt(1 + 1/k)),  p = P(T_{k-1} > t)
 *
 * Two tests share the false-red budget UG_GATE_FALSE_RED of a run (half each, Bonferroni):
 *   - a row is worse when p < (FALSE_RED / 2) / (rows judged by history) - one row gone far
 *     beyond its history;
 *   - a kernel is worse when its rows' t, each scaled to unit variance and summed over its m
 *     rows judged by history, Z = sum t_j sqrt((nu_j - 2) / nu_j) / sqrt(m), has an upper tail
 *     P(N(0,1) > Z) < (FALSE_RED / 2) / (kernels judged) - every row of it a little worse,
 *     as a regression of the kernel's arithmetic makes them (a mean error 2x worse moves Z by
 *     ln 2 sqrt(m) / s').
 * Better is the same on the lower tail, and is never taken from one run (baseline update keeps
 * the row as it was: a lucky run).  A row with fewer than UG_HIST_MIN runs in its history is
 * judged by the old slack rule (worse beyond x slack); docs/gate.md has the measured rates.
 */
#ifndef UG_HISTORY_H
#define UG_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

enum { UG_HIST_MAX = 32, UG_HIST_MIN = 5 };
#define UG_GATE_FALSE_RED 0.01 /* the chance an honest run goes red, at most, under the model */
#define UG_HIST_FLOOR 1e-6     /* ulp: an exact row's mean, for the logarithm */
#define UG_HIST_SD_MIN 0.05    /* the least spread assumed (5% in the mean): no row repeats
                                  exactly if it is nondeterministic, and a history of k equal
                                  values would otherwise call any change certain */

typedef struct ug_hist_stats {
    size_t k;           /* runs in the history */
    double mean, sd;    /* of ln(ulp_mean) over them (sd: the sample's, k - 1) */
    double sd_eff;      /* max(sd, UG_HIST_SD_MIN) */
} ug_hist_stats;

/* The statistics of a history of k ulp_mean values (k >= 1). */
void ug_hist_stats_of(const double *hist, size_t k, ug_hist_stats *st);
/* Whether a history this long is judged by it (k >= UG_HIST_MIN), else by the slack. */
static inline bool ug_hist_usable(size_t k) { return k >= UG_HIST_MIN; }
/* t of a new ulp_mean against the history (positive: worse). */
double ug_hist_t(const ug_hist_stats *st, double ulp_mean);
/* P(T_nu > t), Student's t with nu degrees of freedom (nu > 0): the regularized incomplete
 * beta function by its continued fraction.  Cost: O(100) operations. */
double ug_t_upper(double t, double nu);
/* P(N(0,1) > z). */
double ug_normal_upper(double z);
/* The unit-variance form of a t with nu degrees of freedom (nu > 2; else t as it is). */
double ug_t_unit(double t, double nu);
/* hist with v appended (the oldest dropped beyond UG_HIST_MAX): the new length. */
size_t ug_hist_push(double *hist, size_t k, double v);

#endif
