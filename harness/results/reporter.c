/*
 * reporter.c - the built-in reporters of reporter.h (console, TAP, JUnit) over console.c, tap.c
 * and junit.c, and the table of registered ones.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/sys.h"
#include "harness/results/console.h"
#include "harness/results/junit.h"
#include "harness/results/reporter.h"
#include "harness/results/tap.h"

/* ---- console: progress, failures in full, a summary ----------------------------------------- */

static void con_begin(ug_reporter *r, const ug_run_start *s)
{
    ug_console_begin(r->state, s->out, s->tty, s->cases, s->comment);
}
static void con_case(ug_reporter *r, const char *name) { ug_console_case(r->state, name); }
static void con_point(ug_reporter *r, int index, const ug_point_record *p, const ug_row *row)
{
    ug_console_point(r->state, index, p, row);
}
static void con_end(ug_reporter *r, const ug_results *res, const char *notes)
{
    ug_console *c = r->state;
    ug_console_clear(c);
    if (!res) return;
    if (notes && *notes) fputs(notes, c->out);
    ug_console_end(c, res);
}

/* ---- TAP: the full stream (--tap) ----------------------------------------------------------- */

typedef struct {
    FILE *out;
    int points;
} ug_tap_state;

static void tap_begin(ug_reporter *r, const ug_run_start *s)
{
    ug_tap_state *t = r->state;
    t->out = s->out;
    ug_tap_begin(s->out, s->comment);
}
static void tap_case(ug_reporter *r, const char *name) { (void)r, (void)name; }
static void tap_point(ug_reporter *r, int index, const ug_point_record *p, const ug_row *row)
{
    ug_tap_state *t = r->state;
    ug_tap_point(t->out, index, p, row);
    if (index > t->points) t->points = index;
}
static void tap_end(ug_reporter *r, const ug_results *res, const char *notes)
{
    ug_tap_state *t = r->state;
    if (!res) return; /* interrupted: the guard ends the stream (harness/run/guard.c) */
    ug_tap_plan(t->out, t->points);
    if (notes && *notes) fputs(notes, t->out);
    char summary[200];
    ug_results_summary(res, summary, sizeof summary);
    fprintf(t->out, "# %s\n", summary);
}

/* ---- JUnit XML: DIR/junit.xml with --report DIR, as merge writes it ------------------------- */

typedef struct {
    char path[4096];
} ug_junit_state;

static void junit_begin(ug_reporter *r, const ug_run_start *s)
{
    ug_junit_state *j = r->state;
    j->path[0] = 0;
    if (!s->report_dir) return;
    snprintf(j->path, sizeof j->path, "%s/junit.xml", s->report_dir);
    /* an earlier run's goes now (the folder is ulpgate's: harness/results/report_mark.h): a run
     * cut short writes none, and then none is left that describes another run */
    struct stat st;
    if (lstat(j->path, &st) == 0 && S_ISREG(st.st_mode)) unlink(j->path);
}
static void junit_case(ug_reporter *r, const char *name) { (void)r, (void)name; }
static void junit_point(ug_reporter *r, int index, const ug_point_record *p, const ug_row *row)
{
    (void)r, (void)index, (void)p, (void)row;
}
static void junit_end(ug_reporter *r, const ug_results *res, const char *notes)
{
    ug_junit_state *j = r->state;
    (void)notes;
    if (!res || !j->path[0]) return;
    ug_buf xml = {0};
    char err[512];
    ug_junit(&xml, res);
    if (ug_write_atomic(j->path, xml.s ? xml.s : "", xml.len, err, sizeof err) != 0)
        fprintf(stderr, "ulpgate: %s\n", err);
    ug_buf_free(&xml);
}

/* ---- instances and the registry --------------------------------------------------------------- */

static ug_reporter *ug_reporter_new(const ug_reporter *proto, size_t state_size)
{
    ug_reporter *r = ug_xmalloc(sizeof *r);
    *r = *proto;
    r->state = ug_xcalloc(1, state_size);
    return r;
}

ug_reporter *ug_reporter_console(void)
{
    static const ug_reporter p = {"console", con_begin, con_case, con_point, con_end, NULL};
    return ug_reporter_new(&p, sizeof(ug_console));
}

ug_reporter *ug_reporter_tap(void)
{
    static const ug_reporter p = {"tap", tap_begin, tap_case, tap_point, tap_end, NULL};
    return ug_reporter_new(&p, sizeof(ug_tap_state));
}

ug_reporter *ug_reporter_junit(void)
{
    static const ug_reporter p = {"junit", junit_begin, junit_case, junit_point, junit_end, NULL};
    return ug_reporter_new(&p, sizeof(ug_junit_state));
}

void ug_reporter_free(ug_reporter *r)
{
    if (!r) return;
    free(r->state);
    free(r);
}

enum { UG_MAX_REGISTERED = 8 };
static ug_reporter *ug_registered[UG_MAX_REGISTERED];
static int ug_nregistered;

int ug_reporter_register(ug_reporter *r)
{
    const char *why = NULL;
    if (!r || !r->begin || !r->case_done || !r->point || !r->end) why = "a reporter lacks a call";
    else if (ug_nregistered == UG_MAX_REGISTERED) why = "8 reporters are registered already";
    if (why) {
        fprintf(stderr, "ulpgate: ug_reporter_register(%s): %s\n", r && r->name ? r->name : "?",
                why);
        return -1;
    }
    ug_registered[ug_nregistered++] = r;
    return 0;
}

ug_reporter *ug_reporter_registered(int i)
{
    return i >= 0 && i < ug_nregistered ? ug_registered[i] : NULL;
}
