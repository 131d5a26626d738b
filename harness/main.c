/*
 * main.c - the ulpgate command line.
 *
 *   ulpgate list
 *   ulpgate run [--filter GLOB] [--kernel GLOB] [--n N] [--trial T] [--trials N] [--seed S]
 *               [--tap] [--report DIR] [--slow | --slow-only] [--oracle fast|mpfr] [--threads N]
 *   ulpgate oracle --op sum|dot [--json] [--got X] FILE
 *   ulpgate bench oracle [--big] [--threads N]
 *
 * Exit codes: 0 all passed, 1 an assertion failed, 2 usage or input error (message on stderr).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "oracle.h"
#include "ug_config.h"

const char ug_usage_text[] =
    "usage: ulpgate list\n"
    "       ulpgate run [options]      run the cases (all but canaries and slow ones by default)\n"
    "       ulpgate oracle --op sum|dot [--json] [--got X] [--oracle fast|mpfr] FILE\n"
    "       ulpgate bench oracle [--big] [--threads N]\n"
    "run options:\n"
    "  --filter GLOB    cases whose name matches (e.g. 'reduce/*'); naming a canary runs it\n"
    "  --kernel GLOB    kernels whose name (or name@variant) matches\n"
    "  --n N            only size N\n"
    "  --trial T        only trial T (its inputs are the same as in a full run)\n"
    "  --trials N       N trials instead of each case's own count\n"
    "  --seed S         seed (decimal or 0x hex; default 0x5eed); printed at the start\n"
    "  --tap            strict TAP on stdout (for meson)\n"
    "  --report DIR     write DIR/results.json\n"
    "  --slow           include the slow cases; --slow-only: only them\n"
    "  --oracle K       fast (default) or mpfr\n"
    "  --threads N      threads for the oracle and input generation (default: all cores)\n";

int ug_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ulpgate: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", ug_usage_text);
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) return ug_usage_error("%s", "no command given");
    const char *cmd = argv[1];
    if (strcmp(cmd, "list") == 0) return ug_cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0) return ug_cmd_run(argc - 1, argv + 1, argc, argv, argv[0]);
    if (strcmp(cmd, "oracle") == 0) return ug_cmd_oracle(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return ug_cmd_bench_oracle(argc - 1, argv + 1);
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
