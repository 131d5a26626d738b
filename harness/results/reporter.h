/*
 * reporter.h - what a run tells as it goes, and where: one interface, four calls, for every
 * output of `ulpgate run` (harness/run/run.c calls each reporter of the run in turn):
 *
 *   begin(r, s)          the run starts: s says the stream, whether it is a terminal, the
 *                        cases selected, the first line's text and the report folder (NULL
 *                        without --report)
 *   case_done(r, name)   a case (unit) ended
 *   point(r, i, p, row)  test point i (1 ..) closed: its record and its results row
 *   end(r, res, notes)   the run ended: every row, and the run's notes ("# ..." lines: the GPU
 *                        oracle's tally, time by phase), which a reporter places in its own
 *                        output or leaves out; res NULL: the run was interrupted (a signal),
 *                        the reporter takes back what it has half written
 *
 * The built-in reporters: console.c (a person at a terminal, the default), tap.c (--tap: the
 * full TAP stream), junit.c (with --report DIR: DIR/junit.xml, as `merge` writes it).  A
 * reporter defined outside the tree registers itself (ug_reporter_register, before the run):
 * every run then calls it after the built-in ones; tests/toy_report/ is one, built into
 * ulpgate-toyreport (CONTRIBUTING.md, "Adding a report section").
 */
#ifndef UG_REPORTER_H
#define UG_REPORTER_H

#include <stdbool.h>
#include <stdio.h>

#include "harness/results/results.h"

typedef struct ug_run_start {
    FILE *out;              /* the run's output stream */
    bool tty;               /* out is a terminal */
    int cases;              /* cases (units) selected */
    const char *comment;    /* "ulpgate 0.2.0, seed 0x5eed, oracle fast" */
    const char *report_dir; /* --report DIR, or NULL */
} ug_run_start;

typedef struct ug_reporter ug_reporter;
struct ug_reporter {
    const char *name;
    void (*begin)(ug_reporter *r, const ug_run_start *s);
    void (*case_done)(ug_reporter *r, const char *name);
    void (*point)(ug_reporter *r, int index, const ug_point_record *p, const ug_row *row);
    void (*end)(ug_reporter *r, const ug_results *res, const char *notes);
    void *state;            /* the reporter's own */
};

/* The built-in reporters, each a fresh instance (free with ug_reporter_free). */
ug_reporter *ug_reporter_console(void);
ug_reporter *ug_reporter_tap(void);
ug_reporter *ug_reporter_junit(void);
void ug_reporter_free(ug_reporter *r);

/* A reporter every later run also calls (at most 8; r lives as long as the process).  0, or -1
 * with a message on stderr when the table is full or r lacks a call. */
int ug_reporter_register(ug_reporter *r);
/* The registered reporters: the i-th, NULL past the end. */
ug_reporter *ug_reporter_registered(int i);

#endif
