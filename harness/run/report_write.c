/*
 * report_write.c - a run's results.json: the meta block (options, argv, GPU, git) here, the
 * rest by harness/results/results_write.c (ug_report_json: summary, units, the rows from the
 * schema), which results_json.c reads back.
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
#include "kernels/plugin.h"
#include "harness/run/guard.h"
#include "harness/inputs/rng.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/par.h"
#include "harness/results/results_json.h"
#include "harness/results/report_mark.h"
#include "harness/run/run.h"
#include "harness/measure/run_limits.h"
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
static void ug_json_build(ug_buf *b);
static void ug_json_limits(ug_buf *b);

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
    char cpu_key[128], cpu_name[96];
    ug_cpu_model(cpu_key, sizeof cpu_key, cpu_name, sizeof cpu_name);
    ug_json_str(b, "cpu", cpu_key);
    ug_json_str(b, "cpu_name", cpu_name);
    ug_json_str(b, "compiler", UG_CC);
    ug_json_str(b, "cflags", UG_CFLAGS);
    ug_json_build(b);
    ug_json_str(b, "nvcc", UG_NVCC_VERSION);
    ug_json_str(b, "nvcc_flags", UG_NVCC_FLAGS);
    ug_json_bool(b, "cuda_built", UG_CUDA_BUILT);
    ug_json_str(b, "oracle", ug_oracle_name(opt->oracle));
    ug_gpu_oracle_tally go = ug_gpu_oracle_counts();
    if (go.impl) { /* the GPU oracle answered for some inputs (harness/measure/input.c) */
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
    ug_json_limits(b);
    /* a run stopped by a signal or the watchdog: what it measured, not the whole selection */
    const char *stop = opt->stop_reason ? opt->stop_reason : ug_guard_reason();
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

/* The compiler's predefined macros that say how this file, and so the CPU kernels' default
 * variant (compiled with the same project flags: kernels/meson.build), was really compiled:
 * whatever put them there (meson's options, CFLAGS, a compiler wrapper, a specs file).  Each is
 * one that changes floating-point results or what the kernels may do: value-changing
 * optimisation (__FAST_MATH__, __FINITE_MATH_ONLY__, __NO_MATH_ERRNO__, __GCC_IEC_559), the
 * instruction set (FMA, AVX, ...), the evaluation method, optimisation itself, NDEBUG and the
 * sanitizers. */
static void ug_build_defines(ug_buf *b)
{
    static const char *const defs[] = {
#ifdef __FAST_MATH__
        "__FAST_MATH__",
#endif
#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
        "__FINITE_MATH_ONLY__",
#endif
#ifdef __NO_MATH_ERRNO__
        "__NO_MATH_ERRNO__",
#endif
#ifdef __SUPPORT_SNAN__
        "__SUPPORT_SNAN__",
#endif
#ifdef __OPTIMIZE__
        "__OPTIMIZE__",
#endif
#ifdef __OPTIMIZE_SIZE__
        "__OPTIMIZE_SIZE__",
#endif
#ifdef __FP_FAST_FMA
        "__FP_FAST_FMA",
#endif
#ifdef __FP_FAST_FMAF
        "__FP_FAST_FMAF",
#endif
#ifdef __FMA__
        "__FMA__",
#endif
#ifdef __SSE2__
        "__SSE2__",
#endif
#ifdef __SSE4_1__
        "__SSE4_1__",
#endif
#ifdef __AVX__
        "__AVX__",
#endif
#ifdef __AVX2__
        "__AVX2__",
#endif
#ifdef __AVX512F__
        "__AVX512F__",
#endif
#ifdef __ARM_NEON
        "__ARM_NEON",
#endif
#ifdef __ARM_FEATURE_FMA
        "__ARM_FEATURE_FMA",
#endif
#ifdef NDEBUG
        "NDEBUG",
#endif
#ifdef __SANITIZE_ADDRESS__
        "__SANITIZE_ADDRESS__",
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
        "address_sanitizer",
#endif
#if __has_feature(undefined_behavior_sanitizer)
        "undefined_behavior_sanitizer",
#endif
#endif
        NULL};
    for (size_t i = 0; defs[i]; i++) ug_buf_printf(b, "%s%s", i ? " " : "", defs[i]);
#ifdef __GCC_IEC_559
    ug_buf_printf(b, " __GCC_IEC_559=%d", __GCC_IEC_559);
#endif
#ifdef __FLT_EVAL_METHOD__
    ug_buf_printf(b, " __FLT_EVAL_METHOD__=%d", __FLT_EVAL_METHOD__);
#endif
}

/* meta.build: what built this binary, in full (the recorded "cflags" are only the flags meson
 * was given): the configuration's arguments (meson.build's UG_BUILD_ARGS), the compiler's
 * predefined macros, and a hash of the cflags and both, which with the macros is the
 * fingerprint's "build" part (CPU rows; the compiler and nvcc have parts of their own): two
 * builds whose cflags read the same but that compiled differently (CFLAGS=-ffast-math,
 * -march=native, -Db_ndebug=true) differ there. */
static void ug_json_build(ug_buf *b)
{
    ug_buf defs = {0};
    ug_build_defines(&defs);
    uint64_t h = UG_HASH64_INIT;
    h = ug_hash64(UG_CFLAGS, h);
    h = ug_hash64("\n", h);
    h = ug_hash64(UG_BUILD_ARGS, h);
    h = ug_hash64("\n", h);
    h = ug_hash64(ug_buf_str(&defs), h);
    char hex[32];
    snprintf(hex, sizeof hex, "0x%016llx", (unsigned long long)h);
    ug_buf_printf(b, ",\"build\":{\"args\":");
    ug_buf_json_str(b, UG_BUILD_ARGS);
    ug_json_str(b, "defines", ug_buf_str(&defs));
    ug_json_str(b, "hash", hex);
    ug_buf_printf(b, "}");
    ug_buf_free(&defs);
}

/* meta.limits: the caps of a reduced run (ULPGATE_MAX_ELEMENTS, ULPGATE_MAX_TRIALS,
 * ULPGATE_NO_TIMING: docs/troubleshooting.md) when any is set, so that a report of a reduced run
 * says so (summary.md, the gate), never passing for a whole one; absent when none is. */
static void ug_json_limits(ug_buf *b)
{
    size_t elements = ug_limits_max_elements(), skipped = ug_limits_sizes_left_out();
    int trials = ug_limits_max_trials();
    bool no_timing = ug_limits_no_timing();
    if (!elements && !trials && !no_timing) return;
    ug_buf_printf(b, ",\"limits\":{");
    const char *sep = "";
    if (elements) ug_buf_printf(b, "\"max_elements\":%zu,\"sizes_left_out\":%zu", elements, skipped), sep = ",";
    if (trials) ug_buf_printf(b, "%s\"max_trials\":%d", sep, trials), sep = ",";
    if (no_timing) ug_buf_printf(b, "%s\"no_timing\":true", sep);
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
    /* what else narrows the kernels of a case (the gate's rows expected in this run) */
    if (opt->format_set) ug_json_str(b, "format", ug_fmt_name(opt->format));
    if (!ug_registry_has_builtin()) ug_json_bool(b, "builtin", false);
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

int ug_report_prepare(const char *dir, int argc, char **argv, int *lock_fd, char *err,
                      size_t errlen)
{
    char path[4096], probe[4096];
    struct stat st;
    if (ug_mkdir_p(dir) != 0) {
        snprintf(err, errlen, "cannot create directory: %s", strerror(errno));
        return -1;
    }
    /* one writer into a folder at a time (two would mix their results.json and pages): the
     * lock is held until ug_dir_unlock or the process ends */
    char why[1200];
    if (*lock_fd < 0 && (*lock_fd = ug_dir_lock(dir, 0, why, sizeof why)) < 0) {
        snprintf(err, errlen, "%s (one run per report folder)", why);
        return -1;
    }
    snprintf(path, sizeof path, "%s/results.json", dir); /* fits: the caller checked the length */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "its results.json exists and is not a file");
        return -1;
    }
    /* a folder of someone else's files: the pages of an earlier run are removed and results.json
     * replaced, which must only ever be ulpgate's own (report_mark.h) */
    if (ug_report_dir_owned(dir, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
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
        snprintf(err, errlen, "cannot write there: %s", strerror(e));
        return -1;
    }
    /* marked in progress until its results.json is written: a run killed before that (kill -9)
     * leaves the folder marked, and no reader takes its files for a finished run's */
    if (ug_report_mark_begin(dir, argc, argv, err, errlen) != 0) return -1;
    return 0;
}

int ug_report_check(const char *dir, int argc, char **argv)
{
    static int lock_fd = -1; /* held until this process ends */
    char safe[1024], err[4400];
    if (ug_report_prepare(dir, argc, argv, &lock_fd, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: --report %s: %s\n", ug_escape(dir, safe, sizeof safe), err);
        return -1;
    }
    return 0;
}

void ug_report_abandon(const char *dir) { ug_report_mark_end(dir); }

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
    /* the pages of an earlier run go first: summary.md and index.html are written from this
     * results.json after it (harness/report/pages.h), or not at all when the run is cut short
     * (--timeout, a signal), and then none is left that describes another run */
    static const char *const pages[] = {"summary.md", "index.html"};
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        char page[4200];
        struct stat st;
        snprintf(page, sizeof page, "%s/%s", opt->report_dir, pages[i]);
        if (lstat(page, &st) == 0 && S_ISREG(st.st_mode)) unlink(page);
    }
    int rc = ug_write_atomic(path, b.s, b.len, err, sizeof err);
    if (rc == 0) ug_report_mark_end(opt->report_dir); /* whole (or marked "interrupted") */
    if (rc == 0) {
        fprintf(stderr, "ulpgate: report written to %s\n", path);
    } else {
        fprintf(stderr, "ulpgate: --report %s: %s\n", opt->report_dir, err);
        /* no results.json: the run's junit.xml (its JUnit reporter's) goes too, no half report */
        char junit[4200];
        snprintf(junit, sizeof junit, "%s/junit.xml", opt->report_dir);
        unlink(junit);
    }
    ug_buf_free(&meta);
    ug_buf_free(&shard);
    ug_buf_free(&b);
    return rc;
}
