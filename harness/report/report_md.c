/*
 * report_md.c - summary.md (failures and regressions first, then per case a table kernel x n)
 * and the terminal table of `ulpgate summary` (see pages.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/report/report_parts.h"

/* Text for a Markdown table cell: '|' escaped (also inside code spans, as GFM wants). */
static void ug_md_cell(ug_buf *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            ug_buf_printf(o, "\\|");
        else if (*s == '\n')
            ug_buf_printf(o, " ");
        else
            ug_buf_put(o, s, 1);
    }
}

static const char *ug_meta_str(const ug_pages_in *in, const char *key)
{
    return ug_json_str_of(ug_json_get(in->meta, key), "?");
}

static bool ug_row_failed(const ug_row *r)
{
    return r->status == UG_ST_FAIL || r->status == UG_ST_XPASS;
}

/* ---- the sections before the tables ---------------------------------------------------------- */

static void ug_md_header(const ug_pages_in *in, ug_buf *o)
{
    char counts[200];
    ug_results_summary(&in->all, counts, sizeof counts);
    size_t measured = 0;
    for (size_t i = 0; i < in->all.count; i++) measured += in->all.rows[i].measured;
    ug_buf_printf(o,
                  "# ulpgate report\n\nRun of git `%s` on `%s` (%s; %s %s), %s, seed %s, "
                  "oracle %s.\n\n**%s** (%zu measurements). Plots: [index.html](index.html).\n\n",
                  ug_meta_str(in, "git"), in->device, ug_meta_str(in, "host"),
                  ug_meta_str(in, "compiler"), ug_meta_str(in, "cflags"), ug_meta_str(in, "date"),
                  ug_meta_str(in, "seed"), ug_meta_str(in, "oracle"), counts, measured);
    const ug_json *gpu = ug_json_get(in->meta, "gpu");
    if (gpu)
        ug_buf_printf(o, "GPU: %s (cc %s, %.0f SMs, driver %.0f, runtime %.0f, cuBLAS %.0f).\n\n",
                      ug_json_str_of(ug_json_get(gpu, "name"), "?"),
                      ug_json_str_of(ug_json_get(gpu, "cc"), "?"),
                      ug_json_num_of(ug_json_get(gpu, "sm_count"), 0),
                      ug_json_num_of(ug_json_get(gpu, "driver"), 0),
                      ug_json_num_of(ug_json_get(gpu, "runtime"), 0),
                      ug_json_num_of(ug_json_get(gpu, "cublas"), 0));
}

static void ug_md_failures(const ug_pages_in *in, ug_buf *o)
{
    size_t n = 0;
    for (size_t i = 0; i < in->all.count; i++) n += ug_row_failed(&in->all.rows[i]);
    ug_buf_printf(o, "## Failures (%zu)\n\n", n);
    if (!n) {
        ug_buf_printf(o, "None: every check held.\n\n");
        return;
    }
    ug_buf_printf(
        o, "| test point | status | what | ulp max | bound ratio |\n|---|---|---|---:|---:|\n");
    for (size_t i = 0; i < in->all.count; i++) {
        const ug_row *r = &in->all.rows[i];
        if (!ug_row_failed(r)) continue;
        char a[32], b[32];
        ug_buf_printf(o, "| `");
        ug_md_cell(o, r->point);
        ug_buf_printf(o, "` | %s | ", ug_status_name(r->status));
        if (r->note[0])
            ug_md_cell(o, r->note);
        else
            ug_buf_printf(o, "%d check%s failed (the TAP log says which)", r->failures,
                          r->failures == 1 ? "" : "s");
        ug_buf_printf(o, " | %s | %s |\n", r->measured ? ug_fmt_fig(r->ulp_max, a) : "",
                      r->measured ? ug_fmt_fig(r->bound_ratio_max, b) : "");
    }
    ug_buf_printf(o, "\n");
}

static void ug_md_regressions(const ug_pages_in *in, ug_buf *o)
{
    if (!in->have_base) {
        ug_buf_printf(o, "## Regressions\n\nNot compared: %s.\n\n", in->base_note);
        return;
    }
    ug_buf_printf(o, "## Regressions against `%s`\n\n", in->base.path);
    ug_cmp_print_markdown(&in->cmp, o, 100);
    ug_buf_printf(o, "\n");
}

static void ug_md_declared(const ug_pages_in *in, ug_buf *o)
{
    size_t xf = 0, sk = 0;
    for (size_t i = 0; i < in->all.count; i++) {
        xf += in->all.rows[i].status == UG_ST_XFAIL;
        sk += in->all.rows[i].status == UG_ST_SKIP;
    }
    if (xf) {
        ug_buf_printf(o, "## Expected failures (%zu, declared in the cases)\n\n", xf);
        for (size_t i = 0; i < in->all.count; i++)
            if (in->all.rows[i].status == UG_ST_XFAIL) {
                ug_buf_printf(o, "- `%s`: ", in->all.rows[i].point);
                ug_md_cell(o, in->all.rows[i].note);
                ug_buf_printf(o, "\n");
            }
        ug_buf_printf(o, "\n");
    }
    if (sk) {
        /* grouped by reason: a run without a GPU skips every GPU case for the same one */
        ug_buf_printf(o, "## Skipped (%zu)\n\n", sk);
        bool *done = ug_xcalloc(in->all.count + 1, sizeof *done);
        for (size_t i = 0; i < in->all.count; i++) {
            const ug_row *r = &in->all.rows[i];
            if (r->status != UG_ST_SKIP || done[i]) continue;
            ug_buf_printf(o, "- %s: ", r->note[0] ? r->note : "(no reason given)");
            for (size_t j = i; j < in->all.count; j++)
                if (in->all.rows[j].status == UG_ST_SKIP && !done[j] &&
                    strcmp(in->all.rows[j].note, r->note) == 0) {
                    ug_buf_printf(o, "%s`%s`", j == i ? "" : ", ", in->all.rows[j].point);
                    done[j] = true;
                }
            ug_buf_printf(o, "\n");
        }
        free(done);
        ug_buf_printf(o, "\n");
    }
}

/* ---- per case: kernel x n -------------------------------------------------------------------- */

static const ug_results *ug_sort_rows;
static int ug_by_kernel_n(const void *a, const void *b)
{
    const ug_row *x = &ug_sort_rows->rows[*(const size_t *)a],
                 *y = &ug_sort_rows->rows[*(const size_t *)b];
    int c = strcmp(x->kernel, y->kernel);
    if (c) return c;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* Whether a field of the schema (row_fields.h) is a figure column of a case's table: it has a
 * heading, and its rows are of this table's kind (GEMM or not; a condition number or not). */
static bool ug_md_column(const ug_field *f, bool kappa, bool gemm)
{
    if (!f->md || ((f->flags & UG_FF_KAPPA) && !kappa)) return false;
    return f->res == UG_W_GEMM ? gemm : f->res == UG_W_NOGEMM ? !gemm : true;
}

/* The rows [from, to) of one case (contiguous in run order); the figure columns come from the
 * schema's md headings, in its order. */
static void ug_md_case(const ug_results *all, size_t from, size_t to, ug_buf *o)
{
    size_t *idx = ug_xcalloc(to - from + 1, sizeof *idx), n = 0;
    bool kappa = false, odd = false, gemm = false;
    for (size_t i = from; i < to; i++) {
        const ug_row *r = &all->rows[i];
        if (!r->measured || r->status == UG_ST_SKIP) continue;
        idx[n++] = i;
        kappa |= ug_dist_has_kappa(r->dist);
        odd |= r->status != UG_ST_PASS;
        gemm |= ug_row_shaped(r);
    }
    if (!n) {
        free(idx);
        return;
    }
    ug_sort_rows = all;
    qsort(idx, n, sizeof *idx, ug_by_kernel_n);
    ug_buf_printf(o, "### %s: `%s`\n\n| kernel | %s |%s", all->rows[idx[0]].case_name,
                  all->rows[idx[0]].dist, gemm ? "M x N x K" : "n", odd ? " status |" : "");
    for (size_t f = 0; f < ug_n_row_fields; f++)
        if (ug_md_column(&ug_row_fields[f], kappa, gemm))
            ug_buf_printf(o, " %s |", ug_row_fields[f].md);
    ug_buf_printf(o, "\n|---|---:|%s", odd ? "---|" : "");
    for (size_t f = 0; f < ug_n_row_fields; f++)
        if (ug_md_column(&ug_row_fields[f], kappa, gemm)) ug_buf_printf(o, "---:|");
    ug_buf_printf(o, "\n");
    for (size_t j = 0; j < n; j++) {
        const ug_row *r = &all->rows[idx[j]];
        char a[32];
        ug_buf_printf(o, "| %s | ", r->kernel);
        if (gemm)
            ug_buf_printf(o, "%zu x %zu x %zu", r->m, r->gemm_n, r->k);
        else
            ug_buf_printf(o, "%zu", r->n);
        ug_buf_printf(o, " |");
        if (odd)
            ug_buf_printf(o, " %s%s%s |", ug_row_failed(r) ? "**" : "", ug_status_name(r->status),
                          ug_row_failed(r) ? "**" : "");
        for (size_t f = 0; f < ug_n_row_fields; f++) {
            const ug_field *fd = &ug_row_fields[f];
            if (!ug_md_column(fd, kappa, gemm)) continue;
            double v = ug_row_num(r, fd);
            ug_buf_printf(o, " %s |", (fd->flags & UG_FF_BLANK0) && !(v > 0) ? "" : ug_fmt_fig(v, a));
        }
        ug_buf_printf(o, "\n");
    }
    ug_buf_printf(o, "\n");
    free(idx);
}

void ug_report_md(const ug_pages_in *in, ug_buf *o)
{
    ug_md_header(in, o);
    ug_md_failures(in, o);
    ug_md_regressions(in, o);
    ug_md_declared(in, o);
    ug_buf_printf(o, "## Cases\n\nPer case, every kernel at every size: the worst (max) and mean "
                     "error over every output of every trial, the largest ratio of an error to its "
                     "a-priori (or probabilistic) bound, and the median time of one call.\n\n");
    const ug_results *all = &in->all;
    for (size_t from = 0; from < all->count;) {
        size_t to = from + 1;
        while (to < all->count && strcmp(all->rows[to].case_name, all->rows[from].case_name) == 0)
            to++;
        ug_md_case(all, from, to, o);
        from = to;
    }
}

/* ---- the terminal table ---------------------------------------------------------------------- */

/* Distinct strings in first-seen order (a small set: linear search is fine). */
typedef struct {
    const char **v;
    size_t n;
} ug_strset;

static size_t ug_strset_add(ug_strset *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], x) == 0) return i;
    s->v = ug_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    s->v[s->n] = x;
    return s->n++;
}

/* One suite: kernels x cases, cells the worst metric over the sizes. */
static void ug_summary_suite(const ug_results *res, const char *suite, int metric, int width,
                             ug_buf *o)
{
    ug_strset kernels = {0}, cases = {0};
    char s[128];
    for (size_t i = 0; i < res->count; i++) {
        const ug_row *r = &res->rows[i];
        ug_case_suite(r->case_name, s, sizeof s);
        if (strcmp(s, suite) != 0 || !r->measured || r->status == UG_ST_SKIP) continue;
        ug_strset_add(&kernels, r->kernel);
        ug_strset_add(&cases, r->case_name + strlen(suite) + (r->case_name[strlen(suite)] == '/'));
    }
    double *cell = ug_xcalloc(kernels.n * cases.n + 1, sizeof *cell);
    bool *set = ug_xcalloc(kernels.n * cases.n + 1, sizeof *set),
         *bad = ug_xcalloc(kernels.n * cases.n + 1, sizeof *bad);
    for (size_t i = 0; i < res->count; i++) {
        const ug_row *r = &res->rows[i];
        ug_case_suite(r->case_name, s, sizeof s);
        if (strcmp(s, suite) != 0 || !r->measured || r->status == UG_ST_SKIP) continue;
        size_t k = ug_strset_add(&kernels, r->kernel);
        size_t c = ug_strset_add(&cases, r->case_name + strlen(suite) +
                                             (r->case_name[strlen(suite)] == '/'));
        double v = ug_gated_value(r, metric);
        size_t at = k * cases.n + c;
        if (!set[at] || v > cell[at] || isnan(v)) cell[at] = v;
        set[at] = true;
        bad[at] |= ug_row_failed(r);
    }
    int kw = 6;
    for (size_t k = 0; k < kernels.n; k++)
        if ((int)strlen(kernels.v[k]) > kw) kw = (int)strlen(kernels.v[k]);
    /* each column as wide as its case's name, 10 to 22 characters (longer names cut with ~) */
    int *cw = ug_xcalloc(cases.n + 1, sizeof *cw);
    for (size_t c = 0; c < cases.n; c++) {
        size_t len = strlen(cases.v[c]);
        cw[c] = len < 10 ? 10 : len > 22 ? 22 : (int)len;
    }
    ug_buf_printf(o, "%s: %s, worst over the sizes (! marks a cell with a failed row)\n", suite,
                  ug_gated[metric].name);
    for (size_t c0 = 0, c1; c0 < cases.n; c0 = c1) {
        int used = kw + 2;
        for (c1 = c0; c1 < cases.n && (c1 == c0 || used + cw[c1] + 1 <= width); c1++)
            used += cw[c1] + 1;
        ug_buf_printf(o, "  %-*s", kw, "kernel");
        for (size_t c = c0; c < c1; c++) {
            if (strlen(cases.v[c]) <= (size_t)cw[c])
                ug_buf_printf(o, " %*s", cw[c], cases.v[c]);
            else
                ug_buf_printf(o, " %.*s~", cw[c] - 1, cases.v[c]);
        }
        ug_buf_printf(o, "\n");
        for (size_t k = 0; k < kernels.n; k++) {
            ug_buf_printf(o, "  %-*s", kw, kernels.v[k]);
            for (size_t c = c0; c < c1; c++) {
                size_t at = k * cases.n + c;
                char f[32], cellbuf[40];
                if (!set[at])
                    snprintf(cellbuf, sizeof cellbuf, "-");
                else
                    snprintf(cellbuf, sizeof cellbuf, "%s%s", ug_fmt_fig(cell[at], f),
                             bad[at] ? "!" : "");
                ug_buf_printf(o, " %*s", cw[c], cellbuf);
            }
            ug_buf_printf(o, "\n");
        }
        if (c1 < cases.n) ug_buf_printf(o, "\n");
    }
    free(cw);
    ug_buf_printf(o, "\n");
    free(kernels.v);
    free(cases.v);
    free(cell);
    free(set);
    free(bad);
}

void ug_summary_table(const ug_results *res, int metric, int width, ug_buf *o)
{
    ug_strset suites = {0};
    char(*names)[128] = ug_xcalloc(res->count + 1, sizeof *names);
    for (size_t i = 0; i < res->count; i++) {
        if (!res->rows[i].measured || res->rows[i].status == UG_ST_SKIP) continue;
        ug_case_suite(res->rows[i].case_name, names[i], sizeof names[i]);
        ug_strset_add(&suites, names[i]);
    }
    for (size_t s = 0; s < suites.n; s++) ug_summary_suite(res, suites.v[s], metric, width, o);
    char counts[200];
    ug_results_summary(res, counts, sizeof counts);
    ug_buf_printf(o, "%s\n", counts);
    free(suites.v);
    free(names);
}
