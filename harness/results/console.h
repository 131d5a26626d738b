/*
 * console.h - what a person at a terminal sees of a run (`ulpgate run` without --tap): a
 * progress line per case (cases done/total, test points, failures so far, elapsed), rewritten
 * in place when the stream is a terminal and one line per case when it is not; every failure
 * in full (its TAP block: file:line, the worst element, got and exact in hex, the seed, the
 * rerun command); then a one-screen summary.  The full TAP stream is tap.h's (--tap).
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
