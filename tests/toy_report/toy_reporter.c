/*
 * toy_reporter.c - a report section defined in the test tree alone (CONTRIBUTING.md, "Adding a
 * report section"): with --report DIR, a run also writes DIR/toy.txt, its own format,
 *   toy report: N cases
 *   case NAME                      one a case, as it ends
 *   fail INDEX NAME                one a failed point (fail, or an unexpected pass)
 *   end: P points, F failed        or "interrupted" when a signal ended the run
 * through the reporter interface (harness/results/reporter.h) and nothing else: registered at
 * load time, called by every run after the built-in reporters.
 */
#include <stdio.h>

#include "harness/results/reporter.h"

typedef struct {
    FILE *f;
    int points, failed;
} toy_state;

static void toy_begin(ug_reporter *r, const ug_run_start *s)
{
    toy_state *t = r->state;
    char path[4096];
    t->points = t->failed = 0;
    t->f = NULL;
    if (!s->report_dir) return;
    snprintf(path, sizeof path, "%s/toy.txt", s->report_dir);
    if (!(t->f = fopen(path, "w"))) {
        perror(path);
        return;
    }
    fprintf(t->f, "toy report: %d cases\n", s->cases);
}

static void toy_case(ug_reporter *r, const char *name)
{
    toy_state *t = r->state;
    if (t->f) fprintf(t->f, "case %s\n", name);
}

static void toy_point(ug_reporter *r, int index, const ug_point_record *p, const ug_row *row)
{
    toy_state *t = r->state;
    (void)row;
    t->points++;
    if (p->status != UG_ST_FAIL && p->status != UG_ST_XPASS) return;
    t->failed++;
    if (t->f) fprintf(t->f, "fail %d %s\n", index, p->name);
}

static void toy_end(ug_reporter *r, const ug_results *res, const char *notes)
{
    toy_state *t = r->state;
    (void)notes;
    if (!t->f) return;
    if (res) fprintf(t->f, "end: %d points, %d failed\n", t->points, t->failed);
    else fprintf(t->f, "interrupted\n");
    fclose(t->f);
    t->f = NULL;
}

static toy_state toy;
static ug_reporter toy_reporter = {"toy", toy_begin, toy_case, toy_point, toy_end, &toy};

__attribute__((constructor)) static void toy_register(void)
{
    ug_reporter_register(&toy_reporter);
}
