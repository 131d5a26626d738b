/*
 * report_html.c - index.html: one self-contained page (inline CSS and SVG, no script, nothing
 * loaded from the network): the run and its environment, its failures and regressions first,
 * then the plots (report_plots.c), see pages.h.
 */
#include <stdio.h>
#include <string.h>

#include "harness/report/report_parts.h"
#include "harness/report/svg.h"

static const char ug_css[] =
    "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:24px;color:#111;max-width:1500px}\n"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #bbb;padding-bottom:4px;margin-top:36px}\n"
    "h3{font-size:15px}p,li{font-size:14px;max-width:900px}\n"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}\n"
    "td,th{border:1px solid #bbb;padding:3px 8px;text-align:left;vertical-align:top}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".bad{color:#b00020;font-weight:bold}.good{color:#1b5e20;font-weight:bold}\n"
    ".plots{display:flex;flex-wrap:wrap;gap:20px;align-items:flex-start}\n"
    "figure{margin:0}figcaption{font-size:12px;color:#333;max-width:860px;margin-top:2px}\n"
    "svg.plot{font-size:11px;background:#fff;border:1px solid #ddd}\n"
    "svg .title{font-weight:bold;font-size:13px}svg .label{font-size:12px}\n"
    "svg .grid{stroke:#e6e6e6;stroke-width:1}svg .axis{stroke:#333;stroke-width:1}\n"
    "svg .frame{fill:none;stroke:#333;stroke-width:1}svg .bg{fill:#fff}svg .tick{font-size:9px}\n"
    "code{font-size:12px}\n"
    "details.group>summary{font-size:15px;font-weight:bold;cursor:pointer;margin:12px 0 6px}\n"
    "@media print{.plots{display:block}svg.plot{border:none}}\n";

static bool ug_row_bad(const ug_row *r)
{
    return r->status == UG_ST_FAIL || r->status == UG_ST_XPASS;
}

/* ---- the page -------------------------------------------------------------------------------- */

static void ug_html_kv(ug_buf *o, const char *k, const char *v)
{
    ug_buf_printf(o, "<tr><th>%s</th><td>", k);
    ug_xml_str(o, v);
    ug_buf_printf(o, "</td></tr>\n");
}

static void ug_html_header(const ug_pages_in *in, ug_buf *o)
{
    char counts[200];
    ug_results_summary(&in->all, counts, sizeof counts);
    ug_buf_printf(o, "<h1>ulpgate report</h1>\n<p class=\"%s\">",
                  in->all.failed || in->all.xpassed ? "bad" : "good");
    ug_xml_str(o, counts);
    ug_buf_printf(o, "</p>\n<table>\n");
    static const char *const keys[] = {"git",        "date",   "host", "compiler", "cflags",
                                       "nvcc_flags", "oracle", "seed", "command"};
    ug_html_kv(o, "device key", in->device);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = ug_json_str_of(ug_json_get(in->meta, keys[i]), "");
        if (v[0]) ug_html_kv(o, keys[i], v);
    }
    const ug_json *gpu = ug_json_get(in->meta, "gpu");
    if (gpu) {
        char g[400];
        snprintf(g, sizeof g,
                 "%s, cc %s, %.0f SMs, driver %.0f, runtime %.0f, cuBLAS %.0f, CCCL %.0f",
                 ug_json_str_of(ug_json_get(gpu, "name"), "?"),
                 ug_json_str_of(ug_json_get(gpu, "cc"), "?"),
                 ug_json_num_of(ug_json_get(gpu, "sm_count"), 0),
                 ug_json_num_of(ug_json_get(gpu, "driver"), 0),
                 ug_json_num_of(ug_json_get(gpu, "runtime"), 0),
                 ug_json_num_of(ug_json_get(gpu, "cublas"), 0),
                 ug_json_num_of(ug_json_get(gpu, "cccl"), 0));
        ug_html_kv(o, "GPU", g);
    }
    ug_buf_printf(o,
                  "</table>\n<p>Contents: <a href=\"#problems\">failures and regressions</a> · "
                  "<a href=\"#error-kappa\">error against κ</a> · <a href=\"#histograms\">ULP "
                  "histograms</a> · <a href=\"#time\">accuracy against time</a> · per case: "
                  "<a href=\"#error-n\">error against n</a> (a group per suite) · the tables: "
                  "<code>summary.md</code>.</p>\n");
}

/* Failures and regressions, at most UG_HTML_ROWS of each (summary.md lists every one): the
 * plots stay near the top of the page. */
enum { UG_HTML_ROWS = 20 };

static void ug_html_failures(const ug_pages_in *in, ug_buf *o)
{
    size_t bad = 0, shown = 0;
    for (size_t i = 0; i < in->all.count; i++) bad += ug_row_bad(&in->all.rows[i]);
    if (!bad) {
        ug_buf_printf(o, "<p class=\"good\">No failure: every check held.</p>\n");
        return;
    }
    ug_buf_printf(o,
                  "<p class=\"bad\">%zu failed test points.</p>\n<table><tr><th>failed test "
                  "point</th><th>status</th><th>note</th></tr>\n",
                  bad);
    for (size_t i = 0; i < in->all.count && shown < UG_HTML_ROWS; i++) {
        const ug_row *r = &in->all.rows[i];
        if (!ug_row_bad(r)) continue;
        shown++;
        ug_buf_printf(o, "<tr><td><code>");
        ug_xml_str(o, r->point);
        ug_buf_printf(o, "</code></td><td class=\"bad\">%s</td><td>", ug_status_name(r->status));
        if (r->note[0])
            ug_xml_str(o, r->note);
        else
            ug_buf_printf(o, "%d check%s failed (the TAP log says which)", r->failures,
                          r->failures == 1 ? "" : "s");
        ug_buf_printf(o, "</td></tr>\n");
    }
    ug_buf_printf(o, "</table>\n");
    if (bad > shown)
        ug_buf_printf(o, "<p>... and %zu more: summary.md lists every one.</p>\n", bad - shown);
}

static void ug_html_problems(const ug_pages_in *in, ug_buf *o)
{
    ug_buf_printf(o, "<h2 id=\"problems\">Failures and regressions</h2>\n");
    ug_html_failures(in, o);
    if (!in->have_base) {
        ug_buf_printf(o, "<p>Regressions: not compared: ");
        ug_xml_str(o, in->base_note);
        ug_buf_printf(o, ".</p>\n");
        return;
    }
    const ug_comparison *c = &in->cmp;
    ug_buf_printf(o, "<p class=\"%s\">Against <code>", c->regressed ? "bad" : "good");
    ug_xml_str(o, in->base.path);
    ug_buf_printf(o,
                  "</code>: %zu regressed, %zu improved (the baseline can be tightened), %zu same, "
                  "%zu within slack, %zu only in the baseline, %zu new.</p>\n",
                  c->regressed, c->improved, c->same, c->within, c->n_only_base, c->n_only_new);
    if (!c->regressed) return;
    ug_buf_printf(o, "<table><tr><th>regressed row</th><th>what got worse (baseline &#8594; now)"
                     "</th></tr>\n");
    size_t shown = 0;
    for (size_t i = 0; i < c->n_rows && shown < UG_HTML_ROWS; i++) {
        const ug_cmp_row *r = &c->rows[i];
        if (r->verdict != UG_V_WORSE || r->inputs[0]) continue;
        shown++;
        const ug_row *a = &c->base->res.rows[r->base], *b = &c->now->res.rows[r->now];
        ug_buf_printf(o, "<tr><td><code>");
        ug_xml_str(o, b->id);
        ug_buf_printf(o, "</code></td><td class=\"bad\">");
        if (r->status == UG_V_WORSE)
            ug_buf_printf(o, "status %s &#8594; %s; ", ug_status_name(a->status),
                          ug_status_name(b->status));
        for (int m = 0; m < UG_GM_COUNT; m++) {
            if (r->m[m] != UG_V_WORSE) continue;
            char x[32], y[32], q[32];
            double va = ug_gated_value(a, m), vb = ug_gated_value(b, m);
            ug_buf_printf(o, "%s %s &#8594; %s (%s); ", ug_gated[m].name, ug_fmt_fig(va, x),
                          ug_fmt_fig(vb, y), ug_fmt_ratio(va, vb, q));
        }
        ug_buf_printf(o, "</td></tr>\n");
    }
    ug_buf_printf(o, "</table>\n");
    if (c->regressed > shown)
        ug_buf_printf(o, "<p>... and %zu more: summary.md lists every one.</p>\n",
                      c->regressed - shown);
}

void ug_report_html(const ug_pages_in *in, ug_buf *o)
{
    ug_buf_printf(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>ulpgate report: ");
    ug_xml_str(o, ug_json_str_of(ug_json_get(in->meta, "git"), "?"));
    ug_buf_printf(o, " on %s</title>\n<style>\n%s</style>\n</head>\n<body>\n", in->device, ug_css);
    ug_html_header(in, o);
    ug_html_problems(in, o);
    /* the views over the whole run first; then the per-case figures, in groups (suites) that a
     * long report opens closed */
    ug_section_kappa(&in->all, o);
    ug_section_hist(&in->all, o);
    ug_section_time(&in->all, o);
    ug_section_n(&in->all, o);
    ug_section_along(&in->all, o);
    ug_buf_printf(o,
                  "<p><small>Written by ulpgate %s from <code>results.json</code>: one "
                  "self-contained file (inline CSS and SVG, no script, nothing loaded from the "
                  "network).</small></p>\n</body>\n</html>\n",
                  ug_json_str_of(ug_json_get(in->meta, "version"), "?"));
}
