/*
 * baseline_update.c - merging a run into a baseline without ever regenerating it mechanically
 * (see baseline.h): figures that got better are taken, figures that got worse only with a
 * reason, which is stored with the row.  The rules for better and worse are the gate's own
 * (compare.c), so an update accepts exactly what the gate would have reported.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/sys.h"
#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"

static const ug_baseline *ug_sort_side;
static int ug_by_row_id(const void *a, const void *b)
{
    return strcmp(ug_sort_side->res.rows[*(const size_t *)a].id,
                  ug_sort_side->res.rows[*(const size_t *)b].id);
}

/* For every row of the run, the index of the baseline's row with its id, or (size_t)-1. */
static size_t *ug_match(const ug_baseline *bl, const ug_baseline *run)
{
    size_t *idx = ug_xcalloc(bl->res.count + 1, sizeof *idx);
    for (size_t i = 0; i < bl->res.count; i++) idx[i] = i;
    ug_sort_side = bl;
    qsort(idx, bl->res.count, sizeof *idx, ug_by_row_id);
    size_t *of = ug_xcalloc(run->res.count + 1, sizeof *of);
    for (size_t i = 0; i < run->res.count; i++) {
        of[i] = (size_t)-1;
        size_t lo = 0, hi = bl->res.count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int c = strcmp(bl->res.rows[idx[mid]].id, run->res.rows[i].id);
            if (c == 0) {
                of[i] = idx[mid];
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    free(idx);
    return of;
}

/* What changed between two rows, judged with the given slack: "ulp_max 1 -> 2 (x2), ...";
 * *worse / *better say whether any figure got worse / better beyond the slack, *within whether
 * one moved inside it. */
static void ug_row_changes(const ug_row *o, const ug_row *n, double slack, char *buf, size_t len,
                           bool *worse, bool *better, bool *within)
{
    buf[0] = 0;
    *worse = *better = *within = false;
    ug_verdict sv = ug_judge_status(o->status, n->status);
    if (o->status != n->status)
        snprintf(buf, len, "status %s -> %s", ug_status_name(o->status), ug_status_name(n->status));
    *worse |= sv == UG_V_WORSE;
    *better |= sv == UG_V_BETTER;
    for (int m = 0; m < UG_GM_COUNT && o->measured && n->measured; m++) {
        double a = ug_gated_value(o, m), b = ug_gated_value(n, m);
        if (!ug_metric_gated(m, slack > 1.0) || (m == UG_GM_DISTINCT && (isnan(a) || isnan(b))))
            continue; /* not gated */
        ug_verdict v = ug_judge(a, b, ug_gated[m].higher_better, slack);
        *worse |= v == UG_V_WORSE;
        *better |= v == UG_V_BETTER;
        *within |= v == UG_V_WITHIN;
        if (v != UG_V_WORSE && v != UG_V_BETTER) continue;
        char x[32], y[32], q[32];
        size_t at = strlen(buf);
        ug_fmt_ratio(a, b, q);
        snprintf(buf + at, len - at, "%s%s %s -> %s%s%s%s", at ? ", " : "", ug_gated[m].name,
                 ug_fmt_fig(a, x), ug_fmt_fig(b, y), q[0] ? " (" : "", q, q[0] ? ")" : "");
    }
}

static void ug_event_make(ug_bl_event *e, const char *git, const char *reason, const char *changes)
{
    memset(e, 0, sizeof *e);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(e->date, sizeof e->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(e->git, sizeof e->git, "%s", git);
    snprintf(e->reason, sizeof e->reason, "%s", reason ? reason : "");
    snprintf(e->changes, sizeof e->changes, "%s", changes);
}

/* Add row with x to nb, its history extended by one loosening event when changes is given. */
static void ug_put(ug_baseline *nb, const ug_row *row, ug_bl_extra x, const ug_baseline *run,
                   const ug_update_opts *o, const char *loosening)
{
    ug_bl_event *ev = NULL;
    if (loosening) {
        ev = ug_xcalloc(x.n_loosened + 1, sizeof *ev);
        if (x.n_loosened) memcpy(ev, x.loosened, x.n_loosened * sizeof *ev);
        ug_event_make(&ev[x.n_loosened], run->git, o->reason, loosening);
        x.loosened = ev;
        x.n_loosened++;
    }
    ug_baseline_add(nb, row, &x);
    free(ev);
}

/* A nondeterministic row (old, ox) measured again (row, its extra x): judged on its status and
 * by its history (history.h; alpha: the false-red budget of one row) or, where that is short,
 * its slack.  Within them the run joins the history and the figures stay; worse is a loosening
 * (a reason: the history starts again from this run); better is not taken from one run, which
 * may be lucky, unless a reason says the kernel improved (then the history starts again too).
 * status_worse: ug_row_changes found the status or the slack worse (changes says how). */
static void ug_update_nondet(ug_baseline *nb, const ug_row *old, const ug_bl_extra *ox,
                             const ug_row *row, ug_bl_extra x, const ug_baseline *run,
                             const ug_update_opts *o, ug_buf *diff, ug_update_summary *s,
                             double alpha, bool status_worse, const char *changes)
{
    ug_verdict v;
    char rule[160];
    if (ug_hist_usable(ox->n_hist)) {
        ug_hist_stats st;
        ug_hist_stats_of(ox->hist, ox->n_hist, &st);
        double p = ug_t_upper(ug_hist_t(&st, row->ulp_mean), (double)(ox->n_hist - 1));
        v = p < alpha ? UG_V_WORSE : 1 - p < alpha ? UG_V_BETTER : UG_V_WITHIN;
        snprintf(rule, sizeof rule, "history of %zu runs, p %.3g", ox->n_hist, p);
    } else {
        v = ug_judge(old->ulp_mean, row->ulp_mean, false, x.slack);
        snprintf(rule, sizeof rule, "slack x%g, history of %zu run%s", x.slack, ox->n_hist,
                 ox->n_hist == 1 ? "" : "s");
    }
    char a[32], b[32];
    if (status_worse || v == UG_V_WORSE) {
        ug_buf_printf(diff, "LOOSENED %s: %s%sulp_mean %s -> %s (%s)\n", row->id, changes,
                      changes[0] ? ", " : "", ug_fmt_fig(old->ulp_mean, a),
                      ug_fmt_fig(row->ulp_mean, b), rule);
        s->loosened++;
        x.n_hist = ug_hist_push(x.hist, 0, row->ulp_mean);
        char what[600];
        snprintf(what, sizeof what, "%s%sulp_mean %s -> %s (%s)", changes, changes[0] ? ", " : "",
                 a, b, rule);
        ug_put(nb, row, x, run, o, what);
    } else if (v == UG_V_BETTER && o->reason && o->reason[0]) {
        ug_buf_printf(diff, "tightened %s: ulp_mean %s -> %s (%s; a reason given: the history "
                      "starts again)\n", row->id, ug_fmt_fig(old->ulp_mean, a),
                      ug_fmt_fig(row->ulp_mean, b), rule);
        s->tightened++;
        x.n_hist = ug_hist_push(x.hist, 0, row->ulp_mean);
        ug_put(nb, row, x, run, o, NULL);
    } else if (v == UG_V_BETTER) {
        /* one run below the history may be luck: the row stays as it was */
        ug_buf_printf(diff, "kept %s: ulp_mean %s -> %s is better than its %s allows, not taken "
                      "from one run (a lucky run?); with --reason if the kernel improved\n",
                      row->id, ug_fmt_fig(old->ulp_mean, a), ug_fmt_fig(row->ulp_mean, b), rule);
        s->lucky++;
        ug_put(nb, old, *ox, run, o, NULL);
    } else {
        /* an honest run: into the history; the figures stay (taking each new one would let the
         * baseline drift one harmless-looking step at a time) */
        s->within_slack++;
        ug_bl_extra keep = *ox;
        keep.slack = x.slack;
        keep.n_hist = ug_hist_push(keep.hist, keep.n_hist, row->ulp_mean);
        ug_put(nb, old, keep, run, o, NULL);
    }
}

/* One row of the run that the baseline has (old, ox): into nb as the rules say (alpha: the
 * false-red budget of a nondeterministic row judged by its history). */
static void ug_update_row(ug_baseline *nb, const ug_row *old, const ug_bl_extra *ox,
                          const ug_row *row, size_t run_fp, const ug_baseline *run,
                          const ug_update_opts *o, ug_buf *diff, ug_update_summary *s,
                          double alpha)
{
    bool nondet = (old->measured && !old->deterministic) || (row->measured && !row->deterministic);
    double slack = nondet ? (ox->slack > 1.0 ? ox->slack : UG_DEFAULT_NONDET_SLACK) : 1.0;
    double new_slack = nondet && o->slack > 0 ? o->slack : slack;
    ug_bl_extra x = *ox;
    x.fp = run_fp;
    x.slack = nondet ? new_slack : 1.0;
    char why[160], changes[560];
    ug_inputs_differ(old, row, why, sizeof why);
    if (why[0]) {
        bool fails = ug_judge_status(old->status, row->status) == UG_V_WORSE;
        ug_buf_printf(diff, "%s %s: inputs changed (%s): figures replaced\n",
                      fails ? "LOOSENED" : "replaced", row->id, why);
        s->inputs_changed++;
        if (fails) s->loosened++;
        ug_put(nb, row, x, run, o, fails ? "inputs changed, status fails" : NULL);
        return;
    }
    if ((old->machine[0] || row->machine[0]) &&
        !ug_fingerprint_same_cpu(&nb->fps[ox->fp], &run->fps[0]) &&
        ug_judge_status(old->status, row->status) != UG_V_WORSE) {
        /* bits of another CPU model are no measure of these: the row keeps the figures of the
         * model it was measured on, or takes this run's where that model was not recorded */
        bool adopt = !nb->fps[ox->fp].v[UG_FP_CPU][0];
        ug_buf_printf(diff, "%s %s: machine-dependent, %s\n", adopt ? "remeasured" : "kept",
                      row->id,
                      adopt ? "the stored figures' CPU model was not recorded: this run's taken"
                            : "measured on another CPU model: the stored figures kept");
        if (adopt) {
            s->remeasured++;
            ug_put(nb, row, x, run, o, NULL);
        } else {
            s->other_cpu++;
            ug_put(nb, old, *ox, run, o, NULL);
        }
        return;
    }
    bool worse, better, within;
    ug_row_changes(old, row, slack, changes, sizeof changes, &worse, &better, &within);
    if (nondet && old->measured && row->measured) {
        char st[160] = "";
        bool st_worse = ug_judge_status(old->status, row->status) == UG_V_WORSE;
        if (old->status != row->status)
            snprintf(st, sizeof st, "status %s -> %s", ug_status_name(old->status),
                     ug_status_name(row->status));
        if (new_slack > slack) {
            snprintf(st + strlen(st), sizeof st - strlen(st), "%sslack x%g -> x%g",
                     st[0] ? ", " : "", slack, new_slack);
            st_worse = true;
        }
        ug_update_nondet(nb, old, ox, row, x, run, o, diff, s, alpha, st_worse, st);
        return;
    }
    if (new_slack != slack) {
        size_t at = strlen(changes);
        snprintf(changes + at, sizeof changes - at, "%sslack x%g -> x%g", at ? ", " : "", slack,
                 new_slack);
        worse |= new_slack > slack;
        better |= new_slack < slack;
    }
    if (worse) {
        ug_buf_printf(diff, "LOOSENED %s: %s\n", row->id, changes);
        s->loosened++;
        ug_put(nb, row, x, run, o, changes);
    } else if (better) {
        ug_buf_printf(diff, "tightened %s: %s\n", row->id, changes);
        s->tightened++;
        ug_put(nb, row, x, run, o, NULL);
    } else if (within) {
        /* a nondeterministic row inside its slack keeps its figures: taking every new maximum
         * would let the baseline drift upward one harmless-looking step at a time */
        s->within_slack++;
        ug_bl_extra keep = *ox;
        keep.slack = x.slack;
        ug_put(nb, old, keep, run, o, NULL);
    } else {
        s->unchanged++;
        ug_put(nb, row, x, run, o, NULL); /* the same figures, measured again: this fingerprint */
    }
}

/* Whether r is a check point (no measurement) of a run whose selection narrows the kernels or
 * sizes of its units (--kernel, --n, --format, --no-builtin): what such a point checks depends on
 * the kernels the run measured (a table over them; "CASE CASE", the point of a case that measured
 * nothing because the selection left out all of its kernels), so it says nothing of the whole
 * run's point.  The gate does not expect these points in a narrowed run (ug_expected_in); an
 * update neither adds nor changes them. */
static bool ug_narrowed_check(const ug_baseline *run, const ug_row *r)
{
    return !r->measured && (run->sel_kernel[0] || run->sel_n || run->sel_kernels_narrowed);
}

void ug_baseline_update(ug_baseline *bl, const ug_baseline *run, const ug_update_opts *o,
                        ug_buf *diff, ug_update_summary *s)
{
    memset(s, 0, sizeof *s);
    s->created = bl->res.count == 0;
    ug_baseline nb = {0};
    nb.is_baseline = true;
    snprintf(nb.path, sizeof nb.path, "%s", bl->path);
    snprintf(nb.device, sizeof nb.device, "%s", bl->device[0] ? bl->device : run->device);
    for (size_t f = 0; f < bl->n_fps; f++) ug_baseline_fp(&nb, &bl->fps[f]);
    size_t run_fp = ug_baseline_fp(&nb, &run->fps[0]);
    size_t *of = ug_match(bl, run);
    size_t *run_of = ug_xcalloc(bl->res.count + 1, sizeof *run_of);
    for (size_t b = 0; b < bl->res.count; b++) run_of[b] = (size_t)-1;
    for (size_t i = 0; i < run->res.count; i++)
        if (of[i] != (size_t)-1) run_of[of[i]] = i;
    /* the false-red budget of a row judged by its history, as the gate splits it */
    size_t judged = 0;
    for (size_t b = 0; b < bl->res.count; b++)
        judged += run_of[b] != (size_t)-1 && ug_hist_usable(bl->x[b].n_hist);
    double alpha = UG_GATE_FALSE_RED / 2 / (double)(judged ? judged : 1);
    /* the baseline's rows, in its order: updated, kept or pruned */
    for (size_t b = 0; b < bl->res.count; b++) {
        const ug_row *old = &bl->res.rows[b];
        ug_bl_extra ox = bl->x[b];
        ox.fp = ug_baseline_fp(&nb, &bl->fps[bl->x[b].fp]);
        if (run_of[b] != (size_t)-1 && !ug_narrowed_check(run, &run->res.rows[run_of[b]])) {
            ug_update_row(&nb, old, &ox, &run->res.rows[run_of[b]], run_fp, run, o, diff, s,
                          alpha);
        } else if (run_of[b] != (size_t)-1) {
            s->checks_left++; /* a check point of a narrowed run: the stored one stands */
            ug_put(&nb, old, ox, run, o, NULL);
        } else if (o->prune) {
            ug_buf_printf(diff, "LOOSENED %s: pruned (the run did not measure it)\n", old->id);
            s->pruned++;
            s->loosened++;
        } else {
            s->kept++;
            ug_put(&nb, old, ox, run, o, NULL);
        }
    }
    /* rows new to the baseline */
    for (size_t i = 0; i < run->res.count; i++) {
        if (of[i] != (size_t)-1) continue;
        const ug_row *r = &run->res.rows[i];
        if (ug_narrowed_check(run, r)) {
            s->checks_left++;
            continue;
        }
        bool nondet = r->measured && !r->deterministic;
        ug_bl_extra x = {.slack = nondet ? (o->slack > 0 ? o->slack : run->x[i].slack) : 1.0,
                         .fp = run_fp};
        if (nondet && x.slack < 1.0) x.slack = UG_DEFAULT_NONDET_SLACK;
        if (nondet) x.n_hist = ug_hist_push(x.hist, 0, r->ulp_mean);
        bool fails = r->status == UG_ST_FAIL || r->status == UG_ST_XPASS;
        if (fails) {
            /* a baseline that records a failure accepts it from then on: that needs a reason */
            ug_buf_printf(diff, "LOOSENED %s: added with status %s\n", r->id,
                          ug_status_name(r->status));
            s->loosened++;
        } else if (!s->created) {
            char a[32];
            ug_buf_printf(diff, "added %s", r->id);
            if (r->measured) ug_buf_printf(diff, ": ulp_max %s", ug_fmt_fig(r->ulp_max, a));
            ug_buf_printf(diff, "\n");
        }
        s->added++;
        char st[64];
        snprintf(st, sizeof st, "added with status %s", ug_status_name(r->status));
        ug_put(&nb, r, x, run, o, fails ? st : NULL);
    }
    free(of);
    free(run_of);
    s->refused = s->loosened > 0 && !(o->reason && o->reason[0]);
    if (s->refused) { /* bl stays as it was */
        ug_baseline_free(&nb);
        return;
    }
    /* the update log */
    nb.updates = ug_xcalloc(bl->n_updates + 1, sizeof *nb.updates);
    if (bl->n_updates) memcpy(nb.updates, bl->updates, bl->n_updates * sizeof *nb.updates);
    nb.n_updates = bl->n_updates;
    char summary[600];
    snprintf(summary, sizeof summary,
             "from %s: %zu added, %zu tightened, %zu loosened, %zu unchanged, "
             "%zu within slack, %zu inputs changed, %zu kept, %zu pruned",
             o->from ? o->from : "?", s->added, s->tightened, s->loosened, s->unchanged,
             s->within_slack, s->inputs_changed, s->kept, s->pruned);
    if (s->lucky)
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary),
                 "; %zu nondeterministic row%s better than %s history, not taken from one run",
                 s->lucky, s->lucky == 1 ? "" : "s", s->lucky == 1 ? "its" : "their");
    if (s->checks_left)
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary),
                 "; %zu check point%s of a narrowed run left as stored", s->checks_left,
                 s->checks_left == 1 ? "" : "s");
    if (s->remeasured || s->other_cpu)
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary),
                 "; machine-dependent rows: %zu remeasured on this CPU model, %zu kept (another "
                 "model's)", s->remeasured, s->other_cpu);
    if (s->added || s->tightened || s->loosened || s->inputs_changed || s->pruned ||
        s->remeasured)
        ug_event_make(&nb.updates[nb.n_updates++], run->git, o->reason, summary);
    ug_baseline_free(bl);
    *bl = nb;
}

void ug_baseline_log(ug_baseline *bl, const char *git, const char *reason, const char *changes)
{
    bl->updates = ug_xrealloc(bl->updates, (bl->n_updates + 1) * sizeof *bl->updates);
    ug_event_make(&bl->updates[bl->n_updates++], git, reason, changes);
}
