/* results_json.h - reading a results.json back (harness/results/results_json.c). */
#ifndef UG_RESULTS_JSON_H
#define UG_RESULTS_JSON_H

#include <stddef.h>

#include "base/json.h"
#include "harness/results/results.h"

/* Read path into res (rows in file order).  Returns the parsed document (its "meta" object is
 * what compare and merge look at; ug_json_free it), or NULL with "PATH: what is wrong" in err
 * and res empty. */
ug_json *ug_results_read(const char *path, ug_results *res, char *err, size_t errlen);

/* One row object (as report.c writes it; baselines keep a subset of the same fields) into r;
 * 0, or -1 with what is missing in err. */
int ug_row_read(const ug_json *o, ug_row *r, char *err, size_t errlen);

#endif
