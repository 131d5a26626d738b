/*
 * expect.c - assertions: each returns whether its check held and, when not, records the failure
 * on the open test point: file:line and the expression, what was measured, the worst element
 * (got and exact in hex and decimal, its errors), the seed and a rerun line.  Whether a failed
 * check ends the case is the caller's (UG__CHECK in ug.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/bits.h"
#include "harness/measure/attrib.h"
#include "harness/run/context.h"

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
    ug_buf *d = &t->pt.diag;
    if (!w->set) {
        ug_rerun_line(t, r, -1);
        return;
    }
    ug_shape shape = r->in ? ug_input_shape(r->in) : ug_shape_square(0);
    /* an operation of several outputs (attention's O, lse): which, and where in it */
    char which[96] = "";
    const ug_opshape *osh = r->in ? ug_input_op(r->in)->shape : NULL;
    if (osh && ug_opshape_noutputs(osh) > 1) {
        size_t at = w->index;
        int j = 0;
        while (j + 1 < ug_opshape_noutputs(osh) && at >= ug_opshape_out_len(osh, &shape, j))
            at -= ug_opshape_out_len(osh, &shape, j++);
        snprintf(which, sizeof which, " (%s element %zu)", osh->outs[j] ? osh->outs[j] : "out", at);
    }
    ug_buf_printf(d, "#   worst: trial %d, element %zu%s: got %s (%.9g) exact %s (%.17g", w->trial,
                  w->index, which, ug_hex(w->got, g), w->got, ug_hex(w->exact.hi, e), w->exact.hi);
    if (w->exact.lo != 0) ug_buf_printf(d, " %+.3g", w->exact.lo);
    ug_fmt of = r->in ? ug_result_out_fmt(r, w->index) : r->kernel->out_fmt;
    if (of == UG_F32)
        ug_buf_printf(d, "), correctly rounded %s\n", ug_hexf(w->exact.rn, rn));
    else /* in the output's own format */
        ug_buf_printf(d, "), correctly rounded %s (%s)\n", ug_hex(ug_exact_rn(&w->exact, of), rn),
                      ug_fmt_name(of));
    if (r->in && ug_is_flush_to_zero(w->got, &w->exact, ug_op_terms(ug_input_op(r->in), &shape)))
        ug_buf_printf(d, "#   flush-to-zero: a sum at the subnormal scale came back as zero "
                         "(gradual underflow keeps it; %s was built %s)\n", r->kernel->id,
                      ug_kernel_props(r->kernel) & UG_VP_FTZ ? "with --ftz=true"
                                                             : "without --ftz: an instruction flushed");
    ug_buf_printf(d, "#   ulp %.4g, rel %.3g, abs %.3g, bound ratio %.3g (bound %.3g, %s), seed 0x%llx\n",
                  w->err.ulp, w->err.rel, w->err.abs, w->ratio, w->bound,
                  ug_bound_class_name(r->kernel->bound), (unsigned long long)t->opt->seed);
    /* Attribution reruns the kernel once per candidate term: for a declared expected failure in
     * a whole run that is cost without news (a 2^26-term GPU kernel: seconds per point; a
     * 2^25-term CPU sum sorted by magnitude: 20 s on a 2-core VM); the rerun line (one case, one
     * kernel, one trial) computes it.  A run of one kernel and one trial over every case is
     * not a rerun line. */
    bool attributable = r->in && ug_input_op(r->in)->term_attribution;
    bool rerun_line = t->opt->filter && !strpbrk(t->opt->filter, "*?[") && t->opt->kernel &&
                      t->opt->trial >= 0;
    if (t->pt.xfail[0] && !rerun_line && attributable)
        ug_buf_printf(d, "#   terms that matter: not computed for a declared expected failure "
                         "(the rerun line computes them)\n");
    else
        ug_attrib_lines(d, r, w);
    ug_rerun_line(t, r, w->trial);
}

/* Checks evaluated in this run (the cases run serially): a run whose points all passed with
 * no check evaluated and nothing measured tested nothing (run.c). */
static size_t ug_checks_run;
size_t ug_checks_evaluated(void) { return ug_checks_run; }

bool ug_check_metric(ug_t *t, const ug_result *r, ug_metric m, double limit, const char *expr,
                     const char *file, int line)
{
    ug_checks_run++;
    if (!r) return true;
    if (r->failed_run) return false; /* already reported by ug_measure */
    /* effective: a finite limit, and for the bound ratio a finite bound on every output */
    if (isfinite(limit) && (m != UG_M_RATIO_MAX || r->bound_unchecked == 0))
        ((ug_result *)r)->checked = true;
    double v = ug_metric_value(r, m);
    if (v <= limit) return true;
    /* short figures, unless they would read as equal */
    char vs[32], ls[32];
    snprintf(vs, sizeof vs, "%.4g", v);
    snprintf(ls, sizeof ls, "%.4g", limit);
    if (strcmp(vs, ls) == 0) {
        snprintf(vs, sizeof vs, "%.17g", v);
        snprintf(ls, sizeof ls, "%.17g", limit);
    }
    ug_fail_header(t, file, line, expr, "%s %s%s > %s", ug_metric_name(m), vs, ug_metric_unit(m), ls);
    ug_worst_lines(t, r, ug_metric_worst(r, m));
    return false;
}

/* Output i of trial tr the same in a and b: bitwise where both are binary32 (NaN == NaN,
 * ug_same_f32), else the same value in each one's format (a different format is compared by
 * value, NaN == NaN). */
static bool ug_same_out(const ug_result *a, const ug_result *b, int tr, size_t i)
{
    ug_fmt fa = a->kernel->out_fmt, fb = b->kernel->out_fmt;
    if (fa == UG_F32 && fb == UG_F32) return ug_same_f32(a->out[tr][i], b->out[tr][i]);
    double x = ug_fmt_load(fa, a->out[tr], i), y = ug_fmt_load(fb, b->out[tr], i);
    return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

bool ug_check_bitwise(ug_t *t, const ug_result *a, const ug_result *b, const char *expr,
                      const char *file, int line)
{
    ug_checks_run++;
    if (a->failed_run || b->failed_run) return false;
    ((ug_result *)a)->checked = ((ug_result *)b)->checked = true;
    if (a->trials != b->trials || a->elements != b->elements) {
        ug_fail_header(t, file, line, expr, "shapes differ (%d x %zu vs %d x %zu)", a->trials,
                       a->elements, b->trials, b->elements);
        return false;
    }
    for (int tr = 0; tr < a->trials; tr++)
        for (size_t i = 0; i < a->elements; i++)
            if (!ug_same_out(a, b, tr, i)) {
                ug_fail_header(t, file, line, expr, "%s and %s differ", a->kernel->id,
                               b->kernel->id);
                ug_buf_printf(&t->pt.diag, "#   first difference: trial %d, element %zu: %a vs %a\n",
                              tr + a->first_trial, i,
                              ug_fmt_load(a->kernel->out_fmt, a->out[tr], i),
                              ug_fmt_load(b->kernel->out_fmt, b->out[tr], i));
                ug_rerun_line(t, a, tr + a->first_trial);
                return false;
            }
    return true;
}


bool ug_check_correctly_rounded(ug_t *t, const ug_result *r, const char *expr, const char *file,
                                int line)
{
    ug_checks_run++;
    if (r->failed_run) return false;
    ((ug_result *)r)->checked = true;
    if (ug_result_correctly_rounded(r)) return true;
    ug_fail_header(t, file, line, expr, "%zu of %zu outputs are not the correctly rounded result",
                   r->count - r->correctly_rounded, r->count);
    ug_worst_lines(t, r, &r->worst_ulp);
    return false;
}

bool ug_check_distinct_max(ug_t *t, const ug_result *r, int max, const char *expr,
                           const char *file, int line)
{
    ug_checks_run++;
    if (r->failed_run) return false;
    if (r->distinct_results <= max) return true;
    ug_fail_header(t, file, line, expr, "%d distinct results over %d repeats > %d",
                   r->distinct_results, r->repeats, max);
    ug_rerun_line(t, r, r->first_trial);
    return false;
}

bool ug_check(ug_t *t, bool ok, const char *expr, const char *file, int line, const char *fmt,
              ...)
{
    ug_checks_run++;
    if (ok) return true;
    ug_buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    ug_buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    ug_fail_header(t, file, line, expr, "%s", ug_buf_str(&msg));
    ug_buf_free(&msg);
    ug_rerun_line(t, NULL, -1);
    return false;
}

const void *ug_kernel_row(ug_t *t, const void *table, size_t count, size_t size, const ug_kernel *k)
{
    const void *found = NULL;
    for (size_t i = 0; i < count; i++) {
        const void *row = (const char *)table + i * size;
        const char *name = *(const char *const *)row;
        bool known = false;
        for (size_t j = 0; j < ug_kernel_count() && !known; j++)
            known = strcmp(ug_kernel_at(j)->name, name) == 0;
        if (!known)
            ug_fail_header(t, __FILE__, __LINE__, "ug_kernel_row",
                           "a per-kernel table of this case names '%s', which is not a registered "
                           "kernel (see 'ulpgate list')", name);
        if (k && strcmp(name, k->name) == 0) found = row;
    }
    return found;
}
