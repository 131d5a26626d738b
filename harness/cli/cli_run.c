/*
 * cli_run.c - `ulpgate run`: its options, the run, the report.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/par.h"
#include "base/parse.h"
#include "harness/cli/cli.h"
#include "kernels/plugin.h"
#include "harness/run/guard.h"
#include "harness/measure/run_limits.h"
#include "base/sys.h"
#include "oracle/gpu.h"
#include "harness/report/pages.h"
#include "harness/run/run.h"
#include "harness/run/shard.h"
#include "harness/inputs/xfail_file.h"
#include "harness/run/ug.h"
#include "harness/scale/workers.h"

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
    static const char *const names[] = {"--filter", "--kernel", "--format", "--n", "--trial", "--trials",
                                        "--seed", "--report", "--oracle", "--threads", "--shard",
                                        "--gpus", "--corpus", "--oracle-check", "--timeout",
                                        "--xfail"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(a, names[i]) == 0) return true;
    return false;
}

/* The longest --report directory: DIR/results.json.tmp.PID must stay below PATH_MAX (4096). */
#define UG_REPORT_DIR_MAX (4095 - sizeof "/results.json.tmp.-2147483648" + 1)

int ug_run_options_parse(int argc, char **argv, ug_options *o, ug_run_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--tap") == 0) { o->tap = true; continue; }
        if (strcmp(arg, "--slow") == 0) { o->slow = true; continue; }
        if (strcmp(arg, "--detail") == 0) { ug_results_detail = true; continue; }
        if (strcmp(arg, "--slow-only") == 0) { o->slow_only = true; continue; }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            a->help = true;
            return 0;
        }
        if (!ug_run_takes_value(arg)) return ug_usage_error("unknown option '%s'", arg);
        if (!v) return ug_usage_error("%s needs a value", arg);
        i++;
        long l;
        if (strcmp(arg, "--filter") == 0) o->filter = v;
        else if (strcmp(arg, "--kernel") == 0) o->kernel = v;
        else if (strcmp(arg, "--format") == 0) {
            o->format = ug_fmt_parse(v);
            o->format_set = true;
            if (o->format == UG_FMT_COUNT)
                return ug_usage_error("--format: '%s' is not a format (f32 f64 tf32 f16 bf16 e4m3 "
                                      "e5m2 e3m2 e2m3 e2m1)", v);
        }
        else if (strcmp(arg, "--report") == 0) {
            if (!*v) return ug_usage_error("%s", "--report: an empty directory name");
            if (strlen(v) > UG_REPORT_DIR_MAX) {
                fprintf(stderr, "ulpgate: --report: the directory name is %zu characters long; "
                                "at most %zu fit a path (PATH_MAX 4096 with /results.json)\n",
                        strlen(v), (size_t)UG_REPORT_DIR_MAX);
                return 2;
            }
            o->report_dir = v;
        } else if (strcmp(arg, "--corpus") == 0) {
            static const char *dirs[UG_MAX_CORPUS_DIRS];
            if (o->n_corpus_dirs == UG_MAX_CORPUS_DIRS)
                return ug_usage_error("--corpus: more than %s directories", "16");
            dirs[o->n_corpus_dirs++] = v;
            o->corpus_dirs = dirs;
        } else if (strcmp(arg, "--n") == 0) {
            if (!ug_parse_size(v, &o->n) || o->n == 0) return ug_usage_error("--n: '%s' is not a size >= 1", v);
        } else if (strcmp(arg, "--trial") == 0) {
            if (!ug_parse_int(v, 0, 1L << 30, &o->trial)) return ug_usage_error("--trial: '%s' is not a trial index >= 0", v);
        } else if (strcmp(arg, "--trials") == 0) {
            if (!ug_parse_int(v, 1, 1L << 24, &l)) return ug_usage_error("--trials: '%s' is not a count >= 1", v);
            o->trials = (int)l;
        } else if (strcmp(arg, "--seed") == 0) {
            if (!ug_parse_u64(v, &o->seed)) return ug_usage_error("--seed: '%s' is not a number (decimal or 0x hex)", v);
        } else if (strcmp(arg, "--oracle") == 0) {
            if (ug_parse_oracle(v, &o->oracle) != 0) return ug_usage_error("--oracle: '%s' is not gpu, fast or mpfr", v);
            o->oracle_set = true;
        } else if (strcmp(arg, "--oracle-check") == 0) {
            if (strcmp(v, "all") != 0 && strcmp(v, "sample") != 0) return ug_usage_error("--oracle-check: '%s' is not all or sample", v);
            o->oracle_check_all = strcmp(v, "all") == 0;
        } else if (strcmp(arg, "--shard") == 0) {
            if (!ug_shard_parse(v, &o->shard_k, &o->shard_n))
                return ug_usage_error("--shard: '%s' is not K/N with 0 <= K < N <= 4096", v);
        } else if (strcmp(arg, "--xfail") == 0) {
            if (o->xfail_file) return ug_usage_error("%s", "--xfail: given twice (one file)");
            o->xfail_file = v;
        } else if (strcmp(arg, "--gpus") == 0) {
            a->gpus = v;
        } else if (strcmp(arg, "--threads") == 0) {
            if (!ug_parse_int(v, 1, 4096, &l)) return ug_usage_error("--threads: '%s' is not a count >= 1", v);
            a->threads = (int)l;
        } else if (strcmp(arg, "--timeout") == 0) {
            double d;
            if (!ug_parse_double(v, &d) || !(d > 0 && d <= 1e6))
                return ug_usage_error("--timeout: '%s' is not a number of seconds in (0, 1e6]", v);
            a->timeout_s = d;
        }
    }
    return 0;
}

/* After ug_run (rc its status): the report, and the exit status.  An interrupted run reports
 * what it measured, marked so, and exits 128 + the signal (2 after a stdout error that stopped
 * it); a run that failed exits 1 whatever else went wrong (a report error is stated beside it);
 * a report error alone exits 2.  A usage error (rc 2, nothing ran) writes no report. */
static int ug_run_finish(const ug_options *o, ug_results *res, int rc, int argc, char **argv)
{
    int stop = ug_guard_status();
    bool report_failed = false;
    if (o->report_dir && (stop || rc != 2))
        report_failed = ug_report_write(o, res, argc, argv) != 0 ||
                        /* summary.md and index.html beside results.json (harness/report/pages.h) */
                        ug_report_pages(o->report_dir, NULL) != 0;
    else if (o->report_dir)
        ug_report_abandon(o->report_dir); /* nothing ran: the folder's files are as they were */
    if (stop) return stop;
    if (rc == 1 && report_failed)
        fprintf(stderr, "ulpgate: no report was written, and test points failed (exit status 1)\n");
    return rc == 0 && report_failed ? 2 : rc;
}

int ug_cmd_run(int argc, char **argv, int full_argc, char **full_argv, const char *argv0)
{
    ug_options o = {0};
    o.argv0 = argv0;
    o.trial = -1;
    o.seed = UG_DEFAULT_SEED;
    o.progress = isatty(2);
    ug_run_args a = {0};
    int rc = ug_run_options_parse(argc, argv, &o, &a);
    if (rc != 0) return rc;
    if (o.xfail_file && (rc = ug_xfail_file_load(o.xfail_file)) != 0) return rc;
    /* the plugins' own cases: their corpus folders, after the --corpus ones */
    static const char *dirs_all[2 * UG_MAX_CORPUS_DIRS];
    size_t nd = 0;
    for (size_t i = 0; i < o.n_corpus_dirs; i++) dirs_all[nd++] = o.corpus_dirs[i];
    /* (a rerun line names a plugin's folder as --corpus too: once is enough) */
    for (size_t i = 0, j; ug_plugin_corpus_at(i) && nd < 2 * UG_MAX_CORPUS_DIRS; i++) {
        for (j = 0; j < o.n_corpus_dirs && strcmp(o.corpus_dirs[j], ug_plugin_corpus_at(i)) != 0; j++) {}
        if (j == o.n_corpus_dirs) dirs_all[nd++] = ug_plugin_corpus_at(i);
    }
    o.corpus_dirs = dirs_all;
    o.n_corpus_dirs = nd;
    if (a.help) {
        fputs(ug_usage_text, stdout);
        return 0;
    }
    if (a.threads) ug_par_set_threads(a.threads);
    /* refused before anything runs: more trials than memory holds, a report nowhere to go */
    if ((rc = ug_limits_check_options(o.n, o.trial, o.trials)) != 0) return rc;
    if (o.report_dir && ug_report_check(o.report_dir, full_argc, full_argv) != 0) return 2;
    if (a.gpus) {
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
        rc = ug_run_workers(a.gpus, 2, args, nargs, o.report_dir, o.tap, stdout);
        free(args);
        if (o.report_dir) ug_report_abandon(o.report_dir); /* merged (or not): the run is over */
        /* summary.md and index.html beside the merged results.json, as a plain run writes */
        if (o.report_dir && rc != 2 && ug_report_pages(o.report_dir, NULL) != 0 && rc == 0) rc = 2;
        return rc;
    }
    /* the TAP stream has no progress line; without --tap the progress line is on stdout when
     * that is a terminal (harness/results/console.h): not twice */
    if (o.tap || isatty(1)) o.progress = false;
    if (o.oracle == UG_ORACLE_GPU) { /* the device the harness probes (and selects) first */
        char why[300];
        if (ug_gpu_oracle() == &ug_gpu_oracle_cuda) ug_gpu_available();
        if (!ug_gpu_oracle_available(why, sizeof why)) return ug_usage_error("--oracle gpu: %s", why);
    }
    ug_oracle_select(o.oracle);
    ug_results res = {0};
    ug_guard_run g = {.opt = &o, .res = &res, .out = stdout, .argc = full_argc, .argv = full_argv,
                      .write_report = ug_report_write};
    if (ug_guard_begin(&g, a.timeout_s) != 0) {
        if (o.report_dir) ug_report_abandon(o.report_dir);
        return 2;
    }
    rc = ug_run(&o, &res, stdout);
    ug_guard_end(); /* signals blocked from here: the report is never left half-written */
    rc = ug_run_finish(&o, &res, rc, full_argc, full_argv);
    ug_results_free(&res);
    return rc;
}
