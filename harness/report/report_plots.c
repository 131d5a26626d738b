/*
 * report_plots.c - the plots of index.html (see pages.h), each section a <div> of <figure>s:
 *
 *   error against n: per case whose inputs are one-signed (kappa = 1, so |s| = sum |x| and the
 *     relative error is directly comparable with the a-priori bound's factor), the max relative
 *     error of every kernel against n on log-log axes, with each kernel's a-priori bound as a
 *     dashed line (kernels/bounds.c, the class and depth its registry row declares);
 *   error against kappa: the GenSum/GenDot cases of a suite, relative error against the
 *     condition number, with the bounds c(n) kappa;
 *   ULP-error histograms: per kernel, the 16 buckets of results.json over all its outputs;
 *   accuracy against time: mean ULP error against the median time of one call.
 *
 * Kernels are looked up in this build's registry for their bounds: a results.json from another
 * build plots without the bound lines of kernels this one does not have.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"
#include "ops/op.h"
#include "base/sys.h"
#include "harness/report/report_parts.h"
#include "harness/report/svg.h"

enum { UG_PLOT_W = 880, UG_PLOT_H = 430, UG_HIST_W = 290, UG_HIST_H = 200 };

static bool ug_row_usable(const ug_row *r)
{
    return r->measured && r->status != UG_ST_SKIP && r->count > 0;
}

/* A kernel's name as a legend shows it (from its id name@variant): the variant only when it is
 * not the default. */
static void ug_kernel_label(const char *id, char *buf, size_t len)
{
    snprintf(buf, len, "%s", id);
    char *at = strrchr(buf, '@');
    if (at && strcmp(at, "@default") == 0) *at = 0;
}

/* ---- kernels of a set of rows ---------------------------------------------------------------- */

typedef struct {
    const char **names; /* kernel ids, sorted */
    size_t n;
} ug_kset;

static int ug_strcmp_p(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void ug_kset_add(ug_kset *k, const char *id)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->names[i], id) == 0) return;
    k->names = ug_xrealloc(k->names, (k->n + 1) * sizeof *k->names);
    k->names[k->n++] = id;
}

static void ug_kset_sort(ug_kset *k)
{
    if (k->n > 1) qsort(k->names, k->n, sizeof *k->names, ug_strcmp_p); /* names is NULL when empty */
}

/* ---- points of a series ---------------------------------------------------------------------- */

typedef struct {
    double x, y;
} ug_xy;

static int ug_by_x(const void *a, const void *b)
{
    double x = ((const ug_xy *)a)->x, y = ((const ug_xy *)b)->x;
    return (x > y) - (x < y);
}

/* Add pts to series s sorted by x, one point per x: the largest y there (rows of one size but
 * other shapes, such as rectangular GEMMs of one K, give one point: the worst). */
static void ug_series_max_by_x(ug_plot *p, int s, ug_xy *pts, size_t n)
{
    qsort(pts, n, sizeof *pts, ug_by_x);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double y = pts[i].y;
        for (; j < n && pts[j].x == pts[i].x; j++) y = fmax(y, pts[j].y);
        ug_plot_point(p, s, pts[i].x, y);
        i = j;
    }
}

/* ---- bound curves, merged when two kernels have the same one --------------------------------- */

enum { UG_CURVE_PTS = 64 };

typedef struct {
    double x[UG_CURVE_PTS], y[UG_CURVE_PTS];
    size_t n;
    int style;
    char label[200];
    int kernels;
} ug_curve;

/* Add kernel k's curve (x[i], y[i]) to curves unless an identical one is there: then its name
 * joins that curve's label. */
static void ug_curve_add(ug_curve *curves, size_t *nc, size_t cap, const ug_curve *c,
                         const char *name)
{
    for (size_t i = 0; i < *nc; i++) {
        if (curves[i].n != c->n || memcmp(curves[i].y, c->y, c->n * sizeof c->y[0]) != 0 ||
            memcmp(curves[i].x, c->x, c->n * sizeof c->x[0]) != 0)
            continue;
        if (++curves[i].kernels <= 3)
            snprintf(curves[i].label + strlen(curves[i].label),
                     sizeof curves[i].label - strlen(curves[i].label), ", %s", name);
        else if (curves[i].kernels == 4)
            snprintf(curves[i].label + strlen(curves[i].label),
                     sizeof curves[i].label - strlen(curves[i].label), ", ...");
        return;
    }
    if (*nc == cap) return;
    curves[*nc] = *c;
    curves[*nc].kernels = 1;
    snprintf(curves[*nc].label, sizeof curves[*nc].label, "bound of %s", name);
    ++*nc;
}

static void ug_curves_plot(ug_plot *p, const ug_curve *curves, size_t nc)
{
    for (size_t i = 0; i < nc; i++) {
        int s =
            ug_plot_series(p, curves[i].label, curves[i].style, UG_SERIES_LINE | UG_SERIES_DASHED);
        for (size_t j = 0; j < curves[i].n; j++)
            ug_plot_point(p, s, curves[i].x[j], curves[i].y[j]);
    }
}

static void ug_figure(ug_buf *o, const ug_plot *p, int w, int h, const char *caption)
{
    ug_buf_printf(o, "<figure>\n");
    ug_plot_svg(p, o, w, h);
    ug_buf_printf(o, "<figcaption>");
    ug_xml_str(o, caption);
    ug_buf_printf(o, "</figcaption></figure>\n");
}

/* ---- error against n ------------------------------------------------------------------------- */

/* The case of rows [from, to): one plot when its inputs are one-signed and it has two sizes. */
static void ug_plot_case_n(const ug_results *all, size_t from, size_t to, ug_buf *o, int *plots)
{
    ug_kset ks = {0};
    size_t nmin = (size_t)-1, nmax = 0;
    bool one_signed = true, gemm = false;
    for (size_t i = from; i < to; i++) {
        const ug_row *r = &all->rows[i];
        if (!ug_row_usable(r)) continue;
        one_signed &= r->kappa_max > 0 && r->kappa_max <= 1 + 1e-6;
        gemm |= ug_row_shaped(r);
        size_t t = ug_row_terms(r);
        nmin = t < nmin ? t : nmin;
        nmax = t > nmax ? t : nmax;
        ug_kset_add(&ks, r->kernel);
    }
    if (!ks.n || !one_signed || nmax <= nmin || nmax < 8) {
        free(ks.names);
        return;
    }
    ug_kset_sort(&ks);
    char title[300], label[96];
    snprintf(title, sizeof title, "%s: max relative error against n (inputs one-signed: κ = 1)",
             all->rows[from].case_name);
    ug_plot *p =
        ug_plot_new(title, gemm ? "K, terms per output (log)" : "n, terms summed per output (log)",
                    UG_AXIS_LOG, "max relative error |ŝ − s| / |s| (log)", UG_AXIS_LOG);
    ug_curve *curves = ug_xcalloc(ks.n + 1, sizeof *curves);
    size_t nc = 0, zeros = 0;
    ug_xy *pts = ug_xcalloc(to - from + 1, sizeof *pts);
    for (size_t k = 0; k < ks.n; k++) {
        size_t np = 0;
        for (size_t i = from; i < to; i++) {
            const ug_row *r = &all->rows[i];
            if (!ug_row_usable(r) || strcmp(r->kernel, ks.names[k]) != 0) continue;
            zeros += r->rel_max == 0;
            pts[np++] = (ug_xy){(double)ug_row_terms(r), r->rel_max};
        }
        ug_kernel_label(ks.names[k], label, sizeof label);
        ug_series_max_by_x(p, ug_plot_series(p, label, (int)k, UG_SERIES_LINE | UG_SERIES_MARKERS),
                           pts, np);
        const ug_kernel *kk = ug_kernel_find(ks.names[k]);
        if (!kk || kk->bound == UG_BOUND_NONE) continue;
        ug_curve c = {.style = (int)k};
        double l0 = log((double)nmin), l1 = log((double)nmax);
        for (size_t j = 0; j < UG_CURVE_PTS; j++) {
            size_t n = (size_t)llround(exp(l0 + (l1 - l0) * (double)j / (UG_CURVE_PTS - 1)));
            if (c.n && (size_t)c.x[c.n - 1] == n) continue;
            c.x[c.n] = (double)n;
            c.y[c.n++] = ug_kernel_bound(kk, n, 1.0, 1.0);
        }
        ug_kernel_label(ks.names[k], label, sizeof label);
        ug_curve_add(curves, &nc, ks.n, &c, label);
    }
    ug_curves_plot(p, curves, nc);
    char cap[600];
    snprintf(cap, sizeof cap,
             "Markers: the largest relative error over every output of every trial "
             "at each n. Dashed: each kernel's a-priori bound for κ = 1 (its class and "
             "depth, kernels/bounds.c); every marker must lie below its kernel's line. "
             "%zu exact results (error 0) cannot be drawn on a log axis.",
             zeros);
    ug_figure(o, p, UG_PLOT_W, UG_PLOT_H, cap);
    ++*plots;
    ug_plot_free(p);
    free(pts);
    free(curves);
    free(ks.names);
}

void ug_section_n(const ug_results *all, ug_buf *o)
{
    ug_buf_printf(
        o,
        "<h2 id=\"error-n\">Error against n, with the a-priori bounds</h2>\n<div class=\"plots\">\n");
    int plots = 0;
    for (size_t from = 0; from < all->count;) {
        size_t to = from + 1;
        while (to < all->count && strcmp(all->rows[to].case_name, all->rows[from].case_name) == 0)
            to++;
        ug_plot_case_n(all, from, to, o, &plots);
        from = to;
    }
    ug_buf_printf(o, "</div>\n");
    if (!plots)
        ug_buf_printf(o,
                      "<p>No case of this run has one-signed inputs at two sizes or more.</p>\n");
}

/* ---- error against kappa --------------------------------------------------------------------- */

/* The GenSum/GenDot cases of one suite: one plot when there are two condition numbers or more. */
static void ug_plot_suite_kappa(const ug_results *all, const char *suite, ug_buf *o, int *plots)
{
    ug_kset ks = {0}, cases = {0};
    char s[128], title[300], label[96];
    for (size_t i = 0; i < all->count; i++) {
        const ug_row *r = &all->rows[i];
        ug_case_suite(r->case_name, s, sizeof s);
        if (!ug_row_usable(r) || !ug_dist_has_kappa(r->dist) || strcmp(s, suite) != 0) continue;
        ug_kset_add(&ks, r->kernel);
        ug_kset_add(&cases, r->case_name);
    }
    if (ks.n == 0 || cases.n < 2) { /* one condition number: nothing to plot against */
        free(ks.names);
        free(cases.names);
        return;
    }
    ug_kset_sort(&ks);
    snprintf(title, sizeof title,
             "%s: relative error against the condition number κ (largest n of each case)", suite);
    ug_plot *p = ug_plot_new(title, "κ = Σ|terms| / |Σ terms| (log)", UG_AXIS_LOG,
                             "max relative error |ŝ − s| / |s| (log)", UG_AXIS_LOG);
    ug_curve *curves = ug_xcalloc(ks.n + 1, sizeof *curves);
    size_t nc = 0;
    double kmin = INFINITY, kmax = 0;
    for (size_t k = 0; k < ks.n; k++) {
        ug_kernel_label(ks.names[k], label, sizeof label);
        int series = ug_plot_series(p, label, (int)k, UG_SERIES_LINE | UG_SERIES_MARKERS);
        size_t nbig = 0;
        for (size_t c = 0; c < cases.n; c++) {
            const ug_row *best = NULL;
            for (size_t i = 0; i < all->count; i++) {
                const ug_row *r = &all->rows[i];
                if (ug_row_usable(r) && strcmp(r->kernel, ks.names[k]) == 0 &&
                    strcmp(r->case_name, cases.names[c]) == 0 &&
                    (!best || ug_row_terms(r) > ug_row_terms(best)))
                    best = r;
            }
            if (!best) continue;
            ug_plot_point(p, series, best->kappa_max, best->rel_max);
            kmin = fmin(kmin, best->kappa_max);
            kmax = fmax(kmax, best->kappa_max);
            nbig = ug_row_terms(best) > nbig ? ug_row_terms(best) : nbig;
        }
        const ug_kernel *kk = ug_kernel_find(ks.names[k]);
        if (!kk || kk->bound == UG_BOUND_NONE || !(kmin < kmax)) continue;
        ug_curve cv = {.style = (int)k};
        for (size_t j = 0; j < 24; j++) { /* relative bound for |s| = 1, S = kappa */
            double kap = kmin * pow(kmax / kmin, (double)j / 23);
            cv.x[cv.n] = kap;
            cv.y[cv.n++] = ug_kernel_bound(kk, nbig, kap, 1.0);
        }
        ug_curve_add(curves, &nc, ks.n, &cv, label);
    }
    ug_curves_plot(p, curves, nc);
    ug_figure(
        o, p, UG_PLOT_W, UG_PLOT_H,
        "Ogita-Rump-Oishi inputs of a chosen condition number; each kernel at the largest n "
        "of each case. Dashed: its a-priori relative bound at that n, c(n) κ (plus u for "
        "the classes with a u|s| term). An ordinary sum's bound grows like D u κ (D its depth), "
        "Kahan's like 2u κ; Neumaier's, u + γ²(n-1) κ, stays near u while κ is well below "
        "1/(n² u): as if summed in twice the precision and rounded once.");
    ++*plots;
    ug_plot_free(p);
    free(curves);
    free(ks.names);
    free(cases.names);
}

void ug_section_kappa(const ug_results *all, ug_buf *o)
{
    ug_buf_printf(
        o,
        "<h2 id=\"error-kappa\">Error against the condition number κ</h2>\n<div class=\"plots\">\n");
    ug_kset suites = {0};
    char(*names)[128] = ug_xcalloc(all->count + 1, sizeof *names);
    for (size_t i = 0; i < all->count; i++) {
        if (!ug_dist_has_kappa(all->rows[i].dist)) continue;
        ug_case_suite(all->rows[i].case_name, names[i], sizeof names[i]);
        ug_kset_add(&suites, names[i]);
    }
    int plots = 0;
    for (size_t s = 0; s < suites.n; s++) ug_plot_suite_kappa(all, suites.names[s], o, &plots);
    ug_buf_printf(o, "</div>\n");
    if (!plots)
        ug_buf_printf(
            o, "<p>No suite of this run has GenSum/GenDot cases of two condition numbers.</p>\n");
    free(suites.names);
    free(names);
}

/* ---- ULP histograms -------------------------------------------------------------------------- */

void ug_section_hist(const ug_results *all, ug_buf *o)
{
    /* measure.c's buckets: [0] exact, [1..14] up to 1/4, 1/2, 1, ..., 2048 ulp, [15] beyond */
    static const char *const labels[16] = {"0",    "≤¼",   "≤½",    "≤1",    "≤2",    "≤4",
                                           "≤8",   "≤16",  "≤32",   "≤64",   "≤128",  "≤256",
                                           "≤512", "≤1024", "≤2048", ">2048"};
    ug_buf_printf(
        o, "<h2 id=\"histograms\">ULP-error histograms</h2>\n<p>Per kernel, every output "
           "of every case of this run: the fraction whose error is exact (0), within ¼, ½, "
           "1, 2, ... ulp of the exact value's binade (log scale).</p>\n<div class=\"plots\">\n");
    ug_kset ks = {0};
    for (size_t i = 0; i < all->count; i++)
        if (ug_row_usable(&all->rows[i])) ug_kset_add(&ks, all->rows[i].kernel);
    ug_kset_sort(&ks);
    for (size_t k = 0; k < ks.n; k++) {
        double h[16] = {0}, total = 0, v[16];
        for (size_t i = 0; i < all->count; i++) {
            const ug_row *r = &all->rows[i];
            if (!ug_row_usable(r) || strcmp(r->kernel, ks.names[k]) != 0) continue;
            for (int b = 0; b < 16; b++) h[b] += (double)r->ulp_hist[b];
        }
        for (int b = 0; b < 16; b++) total += h[b];
        if (total <= 0) continue;
        for (int b = 0; b < 16; b++) v[b] = h[b] / total;
        char title[160], label[96];
        ug_kernel_label(ks.names[k], label, sizeof label);
        snprintf(title, sizeof title, "%s (%.0f outputs)", label, total);
        ug_bars_svg(o, title, "ULP error", "fraction of outputs", labels, v, 16,
                    pow(10, floor(log10(0.5 / total))), (int)k, UG_HIST_W, UG_HIST_H);
    }
    ug_buf_printf(o, "</div>\n");
    free(ks.names);
}

/* ---- accuracy against time ------------------------------------------------------------------- */

/* The case of a suite to show: "<suite>/normal" if timed, else the timed case with most kernels. */
static const char *ug_time_case(const ug_results *all, const char *suite)
{
    const char *best = NULL;
    size_t best_k = 0;
    char s[128];
    for (size_t i = 0; i < all->count; i++) {
        const ug_row *r = &all->rows[i];
        ug_case_suite(r->case_name, s, sizeof s);
        if (!ug_row_usable(r) || r->time_ms <= 0 || strcmp(s, suite) != 0) continue;
        const char *slash = strchr(r->case_name, '/');
        if (slash && strcmp(slash, "/normal") == 0) return r->case_name;
        ug_kset ks = {0};
        for (size_t j = 0; j < all->count; j++)
            if (strcmp(all->rows[j].case_name, r->case_name) == 0 && ug_row_usable(&all->rows[j]))
                ug_kset_add(&ks, all->rows[j].kernel);
        if (ks.n > best_k) {
            best_k = ks.n;
            best = r->case_name;
        }
        free(ks.names);
    }
    return best;
}

static void ug_plot_suite_time(const ug_results *all, const char *suite, ug_buf *o, int *plots)
{
    const char *cname = ug_time_case(all, suite);
    if (!cname) return;
    /* the largest size at which two kernels or more were timed */
    size_t nstar = 0;
    ug_kset ks = {0};
    for (size_t i = 0; i < all->count; i++) {
        const ug_row *r = &all->rows[i];
        if (!ug_row_usable(r) || r->time_ms <= 0 || strcmp(r->case_name, cname) != 0 ||
            r->shape.dim[0] <= nstar)
            continue;
        ks.n = 0;
        for (size_t j = 0; j < all->count; j++)
            if (ug_row_usable(&all->rows[j]) && all->rows[j].time_ms > 0 &&
                all->rows[j].shape.dim[0] == r->shape.dim[0] && strcmp(all->rows[j].case_name, cname) == 0)
                ug_kset_add(&ks, all->rows[j].kernel);
        if (ks.n >= 2) nstar = r->shape.dim[0];
    }
    if (!nstar) {
        free(ks.names);
        return;
    }
    ks.n = 0;
    for (size_t i = 0; i < all->count; i++)
        if (strcmp(all->rows[i].case_name, cname) == 0 && all->rows[i].shape.dim[0] == nstar &&
            ug_row_usable(&all->rows[i]))
            ug_kset_add(&ks, all->rows[i].kernel);
    ug_kset_sort(&ks);
    char title[300], label[96];
    snprintf(title, sizeof title, "%s, n = %zu: accuracy against time", cname, nstar);
    ug_plot *p = ug_plot_new(title, "time of one call, median (ms, log)", UG_AXIS_LOG,
                             "mean ULP error (log)", UG_AXIS_LOG);
    for (size_t k = 0; k < ks.n; k++) { /* one point a kernel: its largest shape at that n */
        const ug_row *best = NULL;
        for (size_t i = 0; i < all->count; i++) {
            const ug_row *r = &all->rows[i];
            if (strcmp(r->case_name, cname) == 0 && r->shape.dim[0] == nstar && ug_row_usable(r) &&
                r->time_ms > 0 && strcmp(r->kernel, ks.names[k]) == 0 &&
                (!best || r->elements > best->elements))
                best = r;
        }
        if (!best) continue;
        ug_kernel_label(best->kernel, label, sizeof label);
        ug_plot_point(p, ug_plot_series(p, label, (int)k, UG_SERIES_MARKERS), best->time_ms,
                      best->ulp_mean);
    }
    if (ug_plot_count(p) >= 2) {
        ug_figure(o, p, UG_PLOT_W, UG_PLOT_H,
                  "Each kernel once: lower is more accurate, left is faster. GPU kernels are timed "
                  "with CUDA events (median of 10 runs after a warm-up), CPU kernels with a "
                  "monotonic clock around one call (median over the trials). Timing is reported, "
                  "never gated.");
        ++*plots;
    }
    ug_plot_free(p);
    free(ks.names);
}

void ug_section_time(const ug_results *all, ug_buf *o)
{
    ug_buf_printf(o, "<h2 id=\"time\">Accuracy against time</h2>\n<div class=\"plots\">\n");
    ug_kset suites = {0};
    char(*names)[128] = ug_xcalloc(all->count + 1, sizeof *names);
    for (size_t i = 0; i < all->count; i++) {
        if (!ug_row_usable(&all->rows[i])) continue;
        ug_case_suite(all->rows[i].case_name, names[i], sizeof names[i]);
        ug_kset_add(&suites, names[i]);
    }
    int plots = 0;
    for (size_t s = 0; s < suites.n; s++) ug_plot_suite_time(all, suites.names[s], o, &plots);
    ug_buf_printf(o, "</div>\n");
    if (!plots) ug_buf_printf(o, "<p>No case of this run timed two kernels at one size.</p>\n");
    free(suites.names);
    free(names);
}
