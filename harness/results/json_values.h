/* json_values.h - the typed values of a results document, read strictly (json_values.c). */
#ifndef UG_JSON_VALUES_H
#define UG_JSON_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/json.h"

/* "a number", "a string", ... for messages. */
const char *ug_json_type_name(ug_json_type t);
/* What the readers share: v has JSON type t / is a figure (a number or "inf", "-inf", "nan") /
 * a count (a finite non-negative integer) / an int.  0, or -1 with "\"KEY\" is ..." in err. */
int ug_json_want(const ug_json *v, const char *key, ug_json_type t, char *err, size_t errlen);
int ug_json_value_figure(const ug_json *v, const char *key, double *out, char *err,
                         size_t errlen);
int ug_json_value_count(const ug_json *v, const char *key, size_t *out, char *err,
                        size_t errlen);
int ug_json_value_int(const ug_json *v, const char *key, int *out, char *err, size_t errlen);

/* A figure of an object: a JSON number or "inf", "-inf", "nan".  0, or -1 with "\"KEY\" is
 * missing" (if required), "is null", "is the string \"abc\", not a number", ... in err; absent
 * and not required leaves *v as it was. */
int ug_json_figure(const ug_json *o, const char *key, bool required, double *v, char *err,
                   size_t errlen);

#endif
