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

/* ---- a set of names (kernels, cases, suites) -------------------------------------------------- */

/* Distinct names in first-seen order (or sorted, after ug_kset_sort), with a hash index so that
 * adding and finding cost O(1) expected: a report of R rows is written in O(R log R), not
 * O(R x distinct names).  The names are not copied: they must outlive the set. */
typedef struct {
    const char **names;
    size_t n, cap;
    size_t *slot; /* open addressing: index + 1 into names, 0 empty; nslot a power of two */
    size_t nslot;
} ug_kset;

static size_t ug_name_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void ug_kset_rehash(ug_kset *k, size_t nslot)
{
    free(k->slot);
    k->slot = ug_xcalloc(nslot, sizeof *k->slot);
    k->nslot = nslot;
    for (size_t i = 0; i < k->n; i++) {
        size_t h = ug_name_hash(k->names[i]) & (nslot - 1);
        while (k->slot[h]) h = (h + 1) & (nslot - 1);
        k->slot[h] = i + 1;
    }
}

/* The index of id in k, or -1. */
static long ug_kset_find(const ug_kset *k, const char *id)
{
    if (!k->nslot) return -1;
    for (size_t h = ug_name_hash(id) & (k->nslot - 1); k->slot[h]; h = (h + 1) & (k->nslot - 1))
        if (strcmp(k->names[k->slot[h] - 1], id) == 0) return (long)k->slot[h] - 1;
    return -1;
}

static void ug_kset_add(ug_kset *k, const char *id)
{
    if (ug_kset_find(k, id) >= 0) return;
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 16;
        k->names = ug_xrealloc(k->names, k->cap * sizeof *k->names);
    }
    k->names[k->n++] = id;
    if (2 * k->n > k->nslot)
        ug_kset_rehash(k, k->nslot ? 2 * k->nslot : 64);
    else {
        size_t h = ug_name_hash(id) & (k->nslot - 1);
        while (k->slot[h]) h = (h + 1) & (k->nslot - 1);
        k->slot[h] = k->n;
    }
}

static int ug_strcmp_p(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void ug_kset_sort(ug_kset *k)
{
    if (k->n < 2) return; /* names is NULL when empty */
    qsort(k->names, k->n, sizeof *k->names, ug_strcmp_p);
    ug_kset_rehash(k, k->nslot);
}

static void ug_kset_free(ug_kset *k)
{
    free(k->names);
    free(k->slot);
    *k = (ug_kset){0};
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
        ug_kset_free(&ks);
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
    ug_kset_free(&ks);
}

void ug_section_n(const ug_results *all, ug_buf *o)
{
    ug_buf_printf(o, "<h2 id=\"error-n\">Error against n, with the a-priori bounds</h2>\n");
    size_t ng;
    int plots;
    ug_plot_group *g = ug_case_groups(all, ug_plot_case_n, &ng, &plots);
    ug_plot_groups(o, g, ng, plots);
    free(g);
    if (!plots)
        ug_buf_printf(o,
                      "<p>No case of this run has one-signed inputs at two sizes or more.</p>\n");
}

/* Each case's figures (one_case on its rows [from, to)), a group per run of rows of one suite,
 * with the group's failed rows counted: *ng groups, *plots figures in all, to be written by
 * ug_plot_groups (open or not, once the total is known) and freed.  O(rows). */
ug_plot_group *ug_case_groups(const ug_results *all, ug_case_figures one_case, size_t *ng,
                              int *plots)
{
    size_t cap = 0;
    ug_plot_group *g = NULL;
    *ng = 0, *plots = 0;
    for (size_t from = 0; from < all->count;) {
        char suite[128], next[128];
        ug_case_suite(all->rows[from].case_name, suite, sizeof suite);
        if (*ng == cap) g = ug_xrealloc(g, (cap = cap ? 2 * cap : 16) * sizeof *g);
        ug_plot_group *gr = &g[(*ng)++];
        *gr = (ug_plot_group){0};
        snprintf(gr->name, sizeof gr->name, "%s", suite);
        while (from < all->count) {
            ug_case_suite(all->rows[from].case_name, next, sizeof next);
            if (strcmp(next, suite) != 0) break;
            size_t to = from + 1;
            while (to < all->count &&
                   strcmp(all->rows[to].case_name, all->rows[from].case_name) == 0)
                to++;
            for (size_t i = from; i < to; i++)
                gr->failed += all->rows[i].status == UG_ST_FAIL || all->rows[i].status == UG_ST_XPASS;
            one_case(all, from, to, &gr->body, &gr->plots);
            from = to;
        }
        *plots += gr->plots;
    }
    return g;
}

/* The groups' figures: each in a <details> of its own, open when the section is short
 * (UG_OPEN_PLOTS figures at most) or the group holds a failed row; a long report opens with
 * its aggregate views and a line per group, the figures drawn when asked for (a closed
 * <details> is parsed but neither laid out nor painted).  Frees each group's body. */
void ug_plot_groups(ug_buf *o, ug_plot_group *g, size_t ng, int plots)
{
    for (size_t i = 0; i < ng; i++) {
        if (g[i].plots) {
            ug_buf_printf(o, "<details class=\"group\"%s><summary>",
                          plots <= UG_OPEN_PLOTS || g[i].failed ? " open" : "");
            ug_xml_str(o, g[i].name);
            ug_buf_printf(o, ": %d plot%s", g[i].plots, g[i].plots == 1 ? "" : "s");
            if (g[i].failed) ug_buf_printf(o, ", %zu failed row%s", g[i].failed, g[i].failed == 1 ? "" : "s");
            ug_buf_printf(o, "</summary>\n<div class=\"plots\">\n%s</div>\n</details>\n",
                          ug_buf_str(&g[i].body));
        }
        ug_buf_free(&g[i].body);
    }
}

/* ---- error against kappa --------------------------------------------------------------------- */

/* The suite of each row (cases/<suite>/...), or "" where the row is left out of a section. */
typedef char ug_suite_name[128];

/* The GenSum/GenDot cases of one suite (its usable rows: idx[0 .. n)): one plot when there are
 * two condition numbers or more.  O(n) with hashed names. */
static void ug_plot_suite_kappa(const ug_results *all, const char *suite, const size_t *idx,
                                size_t n, ug_buf *o, int *plots)
{
    ug_kset ks = {0}, cases = {0};
    char title[300], label[96];
    for (size_t j = 0; j < n; j++) {
        const ug_row *r = &all->rows[idx[j]];
        if (!ug_dist_has_kappa(r->dist)) continue;
        ug_kset_add(&ks, r->kernel);
        ug_kset_add(&cases, r->case_name);
    }
    if (ks.n == 0 || cases.n < 2) { /* one condition number: nothing to plot against */
        ug_kset_free(&ks);
        ug_kset_free(&cases);
        return;
    }
    ug_kset_sort(&ks);
    /* each kernel's row of the largest n in each case (the first of them in run order; any of
     * the case's rows, a distribution without a chosen κ too) */
    const ug_row **best = ug_xcalloc(ks.n * cases.n, sizeof *best);
    for (size_t j = 0; j < n; j++) {
        const ug_row *r = &all->rows[idx[j]];
        long k = ug_kset_find(&ks, r->kernel), c = ug_kset_find(&cases, r->case_name);
        if (k < 0 || c < 0) continue;
        const ug_row **b = &best[(size_t)k * cases.n + (size_t)c];
        if (!*b || ug_row_terms(r) > ug_row_terms(*b)) *b = r;
    }
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
            const ug_row *b = best[k * cases.n + c];
            if (!b) continue;
            ug_plot_point(p, series, b->kappa_max, b->rel_max);
            kmin = fmin(kmin, b->kappa_max);
            kmax = fmax(kmax, b->kappa_max);
            nbig = ug_row_terms(b) > nbig ? ug_row_terms(b) : nbig;
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
    free(best);
    ug_kset_free(&ks);
    ug_kset_free(&cases);
}

/* The rows of each suite in `suites`, in run order: rows of suite i are idx[start[i] ..
 * start[i + 1]); only rows r with use[r].  O(rows). */
static void ug_suite_rows(const ug_suite_name *names, const bool *use, size_t count,
                          const ug_kset *suites, size_t **start, size_t **idx)
{
    *start = ug_xcalloc(suites->n + 2, sizeof **start);
    *idx = ug_xcalloc(count + 1, sizeof **idx);
    long *of = ug_xcalloc(count + 1, sizeof *of);
    for (size_t i = 0; i < count; i++) {
        of[i] = use[i] ? ug_kset_find(suites, names[i]) : -1;
        if (of[i] >= 0) (*start)[of[i] + 2]++;
    }
    for (size_t s = 2; s < suites->n + 2; s++) (*start)[s] += (*start)[s - 1];
    for (size_t i = 0; i < count; i++)
        if (of[i] >= 0) (*idx)[(*start)[of[i] + 1]++] = i;
    free(of);
}

void ug_section_kappa(const ug_results *all, ug_buf *o)
{
    ug_buf_printf(
        o,
        "<h2 id=\"error-kappa\">Error against the condition number κ</h2>\n<div class=\"plots\">\n");
    ug_kset suites = {0};
    ug_suite_name *names = ug_xcalloc(all->count + 1, sizeof *names);
    bool *use = ug_xcalloc(all->count + 1, sizeof *use);
    for (size_t i = 0; i < all->count; i++) { /* suites of a GenSum/GenDot row, in run order */
        const ug_row *r = &all->rows[i];
        ug_case_suite(r->case_name, names[i], sizeof names[i]);
        if (ug_dist_has_kappa(r->dist)) ug_kset_add(&suites, names[i]);
        use[i] = ug_row_usable(r);
    }
    size_t *start, *idx;
    ug_suite_rows(names, use, all->count, &suites, &start, &idx);
    int plots = 0;
    for (size_t s = 0; s < suites.n; s++)
        ug_plot_suite_kappa(all, suites.names[s], idx + start[s], start[s + 1] - start[s], o,
                            &plots);
    ug_buf_printf(o, "</div>\n");
    if (!plots)
        ug_buf_printf(
            o, "<p>No suite of this run has GenSum/GenDot cases of two condition numbers.</p>\n");
    ug_kset_free(&suites);
    free(names);
    free(use);
    free(start);
    free(idx);
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
    ug_kset_free(&ks);
}

/* ---- accuracy against time ------------------------------------------------------------------- */

static const ug_results *ug_sort_rows; /* qsort's context: the rows idx[] points into */

static int ug_by_case_kernel(const void *a, const void *b)
{
    const ug_row *x = &ug_sort_rows->rows[*(const size_t *)a],
                 *y = &ug_sort_rows->rows[*(const size_t *)b];
    int c = strcmp(x->case_name, y->case_name);
    return c ? c : strcmp(x->kernel, y->kernel);
}

/* The case of a suite (its usable rows: idx[0 .. n)) to show: "<suite>/normal" if timed, else
 * the timed case with most kernels (the first in run order of those).  O(n log n). */
static const char *ug_time_case(const ug_results *all, const size_t *idx, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        const ug_row *r = &all->rows[idx[j]];
        const char *slash = strchr(r->case_name, '/');
        if (r->time_ms > 0 && slash && strcmp(slash, "/normal") == 0) return r->case_name;
    }
    /* distinct kernels per case: sorted by (case, kernel), counted in one pass */
    size_t *by = ug_xcalloc(n + 1, sizeof *by);
    memcpy(by, idx, n * sizeof *by);
    ug_sort_rows = all;
    qsort(by, n, sizeof *by, ug_by_case_kernel);
    ug_kset cases = {0};
    for (size_t j = 0; j < n; j++) ug_kset_add(&cases, all->rows[idx[j]].case_name);
    size_t *kernels = ug_xcalloc(cases.n + 1, sizeof *kernels);
    for (size_t j = 0; j < n; j++) {
        const ug_row *r = &all->rows[by[j]], *q = j ? &all->rows[by[j - 1]] : NULL;
        if (!q || strcmp(q->case_name, r->case_name) != 0 || strcmp(q->kernel, r->kernel) != 0)
            kernels[ug_kset_find(&cases, r->case_name)]++;
    }
    const char *best = NULL;
    size_t best_k = 0;
    for (size_t j = 0; j < n; j++) {
        const ug_row *r = &all->rows[idx[j]];
        size_t k = kernels[ug_kset_find(&cases, r->case_name)];
        if (r->time_ms > 0 && k > best_k) {
            best_k = k;
            best = r->case_name;
        }
    }
    free(by);
    free(kernels);
    ug_kset_free(&cases);
    return best;
}

/* One plot for the suite whose usable rows are idx[0 .. n): its case of ug_time_case at the
 * largest size at which two kernels or more were timed.  O(n + c^2), c the case's rows. */
static void ug_plot_suite_time(const ug_results *all, const size_t *idx, size_t n, ug_buf *o,
                               int *plots)
{
    const char *cname = ug_time_case(all, idx, n);
    if (!cname) return;
    const ug_row **rows = ug_xcalloc(n + 1, sizeof *rows); /* the case's rows */
    size_t c = 0;
    for (size_t j = 0; j < n; j++)
        if (strcmp(all->rows[idx[j]].case_name, cname) == 0) rows[c++] = &all->rows[idx[j]];
    size_t nstar = 0;
    ug_kset ks = {0};
    for (size_t i = 0; i < c; i++) {
        const ug_row *r = rows[i];
        if (r->time_ms <= 0 || r->shape.dim[0] <= nstar) continue;
        ug_kset_free(&ks);
        for (size_t j = 0; j < c; j++)
            if (rows[j]->time_ms > 0 && rows[j]->shape.dim[0] == r->shape.dim[0])
                ug_kset_add(&ks, rows[j]->kernel);
        if (ks.n >= 2) nstar = r->shape.dim[0];
    }
    ug_kset_free(&ks);
    for (size_t i = 0; i < c; i++)
        if (nstar && rows[i]->shape.dim[0] == nstar) ug_kset_add(&ks, rows[i]->kernel);
    ug_kset_sort(&ks);
    char title[300], label[96];
    snprintf(title, sizeof title, "%s, n = %zu: accuracy against time", cname, nstar);
    ug_plot *p = ug_plot_new(title, "time of one call, median (ms, log)", UG_AXIS_LOG,
                             "mean ULP error (log)", UG_AXIS_LOG);
    for (size_t k = 0; k < ks.n; k++) { /* one point a kernel: its largest shape at that n */
        const ug_row *best = NULL;
        for (size_t i = 0; i < c; i++) {
            const ug_row *r = rows[i];
            if (r->shape.dim[0] == nstar && r->time_ms > 0 && strcmp(r->kernel, ks.names[k]) == 0 &&
                (!best || r->elements > best->elements))
                best = r;
        }
        if (!best) continue;
        ug_kernel_label(best->kernel, label, sizeof label);
        ug_plot_point(p, ug_plot_series(p, label, (int)k, UG_SERIES_MARKERS), best->time_ms,
                      best->ulp_mean);
    }
    if (nstar && ug_plot_count(p) >= 2) {
        ug_figure(o, p, UG_PLOT_W, UG_PLOT_H,
                  "Each kernel once: lower is more accurate, left is faster. GPU kernels are timed "
                  "with CUDA events (median of 10 runs after a warm-up), CPU kernels with a "
                  "monotonic clock around one call (median over the trials). Timing is reported, "
                  "never gated.");
        ++*plots;
    }
    ug_plot_free(p);
    ug_kset_free(&ks);
    free(rows);
}

void ug_section_time(const ug_results *all, ug_buf *o)
{
    ug_buf_printf(o, "<h2 id=\"time\">Accuracy against time</h2>\n<div class=\"plots\">\n");
    ug_kset suites = {0};
    ug_suite_name *names = ug_xcalloc(all->count + 1, sizeof *names);
    bool *use = ug_xcalloc(all->count + 1, sizeof *use);
    for (size_t i = 0; i < all->count; i++) {
        if (!ug_row_usable(&all->rows[i])) continue;
        ug_case_suite(all->rows[i].case_name, names[i], sizeof names[i]);
        ug_kset_add(&suites, names[i]);
        use[i] = true;
    }
    size_t *start, *idx;
    ug_suite_rows(names, use, all->count, &suites, &start, &idx);
    int plots = 0;
    for (size_t s = 0; s < suites.n; s++)
        ug_plot_suite_time(all, idx + start[s], start[s + 1] - start[s], o, &plots);
    ug_buf_printf(o, "</div>\n");
    if (!plots) ug_buf_printf(o, "<p>No case of this run timed two kernels at one size.</p>\n");
    ug_kset_free(&suites);
    free(names);
    free(use);
    free(start);
    free(idx);
}
