/*
 * results_rows.h - the row builders the results schema's checks share (results_checks.c,
 * results_read_checks.c).
 */
#ifndef UG_TESTS_RESULTS_ROWS_H
#define UG_TESTS_RESULTS_ROWS_H

#include "harness/results/results.h"

/* Write text to a fresh temporary file; its path in path (a fixed template).  0, or -1. */
int ug_tmp_write(char path[32], const char *text);
/* Every field of the schema set to a value of its own (k: a salt, so that two rows differ),
 * plus the nested values; a measured row of op `op` with repeats. */
void ug_fill_row(ug_row *r, const char *op, int k);

#endif
