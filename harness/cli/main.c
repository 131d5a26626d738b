/*
 * main.c - the ulpgate command line.
 *
 *   ulpgate list
 *   ulpgate run [--filter GLOB] [--kernel GLOB] [--n N] [--trial T] [--trials N] [--seed S]
 *               [--tap] [--report DIR] [--slow | --slow-only] [--oracle gpu|fast|mpfr]
 *               [--oracle-check sample|all] [--threads N]
 *   ulpgate oracle --op sum|dot [--json] [--got X] FILE
 *   ulpgate check --op sum|dot|gemm --got GOT.npy X.npy [Y.npy] [--ulp-max U] [--json] ...
 *   ulpgate hunt --kernel NAME --n N [--objective bound|ulp] [--budget S | --evals N] ...
 *   ulpgate bench oracle [--big] [--gpu] [--threads N]
 *   ulpgate compare BASE.json NEW.json [--fail-on-regression] [--markdown] [...]
 *   ulpgate baseline update|show|key [...]
 *   ulpgate report DIR [--baseline FILE|none]
 *   ulpgate summary results.json [--metric M] [--width N]
 *
 * Exit codes: 0 all passed, 1 an assertion failed, 2 usage, input or output error (message on
 * stderr); `run` also 124 (the per-case time limit) and 128 + N (stopped by signal N).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/run/guard.h"
#include "oracle/oracle.h"
#include "ug_config.h"

/* Dispatch to the subcommand; its exit status. */
static int ug_main(int argc, char **argv)
{
    if (argc < 2) return ug_usage_error("%s", "no command given");
    const char *cmd = argv[1];
    if (strcmp(cmd, "list") == 0) return ug_cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0) return ug_cmd_run(argc - 1, argv + 1, argc, argv, argv[0]);
    if (strcmp(cmd, "oracle") == 0) return ug_cmd_oracle(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0) return ug_cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "hunt") == 0) return ug_cmd_hunt(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return ug_cmd_bench_oracle(argc - 1, argv + 1);
    if (strcmp(cmd, "merge") == 0) return ug_cmd_merge(argc - 1, argv + 1);
    if (strcmp(cmd, "devices") == 0) return ug_cmd_devices(argc - 1, argv + 1);
    if (strcmp(cmd, "costs") == 0) return ug_cmd_costs(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0) return ug_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "baseline") == 0) return ug_cmd_baseline(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "report") == 0) return ug_cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "summary") == 0) return ug_cmd_summary(argc - 1, argv + 1);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(ug_usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("ulpgate %s\n", UG_VERSION);
        return 0;
    }
    return ug_usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = ug_main(argc, argv);
    /* Output that never arrived (a full disk, a closed pipe) is an error of every command: a
     * success becomes 2; a failure's own status stays (both are stated). */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        /* errno is that of the last failed write: stdio keeps trying after the first */
        if (!ug_guard_output_error())
            fprintf(stderr, "ulpgate: stdout: write error: %s\n", errno ? strerror(errno) : "output lost");
        if (rc == 0) rc = 2;
    }
    return rc;
}
