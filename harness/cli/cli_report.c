/*
 * cli_report.c - `ulpgate report DIR [--baseline PATH|none]` (summary.md and index.html beside
 * DIR/results.json) and `ulpgate summary results.json [--metric M] [--width N]` (the kernel x
 * distribution table on a terminal).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "harness/cli/cli.h"
#include "harness/report/pages.h"
#include "harness/report/report_parts.h"
#include "harness/results/results_json.h"

int ug_cmd_report(int argc, char **argv)
{
    const char *dir = NULL, *baseline = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--baseline") == 0) {
            if (i + 1 >= argc)
                return ug_usage_error("%s", "--baseline needs a value (a baseline folder or file, a results.json, or none)");
            baseline = argv[++i];
        } else if (argv[i][0] == '-') {
            return ug_usage_error("report: unknown option '%s'", argv[i]);
        } else if (!dir) {
            dir = argv[i];
        } else {
            return ug_usage_error("report takes one directory; '%s' is a second", argv[i]);
        }
    }
    if (!dir) return ug_usage_error("%s", "report needs a directory holding results.json");
    return ug_report_pages(dir, baseline) == 0 ? 0 : 2;
}

int ug_cmd_summary(int argc, char **argv)
{
    const char *path = NULL;
    int metric = UG_GM_ULP_MAX;
    long width = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--metric") == 0) {
            if (!v) return ug_usage_error("%s needs a value", a);
            metric = -1;
            for (int m = UG_GM_ULP_MAX; m <= UG_GM_BOUND_RATIO_MAX; m++)
                if (strcmp(v, ug_gated[m].name) == 0) metric = m;
            if (metric < 0)
                return ug_usage_error(
                    "--metric: '%s' is not ulp_max, ulp_mean, rel_max or bound_ratio_max", v);
            i++;
        } else if (strcmp(a, "--width") == 0) {
            if (!v) return ug_usage_error("%s needs a value", a);
            if (!ug_parse_int(v, 40, 10000, &width))
                return ug_usage_error("--width: '%s' is not a width >= 40", v);
            i++;
        } else if (a[0] == '-' && a[1]) {
            return ug_usage_error("summary: unknown option '%s'", a);
        } else if (!path) {
            path = a;
        } else {
            return ug_usage_error("summary takes one results.json; '%s' is a second", a);
        }
    }
    if (!path) return ug_usage_error("%s", "summary needs a results.json");
    if (!width) {
        const char *cols = getenv("COLUMNS");
        long c;
        width = cols && ug_parse_int(cols, 40, 10000, &c) ? c : 120;
    }
    ug_results res;
    char err[1200];
    ug_json *root = ug_results_read(path, &res, err, sizeof err);
    if (!root) {
        fprintf(stderr, "ulpgate: summary: %s\n", err);
        return 2;
    }
    ug_buf out = {0};
    ug_summary_table(&res, metric, (int)width, &out);
    char lim[300];
    if (ug_meta_limits_text(ug_json_get(root, "meta"), lim, sizeof lim)[0])
        ug_buf_printf(&out, "a reduced run: %s (larger inputs skipped or cut)\n", lim);
    /* names from the file reach the terminal: no control byte but the line ends (an ESC would
     * recolour or clear it) */
    for (size_t i = 0; i < out.len; i++)
        if (((unsigned char)out.s[i] < 0x20 && out.s[i] != '\n') || out.s[i] == 0x7f) out.s[i] = '?';
    fputs(ug_buf_str(&out), stdout);
    ug_buf_free(&out);
    ug_results_free(&res);
    ug_json_free(root);
    return 0;
}
