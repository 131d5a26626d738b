/* tap.c - see tap.h. */
#include "harness/results/tap.h"

#include <stdbool.h>

#include "base/escape.h"

void ug_tap_begin(FILE *out, const char *comment)
{
    fprintf(out, "TAP version 13\n# %s\n", comment);
    fflush(out); /* the run has begun (signals are handled from here): a watcher may act on it */
}

/* Text from outside (a point's name holds a corpus file's name) on one TAP line: control
 * bytes escaped (a newline would start a line of its own: "ok 1 - x" then anything), and in a
 * description '#' as "\#" (TAP's escape: else "# TODO" in a file name would declare the point
 * an expected failure, "# SKIP" a skip).  Names of today's cases hold neither: unchanged. */
static void ug_tap_text(FILE *out, const char *s, bool description)
{
    char piece[8];
    for (; *s; s++) {
        if (*s == '#' && description) {
            fputs("\\#", out);
            continue;
        }
        char one[2] = {*s, 0};
        fputs(ug_escape(one, piece, sizeof piece), out);
    }
}

/* Diagnostics: '#' lines by construction, but they quote paths and names from outside, and a
 * newline inside one would start a line of its own.  Every line that does not start with '#'
 * gets "# " before it, and control bytes but tab are escaped: nothing in diag can be a test
 * line, a plan or "Bail out!".  Today's diagnostics pass through unchanged. */
static void ug_tap_diag(FILE *out, const char *d)
{
    bool line_start = true;
    char piece[8];
    for (; d && *d; d++) {
        if (line_start && *d != '#' && *d != '\n') fputs("# ", out);
        line_start = *d == '\n';
        if (*d == '\n' || *d == '\t' || (unsigned char)*d >= 0x20) {
            fputc(*d, out);
            continue;
        }
        char one[2] = {*d, 0};
        fputs(ug_escape(one, piece, sizeof piece), out);
    }
}

void ug_tap_point(FILE *out, int index, const ug_point_record *p, const ug_row *row)
{
    bool ok = p->status == UG_ST_PASS || p->status == UG_ST_SKIP || p->status == UG_ST_XPASS;
    fprintf(out, "%sok %d - ", ok ? "" : "not ", index);
    ug_tap_text(out, p->name, true);
    const char *why = p->status == UG_ST_SKIP ? p->skip_reason
                    : p->status == UG_ST_XFAIL || p->status == UG_ST_XPASS ? p->xfail : NULL;
    if (why) {
        fputs(p->status == UG_ST_SKIP ? " # SKIP " : " # TODO ", out);
        ug_tap_text(out, why, false);
    }
    fputc('\n', out);
    ug_tap_diag(out, p->diag);
    if (row && row->measured && p->status != UG_ST_SKIP && row->count > 0)
        fprintf(out, "#   figures: ulp_max %.6g, ulp_mean %.6g, rel_max %.6g, bound_ratio_max %.6g\n",
                row->ulp_max, row->ulp_mean, row->rel_max, row->bound_ratio_max);
    fflush(out);
}

void ug_tap_plan(FILE *out, int count)
{
    fprintf(out, "1..%d\n", count);
}

void ug_tap_bail(FILE *out, const char *why)
{
    fprintf(out, "Bail out! %s\n", why);
    fflush(out);
}
