/*
 * corpus_run.c - the case every corpus unit runs (corpus.h): the file's input measured on every
 * kernel the file selects, one test point each, with the file's checks and strict per-kernel
 * expected failures.  A malformed file is one failed point naming FILE:LINE; the other units
 * run on.  The file is read here, when its unit runs, one step at a time (corpus.h): nothing
 * of it was read at discovery.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/plugin.h"
#include "harness/run/context.h"
#include "harness/measure/run_limits.h"
#include "base/sys.h"
#include "harness/inputs/corpus.h"
#include "ug_config.h"

/* A failure of the file itself (not of a kernel): "# FILE:LINE: what" on the open point. */
static void ug_corpus_path_failure(ug_t *t, const char *path, size_t line, const char *what)
{
    ug_point_ensure(t);
    t->pt.failed = true;
    t->pt.failures++;
    if (line)
        ug_buf_printf(&t->pt.diag, "# %s:%zu: %s\n", ug_src_path(path), line, what);
    else
        ug_buf_printf(&t->pt.diag, "# %s: %s\n", ug_src_path(path), what);
}

static void ug_corpus_file_failure(ug_t *t, const ug_corpus_file *f, size_t line, const char *what)
{
    ug_corpus_path_failure(t, f->path, line, what);
}

/* A file that could not be read (f->error at f->error_line): its point fails, with a rerun line. */
static void ug_corpus_unreadable(ug_t *t, const ug_corpus_file *f)
{
    ug_corpus_file_failure(t, f, f->error_line, f->error);
    ug_rerun_line(t, NULL, -1);
}

static bool ug_any_kernel_matches(const char *glob, ug_op op, bool of_op)
{
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        if ((!of_op || k->op == op) && ug_kernel_matches(k, glob)) return true;
    }
    return false;
}

/* Whether glob (its part before '@') matches the name of a CUDA kernel row (UG_CUDA_KERNEL_NAMES:
 * the names of kernels/cuda's families, known to a build without CUDA too). */
static bool ug_cuda_name_matches(const char *glob)
{
    char pat[128], name[128];
    snprintf(pat, sizeof pat, "%.*s", (int)strcspn(glob, "@"), glob);
    for (const char *p = UG_CUDA_KERNEL_NAMES; *p;) {
        size_t len = strcspn(p, " ");
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        if (len && fnmatch(pat, name, 0) == 0) return true;
        p += len;
        p += *p == ' ';
    }
    return false;
}

/* Kernel names that match nothing are stale (renamed kernels, typos): a failure at their line.
 * A build without CUDA has no GPU kernel to match: there a glob that names a CUDA kernel row
 * (ug_cuda_name_matches) is a note, one that names no kernel at all is a failure as anywhere.
 * Returns the globs that matched no kernel (the noted ones among them). */
static int ug_corpus_check_globs(ug_t *t, const ug_corpus_file *f)
{
    char msg[400];
    int unmatched = 0;
    /* ulpgate's own corpus names ulpgate's kernels: with --no-builtin they are not loaded */
    if (!f->dir_arg && !ug_registry_has_builtin()) return 0;
    const char *p = f->kernels;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        size_t len = strcspn(p, " \t");
        char glob[128];
        snprintf(glob, sizeof glob, "%.*s", (int)len, p);
        p += len;
        if (!glob[0] || glob[0] == '!' || ug_any_kernel_matches(glob, f->op, true)) continue;
        unmatched++;
        snprintf(msg, sizeof msg, "kernels: '%s' matches no %s kernel (see 'ulpgate list')", glob,
                 ug_op_name(f->op));
        if (UG_CUDA_BUILT || !ug_cuda_name_matches(glob))
            ug_corpus_file_failure(t, f, f->kernels_line, msg);
        else ug_note(t, "%s:%zu: %s (built without CUDA)", ug_src_path(f->path),
                     f->kernels_line, msg);
    }
    for (int i = 0; i < f->n_xfails; i++) {
        const ug_corpus_xfail *x = &f->xfails[i];
        bool selected = false;
        for (size_t j = 0; j < ug_kernel_count() && !selected; j++) {
            const ug_kernel *k = ug_kernel_at(j);
            selected = k->op == f->op && ug_kernel_matches(k, x->glob) && ug_corpus_selects(f, k);
        }
        if (selected) continue;
        snprintf(msg, sizeof msg, "xfail: '%s' matches no kernel this file runs (kernels: %s): a "
                                  "stale declaration", x->glob, f->kernels);
        if (UG_CUDA_BUILT || ug_any_kernel_matches(x->glob, f->op, false) ||
            !ug_cuda_name_matches(x->glob))
            ug_corpus_file_failure(t, f, x->line, msg);
        else
            ug_note(t, "%s:%zu: %s (built without CUDA)", ug_src_path(f->path), x->line, msg);
    }
    return unmatched;
}

/* A file that no kernel of this run measured (none left out by --kernel or --format): its
 * point passed having tested nothing.  A failure naming what the file selects, but a skip
 * where the reason is the build or the run, not the file: its kernels are GPU kernels of a
 * build without CUDA (their globs were noted), or ulpgate's own file under --no-builtin. */
static void ug_corpus_measured_none(ug_t *t, const ug_corpus_file *f, int unmatched_globs)
{
    char why[600];
    const char *globs = f->kernels[0] ? f->kernels : "(every kernel of the operation)";
    if (!f->dir_arg && !ug_registry_has_builtin()) {
        snprintf(why, sizeof why, "no loaded kernel computes %s in %s (--no-builtin: the "
                 "plugins' kernels only)", ug_op_name(f->op), ug_fmt_name(f->fmt));
        ug_skip(t, why);
    }
    if (!UG_CUDA_BUILT && unmatched_globs) {
        snprintf(why, sizeof why, "its kernels (%.200s) are not in this build (built without "
                 "CUDA)", globs);
        ug_skip(t, why);
    }
    snprintf(why, sizeof why, "no kernel runs this file: kernels %.200s and format %s select none "
             "of this build's %s kernels (see 'ulpgate list'): nothing of it was measured", globs,
             ug_fmt_name(f->fmt), ug_op_name(f->op));
    ug_corpus_file_failure(t, f, f->kernels_line, why);
    ug_rerun_line(t, NULL, -1);
}

// ---- class-aware checks ----------------------------------------------------------------------

/* The largest error check c allows at an output whose exact value is x, a result of format fmt
 * (0 for correctly_rounded: only RN(s) itself). */
static double ug_check_allows(const ug_corpus_check *c, const ug_exact *x, ug_fmt fmt)
{
    if (c->is_cr) return 0;
    switch (c->metric) {
    case UG_M_ULP_MAX:
    case UG_M_ULP_MEAN: return c->limit * ug_fmt_ulp(fmt, ug_exact_rn(x, fmt));
    case UG_M_REL_MAX:
    case UG_M_REL_MEAN: return c->limit * fabs(x->hi);
    case UG_M_ABS_MAX: return c->limit;
    case UG_M_RATIO_MAX: return INFINITY;
    }
    return 0;
}

/* How far check c is beyond what kernel k's a-priori bound guarantees on the outputs of r:
 * the largest bound / allowed error over the outputs (<= 1: the class implies the check; a
 * kernel within its bound meets it).  An output whose exact value is NaN or infinite implies
 * every check (only that special is within any bound).  correctly_rounded is implied where the
 * bound is 0, or below half an ulp of an exactly representable s (then RN(s) is the one number
 * of the format within the bound; an exact zero's sign is IEEE 754's in every order of
 * round-to-nearest additions, +0 unless every term is -0).  O(outputs). */
static double ug_check_excess(const ug_corpus_check *c, const ug_result *r, const ug_input *in)
{
    const ug_kernel *k = r->kernel;
    if (!c->is_cr && c->metric == UG_M_RATIO_MAX) return 0;
    /* a kernel that declares no bound has no class to hold it to: the file's checks are all
     * there is to fail it (an exact operation's toy kernel, tests/toy_op), so every one holds */
    if (k->bound == UG_BOUND_NONE) return 0;
    ug_fmt fmt = k->out_fmt;
    const ug_op_desc *d = ug_input_op(in);
    ug_shape shape = ug_input_shape(in);
    double excess = 0;
    for (int i = 0; i < in->trials; i++)
        for (size_t e = 0; e < r->elements; e++) {
            const ug_exact *x = &in->exact[i][e];
            if (x->cls != UG_X_FINITE) continue;
            size_t nterms = ug_op_terms_at(d, &shape, e);
            double b = ug_kernel_bound(k, nterms, x->sum_abs, fabs(x->hi));
            if (isfinite(b)) b += ug_kernel_bound_underflow(k, nterms, r->operand_max);
            if (!(b == b)) b = INFINITY;
            double rn = ug_exact_rn(x, fmt), allows = ug_check_allows(c, x, fmt), q;
            if (c->is_cr) {
                bool representable = x->lo == 0 && rn == x->hi;
                q = b == 0 ? 0 : representable ? b / (0.5 * ug_fmt_ulp(fmt, rn)) : INFINITY;
                if (q == 1) q = nextafter(1, 2); /* below half an ulp, strictly */
            } else {
                q = b == 0 ? 0 : allows > 0 ? b / allows : INFINITY;
            }
            if (!(q <= excess)) excess = q;
        }
    return excess;
}

/* Whether check c names kernel k: a glob of its for= list, or "class:NAME" of k's bound class. */
static bool ug_check_names(const ug_corpus_check *c, const ug_kernel *k)
{
    const char *p = c->for_globs;
    while (*p) {
        size_t len = strcspn(p, ",");
        char glob[128];
        snprintf(glob, sizeof glob, "%.*s", (int)len, p);
        p += len + (p[len] == ',');
        if (strncmp(glob, "class:", 6) == 0 ? strcmp(glob + 6, ug_bound_class_name(k->bound)) == 0
                                            : ug_kernel_matches(k, glob))
            return true;
    }
    return false;
}

/* Whether a file's xfail line names k: the file says k fails it, so its checks are for k. */
static bool ug_corpus_xfails_kernel(const ug_corpus_file *f, const ug_kernel *k)
{
    for (int i = 0; i < f->n_xfails; i++)
        if (ug_kernel_matches(k, f->xfails[i].glob)) return true;
    return false;
}

/* A check stronger than k's class, on a kernel it does not name: measured and, when it does
 * not hold, said on the point as information; the point does not fail (the class's bound is
 * the contract, and bound_ratio_max 1 holds it). */
static void ug_corpus_inform(ug_t *t, const ug_corpus_file *f, const ug_corpus_check *c,
                             const ug_result *r, double excess)
{
    if (r->failed_run) return;
    double v = 0;
    bool holds;
    if (c->is_cr) {
        holds = ug_result_correctly_rounded(r);
    } else {
        v = c->metric == UG_M_ULP_MAX ? r->ulp_max : c->metric == UG_M_ULP_MEAN ? r->ulp_mean
            : c->metric == UG_M_REL_MAX ? r->rel_max : c->metric == UG_M_REL_MEAN ? r->rel_mean
            : r->abs_max;
        holds = v <= c->limit;
    }
    if (holds) return;
    char got[64] = "not every output correctly rounded";
    if (!c->is_cr) snprintf(got, sizeof got, "measured %.4g", v);
    char how[64] = "no finite bound";
    if (isfinite(excess)) snprintf(how, sizeof how, "it allows %.3g times the limit", excess);
    ug_note(t, "information: %s:%zu: check %s not met (%s): stronger than %s's %s bound on this "
            "input (%s), and names neither the kernel nor its class (for=): not a failure",
            ug_src_path(f->path), c->line, c->text, got, r->kernel->id,
            ug_bound_class_name(r->kernel->bound), how);
}

/* The sign of an exact zero, on every corpus point of every kernel whose flags keep it (not
 * -ffast-math's -fno-signed-zeros): a result that is a zero where the exact value is zero has
 * the sign IEEE 754 gives it in every order of round-to-nearest additions, +0 unless every
 * term is -0 (an exact cancellation of nonzero terms is +0).  Whatever the class: the bounds
 * are silent about the sign of a zero.  O(outputs). */
static void ug_corpus_zero_sign(ug_t *t, const ug_corpus_file *f, const ug_result *r,
                                const ug_input *in)
{
    const ug_kernel *k = r->kernel;
    if (r->failed_run || !r->out || (ug_kernel_props(k) & UG_VP_REASSOC)) return;
    for (int i = 0; i < in->trials; i++)
        for (size_t e = 0; e < r->elements; e++) {
            const ug_exact *x = &in->exact[i][e];
            double got = ug_fmt_load(k->out_fmt, r->out[i], e), want = ug_exact_rn(x, k->out_fmt);
            if (x->cls != UG_X_FINITE || x->hi != 0 || got != 0 || want != 0 ||
                signbit(got) == signbit(want))
                continue;
            ug_fail_header(t, f->path, 1, "the sign of an exact zero (every corpus point)",
                           "%s returned %s for an exact zero sum of sign %s (IEEE 754: +0 "
                           "unless every term is -0), trial %d, element %zu", k->id,
                           signbit(got) ? "-0" : "+0", signbit(want) ? "-0" : "+0",
                           in->first_trial + i, e);
            ug_rerun_line(t, r, in->first_trial + i);
            return;
        }
}

/* The file's checks on one measurement, and the implicit ones: the a-priori bound (every
 * kernel) and the sign of an exact zero.  A check the kernel's class implies on this input,
 * or one that names the kernel, is asserted; any other is information (ug_corpus_inform). */
static void ug_corpus_checks(ug_t *t, const ug_corpus_file *f, const ug_result *r,
                             const ug_input *in)
{
    bool own_ratio = false, xfailed = ug_corpus_xfails_kernel(f, r->kernel);
    char expr[200];
    for (int i = 0; i < f->n_checks; i++) {
        const ug_corpus_check *c = &f->checks[i];
        double excess = ug_check_excess(c, r, in);
        if (!(excess <= 1) && !xfailed && !ug_check_names(c, r->kernel)) {
            ug_corpus_inform(t, f, c, r, excess);
            continue;
        }
        snprintf(expr, sizeof expr, "check %s", c->text);
        if (c->is_cr) {
            ug_check_correctly_rounded(t, r, expr, f->path, (int)c->line);
        } else {
            ug_check_metric(t, r, c->metric, c->limit, expr, f->path, (int)c->line);
            own_ratio |= c->metric == UG_M_RATIO_MAX;
        }
    }
    if (!own_ratio)
        ug_check_metric(t, r, UG_M_RATIO_MAX, 1.0,
                        "bound_ratio_max 1 (every corpus point: the kernel's a-priori bound)",
                        f->path, 1);
    ug_corpus_zero_sign(t, f, r, in);
}

/* Whether the run's own kernel selection (--kernel, --format) leaves out every kernel that
 * runs the file: then nothing of it is measured and its values are not read.  A file that
 * no kernel of the build runs at all (a format without kernels) is still read whole, so that a
 * bad value in it is said. */
static bool ug_corpus_left_out(ug_t *t, const ug_corpus_file *f)
{
    if (!t->opt->kernel && !t->opt->format_set) return false;
    UG_FOR_FMT_KERNELS(t, k, f->op, UG_ANY_BACKEND, NULL, f->fmt)
        if (ug_corpus_selects(f, k)) return false;
    return true;
}

/* The file of the running unit (units run one at a time, on the run loop's thread): read when
 * its unit runs, its values released as soon as the input holds its copy.  A case that ends
 * early (ug_limits_input refusing it, a skip: a longjmp) leaves them here, and the next corpus
 * unit frees them first: one file at most is held, never the corpus. */
static ug_corpus_file *ug_corpus_live;

static void ug_corpus_fn(ug_t *t)
{
    const ug_corpus_entry *e = t->unit->corpus;
    if (e->error) { /* its name, or a unit name taken twice: discovery said so */
        ug_corpus_path_failure(t, e->path, 0, e->error);
        ug_rerun_line(t, NULL, -1);
        return;
    }
    if (!ug_corpus_live) ug_corpus_live = ug_xcalloc(1, sizeof *ug_corpus_live);
    ug_corpus_file *f = ug_corpus_live;
    snprintf(f->name, sizeof f->name, "%s", e->name);
    f->dir_arg = e->dir_arg;
    /* the head first (O(head), whatever follows it); the values only when a kernel runs them,
     * counted before they are allocated */
    if (ug_corpus_parse_head(e->path, f) != 0) {
        ug_corpus_unreadable(t, f);
        return;
    }
    int unmatched = ug_corpus_check_globs(t, f);
    if (ug_corpus_left_out(t, f)) return;
    if (ug_corpus_scan(f) != 0) {
        ug_corpus_unreadable(t, f);
        return;
    }
    ug_shape shape = ug_corpus_shape(f);
    if (!ug_n_selected(t, shape.dim[0])) return;
    char label[160];
    const char *base = strrchr(f->path, '/');
    snprintf(label, sizeof label, "file(%.150s)", base ? base + 1 : f->path);
    /* before the values are read: an input beyond memory is a failed point naming it, not the
     * OOM killer (the values, the exact results, the outputs) */
    ug_limits_input(t, ug_op_get(f->op), label, &shape, 1);
    if (ug_corpus_read_values(f) != 0) {
        ug_corpus_unreadable(t, f);
        return;
    }
    ug_input *in;
    if (f->fmt == UG_F64) { /* binary64 values (corpus.c made sure the op has that oracle) */
        in = ug_input_from_f64(t, f->op, label, f->x64, f->y64, f->n);
    } else {
        in = ug_input_from_shape(t, f->op, label, f->x, f->y, &shape);
        ug_input_set_format(in, f->fmt); /* "# format:": its values checked to be of it */
    }
    ug_corpus_file_free(f); /* the input holds its copy */
    size_t ran = 0;
    UG_FOR_FMT_KERNELS(t, k, f->op, UG_ANY_BACKEND, NULL, f->fmt) {
        if (!ug_corpus_selects(f, k)) continue;
        ran++;
        ug_result *r = ug_measure(t, k, in);
        for (int i = 0; i < f->n_xfails; i++)
            if (ug_kernel_matches(k, f->xfails[i].glob)) {
                ug_xfail(t, f->xfails[i].reason);
                break;
            }
        ug_corpus_checks(t, f, r, in);
        if (t->pt.failed)
            ug_buf_printf(&t->pt.diag, "#   why: %s\n#   source: %s\n", f->why, f->source);
    }
    ug_input_free(t, in);
    if (!ran) ug_corpus_measured_none(t, f, unmatched);
}

const ug_case ug_corpus_case = {.name = "corpus", .file = __FILE__, .line = __LINE__,
                                .fn = ug_corpus_fn};
