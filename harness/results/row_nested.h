/* row_nested.h - the nested values of a row (ulp_hist, the worst elements, a case's own
 * "extra" figures), written and read in one place (row_nested.c). */
#ifndef UG_ROW_NESTED_H
#define UG_ROW_NESTED_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/json.h"
#include "harness/results/results.h"

/* ulp_hist and the worst elements of a measured row (nothing for a check row); trim: leave the
 * histogram's trailing zero buckets out (a compact results.json of format 3). */
void ug_row_nested_json(ug_buf *b, const ug_row *r, bool full, bool trim);
/* The same read back (required of a measured row: ulp_hist); trimmed: 1 to 16 buckets, the
 * missing ones 0.  0, or -1 with why. */
int ug_row_nested_read(const ug_json *o, ug_row *r, bool trimmed, char *why, size_t whylen);
/* A case's own figures (ug_row.extra) into the row's "extra" object: *first says whether the
 * object is still to be opened (and is cleared when it is); the caller closes it. */
void ug_row_case_extras_json(ug_buf *b, const ug_row *r, bool *first);
/* The entries of an "extra" object (x; NULL: none) that are no schema field, into r->extra. */
int ug_row_case_extras_read(const ug_json *x, ug_row *r, char *err, size_t errlen);

/* Whether name is a UG_FF_EXTRA field of the schema (a case's own figure must not take it). */
bool ug_extra_is_field(const char *name);

#endif
