/*
 * tap.h - TAP version 13 on an output stream, and nothing else: the header, one line per test
 * point (with its directive and diagnostics), the figures of a measurement as a '#' line so a
 * log diff shows changes, the plan and the closing summary.
 */
#ifndef UG_TAP_H
#define UG_TAP_H

#include <stdio.h>

#include "harness/results/results.h"

/* "TAP version 13" and a comment line. */
void ug_tap_begin(FILE *out, const char *comment);
/* One test point, numbered index: "ok 3 - name", "not ok 4 - name", "ok 5 - name # SKIP why",
 * "not ok 6 - name # TODO why" (a declared expected failure), "ok 7 - name # TODO why" (an
 * unexpected pass, which TAP consumers report as such); then its diagnostics, then, for a
 * measurement, "#   figures: ulp_max ..., ulp_mean ..., bound ratio ..." from row. */
void ug_tap_point(FILE *out, int index, const ug_point_record *p, const ug_row *row);
/* "1..N" */
void ug_tap_plan(FILE *out, int count);
/* "Bail out! why" */
void ug_tap_bail(FILE *out, const char *why);

#endif
