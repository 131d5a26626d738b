/*
 * report.c - results.json from a run's results list: {"meta": {...}, "summary": {...},
 * "results": [row, ...]}.  The format is read back by harness/results/results_json.c (compare, merge,
 * the gate), so every field written here is read there.
 *
 * Numbers: finite values exactly (%.17g); non-finite ones as the strings "inf", "-inf", "nan"
 * (base/buf.h).  The seed is a hex string ("0x5eed"): a JSON number would lose its low bits.
 * The file is written to a temporary name in the same directory and renamed over the old one:
 * a reader never sees half a report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "kernels/device.h"
#include "kernels/kernel.h"
#include "harness/run/guard.h"
#include "harness/inputs/rng.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/par.h"
#include "harness/run/run.h"
#include "ug_config.h"
#include "ug_git.h"

static void ug_json_num(ug_buf *b, const char *name, double v)
{
    ug_buf_printf(b, ",\"%s\":", name);
    ug_buf_json_num(b, v);
}

static void ug_json_str(ug_buf *b, const char *name, const char *v)
{
    ug_buf_printf(b, ",\"%s\":", name);
    ug_buf_json_str(b, v);
}

static void ug_json_bool(ug_buf *b, const char *name, bool v)
{
    ug_buf_printf(b, ",\"%s\":%s", name, v ? "true" : "false");
}

static void ug_json_seed(ug_buf *b, const char *name, uint64_t seed)
{
    char hex[32];
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)seed);
    ug_json_str(b, name, hex);
}

static void ug_json_worst(ug_buf *b, const char *name, const ug_row_worst *w)
{
    char h[64];
    if (!w->set) return;
    ug_buf_printf(b, ",\"%s\":{\"trial\":%d,\"element\":%zu", name, w->trial, w->element);
    ug_json_str(b, "got", ug_hex(w->got, h));
    ug_json_str(b, "exact", ug_hex(w->exact, h));
    ug_json_num(b, "exact_lo", w->exact_lo);
    ug_json_num(b, "ulp", w->ulp);
    ug_json_num(b, "rel", w->rel);
    ug_json_num(b, "abs", w->abs);
    ug_json_num(b, "bound_ratio", w->bound_ratio);
    ug_buf_printf(b, "}");
}

/* One row; the field list is the contract documented in README.md ("Reports"). */
static void ug_json_row(ug_buf *b, const ug_row *r)
{
    ug_buf_printf(b, "{\"id\":");
    ug_buf_json_str(b, r->id);
    ug_json_str(b, "case", r->case_name);
    ug_json_str(b, "point", r->point);
    ug_json_str(b, "status", ug_status_name(r->status));
    ug_json_bool(b, "passed", r->status == UG_ST_PASS || r->status == UG_ST_XFAIL);
    ug_json_num(b, "failures", r->failures);
    if (r->note[0]) ug_json_str(b, "note", r->note);
    ug_json_seed(b, "seed", r->seed);
    ug_json_str(b, "device", r->device);
    ug_json_bool(b, "measured", r->measured);
    if (!r->measured) {
        ug_buf_printf(b, "}");
        return;
    }
    ug_json_str(b, "kernel", r->kernel);
    ug_json_str(b, "kernel_name", r->kernel_name);
    ug_json_str(b, "variant", r->variant);
    ug_json_str(b, "backend", r->backend);
    ug_json_str(b, "op", r->op);
    ug_json_str(b, "dist", r->dist);
    ug_json_num(b, "n", (double)r->n);
    if (strcmp(r->op, "gemm") == 0) {
        ug_json_num(b, "m", (double)r->m);
        ug_json_num(b, "gemm_n", (double)r->gemm_n);
        ug_json_num(b, "k", (double)r->k);
    }
    ug_json_bool(b, "deterministic", r->deterministic);
    ug_json_num(b, "trials", r->trials);
    ug_json_num(b, "first_trial", r->first_trial);
    ug_json_num(b, "elements", (double)r->elements);
    ug_json_num(b, "count", (double)r->count);
    ug_json_num(b, "ulp_max", r->ulp_max);
    ug_json_num(b, "ulp_mean", r->ulp_mean);
    ug_json_num(b, "rel_max", r->rel_max);
    ug_json_num(b, "rel_mean", r->rel_mean);
    ug_json_num(b, "abs_max", r->abs_max);
    ug_json_num(b, "abs_err_sum", r->abs_err_sum);
    ug_json_num(b, "rel_err_sum", r->rel_err_sum);
    if (strcmp(r->op, "gemm") != 0) {
        ug_json_num(b, "abs_err_sum_rd", r->abs_err_sum_rd);
        ug_json_num(b, "rel_err_sum_rd", r->rel_err_sum_rd);
    }
    ug_json_str(b, "bound_class", r->bound_class);
    ug_json_num(b, "bound_ratio_max", r->bound_ratio_max);
    ug_json_num(b, "bound_ratio_mean", r->bound_ratio_mean);
    ug_json_num(b, "apriori_ratio_max", r->apriori_ratio_max);
    ug_json_num(b, "prob_ratio_max", r->prob_ratio_max);
    ug_json_num(b, "prob_lambda", r->prob_lambda);
    ug_json_num(b, "prob_failure", r->prob_failure);
    ug_json_num(b, "bound_vacuous", (double)r->bound_vacuous);
    ug_json_num(b, "bound_unchecked", (double)r->bound_unchecked);
    ug_json_num(b, "unwritten", (double)r->unwritten);
    ug_json_num(b, "kappa_max", r->kappa_max);
    ug_json_num(b, "correctly_rounded", (double)r->correctly_rounded);
    if (r->repeats) {
        ug_json_num(b, "repeats", r->repeats);
        ug_json_num(b, "distinct_results", r->distinct_results);
    }
    ug_json_num(b, "time_ms", r->time_ms);
    ug_json_num(b, strcmp(r->op, "gemm") == 0 ? "gflops" : "gbps",
                strcmp(r->op, "gemm") == 0 ? r->gflops : r->gbps);
    ug_buf_printf(b, ",\"ulp_hist\":[");
    for (int i = 0; i < 16; i++)
        ug_buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)r->ulp_hist[i]);
    ug_buf_printf(b, "]");
    ug_json_worst(b, "worst_ulp", &r->worst_ulp);
    ug_json_worst(b, "worst_bound_ratio", &r->worst_bound_ratio);
    if (r->method) ug_json_num(b, "method", r->method);
    if (r->n_extra) {
        ug_buf_printf(b, ",\"extra\":{");
        for (int i = 0; i < r->n_extra; i++) {
            ug_buf_printf(b, "%s", i ? "," : "");
            ug_buf_json_str(b, r->extra[i].name);
            ug_buf_printf(b, ":");
            ug_buf_json_num(b, r->extra[i].value);
        }
        ug_buf_printf(b, "}");
    }
    ug_buf_printf(b, "}");
}

static int ug_mkdir_p(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

static void ug_json_kernels(ug_buf *b);
static void ug_json_selection(ug_buf *b, const ug_options *opt);

static void ug_meta(ug_buf *b, const ug_options *opt, int argc, char **argv)
{
    struct utsname u;
    char date[64] = "", host[512] = "unknown";
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (uname(&u) == 0)
        snprintf(host, sizeof host, "%s %s %s %s", u.nodename, u.sysname, u.release, u.machine);
    ug_buf_printf(b, "{\"tool\":\"ulpgate\"");
    ug_json_str(b, "version", UG_VERSION);
    /* "git": the commit of what was tested (the user's: main.c's ULPGATE_COMMIT); "ulpgate_git":
     * the commit ulpgate itself was built from */
    const char *commit = getenv("ULPGATE_COMMIT");
    ug_json_str(b, "git", commit && *commit ? commit : UG_GIT);
    ug_json_str(b, "ulpgate_git", UG_GIT);
    ug_json_str(b, "date", date);
    ug_json_str(b, "host", host);
    ug_json_str(b, "arch", uname(&u) == 0 ? u.machine : "unknown");
    ug_json_num(b, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
    ug_json_str(b, "compiler", UG_CC);
    ug_json_str(b, "cflags", UG_CFLAGS);
    ug_json_str(b, "nvcc", UG_NVCC_VERSION);
    ug_json_str(b, "nvcc_flags", UG_NVCC_FLAGS);
    ug_json_bool(b, "cuda_built", UG_CUDA_BUILT);
    ug_json_str(b, "oracle", ug_oracle_name(opt->oracle));
    ug_gpu_oracle_tally go = ug_gpu_oracle_counts();
    if (go.impl) { /* the GPU oracle answered for some inputs (harness/run/input.c) */
        ug_buf_printf(b, ",\"oracle_gpu\":{\"impl\":");
        ug_buf_json_str(b, go.impl);
        ug_buf_printf(b, ",\"results\":%zu,\"checked\":%zu,\"differ\":%zu}", go.results,
                      go.checked, go.differ);
    }
    ug_json_num(b, "threads", ug_par_threads());
    ug_json_seed(b, "seed", opt->seed);
    ug_buf cmd = {0};
    for (int i = 0; i < argc; i++) ug_buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
    ug_json_str(b, "command", ug_buf_str(&cmd));
    ug_buf_free(&cmd);
    ug_json_kernels(b);
    ug_json_selection(b, opt);
    /* a run stopped by a signal or the watchdog: what it measured, not the whole selection */
    const char *stop = ug_guard_reason();
    ug_json_bool(b, "interrupted", stop != NULL);
    if (stop) ug_json_str(b, "stop_reason", stop);
    ug_gpu_info gi;
    if (ug_run_used_gpu() && ug_device_info(&gi) == 0) {
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", gi.cc_major, gi.cc_minor);
        ug_json_str(b, "device", gi.name);
        ug_buf_printf(b, ",\"gpu\":{\"name\":");
        ug_buf_json_str(b, gi.name);
        ug_json_str(b, "cc", cc);
        ug_json_num(b, "driver", gi.driver_version);
        ug_json_num(b, "runtime", gi.runtime_version);
        ug_json_num(b, "sm_count", gi.sm_count);
        ug_json_num(b, "mem_gib", gi.mem_gib);
        ug_json_num(b, "cublas", gi.cublas_version);
        ug_json_num(b, "cccl", gi.cccl_version);
        ug_buf_printf(b, "}");
    } else {
        ug_json_str(b, "device", "cpu");
    }
    ug_buf_printf(b, "}");
}

/* The kernels this binary registers, as a fingerprint: runs to be merged must have the same. */
static void ug_json_kernels(ug_buf *b)
{
    uint64_t h = UG_HASH64_INIT;
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        h = ug_hash64(ug_kernel_at(i)->id, h);
        h = ug_hash64(" ", h);
    }
    char hex[32];
    snprintf(hex, sizeof hex, "0x%016llx", (unsigned long long)h);
    ug_buf_printf(b, ",\"kernels\":{\"count\":%zu", ug_kernel_count());
    ug_json_str(b, "fingerprint", hex);
    ug_buf_printf(b, "}");
}

/* What the run selected (merge compares it across shards). */
static void ug_json_selection(ug_buf *b, const ug_options *opt)
{
    ug_buf_printf(b, ",\"selection\":{\"filter\":");
    ug_buf_json_str(b, opt->filter ? opt->filter : "");
    ug_json_str(b, "kernel", opt->kernel ? opt->kernel : "");
    ug_json_num(b, "n", (double)opt->n);
    ug_json_num(b, "trial", (double)opt->trial);
    ug_json_num(b, "trials", opt->trials);
    ug_json_bool(b, "slow", opt->slow);
    ug_json_bool(b, "slow_only", opt->slow_only);
    ug_buf_printf(b, "}");
}

/* The shard plan: every selected unit with its shard, so merge can name what is missing. */
static void ug_json_shard(ug_buf *b, const ug_shard_info *sh)
{
    char hex[32];
    snprintf(hex, sizeof hex, "0x%016llx", (unsigned long long)sh->plan);
    ug_buf_printf(b, ",\n\"shard\":{\"k\":%d,\"n\":%d", sh->k, sh->n);
    ug_json_str(b, "plan", hex);
    ug_buf_printf(b, ",\"units\":[");
    for (size_t i = 0; i < sh->count; i++) {
        ug_buf_printf(b, "%s[", i ? "," : "");
        ug_buf_json_str(b, sh->names[i]);
        ug_buf_printf(b, ",%d]", sh->assign[i]);
    }
    ug_buf_printf(b, "]}");
}

void ug_report_json(ug_buf *b, const char *meta, const char *shard, const ug_results *res)
{
    ug_buf_printf(b, "{\"meta\":%s", meta);
    if (shard) ug_buf_printf(b, "%s", shard);
    ug_buf_printf(b, ",\n\"summary\":{\"passed\":%d,\"failed\":%d,\"skipped\":%d,\"xfailed\":%d,"
                     "\"xpassed\":%d},\n\"units\":[",
                  res->passed, res->failed, res->skipped, res->xfailed, res->xpassed);
    for (size_t i = 0; i < res->n_units; i++) {
        ug_buf_printf(b, "%s{\"name\":", i ? "," : "");
        ug_buf_json_str(b, res->units[i].name);
        ug_json_num(b, "seconds", res->units[i].seconds);
        ug_buf_printf(b, "}");
    }
    ug_buf_printf(b, "],\n\"results\":[");
    for (size_t i = 0; i < res->count; i++) {
        ug_buf_printf(b, "%s\n", i ? "," : "");
        ug_json_row(b, &res->rows[i]);
    }
    ug_buf_printf(b, "\n]}\n");
}

int ug_report_check(const char *dir)
{
    char path[4096], probe[4096], safe[1024];
    struct stat st;
    const char *shown = ug_escape(dir, safe, sizeof safe); /* for messages */
    if (ug_mkdir_p(dir) != 0) {
        fprintf(stderr, "ulpgate: --report %s: cannot create directory: %s\n", shown, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/results.json", dir); /* fits: the caller checked the length */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "ulpgate: --report %s: %s/results.json exists and is not a file\n", shown, shown);
        return -1;
    }
    /* one byte written and synced: a read-only or full file system says so now */
    snprintf(probe, sizeof probe, "%s/results.json.probe.%ld", dir, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0666);
    int e = 0;
    if (fd < 0) {
        e = errno;
    } else {
        if (write(fd, "{", 1) != 1 || fsync(fd) != 0) e = errno ? errno : EIO;
        if (close(fd) != 0 && !e) e = errno;
        unlink(probe);
    }
    if (e) {
        fprintf(stderr, "ulpgate: --report %s: cannot write there: %s\n", shown, strerror(e));
        return -1;
    }
    return 0;
}

int ug_report_write(const ug_options *opt, const ug_results *res, int argc, char **argv)
{
    char path[4096], err[4400];
    if (ug_mkdir_p(opt->report_dir) != 0) {
        fprintf(stderr, "ulpgate: --report %s: cannot create directory: %s\n", opt->report_dir,
                strerror(errno));
        return -1;
    }
    if (snprintf(path, sizeof path, "%s/results.json", opt->report_dir) >= (int)sizeof path) {
        fprintf(stderr, "ulpgate: --report %s: path too long\n", opt->report_dir);
        return -1;
    }
    ug_buf meta = {0}, shard = {0}, b = {0};
    ug_meta(&meta, opt, argc, argv);
    const ug_shard_info *sh = ug_run_shard_info();
    if (sh) ug_json_shard(&shard, sh);
    ug_report_json(&b, ug_buf_str(&meta), sh ? ug_buf_str(&shard) : NULL, res);
    int rc = ug_write_atomic(path, b.s, b.len, err, sizeof err);
    if (rc == 0)
        fprintf(stderr, "ulpgate: report written to %s\n", path);
    else
        fprintf(stderr, "ulpgate: --report %s: %s\n", opt->report_dir, err);
    ug_buf_free(&meta);
    ug_buf_free(&shard);
    ug_buf_free(&b);
    return rc;
}
