/*
 * report_parts.h - what the pages of pages.h are made of: the run (and the baseline it is
 * compared with) as the writers read it, summary.md (report_md.c), index.html (report_html.c)
 * and its plot sections (report_plots.c), and the terminal table of `ulpgate summary`.
 */
#ifndef UG_REPORT_PARTS_H
#define UG_REPORT_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/json.h"
#include "harness/gate/compare.h"
#include "harness/results/results.h"

/* What both pages are made from. */
typedef struct ug_pages_in {
    const char *dir;
    ug_results all;        /* every row of results.json (skipped ones too), in run order */
    ug_json *root;         /* the parsed results.json */
    const ug_json *meta;
    char device[64];       /* its device key */
    ug_baseline now;       /* the rows that ran, as compare reads them */
    bool have_base;        /* a baseline (or another run) to list regressions against */
    ug_baseline base;
    ug_comparison cmp;     /* now against base, when have_base */
    char base_note[1200];  /* why there is no comparison ("no baseline for cpu-x86_64 ...") */
} ug_pages_in;

/* summary.md into out. */
void ug_report_md(const ug_pages_in *in, ug_buf *out);
/* index.html into out. */
void ug_report_html(const ug_pages_in *in, ug_buf *out);

/* The plot sections of index.html (report_plots.c), each an <h2> and its figures. */
void ug_section_n(const ug_results *all, ug_buf *out);     /* error against n, with bounds */
void ug_section_kappa(const ug_results *all, ug_buf *out); /* error against kappa */
void ug_section_hist(const ug_results *all, ug_buf *out);  /* ULP-error histograms */
void ug_section_time(const ug_results *all, ug_buf *out);  /* accuracy against time */
void ug_section_along(const ug_results *all, ug_buf *out); /* a scan's error along the prefix (report_along.c) */

/* A section's figures of one group (a suite's cases), and how a section writes its groups:
 * each a <details>, open when the section has UG_OPEN_PLOTS figures or fewer, or when the
 * group holds a failed row (report_plots.c). */
enum { UG_OPEN_PLOTS = 24 };
typedef struct {
    char name[128];
    int plots;
    size_t failed;
    ug_buf body;
} ug_plot_group;
void ug_plot_groups(ug_buf *out, ug_plot_group *g, size_t ng, int plots);
/* One case's figures: rows [from, to) of the run into out, *plots counting them. */
typedef void (*ug_case_figures)(const ug_results *all, size_t from, size_t to, ug_buf *out,
                                int *plots);
ug_plot_group *ug_case_groups(const ug_results *all, ug_case_figures one_case, size_t *ng,
                              int *plots);

/* The terminal table of `ulpgate summary`: per suite (the case's prefix) a table of kernels
 * (rows) by case (columns), each cell the worst value of the metric over the sizes ('!' after a
 * cell with a failed row), columns split into blocks that fit width characters. */
void ug_summary_table(const ug_results *res, int metric, int width, ug_buf *out);


#endif
