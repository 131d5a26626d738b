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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/par.h"
#include "cli.h"
#include "runner.h"
#include "ug_config.h"

/* A fixed default seed: a plain `meson test` is reproducible; --seed replays any run. */
#define UG_DEFAULT_SEED 0x5eedull

static const char ug_usage[] =
    "usage: ulpgate list\n"
    "       ulpgate run [options]      run the cases (all but canaries and slow ones by default)\n"
    "       ulpgate oracle --op sum|dot [--json] [--got X] [--oracle fast|mpfr] FILE\n"
    "       ulpgate bench oracle [--big] [--threads N]\n"
    "run options:\n"
    "  --filter GLOB    cases whose name matches (e.g. 'reduce/*'); naming a canary runs it\n"
    "  --kernel GLOB    kernels whose name matches\n"
    "  --n N            only size N\n"
    "  --trial T        only trial T (its inputs are the same as in a full run)\n"
    "  --trials N       N trials instead of each case's own count\n"
    "  --seed S         seed (decimal or 0x hex; default 0x5eed); printed at the start\n"
    "  --tap            strict TAP on stdout (for meson)\n"
    "  --report DIR     write DIR/results.json\n"
    "  --slow           include the slow cases; --slow-only: only them\n"
    "  --oracle K       fast (default) or mpfr\n"
    "  --threads N      oracle threads (default: all cores)\n";

static int ug_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ulpgate: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", ug_usage);
    return 2;
}

static int ug_parse_oracle(const char *s, ug_oracle_kind *k)
{
    if (strcmp(s, "fast") == 0) *k = UG_ORACLE_FAST;
    else if (strcmp(s, "mpfr") == 0) *k = UG_ORACLE_MPFR;
    else return -1;
    return 0;
}

static int ug_cmd_run(int argc, char **argv, int full_argc, char **full_argv, const char *argv0)
{
    ug_options o = {0};
    o.argv0 = argv0;
    o.trial = -1;
    o.seed = UG_DEFAULT_SEED;
    o.progress = isatty(2);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (strcmp(a, "--tap") == 0) { o.tap = true; takes = false; }
        else if (strcmp(a, "--slow") == 0) { o.slow = true; takes = false; }
        else if (strcmp(a, "--slow-only") == 0) { o.slow_only = true; takes = false; }
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { fputs(ug_usage, stdout); return 0; }
        else if (!v && (strcmp(a, "--filter") == 0 || strcmp(a, "--kernel") == 0 || strcmp(a, "--n") == 0 ||
                        strcmp(a, "--trial") == 0 || strcmp(a, "--trials") == 0 || strcmp(a, "--seed") == 0 ||
                        strcmp(a, "--report") == 0 || strcmp(a, "--oracle") == 0 || strcmp(a, "--threads") == 0))
            return ug_usage_error("%s needs a value", a);
        else if (strcmp(a, "--filter") == 0) o.filter = v;
        else if (strcmp(a, "--kernel") == 0) o.kernel = v;
        else if (strcmp(a, "--report") == 0) o.report_dir = v;
        else if (strcmp(a, "--n") == 0) {
            if (!ug_parse_size(v, &o.n) || o.n == 0) return ug_usage_error("--n: '%s' is not a size >= 1", v);
        } else if (strcmp(a, "--trial") == 0) {
            if (!ug_parse_int(v, 0, 1L << 30, &o.trial)) return ug_usage_error("--trial: '%s' is not a trial index >= 0", v);
        } else if (strcmp(a, "--trials") == 0) {
            long n;
            if (!ug_parse_int(v, 1, 1L << 24, &n)) return ug_usage_error("--trials: '%s' is not a count >= 1", v);
            o.trials = (int)n;
        } else if (strcmp(a, "--seed") == 0) {
            if (!ug_parse_u64(v, &o.seed)) return ug_usage_error("--seed: '%s' is not a number (decimal or 0x hex)", v);
        } else if (strcmp(a, "--oracle") == 0) {
            if (ug_parse_oracle(v, &o.oracle) != 0) return ug_usage_error("--oracle: '%s' is not fast or mpfr", v);
        } else if (strcmp(a, "--threads") == 0) {
            long n;
            if (!ug_parse_int(v, 1, 4096, &n)) return ug_usage_error("--threads: '%s' is not a count >= 1", v);
            o.threads = (int)n;
        } else
            return ug_usage_error("unknown option '%s'", a);
        if (takes) i++;
    }
    if (o.tap) o.progress = false;
    ug_oracle_select(o.oracle);
    ug_par_set_threads(o.threads);
    ug_dist_set_threads(o.threads); /* results do not depend on it: speed only */
    return ug_run(&o, full_argc, full_argv);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) return ug_usage_error("%s", "no command given");
    const char *cmd = argv[1];
    if (strcmp(cmd, "list") == 0) {
        if (argc > 2) return ug_usage_error("list takes no arguments (got '%s')", argv[2]);
        return ug_list();
    }
    if (strcmp(cmd, "run") == 0) return ug_cmd_run(argc - 1, argv + 1, argc, argv, argv[0]);
    if (strcmp(cmd, "oracle") == 0) return ug_cmd_oracle(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return ug_cmd_bench_oracle(argc - 1, argv + 1);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(ug_usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("ulpgate %s\n", UG_VERSION);
        return 0;
    }
    return ug_usage_error("unknown command '%s'", cmd);
}
