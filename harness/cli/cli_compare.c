/*
 * cli_compare.c - `ulpgate compare BASE NEW [--fail-on-regression] [--markdown] [--all]
 *                 [--slack X] [--time-slack X] [--max-rows N] [--full-report URL]
 *                 [--explain ROW]`.
 *
 * BASE and NEW are results.json files or baselines (reports/baselines/<device>/, a folder, or a
 * single file of an older format), in any
 * combination.  Exit status: 0 (also with regressions, unless --fail-on-regression), 1 a
 * regression, a new row that fails or a NEW that is not accepted (interrupted, truncated, of
 * another device, seed or build: compare.h) with --fail-on-regression, 2 a usage or input error.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/parse.h"
#include "harness/cli/cli.h"
#include "harness/gate/compare.h"

int ug_cmd_compare(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    int n_paths = 0;
    bool fail_on_regression = false, markdown = false, all = false;
    double slack = UG_DEFAULT_NONDET_SLACK, time_slack = 0;
    long max_rows = 40;
    const char *full_report = NULL; /* named by the Markdown comment when it is cut */
    const char *explain = NULL;     /* --explain ROW: that row's judgement and history */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--fail-on-regression") == 0)
            fail_on_regression = true;
        else if (strcmp(a, "--markdown") == 0)
            markdown = true;
        else if (strcmp(a, "--all") == 0)
            all = true;
        else if (strcmp(a, "--slack") == 0 || strcmp(a, "--time-slack") == 0) {
            double x;
            if (!v) return ug_usage_error("%s needs a value", a);
            if (!ug_parse_double(v, &x) || !(x >= 1.0) || x > 1e6)
                return ug_usage_error(strcmp(a, "--slack") == 0
                                          ? "--slack: '%s' is not a factor >= 1"
                                          : "--time-slack: '%s' is not a factor >= 1",
                                      v);
            *(strcmp(a, "--slack") == 0 ? &slack : &time_slack) = x;
            i++;
        } else if (strcmp(a, "--max-rows") == 0) {
            if (!v) return ug_usage_error("%s needs a value", a);
            if (!ug_parse_int(v, 1, 100000, &max_rows))
                return ug_usage_error("--max-rows: '%s' is not a count >= 1", v);
            i++;
        } else if (strcmp(a, "--explain") == 0) {
            if (!v || !*v) return ug_usage_error("%s needs a row's id (or a glob of ids)", a);
            explain = v;
            i++;
        } else if (strcmp(a, "--full-report") == 0) {
            if (!v || !*v) return ug_usage_error("%s needs a value (a URL or a path)", a);
            full_report = v;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return ug_usage_error("compare: unknown option '%s'", a);
        } else if (n_paths < 2) {
            paths[n_paths++] = a;
        } else {
            return ug_usage_error("compare takes two files (BASE NEW); '%s' is a third", a);
        }
    }
    if (n_paths != 2) return ug_usage_error("%s", "compare needs two files: BASE (a results.json or a baseline) and NEW.json");
    ug_baseline base, now;
    char err[1200];
    if (ug_baseline_load(paths[0], slack, &base, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: compare: %s\n", err);
        return 2;
    }
    if (ug_baseline_load(paths[1], slack, &now, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: compare: %s\n", err);
        ug_baseline_free(&base);
        return 2;
    }
    ug_cmp_opts opts = {.time_slack = time_slack};
    ug_comparison c;
    ug_compare(&base, &now, &opts, &c);
    ug_buf out = {0};
    size_t explained = 0;
    if (explain)
        explained = ug_cmp_print_explain(&c, explain, &out);
    else if (markdown)
        ug_cmp_print_markdown(&c, &out, (size_t)max_rows, full_report);
    else
        ug_cmp_print_text(&c, &out, all);
    fputs(ug_buf_str(&out), stdout);
    int rc = fail_on_regression && ug_cmp_fails(&c) ? 1 : 0;
    if (explain && !explained) { /* a mistyped row is a bad argument, not an explanation */
        fprintf(stderr, "ulpgate: compare: --explain %s: no compared row matches it (a row id or "
                "a glob of them: compare --all lists them)\n", explain);
        rc = 2;
    }
    size_t regressions = c.regressed + c.drifted + c.n_new_failing + c.n_skipped_now + c.n_vanished;
    if (rc && regressions)
        fprintf(stderr, "ulpgate: compare: %zu regression%s\n", regressions,
                regressions == 1 ? "" : "s");
    for (size_t i = 0; rc && i < c.n_refused; i++)
        fprintf(stderr, "ulpgate: compare: NEW cannot pass the gate: %s\n", c.refused[i]);
    ug_buf_free(&out);
    ug_comparison_free(&c);
    ug_baseline_free(&base);
    ug_baseline_free(&now);
    return rc;
}
