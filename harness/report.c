/*
 * report.c - results.json: one row per measurement, plus the run's metadata.
 *
 * A row's "id" (case|kernel|dist|n|variant) identifies a measurement uniquely and stably across runs,
 * so that two reports can be compared row by row.  The file is written to a temporary name in
 * the same directory and renamed over the old one: a reader never sees half a report.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/par.h"
#include "runner.h"
#include "ug_config.h"
#include "ug_git.h"
#include "../kernels/device.h"

/* The build variant is part of a kernel's identity (roadmap: -fmad=false, fast-math, ...). */
#define UG_VARIANT "default"

static void ug_json_field_num(ug_buf *b, const char *name, double v)
{
    ug_buf_printf(b, ",\"%s\":", name);
    ug_buf_json_num(b, v);
}

static void ug_json_field_str(ug_buf *b, const char *name, const char *v)
{
    ug_buf_printf(b, ",\"%s\":", name);
    ug_buf_json_str(b, v);
}

static void ug_json_worst(ug_buf *b, const char *name, const ug_worst *w)
{
    char h[64];
    if (!w->set) return;
    ug_buf_printf(b, ",\"%s\":{\"trial\":%d,\"element\":%zu", name, w->trial, w->index);
    ug_json_field_str(b, "got", ug_hex(w->got, h));
    ug_json_field_str(b, "exact", ug_hex(w->exact.hi, h));
    ug_json_field_num(b, "exact_lo", w->exact.lo);
    ug_json_field_num(b, "ulp", w->err.ulp);
    ug_json_field_num(b, "rel", w->err.rel);
    ug_json_field_num(b, "abs", w->err.abs);
    ug_json_field_num(b, "bound_ratio", w->ratio);
    ug_buf_printf(b, "}");
}

/* "cpu", or the GPU's name for CUDA kernels: part of a measurement's identity across machines. */
static const char *ug_report_device(ug_backend be)
{
    static ug_gpu_info gi;
    static int have = -1;
    if (be == UG_CUDA) {
        if (have < 0) have = ug_device_info(&gi) == 0;
        if (have) return gi.name;
    }
    return "cpu";
}

void ug_report_row(ug_t *t, const ug_result *r, bool passed, int failures)
{
    if (!t->opt->report_dir) return;
    const ug_kernel *k = r->kernel;
    ug_row *row = ug_xcalloc(1, sizeof *row);
    ug_buf *b = &row->json;
    char id[512];
    if (k->op == UG_OP_GEMM)
        snprintf(id, sizeof id, "%s|%s|%s|%zux%zux%zu|%s", t->c->name, k->name, r->dist, r->gemm_m,
                 r->gemm_n, r->gemm_k, UG_VARIANT);
    else
        snprintf(id, sizeof id, "%s|%s|%s|%zu|%s", t->c->name, k->name, r->dist, r->n, UG_VARIANT);
    ug_buf_printf(b, "{\"id\":");
    ug_buf_json_str(b, id);
    ug_json_field_str(b, "case", t->c->name);
    ug_json_field_str(b, "kernel", k->name);
    ug_json_field_str(b, "backend", k->backend == UG_CUDA ? "cuda" : "cpu");
    ug_json_field_str(b, "op", ug_op_name(k->op));
    ug_json_field_str(b, "variant", UG_VARIANT);
    ug_json_field_str(b, "device", ug_report_device(k->backend));
    ug_json_field_str(b, "dist", r->dist);
    ug_json_field_num(b, "n", (double)r->n);
    if (k->op == UG_OP_GEMM) {
        ug_json_field_num(b, "m", (double)r->gemm_m);
        ug_json_field_num(b, "gemm_n", (double)r->gemm_n);
        ug_json_field_num(b, "k", (double)r->gemm_k);
    }
    ug_json_field_num(b, "trials", r->trials);
    ug_json_field_num(b, "first_trial", r->first_trial);
    ug_json_field_num(b, "elements", (double)r->elements);
    ug_json_field_num(b, "seed", (double)t->opt->seed);
    ug_json_field_num(b, "ulp_max", r->ulp_max);
    ug_json_field_num(b, "ulp_mean", r->ulp_mean);
    ug_json_field_num(b, "rel_max", r->rel_max);
    ug_json_field_num(b, "rel_mean", r->rel_mean);
    ug_json_field_num(b, "abs_max", r->abs_max);
    ug_json_field_num(b, "abs_err_sum", r->abs_err_sum);
    ug_json_field_num(b, "rel_err_sum", r->rel_err_sum);
    if (k->op != UG_OP_GEMM) {
        ug_json_field_num(b, "abs_err_sum_seedref", r->abs_err_sum_seedref);
        ug_json_field_num(b, "rel_err_sum_seedref", r->rel_err_sum_seedref);
    }
    ug_json_field_str(b, "bound_class", ug_bound_class_name(k->bound));
    ug_json_field_num(b, "bound_ratio_max", r->bound_ratio_max);
    ug_json_field_num(b, "bound_ratio_mean", r->bound_ratio_mean);
    ug_json_field_num(b, "bound_vacuous", (double)r->bound_vacuous);
    ug_json_field_num(b, "kappa_max", r->kappa_max);
    ug_buf_printf(b, ",\"correctly_rounded\":%s", r->correctly_rounded ? "true" : "false");
    ug_buf_printf(b, ",\"deterministic\":%s", !k->nondeterministic ? "true" : "false");
    if (r->repeats) {
        ug_json_field_num(b, "repeats", r->repeats);
        ug_json_field_num(b, "distinct_results", r->distinct_results);
    }
    ug_json_field_num(b, "time_ms", r->time_ms);
    if (k->op == UG_OP_GEMM)
        ug_json_field_num(b, "gflops", r->gflops);
    else
        ug_json_field_num(b, "gbps", r->gbps);
    ug_buf_printf(b, ",\"ulp_hist\":[");
    for (int i = 0; i < 16; i++) ug_buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)r->ulp_hist[i]);
    ug_buf_printf(b, "]");
    ug_json_worst(b, "worst_ulp", &r->worst_ulp);
    ug_json_worst(b, "worst_bound_ratio", &r->worst_ratio);
    if (r->seed_method) ug_json_field_num(b, "seed_method", r->seed_method);
    for (int i = 0; i < r->n_extra; i++) ug_json_field_num(b, r->extra[i].name, r->extra[i].value);
    if (r->failed_run) ug_json_field_str(b, "run_error", r->run_error);
    ug_buf_printf(b, ",\"failures\":%d,\"passed\":%s}", failures, passed ? "true" : "false");
    **t->rows_tail = row;
    *t->rows_tail = &row->next;
}

static int ug_mkdir_p(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

static void ug_meta(ug_buf *b, const ug_options *opt, int argc, char **argv, bool gpu_used)
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
    ug_json_field_str(b, "version", UG_VERSION);
    ug_json_field_str(b, "git", UG_GIT);
    ug_json_field_str(b, "date", date);
    ug_json_field_str(b, "host", host);
    ug_json_field_num(b, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
    ug_json_field_str(b, "compiler", UG_CC);
    ug_json_field_str(b, "cflags", UG_CFLAGS);
    ug_json_field_str(b, "nvcc_flags", UG_NVCC_FLAGS);
    ug_buf_printf(b, ",\"cuda_built\":%s", UG_CUDA_BUILT ? "true" : "false");
    ug_json_field_str(b, "variant", UG_VARIANT);
    ug_json_field_str(b, "oracle", ug_oracle_name(opt->oracle));
    ug_json_field_num(b, "oracle_threads", ug_par_threads());
    ug_json_field_num(b, "seed", (double)opt->seed);
    char seedhex[32];
    snprintf(seedhex, sizeof seedhex, "0x%llx", (unsigned long long)opt->seed);
    ug_json_field_str(b, "seed_hex", seedhex);
    ug_buf cmd = {0};
    for (int i = 0; i < argc; i++) ug_buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
    ug_json_field_str(b, "command", cmd.s ? cmd.s : "");
    ug_buf_free(&cmd);
    ug_gpu_info gi;
    if (gpu_used && ug_device_info(&gi) == 0) {
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", gi.cc_major, gi.cc_minor);
        ug_json_field_str(b, "device", gi.name);
        ug_buf_printf(b, ",\"gpu\":{\"name\":");
        ug_buf_json_str(b, gi.name);
        ug_json_field_str(b, "cc", cc);
        ug_json_field_num(b, "driver", gi.driver_version);
        ug_json_field_num(b, "runtime", gi.runtime_version);
        ug_json_field_num(b, "sm_count", gi.sm_count);
        ug_json_field_num(b, "mem_gib", gi.mem_gib);
        ug_json_field_str(b, "nvcc_flags", UG_NVCC_FLAGS);
        ug_buf_printf(b, "}");
    }
    if (!gpu_used) ug_json_field_str(b, "device", "cpu");
    ug_buf_printf(b, "}");
}

int ug_report_write(const ug_options *opt, ug_row *rows, int argc, char **argv, bool gpu_used,
                    int n_pass, int n_fail, int n_skip)
{
    char path[4096], tmp[4200];
    if (ug_mkdir_p(opt->report_dir) != 0) {
        fprintf(stderr, "ulpgate: --report %s: cannot create directory: %s\n", opt->report_dir,
                strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/results.json", opt->report_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    ug_buf b = {0};
    ug_buf_printf(&b, "{\"meta\":");
    ug_meta(&b, opt, argc, argv, gpu_used);
    ug_buf_printf(&b, ",\n\"summary\":{\"passed\":%d,\"failed\":%d,\"skipped\":%d},\n\"results\":[",
                  n_pass, n_fail, n_skip);
    for (ug_row *r = rows; r; r = r->next) ug_buf_printf(&b, "%s\n%s", r == rows ? "" : ",", r->json.s);
    ug_buf_printf(&b, "\n]}\n");
    FILE *f = fopen(tmp, "w");
    if (!f) goto err;
    if (fwrite(b.s, 1, b.len, f) != b.len) {
        fclose(f);
        goto err;
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fclose(f);
        goto err;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) goto err;
    ug_buf_free(&b);
    fprintf(stderr, "ulpgate: report written to %s\n", path);
    return 0;
err:
    fprintf(stderr, "ulpgate: --report %s: cannot write %s: %s\n", opt->report_dir, path,
            strerror(errno));
    unlink(tmp);
    ug_buf_free(&b);
    return -1;
}
