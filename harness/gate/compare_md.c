/*
 * compare_md.c - a comparison (compare.c) as the comment of a merge request: worst first,
 * grouped by kernel, one line a row saying what happened to it, and never more than UG_MD_LIMIT
 * bytes (GitHub refuses a comment over 65,536 characters; a character is at least one byte, so a
 * byte count is the safe side).  What does not fit is counted in a line that names the full
 * report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/escape.h"
#include "base/sys.h"
#include "harness/gate/compare.h"

/* The room kept for the last line when the comment is cut (the note and the full report's
 * name, itself cut to 400 bytes). */
enum { UG_MD_NOTE_ROOM = 900 };

/* The comment being written: what is already in out stays under limit, and once a line did not
 * fit nothing more is added (the rows left out are counted instead, so the comment is a prefix
 * of the worst-first order and never skips a bad row to show a milder one). */
typedef struct ug_md {
    ug_buf *out;
    size_t limit;
    bool full;
    size_t cut_rows;   /* rows not shown: over the byte limit or over max_rows */
} ug_md;

/* Append line (a whole line or block) if it fits; false (and the comment full) if not. */
static bool ug_md_put(ug_md *md, const ug_buf *line)
{
    if (md->full || md->out->len + line->len > md->limit) {
        md->full = true;
        return false;
    }
    ug_buf_put(md->out, ug_buf_str(line), line->len);
    return true;
}

/* An id as inline code (in list items, not tables), cut at 300 bytes (an id may be 511: the
 * comment's lines stay bounded). */
static void ug_md_id(ug_buf *out, const char *id)
{
    ug_md_code(out, id, false, 300);
}

/* ---- ordering: worst first, grouped by kernel -------------------------------------------------- */

/* One row to list.  tier: 2 a new failure (a passing row that fails, or a new row that fails),
 * 1 any other change; factor: how much worse (or better) its largest change is, >= 1, +inf for
 * a change from 0 or to inf/NaN.  The group (its kernel) takes its worst row's tier and factor. */
typedef struct ug_md_item {
    size_t at;            /* index into c->rows, or into c->now rows for a new row */
    bool new_row;
    int tier, g_tier;
    double factor, g_factor;
    const char *group;    /* the kernel (name@variant), or the case of a check row */
    const char *id;
} ug_md_item;

/* How many times worse (or better) now is than old for metric m: >= 1, +inf from 0 or to a
 * non-finite value. */
static double ug_md_factor(double old, double now, bool higher_better)
{
    double a = higher_better ? now : old, b = higher_better ? old : now; /* b worse than a */
    if (a > b) { double t = a; a = b; b = t; }
    if (!isfinite(a) || !isfinite(b) || a <= 0) return INFINITY;
    return b / a;
}

static int ug_md_item_cmp(const void *pa, const void *pb)
{
    const ug_md_item *a = pa, *b = pb;
    if (a->g_tier != b->g_tier) return b->g_tier - a->g_tier;
    if (a->g_factor != b->g_factor) return a->g_factor < b->g_factor ? 1 : -1;
    int g = strcmp(a->group, b->group);
    if (g) return g;
    if (a->tier != b->tier) return b->tier - a->tier;
    if (a->factor != b->factor) return a->factor < b->factor ? 1 : -1;
    return strcmp(a->id, b->id);
}

static int ug_md_group_cmp(const void *pa, const void *pb)
{
    const ug_md_item *a = pa, *b = pb;
    return strcmp(a->group, b->group);
}

/* Each group takes its worst row's tier and factor; then the worst-first order.  Cost: two
 * sorts, O(n log n). */
static void ug_md_order(ug_md_item *it, size_t n)
{
    qsort(it, n, sizeof *it, ug_md_group_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int t = 0;
        double f = 0;
        for (; j < n && strcmp(it[j].group, it[i].group) == 0; j++) {
            if (it[j].tier > t || (it[j].tier == t && it[j].factor > f)) {
                t = it[j].tier;
                f = it[j].factor;
            }
        }
        for (size_t k = i; k < j; k++) {
            it[k].g_tier = t;
            it[k].g_factor = f;
        }
        i = j;
    }
    qsort(it, n, sizeof *it, ug_md_item_cmp);
}

static const char *ug_md_group_of(const ug_row *r) { return r->measured ? r->kernel : r->case_name; }

/* The rows with verdict want (UG_V_WORSE: and the new rows that fail), ordered; their count in
 * *n. */
static ug_md_item *ug_md_collect(const ug_comparison *c, ug_verdict want, size_t *n)
{
    ug_md_item *it = ug_xcalloc(c->n_rows + c->n_new_failing + 1, sizeof *it);
    size_t k = 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        const ug_cmp_row *r = &c->rows[i];
        if (r->verdict != want || r->inputs[0]) continue;
        const ug_row *o = &c->base->res.rows[r->base], *nw = &c->now->res.rows[r->now];
        ug_md_item *m = &it[k++];
        m->at = i;
        m->group = ug_md_group_of(nw);
        m->id = nw->id;
        m->tier = want == UG_V_WORSE && r->status == UG_V_WORSE ? 2 : 1;
        /* by the error figures (and the bound ratio) first: a count that fell to 0 (the
         * correctly rounded outputs) is an infinite factor that would say nothing */
        m->factor = 1;
        for (int pass = 0; pass < 2 && m->factor == 1; pass++)
            for (int g = 0; g < UG_GM_COUNT && o->measured && nw->measured; g++) {
                bool error = g <= UG_GM_BOUND_RATIO_MAX;
                if (r->m[g] != want || error == (pass == 1)) continue;
                double f = ug_md_factor(ug_gated_value(o, g), ug_gated_value(nw, g),
                                        ug_gated[g].higher_better);
                if (f > m->factor) m->factor = f;
            }
    }
    for (size_t i = 0; want == UG_V_WORSE && i < c->n_new_failing; i++) {
        const ug_row *nw = &c->now->res.rows[c->new_failing[i]];
        ug_md_item *m = &it[k++];
        m->at = c->new_failing[i];
        m->new_row = true;
        m->group = ug_md_group_of(nw);
        m->id = nw->id;
        m->tier = 2;
        m->factor = INFINITY;
    }
    ug_md_order(it, k);
    *n = k;
    return it;
}

/* ---- one line a row ---------------------------------------------------------------------------- */

/* "x111", "from 0", "to inf": how a figure moved, for "error grew ..." */
static const char *ug_md_grew(double old, double now, char buf[32])
{
    if (isnan(now) || isinf(now))
        snprintf(buf, 32, "to %s", isnan(now) ? "NaN" : "inf");
    else if (old == 0 || !isfinite(old))
        snprintf(buf, 32, "from %s", old == 0 ? "0" : isnan(old) ? "NaN" : "inf");
    else
        snprintf(buf, 32, "x%.4g", now / old);
    return buf;
}

/* What happened to a row, on one line: "new failure (pass -> fail); error grew x111 (ulp_max
 * 2.379 -> 263.6); ulp_mean 0.41 -> 35.9 (x86.9); bound loosened (...)". */
static void ug_md_row_line(const ug_comparison *c, const ug_md_item *m, ug_verdict want,
                           ug_buf *b)
{
    char x[32], y[32], q[32];
    ug_buf_printf(b, "- ");
    if (m->new_row) {
        const ug_row *nw = &c->now->res.rows[m->at];
        ug_md_id(b, nw->id);
        ug_buf_printf(b, ": **new failure** (a new row, status %s)\n", ug_status_name(nw->status));
        return;
    }
    const ug_cmp_row *r = &c->rows[m->at];
    const ug_row *o = &c->base->res.rows[r->base], *nw = &c->now->res.rows[r->now];
    ug_md_id(b, nw->id);
    ug_buf_printf(b, ":");
    const char *sep = " ";
    if (r->status == want) {
        ug_buf_printf(b, "%s%s (%s -> %s)", sep,
                      want == UG_V_WORSE ? "**new failure**" : "fixed",
                      ug_status_name(o->status), ug_status_name(nw->status));
        sep = "; ";
    }
    /* the error figure that moved most first, named as what it means */
    int lead = -1;
    double lead_f = 0;
    for (int g = UG_GM_ULP_MAX; g <= UG_GM_REL_MAX && o->measured && nw->measured; g++) {
        if (r->m[g] != want) continue;
        double f = ug_md_factor(ug_gated_value(o, g), ug_gated_value(nw, g), false);
        if (lead < 0 || f > lead_f) {
            lead = g;
            lead_f = f;
        }
    }
    if (lead >= 0) {
        double a = ug_gated_value(o, lead), v = ug_gated_value(nw, lead);
        if (want == UG_V_WORSE)
            ug_buf_printf(b, "%serror grew %s (%s %s -> %s)", sep, ug_md_grew(a, v, q),
                          ug_gated[lead].name, ug_fmt_fig(a, x), ug_fmt_fig(v, y));
        else
            ug_buf_printf(b, "%serror shrank %s (%s %s -> %s)", sep, ug_fmt_ratio(a, v, q),
                          ug_gated[lead].name, ug_fmt_fig(a, x), ug_fmt_fig(v, y));
        sep = "; ";
    }
    for (int g = 0; g < UG_GM_COUNT && o->measured && nw->measured; g++) {
        if (r->m[g] != want || g == lead) continue;
        double a = ug_gated_value(o, g), v = ug_gated_value(nw, g);
        if (g == UG_GM_BOUND_RATIO_MAX && r->bound_loosened)
            ug_buf_printf(b, "%s**bound loosened** (bound_ratio_max %s -> %s, the error did not "
                             "improve)",
                          sep, ug_fmt_fig(a, x), ug_fmt_fig(v, y));
        else
            ug_buf_printf(b, "%s%s %s -> %s%s%s%s", sep, ug_gated[g].name, ug_fmt_fig(a, x),
                          ug_fmt_fig(v, y), ug_fmt_ratio(a, v, q)[0] ? " (" : "", q,
                          q[0] ? ")" : "");
        sep = "; ";
    }
    if (r->time == want && c->opts.time_slack > 0)
        ug_buf_printf(b, "%stime_ms %s -> %s (%s, gated x%g)", sep, ug_fmt_fig(o->time_ms, x),
                      ug_fmt_fig(nw->time_ms, y), ug_fmt_ratio(o->time_ms, nw->time_ms, q),
                      c->opts.time_slack);
    char rule[96], env[256];
    ug_cmp_row_rule(c, r, rule, sizeof rule);
    ug_cmp_env_names(r->env, env, sizeof env);
    ug_buf_printf(b, " %s", rule);
    if (env[0]) ug_buf_printf(b, " (environment changed: %.80s)", env);
    ug_buf_printf(b, "\n");
}

/* A section: a heading, then per kernel a line and its rows, worst first; at most max_rows rows,
 * and only what fits (the rest counted in md->cut_rows).  Cost: O(n log n). */
static void ug_md_section(ug_md *md, const ug_comparison *c, ug_verdict want, const char *title,
                          size_t max_rows)
{
    size_t n;
    ug_md_item *it = ug_md_collect(c, want, &n);
    if (!n) {
        free(it);
        return;
    }
    ug_buf line = {0};
    ug_buf_printf(&line, "#### %s (%zu)\n", title, n);
    ug_md_put(md, &line);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (shown >= max_rows || md->full) {
            md->cut_rows += n - i;
            break;
        }
        line.len = 0;
        if (i == 0 || strcmp(it[i].group, it[i - 1].group) != 0) {
            size_t g = 0;
            for (size_t j = i; j < n && strcmp(it[j].group, it[i].group) == 0; j++) g++;
            ug_buf_printf(&line, "\n**");
            ug_md_id(&line, it[i].group);
            ug_buf_printf(&line, "**: %zu row%s\n\n", g, g == 1 ? "" : "s");
        }
        ug_md_row_line(c, &it[i], want, &line);
        if (!ug_md_put(md, &line)) {
            md->cut_rows += n - i;
            break;
        }
        shown++;
    }
    line.len = 0;
    ug_buf_printf(&line, "\n");
    ug_md_put(md, &line);
    ug_buf_free(&line);
    free(it);
}

/* The rows in one side only, in a collapsed block, at most max_rows of them and what fits. */
static void ug_md_ids(ug_md *md, const ug_baseline *side, const size_t *idx, size_t n,
                      const char *title, size_t max_rows)
{
    if (!n) return;
    ug_buf line = {0};
    ug_buf_printf(&line, "<details><summary>%s (%zu)</summary>\n\n", title, n);
    bool open = ug_md_put(md, &line);
    size_t i = 0;
    for (; open && i < n && i < max_rows; i++) {
        line.len = 0;
        ug_buf_printf(&line, "- ");
        ug_md_id(&line, side->res.rows[idx[i]].id);
        ug_buf_printf(&line, "\n");
        if (!ug_md_put(md, &line)) break;
    }
    if (open) {
        /* the block is closed even when full: the room for it is in the note's reserve */
        if (i < n) ug_buf_printf(md->out, "- ... and %zu more\n", n - i);
        ug_buf_printf(md->out, "\n</details>\n\n");
    }
    ug_buf_free(&line);
}

void ug_cmp_print_markdown(const ug_comparison *c, ug_buf *out, size_t max_rows,
                           const char *full_report)
{
    /* the end of the comment first (counts, timing), so that its room is known */
    ug_buf tail = {0};
    ug_buf_printf(&tail,
                  "#### Counts\n\n| compared | regressed | improved | same | within slack | "
                  "inputs changed | only in base | only in new |\n"
                  "|---:|---:|---:|---:|---:|---:|---:|---:|\n"
                  "| %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu |\n\n",
                  c->n_rows - c->inputs_changed, c->regressed, c->improved, c->same, c->within,
                  c->inputs_changed, c->n_only_base, c->n_only_new);
    if (c->other_cpu)
        ug_buf_printf(&tail, "- %zu machine-dependent row%s (bits that depend on the CPU model) "
                      "measured on another CPU model: judged on status and bound only\n",
                      c->other_cpu, c->other_cpu == 1 ? "" : "s");
    ug_cmp_timing(c, &tail, "- ");

    size_t start = out->len;
    ug_md md = {.out = out, .limit = start + UG_MD_LIMIT - tail.len - UG_MD_NOTE_ROOM};
    ug_buf line = {0};
    size_t loosened = 0, new_fail = c->n_new_failing;
    for (size_t i = 0; i < c->n_rows; i++) {
        loosened += c->rows[i].bound_loosened && !c->rows[i].inputs[0];
        new_fail += c->rows[i].status == UG_V_WORSE && !c->rows[i].inputs[0];
    }
    size_t gone = c->n_skipped_now + c->n_vanished;
    size_t regressions = c->regressed + c->n_new_failing + gone + c->drifted;
    char what[160] = "";
    if (regressions)
        snprintf(what, sizeof what, " (%zu new failure%s, %zu bound%s loosened%s%.0zu%s)", new_fail,
                 new_fail == 1 ? "" : "s", loosened, loosened == 1 ? "" : "s",
                 gone ? ", " : "", gone, gone ? " skipped or gone" : "");
    ug_buf_printf(&line, "### ulpgate: %s%zu regression%s%s%s, %zu improvement%s%s\n\n",
                  regressions ? "**" : "", regressions, regressions == 1 ? "" : "s",
                  regressions ? "**" : "", what, c->improved, c->improved == 1 ? "" : "s",
                  c->n_refused ? "; **NEW not accepted**" : "");
    ug_buf_printf(&line, "Base ");
    ug_md_code(&line, c->base->path, false, 300);
    ug_buf_printf(&line, " (%s ", c->base->is_baseline ? "baseline" : "git");
    ug_md_text(&line, c->base->is_baseline ? c->base->device : c->base->git);
    ug_buf_printf(&line, "), new ");
    ug_md_code(&line, c->now->path, false, 300);
    ug_buf_printf(&line, " (%s ", c->now->is_baseline ? "baseline" : "git");
    ug_md_text(&line, c->now->is_baseline ? c->now->device : c->now->git);
    ug_buf_printf(&line, "). Deterministic kernels are compared exactly (error against an exact "
                         "oracle has no noise); nondeterministic ones against the history of their honest "
                         "runs (at most 1%% false red a run), or their slack where it is short.\n\n");
    for (size_t i = 0; i < c->n_refused; i++) {
        ug_buf_printf(&line, "> **Not accepted**: ");
        ug_md_text(&line, c->refused[i]);
        ug_buf_printf(&line, "\n%s", i + 1 == c->n_refused ? "\n" : ">\n");
    }
    for (size_t d = 0; d < c->n_drift; d++)
        if (c->drift[d].worse) {
            ug_buf_printf(&line, "- **kernel-wide drift** ");
            ug_md_code(&line, c->drift[d].kernel, false, 64);
            ug_buf_printf(&line, ": the ulp_mean of its %zu nondeterministic rows x%.3g of their "
                          "histories', p %.3g (flagged below %.3g)\n", c->drift[d].rows,
                          c->drift[d].ratio, c->drift[d].p, c->alpha_kernel);
            if (d + 1 == c->n_drift) ug_buf_printf(&line, "\n");
        }
    ug_md_put(&md, &line);
    line.len = 0;
    ug_cmp_env_warnings(c, &line, "> **Warning**: ", "> - ", true);
    if (c->device_differs || c->env) ug_buf_printf(&line, "\n");
    ug_md_put(&md, &line);
    if (gone) {
        line.len = 0;
        ug_buf_printf(&line, "**%zu row%s of the base skipped or gone in the new run** (a "
                             "regression: take %s out of the baseline with a reason, `ulpgate "
                             "baseline update --from NEW --prune --reason \"why\"`, if that is "
                             "meant):\n\n", gone, gone == 1 ? "" : "s", gone == 1 ? "it" : "them");
        for (size_t i = 0; i < c->n_skipped_now && i < max_rows; i++) {
            ug_buf_printf(&line, "- ");
            ug_md_id(&line, c->base->res.rows[c->skipped_now[i]].id);
            ug_buf_printf(&line, ": **skipped now** (");
            ug_md_text(&line, c->now->ran.rows[c->skip_of[i]].note);
            ug_buf_printf(&line, ")\n");
        }
        for (size_t i = 0; i < c->n_vanished && i < max_rows; i++) {
            ug_buf_printf(&line, "- ");
            ug_md_id(&line, c->base->res.rows[c->vanished[i]].id);
            ug_buf_printf(&line, ": **gone** (the new run ran its case)\n");
        }
        size_t shown = (c->n_skipped_now < max_rows ? c->n_skipped_now : max_rows) +
                       (c->n_vanished < max_rows ? c->n_vanished : max_rows);
        if (shown < gone) ug_buf_printf(&line, "- ... and %zu more\n", gone - shown);
        ug_buf_printf(&line, "\n");
        ug_md_put(&md, &line);
    }
    ug_md_section(&md, c, UG_V_WORSE, "Regressions, worst first, by kernel", max_rows);
    ug_md_section(&md, c, UG_V_BETTER, "Improvements: the baseline can be tightened", max_rows);
    ug_md_ids(&md, c->base, c->only_base, c->n_only_base, "Only in base: removed, or not run",
              max_rows);
    ug_md_ids(&md, c->now, c->only_new, c->n_only_new, "Only in new: added", max_rows);
    if (md.cut_rows || md.full) {
        if (md.full)
            ug_buf_printf(out, "**Cut to fit a comment (%d characters): %zu row%s not shown.** ",
                          UG_MD_LIMIT, md.cut_rows, md.cut_rows == 1 ? "" : "s");
        else
            ug_buf_printf(out, "**%zu row%s not shown (at most %zu a list).** ", md.cut_rows,
                          md.cut_rows == 1 ? "" : "s", max_rows);
        ug_buf_printf(out, "The full report: ");
        if (full_report && *full_report)
            ug_buf_printf(out, "%.400s\n\n", full_report);
        else
            ug_buf_printf(out, "`ulpgate compare %.150s %.150s` (every row).\n\n", c->base->path,
                          c->now->path);
    }
    ug_buf_put(out, ug_buf_str(&tail), tail.len);
    ug_buf_free(&line);
    ug_buf_free(&tail);
}
