/*
 * runner.c - case registration, selection, the run loop, TAP output and assertions.
 *
 * Output is TAP on stdout: one test point per measurement ("case kernel n=N") or per case without
 * measurements, diagnostics as "# " lines after it, the plan at the end (TAP allows it there),
 * "1..0 # SKIP reason" up front when nothing selected can run.  Progress goes to stderr, and only
 * when stderr is a terminal.
 */
#include "runner.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ug_config.h"

#include "../kernels/device.h"

/* ---- registration ---------------------------------------------------------------------------- */

static ug_case *ug_case_list;
static bool ug_case_sorted;

void ug_case_register(ug_case *c)
{
    c->next = ug_case_list;
    ug_case_list = c;
    ug_case_sorted = false;
}

static int ug_case_cmp(const void *a, const void *b)
{
    const ug_case *x = *(const ug_case *const *)a, *y = *(const ug_case *const *)b;
    return strcmp(x->name, y->name);
}

/* The cases sorted by name: constructor order differs between linkers, the report must not. */
const ug_case *ug_cases(void)
{
    if (ug_case_sorted) return ug_case_list;
    size_t n = 0;
    for (ug_case *c = ug_case_list; c; c = c->next) n++;
    if (n == 0) return NULL;
    ug_case **v = ug_xmalloc(n * sizeof *v);
    n = 0;
    for (ug_case *c = ug_case_list; c; c = c->next) v[n++] = c;
    qsort(v, n, sizeof *v, ug_case_cmp);
    for (size_t i = 0; i + 1 < n; i++) v[i]->next = v[i + 1];
    v[n - 1]->next = NULL;
    ug_case_list = v[0];
    free(v);
    ug_case_sorted = true;
    return ug_case_list;
}

/* ---- GPU availability -------------------------------------------------------------------------- */

static int ug_gpu_state = -1; /* -1 unknown, 0 no, 1 yes */
static char ug_gpu_why[256] = "built without CUDA";

bool ug_gpu_available(void)
{
    if (ug_gpu_state < 0) {
        ug_gpu_state = ug_device_probe(ug_gpu_why, sizeof ug_gpu_why) ? 1 : 0;
    }
    return ug_gpu_state == 1;
}

bool ug_gpu_used(void) { return ug_gpu_state == 1; }

/* ---- selection ----------------------------------------------------------------------------------- */

static bool ug_case_selected(const ug_options *o, const ug_case *c)
{
    if (o->filter && fnmatch(o->filter, c->name, 0) != 0) return false;
    /* A canary must fail: it runs only when a --filter names it. */
    if ((c->flags & UG_CASE_SHOULD_FAIL) && !o->filter) return false;
    if (c->flags & UG_CASE_SLOW) return o->slow || o->slow_only;
    return !o->slow_only;
}

int ug_list(void)
{
    printf("cases:\n");
    for (const ug_case *c = ug_cases(); c; c = c->next)
        printf("  %-36s %s%s%s(%s:%d)\n", c->name, c->flags & UG_CASE_GPU ? "[gpu] " : "",
               c->flags & UG_CASE_SLOW ? "[slow] " : "",
               c->flags & UG_CASE_SHOULD_FAIL ? "[canary: must fail] " : "", ug_src_path(c->file), c->line);
    printf("kernels:\n");
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        printf("  %-34s %-4s %-4s %-9s %-13s %s\n", k->id, ug_op_name(k->op),
               k->backend == UG_CUDA ? "cuda" : "cpu", ug_bound_class_name(k->bound),
               !k->nondeterministic ? "deterministic" : "nondeterm.", k->doc);
    }
    return 0;
}

/* ---- test points ----------------------------------------------------------------------------------- */

void ug_tp_open(ug_t *t, const char *name, ug_result *r)
{
    ug_tp_close(t);
    t->tp_open = true;
    snprintf(t->tp_name, sizeof t->tp_name, "%s", name);
    t->tp_failed = t->tp_skipped = false;
    t->tp_failures = 0;
    t->tp_result = r;
    if (t->opt->progress) fprintf(stderr, "\r\033[K[%d] %s", *t->tap_index + 1, name);
}

void ug_tp_close(ug_t *t)
{
    if (!t->tp_open) return;
    int idx = ++*t->tap_index;
    if (t->tp_skipped) {
        printf("ok %d - %s # SKIP %s\n", idx, t->tp_name, t->tp_skip_reason);
        ++*t->n_skip;
    } else {
        printf("%sok %d - %s\n", t->tp_failed ? "not " : "", idx, t->tp_name);
        ++*(t->tp_failed ? t->n_fail : t->n_pass);
    }
    if (t->tp_diag.len) fputs(t->tp_diag.s, stdout);
    fflush(stdout);
    if (t->tp_result) ug_report_row(t, t->tp_result, !t->tp_failed, t->tp_failures);
    t->tp_diag.len = 0;
    if (t->tp_diag.s) t->tp_diag.s[0] = 0;
    t->tp_open = false;
    t->tp_result = NULL;
}

static void ug_tp_ensure(ug_t *t)
{
    if (!t->tp_open) ug_tp_open(t, t->c->name, NULL);
}

void ug_point(ug_t *t, const char *fmt, ...)
{
    char name[256], full[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "%s %s", t->c->name, name);
    ug_tp_open(t, full, NULL);
}

void ug_note(ug_t *t, const char *fmt, ...)
{
    ug_buf line = {0};
    va_list ap;
    va_start(ap, fmt);
    ug_buf_vprintf(&line, fmt, ap);
    va_end(ap);
    /* one "# " per physical line, so a table stays TAP */
    for (char *p = line.s, *nl; p && *p; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        if (t->tp_open)
            ug_buf_printf(&t->tp_diag, "# %.*s\n", len, p);
        else
            printf("# %.*s\n", len, p);
        if (!nl) break;
    }
    ug_buf_free(&line);
}

void ug_skip(ug_t *t, const char *reason)
{
    ug_tp_ensure(t);
    t->tp_skipped = true;
    snprintf(t->tp_skip_reason, sizeof t->tp_skip_reason, "%s", reason);
    t->case_skipped = true;
    ug_abort_case(t);
}

void ug_abort_case(ug_t *t) { longjmp(t->jb, 1); }

uint64_t ug_seed(const ug_t *t) { return t->opt->seed; }
const char *ug_case_name(const ug_t *t) { return t->c->name; }
int ug_trials(const ug_t *t, int dflt) { return t->opt->trials > 0 ? t->opt->trials : dflt; }

bool ug_n_selected(ug_t *t, size_t n) { return t->opt->n == 0 || t->opt->n == n; }

const ug_kernel *ug_next_kernel(ug_t *t, size_t *it, ug_op op, int backend, const char *glob)
{
    for (const ug_kernel *k; (k = ug_kernel_at(*it)); ) {
        ++*it;
        if (k->op != op) continue;
        if (backend != UG_ANY_BACKEND && (int)k->backend != backend) continue;
        if (glob && !ug_kernel_matches(k, glob)) continue;
        if (t->opt->kernel && !ug_kernel_matches(k, t->opt->kernel)) continue;
        return k;
    }
    return NULL;
}

/* ---- failures ---------------------------------------------------------------------------------------- */

/* __FILE__ as meson passes it ("../cases/x.c", "../../src/cases/x.c"): shown from the project
 * root, as a user would open it. */
const char *ug_src_path(const char *file)
{
    static const char *const roots[] = {"cases/", "harness/", "kernels/", "oracle/"};
    const char *best = file;
    for (const char *p = file; *p; p++) {
        if (p != file && p[-1] != '/') continue;
        for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
            if (strncmp(p, roots[i], strlen(roots[i])) == 0) best = p;
    }
    return best;
}

void ug_fail_header(ug_t *t, const char *file, int line, const char *expr, const char *fmt, ...)
{
    ug_tp_ensure(t);
    t->tp_failed = true;
    t->tp_failures++;
    ug_buf_printf(&t->tp_diag, "# %s:%d: %s failed", ug_src_path(file), line, expr);
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        ug_buf_printf(&t->tp_diag, ": ");
        ug_buf_vprintf(&t->tp_diag, fmt, ap);
        va_end(ap);
    }
    ug_buf_printf(&t->tp_diag, "\n");
}

void ug_rerun_line(ug_t *t, const ug_result *r, int trial)
{
    const ug_options *o = t->opt;
    ug_buf_printf(&t->tp_diag, "#   rerun: %s run --filter %s", o->argv0, t->c->name);
    if (r) ug_buf_printf(&t->tp_diag, " --kernel %s --n %zu", r->kernel->name, r->n);
    if (trial >= 0) ug_buf_printf(&t->tp_diag, " --trial %d", trial);
    if (o->trials) ug_buf_printf(&t->tp_diag, " --trials %d", o->trials);
    if (t->c->flags & UG_CASE_SLOW) ug_buf_printf(&t->tp_diag, " --slow");
    if (o->oracle == UG_ORACLE_MPFR) ug_buf_printf(&t->tp_diag, " --oracle mpfr");
    ug_buf_printf(&t->tp_diag, " --seed 0x%llx\n", (unsigned long long)o->seed);
}

static const char *ug_metric_name(ug_metric m)
{
    static const char *const names[] = {"max", "mean", "max rel", "mean rel", "max abs", "max bound ratio"};
    return names[m];
}

static const char *ug_metric_unit(ug_metric m)
{
    return m == UG_M_ULP_MAX || m == UG_M_ULP_MEAN ? " ulp" : "";
}

static double ug_metric_value(const ug_result *r, ug_metric m)
{
    switch (m) {
    case UG_M_ULP_MAX: return r->ulp_max;
    case UG_M_ULP_MEAN: return r->ulp_mean;
    case UG_M_REL_MAX: return r->rel_max;
    case UG_M_REL_MEAN: return r->rel_mean;
    case UG_M_ABS_MAX: return r->abs_max;
    case UG_M_RATIO_MAX: return r->bound_ratio_max;
    }
    return 0;
}

static const ug_worst *ug_metric_worst(const ug_result *r, ug_metric m)
{
    switch (m) {
    case UG_M_REL_MAX:
    case UG_M_REL_MEAN: return &r->worst_rel;
    case UG_M_ABS_MAX: return &r->worst_abs;
    case UG_M_RATIO_MAX: return &r->worst_ratio;
    default: return &r->worst_ulp;
    }
}

/* The worst element's block of a failure: where, got and exact in hex and decimal, its errors. */
static void ug_worst_lines(ug_t *t, const ug_result *r, const ug_worst *w)
{
    char g[64], e[64], rn[64];
    if (!w->set) {
        ug_rerun_line(t, r, -1);
        return;
    }
    ug_buf_printf(&t->tp_diag, "#   worst: trial %d, element %zu: got %s (%.9g) exact %s (%.17g",
                  w->trial, w->index, ug_hex(w->got, g), w->got, ug_hex(w->exact.hi, e),
                  w->exact.hi);
    if (w->exact.lo != 0) ug_buf_printf(&t->tp_diag, " %+.3g", w->exact.lo);
    ug_buf_printf(&t->tp_diag, "), correctly rounded %s\n", ug_hexf(w->exact.rn, rn));
    ug_buf_printf(&t->tp_diag, "#   ulp %.4g, rel %.3g, abs %.3g, bound ratio %.3g (bound %.3g, %s), seed 0x%llx\n",
                  w->err.ulp, w->err.rel, w->err.abs, w->ratio, w->bound,
                  ug_bound_class_name(r->kernel->bound), (unsigned long long)t->opt->seed);
    ug_rerun_line(t, r, w->trial);
}

bool ug_check_metric(ug_t *t, const ug_result *r, ug_metric m, double limit, const char *expr,
                     const char *file, int line, bool fatal)
{
    (void)fatal;
    if (!r) return true;
    if (r->failed_run) return false; /* already reported by ug_measure */
    double v = ug_metric_value(r, m);
    if (v <= limit) return true;
    ug_fail_header(t, file, line, expr, "%s %.4g%s > %g", ug_metric_name(m), v,
                   ug_metric_unit(m), limit);
    ug_worst_lines(t, r, ug_metric_worst(r, m));
    return false;
}

bool ug_check_bitwise(ug_t *t, const ug_result *a, const ug_result *b, const char *expr,
                      const char *file, int line, bool fatal)
{
    (void)fatal;
    if (a->failed_run || b->failed_run) return false;
    if (a->trials != b->trials || a->elements != b->elements) {
        ug_fail_header(t, file, line, expr, "shapes differ (%d x %zu vs %d x %zu)", a->trials,
                       a->elements, b->trials, b->elements);
        return false;
    }
    for (int tr = 0; tr < a->trials; tr++)
        for (size_t i = 0; i < a->elements; i++)
            if (!ug_same_f32(a->out[tr][i], b->out[tr][i])) {
                char x[64], y[64];
                ug_fail_header(t, file, line, expr, "%s and %s differ", a->kernel->name,
                               b->kernel->name);
                ug_buf_printf(&t->tp_diag, "#   first difference: trial %d, element %zu: %s vs %s\n",
                              tr + a->first_trial, i, ug_hexf(a->out[tr][i], x),
                              ug_hexf(b->out[tr][i], y));
                ug_rerun_line(t, a, tr + a->first_trial);
                return false;
            }
    return true;
}

bool ug_check_correctly_rounded(ug_t *t, const ug_result *r, const char *expr, const char *file,
                                int line, bool fatal)
{
    (void)fatal;
    if (r->failed_run) return false;
    if (r->correctly_rounded) return true;
    ug_fail_header(t, file, line, expr, "not every output is the correctly rounded result");
    ug_worst_lines(t, r, &r->worst_ulp);
    return false;
}

bool ug_check_distinct_max(ug_t *t, const ug_result *r, int max, const char *expr,
                           const char *file, int line, bool fatal)
{
    (void)fatal;
    if (r->failed_run) return false;
    if (r->distinct_results <= max) return true;
    ug_fail_header(t, file, line, expr, "%d distinct results over %d repeats > %d",
                   r->distinct_results, r->repeats, max);
    ug_rerun_line(t, r, r->first_trial);
    return false;
}

bool ug_check(ug_t *t, bool ok, const char *expr, const char *file, int line, bool fatal,
              const char *fmt, ...)
{
    (void)fatal;
    if (ok) return true;
    ug_buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    ug_buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    ug_fail_header(t, file, line, expr, "%s", msg.s ? msg.s : "");
    ug_buf_free(&msg);
    ug_rerun_line(t, NULL, -1);
    return false;
}

/* ---- the run loop -------------------------------------------------------------------------------- */

static void ug_case_cleanup(ug_t *t)
{
    for (size_t i = 0; i < t->n_results; i++) ug_result_free(t->results[i]);
    for (size_t i = 0; i < t->n_inputs; i++) ug_input_release(t->inputs[i]);
    free(t->results);
    free(t->inputs);
    t->results = NULL;
    t->inputs = NULL;
    t->n_results = t->cap_results = t->n_inputs = t->cap_inputs = 0;
}

/* Run every selected case.  Returns the exit code: 0 all passed, 1 a failure. */
int ug_run(const ug_options *opt, int argc, char **argv)
{
    int tap_index = 0, n_pass = 0, n_fail = 0, n_skip = 0, n_sel = 0, n_gpu = 0;
    ug_row *rows = NULL, **tail = &rows;

    for (const ug_case *c = ug_cases(); c; c = c->next)
        if (ug_case_selected(opt, c)) {
            n_sel++;
            n_gpu += (c->flags & UG_CASE_GPU) != 0;
        }
    printf("TAP version 13\n");
    printf("# ulpgate %s, seed 0x%llx, oracle %s\n", UG_VERSION,
           (unsigned long long)opt->seed, ug_oracle_name(opt->oracle));
    if (n_sel == 0) {
        fprintf(stderr, "ulpgate: no case matches --filter '%s' (see 'ulpgate list')\n",
                opt->filter ? opt->filter : "*");
        return 2;
    }
    if (n_gpu == n_sel && !ug_gpu_available()) {
        printf("1..0 # SKIP no CUDA device (%s)\n", ug_gpu_why);
        return 0;
    }

    for (const ug_case *c = ug_cases(); c; c = c->next) {
        if (!ug_case_selected(opt, c)) continue;
        ug_t t = {0};
        t.c = c;
        t.opt = opt;
        t.tap_index = &tap_index;
        t.n_pass = &n_pass;
        t.n_fail = &n_fail;
        t.n_skip = &n_skip;
        t.rows_tail = &tail;
        if ((c->flags & UG_CASE_GPU) && !ug_gpu_available()) {
            printf("ok %d - %s # SKIP no CUDA device (%s)\n", ++tap_index, c->name, ug_gpu_why);
            n_skip++;
            continue;
        }
        int index_before = tap_index;
        if (setjmp(t.jb) == 0) c->fn(&t);
        /* a case that measured nothing still gets its own test point */
        if (!t.tp_open && tap_index == index_before) ug_tp_open(&t, c->name, NULL);
        ug_tp_close(&t);
        ug_case_cleanup(&t);
        ug_buf_free(&t.tp_diag);
    }
    if (opt->progress) fprintf(stderr, "\r\033[K");
    printf("1..%d\n", tap_index);
    printf("# %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
    if (!opt->tap) printf("%d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
    int rc = n_fail ? 1 : 0;
    if (opt->report_dir &&
        ug_report_write(opt, rows, argc, argv, ug_gpu_used(), n_pass, n_fail, n_skip) != 0)
        rc = 2;
    for (ug_row *r = rows, *next; r; r = next) {
        next = r->next;
        ug_buf_free(&r->json);
        free(r);
    }
    return rc;
}
