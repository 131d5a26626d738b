/*
 * report_along.c - index.html's "error along the prefix": per case whose rows carry the
 * along_00 .. along_11 figures (cases/scan_profile.h: the max ULP error of the outputs in each
 * twelfth of the positions), at the case's largest n, one series per kernel: where in a scan the
 * error sits (GenSum prefixes climb and cancel: the ill-conditioned middle and end show it).
 * Outputs of error 0 in a twelfth draw no point (log axis).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/report/report_parts.h"
#include "harness/report/svg.h"

enum { UG_ALONG_N = 12, UG_ALONG_W = 880, UG_ALONG_H = 400 };

/* The along_ figures of r into v; false when r has none. */
static bool ug_along_of(const ug_row *r, double v[UG_ALONG_N])
{
    int found = 0;
    for (int e = 0; e < r->n_extra; e++) {
        int s;
        char end;
        if (sscanf(r->extra[e].name, "along_%2d%c", &s, &end) == 1 && s >= 0 && s < UG_ALONG_N) {
            v[s] = r->extra[e].value;
            found++;
        }
    }
    return found == UG_ALONG_N;
}

/* Rows [from, to) of one case: one plot of its kernels at its largest n. */
static void ug_along_case(const ug_results *all, size_t from, size_t to, ug_buf *o, int *plots)
{
    double v[UG_ALONG_N];
    size_t nmax = 0;
    for (size_t i = from; i < to; i++)
        if (all->rows[i].measured && all->rows[i].shape.dim[0] > nmax && ug_along_of(&all->rows[i], v))
            nmax = all->rows[i].shape.dim[0];
    if (!nmax) return;
    char title[320];
    snprintf(title, sizeof title, "%s, n = %zu: max ULP error along the positions",
             all->rows[from].case_name, nmax);
    ug_plot *p = ug_plot_new(title, "output position (twelfths of n)", UG_AXIS_LINEAR,
                             "max ULP error", UG_AXIS_LOG);
    int style = 0;
    for (size_t i = from; i < to; i++) {
        const ug_row *r = &all->rows[i];
        if (!r->measured || r->shape.dim[0] != nmax || !ug_along_of(r, v)) continue;
        char label[96];
        snprintf(label, sizeof label, "%s", r->kernel);
        char *at = strrchr(label, '@');
        if (at && strcmp(at, "@default") == 0) *at = 0;
        int s = ug_plot_series(p, label, style++, UG_SERIES_LINE | UG_SERIES_MARKERS);
        for (int k = 0; k < UG_ALONG_N; k++)
            ug_plot_point(p, s, ((double)k + 0.5) * (double)nmax / UG_ALONG_N, v[k]);
    }
    if (ug_plot_count(p) > 0) {
        ug_buf_printf(o, "<figure>\n");
        ug_plot_svg(p, o, UG_ALONG_W, UG_ALONG_H);
        ug_buf_printf(o, "<figcaption>");
        ug_xml_str(o, title);
        ug_buf_printf(o, "</figcaption></figure>\n");
        ++*plots;
    }
    ug_plot_free(p);
}

void ug_section_along(const ug_results *all, ug_buf *o)
{
    size_t ng;
    int plots;
    ug_plot_group *g = ug_case_groups(all, ug_along_case, &ng, &plots);
    if (plots) /* only where a case measured a vector output along its positions */
        ug_buf_printf(o, "<h2 id=\"along\">Error along the prefix</h2>\n<p>Per scan case at its "
                         "largest n: the max ULP error of the outputs in each twelfth of the "
                         "positions, every trial.</p>\n");
    ug_plot_groups(o, g, ng, plots);
    free(g);
}
