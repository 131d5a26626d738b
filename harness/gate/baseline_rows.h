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
/* The grouped line form of the rows of bl named by rows[0..n) (baseline_lines.c): "columns",
 * "defaults", "checks" and "groups", one row a line, without the enclosing braces. */
void ug_bl_lines_body(const ug_baseline *bl, const size_t *rows, size_t n, ug_buf *b);
/* ug_baseline_files with max bytes a file instead of UG_BL_FILE_MAX (the tests split small
 * baselines with it). */
void ug_baseline_files_max(const ug_baseline *bl, size_t max, ug_bl_files *out);
/* The row files that a folder's index.json (root, read from index) lists, read into bl
 * (baseline_dir.c).  0, or -1 with "FILE: what is wrong" in err. */
int ug_baseline_read_parts(const char *index, const struct ug_json *root, ug_baseline *bl,
                           char *err, size_t errlen);
/* The case group of case_name as row files name it ("reduce/normal": "reduce", other bytes than
 * [A-Za-z0-9_@-] as %XX), malloc'ed (baseline_dir.c). */
char *ug_bl_group_name(const char *case_name);

#endif
