/*
 * workers.c - `ulpgate run --gpus all|0,1,...`: one worker process per GPU, fresh processes
 * (posix_spawn of this same program: the parent never touches CUDA, so nothing is ever forked
 * after CUDA initialisation), each running one shard of the run at a time on its GPU
 * (CUDA_VISIBLE_DEVICES), shards handed to whichever GPU is free (2 shards per GPU by default,
 * balanced by estimated cost); the workers' TAP streams are renumbered into one stream; their
 * reports are merged (harness/scale/merge.c's rules) into one results list.  With two GPUs or more a
 * cross-GPU check follows: every GPU runs the crossgpu cases, and the output fingerprint of
 * each deterministic kernel must be the same bits on every GPU (a GPU that differs is named).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/parse.h"
#include "base/sys.h"
#include "harness/scale/merge.h"
#include "harness/results/results_json.h"
#include "harness/run/run.h"
#include "harness/scale/workers.h"

extern char **environ;

enum { UG_MAX_GPUS = 64 };

/* The number of CUDA devices, from the `devices` subcommand run in a child (so that this
 * process never touches CUDA); -1 with errno set when the child cannot start. */
static int ug_device_count_child(const char *self)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    char *argv[] = {(char *)self, "devices", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc != 0) {
        close(fd[0]);
        errno = rc;
        return -1;
    }
    char buf[64] = "";
    ssize_t got = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    waitpid(pid, NULL, 0);
    return got > 0 ? atoi(buf) : 0;
}

/* The GPUs to use: "all" (every device there is) or a comma-separated list of indices, each
 * below the device count: `--gpus 7` on a machine with fewer GPUs, or none, is an error naming
 * how many there are (it would otherwise run, on the CPU or on no GPU the user asked for).
 * ULPGATE_FAKE_GPUS=N, on a machine without GPUs only, counts N devices: the workers then run
 * the CPU cases, so that the worker machinery can be tested anywhere (tests/shard_test.sh). */
static int ug_gpu_list(const char *spec, const char *self, int *gpus, char *err, size_t errlen)
{
    int count = 0, devices = ug_device_count_child(self);
    if (devices < 0) {
        snprintf(err, errlen, "--gpus: cannot start a worker: %s", strerror(errno));
        return -1;
    }
    long fake;
    if (devices == 0 && ug_parse_int(getenv("ULPGATE_FAKE_GPUS"), 1, UG_MAX_GPUS, &fake))
        devices = (int)fake;
    if (strcmp(spec, "all") == 0) {
        count = devices < UG_MAX_GPUS ? devices : UG_MAX_GPUS;
        for (int g = 0; g < count; g++) gpus[g] = g;
        return count;
    }
    for (const char *p = spec; *p;) {
        char *end;
        long g = strtol(p, &end, 10);
        if (end == p || g < 0 || g > 1023 || count == UG_MAX_GPUS || (*end && *end != ',')) {
            snprintf(err, errlen, "--gpus: '%s' is not 'all' or a list like 0,1,3", spec);
            return -1;
        }
        if (g >= devices) {
            if (devices == 0)
                snprintf(err, errlen, "--gpus: GPU %ld does not exist: this machine has no GPU "
                                      "(0 devices)", g);
            else
                snprintf(err, errlen, "--gpus: GPU %ld does not exist: this machine has %d (0 "
                                      "to %d)", g, devices, devices - 1);
            return -1;
        }
        gpus[count++] = (int)g;
        p = *end ? end + 1 : end;
    }
    return count;
}

typedef struct {
    pid_t pid;
    int shard, gpu;
} ug_worker;

/* Start `self run <args> --tap --shard k/n --report dir/k` (or the cross-GPU filter when k < 0)
 * on GPU g, stdout and stderr into dir/k.tap and dir/k.err. */
static pid_t ug_worker_start(const char *self, char *const *args, int nargs, int k, int n, int gpu,
                             const char *dir)
{
    char shard[32], report[4200], out[4200], errf[4200], env[64];
    const char *tag = k >= 0 ? "" : "x";
    int id = k >= 0 ? k : gpu;
    snprintf(shard, sizeof shard, "%d/%d", k, n);
    snprintf(report, sizeof report, "%s/%s%d", dir, tag, id);
    snprintf(out, sizeof out, "%s/%s%d.tap", dir, tag, id);
    snprintf(errf, sizeof errf, "%s/%s%d.err", dir, tag, id);
    snprintf(env, sizeof env, "CUDA_VISIBLE_DEVICES=%d", gpu);
    const char **argv = ug_xcalloc((size_t)nargs + 12, sizeof *argv);
    int a = 0;
    argv[a++] = self;
    argv[a++] = "run";
    for (int i = 0; i < nargs; i++) {
        /* the cross-GPU worker's own filter replaces the user's (a --filter given twice is
         * refused: harness/cli/cli_opts.h) */
        if (k < 0 && strcmp(args[i], "--filter") == 0 && i + 1 < nargs) {
            i++;
            continue;
        }
        argv[a++] = args[i];
    }
    argv[a++] = "--tap";
    if (k >= 0) {
        argv[a++] = "--shard";
        argv[a++] = shard;
    } else {
        argv[a++] = "--filter";
        argv[a++] = "crossgpu/*";
    }
    argv[a++] = "--report";
    argv[a++] = report;
    /* the environment, with CUDA_VISIBLE_DEVICES replaced */
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **envp = ug_xcalloc(ne + 2, sizeof *envp);
    size_t e = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) != 0) envp[e++] = environ[i];
    envp[e++] = env;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    /* its own process group: a terminal's ^C reaches the parent alone, which forwards it once */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid = -1;
    if (posix_spawn(&pid, self, &fa, &at, (char *const *)argv, envp) != 0) pid = -1;
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    free(argv);
    return pid;
}

/* What the parent prints: the whole renumbered TAP stream (--tap, meson), or the compact form
 * of a plain run (harness/results/console.c's): a line per finished shard, failures in full,
 * a closing summary. */
typedef struct {
    FILE *out;
    bool tap;
    int index;              /* test points so far, the TAP numbering */
    int failures;           /* failed points so far */
    int shards_done, shards;
    double t0;
    char failed[16][200];   /* the first failures' names, for the summary */
} ug_stream;

/* A failed point for the closing summary: its name kept while there is room (the first 16),
 * counted always.  len: how much of name is the name (it may run on into a directive). */
static void ug_stream_fail(ug_stream *st, const char *name, int len)
{
    if (st->failures < (int)(sizeof st->failed / sizeof st->failed[0]))
        snprintf(st->failed[st->failures], sizeof st->failed[0], "%.*s", len, name);
    st->failures++;
}

/* Copy a worker's test points to the stream, renumbered: with --tap its "ok N - ..." and
 * "not ok N - ..." lines and the '#' lines under them (its version, plan and summary lines are
 * the parent's to write); compact, only the failing points with their diagnostics, then one
 * line for the shard. */
static void ug_worker_tap(ug_stream *st, const char *path, const char *label)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    bool inside = false, shown = false;
    int points = 0, failures = 0;
    if (st->tap) fprintf(st->out, "# %s\n", label);
    while (f && fgets(line, sizeof line, f)) {
        const char *rest = NULL;
        bool bad = false;
        if (strncmp(line, "ok ", 3) == 0)
            rest = line + 3;
        else if (strncmp(line, "not ok ", 7) == 0)
            rest = line + 7, bad = true;
        if (rest) {
            while (*rest >= '0' && *rest <= '9') rest++;
            points++;
            ++st->index;
            /* "not ok ... # TODO" is an expected failure, "ok ... # TODO" an unexpected pass (a
             * failure, as meson reads it); a '#' in a name is escaped "\#" (tap.c) */
            bool todo = strstr(rest, " # TODO") != NULL, fails = bad != todo;
            if (fails) {
                const char *name = rest[0] == ' ' && rest[1] == '-' && rest[2] == ' ' ? rest + 3 : rest;
                ug_stream_fail(st, name, (int)strcspn(name, "\n"));
                failures++;
            }
            shown = st->tap || fails;
            if (shown) fprintf(st->out, "%sok %d%s", bad ? "not " : "", st->index, rest);
            inside = true;
        } else if (inside && line[0] == '#' && strncmp(line, "# ulpgate ", 10) != 0) {
            /* the summary comment is recognised by what follows the plan; keep diagnostics */
            if (shown) fputs(line, st->out);
        } else if (strncmp(line, "1..", 3) == 0) {
            inside = false;
        }
    }
    if (f) fclose(f);
    st->shards_done++;
    if (!st->tap)
        fprintf(st->out, "[%d/%d] %s: %d point%s, %d failure%s, %.1f s\n", st->shards_done, st->shards,
                label, points, points == 1 ? "" : "s", failures, failures == 1 ? "" : "s",
                ug_now_s() - st->t0);
    fflush(st->out);
}

/* The cross-GPU check: the crossgpu rows of every GPU's report must carry the same output
 * fingerprints (extra out_hash_hi/out_hash_lo) as GPU gpus[0]'s.  One test point per row. */
static void ug_cross_check(ug_stream *st, const char *dir, const int *gpus, int count,
                           ug_results *all)
{
    ug_results res[UG_MAX_GPUS];
    ug_json *root[UG_MAX_GPUS];
    char path[4200], err[4400];
    for (int g = 0; g < count; g++) {
        snprintf(path, sizeof path, "%s/x%d/results.json", dir, gpus[g]);
        root[g] = ug_results_read(path, &res[g], err, sizeof err);
    }
    for (size_t r = 0; root[0] && r < res[0].count; r++) {
        const ug_row *a = &res[0].rows[r];
        double ha = -1, la = -1;
        for (int e = 0; e < a->n_extra; e++) {
            if (strcmp(a->extra[e].name, "out_hash_hi") == 0) ha = a->extra[e].value;
            if (strcmp(a->extra[e].name, "out_hash_lo") == 0) la = a->extra[e].value;
        }
        if (ha < 0 || !a->deterministic) continue;
        ug_row row;
        memset(&row, 0, sizeof row);
        snprintf(row.case_name, sizeof row.case_name, "crossgpu");
        snprintf(row.point, sizeof row.point, "crossgpu %.200s bitwise on %d GPUs", a->id, count);
        row.status = UG_ST_PASS;
        for (int g = 1; g < count; g++) {
            const ug_row *b = root[g] ? ug_results_find(&res[g], a->id) : NULL;
            double hb = -2, lb = -2;
            for (int e = 0; b && e < b->n_extra; e++) {
                if (strcmp(b->extra[e].name, "out_hash_hi") == 0) hb = b->extra[e].value;
                if (strcmp(b->extra[e].name, "out_hash_lo") == 0) lb = b->extra[e].value;
            }
            if (hb != ha || lb != la) {
                row.status = UG_ST_FAIL;
                row.failures++;
                snprintf(row.note + strlen(row.note), sizeof row.note - strlen(row.note),
                         "%sGPU %d (%s) differs from GPU %d (%s)", row.failures > 1 ? "; " : "",
                         gpus[g], b ? b->device : "no result", gpus[0], a->device);
            }
        }
        ug_row_make_id(&row);
        ug_results_add(all, &row);
        ++st->index;
        if (row.status != UG_ST_PASS) {
            ug_stream_fail(st, row.point, (int)strlen(row.point));
        }
        if (st->tap || row.status != UG_ST_PASS) {
            fprintf(st->out, "%sok %d - %s\n", row.status == UG_ST_PASS ? "" : "not ", st->index, row.point);
            if (row.note[0]) fprintf(st->out, "# %s\n", row.note);
        }
    }
    if (!root[0]) {
        fprintf(st->out, "not ok %d - crossgpu: no report from GPU %d\n", ++st->index, gpus[0]);
        char what[80];
        snprintf(what, sizeof what, "crossgpu: no report from GPU %d", gpus[0]);
        ug_stream_fail(st, what, (int)strlen(what));
        all->failed++;
    }
    for (int g = 0; g < count; g++) {
        ug_json_free(root[g]);
        if (root[g]) ug_results_free(&res[g]);
    }
}

/* ---- stop signals --------------------------------------------------------------------------- */

/* SIGINT, SIGTERM or SIGHUP to the parent: no new shard starts, the running workers get the
 * signal once (they are in their own process group, so a terminal's ^C reaches the parent
 * alone and is forwarded, never delivered twice: a worker's second signal stops it without a
 * report, harness/run/guard.c), their interrupted reports and the finished shards' are merged
 * and written, marked interrupted, and the exit status is 128 + the signal. */
static volatile sig_atomic_t ug_workers_sig;
static const int ug_workers_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { UG_N_WORKERS_SIGNALS = sizeof ug_workers_signals / sizeof ug_workers_signals[0] };

static void ug_workers_on_signal(int sig)
{
    if (!ug_workers_sig) ug_workers_sig = sig;
}

/* No SA_RESTART: wait() returns EINTR so that the signal is forwarded at once.  A signal ignored
 * at start (nohup) stays ignored.  old[] keeps what to restore. */
static void ug_workers_handlers(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ug_workers_on_signal;
    sigemptyset(&sa.sa_mask);
    ug_workers_sig = 0;
    for (int i = 0; i < UG_N_WORKERS_SIGNALS; i++) {
        sigaction(ug_workers_signals[i], NULL, &old[i]);
        if (old[i].sa_handler != SIG_IGN) sigaction(ug_workers_signals[i], &sa, NULL);
    }
}

static const char *ug_workers_signame(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* ---- the run -------------------------------------------------------------------------------- */

int ug_run_workers(const char *spec, int shards_per_gpu, char *const *args, int nargs,
                   const char *report_dir, bool tap, FILE *out)
{
    char self[4096], dir[] = "/tmp/ulpgate-workers-XXXXXX", err[4400];
    int gpus[UG_MAX_GPUS];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        fprintf(stderr, "ulpgate: --gpus: cannot find this program (/proc/self/exe)\n");
        return 2;
    }
    self[len] = 0;
    int count = ug_gpu_list(spec, self, gpus, err, sizeof err);
    if (count < 0) return fprintf(stderr, "ulpgate: %s\n", err), 2;
    if (count == 0) return fprintf(stderr, "ulpgate: --gpus %s: no CUDA device\n", spec), 2;
    if (!mkdtemp(dir)) return fprintf(stderr, "ulpgate: --gpus: mkdtemp: %s\n", strerror(errno)), 2;
    int n = count * (shards_per_gpu > 0 ? shards_per_gpu : 2);
    ug_worker busy[UG_MAX_GPUS];
    int next = 0, running = 0, crashed = 0;
    bool forwarded = false;
    ug_stream st = {.out = out, .tap = tap, .shards = n, .t0 = ug_now_s()};
    struct sigaction old[UG_N_WORKERS_SIGNALS];
    ug_workers_handlers(old);
    if (tap) {
        fprintf(out, "TAP version 13\n# ulpgate: %d shards on %d GPU(s):", n, count);
        for (int g = 0; g < count; g++) fprintf(out, " %d", gpus[g]);
        fprintf(out, "\n");
    } else {
        fprintf(out, "ulpgate: %d shards on %d GPU(s):", n, count);
        for (int g = 0; g < count; g++) fprintf(out, " %d", gpus[g]);
        fprintf(out, "\n");
    }
    fflush(out);
    for (int g = 0; g < count; g++) busy[g].pid = 0;
    while ((next < n && !ug_workers_sig) || running > 0) {
        for (int g = 0; g < count && next < n && !ug_workers_sig; g++) {
            if (busy[g].pid) continue;
            busy[g] = (ug_worker){ug_worker_start(self, args, nargs, next, n, gpus[g], dir), next, gpus[g]};
            if (busy[g].pid < 0) {
                fprintf(stderr, "ulpgate: --gpus: cannot start the worker of shard %d\n", next);
                busy[g].pid = 0;
                crashed++;
            } else {
                running++;
            }
            next++;
        }
        if (ug_workers_sig && !forwarded) {
            for (int g = 0; g < count; g++)
                if (busy[g].pid > 0) kill(busy[g].pid, ug_workers_sig);
            forwarded = true;
        }
        if (running == 0) break;
        int status;
        pid_t pid = wait(&status);
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) break;
        for (int g = 0; g < count; g++) {
            if (busy[g].pid != pid) continue;
            char tapf[4300], label[200];
            snprintf(tapf, sizeof tapf, "%s/%d.tap", dir, busy[g].shard);
            snprintf(label, sizeof label, "shard %d/%d on GPU %d", busy[g].shard, n, busy[g].gpu);
            ug_worker_tap(&st, tapf, label);
            /* a worker stopped by the forwarded signal exits 128 + it, its report written (or dies
             * of it, reportless, when it came before its handlers were set) */
            bool stopped = ug_workers_sig &&
                           ((WIFEXITED(status) && WEXITSTATUS(status) == 128 + ug_workers_sig) ||
                            (WIFSIGNALED(status) && WTERMSIG(status) == ug_workers_sig));
            if (!stopped && (!WIFEXITED(status) || WEXITSTATUS(status) > 1)) {
                fprintf(out, "not ok %d - %s: the worker ended with %s %d (its log: %s/%d.err)\n",
                        ++st.index, label, WIFEXITED(status) ? "exit status" : "signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), dir, busy[g].shard);
                char what[260];
                snprintf(what, sizeof what, "%.200s: the worker failed", label);
                ug_stream_fail(&st, what, (int)strlen(what));
                crashed++;
            }
            busy[g].pid = 0;
            running--;
        }
    }
    /* merge the shards' reports: every one, or those there are after a stop signal */
    int sig = ug_workers_sig;
    char cut[300] = "";
    if (sig) {
        int started = next;
        snprintf(cut, sizeof cut, "run --gpus: %s: %d of %d shards started, the rest not run",
                 ug_workers_signame(sig), started, n);
    }
    ug_results all = {0};
    char **paths = ug_xcalloc((size_t)n + 2, sizeof *paths);
    int np = 0;
    char merged[4200];
    snprintf(merged, sizeof merged, "%s/merged.json", dir);
    for (int k = 0; k < n; k++) {
        char *p = ug_xmalloc(4200);
        snprintf(p, 4200, "%s/%d/results.json", dir, k);
        struct stat sb;
        if (sig && stat(p, &sb) != 0) { /* never started, or stopped before its report */
            free(p);
            continue;
        }
        paths[np++] = p;
    }
    int mrc = np ? ug_merge(merged, NULL, (const char *const *)paths, np, false, sig ? cut : NULL) : 2;
    ug_json *root = mrc <= 1 ? ug_results_read(merged, &all, err, sizeof err) : NULL;
    if (count >= 2 && !sig) {
        for (int g = 0; g < count; g++) busy[g].pid = ug_worker_start(self, args, nargs, -1, 0, gpus[g], dir);
        for (int g = 0; g < count; g++)
            if (busy[g].pid > 0) waitpid(busy[g].pid, NULL, 0);
        ug_cross_check(&st, dir, gpus, count, &all);
    }
    char summary[200];
    ug_results_summary(&all, summary, sizeof summary);
    if (tap) {
        fprintf(out, "1..%d\n", st.index);
        fprintf(out, "# %s\n", summary);
    } else {
        int shown = st.failures < 16 ? st.failures : 16;
        fprintf(out, "%d shards, %d test points in %.1f s%s\n", st.shards_done, st.index,
                ug_now_s() - st.t0, sig ? " (stopped by a signal)" : "");
        if (st.failures) fprintf(out, "failed (%d, each in full above):\n", st.failures);
        for (int i = 0; i < shown; i++) fprintf(out, "  %s\n", st.failed[i]);
        if (st.failures > shown) fprintf(out, "  ... and %d more\n", st.failures - shown);
        fprintf(out, "%s\n", summary);
    }
    if (sig) fprintf(stderr, "ulpgate: %s\n", cut);
    int rc = sig ? 128 + sig : mrc > 1 || crashed ? 2 : ug_results_status(&all);
    if (report_dir && root) {
        char path[4200];
        ug_buf meta = {0}, text = {0};
        ug_json_write(&meta, ug_json_get(root, "meta"));
        ug_report_json(&text, ug_buf_str(&meta), NULL, &all);
        mkdir(report_dir, 0777);
        snprintf(path, sizeof path, "%s/results.json", report_dir);
        if (ug_write_atomic(path, text.s, text.len, err, sizeof err) != 0) {
            fprintf(stderr, "ulpgate: --report %s: %s\n", report_dir, err);
            rc = rc ? rc : 2;
        } else {
            fprintf(stderr, "ulpgate: report written to %s (%d shards on %d GPUs%s)\n", path, n, count,
                    sig ? ", interrupted" : "");
        }
        ug_buf_free(&meta);
        ug_buf_free(&text);
    }
    if (rc == 0) {
        /* keep the workers' logs only when something went wrong */
        char cmd[4300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "ulpgate: could not remove %s\n", dir);
    } else {
        fprintf(stderr, "ulpgate: the workers' logs and reports are in %s\n", dir);
    }
    for (int k = 0; k < np; k++) free(paths[k]);
    free(paths);
    ug_json_free(root);
    ug_results_free(&all);
    fflush(out);
    for (int i = 0; i < UG_N_WORKERS_SIGNALS; i++) sigaction(ug_workers_signals[i], &old[i], NULL);
    return rc;
}
