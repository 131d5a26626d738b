/* cli_usage.c - the usage text every subcommand shares, and how a usage error is reported. */
#include <stdio.h>

#include "base/escape.h"
#include "cli.h"

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
    "  --threads N      threads for the oracle and input generation (default: all cores)\n"
    "  --timeout S      per-case time limit in seconds: a case still running after S seconds\n"
    "                   fails, the run ends there (exit 124) with its report\n";

int ug_usage_error(const char *fmt, const char *arg)
{
    char safe[1024]; /* an argument's control bytes never reach the terminal raw */
    fprintf(stderr, "ulpgate: ");
    fprintf(stderr, fmt, arg ? ug_escape(arg, safe, sizeof safe) : arg);
    fprintf(stderr, "\n%s", ug_usage_text);
    return 2;
}
