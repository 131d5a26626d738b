/* console.c - see console.h. */
#include "harness/results/console.h"

#include <string.h>

#include "base/escape.h"
#include "base/sys.h"
#include "harness/results/tap.h"

void ug_console_clear(ug_console *c)
{
    if (c->line_open) fputs("\r\033[K", c->out);
    c->line_open = false;
}

void ug_console_begin(ug_console *c, FILE *out, bool tty, int cases_total, const char *comment)
{
    memset(c, 0, sizeof *c);
    c->out = out;
    c->tty = tty;
    c->cases_total = cases_total;
    c->t0 = ug_now_s();
    fprintf(out, "%s: %d case%s\n", comment, cases_total, cases_total == 1 ? "" : "s");
    fflush(out);
}

void ug_console_point(ug_console *c, int index, const ug_point_record *p, const ug_row *row)
{
    c->points++;
    if (p->status != UG_ST_FAIL && p->status != UG_ST_XPASS) return;
    if (c->failures < (int)(sizeof c->failed / sizeof c->failed[0]))
        ug_escape(p->name, c->failed[c->failures], sizeof c->failed[0]);
    c->failures++;
    ug_console_clear(c);
    ug_tap_point(c->out, index, p, row); /* the failure in full, as --tap writes it */
}

void ug_console_case(ug_console *c, const char *name)
{
    char safe[200];
    c->cases_done++;
    ug_console_clear(c);
    fprintf(c->out, "[%d/%d] %s: %d point%s, %d failure%s, %.1f s%s", c->cases_done, c->cases_total,
            ug_escape(name, safe, sizeof safe), c->points, c->points == 1 ? "" : "s", c->failures,
            c->failures == 1 ? "" : "s", ug_now_s() - c->t0, c->tty ? "" : "\n");
    c->line_open = c->tty;
    fflush(c->out);
}

void ug_console_end(ug_console *c, const ug_results *res)
{
    char summary[200];
    ug_console_clear(c);
    fprintf(c->out, "%d case%s, %d test point%s in %.1f s\n", c->cases_done,
            c->cases_done == 1 ? "" : "s", c->points, c->points == 1 ? "" : "s", ug_now_s() - c->t0);
    int shown = c->failures < (int)(sizeof c->failed / sizeof c->failed[0])
                    ? c->failures : (int)(sizeof c->failed / sizeof c->failed[0]);
    if (c->failures) fprintf(c->out, "failed (%d, each in full above):\n", c->failures);
    for (int i = 0; i < shown; i++) fprintf(c->out, "  %s\n", c->failed[i]);
    if (c->failures > shown) fprintf(c->out, "  ... and %d more\n", c->failures - shown);
    ug_results_summary(res, summary, sizeof summary);
    fprintf(c->out, "%s\n", summary);
    fflush(c->out);
}
