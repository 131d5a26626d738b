/*
 * compare_print.c - a comparison (compare.c) as a terminal report and as a Markdown comment for
 * a merge request.  Both put regressions first: they are what the reader must act on.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/escape.h"
#include "base/sys.h"
#include "harness/gate/compare.h"

/* Lists of row ids in the terminal report stop here unless every row is asked for. */
enum { UG_TEXT_LIST_MAX = 100 };

const char *ug_fmt_fig(double v, char buf[32]) { return ug_fmt_double(v, "%.4g", buf, 32); }

const char *ug_fmt_ratio(double old, double now, char buf[32])
{
    buf[0] = 0;
    if (isnan(old) || isnan(now) || isinf(old) || isinf(now) || old == now) return buf;
    if (old == 0)
        snprintf(buf, 32, "from 0");
    else
        snprintf(buf, 32, "x%.3g", now / old);
    return buf;
}

static const ug_row *ug_old(const ug_comparison *c, const ug_cmp_row *r)
{
    return &c->base->res.rows[r->base];
}
static const ug_row *ug_new(const ug_comparison *c, const ug_cmp_row *r)
{
    return &c->now->res.rows[r->now];
}

/* "[deterministic: exact]" or "[nondeterministic: worst of 9 repeats, slack x2]" */
void ug_cmp_row_rule(const ug_comparison *c, const ug_cmp_row *r, char *buf, size_t len)
{
    const ug_row *n = ug_new(c, r);
    if (!n->measured)
        snprintf(buf, len, "[check: status only]");
    else if (r->hist)
        snprintf(buf, len, "[nondeterministic: history of %zu runs, p %.3g (worse below %.3g: "
                 "%g%% false red a run)]", r->hist_k, r->hist_p, c->alpha_row,
                 100 * UG_GATE_FALSE_RED);
    else if (r->other_cpu)
        snprintf(buf, len, "[machine-dependent (%s): measured on another CPU model, status and "
                 "bound only]", n->machine[0] ? n->machine : ug_old(c, r)->machine);
    else if (r->slack <= 1.0)
        snprintf(buf, len, "[deterministic%s: exact]", r->machine ? ", same CPU model" : "");
    else
        snprintf(buf, len, "[nondeterministic: worst of %d repeats, slack x%g]",
                 n->repeats ? n->repeats : 1, r->slack);
}

const char *ug_cmp_row_certainty(const ug_comparison *c, const ug_cmp_row *r)
{
    static char buf[320];
    const ug_row *n = ug_new(c, r);
    if (r->status == UG_V_WORSE)
        snprintf(buf, sizeof buf, "certain: a row that passed fails (an output beyond its bound)");
    else if (r->other_cpu)
        snprintf(buf, sizeof buf, "machine-dependent (%s): judged on status only", n->machine);
    else if (r->hist)
        snprintf(buf, sizeof buf, "nondeterministic: an honest run is this far beyond the %zu runs "
                 "of its history with probability %.3g (the rule flags below %.3g)", r->hist_k,
                 r->hist_p, c->alpha_row);
    else if (r->slack > 1.0)
        snprintf(buf, sizeof buf, "nondeterministic: beyond x%g of the baseline's figure (a history "
                 "of fewer than %d runs: no measured false-red rate; `ulpgate baseline update` "
                 "with honest runs builds one)", r->slack, UG_HIST_MIN);
    else
        snprintf(buf, sizeof buf, "certain: a deterministic%s row's bits changed",
                 r->machine ? " (same CPU model)" : "");
    return buf;
}

/* The fingerprint parts a row depends on that changed: "compiler, cflags". */
void ug_cmp_env_names(unsigned env, char *buf, size_t len)
{
    buf[0] = 0;
    for (int f = 0; f < UG_FP_NFIELDS; f++)
        if (env & (1u << f))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     ug_fp_fields[f].key);
}

/* Text from the files (ids, paths, commits, device names) as a terminal line may show it: control
 * bytes as \xNN (base/escape.h), so no ESC or newline from a results.json reaches the terminal.
 * Eight rotating buffers: one printf may hold several. */
static const char *ug_t(const char *s)
{
    static char bufs[8][1024];
    static unsigned next;
    return ug_escape(s, bufs[next++ % 8], sizeof bufs[0]);
}

static void ug_text_row(const ug_comparison *c, const ug_cmp_row *r, ug_buf *out, const char *head)
{
    const ug_row *o = ug_old(c, r), *n = ug_new(c, r);
    char rule[96], a[32], b[32], q[32];
    ug_cmp_row_rule(c, r, rule, sizeof rule);
    ug_buf_printf(out, "%s %s %s\n", head, ug_t(n->id), rule);
    if (strcmp(head, "REGRESSION") == 0) /* how sure the verdict is */
        ug_buf_printf(out, "  %s\n", ug_cmp_row_certainty(c, r));
    if (r->status != UG_V_SAME || !n->measured)
        ug_buf_printf(out, "  %-18s %12s -> %-12s %10s  %s\n", "status", ug_status_name(o->status),
                      ug_status_name(n->status), "", ug_verdict_name(r->status));
    for (int m = 0; m < UG_GM_COUNT && n->measured && o->measured; m++) {
        if (r->m[m] == UG_V_NA) continue;
        double x = ug_gated_value(o, m), y = ug_gated_value(n, m);
        bool loose = m == UG_GM_BOUND_RATIO_MAX && r->bound_loosened;
        ug_buf_printf(out, "  %-18s %12s -> %-12s %10s  %s%s\n", ug_gated[m].name, ug_fmt_fig(x, a),
                      ug_fmt_fig(y, b), ug_fmt_ratio(x, y, q), ug_verdict_name(r->m[m]),
                      loose ? " (the bound was loosened: the error did not improve)" : "");
    }
    if (r->time != UG_V_NA && c->opts.time_slack > 0)
        ug_buf_printf(out, "  %-18s %12s -> %-12s %10s  %s (gated: x%g)\n", "time_ms",
                      ug_fmt_fig(o->time_ms, a), ug_fmt_fig(n->time_ms, b),
                      ug_fmt_ratio(o->time_ms, n->time_ms, q), ug_verdict_name(r->time),
                      c->opts.time_slack);
    if (r->env) {
        char env[256];
        ug_cmp_env_names(r->env, env, sizeof env);
        ug_buf_printf(out, "  (environment changed for this row: %s)\n", env);
    }
}

static void ug_text_ids(const ug_baseline *side, const size_t *idx, size_t n, const char *title,
                        ug_buf *out, bool all)
{
    if (!n) return;
    ug_buf_printf(out, "\n%s (%zu):\n", title, n);
    for (size_t i = 0; i < n && (all || i < UG_TEXT_LIST_MAX); i++)
        ug_buf_printf(out, "  %s\n", ug_t(side->res.rows[idx[i]].id));
    if (!all && n > UG_TEXT_LIST_MAX)
        ug_buf_printf(out, "  ... and %zu more (--all lists every row)\n", n - UG_TEXT_LIST_MAX);
}

static void ug_describe_side(const ug_baseline *s, const char *label, ug_buf *out)
{
    if (s->is_baseline)
        ug_buf_printf(out, "  %s %s (baseline of %s, %zu rows, %zu update%s)\n", label, ug_t(s->path),
                      ug_t(s->device), s->res.count, s->n_updates, s->n_updates == 1 ? "" : "s");
    else
        ug_buf_printf(out, "  %s %s (run of git %s, %s, device %s, %zu rows)\n", label, ug_t(s->path),
                      s->git[0] ? ug_t(s->git) : "?", s->date[0] ? ug_t(s->date) : "?", ug_t(s->device),
                      s->res.count);
}

/* A value from a results file in a warning line: as it is in text, as inline code in Markdown
 * (a compiler string or a device name cannot add markup to a PR comment). */
static void ug_cmp_env_value(ug_buf *out, const char *v, bool md, bool quoted)
{
    if (md)
        ug_md_code(out, v, false, 200);
    else
        ug_buf_printf(out, quoted ? "'%s'" : "%s", ug_t(v));
}

/* The environment warnings, shared by both formats (prefix: "warning: " or "> **Warning**: "). */
void ug_cmp_env_warnings(const ug_comparison *c, ug_buf *out, const char *prefix,
                         const char *item, bool md)
{
    if (c->device_differs) {
        ug_buf_printf(out, "%sthe device keys differ (", prefix);
        ug_cmp_env_value(out, c->base->device, md, false);
        ug_buf_printf(out, " -> ");
        ug_cmp_env_value(out, c->now->device, md, false);
        ug_buf_printf(out, "): figures of GPU rows are not expected to match\n");
    }
    if (!c->env) return;
    ug_buf_printf(out,
                  "%sthe environment changed; figures of these rows cannot be compared "
                  "bitwise (regressions still fail: update the baseline with a reason):\n",
                  prefix);
    for (int f = 0; f < UG_FP_NFIELDS; f++) {
        if (!(c->env & (1u << f))) continue;
        ug_buf_printf(out, "%s%s: ", item, ug_fp_fields[f].key);
        ug_cmp_env_value(out, c->env_part[f].old, md, true);
        ug_buf_printf(out, " -> ");
        ug_cmp_env_value(out, c->env_part[f].now, md, true);
        ug_buf_printf(out, ": %s (%zu compared rows): %s\n", ug_scope_name(ug_fp_fields[f].scope),
                      c->env_part[f].rows, ug_fp_fields[f].why);
    }
}

static int ug_cmp_ratio_desc(const void *a, const void *b)
{
    double x = ((const double *)a)[0], y = ((const double *)b)[0];
    return (x < y) - (x > y);
}

/* A change of time is shown only beyond what the clock can tell apart: each time is a difference
 * of two clock readings, each off by up to one tick, so two times closer than two ticks may be
 * the same duration.  The tick: cudaEventElapsedTime's documented resolution, about 0.5 us, for
 * CUDA rows; clock_getres(CLOCK_MONOTONIC) of this machine (ug_now_s's clock) for CPU rows. */
bool ug_time_change_visible(const ug_row *o, const ug_row *n)
{
    double tick_ms = 5e-4;
    if (strcmp(n->backend, "cuda") != 0) {
        struct timespec res;
        tick_ms = clock_getres(CLOCK_MONOTONIC, &res) == 0
                      ? 1e3 * (double)res.tv_sec + 1e-6 * (double)res.tv_nsec
                      : 1e-3;
    }
    return fabs(n->time_ms - o->time_ms) > 2 * tick_ms;
}

/* Timing, reported: how many rows were timed on both sides, the median ratio, the 3 largest
 * slowdowns the timer can tell (ug_time_change_visible). */
void ug_cmp_timing(const ug_comparison *c, ug_buf *out, const char *item)
{
    if (!c->timed) {
        if (c->base->is_baseline) ug_buf_printf(out, "timing: not compared (a baseline keeps no timing)\n");
        return;
    }
    ug_buf_printf(out, "timing (%s): %zu rows timed on both sides, median new/base x%.3g\n",
                  c->opts.time_slack > 0 ? "gated" : "reported, not gated", c->timed,
                  c->time_ratio_median);
    double(*top)[2] = ug_xcalloc(c->n_rows + 1, sizeof *top);
    size_t k = 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        const ug_row *o = ug_old(c, &c->rows[i]), *n = ug_new(c, &c->rows[i]);
        if (o->time_ms > 0 && n->time_ms > 0 && !c->rows[i].inputs[0] && n->time_ms > o->time_ms &&
            ug_time_change_visible(o, n)) {
            top[k][0] = n->time_ms / o->time_ms;
            top[k++][1] = (double)i;
        }
    }
    qsort(top, k, sizeof *top, ug_cmp_ratio_desc);
    if (!k) ug_buf_printf(out, "%sno slowdown above the timer's resolution\n", item);
    for (size_t i = 0; i < k && i < 3; i++) {
        const ug_cmp_row *r = &c->rows[(size_t)top[i][1]];
        char a[32], b[32];
        ug_buf_printf(out, "%sx%.3g slower: %s: %s -> %s ms\n", item, top[i][0], ug_t(ug_new(c, r)->id),
                      ug_fmt_fig(ug_old(c, r)->time_ms, a), ug_fmt_fig(ug_new(c, r)->time_ms, b));
    }
    free(top);
}

void ug_cmp_print_text(const ug_comparison *c, ug_buf *out, bool all)
{
    ug_buf_printf(out, "ulpgate compare\n");
    ug_describe_side(c->base, "base:", out);
    ug_describe_side(c->now, "new: ", out);
    for (size_t i = 0; i < c->n_refused; i++) ug_buf_printf(out, "NOT ACCEPTED: %s\n", ug_t(c->refused[i]));
    ug_cmp_env_warnings(c, out, "warning: ", "  ", false);
    for (size_t i = 0; i < c->n_new_failing; i++) {
        const ug_row *n = &c->now->res.rows[c->new_failing[i]];
        ug_buf_printf(out, "\nREGRESSION (a new row that fails) %s\n  %-18s %12s -> %-12s %10s  %s\n",
                      ug_t(n->id), "status", "(none)", ug_status_name(n->status), "", "worse");
    }
    for (size_t i = 0; i < c->n_skipped_now; i++) {
        const ug_row *o = &c->base->res.rows[c->skipped_now[i]];
        const ug_row *n = &c->now->ran.rows[c->skip_of[i]];
        ug_buf_printf(out, "\nREGRESSION (skipped now: %s) %s\n  %-18s %12s -> %-12s %10s  %s\n",
                      n->note[0] ? n->note : "no reason", o->id, "status",
                      ug_status_name(o->status), "skip", "", "worse");
    }
    for (size_t i = 0; i < c->n_vanished; i++)
        ug_buf_printf(out, "\nREGRESSION (gone: NEW ran its case, the row is not there) %s\n",
                      c->base->res.rows[c->vanished[i]].id);
    if (c->n_skipped_now || c->n_vanished)
        ug_buf_printf(out, "\n%zu row%s of BASE skipped or gone in NEW: if that is meant, take "
                           "%s out of the baseline with a reason: ulpgate baseline update "
                           "--from NEW --prune --reason \"why\"\n",
                      c->n_skipped_now + c->n_vanished,
                      c->n_skipped_now + c->n_vanished == 1 ? "" : "s",
                      c->n_skipped_now + c->n_vanished == 1 ? "it" : "them");
    for (size_t d = 0; d < c->n_drift; d++)
        if (c->drift[d].worse)
            ug_buf_printf(out, "\nREGRESSION (kernel-wide drift) %s: the ulp_mean of its %zu "
                          "nondeterministic rows x%.3g of their histories' (geometric mean), "
                          "Z %.2f, p %.3g (the rule flags below %.3g: %g%% false red a run)\n",
                          ug_t(c->drift[d].kernel), c->drift[d].rows, c->drift[d].ratio,
                          c->drift[d].z, c->drift[d].p, c->alpha_kernel, 100 * UG_GATE_FALSE_RED);
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].verdict == UG_V_WORSE && !c->rows[i].inputs[0]) {
            ug_buf_printf(out, "\n");
            ug_text_row(c, &c->rows[i], out, "REGRESSION");
        }
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].verdict == UG_V_BETTER && !c->rows[i].inputs[0]) {
            ug_buf_printf(out, "\n");
            ug_text_row(c, &c->rows[i], out, "IMPROVEMENT (the baseline can be tightened)");
        }
    if (all)
        for (size_t i = 0; i < c->n_rows; i++) {
            const ug_cmp_row *r = &c->rows[i];
            if (r->inputs[0] || r->verdict == UG_V_WORSE || r->verdict == UG_V_BETTER) continue;
            ug_buf_printf(out, "\n");
            ug_text_row(c, r, out, r->verdict == UG_V_WITHIN ? "WITHIN SLACK" : "SAME");
        }
    if (c->inputs_changed) {
        ug_buf_printf(out, "\ninputs changed, not compared (%zu):\n", c->inputs_changed);
        size_t shown = 0;
        for (size_t i = 0; i < c->n_rows; i++)
            if (c->rows[i].inputs[0] && (all || shown++ < UG_TEXT_LIST_MAX))
                ug_buf_printf(out, "  %s: %s\n", ug_t(ug_new(c, &c->rows[i])->id), ug_t(c->rows[i].inputs));
    }
    ug_text_ids(c->base, c->only_base, c->n_only_base,
                "only in base (a case, kernel or size removed, or not run)", out, all);
    ug_text_ids(c->now, c->only_new, c->n_only_new, "only in new (a case, kernel or size added)",
                out, all);
    ug_buf_printf(out, "\n");
    ug_cmp_timing(c, out, "  ");
    ug_buf_printf(out,
                  "%zu rows compared: %zu regressed, %zu improved, %zu same, %zu within slack; "
                  "%zu inputs changed, %zu only in base, %zu only in new",
                  c->n_rows - c->inputs_changed, c->regressed, c->improved, c->same, c->within,
                  c->inputs_changed, c->n_only_base, c->n_only_new);
    if (c->drifted)
        ug_buf_printf(out, "; %zu kernel%s drifted beyond %s history", c->drifted,
                      c->drifted == 1 ? "" : "s", c->drifted == 1 ? "its" : "their");
    if (c->other_cpu)
        ug_buf_printf(out, "; %zu machine-dependent row%s judged on status and bound only "
                      "(another CPU model)", c->other_cpu, c->other_cpu == 1 ? "" : "s");
    if (c->n_new_failing) ug_buf_printf(out, "; %zu new rows failing", c->n_new_failing);
    if (c->n_skipped_now)
        ug_buf_printf(out, "; %zu row%s skipped now", c->n_skipped_now, c->n_skipped_now == 1 ? "" : "s");
    if (c->n_vanished)
        ug_buf_printf(out, "; %zu row%s gone", c->n_vanished, c->n_vanished == 1 ? "" : "s");
    if (c->n_refused)
        ug_buf_printf(out, "; NEW not accepted (%zu reason%s above)", c->n_refused,
                      c->n_refused == 1 ? "" : "s");
    ug_buf_printf(out, "\n");
}

size_t ug_cmp_print_explain(const ug_comparison *c, const char *glob, ug_buf *out)
{
    size_t shown = 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        const ug_cmp_row *r = &c->rows[i];
        const ug_row *o = ug_old(c, r), *n = ug_new(c, r);
        if (fnmatch(glob, n->id, 0) != 0 && strcmp(glob, n->id) != 0) continue;
        const ug_bl_extra *bx = &c->base->x[r->base];
        char rule[320], a[32], b[32];
        ug_cmp_row_rule(c, r, rule, sizeof rule);
        ug_buf_printf(out, "%s%s %s\n", shown++ ? "\n" : "", ug_t(n->id), rule);
        ug_buf_printf(out, "  verdict: %s%s\n",
                      r->inputs[0]                               ? "inputs changed, not compared: "
                      : r->hist && r->verdict == UG_V_WITHIN     ? "within its history"
                                                                 : ug_verdict_name(r->verdict),
                      r->inputs[0] ? r->inputs : "");
        if (r->verdict == UG_V_WORSE) ug_buf_printf(out, "  %s\n", ug_cmp_row_certainty(c, r));
        ug_buf_printf(out, "  status: %s -> %s\n", ug_status_name(o->status), ug_status_name(n->status));
        if (n->measured && o->measured)
            for (int m = 0; m < UG_GM_COUNT; m++)
                if (r->m[m] != UG_V_NA)
                    ug_buf_printf(out, "  %-18s %12s -> %-12s %s\n", ug_gated[m].name,
                                  ug_fmt_fig(ug_gated_value(o, m), a),
                                  ug_fmt_fig(ug_gated_value(n, m), b), ug_verdict_name(r->m[m]));
        const ug_fingerprint *fo = &c->base->fps[bx->fp];
        if (o->machine[0] || n->machine[0])
            ug_buf_printf(out, "  machine-dependent (%s): BASE measured on '%s', NEW on '%s'\n",
                          n->machine[0] ? n->machine : o->machine,
                          fo->v[UG_FP_CPU][0] ? fo->v[UG_FP_CPU] : "an unrecorded CPU model",
                          c->now->fps[c->now->x[r->now].fp].v[UG_FP_CPU][0]
                              ? c->now->fps[c->now->x[r->now].fp].v[UG_FP_CPU]
                              : "an unrecorded CPU model");
        if (o->measured && !o->deterministic) {
            ug_buf_printf(out, "  history (ulp_mean of %zu honest run%s, oldest first):", bx->n_hist,
                          bx->n_hist == 1 ? "" : "s");
            for (size_t j = 0; j < bx->n_hist; j++)
                ug_buf_printf(out, " %s", ug_fmt_fig(bx->hist[j], a));
            ug_buf_printf(out, "\n");
            if (ug_hist_usable(bx->n_hist)) {
                ug_hist_stats st;
                ug_hist_stats_of(bx->hist, bx->n_hist, &st);
                ug_buf_printf(out, "  ln(ulp_mean): mean %.4g (geometric mean %s ulp), sd %.3g "
                              "(taken as %.3g); NEW: t %.3g, p %.3g; flagged below %.3g\n",
                              st.mean, ug_fmt_fig(exp(st.mean), a), st.sd, st.sd_eff, r->hist_t,
                              r->hist_p, c->alpha_row);
            } else {
                ug_buf_printf(out, "  fewer than %d runs: judged by the slack x%g of the baseline's "
                              "figure; `ulpgate baseline update --from RUN` adds honest runs\n",
                              UG_HIST_MIN, r->slack);
            }
        }
        for (size_t e = 0; e < bx->n_loosened; e++)
            ug_buf_printf(out, "  loosened %s (%s): %s: %s\n", bx->loosened[e].date,
                          bx->loosened[e].git, ug_t(bx->loosened[e].reason),
                          ug_t(bx->loosened[e].changes));
    }
    return shown;
}
