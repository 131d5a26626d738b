/*
 * pages.c - summary.md and index.html beside a results.json (see pages.h): reading the run and
 * the baseline it is compared with, then writing both pages atomically.
 */
#include "harness/report/pages.h"
#include "harness/report/report_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sys.h"
#include "harness/results/results_json.h"

/* The baseline to compare with: as asked, or this device's committed one if there is one. */
static int ug_pages_base(ug_pages_in *in, const char *baseline)
{
    char path[1024], err[1400];
    if (baseline && strcmp(baseline, "none") == 0) {
        snprintf(in->base_note, sizeof in->base_note, "no comparison asked for (--baseline none)");
        return 0;
    }
    if (baseline) {
        snprintf(path, sizeof path, "%s", baseline);
    } else {
        ug_baseline_path(ug_baseline_default_dir(), in->device, path, sizeof path);
        if (access(path, F_OK) != 0) {
            snprintf(in->base_note, sizeof in->base_note,
                     "no baseline for %s (%s): create it with `ulpgate baseline update --reason "
                     "\"initial baseline\"`",
                     in->device, path);
            return 0;
        }
    }
    /* the row files of the case groups the run ran: the rows it can be compared with (a run of
     * reduce/normal reads reduce.json, not the 20 other files: ~0.5 s less a --report) */
    /* (the units, and the case of every row: a run's own points, "coverage ...", have no unit) */
    const ug_results *ran = &in->now.ran, *res = &in->now.res;
    const char **units = ug_xcalloc(ran->n_units + ran->count + res->count + 1, sizeof *units);
    size_t nu = 0;
    for (size_t u = 0; u < ran->n_units; u++) units[nu++] = ran->units[u].name;
    for (size_t i = 0; i < ran->count; i++) units[nu++] = ran->rows[i].case_name;
    for (size_t i = 0; i < res->count; i++) units[nu++] = res->rows[i].case_name;
    int rc = ug_baseline_load_groups(path, UG_DEFAULT_NONDET_SLACK, units, nu, &in->base, err,
                                     sizeof err);
    free(units);
    if (rc != 0) {
        fprintf(stderr, "ulpgate: report: %s\n", err);
        return -1;
    }
    in->have_base = true;
    ug_compare(&in->base, &in->now, NULL, &in->cmp);
    return 0;
}

static int ug_pages_write(const char *dir, const char *name, const ug_buf *text)
{
    char path[1200], err[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (ug_write_atomic(path, ug_buf_str(text), text->len, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: report: %s\n", err);
        return -1;
    }
    fprintf(stderr, "ulpgate: report written to %s\n", path);
    return 0;
}

/* The last lines of a run with --report, on the terminal: what the gate said of the run against
 * its baseline, why rows were skipped, and what to do next (open the report, update the
 * baseline, or nothing). */
static void ug_pages_tell(const ug_pages_in *in, const char *dir)
{
    const ug_comparison *c = &in->cmp;
    if (!in->have_base) {
        fprintf(stderr, "ulpgate: gate: %s\n", in->base_note);
    } else {
        size_t gone = c->n_skipped_now + c->n_vanished;
        size_t bad = c->regressed + c->drifted + c->n_new_failing + gone;
        fprintf(stderr, "ulpgate: gate: against %s: %zu rows compared, %zu regressed, %zu "
                        "improved", c->base->path, c->n_rows - c->inputs_changed, c->regressed,
                c->improved);
        if (c->drifted) fprintf(stderr, ", %zu kernel%s drifted", c->drifted, c->drifted == 1 ? "" : "s");
        if (c->n_new_failing) fprintf(stderr, ", %zu new rows failing", c->n_new_failing);
        if (gone) fprintf(stderr, ", %zu skipped now or gone", gone);
        if (c->other_cpu)
            fprintf(stderr, "; %zu machine-dependent rows judged on status only (another CPU "
                            "model)", c->other_cpu);
        fprintf(stderr, "%s\n", c->n_refused ? "; NOT ACCEPTED" : "");
        for (size_t i = 0; i < c->n_refused; i++)
            fprintf(stderr, "ulpgate: gate: not accepted: %s\n", c->refused[i]);
        if (bad || c->n_refused)
            fprintf(stderr, "ulpgate: next: read the regressions in %s/summary.md (or `ulpgate "
                            "compare %s %s/results.json`); a change meant to loosen them: "
                            "`ulpgate baseline update --from %s/results.json --reason \"why\"`\n",
                    dir, c->base->path, dir, dir);
        else if (c->improved)
            fprintf(stderr, "ulpgate: next: the baseline can be tightened: `ulpgate baseline "
                            "update --from %s/results.json`\n", dir);
        else
            fprintf(stderr, "ulpgate: next: nothing to do for the gate\n");
    }
    /* the skips, by reason: the three most common */
    const ug_results *ran = &in->now.ran;
    size_t n_skip = 0, top_n[3] = {0, 0, 0};
    const char *top[3] = {NULL, NULL, NULL};
    for (size_t i = 0; i < ran->count; i++) {
        if (ran->rows[i].status != UG_ST_SKIP) continue;
        n_skip++;
        const char *why = ran->rows[i].note;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = ran->rows[j].status == UG_ST_SKIP && strcmp(ran->rows[j].note, why) == 0;
        if (seen) continue;
        size_t cnt = 0;
        for (size_t j = i; j < ran->count; j++)
            cnt += ran->rows[j].status == UG_ST_SKIP && strcmp(ran->rows[j].note, why) == 0;
        for (int t = 0; t < 3; t++)
            if (cnt > top_n[t]) {
                for (int u = 2; u > t; u--) top_n[u] = top_n[u - 1], top[u] = top[u - 1];
                top_n[t] = cnt, top[t] = why;
                break;
            }
    }
    if (n_skip) {
        fprintf(stderr, "ulpgate: skipped %zu:", n_skip);
        for (int t = 0; t < 3 && top[t]; t++)
            fprintf(stderr, "%s %zu %.160s", t ? ";" : "", top_n[t], top[t][0] ? top[t] : "(no reason)");
        fprintf(stderr, "\n");
    }
}

int ug_report_pages(const char *dir, const char *baseline)
{
    char path[1200], err[1400];
    ug_pages_in in;
    memset(&in, 0, sizeof in);
    in.dir = dir;
    ug_buf md = {0}, html = {0};
    int rc = -1;
    snprintf(path, sizeof path, "%s/results.json", dir);
    in.root = ug_results_read(path, &in.all, err, sizeof err);
    if (!in.root) {
        fprintf(stderr, "ulpgate: report: %s\n", err);
        return -1;
    }
    in.meta = ug_json_get(in.root, "meta");
    ug_device_key(in.meta, in.device, sizeof in.device);
    if (ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, &in.now, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: report: %s\n", err);
        goto done;
    }
    if (ug_pages_base(&in, baseline) != 0) goto done;
    ug_report_md(&in, &md);
    ug_report_html(&in, &html);
    if (ug_pages_write(dir, "summary.md", &md) != 0 ||
        ug_pages_write(dir, "index.html", &html) != 0)
        goto done;
    ug_pages_tell(&in, dir);
    rc = 0;
done:
    ug_buf_free(&md);
    ug_buf_free(&html);
    if (in.have_base) {
        ug_comparison_free(&in.cmp);
        ug_baseline_free(&in.base);
    }
    ug_baseline_free(&in.now);
    ug_results_free(&in.all);
    ug_json_free(in.root);
    return rc;
}
