/*
 * point.c - the open test point of a running case: opened by a measurement (or ug_point, or
 * the first check of a case), failed by checks, annotated by notes, and closed into a
 * ug_point_record that goes to the run loop's sink.  Knows nothing of TAP or reports.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "corpus.h"

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
    p->result = r;
    ug_buf_clear(&p->diag);
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

void ug_prob_lambda(ug_t *t, double lambda) { t->lambda = lambda > 0 ? lambda : 0; }

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

void ug_rerun_line(ug_t *t, const ug_result *r, int trial)
{
    const ug_options *o = t->opt;
    ug_buf *d = &t->pt.diag;
    ug_buf_printf(d, "#   rerun: %s run --filter %s", o->argv0, t->unit->name);
    if (r) ug_buf_printf(d, " --kernel %s --n %zu", r->kernel->id, r->n);
    if (trial >= 0) ug_buf_printf(d, " --trial %d", trial);
    if (o->trials) ug_buf_printf(d, " --trials %d", o->trials);
    if (t->c->flags & UG_CASE_SLOW) ug_buf_printf(d, " --slow");
    if (t->unit->corpus && t->unit->corpus->dir_arg)
        ug_buf_printf(d, " --corpus %s", t->unit->corpus->dir_arg);
    if (o->oracle != UG_ORACLE_FAST) ug_buf_printf(d, " --oracle %s", ug_oracle_name(o->oracle));
    ug_buf_printf(d, " --seed 0x%llx\n", (unsigned long long)o->seed);
}

uint64_t ug_seed(const ug_t *t) { return t->opt->seed; }
const char *ug_case_name(const ug_t *t) { return t->unit->name; }
int ug_trials(const ug_t *t, int dflt) { return t->opt->trials > 0 ? t->opt->trials : dflt; }
