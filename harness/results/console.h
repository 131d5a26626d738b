/*
 * console.h - what a person at a terminal sees of a run (`ulpgate run` without --tap; the
 * console reporter of reporter.h): a progress line that says what it counts,
 *   [12/248 cases] reduce/normal: 56 points, 0 failed; run: 3120 points, 0 failed, 41.2 s, ~13 min left
 * (the case's own points and failures, then the run's so far, the time, and past 10 s an
 * estimate of the time left from the cases' mean), rewritten in place on a terminal; on a
 * file or pipe kept short: a line for a case that failed, one at each tenth of the cases and
 * one for the last (not one a case); every failure in full (its TAP block: file:line, the
 * worst element, got and exact in hex, the seed, the rerun command); then a one-screen
 * summary.  The full TAP stream is tap.h's (--tap).
 */
#ifndef UG_CONSOLE_H
#define UG_CONSOLE_H

#include <stdbool.h>
#include <stdio.h>

#include "harness/results/results.h"

typedef struct ug_console {
    FILE *out;
    bool tty;             /* out is a terminal: the progress line is rewritten in place */
    int cases_total, cases_done;
    int points, failures; /* so far: test points, and those that fail (fail, xpass) */
    int case_points, case_failures; /* of the case running */
    int tenth;            /* the last tenth of the cases a line was printed for (no terminal) */
    double t0;            /* ug_now_s() at the start */
    bool line_open;       /* a progress line without its newline is on the terminal */
    char failed[20][160]; /* the first failures' names, for the summary */
} ug_console;

/* The run's first line ("ulpgate 0.2.0, seed 0x5eed, oracle fast: 12 cases"). */
void ug_console_begin(ug_console *c, FILE *out, bool tty, int cases_total, const char *comment);
/* A test point: counted; a failure printed in full (ug_tap_point), numbered index. */
void ug_console_point(ug_console *c, int index, const ug_point_record *p, const ug_row *row);
/* A case (unit) ended: its progress line. */
void ug_console_case(ug_console *c, const char *name);
/* Take the progress line off the terminal (before other output). */
void ug_console_clear(ug_console *c);
/* The summary: cases, points and time, the failures by name, the counts line
 * (ug_results_summary). */
void ug_console_end(ug_console *c, const ug_results *res);

#endif
