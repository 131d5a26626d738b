/*
 * svg.c - plots as inline SVG (see svg.h).
 *
 * Styles: 16 colours (Okabe-Ito's colour-blind-safe set, then Tol's muted one) with 8 marker
 * shapes, filled or hollow, and 8 dash patterns for dashed series.  Style s takes colour s mod
 * 16, shape (s + 3 floor(s/16)) mod 8, hollow when floor(s/8) + floor(s/16) is odd, dash
 * (s + 5 floor(s/16)) mod 8: two styles of one colour are 16q apart, and their shapes differ
 * unless 3q = 0 mod 8, so the first 128 styles are pairwise distinct (colour and shape alone),
 * where colour, shape and fill used to repeat every 16.  In grey-scale the shape, fill and dash
 * still tell series apart.
 */
#include "harness/report/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"

static const char *const ug_colours[16] = {
    "#000000", "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#7f7f7f",
    "#882255", "#117733", "#332288", "#999933", "#44aa99", "#aa4499", "#661100", "#6699cc"};
static const char *const ug_dashes[8] = {"7,3", "2,2",  "9,3,2,3",     "4,4",
                                         "1,3", "12,4", "6,2,2,2,2,2", "3,6"};

const char *ug_style_colour(int style) { return ug_colours[(style % 16 + 16) % 16]; }

/* The marker shape (0-7), whether it is hollow, and the dash pattern of a style (see above). */
static int ug_style_shape(int s) { return s < 0 ? 0 : (s + 3 * (s / 16)) % 8; }
static bool ug_style_hollow(int s) { return s >= 0 && (s / 8 + s / 16) % 2 == 1; }
static const char *ug_style_dash(int s) { return ug_dashes[s < 0 ? 0 : (s + 5 * (s / 16)) % 8]; }

typedef struct {
    double x, y;
} ug_pt;

typedef struct {
    char label[160];
    int style;
    unsigned flags;
    ug_pt *pts;
    size_t n, cap;
} ug_series;

struct ug_plot {
    char title[200], xlabel[160], ylabel[160];
    int xaxis, yaxis;
    ug_series *s;
    size_t ns;
    size_t dropped;
};

/* An axis mapped to pixels: [lo, hi] (log10 of the values on a log axis) onto [p0, p1]. */
typedef struct {
    int kind;
    double lo, hi, p0, p1;
} ug_axis;

static int ug_clip_counter; /* clipPath ids unique within a page */

void ug_xml_str(ug_buf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': ug_buf_printf(out, "&amp;"); break;
        case '<': ug_buf_printf(out, "&lt;"); break;
        case '>': ug_buf_printf(out, "&gt;"); break;
        case '"': ug_buf_printf(out, "&quot;"); break;
        case '\t': ug_buf_put(out, " ", 1); break;
        default:
            /* control bytes from a file (ESC, a newline in a name) never reach the page raw:
             * XML 1.0 has no place for most of them, and a terminal showing the file obeys ESC */
            if ((unsigned char)*s < 0x20 || *s == 0x7f) ug_buf_printf(out, "\\x%02x", (unsigned char)*s);
            else ug_buf_put(out, s, 1);
        }
    }
}

ug_plot *ug_plot_new(const char *title, const char *xlabel, int xaxis, const char *ylabel,
                     int yaxis)
{
    ug_plot *p = ug_xcalloc(1, sizeof *p);
    snprintf(p->title, sizeof p->title, "%s", title);
    snprintf(p->xlabel, sizeof p->xlabel, "%s", xlabel);
    snprintf(p->ylabel, sizeof p->ylabel, "%s", ylabel);
    p->xaxis = xaxis;
    p->yaxis = yaxis;
    return p;
}

void ug_plot_free(ug_plot *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->ns; i++) free(p->s[i].pts);
    free(p->s);
    free(p);
}

int ug_plot_series(ug_plot *p, const char *label, int style, unsigned flags)
{
    p->s = ug_xrealloc(p->s, (p->ns + 1) * sizeof *p->s);
    ug_series *s = &p->s[p->ns];
    memset(s, 0, sizeof *s);
    snprintf(s->label, sizeof s->label, "%s", label);
    s->style = style < 0 ? 0 : style;
    s->flags = flags;
    return (int)p->ns++;
}

static bool ug_plottable(double v, int axis)
{
    return isfinite(v) && (axis == UG_AXIS_LINEAR || v > 0);
}

void ug_plot_point(ug_plot *p, int series, double x, double y)
{
    ug_series *s = &p->s[series];
    if (!ug_plottable(x, p->xaxis) || !ug_plottable(y, p->yaxis)) {
        p->dropped++;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->pts = ug_xrealloc(s->pts, s->cap * sizeof *s->pts);
    }
    s->pts[s->n++] = (ug_pt){x, y};
}

size_t ug_plot_dropped(const ug_plot *p) { return p->dropped; }

size_t ug_plot_count(const ug_plot *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->ns; i++) n += p->s[i].n;
    return n;
}

/* ---- axes ------------------------------------------------------------------------------------ */

static double ug_nice_step(double span)
{
    double e = pow(10, floor(log10(span))), f = span / e;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

/* The axis over [vmin, vmax]: whole decades on a log axis, multiples of a nice step on a linear
 * one. */
static ug_axis ug_axis_make(int kind, double vmin, double vmax, double p0, double p1)
{
    ug_axis a = {.kind = kind, .p0 = p0, .p1 = p1};
    if (kind == UG_AXIS_LOG) {
        a.lo = floor(log10(vmin));
        a.hi = ceil(log10(vmax));
        if (a.hi <= a.lo) a.hi = a.lo + 1;
    } else {
        if (vmax <= vmin) {
            double d = vmin != 0 ? fabs(vmin) * 0.1 : 1;
            vmin -= d;
            vmax += d;
        }
        double step = ug_nice_step((vmax - vmin) / 5);
        a.lo = floor(vmin / step) * step;
        a.hi = ceil(vmax / step) * step;
    }
    return a;
}

static double ug_axis_px(const ug_axis *a, double v)
{
    double t = a->kind == UG_AXIS_LOG ? log10(v) : v;
    return a->p0 + (t - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static void ug_svg_line(ug_buf *o, const char *cls, double x1, double y1, double x2, double y2)
{
    ug_buf_printf(o, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", cls,
                  x1, y1, x2, y2);
}

/* A label at (x, y) with the given anchor. */
static void ug_svg_text(ug_buf *o, double x, double y, const char *anchor, const char *text)
{
    ug_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", x, y, anchor,
                  text);
}

/* A decade label "10^k" with a raised exponent, at (x, y) with the given anchor. */
static void ug_decade_label(ug_buf *o, double x, double y, const char *anchor, int k)
{
    if (k == 0 || k == 1)
        ug_svg_text(o, x, y, anchor, k ? "10" : "1");
    else
        ug_buf_printf(o,
                      "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">10<tspan dy=\"-5\" "
                      "font-size=\"8\">%d</tspan></text>\n",
                      x, y, anchor, k);
}

/* Ticks, labels and grid lines of one axis (horizontal: the x axis along y = base). */
static void ug_axis_draw(ug_buf *o, const ug_axis *a, bool horizontal, double base, double g0,
                         double g1)
{
    if (a->kind == UG_AXIS_LOG) {
        int lo = (int)a->lo, hi = (int)a->hi, every = (hi - lo + 7) / 8;
        for (int k = lo; k <= hi; k++) {
            double px = ug_axis_px(a, pow(10, k));
            if (horizontal) {
                ug_svg_line(o, "grid", px, g0, px, g1);
                ug_svg_line(o, "axis", px, base, px, base + 5);
                if ((k - lo) % every == 0) ug_decade_label(o, px, base + 18, "middle", k);
            } else {
                ug_svg_line(o, "grid", g0, px, g1, px);
                ug_svg_line(o, "axis", base - 5, px, base, px);
                if ((k - lo) % every == 0) ug_decade_label(o, base - 8, px + 4, "end", k);
            }
            if (hi - lo > 6 || k == hi) continue;
            for (int m = 2; m <= 9; m++) { /* minor ticks */
                double mp = ug_axis_px(a, m * pow(10, k));
                if (horizontal)
                    ug_svg_line(o, "axis", mp, base, mp, base + 3);
                else
                    ug_svg_line(o, "axis", base - 3, mp, base, mp);
            }
        }
        return;
    }
    double step = ug_nice_step((a->hi - a->lo) / 5);
    for (double v = a->lo; v <= a->hi + step * 1e-9; v += step) {
        double px = ug_axis_px(a, v);
        char num[32];
        snprintf(num, sizeof num, "%g", fabs(v) < step * 1e-9 ? 0 : v);
        if (horizontal) {
            ug_svg_line(o, "grid", px, g0, px, g1);
            ug_svg_text(o, px, base + 18, "middle", num);
        } else {
            ug_svg_line(o, "grid", g0, px, g1, px);
            ug_svg_text(o, base - 8, px + 4, "end", num);
        }
    }
}

/* ---- markers and lines ----------------------------------------------------------------------- */

static void ug_marker(ug_buf *o, int style, double x, double y)
{
    const char *c = ug_style_colour(style);
    const char *fill = ug_style_hollow(style) ? "#ffffff" : c;
    double r = 3.6;
    switch (ug_style_shape(style)) {
    case 0:
        ug_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"%s\"/>",
                      x, y, r, fill, c);
        break;
    case 1:
        ug_buf_printf(
            o,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\"/>",
            x - r, y - r, 2 * r, 2 * r, fill, c);
        break;
    case 2:
        ug_buf_printf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"%s\"/>",
                      x, y - 1.3 * r, x + 1.2 * r, y + 0.8 * r, x - 1.2 * r, y + 0.8 * r, fill, c);
        break;
    case 3:
        ug_buf_printf(
            o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"%s\"/>",
            x, y - 1.4 * r, x + 1.4 * r, y, x, y + 1.4 * r, x - 1.4 * r, y, fill, c);
        break;
    case 4:
        ug_buf_printf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"%s\"/>",
                      x, y + 1.3 * r, x + 1.2 * r, y - 0.8 * r, x - 1.2 * r, y - 0.8 * r, fill, c);
        break;
    case 5:
        ug_buf_printf(
            o, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1f\" stroke=\"%s\" stroke-width=\"2\"/>",
            x - 1.3 * r, y, x + 1.3 * r, x, y - 1.3 * r, y + 1.3 * r, c);
        break;
    case 6:
        ug_buf_printf(
            o,
            "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"%s\" stroke-width=\"2\"/>",
            x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r, c);
        break;
    default:
        ug_buf_printf(
            o,
            "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"%s\" stroke-width=\"1.6\"/>",
            x - 1.3 * r, y, x + 1.3 * r, x - 0.7 * r, y - 1.1 * r, x + 0.7 * r, y + 1.1 * r,
            x - 0.7 * r, y + 1.1 * r, x + 0.7 * r, y - 1.1 * r, c);
    }
}

static void ug_line_attrs(ug_buf *o, int style, unsigned flags)
{
    ug_buf_printf(o, "fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"", ug_style_colour(style),
                  flags & UG_SERIES_DASHED ? "1.4" : "1.6");
    if (flags & UG_SERIES_DASHED)
        ug_buf_printf(o, " stroke-dasharray=\"%s\"", ug_style_dash(style));
}

static void ug_svg_open(ug_buf *o, const char *title, int width, int height)
{
    ug_buf_printf(o,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" "
                  "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
                  width, height, width, height);
    ug_xml_str(o, title);
    ug_buf_printf(o, "\">\n<title>");
    ug_xml_str(o, title);
    ug_buf_printf(o, "</title>\n<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>\n",
                  width, height);
    /* never clipped: a title wider than the plot (13px bold: at most ~8px a character) is
     * fitted to it by the browser (textLength) rather than cut at the edges */
    ug_buf_printf(o, "<text class=\"title\" x=\"%d\" y=\"18\" text-anchor=\"middle\"", width / 2);
    if (8.0 * (double)strlen(title) > width - 16)
        ug_buf_printf(o, " textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"", width - 16);
    ug_buf_printf(o, ">");
    ug_xml_str(o, title);
    ug_buf_printf(o, "</text>\n");
}

/* ---- points as drawn --------------------------------------------------------------------------- */

/* A point as written (%.1f of each pixel coordinate), as one integer. */
static int64_t ug_px_key(double x, double y)
{
    return (int64_t)llround(x * 10) * 4000003 + (int64_t)llround(y * 10);
}

/* The pixels a series has drawn a marker at: open addressing over at most cap keys. */
typedef struct {
    int64_t *key;
    bool *used;
    size_t nslot;
} ug_pxset;

/* Adds key; false when it was there already.  The table is sized on first use for cap keys. */
static bool ug_pxset_add(ug_pxset *t, size_t cap, int64_t key)
{
    if (!t->key) {
        for (t->nslot = 16; t->nslot < 2 * cap; t->nslot *= 2) {}
        t->key = ug_xcalloc(t->nslot, sizeof *t->key + sizeof *t->used);
        t->used = (bool *)(t->key + t->nslot);
    }
    size_t h = (size_t)((uint64_t)key * 0x9e3779b97f4a7c15u >> 17) & (t->nslot - 1);
    for (; t->used[h]; h = (h + 1) & (t->nslot - 1))
        if (t->key[h] == key) return false;
    t->used[h] = true;
    t->key[h] = key;
    return true;
}

/* ---- the plot -------------------------------------------------------------------------------- */

/* The legend, right of the plot area (x0 is past its frame) and inside the svg (width): one
 * entry a series, its key (line and marker) drawn at the entry's own origin so that two keys
 * drawn alike are the same text (the browser test compares them), a label too long for the
 * room left fitted to it (textLength) rather than cut at the svg's edge. */
static void ug_legend(ug_buf *o, const ug_plot *p, double x0, double y0, double y1, int width)
{
    double step = p->ns ? (y1 - y0) / (double)p->ns : 18;
    if (step > 18) step = 18;
    double room = width - (x0 + 32) - 4;
    ug_buf_printf(o, "<g class=\"legend-box\">\n");
    for (size_t i = 0; i < p->ns; i++) {
        const ug_series *s = &p->s[i];
        double y = y0 + 8 + step * (double)i;
        ug_buf_printf(o, "<g class=\"legend-entry\" transform=\"translate(%.1f,%.1f)\"><g class=\"key\">",
                      x0, y);
        if (s->flags & UG_SERIES_LINE) {
            ug_buf_printf(o, "<line x1=\"0\" y1=\"0\" x2=\"26\" y2=\"0\" ");
            ug_line_attrs(o, s->style, s->flags);
            ug_buf_printf(o, "/>");
        }
        if (s->flags & UG_SERIES_MARKERS) ug_marker(o, s->style, 13, 0);
        ug_buf_printf(o, "</g><text class=\"legend\" x=\"32\" y=\"4\"");
        if (6.8 * (double)strlen(s->label) > room && room > 20)
            ug_buf_printf(o, " textLength=\"%.0f\" lengthAdjust=\"spacingAndGlyphs\"", room);
        ug_buf_printf(o, ">");
        ug_xml_str(o, s->label);
        ug_buf_printf(o, "</text></g>\n");
    }
    ug_buf_printf(o, "</g>\n");
}

void ug_plot_svg(const ug_plot *p, ug_buf *o, int width, int height)
{
    size_t longest = 0;
    for (size_t i = 0; i < p->ns; i++)
        if (strlen(p->s[i].label) > longest) longest = strlen(p->s[i].label);
    double legend_w = 52 + 6.8 * (double)longest; /* 11px sans-serif: under 6.8px a character */
    if (legend_w > 0.45 * width) legend_w = 0.45 * width;
    double left = 70, right = width - legend_w - 12, top = 34, bottom = height - 48;
    ug_svg_open(o, p->title, width, height);
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t i = 0; i < p->ns; i++)
        for (size_t j = 0; j < p->s[i].n; j++) {
            ug_pt q = p->s[i].pts[j];
            xmin = fmin(xmin, q.x), xmax = fmax(xmax, q.x);
            ymin = fmin(ymin, q.y), ymax = fmax(ymax, q.y);
        }
    if (!(xmin <= xmax)) {
        ug_buf_printf(
            o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no data to plot</text>\n</svg>\n",
            width / 2, height / 2);
        return;
    }
    ug_axis ax = ug_axis_make(p->xaxis, xmin, xmax, left, right);
    ug_axis ay = ug_axis_make(p->yaxis, ymin, ymax, bottom, top);
    int clip = ++ug_clip_counter;
    ug_buf_printf(o,
                  "<defs><clipPath id=\"ugclip%d\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"%.1f\"/></clipPath></defs>\n",
                  clip, left - 6, top - 6, right - left + 12, bottom - top + 12);
    ug_axis_draw(o, &ax, true, bottom, top, bottom);
    ug_axis_draw(o, &ay, false, left, left, right);
    ug_buf_printf(o,
                  "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                  left, top, right - left, bottom - top);
    ug_buf_printf(o, "<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                  (left + right) / 2, height - 10);
    ug_xml_str(o, p->xlabel);
    ug_buf_printf(o,
                  "</text>\n<text class=\"label\" transform=\"translate(16,%.1f) rotate(-90)\" "
                  "text-anchor=\"middle\">",
                  (top + bottom) / 2);
    ug_xml_str(o, p->ylabel);
    ug_buf_printf(o, "</text>\n<g clip-path=\"url(#ugclip%d)\">\n", clip);
    for (size_t i = 0; i < p->ns; i++) {
        const ug_series *s = &p->s[i];
        /* drawn at the 0.1 px the coordinates are written in: a point of a line where the
         * previous one was adds nothing, nor does a marker where the series drew one (a run of
         * many rows plots many equal points: the page stays the size of its picture) */
        ug_pxset seen = {0};
        if ((s->flags & UG_SERIES_LINE) && s->n > 1) {
            ug_buf_printf(o, "<polyline class=\"series\" points=\"");
            int64_t last = INT64_MIN;
            for (size_t j = 0; j < s->n; j++) {
                double x = ug_axis_px(&ax, s->pts[j].x), y = ug_axis_px(&ay, s->pts[j].y);
                int64_t key = ug_px_key(x, y);
                if (j && key == last) continue;
                ug_buf_printf(o, "%s%.1f,%.1f", j ? " " : "", x, y);
                last = key;
            }
            ug_buf_printf(o, "\" ");
            ug_line_attrs(o, s->style, s->flags);
            ug_buf_printf(o, "/>\n");
        }
        if (s->flags & UG_SERIES_MARKERS) {
            ug_buf_printf(o, "<g class=\"markers\">");
            for (size_t j = 0; j < s->n; j++) {
                double x = ug_axis_px(&ax, s->pts[j].x), y = ug_axis_px(&ay, s->pts[j].y);
                if (ug_pxset_add(&seen, s->n, ug_px_key(x, y))) ug_marker(o, s->style, x, y);
            }
            ug_buf_printf(o, "</g>\n");
        }
        free(seen.key);
    }
    ug_buf_printf(o, "</g>\n");
    ug_legend(o, p, right + 14, top, bottom, width);
    ug_buf_printf(o, "</svg>\n");
}

void ug_bars_svg(ug_buf *o, const char *title, const char *xlabel, const char *ylabel,
                 const char *const *labels, const double *values, size_t n, double ymin, int style,
                 int width, int height)
{
    double left = 52, right = width - 8, top = 30, bottom = height - 50;
    ug_svg_open(o, title, width, height);
    double ymax = ymin * 10;
    for (size_t i = 0; i < n; i++) ymax = fmax(ymax, values[i]);
    ug_axis ay = ug_axis_make(UG_AXIS_LOG, ymin, ymax, bottom, top);
    ug_axis_draw(o, &ay, false, left, left, right);
    ug_buf_printf(o,
                  "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                  left, top, right - left, bottom - top);
    double w = (right - left) / (double)(n ? n : 1);
    const char *c = ug_style_colour(style);
    for (size_t i = 0; i < n; i++) {
        double x = left + w * (double)i;
        if (values[i] > ymin) {
            double y = ug_axis_px(&ay, values[i]);
            ug_buf_printf(
                o,
                "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"%s\" stroke=\"#000\" stroke-width=\"0.5\"/>\n",
                x + 1, y, w - 2, bottom - y, c);
        }
        ug_buf_printf(o,
                      "<text class=\"tick\" transform=\"translate(%.1f,%.1f) rotate(-55)\" "
                      "text-anchor=\"end\">",
                      x + w / 2 + 3, bottom + 10);
        ug_xml_str(o, labels[i]);
        ug_buf_printf(o, "</text>\n");
    }
    ug_buf_printf(o, "<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                  (left + right) / 2, height - 4);
    ug_xml_str(o, xlabel);
    ug_buf_printf(o,
                  "</text>\n<text class=\"label\" transform=\"translate(13,%.1f) rotate(-90)\" "
                  "text-anchor=\"middle\">",
                  (top + bottom) / 2);
    ug_xml_str(o, ylabel);
    ug_buf_printf(o, "</text>\n</svg>\n");
}
