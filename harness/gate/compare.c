/*
 * compare.c - the merge gate's judgement: two runs (or a baseline and a run) matched row by row
 * by id, every gated figure judged (see compare.h).  Printing is in compare_print.c.
 */
#include "harness/gate/compare.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"

const ug_gated_info ug_gated[UG_GM_COUNT] = {
    [UG_GM_ULP_MAX] = {"ulp_max", false},
    [UG_GM_ULP_MEAN] = {"ulp_mean", false},
    [UG_GM_REL_MAX] = {"rel_max", false},
    [UG_GM_BOUND_RATIO_MAX] = {"bound_ratio_max", false},
    [UG_GM_CORRECTLY_ROUNDED] = {"correctly_rounded", true},
    [UG_GM_DISTINCT] = {"distinct_results", false},
};

double ug_gated_value(const ug_row *r, int m)
{
    switch (m) {
    case UG_GM_ULP_MAX: return r->ulp_max;
    case UG_GM_ULP_MEAN: return r->ulp_mean;
    case UG_GM_REL_MAX: return r->rel_max;
    case UG_GM_BOUND_RATIO_MAX: return r->bound_ratio_max;
    case UG_GM_CORRECTLY_ROUNDED: return (double)r->correctly_rounded;
    case UG_GM_DISTINCT: return r->repeats ? (double)r->distinct_results : NAN;
    }
    return NAN;
}

const char *ug_verdict_name(ug_verdict v)
{
    switch (v) {
    case UG_V_NA: return "";
    case UG_V_SAME: return "same";
    case UG_V_WITHIN: return "within slack";
    case UG_V_CHANGED: return "changed (not gated)";
    case UG_V_BETTER: return "better";
    case UG_V_WORSE: return "worse";
    }
    return "?";
}

/* How bad a value is, for ordering: finite values by size, then +inf, then NaN (a NaN error
 * means the kernel returned garbage where the oracle had a number). */
static int ug_badness_class(double v) { return isnan(v) ? 2 : isinf(v) ? 1 : 0; }

bool ug_metric_gated(int m, bool nondet)
{
    /* A nondeterministic row is judged on its mean ULP error only (and on its status, i.e. the
     * a-priori bound checked on every output of every repeat).  Its maxima are the worst of a
     * few random arrival orders, an extreme-value statistic: between two default runs on the
     * same GPU they moved by up to x4.19 (H100, gensum(1e20)) and x4.9 (H200, normal(0,1),
     * n = 255) while the means moved by at most x2.2.  How many repeats differ is the nature of
     * the kernel, how many of its few outputs round correctly the luck of the orders (two runs:
     * 8 and 1 of 90).  All of these are reported, not gated. */
    return !nondet || m == UG_GM_ULP_MEAN;
}

ug_verdict ug_judge(double old, double now, bool higher_better, double slack)
{
    int co = ug_badness_class(old), cn = ug_badness_class(now);
    if (higher_better && (co || cn)) return co == cn ? UG_V_SAME : UG_V_NA; /* counts are finite */
    if (co != cn) return cn > co ? UG_V_WORSE : UG_V_BETTER;
    if (co) return UG_V_SAME; /* both inf or both NaN */
    if (old == now) return UG_V_SAME;
    /* lower is better from here on: a correctly rounded count is turned around */
    double o = higher_better ? now : old, n = higher_better ? old : now;
    if (slack <= 1.0) return n > o ? UG_V_WORSE : UG_V_BETTER;
    if (n > o * slack) return UG_V_WORSE;
    if (n * slack < o) return UG_V_BETTER;
    return UG_V_WITHIN;
}

/* pass and xfail pass; fail and xpass fail. */
static bool ug_status_fails(ug_status s) { return s == UG_ST_FAIL || s == UG_ST_XPASS; }

ug_verdict ug_judge_status(ug_status old, ug_status now)
{
    bool fo = ug_status_fails(old), fn = ug_status_fails(now);
    if (fo == fn) return UG_V_SAME;
    return fn ? UG_V_WORSE : UG_V_BETTER;
}

void ug_inputs_differ(const ug_row *a, const ug_row *b, char *why, size_t len)
{
    why[0] = 0;
    if (!a->measured || !b->measured) return;
    if (a->seed != b->seed)
        snprintf(why, len, "seed 0x%llx -> 0x%llx", (unsigned long long)a->seed,
                 (unsigned long long)b->seed);
    else if (a->trials != b->trials)
        snprintf(why, len, "trials %d -> %d", a->trials, b->trials);
    else if (a->first_trial != b->first_trial)
        snprintf(why, len, "first trial %d -> %d", a->first_trial, b->first_trial);
    else if (a->deterministic && b->deterministic && a->count != b->count)
        /* a nondeterministic row's count is its outputs times its repeats, and the repeats
         * are as many as fit a time budget (measure.c): not what identifies its inputs (nor
         * when one side is nondeterministic: a kernel declared so, measured deterministic on
         * one side, counts one run there) */
        snprintf(why, len, "outputs %zu -> %zu", a->count, b->count);
}

/* ---- matching -------------------------------------------------------------------------------- */

static const ug_results *ug_sort_res;
static int ug_by_id(const void *a, const void *b)
{
    return strcmp(ug_sort_res->rows[*(const size_t *)a].id,
                  ug_sort_res->rows[*(const size_t *)b].id);
}

/* Indexes of res's rows sorted by id (qsort with a file-scope pointer: the comparison has no
 * context argument in C11). */
static size_t *ug_sorted_ids(const ug_results *res)
{
    size_t *idx = ug_xcalloc(res->count + 1, sizeof *idx);
    for (size_t i = 0; i < res->count; i++) idx[i] = i;
    ug_sort_res = res;
    qsort(idx, res->count, sizeof *idx, ug_by_id);
    return idx;
}

/* The row of res with this id through its sorted index, or (size_t)-1. */
static size_t ug_find_sorted(const ug_results *res, const size_t *idx, const char *id)
{
    size_t lo = 0, hi = res->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(res->rows[idx[mid]].id, id);
        if (c == 0) return idx[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (size_t)-1;
}

static int ug_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- one row --------------------------------------------------------------------------------- */

static void ug_judge_row(ug_comparison *c, ug_cmp_row *cr)
{
    const ug_row *o = &c->base->res.rows[cr->base], *n = &c->now->res.rows[cr->now];
    cr->slack = (o->measured && !o->deterministic) || (n->measured && !n->deterministic)
                    ? c->base->x[cr->base].slack
                    : 1.0;
    /* A kernel declared nondeterministic whose base row gave the same bits in each of its repeats
     * (measured deterministic: o->repeats > 1, counted only for such kernels) and differ now: the
     * base run was lucky in its arrival order (an H200 atomic sum of 33 terms: one run in twenty
     * of 9 repeats differs), not exact.  It is judged as the nondeterministic row it is, with the
     * slack `baseline update` gives it; a kernel declared deterministic has no such rows (its
     * differences fail the point). */
    if (cr->slack <= 1.0 && o->measured && o->deterministic && o->repeats > 1 && n->measured &&
        !n->deterministic)
        cr->slack = UG_DEFAULT_NONDET_SLACK;
    if (cr->slack < 1.0) cr->slack = 1.0;
    cr->status = ug_judge_status(o->status, n->status);
    bool worse = cr->status == UG_V_WORSE, better = cr->status == UG_V_BETTER, within = false;
    /* bits that depend on the CPU model are comparable only between runs on the same model */
    cr->machine = o->machine[0] || n->machine[0];
    cr->other_cpu = cr->machine && !ug_fingerprint_same_cpu(&c->base->fps[c->base->x[cr->base].fp],
                                                            &c->now->fps[c->now->x[cr->now].fp]);
    if (o->measured && n->measured) {
        for (int m = 0; m < UG_GM_COUNT; m++) {
            double a = ug_gated_value(o, m), b = ug_gated_value(n, m);
            if (m == UG_GM_DISTINCT && (isnan(a) || isnan(b))) {
                cr->m[m] = UG_V_NA;
                continue;
            }
            if (cr->other_cpu || !ug_metric_gated(m, cr->slack > 1.0)) {
                cr->m[m] = a == b ? UG_V_SAME : UG_V_CHANGED;
                continue;
            }
            const ug_bl_extra *bx = &c->base->x[cr->base];
            if (m == UG_GM_ULP_MEAN && cr->slack > 1.0 && ug_hist_usable(bx->n_hist)) {
                /* judged against the history once every row's t is known (ug_history_pass) */
                ug_hist_stats st;
                ug_hist_stats_of(bx->hist, bx->n_hist, &st);
                cr->hist = true;
                cr->hist_k = bx->n_hist;
                cr->hist_t = ug_hist_t(&st, b);
                cr->hist_dlog = log(fmax(b, UG_HIST_FLOOR)) - st.mean;
                cr->hist_p = ug_t_upper(cr->hist_t, (double)(bx->n_hist - 1));
                cr->m[m] = a == b ? UG_V_SAME : UG_V_WITHIN;
                within |= cr->m[m] == UG_V_WITHIN;
                continue;
            }
            cr->m[m] = ug_judge(a, b, ug_gated[m].higher_better, cr->slack);
            worse |= cr->m[m] == UG_V_WORSE;
            better |= cr->m[m] == UG_V_BETTER;
            within |= cr->m[m] == UG_V_WITHIN;
        }
    }
    /* a smaller bound ratio with no smaller error is a larger bound: the check was loosened */
    if (cr->slack <= 1.0 && !cr->other_cpu && cr->m[UG_GM_BOUND_RATIO_MAX] == UG_V_BETTER &&
        cr->m[UG_GM_ULP_MAX] != UG_V_BETTER && cr->m[UG_GM_ULP_MEAN] != UG_V_BETTER &&
        cr->m[UG_GM_REL_MAX] != UG_V_BETTER) {
        cr->m[UG_GM_BOUND_RATIO_MAX] = UG_V_WORSE;
        cr->bound_loosened = true;
        worse = true;
        better = false;
        for (int m = 0; m < UG_GM_COUNT; m++) better |= cr->m[m] == UG_V_BETTER;
        better |= cr->status == UG_V_BETTER;
    }
    cr->time = UG_V_NA;
    if (o->time_ms > 0 && n->time_ms > 0) {
        c->timed++;
        cr->time = c->opts.time_slack > 0
                       ? ug_judge(o->time_ms, n->time_ms, false, c->opts.time_slack)
                       : UG_V_SAME;
        worse |= cr->time == UG_V_WORSE;
    }
    cr->verdict = worse ? UG_V_WORSE : better ? UG_V_BETTER : within ? UG_V_WITHIN : UG_V_SAME;
}

/* The fingerprint parts that changed between the two rows' runs and that this row depends on;
 * recorded per part for the warning. */
static void ug_env_row(ug_comparison *c, ug_cmp_row *cr)
{
    const ug_row *n = &c->now->res.rows[cr->now];
    const ug_fingerprint *fo = &c->base->fps[c->base->x[cr->base].fp];
    const ug_fingerprint *fn = &c->now->fps[c->now->x[cr->now].fp];
    unsigned diff = ug_fingerprint_diff(fo, fn), scope = ug_row_scope(n->backend, n->kernel_name);
    if (n->machine[0] || c->base->res.rows[cr->base].machine[0]) scope |= UG_SCOPE_CPU_MODEL;
    for (int f = 0; f < UG_FP_NFIELDS; f++) {
        if (!(diff & (1u << f))) continue;
        if (!(c->env & (1u << f))) {
            snprintf(c->env_part[f].old, sizeof c->env_part[f].old, "%s", fo->v[f]);
            snprintf(c->env_part[f].now, sizeof c->env_part[f].now, "%s", fn->v[f]);
        }
        c->env |= 1u << f;
        if (ug_fp_fields[f].scope & scope) {
            cr->env |= 1u << f;
            c->env_part[f].rows++;
        }
    }
}

/* The rows judged by history, now that their number is known: each row's ulp_mean against
 * alpha_row, then each kernel's rows together against alpha_kernel (history.h). */
static void ug_history_pass(ug_comparison *c)
{
    for (size_t i = 0; i < c->n_rows; i++) c->hist_rows += c->rows[i].hist && !c->rows[i].inputs[0];
    if (!c->hist_rows) return;
    c->alpha_row = UG_GATE_FALSE_RED / 2 / (double)c->hist_rows;
    c->drift = ug_xcalloc(c->hist_rows, sizeof *c->drift);
    for (size_t i = 0; i < c->n_rows; i++) {
        ug_cmp_row *cr = &c->rows[i];
        if (!cr->hist || cr->inputs[0]) continue;
        if (cr->m[UG_GM_ULP_MEAN] != UG_V_SAME) {
            cr->m[UG_GM_ULP_MEAN] = cr->hist_p < c->alpha_row         ? UG_V_WORSE
                                    : 1 - cr->hist_p < c->alpha_row ? UG_V_BETTER
                                                                      : UG_V_WITHIN;
            bool worse = cr->status == UG_V_WORSE, better = cr->status == UG_V_BETTER;
            bool within = false;
            for (int m = 0; m < UG_GM_COUNT; m++) {
                worse |= cr->m[m] == UG_V_WORSE;
                better |= cr->m[m] == UG_V_BETTER;
                within |= cr->m[m] == UG_V_WITHIN;
            }
            worse |= cr->time == UG_V_WORSE;
            cr->verdict = worse ? UG_V_WORSE : better ? UG_V_BETTER : within ? UG_V_WITHIN : UG_V_SAME;
        }
        /* the kernel's sum of unit-variance t's and of log ratios */
        const char *k = c->now->res.rows[cr->now].kernel;
        size_t d = 0;
        while (d < c->n_drift && strcmp(c->drift[d].kernel, k) != 0) d++;
        if (d == c->n_drift) snprintf(c->drift[c->n_drift++].kernel, sizeof c->drift[0].kernel, "%s", k);
        c->drift[d].rows++;
        c->drift[d].z += ug_t_unit(cr->hist_t, (double)(cr->hist_k - 1));
        c->drift[d].ratio += cr->hist_dlog;
    }
    c->alpha_kernel = UG_GATE_FALSE_RED / 2 / (double)c->n_drift;
    for (size_t d = 0; d < c->n_drift; d++) {
        ug_cmp_drift *k = &c->drift[d];
        k->z /= sqrt((double)k->rows);
        k->ratio = exp(k->ratio / (double)k->rows);
        k->p = ug_normal_upper(k->z);
        k->worse = k->rows > 1 && k->p < c->alpha_kernel;
        c->drifted += k->worse;
    }
}

static void ug_refuse(ug_comparison *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ug_refuse(ug_comparison *c, const char *fmt, ...)
{
    if (c->n_refused == UG_CMP_MAX_REFUSED) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->refused[c->n_refused++], sizeof c->refused[0], fmt, ap);
    va_end(ap);
}

/* Why NEW cannot stand for the run BASE holds, into c->refused (after the rows are matched):
 * each of these would otherwise pass the gate with nothing, or the wrong thing, compared. */
static void ug_refusals(ug_comparison *c)
{
    const ug_baseline *now = c->now;
    if (now->interrupted)
        ug_refuse(c, "NEW was interrupted (%s): it holds part of the run",
                  now->stop_reason[0] ? now->stop_reason : "no reason recorded");
    if (now->reduced[0])
        ug_refuse(c, "NEW is a reduced run (%s): larger inputs were skipped or cut", now->reduced);
    if (!now->is_baseline && now->summary_points < 0)
        ug_refuse(c, "NEW has no summary: whether it holds every test point cannot be told");
    else if (!now->is_baseline && (size_t)now->summary_points != now->n_points)
        ug_refuse(c, "NEW is truncated: its summary counts %ld test points, it holds %zu",
                  now->summary_points, now->n_points);
    if (now->n_points == 0) ug_refuse(c, "NEW has no rows: nothing ran");
    if (c->device_differs)
        ug_refuse(c, "NEW is of another device (%s -> %s): its figures are not BASE's to compare",
                  c->base->device, now->device);
    if (c->env & (1u << UG_FP_SEED))
        ug_refuse(c, "NEW ran another seed (%s -> %s): other inputs", c->env_part[UG_FP_SEED].old,
                  c->env_part[UG_FP_SEED].now);
    static const int build[] = {UG_FP_CFLAGS, UG_FP_BUILD, UG_FP_NVCC_FLAGS};
    for (size_t i = 0; i < sizeof build / sizeof build[0]; i++) {
        int f = build[i];
        if (c->env_part[f].rows)
            ug_refuse(c, "NEW is of another build (%s '%s' -> '%s', %zu compared rows): rebuild "
                         "as BASE was, or update the baseline with a reason",
                      ug_fp_fields[f].key, c->env_part[f].old, c->env_part[f].now,
                      c->env_part[f].rows);
    }
    if (now->n_points && c->n_rows == c->inputs_changed)
        ug_refuse(c, "no row of NEW was compared with BASE (%zu only in new, %zu inputs changed)",
                  c->n_only_new, c->inputs_changed);
}

bool ug_cmp_fails(const ug_comparison *c)
{
    return c->regressed || c->drifted || c->n_new_failing || c->n_skipped_now || c->n_vanished ||
           c->n_refused;
}

static int ug_cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether name is one of sorted[n]. */
static bool ug_in_sorted(const char *const *sorted, size_t n, const char *name)
{
    return n && bsearch(&name, sorted, n, sizeof *sorted, ug_cmp_str) != NULL;
}

/* Whether NEW's selection left out a kernel the case itself needs (a comparison with another
 * kernel: tf32_canary/cpu runs gemm_naive_cpu beside gemm_tf32_cpu): the case skipped saying
 * so (ug_builtin_kernel's reasons), its rows of the selected kernel are not expected either. */
static bool ug_case_left_out(const ug_baseline *now, const char *case_name)
{
    for (size_t i = 0; i < now->ran.count; i++) {
        const ug_row *s = &now->ran.rows[i];
        if (s->status == UG_ST_SKIP && strcmp(s->case_name, case_name) == 0 &&
            (strstr(s->note, ", which --kernel ") || strstr(s->note, ", which --format ") ||
             strstr(s->note, ": not loaded (--no-builtin)") ||
             strstr(s->note, "the run's selection (")))
            return true;
    }
    return false;
}

bool ug_expected_in(const ug_baseline *now, const ug_row *r)
{
    bool ran = false;
    for (size_t u = 0; u < now->ran.n_units && !ran; u++)
        ran = strcmp(now->ran.units[u].name, r->case_name) == 0;
    if (!ran) return false;
    /* only a narrowed run leaves out a kernel a case needs (O(skipped rows) then) */
    if ((now->sel_kernel[0] || now->sel_kernels_narrowed) && ug_case_left_out(now, r->case_name))
        return false;
    /* a check point of a unit that ran: unless the run narrowed the unit's kernels or sizes,
     * which may leave the point out (a table over kernels that were not measured) */
    if (!r->measured) return !now->sel_kernel[0] && !now->sel_n && !now->sel_kernels_narrowed;
    if (now->sel_kernel[0]) {
        const char *at = strchr(now->sel_kernel, '@');
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(r->kernel, "@"), r->kernel);
        if (fnmatch(now->sel_kernel, at ? r->kernel : name, 0) != 0) return false;
    }
    if (now->sel_n && r->shape.dim[0] != now->sel_n) return false;
    if (now->sel_kernels_narrowed) {
        bool seen = false;
        for (size_t i = 0; i < now->res.count && !seen; i++)
            seen = strcmp(now->res.rows[i].kernel, r->kernel) == 0;
        return seen;
    }
    return true;
}

/* BASE's rows that NEW does not hold: skipped now, gone from a unit NEW ran, or outside NEW's
 * selection (only_base, listed).  Cost: O((base + new) log new). */
static void ug_unmatched(ug_comparison *c, const bool *matched)
{
    const ug_baseline *base = c->base, *now = c->now;
    size_t *sidx = ug_sorted_ids(&now->ran);
    const char **units = ug_xcalloc(now->ran.n_units + 1, sizeof *units);
    for (size_t u = 0; u < now->ran.n_units; u++) units[u] = now->ran.units[u].name;
    qsort(units, now->ran.n_units, sizeof *units, ug_cmp_str);
    for (size_t b = 0; b < base->res.count; b++) {
        if (matched[b]) continue;
        const ug_row *o = &base->res.rows[b];
        bool expected = !now->is_baseline && ug_in_sorted(units, now->ran.n_units, o->case_name) &&
                        ug_expected_in(now, o);
        size_t s = expected ? ug_find_sorted(&now->ran, sidx, o->id) : (size_t)-1;
        if (s != (size_t)-1) {
            c->skip_of[c->n_skipped_now] = s;
            c->skipped_now[c->n_skipped_now++] = b;
        } else if (expected) {
            c->vanished[c->n_vanished++] = b;
        } else {
            c->only_base[c->n_only_base++] = b;
        }
    }
    free(units);
    free(sidx);
}

void ug_compare(const ug_baseline *base, const ug_baseline *now, const ug_cmp_opts *opts,
                ug_comparison *c)
{
    memset(c, 0, sizeof *c);
    c->base = base;
    c->now = now;
    if (opts) c->opts = *opts;
    c->device_differs = strcmp(base->device, now->device) != 0;
    size_t *bidx = ug_sorted_ids(&base->res);
    bool *matched = ug_xcalloc(base->res.count + 1, sizeof *matched);
    c->rows = ug_xcalloc(now->res.count + 1, sizeof *c->rows);
    c->only_new = ug_xcalloc(now->res.count + 1, sizeof *c->only_new);
    c->new_failing = ug_xcalloc(now->res.count + 1, sizeof *c->new_failing);
    c->only_base = ug_xcalloc(base->res.count + 1, sizeof *c->only_base);
    c->skipped_now = ug_xcalloc(base->res.count + 1, sizeof *c->skipped_now);
    c->skip_of = ug_xcalloc(base->res.count + 1, sizeof *c->skip_of);
    c->vanished = ug_xcalloc(base->res.count + 1, sizeof *c->vanished);
    double *ratios = ug_xcalloc(now->res.count + 1, sizeof *ratios);
    size_t n_ratios = 0;
    for (size_t i = 0; i < now->res.count; i++) {
        const ug_row *n = &now->res.rows[i];
        size_t b = ug_find_sorted(&base->res, bidx, n->id);
        if (b == (size_t)-1) {
            c->only_new[c->n_only_new++] = i;
            if (n->status == UG_ST_FAIL || n->status == UG_ST_XPASS)
                c->new_failing[c->n_new_failing++] = i;
            continue;
        }
        matched[b] = true;
        ug_cmp_row *cr = &c->rows[c->n_rows++];
        cr->base = b;
        cr->now = i;
        ug_env_row(c, cr);
        ug_inputs_differ(&base->res.rows[b], n, cr->inputs, sizeof cr->inputs);
        if (cr->inputs[0]) {
            c->inputs_changed++;
            continue;
        }
        ug_judge_row(c, cr);
        c->other_cpu += cr->other_cpu;
        const ug_row *o = &base->res.rows[b];
        if (o->time_ms > 0 && n->time_ms > 0) ratios[n_ratios++] = n->time_ms / o->time_ms;
    }
    ug_history_pass(c);
    for (size_t i = 0; i < c->n_rows; i++) {
        if (c->rows[i].inputs[0]) continue;
        switch (c->rows[i].verdict) {
        case UG_V_WORSE: c->regressed++; break;
        case UG_V_BETTER: c->improved++; break;
        case UG_V_WITHIN: c->within++; break;
        default: c->same++; break;
        }
    }
    ug_unmatched(c, matched);
    if (n_ratios) {
        qsort(ratios, n_ratios, sizeof *ratios, ug_cmp_double);
        c->time_ratio_median = ratios[n_ratios / 2];
    }
    free(ratios);
    free(matched);
    free(bidx);
    ug_refusals(c);
}

void ug_comparison_free(ug_comparison *c)
{
    free(c->rows);
    free(c->only_base);
    free(c->only_new);
    free(c->new_failing);
    free(c->skipped_now);
    free(c->skip_of);
    free(c->vanished);
    free(c->drift);
    memset(c, 0, sizeof *c);
}
