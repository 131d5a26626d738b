/*
 * report_md.c - summary.md (failures in full and regressions first, then one line per kernel:
 * its points, statuses, worst ULP and worst bound ratio; the tables per case and size are left
 * to index.html, so that the page stays near 100 KB for thousands of rows) and the terminal
 * table of `ulpgate summary` (see pages.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/sys.h"
#include "harness/report/report_parts.h"
#include "harness/results/results_json.h"

static const char *ug_meta_str(const ug_pages_in *in, const char *key)
{
    return ug_json_str_of(ug_json_get(in->meta, key), "?");
}

/* Lists of passing things are cut (their rows stay in index.html and results.json): the
 * declared expected failures after this many, the points of one skip reason after that many.
 * Failures are never cut. */
enum { UG_MD_LIST_MAX = 100, UG_MD_SKIP_NAMES = 8 };

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
    /* the meta values come from the file: escaped like any text from outside */
    ug_buf_printf(o, "# ulpgate report\n\nRun of git ");
    ug_md_code(o, ug_meta_str(in, "git"), false, 200);
    ug_buf_printf(o, " on ");
    ug_md_code(o, in->device, false, 200);
    ug_buf_printf(o, " (");
    ug_md_text(o, ug_meta_str(in, "host"));
    ug_buf_printf(o, "; ");
    ug_md_text(o, ug_meta_str(in, "compiler"));
    ug_buf_printf(o, " ");
    ug_md_text(o, ug_meta_str(in, "cflags"));
    ug_buf_printf(o, "), ");
    ug_md_text(o, ug_meta_str(in, "date"));
    ug_buf_printf(o, ", seed ");
    ug_md_text(o, ug_meta_str(in, "seed"));
    ug_buf_printf(o, ", oracle ");
    ug_md_text(o, ug_meta_str(in, "oracle"));
    ug_buf_printf(o, ".\n\n**%s** (%zu measurements). Plots: [index.html](index.html).\n\n", counts,
                  measured);
    char lim[300];
    if (ug_meta_limits_text(in->meta, lim, sizeof lim)[0]) {
        ug_buf_printf(o, "**A reduced run**: ");
        ug_md_text(o, lim);
        ug_buf_printf(o, ". Larger inputs were skipped or cut: not a whole run, and not one to "
                         "gate or update a baseline with.\n\n");
    }
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
        ug_buf_printf(o, "| ");
        ug_md_code(o, r->point, true, 0);
        ug_buf_printf(o, " | %s | ", ug_status_name(r->status));
        if (r->note[0])
            ug_md_text(o, r->note);
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
    ug_buf_printf(o, "## Regressions against ");
    ug_md_code(o, in->base.path, false, 0);
    ug_buf_printf(o, "\n\n");
    ug_cmp_print_markdown(&in->cmp, o, 100, "`index.html` and `ulpgate compare`");
    ug_buf_printf(o, "\n");
}

/* A skip reason's shape: its text with each number that stands alone (not part of a name
 * such as f16 or e4m3) made '#', cut to UG_MD_TPL - 1 bytes.  Reasons of one shape differ only
 * in figures ("operands up to 1.5e+06 exceed ..."): summary.md gives them one line. */
enum { UG_MD_TPL = 160 };
static void ug_md_reason_shape(const char *note, char out[UG_MD_TPL])
{
    size_t n = 0;
    for (const char *p = note; *p && n + 1 < UG_MD_TPL;) {
        bool starts = isdigit((unsigned char)*p) &&
                      (p == note || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'));
        if (!starts) {
            out[n++] = *p++;
            continue;
        }
        while (isdigit((unsigned char)*p) || *p == '.' ||
               ((*p == 'e' || *p == 'E') && (isdigit((unsigned char)p[1]) || p[1] == '+' || p[1] == '-')) ||
               ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
            p++;
        out[n++] = '#';
    }
    out[n] = 0;
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
        size_t shown = 0;
        for (size_t i = 0; i < in->all.count; i++)
            if (in->all.rows[i].status == UG_ST_XFAIL && shown++ < UG_MD_LIST_MAX) {
                ug_buf_printf(o, "- ");
                ug_md_code(o, in->all.rows[i].point, false, 0);
                ug_buf_printf(o, ": ");
                ug_md_text(o, in->all.rows[i].note);
                ug_buf_printf(o, "\n");
            }
        if (xf > UG_MD_LIST_MAX)
            ug_buf_printf(o, "- and %zu more (index.html)\n", xf - UG_MD_LIST_MAX);
        ug_buf_printf(o, "\n");
    }
    if (sk) {
        /* grouped by reason, and reasons alike but for their numbers in one line: a run without
         * a GPU skips every GPU case for the same reason, and a GPU run skips some 160 GEMM
         * points each for "operands up to <its own maximum> exceed ..." */
        ug_buf_printf(o, "## Skipped (%zu)\n\n", sk);
        char (*tpl)[UG_MD_TPL] = ug_xcalloc(in->all.count + 1, sizeof *tpl);
        bool *done = ug_xcalloc(in->all.count + 1, sizeof *done);
        for (size_t i = 0; i < in->all.count; i++)
            if (in->all.rows[i].status == UG_ST_SKIP) ug_md_reason_shape(in->all.rows[i].note, tpl[i]);
        /* one pass a group: its rows marked done, the first points named, its distinct
         * reasons counted (a handful: the GEMM sizes of one case) */
        const char **notes = ug_xcalloc(in->all.count + 1, sizeof *notes);
        ug_buf names = {0};
        size_t lines = 0;
        for (size_t i = 0; i < in->all.count; i++) {
            const ug_row *r = &in->all.rows[i];
            if (r->status != UG_ST_SKIP || done[i]) continue;
            size_t same = 0, distinct = 0;
            ug_buf_clear(&names);
            for (size_t j = i; j < in->all.count; j++) {
                const ug_row *q = &in->all.rows[j];
                if (q->status != UG_ST_SKIP || done[j] || strcmp(tpl[j], tpl[i]) != 0) continue;
                done[j] = true;
                if (same++ < UG_MD_SKIP_NAMES) {
                    ug_buf_printf(&names, "%s", same > 1 ? ", " : "");
                    ug_md_code(&names, q->point, false, 0);
                }
                size_t k = 0;
                while (k < distinct && strcmp(notes[k], q->note) != 0) k++;
                if (k == distinct) notes[distinct++] = q->note;
            }
            if (++lines > UG_MD_LIST_MAX) {
                if (lines == UG_MD_LIST_MAX + 1) ug_buf_printf(o, "- and more reasons: index.html\n");
                continue;
            }
            ug_buf_printf(o, "- ");
            ug_md_text(o, r->note[0] ? r->note : "(no reason given)");
            if (distinct > 1)
                ug_buf_printf(o, " (and %zu more reasons alike but for their numbers)", distinct - 1);
            ug_buf_printf(o, ": %s", ug_buf_str(&names));
            if (same > UG_MD_SKIP_NAMES) ug_buf_printf(o, " and %zu more", same - UG_MD_SKIP_NAMES);
            ug_buf_printf(o, "\n");
        }
        ug_buf_free(&names);
        free(notes);
        free(done);
        free(tpl);
        ug_buf_printf(o, "\n");
    }
}

/* ---- per kernel: the rollup ------------------------------------------------------------------ */

/* One kernel's line of the rollup: its measured rows over every case and size. */
typedef struct {
    const char *kernel, *op;
    size_t points, pass, xfail, fail, skip;
    double ulp, ratio;             /* the worst (NaN wins: it is no figure to trust) */
    const ug_row *ulp_at, *ratio_at; /* the rows that gave them */
} ug_md_kernel;

static void ug_md_worst(double v, const ug_row *r, double *w, const ug_row **at)
{
    if (!*at || isnan(v) || (!isnan(*w) && v > *w)) {
        *w = v;
        *at = r;
    }
}

/* One line per kernel (first-seen order): points, their statuses, the worst ULP and bound ratio
 * and where they were seen.  Cost O(rows x kernels); a few hundred kernels at most. */
static void ug_md_rollup(const ug_results *all, ug_buf *o)
{
    ug_md_kernel *k = ug_xcalloc(all->count + 1, sizeof *k);
    size_t nk = 0;
    for (size_t i = 0; i < all->count; i++) {
        const ug_row *r = &all->rows[i];
        if (!r->measured) continue;
        size_t j = 0;
        while (j < nk && strcmp(k[j].kernel, r->kernel) != 0) j++;
        if (j == nk) {
            k[nk].kernel = r->kernel;
            k[nk++].op = r->op;
        }
        ug_md_kernel *m = &k[j];
        m->points++;
        m->pass += r->status == UG_ST_PASS;
        m->xfail += r->status == UG_ST_XFAIL;
        m->fail += ug_row_failed(r);
        m->skip += r->status == UG_ST_SKIP;
        if (r->status == UG_ST_SKIP) continue;
        ug_md_worst(r->ulp_max, r, &m->ulp, &m->ulp_at);
        ug_md_worst(r->bound_ratio_max, r, &m->ratio, &m->ratio_at);
    }
    ug_buf_printf(o, "## Kernels (%zu)\n\nPer kernel, over every case and size it ran: the "
                     "measured points and their statuses, the worst error (max ULP) and the worst "
                     "ratio of an error to its bound, with the case that gave it.  The tables per "
                     "case and size are in [index.html](index.html) and `results.json`.\n\n",
                  nk);
    if (nk)
        ug_buf_printf(o, "| kernel | op | points | pass | xfail | fail | skip | worst ULP | at | "
                         "worst bound ratio | at |\n|---|---|---:|---:|---:|---:|---:|---:|---|---:|"
                         "---|\n");
    for (size_t j = 0; j < nk; j++) {
        const ug_md_kernel *m = &k[j];
        char a[32], b[32];
        ug_buf_printf(o, "| ");
        ug_md_text(o, m->kernel);
        ug_buf_printf(o, " | %s | %zu | %zu | %zu | %s%zu%s | %zu | ", m->op, m->points, m->pass,
                      m->xfail, m->fail ? "**" : "", m->fail, m->fail ? "**" : "", m->skip);
        if (m->ulp_at) {
            ug_buf_printf(o, "%s | ", ug_fmt_fig(m->ulp, a));
            ug_md_text(o, m->ulp_at->case_name);
            ug_buf_printf(o, " n=%zu | %s | ", m->ulp_at->shape.dim[0], ug_fmt_fig(m->ratio, b));
            ug_md_text(o, m->ratio_at->case_name);
            ug_buf_printf(o, " n=%zu |\n", m->ratio_at->shape.dim[0]);
        } else {
            ug_buf_printf(o, " |  |  |  |\n");
        }
    }
    ug_buf_printf(o, "\n");
    free(k);
}

/* ---- batch invariance ------------------------------------------------------------- */

/* The invariance cases' points ("<case> batch|chunked|splitk <kernel> declared|undeclared",
 * harness/invariance/invariance.h) as one line per kernel: declared or not, each check's
 * verdict, and the first finding that is not "equal" (the first differing row, both
 * configurations, the cause).  O(rows x kernels of the table). */
typedef struct {
    char kernel[64];
    bool declared;
    const ug_row *cell[3]; /* batch, chunked, splitk */
} ug_md_inv;

static const char *ug_md_inv_cell(const ug_row *r)
{
    if (!r) return "-";
    bool equal = strncmp(r->note, "equal", 5) == 0;
    switch (r->status) {
    case UG_ST_SKIP: return "skipped";
    case UG_ST_XFAIL: return "differs (expected)";
    case UG_ST_XPASS: return "**equal: stale expectation**";
    case UG_ST_FAIL: return equal ? "**failed**" : "**differs: FAIL**";
    default: return equal ? "equal" : "differs";
    }
}

static void ug_md_invariance(const ug_results *all, ug_buf *o)
{
    static const char *const kinds[3] = {"batch", "chunked", "splitk"};
    ug_md_inv *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < all->count; i++) {
        const ug_row *r = &all->rows[i];
        char cs[128], kind[16], kernel[64], decl[16];
        if (r->measured || !strstr(r->case_name, "invariance") ||
            sscanf(r->point, "%127s %15s %63s %15s", cs, kind, kernel, decl) != 4)
            continue;
        int q = -1;
        for (int j = 0; j < 3; j++)
            if (strcmp(kind, kinds[j]) == 0) q = j;
        if (q < 0 || (strcmp(decl, "declared") != 0 && strcmp(decl, "undeclared") != 0)) continue;
        size_t at = 0;
        while (at < n && strcmp(v[at].kernel, kernel) != 0) at++;
        if (at == n) {
            v = ug_xrealloc(v, (n + 1) * sizeof *v);
            memset(&v[n], 0, sizeof v[n]);
            snprintf(v[n].kernel, sizeof v[n].kernel, "%s", kernel);
            v[n].declared = strcmp(decl, "declared") == 0;
            n++;
        }
        v[at].cell[q] = r;
    }
    if (n) {
        ug_buf_printf(o, "## Batch invariance\n\nThe same rows at batches 1, 3, 64 and 1000 (a "
                         "GEMM's M, a row operation's rows, attention's problems), causal attention "
                         "as one prefill and as chunks of 64 and decode steps, and cuBLASLt with "
                         "split-K forced (harness/invariance/invariance.h).  A declared kernel "
                         "that differs fails; an expected failure is one of ours built not to "
                         "be invariant; any other finding is a result.\n\n| kernel | declared | "
                         "1/3/64/1000 | chunked prefill + decode | split-K forced | first "
                         "differing row / cause |\n|---|---|---|---|---|---|\n");
    }
    for (size_t i = 0; i < n; i++) {
        const char *why = "";
        for (int q = 0; q < 3 && !why[0]; q++)
            if (v[i].cell[q] && v[i].cell[q]->note[0] && strncmp(v[i].cell[q]->note, "equal", 5) != 0)
                why = v[i].cell[q]->note;
        ug_buf_printf(o, "| ");
        ug_md_code(o, v[i].kernel, true, 64);
        ug_buf_printf(o, " | %s | %s | %s | %s | ", v[i].declared ? "yes" : "no",
                      ug_md_inv_cell(v[i].cell[0]), ug_md_inv_cell(v[i].cell[1]),
                      ug_md_inv_cell(v[i].cell[2]));
        ug_md_text(o, why); /* from the file: escaped, a pipe cannot end the cell */
        ug_buf_printf(o, " |\n");
    }
    if (n) ug_buf_printf(o, "\n");
    free(v);
}

/* ---- the bfloat16 tolerance question ----------------------------------------------- */

/* number_formats/bf16_tolerance's rows (cases/number_formats.c) as a table, when the run has
 * them: per K, the largest relative error seen, the a-priori bound relative to |s| there
 * (extra bound_rel), the largest error in bfloat16 ULPs and error / bound.  O(rows). */
static void ug_md_bf16_tolerance(const ug_results *all, ug_buf *o)
{
    bool any = false;
    for (size_t i = 0; i < all->count; i++) {
        const ug_row *r = &all->rows[i];
        if (!r->measured || r->status == UG_ST_SKIP ||
            strcmp(r->case_name, "number_formats/bf16_tolerance") != 0)
            continue;
        if (!any)
            ug_buf_printf(o, "## bfloat16 tolerance\n\nA dot of K bfloat16 pairs drawn N(0, 1), "
                             "accumulated serially in binary32 and rounded once to bfloat16 "
                             "(`%s`): the largest relative error seen beside the a-priori bound "
                             "(`bf16_out`) relative to |s|.  `torch.testing.assert_close` uses "
                             "rtol 1.6e-2 for bfloat16.\n\n| K | max rel err | bound/\\|s\\| | "
                             "max ulp | err/bound |\n|---:|---:|---:|---:|---:|\n", r->kernel);
        any = true;
        double brel = NAN;
        for (int e = 0; e < r->n_extra; e++)
            if (strcmp(r->extra[e].name, "bound_rel") == 0) brel = r->extra[e].value;
        char a[32], b[32], c[32], d[32];
        ug_buf_printf(o, "| %zu | %s | %s | %s | %s |\n", r->shape.dim[0], ug_fmt_fig(r->rel_max, a),
                      ug_fmt_fig(brel, b), ug_fmt_fig(r->ulp_max, c),
                      ug_fmt_fig(r->bound_ratio_max, d));
    }
    if (any) ug_buf_printf(o, "\n");
}

/* A row's extra figure by name; NAN when it has none. */
static double ug_md_extra(const ug_row *r, const char *name)
{
    for (int e = 0; e < r->n_extra; e++)
        if (strcmp(r->extra[e].name, name) == 0) return r->extra[e].value;
    return NAN;
}

/* The deviation table ("Is Flash Attention stable?" measured exactly): the rows that
 * carry an output's exact deviation (extras o_ulp_max, o_rel: cases/attention.c's golden_*
 * cases, bfloat16 kernels), per input, each beside the one of the input marked dev_base (the
 * naive baseline): the ratio Golden et al. (arXiv 2405.02803) estimate as ~10x between two
 * inexact results.  O(rows^2) over the few such rows. */
static void ug_md_deviation(const ug_results *all, ug_buf *o)
{
    bool any = false;
    for (size_t i = 0; i < all->count; i++) {
        const ug_row *r = &all->rows[i];
        double ulp = ug_md_extra(r, "o_ulp_max"), rel = ug_md_extra(r, "o_rel");
        if (!r->measured || r->status == UG_ST_SKIP || isnan(ulp)) continue;
        const ug_row *base = NULL;
        for (size_t j = 0; j < all->count && !base; j++) {
            const ug_row *b = &all->rows[j];
            if (ug_md_extra(b, "dev_base") == 1 && strcmp(b->case_name, r->case_name) == 0 &&
                strcmp(b->dist, r->dist) == 0 && ug_shape_equal(&b->shape, &r->shape))
                base = b;
        }
        if (!any)
            ug_buf_printf(o, "## Attention deviation (\"Is Flash Attention stable?\" exactly)\n\n"
                             "The bfloat16 O of each kernel against the correctly rounded "
                             "reference: its largest error in bfloat16 ULPs and normwise "
                             "(max \\|error\\| / max \\|O\\|), and the ratio to the naive "
                             "baseline's on the same inputs.  Golden et al. (arXiv 2405.02803) "
                             "report ~10x more deviation for FlashAttention than for baseline "
                             "attention in bfloat16, comparing two inexact results; here each "
                             "error is exact.  S up to 16384: `bench_attention --golden` "
                             "(BENCHMARKS.md).\n\n| case | L x S x d | kernel | O max ulp (bf16) | "
                             "O max rel | ulp / naive | rel / naive |\n"
                             "|---|---|---|---:|---:|---:|---:|\n");
        any = true;
        char a[32], b[32], c[32], d[32];
        double bu = base ? ug_md_extra(base, "o_ulp_max") : NAN, br = base ? ug_md_extra(base, "o_rel") : NAN;
        ug_buf_printf(o, "| %s | %zux%zux%zu | %s | %s | %s | %s | %s |\n", r->case_name,
                      r->shape.dim[0], r->shape.dim[1], r->shape.dim[2], r->kernel,
                      ug_fmt_fig(ulp, a), ug_fmt_fig(rel, b),
                      base && bu > 0 ? ug_fmt_fig(ulp / bu, c) : "-",
                      base && br > 0 ? ug_fmt_fig(rel / br, d) : "-");
    }
    if (any) ug_buf_printf(o, "\n");
}

void ug_report_md(const ug_pages_in *in, ug_buf *o)
{
    ug_md_header(in, o);
    ug_md_failures(in, o);
    ug_md_regressions(in, o);
    ug_md_declared(in, o);
    ug_md_invariance(&in->all, o);
    ug_md_bf16_tolerance(&in->all, o);
    ug_md_deviation(&in->all, o);
    ug_md_rollup(&in->all, o);
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
