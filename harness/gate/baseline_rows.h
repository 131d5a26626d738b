/* baseline_rows.h - one row of a baseline at a time (baseline_rows.c), shared by baseline.c
 * (the file) and baseline_lines.c (its grouped line form), which both call down into it. */
#ifndef UG_BASELINE_ROWS_H
#define UG_BASELINE_ROWS_H

#include <stddef.h>

#include "base/buf.h"
#include "harness/gate/baseline.h"

struct ug_json;

/* A row object of a baseline of this format into bl: the row read strictly (ug_row_read), its
 * fingerprint (by hash, among bl's), slack and loosenings.  0, or -1 with "PATH: row I (ID):
 * what is wrong" in err. */
int ug_baseline_take_row(const char *path, size_t i, const struct ug_json *o, int format,
                         ug_baseline *bl, char *err, size_t errlen);
/* An array of update events into a fresh array (NULL when none); its length in *n. */
ug_bl_event *ug_bl_events_read(const struct ug_json *arr, size_t *n);
/* Row i of bl as a format 2 row object (what baseline_lines.c cuts into a grouped line). */
void ug_bl_row_json(ug_buf *b, const ug_baseline *bl, size_t i);
/* An update event as an object. */
void ug_event_json(ug_buf *b, const ug_bl_event *e);

#endif
