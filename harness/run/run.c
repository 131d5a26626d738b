/*
 * run.c - selection and the run loop: the selected units in name order, each run in a fresh
 * context; every closed test point goes to the collector, which appends its row to the results
 * list and prints its TAP line.  The caller writes reports from the list.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "kernels/device.h"
#include "kernels/plugin.h"
#include "kernels/quantize.h"
#include "kernels/registry_testing.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/parse.h"
#include "base/sys.h"
#include "harness/run/context.h"
#include "harness/run/guard.h"
#include "harness/measure/prof.h"
#include "harness/inputs/rng.h"
#include "harness/measure/run_limits.h"
#include "harness/run/run.h"
#include "harness/run/selection.h"
#include "harness/run/shard.h"
#include "harness/results/reporter.h"
#include "ops/op.h"
#include "ug_config.h"

bool ug_kernel_has_format(const ug_kernel *k, ug_fmt f)
{
    const ug_op_desc *d = ug_op_get(k->op);
    int arity = d ? d->shape->arity : 1;
    for (int i = 0; i < arity && i < UG_MAX_INPUTS; i++)
        if (k->in_store[i] == f) return true;
    return k->op_fmt == f || k->acc_fmt == f || k->out_fmt == f;
}

void ug_kernel_formats(const ug_kernel *k, char *buf, size_t len)
{
    const ug_op_desc *d = ug_op_get(k->op);
    int arity = d ? d->shape->arity : 1;
    bool same = true;
    for (int i = 1; i < arity && i < UG_MAX_INPUTS; i++) same &= k->in_store[i] == k->in_store[0];
    snprintf(buf, len, "%s%s%s>%s>%s", ug_fmt_name(k->in_store[0]), same ? "" : ",",
             same ? "" : ug_fmt_name(k->in_store[1]), ug_fmt_name(k->acc_fmt),
             ug_fmt_name(k->out_fmt));
    if (k->op_fmt != k->in_store[0])
        snprintf(buf + strlen(buf), len - strlen(buf), " op %s", ug_fmt_name(k->op_fmt));
}

bool ug_builtin_selected(const ug_t *t, const char *name)
{
    /* --format narrows the registry's kernels by their operand formats; a quantizer has none
     * (binary32 in, elements and scales out): a run narrowed by format runs none */
    if (!ug_registry_has_builtin() || t->opt->format_set) return false;
    const char *glob = t->opt->kernel;
    if (!glob) return true;
    char id[200];
    snprintf(id, sizeof id, "%.150s@default", name);
    return fnmatch(glob, strchr(glob, '@') ? id : name, 0) == 0; /* as ug_kernel_matches */
}

void ug_case_ran_kernel(ug_t *t)
{
    (void)t;
    ug_direct_kernel_ran();
}

const ug_kernel *ug_builtin_kernel(ug_t *t, const char *name)
{
    const ug_kernel *k = ug_kernel_find(name);
    char why[400], g[200];
    if (!k && !ug_registry_has_builtin()) {
        snprintf(why, sizeof why, "about the built-in kernel %s: not loaded (--no-builtin)", name);
        ug_skip(t, why);
    }
    /* the run's kernel selection holds for a case that names its kernel too: else --kernel X
     * would measure (and pass) kernels that are not X */
    if (k && t->opt->kernel && !ug_kernel_matches(k, t->opt->kernel)) {
        snprintf(why, sizeof why, "about the kernel %s, which --kernel '%s' leaves out", k->id,
                 ug_escape(t->opt->kernel, g, sizeof g));
        ug_skip(t, why);
    }
    if (k && t->opt->format_set && !ug_kernel_has_format(k, t->opt->format)) {
        snprintf(why, sizeof why, "about the kernel %s, which --format %s leaves out", k->id,
                 ug_fmt_name(t->opt->format));
        ug_skip(t, why);
    }
    return k;
}

const ug_kernel *ug_next_kernel(ug_t *t, size_t *it, ug_op op, int backend, const char *glob)
{
    return ug_next_kernel_fmt(t, it, op, backend, glob, UG_F32);
}

/* The walk of both: by_input selects on input 0's storage alone (ug_next_kernel_in), else
 * UG_F32 means binary32 buffers throughout (ug_kernel_is_f32) and another format input 0's. */
static const ug_kernel *ug_next_kernel_walk(ug_t *t, size_t *it, ug_op op, int backend,
                                            const char *glob, ug_fmt in_fmt, bool by_input)
{
    for (const ug_kernel *k; (k = ug_kernel_at(*it));) {
        ++*it;
        if (k->op != op) continue;
        if (by_input || in_fmt != UG_F32 ? k->in_store[0] != in_fmt : !ug_kernel_is_f32(k)) continue;
        if (backend != UG_ANY_BACKEND && (int)k->backend != backend) continue;
        if (glob && !ug_kernel_matches(k, glob)) continue;
        if (t->opt->kernel && !ug_kernel_matches(k, t->opt->kernel)) continue;
        if (t->opt->format_set && !ug_kernel_has_format(k, t->opt->format)) continue;
        return k;
    }
    return NULL;
}

const ug_kernel *ug_next_kernel_fmt(ug_t *t, size_t *it, ug_op op, int backend, const char *glob,
                                    ug_fmt in_fmt)
{
    return ug_next_kernel_walk(t, it, op, backend, glob, in_fmt, false);
}

const ug_kernel *ug_next_kernel_in(ug_t *t, size_t *it, ug_op op, int backend, const char *glob,
                                   ug_fmt in_fmt)
{
    return ug_next_kernel_walk(t, it, op, backend, glob, in_fmt, true);
}

bool ug_any_kernel_fmt(ug_t *t, ug_op op, int backend, const char *glob, ug_fmt in_fmt)
{
    size_t it = 0;
    return ug_next_kernel_walk(t, &it, op, backend, glob, in_fmt, false) != NULL;
}

/* ---- the collector ------------------------------------------------------------------------------ */

typedef struct {
    const ug_options *opt;
    ug_results *res;
    FILE *out;
    int tap_index;
    ug_reporter *reps[2 + 8]; /* console or TAP, JUnit, then the registered ones */
    int n_reps;
    char gpu_name[256]; /* the device of CUDA rows, looked up once */
    uint64_t *ids;      /* hashes of the row ids so far (open addressing, 0 = empty) */
    size_t ids_cap, ids_n;
} ug_collector;

/* Whether a row id was seen before in this run (and remember it).  Two test points with one id
 * would be one row to the gate, to merge and to a rerun line: the second is failed.  Cost: one
 * hash and a probe per point; a hash match is confirmed against the rows themselves. */
static bool ug_id_seen(ug_collector *col, const char *id)
{
    uint64_t h = ug_hash64(id, UG_HASH64_INIT) | 1;
    if (2 * (col->ids_n + 1) > col->ids_cap) {
        size_t cap = col->ids_cap ? 2 * col->ids_cap : 4096;
        uint64_t *n = ug_xcalloc(cap, sizeof *n);
        for (size_t i = 0; i < col->ids_cap; i++)
            if (col->ids[i]) {
                size_t j = col->ids[i] & (cap - 1);
                while (n[j]) j = (j + 1) & (cap - 1);
                n[j] = col->ids[i];
            }
        free(col->ids);
        col->ids = n;
        col->ids_cap = cap;
    }
    size_t j = h & (col->ids_cap - 1);
    bool maybe = false;
    for (; col->ids[j]; j = (j + 1) & (col->ids_cap - 1))
        if (col->ids[j] == h) maybe = true;
    if (maybe)
        for (size_t r = 0; r < col->res->count; r++)
            if (strcmp(col->res->rows[r].id, id) == 0) return true;
    col->ids[j] = h;
    col->ids_n++;
    return false;
}

static void ug_collect(void *ctx, const ug_t *t, const ug_point_record *p)
{
    ug_collector *col = ctx;
    const char *device = "cpu";
    if (p->result && p->result->kernel->backend == UG_CUDA) {
        if (!col->gpu_name[0]) {
            ug_gpu_info gi;
            snprintf(col->gpu_name, sizeof col->gpu_name, "%s",
                     ug_device_info(&gi) == 0 ? gi.name : "no GPU");
        }
        device = col->gpu_name;
    }
    ug_row row;
    ug_row_from_point(&row, t->unit->name, p, device, col->opt->seed);
    ug_point_record dup;
    ug_buf diag = {0};
    if (ug_id_seen(col, row.id)) {
        dup = *p;
        dup.status = UG_ST_FAIL;
        dup.failures = p->failures + 1;
        ug_buf_printf(&diag, "%s# duplicate test point: an earlier point of this run has the id "
                      "\"%s\" (name each point by what differs, e.g. the kernel's name@variant)\n",
                      p->diag ? p->diag : "", row.id);
        dup.diag = ug_buf_str(&diag);
        p = &dup;
        ug_row_from_point(&row, t->unit->name, p, device, col->opt->seed);
    }
    ug_guard_lock(); /* the watchdog may finish the run from its thread: never half a row */
    ug_results_add(col->res, &row);
    ++col->tap_index;
    for (int i = 0; i < col->n_reps; i++) col->reps[i]->point(col->reps[i], col->tap_index, p, &row);
    ug_guard_unlock();
    ug_guard_output(col->out);
    if (col->opt->progress) fprintf(stderr, "\r\033[K[%d] %s", col->tap_index, p->name);
    ug_buf_free(&diag);
}

size_t ug_unmeasured_kernels(const ug_results *res, bool gpu, const char **missing, size_t cap)
{
    size_t count = 0;
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        if ((k->backend == UG_CUDA && !gpu) || ug_kernel_is_fixture(k)) continue;
        bool seen = false;
        for (size_t r = 0; r < res->count && !seen; r++)
            seen = res->rows[r].measured && strcmp(res->rows[r].kernel, k->id) == 0;
        if (!seen && count++ < cap) missing[count - 1] = k->id;
    }
    return count;
}

/* After a whole run (no selection narrowing it): every registered kernel that can run here must
 * have been measured by some case, else a registered kernel could be broken and nothing would
 * say so.  One test point, "coverage every_kernel_measured". */
static void ug_check_coverage(const ug_options *opt, ug_collector *col)
{
    if (opt->filter || opt->kernel || opt->format_set || opt->n || opt->trial >= 0 ||
        opt->slow_only || opt->shard_n)
        return; /* a sharded run: `ulpgate merge` checks coverage over every shard */
    const char *missing[256];
    size_t count = ug_unmeasured_kernels(col->res, ug_gpu_available(), missing, 256);
    ug_buf diag = {0};
    for (size_t i = 0; i < count && i < 256; i++) {
        const ug_kernel *k = ug_kernel_find(missing[i]);
        ug_buf_printf(&diag, "# %s (%s) is registered but no case measures it\n", missing[i],
                      k ? k->doc : "");
    }
    static const ug_unit coverage_unit = {.name = "coverage"};
    ug_t t;
    memset(&t, 0, sizeof t);
    t.unit = &coverage_unit;
    ug_point_record rec = {.name = "coverage every_kernel_measured",
                           .status = count ? UG_ST_FAIL : UG_ST_PASS,
                           .failures = (int)count,
                           .diag = ug_buf_str(&diag)};
    ug_collect(col, &t, &rec);
    ug_buf_free(&diag);
}

/* After the run: a kernel the user put under test (named by --kernel, or a plugin's) that
 * declined every call as unsupported was measured nowhere; the run's other measurements would
 * make it green.  One failed point, "coverage selected_kernels_measured", naming each with
 * its reason.  A built-in kernel unsupported here (a cross-GPU kernel on one GPU) is the
 * machine's nature and is not failed; a shard may hold none of a kernel's supported points. */
static void ug_check_unsupported(const ug_options *opt, ug_collector *col)
{
    if (opt->shard_n) return;
    enum { UG_UN_MAX = 64 };
    const ug_kernel *un[UG_UN_MAX];
    const char *why[UG_UN_MAX];
    size_t calls[UG_UN_MAX], n = ug_kernels_unsupported_everywhere(un, why, calls, UG_UN_MAX);
    ug_buf diag = {0};
    int flagged = 0;
    for (size_t i = 0; i < n && i < UG_UN_MAX; i++) {
        if (!(opt->kernel && ug_kernel_matches(un[i], opt->kernel)) && !ug_kernel_is_plugin(un[i]))
            continue;
        char w[240];
        ug_buf_printf(&diag, "# %s was unsupported on every one of its %zu calls (%s): nothing "
                      "of it was measured; leave it out of the selection on this machine, or run "
                      "where it is supported\n", un[i]->id, calls[i], ug_escape(why[i], w, sizeof w));
        flagged++;
    }
    if (flagged) {
        static const ug_unit coverage_unit = {.name = "coverage"};
        ug_t t;
        memset(&t, 0, sizeof t);
        t.unit = &coverage_unit;
        ug_point_record rec = {.name = "coverage selected_kernels_measured",
                               .status = UG_ST_FAIL, .failures = flagged,
                               .diag = ug_buf_str(&diag)};
        ug_collect(col, &t, &rec);
    }
    ug_buf_free(&diag);
}

/* ---- the loop ---------------------------------------------------------------------------------- */

static void ug_case_cleanup(ug_t *t)
{
    for (size_t i = 0; i < t->m.n_results; i++) ug_result_free(t->m.results[i]);
    for (size_t i = 0; i < t->m.n_inputs; i++) ug_input_release(t->m.inputs[i]);
    free(t->m.results);
    free(t->m.inputs);
    ug_buf_free(&t->pt.diag);
}

/* One unit in a fresh context; an UG_ASSERT or ug_skip leaves its body through the longjmp. */
static void ug_run_unit(const ug_options *opt, const ug_unit *u, ug_collector *col)
{
    double t0 = ug_now_s();
    ug_t t;
    memset(&t, 0, sizeof t);
    t.unit = u;
    t.c = u->c;
    t.opt = opt;
    ug_case_context(&t, opt, u);
    t.sink = ug_collect;
    t.sink_ctx = col;
    ug_guard_unit(u); /* the per-case time limit runs from here */
    if (setjmp(t.jb) == 0) u->c->fn(&t);
    /* a case that measured nothing still gets its own test point: a skip where the run's own
     * selection left out every kernel or size it has (a pass would say something was checked;
     * the gate and `baseline update` leave such points of a narrowed run alone) */
    if (!t.pt.open && t.points == 0) {
        ug_point_open(&t, u->name, NULL);
        if (opt->kernel || opt->format_set || opt->n || !ug_registry_has_builtin()) {
            char sel[300];
            snprintf(sel, sizeof sel, "%s%.200s%s%s%s%s", opt->kernel ? " --kernel '" : "",
                     opt->kernel ? opt->kernel : "", opt->kernel ? "'" : "",
                     opt->format_set ? " --format" : "", opt->n ? " --n" : "",
                     ug_registry_has_builtin() ? "" : " --no-builtin");
            t.pt.skipped = true;
            snprintf(t.pt.skip_reason, sizeof t.pt.skip_reason,
                     "the run's selection (%s) leaves out every kernel and size it has", sel + 1);
        }
    }
    ug_point_close(&t);
    ug_case_cleanup(&t);
    ug_guard_lock();
    ug_results_add_unit(col->res, u->name, ug_now_s() - t0);
    ug_guard_unlock();
    ug_guard_unit(NULL);
    for (int i = 0; i < col->n_reps; i++) col->reps[i]->case_done(col->reps[i], u->name);
}

/* The reporters of a run (reporter.h): the console's or TAP's on out, JUnit's, the registered
 * ones; each begun. */
static void ug_reporters_begin(ug_collector *col, const ug_options *opt, FILE *out, int cases,
                               const char *comment)
{
    col->reps[col->n_reps++] = opt->tap ? ug_reporter_tap() : ug_reporter_console();
    col->reps[col->n_reps++] = ug_reporter_junit();
    for (int i = 0; ug_reporter_registered(i); i++) col->reps[col->n_reps++] = ug_reporter_registered(i);
    ug_run_start s = {out, isatty(fileno(out)) != 0, cases, comment, opt->report_dir};
    for (int i = 0; i < col->n_reps; i++) col->reps[i]->begin(col->reps[i], &s);
}

/* Each reporter's end (res NULL: interrupted), the built-in ones freed. */
static void ug_reporters_end(ug_collector *col, const ug_results *res, const char *notes)
{
    for (int i = 0; i < col->n_reps; i++) col->reps[i]->end(col->reps[i], res, notes);
    ug_reporter_free(col->reps[0]);
    ug_reporter_free(col->reps[1]);
    col->n_reps = 0;
}

/* ---- shards ------------------------------------------------------------------------------------- */

static ug_shard_info ug_shard;

const ug_shard_info *ug_run_shard_info(void) { return ug_shard.n ? &ug_shard : NULL; }

/* Plan the shards over the selected units; sel[i] tells whether units[i] is in this shard. */
static void ug_plan_shards(const ug_options *opt, const ug_unit *units, size_t count, bool *sel)
{
    free(ug_shard.names);
    free(ug_shard.assign);
    memset(&ug_shard, 0, sizeof ug_shard);
    if (!opt->shard_n) return;
    ug_shard.names = ug_xcalloc(count, sizeof *ug_shard.names);
    ug_shard.assign = ug_xcalloc(count, sizeof *ug_shard.assign);
    size_t *index = ug_xcalloc(count, sizeof *index);
    for (size_t i = 0; i < count; i++)
        if (sel[i]) {
            index[ug_shard.count] = i;
            ug_shard.names[ug_shard.count++] = units[i].name;
        }
    ug_shard.k = opt->shard_k;
    ug_shard.n = opt->shard_n;
    ug_shard.plan = ug_shard_plan(ug_shard.names, ug_shard.count, opt->shard_n, ug_shard.assign);
    for (size_t j = 0; j < ug_shard.count; j++) sel[index[j]] = ug_shard.assign[j] == opt->shard_k;
    free(index);
}

/* Whether the GPU cases (UG_CASE_GPU) can measure anything in this run, else why not, in why:
 * a CUDA device, and a CUDA kernel loaded (the built-in families of a CUDA build, or a
 * plugin's).  With --no-builtin and plugins that all run on the CPU (the quick start's sum, a
 * CMake example's dot) no GPU case has a kernel to measure, yet each would still draw its inputs
 * and their exact results (2^26-element sums: tens of seconds on a GPU machine, for no point):
 * they are skipped as on a machine without a device, saying why.  Cost: one pass over the
 * registry. */
static bool ug_gpu_cases_run(char *why, size_t len)
{
    if (!ug_gpu_available()) {
        snprintf(why, len, "no CUDA device (%s)", ug_gpu_why());
        return false;
    }
    for (size_t i = 0; i < ug_kernel_count(); i++)
        if (ug_kernel_at(i)->backend == UG_CUDA) return true;
    snprintf(why, len, "no CUDA kernel loaded (--no-builtin, and no plugin kernel runs on CUDA)");
    return false;
}

int ug_run(const ug_options *opt, ug_results *res, FILE *out)
{
    size_t count, n_sel = 0, n_gpu = 0;
    char err[1200];
    const ug_unit *units = ug_units_with_corpus(opt, &count, err, sizeof err);
    if (!units) return fprintf(stderr, "ulpgate: %s\n", err), 2;
    for (size_t i = 0; i < count; i++)
        if (ug_unit_selected(opt, &units[i])) {
            n_sel++;
            n_gpu += (units[i].c->flags & UG_CASE_GPU) != 0;
        }
    if (n_sel == 0) return ug_no_case_error(opt, units, count);
    if (opt->kernel) {
        bool any = false;
        for (size_t i = 0; i < ug_kernel_count() && !any; i++)
            any = ug_kernel_matches(ug_kernel_at(i), opt->kernel);
        /* the quantizers are kernels a case grades by name (ug_builtin_selected) */
        for (size_t i = 0; ug_quantizer_at(i) && !any; i++) {
            char id[200];
            snprintf(id, sizeof id, "%.150s@default", ug_quantizer_at(i)->name);
            any = fnmatch(opt->kernel, strchr(opt->kernel, '@') ? id : ug_quantizer_at(i)->name,
                          0) == 0;
        }
        if (!any) return ug_no_kernel_error(opt);
    }
    char comment[256];
    snprintf(comment, sizeof comment, "ulpgate %s, seed 0x%llx, oracle %s", UG_VERSION,
             (unsigned long long)opt->seed, ug_oracle_name(opt->oracle));
    bool *sel = ug_xcalloc(count, sizeof *sel);
    for (size_t i = 0; i < count; i++) sel[i] = ug_unit_selected(opt, &units[i]);
    ug_plan_shards(opt, units, count, sel);
    /* without --tap: progress, failures in full, a summary (console.h); with --report, JUnit */
    int n_cases = 0;
    for (size_t i = 0; i < count; i++) n_cases += sel[i];
    ug_collector col = {.opt = opt, .res = res, .out = out};
    ug_reporters_begin(&col, opt, out, n_cases, comment);
    /* probed only when a GPU case is selected (or none at all, as before): a run of CPU cases
     * never touches the device, so its results name no GPU (the device key of its baseline,
     * and the default block-FMA models, stay the CPU's) */
    char gpu_why[300] = "";
    bool gpu_cases = (n_gpu > 0 || n_sel == 0) && ug_gpu_cases_run(gpu_why, sizeof gpu_why);
    if (n_gpu == n_sel && !gpu_cases) {
        if (opt->tap) fprintf(out, "1..0 # SKIP %s\n", gpu_why);
        else if (!ug_gpu_available())
            fprintf(out, "skipped: the %d selected case%s need%s a CUDA device: none (%s)\n", n_cases,
                    n_cases == 1 ? "" : "s", n_cases == 1 ? "s" : "", ug_gpu_why());
        else
            fprintf(out, "skipped: the %d selected case%s need%s a CUDA kernel: %s\n", n_cases,
                    n_cases == 1 ? "" : "s", n_cases == 1 ? "s" : "", gpu_why);
        /* the report still says what was skipped, as a run of more cases does (a shard's
         * report, merge --parts) */
        const char *why = gpu_why;
        for (size_t i = 0; i < count; i++) {
            if (!sel[i]) continue;
            ug_row row;
            ug_point_record rec = {.name = units[i].name, .status = UG_ST_SKIP, .skip_reason = why, .diag = ""};
            ug_row_from_point(&row, units[i].name, &rec, "cpu", opt->seed);
            ug_results_add(res, &row);
            ug_results_add_unit(res, units[i].name, 0);
        }
        free(sel);
        ug_reporters_end(&col, NULL, NULL);
        return 0;
    }
    double t_run = ug_now_s();
    for (size_t i = 0; i < count; i++) {
        const ug_unit *u = &units[i];
        if (!sel[i]) continue;
        if (ug_guard_stopping()) break; /* a signal: what ran is kept, the rest is not started */
        if ((u->c->flags & UG_CASE_GPU) && !gpu_cases) {
            ug_point_record rec = {.name = u->name, .status = UG_ST_SKIP, .skip_reason = gpu_why, .diag = ""};
            ug_t t;
            memset(&t, 0, sizeof t);
            t.unit = u;
            ug_collect(&col, &t, &rec);
            ug_guard_lock();
            ug_results_add_unit(res, u->name, 0);
            ug_guard_unlock();
            for (int r = 0; r < col.n_reps; r++) col.reps[r]->case_done(col.reps[r], u->name);
            continue;
        }
        ug_run_unit(opt, u, &col);
    }
    free(sel);
    if (ug_guard_stopping()) {
        free(col.ids);
        ug_reporters_end(&col, NULL, NULL);
        return ug_guard_bail(out, col.tap_index, res, opt->progress);
    }
    ug_check_coverage(opt, &col);
    ug_check_unsupported(opt, &col);
    free(col.ids); /* the last point is collected */
    if (opt->progress) fprintf(stderr, "\r\033[K");
    /* the run's notes, "# ..." lines each reporter places: the GPU oracle's tally, time by phase */
    char *notes = NULL;
    size_t notes_len = 0;
    FILE *nf = open_memstream(&notes, &notes_len);
    if (nf) {
        ug_gpu_oracle_tally g = ug_gpu_oracle_counts();
        if (g.impl)
            fprintf(nf, "# gpu oracle (%s): %zu results, %zu cross-checked against the fast oracle, "
                        "%zu differ\n", g.impl, g.results, g.checked, g.differ);
        ug_prof_print(nf, ug_now_s() - t_run, 8);
        fclose(nf);
    }
    ug_reporters_end(&col, res, notes);
    free(notes);
    fflush(out);
    int usage = ug_selection_error(opt, res, units, count);
    return usage ? usage : ug_results_status(res);
}

