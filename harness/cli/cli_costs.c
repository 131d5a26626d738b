/*
 * cli_costs.c - `ulpgate costs RESULTS.json...`: the unit cost table that --shard balances with
 * (harness/run/shard.c), from the unit wall times of one or more reports (the largest time of each
 * unit), as JSON on stdout: commit it as reports/unit_costs.json.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/sys.h"
#include "harness/cli/cli.h"
#include "harness/results/results_json.h"

int ug_cmd_costs(int argc, char **argv)
{
    if (argc < 2) return ug_usage_error("%s", "costs needs at least one results.json");
    ug_results all = {0};
    char err[4400];
    for (int i = 1; i < argc; i++) {
        ug_results res;
        ug_json *root = ug_results_read(argv[i], &res, err, sizeof err);
        if (!root) {
            fprintf(stderr, "ulpgate costs: %s\n", err);
            ug_results_free(&all);
            return 2;
        }
        for (size_t u = 0; u < res.n_units; u++) {
            size_t j = 0;
            while (j < all.n_units && strcmp(all.units[j].name, res.units[u].name) != 0) j++;
            if (j == all.n_units)
                ug_results_add_unit(&all, res.units[u].name, res.units[u].seconds);
            else if (res.units[u].seconds > all.units[j].seconds)
                all.units[j].seconds = res.units[u].seconds;
        }
        ug_json_free(root);
        ug_results_free(&res);
    }
    ug_buf b = {0};
    ug_buf_printf(&b, "{\"about\":\"unit wall times in seconds (ulpgate costs); --shard balances by them\",\n\"units\":{");
    for (size_t u = 0; u < all.n_units; u++) {
        ug_buf_printf(&b, "%s\n", u ? "," : "");
        ug_buf_json_str(&b, all.units[u].name);
        ug_buf_printf(&b, ":%.3f", all.units[u].seconds < 0.001 ? 0.001 : all.units[u].seconds);
    }
    ug_buf_printf(&b, "\n}}\n");
    fputs(ug_buf_str(&b), stdout);
    ug_buf_free(&b);
    ug_results_free(&all);
    return ferror(stdout) ? 2 : 0;
}
