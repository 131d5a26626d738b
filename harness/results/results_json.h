/* results_json.h - a results.json written (results_write.c) and read back (results_json.c);
 * the row's fields come from the schema, row_fields.h. */
#ifndef UG_RESULTS_JSON_H
#define UG_RESULTS_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/json.h"
#include "harness/results/json_values.h"
#include "harness/results/results.h"
#include "harness/results/row_nested.h"

/* ---- writing ---- */

/* The results.json text of res: {"format": UG_RESULTS_FORMAT, "meta": META, [SHARD,]
 * "summary": ..., "units": [...], "results": [...]} (meta: an object's text; shard: ",\n\"shard\":
 * {...}" or NULL). */
void ug_report_json(ug_buf *b, const char *meta, const char *shard, const ug_results *res);
/* A row object without its closing brace (the caller may add members): a results.json row, or
 * with baseline the fields a baseline keeps (row_fields.h's bl column). */
void ug_row_json_open(ug_buf *b, const ug_row *r, bool baseline);

/* ---- reading ---- */

/* Read path into res (rows in file order).  Returns the parsed document (its "meta" object is
 * what compare and merge look at; ug_json_free it), or NULL with "PATH: what is wrong" in err
 * and res empty: not a results.json, a format newer than UG_RESULTS_FORMAT, or a row whose
 * field is missing, null or of the wrong type ("PATH: result 3 (ID): \"ulp_max\" is null"). */
ug_json *ug_results_read(const char *path, ug_results *res, char *err, size_t errlen);

/* The format of a document: its "format" key (a results.json's top level, a baseline's
 * "baseline" object), 1 when absent (the files before format 2).  0, or -1 with "PATH:
 * results format 3 is newer than this ulpgate reads (2): ..." in err (what: "results" or
 * "baseline"; hint: how to regenerate the file). */
/* A reduced run's caps from meta.limits (run_limits.h: ULPGATE_MAX_ELEMENTS, ULPGATE_MAX_TRIALS,
 * ULPGATE_NO_TIMING) as text, "ULPGATE_MAX_ELEMENTS=131072 (12 sizes left out),
 * ULPGATE_MAX_TRIALS=2", into buf; "" for a whole run.  Returns buf. */
const char *ug_meta_limits_text(const ug_json *meta, char *buf, size_t len);

int ug_format_check(const char *path, const ug_json *head, const char *what, const char *hint,
                    int *format, char *err, size_t errlen);

/* One row object of a document of this format into r: a results.json row, or with baseline a
 * baseline's row (only the fields a baseline keeps).  0, or -1 with what is wrong in err
 * ("\"ulp_max\" is null"; r->id is read first, so the caller can name the row).  Never reads
 * a missing or malformed figure as 0. */
int ug_row_read(const ug_json *o, int format, bool baseline, ug_row *r, char *err,
                size_t errlen);

/* ug_row_read of a row of a compact results.json (its "detail": false): the UG_FF_DETAIL
 * fields may be absent (read as 0), an absent UG_FF_DFLT field reads as its value in dflt (the
 * file's "defaults" object, or NULL), and from format 3 a measured row's absent "point" is
 * made back (ug_row_point_derived), and an absent UG_FF_PREV field reads as prev's (the row
 * read before it) when prev measured the same inputs; every other rule holds. */
int ug_row_read_ex(const ug_json *o, int format, bool baseline, bool compact,
                   const ug_json *dflt, const ug_row *prev, ug_row *r, char *err, size_t errlen);

#endif
