/*
 * corpus_run.c - the case every corpus unit runs (corpus.h): the file's input measured on every
 * kernel the file selects, one test point each, with the file's checks and strict per-kernel
 * expected failures.  A malformed file is one failed point naming FILE:LINE; the other units
 * run on.  The file is read here, when its unit runs, one step at a time (corpus.h): nothing
 * of it was read at discovery.
 */
#include <stdio.h>
#include <string.h>

#include "kernels/plugin.h"
#include "harness/run/context.h"
#include "harness/run/run_limits.h"
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

/* Kernel names that match nothing are stale (renamed kernels, typos): a failure at their line.
 * A build without CUDA does not know the GPU kernels' names, so there it is a note.  Returns
 * the globs that matched no kernel (the noted ones among them). */
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
        if (UG_CUDA_BUILT) ug_corpus_file_failure(t, f, f->kernels_line, msg);
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
        if (UG_CUDA_BUILT || ug_any_kernel_matches(x->glob, f->op, false))
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

/* The file's checks on one measurement, and the implicit bound check. */
static void ug_corpus_checks(ug_t *t, const ug_corpus_file *f, const ug_result *r)
{
    bool own_ratio = false;
    char expr[200];
    for (int i = 0; i < f->n_checks; i++) {
        const ug_corpus_check *c = &f->checks[i];
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
    ug_limits_input(t, f->op, label, shape.dim[0], shape.dim[1], shape.dim[2], 1);
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
        ug_corpus_checks(t, f, r);
        if (t->pt.failed)
            ug_buf_printf(&t->pt.diag, "#   why: %s\n#   source: %s\n", f->why, f->source);
    }
    ug_input_free(t, in);
    if (!ran) ug_corpus_measured_none(t, f, unmatched);
}

const ug_case ug_corpus_case = {.name = "corpus", .file = __FILE__, .line = __LINE__,
                                .fn = ug_corpus_fn};
