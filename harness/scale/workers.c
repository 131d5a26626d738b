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
    pid_t pid = -1;
    if (posix_spawn(&pid, self, &fa, NULL, (char *const *)argv, envp) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    free(argv);
    return pid;
}

/* Copy a worker's TAP test points to out, renumbered from *index: its "ok N - ..." and
 * "not ok N - ..." lines and the '#' lines under them; its version, plan and summary lines
 * are the parent's to write. */
static void ug_worker_tap(FILE *out, const char *path, int *index, const char *label)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    bool inside = false;
    if (!f) return;
    fprintf(out, "# %s\n", label);
    while (fgets(line, sizeof line, f)) {
        const char *rest = NULL;
        bool bad = false;
        if (strncmp(line, "ok ", 3) == 0)
            rest = line + 3;
        else if (strncmp(line, "not ok ", 7) == 0)
            rest = line + 7, bad = true;
        if (rest) {
            while (*rest >= '0' && *rest <= '9') rest++;
            fprintf(out, "%sok %d%s", bad ? "not " : "", ++*index, rest);
            inside = true;
        } else if (inside && line[0] == '#' && strncmp(line, "# ulpgate ", 10) != 0) {
            /* the summary comment is recognised by what follows the plan; keep diagnostics */
            fputs(line, out);
        } else if (strncmp(line, "1..", 3) == 0) {
            inside = false;
        }
    }
    fclose(f);
    fflush(out);
}

/* The cross-GPU check: the crossgpu rows of every GPU's report must carry the same output
 * fingerprints (extra out_hash_hi/out_hash_lo) as GPU gpus[0]'s.  One test point per row. */
static void ug_cross_check(FILE *out, const char *dir, const int *gpus, int count, int *index,
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
        fprintf(out, "%sok %d - %s\n", row.status == UG_ST_PASS ? "" : "not ", ++*index, row.point);
        if (row.note[0]) fprintf(out, "# %s\n", row.note);
    }
    if (!root[0]) {
        fprintf(out, "not ok %d - crossgpu: no report from GPU %d\n", ++*index, gpus[0]);
        all->failed++;
    }
    for (int g = 0; g < count; g++) {
        ug_json_free(root[g]);
        if (root[g]) ug_results_free(&res[g]);
    }
}

int ug_run_workers(const char *spec, int shards_per_gpu, char *const *args, int nargs,
                   const char *report_dir, FILE *out)
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
    int next = 0, running = 0, index = 0, crashed = 0;
    fprintf(out, "TAP version 13\n# ulpgate: %d shards on %d GPU(s):", n, count);
    for (int g = 0; g < count; g++) fprintf(out, " %d", gpus[g]);
    fprintf(out, "\n");
    for (int g = 0; g < count; g++) busy[g].pid = 0;
    while (next < n || running > 0) {
        for (int g = 0; g < count && next < n; g++) {
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
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) break;
        for (int g = 0; g < count; g++) {
            if (busy[g].pid != pid) continue;
            char tap[4300], label[200];
            snprintf(tap, sizeof tap, "%s/%d.tap", dir, busy[g].shard);
            snprintf(label, sizeof label, "shard %d/%d on GPU %d", busy[g].shard, n, busy[g].gpu);
            ug_worker_tap(out, tap, &index, label);
            if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
                fprintf(out, "not ok %d - %s: the worker ended with %s %d (its log: %s/%d.err)\n",
                        ++index, label, WIFEXITED(status) ? "exit status" : "signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), dir, busy[g].shard);
                crashed++;
            }
            busy[g].pid = 0;
            running--;
        }
    }
    /* merge the shards' reports */
    ug_results all = {0};
    char **paths = ug_xcalloc((size_t)n + 2, sizeof *paths);
    char merged[4200];
    snprintf(merged, sizeof merged, "%s/merged.json", dir);
    paths[0] = "merge";
    paths[1] = merged;
    for (int k = 0; k < n; k++) {
        paths[k + 2] = ug_xmalloc(4200);
        snprintf(paths[k + 2], 4200, "%s/%d/results.json", dir, k);
    }
    int mrc = ug_merge(merged, NULL, (const char *const *)paths + 2, n, false);
    ug_json *root = mrc <= 1 ? ug_results_read(merged, &all, err, sizeof err) : NULL;
    if (count >= 2) {
        for (int g = 0; g < count; g++) busy[g].pid = ug_worker_start(self, args, nargs, -1, 0, gpus[g], dir);
        for (int g = 0; g < count; g++)
            if (busy[g].pid > 0) waitpid(busy[g].pid, NULL, 0);
        ug_cross_check(out, dir, gpus, count, &index, &all);
    }
    fprintf(out, "1..%d\n", index);
    char summary[200];
    ug_results_summary(&all, summary, sizeof summary);
    fprintf(out, "# %s\n", summary);
    int rc = mrc > 1 || crashed ? 2 : ug_results_status(&all);
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
            fprintf(stderr, "ulpgate: report written to %s (%d shards on %d GPUs)\n", path, n, count);
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
    for (int k = 0; k < n; k++) free(paths[k + 2]);
    free(paths);
    ug_json_free(root);
    ug_results_free(&all);
    return rc;
}
