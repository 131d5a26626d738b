/*
 * pages.h - the reports people read, written beside a run's results.json (harness/report/pages.c):
 *   summary.md   failures and regressions first, then per case a table kernel x n
 *                (harness/report/report_md.c);
 *   index.html   one self-contained file: inline CSS and SVG, no script, nothing loaded from the
 *                network; error against n with the a-priori bounds, error against the condition
 *                number, ULP-error histograms, accuracy against time (harness/report/report_html.c,
 *                the plots in report_plots.c, drawn by svg.c).
 * What the pages are made of, and the terminal table of `ulpgate summary`: report_parts.h.
 */
#ifndef UG_PAGES_H
#define UG_PAGES_H

/* Write DIR/summary.md and DIR/index.html from DIR/results.json.  baseline: a baseline or a
 * results.json to compare with; NULL: this device's committed baseline when there is one
 * (reports/baselines/<key>/); "none": no comparison.  0, or -1 with "ulpgate: ..." on
 * stderr naming the file. */
int ug_report_pages(const char *dir, const char *baseline);

#endif
