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
    c->case_points++;
    if (p->status != UG_ST_FAIL && p->status != UG_ST_XPASS) return;
    c->case_failures++;
    if (c->failures < (int)(sizeof c->failed / sizeof c->failed[0]))
        ug_escape(p->name, c->failed[c->failures], sizeof c->failed[0]);
    c->failures++;
    ug_console_clear(c);
    ug_tap_point(c->out, index, p, row); /* the failure in full, as --tap writes it */
}

void ug_console_case(ug_console *c, const char *name)
{
    char safe[200], left[40] = "";
    c->cases_done++;
    int tenth = c->cases_total ? 10 * c->cases_done / c->cases_total : 10;
    bool show = c->tty || c->case_failures || tenth > c->tenth || c->cases_done == c->cases_total;
    if (show) {
        double el = ug_now_s() - c->t0;
        if (el > 10 && c->cases_done < c->cases_total) {
            double rest = el / c->cases_done * (c->cases_total - c->cases_done);
            if (rest < 90) snprintf(left, sizeof left, ", ~%.0f s left", rest);
            else snprintf(left, sizeof left, ", ~%.0f min left", rest / 60);
        }
        ug_console_clear(c);
        fprintf(c->out, "[%d/%d cases] %s: %d point%s, %d failed; run: %d point%s, %d failed, "
                        "%.1f s%s%s", c->cases_done, c->cases_total,
                ug_escape(name, safe, sizeof safe), c->case_points,
                c->case_points == 1 ? "" : "s", c->case_failures, c->points,
                c->points == 1 ? "" : "s", c->failures, el, left, c->tty ? "" : "\n");
        c->line_open = c->tty;
        c->tenth = tenth;
        fflush(c->out);
    }
    c->case_points = c->case_failures = 0;
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
