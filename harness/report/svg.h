/*
 * svg.h - small, dependency-free plots as inline SVG (harness/report/svg.c), for index.html.
 *
 * Line and scatter plots on linear or log axes (decade ticks labelled 10^k, minor ticks), with a
 * title, axis labels with units, a legend, and series styles that stay distinct in grey-scale
 * print: each style index gets its own marker shape and (for dashed series) dash pattern, not
 * only its own colour; the legend lies right of the plot area, inside the svg; a title too long
 * for the width is fitted to it, never clipped.  Bar charts (log scale) for histograms.  Nothing is loaded from anywhere:
 * the output is plain SVG elements, fonts are the browser's sans-serif.
 */
#ifndef UG_SVG_H
#define UG_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

enum { UG_AXIS_LINEAR = 0, UG_AXIS_LOG = 1 };

/* How a series is drawn (bits). */
enum {
    UG_SERIES_LINE = 1,    /* points joined in the order given */
    UG_SERIES_MARKERS = 2, /* a marker at each point */
    UG_SERIES_DASHED = 4,  /* the line dashed (a bound, a reference): the style's own pattern */
};

typedef struct ug_plot ug_plot;

ug_plot *ug_plot_new(const char *title, const char *xlabel, int xaxis, const char *ylabel,
                     int yaxis);
void ug_plot_free(ug_plot *p);
/* A series; style 0, 1, 2, ... picks colour, marker, fill and dash pattern (the first 128
 * styles pairwise distinct).  Returns its index for ug_plot_point. */
int ug_plot_series(ug_plot *p, const char *label, int style, unsigned flags);
void ug_plot_point(ug_plot *p, int series, double x, double y);
/* Points that cannot be drawn (not finite, or <= 0 on a log axis) are left out: how many. */
size_t ug_plot_dropped(const ug_plot *p);
/* The number of points that will be drawn. */
size_t ug_plot_count(const ug_plot *p);
/* The plot as one <svg> element of width x height pixels (the legend takes the right side). */
void ug_plot_svg(const ug_plot *p, ug_buf *out, int width, int height);

/* A bar chart: n bars labelled labels[i], heights values[i] on a log axis from ymin up (values
 * <= ymin draw no bar).  As one <svg> element. */
void ug_bars_svg(ug_buf *out, const char *title, const char *xlabel, const char *ylabel,
                 const char *const *labels, const double *values, size_t n, double ymin, int style,
                 int width, int height);

/* s with &, <, >, " escaped for XML text and attributes. */
void ug_xml_str(ug_buf *out, const char *s);
/* The colour of a style ("#0072b2"), for HTML beside the plots. */
const char *ug_style_colour(int style);

#endif
