/* tap.c - see tap.h. */
#include "harness/run/tap.h"

void ug_tap_begin(FILE *out, const char *comment)
{
    fprintf(out, "TAP version 13\n# %s\n", comment);
}

void ug_tap_point(FILE *out, int index, const ug_point_record *p, const ug_row *row)
{
    switch (p->status) {
    case UG_ST_PASS: fprintf(out, "ok %d - %s\n", index, p->name); break;
    case UG_ST_FAIL: fprintf(out, "not ok %d - %s\n", index, p->name); break;
    case UG_ST_SKIP: fprintf(out, "ok %d - %s # SKIP %s\n", index, p->name, p->skip_reason); break;
    case UG_ST_XFAIL: fprintf(out, "not ok %d - %s # TODO %s\n", index, p->name, p->xfail); break;
    case UG_ST_XPASS: fprintf(out, "ok %d - %s # TODO %s\n", index, p->name, p->xfail); break;
    }
    fputs(p->diag, out);
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
