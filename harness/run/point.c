/*
 * point.c - the open test point of a running case: opened by a measurement (or ug_point, or
 * the first check of a case), failed by checks, annotated by notes, and closed into a
 * ug_point_record that goes to the run loop's sink.  Knows nothing of TAP or reports.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/sys.h"
#include "harness/run/context.h"
#include "harness/inputs/corpus.h"
#include "harness/inputs/xfail_file.h"
#include "kernels/plugin.h"

void ug_point_open(ug_t *t, const char *name, ug_result *r)
{
    ug_point_close(t);
    ug_open_point *p = &t->pt;
    p->open = true;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->failed = p->skipped = false;
    p->failures = 0;
    p->skip_reason[0] = 0;
    p->xfail[0] = 0;
    p->finding[0] = 0;
    p->result = r;
    ug_buf_clear(&p->diag);
    /* the user's declared expected failures (--xfail FILE) */
    const char *why = ug_xfail_file_match(t->unit->name, r ? r->kernel : NULL);
    if (why) snprintf(p->xfail, sizeof p->xfail, "%s", why);
}

/* A measurement that no effective check looked at is a failure of its own: a pass must mean
 * every output was checked. */
static void ug_point_require_check(ug_t *t)
{
    const ug_result *r = t->pt.result;
    if (!r || t->pt.skipped || r->failed_run || r->checked) return;
    ug_fail_header(t, __FILE__, __LINE__, "an effective check",
                   "%s was measured but nothing effective was asserted on it: assert a finite "
                   "bound ratio (a-priori, or probabilistic with ug_prob_lambda) or a ULP limit",
                   r->kernel->id);
    if (r->bound_unchecked)
        ug_buf_printf(&t->pt.diag, "#   %zu of %zu outputs have no finite bound (class %s, lambda %g)\n",
                      r->bound_unchecked, r->count, ug_bound_class_name(r->kernel->bound), r->prob_lambda);
}

static ug_status ug_point_status(ug_t *t)
{
    ug_open_point *p = &t->pt;
    if (p->skipped) return UG_ST_SKIP;
    if (!p->xfail[0]) return p->failed ? UG_ST_FAIL : UG_ST_PASS;
    if (p->failed) return UG_ST_XFAIL;
    ug_buf_printf(&p->diag, "# expected to fail (%s), but every check held: the declaration is "
                            "stale, remove it\n", p->xfail);
    return UG_ST_XPASS;
}

void ug_point_close(ug_t *t)
{
    ug_open_point *p = &t->pt;
    if (!p->open) return;
    ug_point_require_check(t);
    ug_point_record rec = {
        .name = p->name,
        .status = ug_point_status(t),
        .failures = p->failures,
        .skip_reason = p->skip_reason,
        .xfail = p->xfail,
        .finding = p->finding,
        .diag = ug_buf_str(&p->diag),
        .result = p->result,
    };
    p->open = false;
    t->points++;
    if (t->sink) t->sink(t->sink_ctx, t, &rec);
    p->result = NULL;
    ug_buf_clear(&p->diag);
}

void ug_point_ensure(ug_t *t)
{
    if (!t->pt.open) ug_point_open(t, t->unit->name, NULL);
}

const char *ug_point_skip_reason(const ug_t *t)
{
    return t->pt.open && t->pt.skipped ? t->pt.skip_reason : NULL;
}

void ug_point(ug_t *t, const char *fmt, ...)
{
    char name[200], full[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "%s %s", t->unit->name, name);
    ug_point_open(t, full, NULL);
}

void ug_note(ug_t *t, const char *fmt, ...)
{
    ug_buf line = {0};
    va_list ap;
    va_start(ap, fmt);
    ug_buf_vprintf(&line, fmt, ap);
    va_end(ap);
    ug_point_ensure(t);
    /* one "# " per physical line, so a table stays TAP */
    const char *s = ug_buf_str(&line);
    for (const char *p = s, *nl; *p || p == s; p = nl + 1) {
        nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        ug_buf_printf(&t->pt.diag, "# %.*s\n", len, p);
        if (!nl) break;
    }
    ug_buf_free(&line);
}

void ug_skip(ug_t *t, const char *reason)
{
    ug_point_ensure(t);
    t->pt.skipped = true;
    snprintf(t->pt.skip_reason, sizeof t->pt.skip_reason, "%s", reason);
    t->case_skipped = true;
    ug_abort_case(t);
}

void ug_abort_case(ug_t *t) { longjmp(t->jb, 1); }

void ug_xfail(ug_t *t, const char *reason)
{
    ug_point_ensure(t);
    snprintf(t->pt.xfail, sizeof t->pt.xfail, "%s", reason && *reason ? reason : "expected to fail");
}

void ug_point_finding(ug_t *t, const char *fmt, ...)
{
    va_list ap;
    ug_point_ensure(t);
    va_start(ap, fmt);
    vsnprintf(t->pt.finding, sizeof t->pt.finding, fmt, ap);
    va_end(ap);
}

void ug_prob_lambda(ug_t *t, double lambda) { t->m.lambda = lambda > 0 ? lambda : 0; }

/* __FILE__ as meson passes it ("../cases/x.c", "../../src/cases/x.c"): shown from the project
 * root, as a user would open it. */
const char *ug_src_path(const char *file)
{
    static const char *const roots[] = {"cases/", "tests/", "harness/", "kernels/", "oracle/", "base/"};
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
    ug_point_ensure(t);
    ug_open_point *p = &t->pt;
    p->failed = true;
    p->failures++;
    ug_buf_printf(&p->diag, "# %s:%d: %s failed", ug_src_path(file), line, expr);
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        ug_buf_printf(&p->diag, ": ");
        ug_buf_vprintf(&p->diag, fmt, ap);
        va_end(ap);
    }
    ug_buf_printf(&p->diag, "\n");
}

/* The options that select what is loaded, in the rerun line: the plugins, --no-builtin, --xfail
 * and the data folder (main.c hands them on as ULPGATE_* variables). */
static void ug_rerun_global_options(ug_buf *d, const ug_options *o)
{
    char q[1100];
    const char *plugins = getenv("ULPGATE_PLUGINS");
    if (plugins && *plugins) {
        char *list = ug_xstrdup(plugins), *save = NULL;
        for (char *p = strtok_r(list, ":", &save); p; p = strtok_r(NULL, ":", &save))
            ug_buf_printf(d, " --plugin %s", ug_shell_quote(p, q, sizeof q));
        free(list);
    }
    if (!ug_registry_has_builtin()) ug_buf_printf(d, " --no-builtin");
    if (o->xfail_file) ug_buf_printf(d, " --xfail %s", ug_shell_quote(o->xfail_file, q, sizeof q));
    const char *data = getenv("ULPGATE_DATA_DIR");
    if (data && *data) ug_buf_printf(d, " --data-dir %s", ug_shell_quote(data, q, sizeof q));
}

void ug_rerun_line(ug_t *t, const ug_result *r, int trial)
{
    const ug_options *o = t->opt;
    ug_buf *d = &t->pt.diag;
    /* every word from outside shell-quoted: a corpus file or directory named "a b", "x;rm" or
     * "*" reruns as it reads (a glob char in --filter is quoted too: it is one unit's name) */
    char prog[1100], unit[600], dir[1100];
    ug_buf_printf(d, "#   rerun: %s run --filter %s", ug_shell_quote(o->argv0, prog, sizeof prog),
                  ug_shell_quote(t->unit->name, unit, sizeof unit));
    if (r) ug_buf_printf(d, " --kernel %s --n %zu", r->kernel->id, r->shape.dim[0]);
    if (trial >= 0) ug_buf_printf(d, " --trial %d", trial);
    if (o->trials) ug_buf_printf(d, " --trials %d", o->trials);
    if (t->c->flags & UG_CASE_SLOW) ug_buf_printf(d, " --slow");
    if (t->unit->corpus && t->unit->corpus->dir_arg)
        ug_buf_printf(d, " --corpus %s", ug_shell_quote(t->unit->corpus->dir_arg, dir, sizeof dir));
    if (o->oracle != UG_ORACLE_FAST) ug_buf_printf(d, " --oracle %s", ug_oracle_name(o->oracle));
    ug_rerun_global_options(d, o);
    ug_buf_printf(d, " --seed 0x%llx\n", (unsigned long long)o->seed);
}

uint64_t ug_seed(const ug_t *t) { return t->opt->seed; }
const char *ug_case_name(const ug_t *t) { return t->unit->name; }
int ug_trials(const ug_t *t, int dflt) { return t->opt->trials > 0 ? t->opt->trials : dflt; }

/* ---- a closed point as a results row (harness/results/results.h) ---- */

static void ug_row_worst_from(ug_row_worst *dst, const ug_worst *w)
{
    dst->set = w->set;
    if (!w->set) return;
    dst->trial = w->trial;
    dst->element = w->index;
    dst->got = w->got;
    dst->exact = w->exact.hi;
    dst->exact_lo = w->exact.lo;
    dst->ulp = w->err.ulp;
    dst->rel = w->err.rel;
    dst->abs = w->err.abs;
    dst->bound_ratio = w->ratio;
}

void ug_row_from_point(ug_row *row, const char *case_name, const ug_point_record *p,
                       const char *device, uint64_t seed)
{
    memset(row, 0, sizeof *row);
    snprintf(row->case_name, sizeof row->case_name, "%s", case_name);
    snprintf(row->point, sizeof row->point, "%s", p->name);
    row->status = p->status;
    row->failures = p->failures;
    row->seed = seed;
    const char *note = p->status == UG_ST_SKIP ? p->skip_reason
                       : p->status == UG_ST_XFAIL || p->status == UG_ST_XPASS ? p->xfail
                                                                              : NULL;
    const ug_result *r = p->result;
    if (r && r->failed_run && !note) note = r->run_error;
    if (!note && p->finding && p->finding[0]) note = p->finding;
    if (note) {
        int w = snprintf(row->note, sizeof row->note, "%s", note);
        if (p->finding && p->finding[0] && note != p->finding && w >= 0 &&
            (size_t)w + 2 < sizeof row->note) /* an expected failure's: the cause, then what */
            snprintf(row->note + w, sizeof row->note - (size_t)w, "; %s", p->finding);
    }
    row->measured = r != NULL;
    snprintf(row->device, sizeof row->device, "%s", device);
    if (!r) {
        ug_row_make_id(row);
        return;
    }
    const ug_kernel *k = r->kernel;
    snprintf(row->kernel, sizeof row->kernel, "%s", k->id);
    snprintf(row->kernel_name, sizeof row->kernel_name, "%s", k->name);
    snprintf(row->variant, sizeof row->variant, "%s", k->variant);
    snprintf(row->backend, sizeof row->backend, "%s", ug_backend_name(k->backend));
    snprintf(row->op, sizeof row->op, "%s", ug_op_name(k->op));
    snprintf(row->bound_class, sizeof row->bound_class, "%s", ug_bound_class_name(k->bound));
    snprintf(row->dist, sizeof row->dist, "%s", r->dist);
    row->deterministic = !k->nondeterministic || r->measured_deterministic;
    if (r->measured_deterministic && !row->note[0])
        snprintf(row->note, sizeof row->note, "declared nondeterministic, but each of its %d runs "
                 "of every trial gave the same bits: graded as deterministic", r->repeats);
    if (ug_kernel_machine(k)) snprintf(row->machine, sizeof row->machine, "cpu-model");
    /* the operation's own dims (a vector's n alone: what a row read back holds) */
    row->shape = ug_opshape_canon(ug_opshape_of(k->op), &r->shape);
    row->trials = r->trials;
    row->first_trial = r->first_trial;
    row->elements = r->elements;
    row->count = r->count;
    row->out_of_range = r->out_of_range;
    row->ulp_max = r->ulp_max;
    row->ulp_mean = r->ulp_mean;
    row->rel_max = r->rel_max;
    row->rel_mean = r->rel_mean;
    row->abs_max = r->abs_max;
    row->abs_err_sum = r->abs_err_sum;
    row->rel_err_sum = r->rel_err_sum;
    row->abs_err_sum_rd = r->abs_err_sum_rd;
    row->rel_err_sum_rd = r->rel_err_sum_rd;
    row->bound_ratio_max = r->bound_ratio_max;
    row->bound_ratio_mean = r->bound_ratio_mean;
    row->apriori_ratio_max = r->apriori_ratio_max;
    row->prob_ratio_max = r->prob_ratio_max;
    row->prob_lambda = r->prob_lambda;
    row->prob_failure = r->prob_failure;
    row->bound_vacuous = r->bound_vacuous;
    row->bound_unchecked = r->bound_unchecked;
    row->unwritten = r->unwritten;
    row->correctly_rounded = r->correctly_rounded;
    row->kappa_max = r->kappa_max;
    row->repeats = r->repeats;
    row->distinct_results = r->distinct_results;
    row->time_ms = r->time_ms;
    row->gbps = r->gbps;
    row->gflops = r->gflops;
    memcpy(row->ulp_hist, r->ulp_hist, sizeof row->ulp_hist);
    ug_row_worst_from(&row->worst_ulp, &r->worst_ulp);
    ug_row_worst_from(&row->worst_bound_ratio, &r->worst_ratio);
    row->method = k->method;
    row->n_extra = r->n_extra;
    memcpy(row->extra, r->extra, sizeof row->extra);
    ug_row_make_id(row);
}
