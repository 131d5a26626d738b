/*
 * cli_run.c - `ulpgate run`: its options, the run, the report.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/par.h"
#include "base/parse.h"
#include "cli.h"
#include "base/sys.h"
#include "gpu.h"
#include "pages.h"
#include "run.h"
#include "shard.h"
#include "ug.h"
#include "workers.h"

/* A fixed default seed: a plain `meson test` is reproducible; --seed replays any run. */
#define UG_DEFAULT_SEED 0x5eedull
enum { UG_MAX_CORPUS_DIRS = 16 };

static int ug_parse_oracle(const char *s, ug_oracle_kind *k)
{
    if (strcmp(s, "fast") == 0) *k = UG_ORACLE_FAST;
    else if (strcmp(s, "mpfr") == 0) *k = UG_ORACLE_MPFR;
    else if (strcmp(s, "gpu") == 0) *k = UG_ORACLE_GPU;
    else return -1;
    return 0;
}

/* Options that take a value. */
static bool ug_run_takes_value(const char *a)
{
    static const char *const names[] = {"--filter", "--kernel", "--n", "--trial", "--trials",
                                        "--seed", "--report", "--oracle", "--threads", "--shard",
                                        "--gpus", "--corpus", "--oracle-check"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(a, names[i]) == 0) return true;
    return false;
}

/* Parse argv (argv[0] = "run") into o; 0, or the exit status of a usage error (2) or --help (0,
 * with *done set). */
static int ug_run_parse(int argc, char **argv, ug_options *o, bool *done, const char **gpus)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--tap") == 0) { o->tap = true; continue; }
        if (strcmp(a, "--slow") == 0) { o->slow = true; continue; }
        if (strcmp(a, "--slow-only") == 0) { o->slow_only = true; continue; }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(ug_usage_text, stdout);
            *done = true;
            return 0;
        }
        if (!ug_run_takes_value(a)) return ug_usage_error("unknown option '%s'", a);
        if (!v) return ug_usage_error("%s needs a value", a);
        i++;
        long l;
        if (strcmp(a, "--filter") == 0) o->filter = v;
        else if (strcmp(a, "--kernel") == 0) o->kernel = v;
        else if (strcmp(a, "--report") == 0) o->report_dir = v;
        else if (strcmp(a, "--corpus") == 0) {
            static const char *dirs[UG_MAX_CORPUS_DIRS];
            if (o->n_corpus_dirs == UG_MAX_CORPUS_DIRS) return ug_usage_error("--corpus: more than %s directories", "16");
            dirs[o->n_corpus_dirs++] = v;
            o->corpus_dirs = dirs;
        }
        else if (strcmp(a, "--n") == 0) {
            if (!ug_parse_size(v, &o->n) || o->n == 0) return ug_usage_error("--n: '%s' is not a size >= 1", v);
        } else if (strcmp(a, "--trial") == 0) {
            if (!ug_parse_int(v, 0, 1L << 30, &o->trial)) return ug_usage_error("--trial: '%s' is not a trial index >= 0", v);
        } else if (strcmp(a, "--trials") == 0) {
            if (!ug_parse_int(v, 1, 1L << 24, &l)) return ug_usage_error("--trials: '%s' is not a count >= 1", v);
            o->trials = (int)l;
        } else if (strcmp(a, "--seed") == 0) {
            if (!ug_parse_u64(v, &o->seed)) return ug_usage_error("--seed: '%s' is not a number (decimal or 0x hex)", v);
        } else if (strcmp(a, "--oracle") == 0) {
            if (ug_parse_oracle(v, &o->oracle) != 0) return ug_usage_error("--oracle: '%s' is not gpu, fast or mpfr", v);
            o->oracle_set = true;
        } else if (strcmp(a, "--oracle-check") == 0) {
            if (strcmp(v, "all") != 0 && strcmp(v, "sample") != 0) return ug_usage_error("--oracle-check: '%s' is not all or sample", v);
            o->oracle_check_all = strcmp(v, "all") == 0;
        } else if (strcmp(a, "--shard") == 0) {
            if (!ug_shard_parse(v, &o->shard_k, &o->shard_n))
                return ug_usage_error("--shard: '%s' is not K/N with 0 <= K < N <= 4096", v);
        } else if (strcmp(a, "--gpus") == 0) {
            *gpus = v;
        } else if (strcmp(a, "--threads") == 0) {
            if (!ug_parse_int(v, 1, 4096, &l)) return ug_usage_error("--threads: '%s' is not a count >= 1", v);
            ug_par_set_threads((int)l);
        }
    }
    return 0;
}

int ug_cmd_run(int argc, char **argv, int full_argc, char **full_argv, const char *argv0)
{
    ug_options o = {0};
    o.argv0 = argv0;
    o.trial = -1;
    o.seed = UG_DEFAULT_SEED;
    o.progress = isatty(2);
    bool done = false;
    const char *gpus = NULL;
    int rc = ug_run_parse(argc, argv, &o, &done, &gpus);
    if (rc != 0 || done) return rc;
    if (gpus) {
        if (o.shard_n) return ug_usage_error("%s", "--gpus hands out shards itself: no --shard with it");
        /* the workers get the same options, less what the parent does itself */
        char **args = ug_xcalloc((size_t)argc, sizeof *args);
        int nargs = 0;
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "--gpus") == 0 || strcmp(argv[i], "--report") == 0) {
                i++;
                continue;
            }
            if (strcmp(argv[i], "--tap") == 0) continue;
            args[nargs++] = argv[i];
        }
        rc = ug_run_workers(gpus, 2, args, nargs, o.report_dir, stdout);
        free(args);
        return rc;
    }
    if (o.tap) o.progress = false;
    if (o.oracle == UG_ORACLE_GPU) { /* the device the harness probes (and selects) first */
        char why[300];
        if (ug_gpu_oracle() == &ug_gpu_oracle_cuda) ug_gpu_available();
        if (!ug_gpu_oracle_available(why, sizeof why)) return ug_usage_error("--oracle gpu: %s", why);
    }
    ug_oracle_select(o.oracle);
    ug_results res = {0};
    rc = ug_run(&o, &res, stdout);
    if (rc != 2 && o.report_dir && ug_report_write(&o, &res, full_argc, full_argv) != 0) rc = 2;
    /* summary.md and index.html beside results.json (harness/pages.h) */
    if (rc != 2 && o.report_dir && ug_report_pages(o.report_dir, NULL) != 0) rc = 2;
    ug_results_free(&res);
    return rc;
}
