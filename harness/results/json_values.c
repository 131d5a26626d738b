/*
 * json_values.c - the typed values of a results document, read strictly: what results_json.c
 * (rows) and row_nested.c (a row's nested values) both read with.  A figure is a JSON number or
 * one of "inf", "-inf", "nan"; a count a finite non-negative integer; anything else an error
 * naming the key.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness/results/json_values.h"

const char *ug_json_type_name(ug_json_type t)
{
    switch (t) {
    case UG_JSON_NULL: return "null";
    case UG_JSON_BOOL: return "a bool";
    case UG_JSON_NUM: return "a number";
    case UG_JSON_STR: return "a string";
    case UG_JSON_ARR: return "an array";
    case UG_JSON_OBJ: return "an object";
    }
    return "?";
}

/* A JSON value of the expected type, or -1 with why in err. */
int ug_json_want(const ug_json *v, const char *key, ug_json_type t, char *err, size_t errlen)
{
    if (!v) {
        snprintf(err, errlen, "\"%s\" is missing", key);
        return -1;
    }
    if (v->type != t) {
        snprintf(err, errlen, "\"%s\" is %s, not %s", key, ug_json_type_name(v->type), ug_json_type_name(t));
        return -1;
    }
    return 0;
}

int ug_json_value_figure(const ug_json *v, const char *key, double *out, char *err,
                           size_t errlen)
{
    if (v && v->type == UG_JSON_NUM) {
        *out = v->num;
        return 0;
    }
    if (v && v->type == UG_JSON_STR) {
        if (strcmp(v->str, "inf") == 0 || strcmp(v->str, "-inf") == 0 || strcmp(v->str, "nan") == 0) {
            *out = ug_json_num_of(v, 0);
            return 0;
        }
        snprintf(err, errlen,
                 "\"%s\" is the string \"%.40s\", not a number (non-finite values are written "
                 "\"inf\", \"-inf\" or \"nan\")",
                 key, v->str);
        return -1;
    }
    return ug_json_want(v, key, UG_JSON_NUM, err, errlen);
}

int ug_json_figure(const ug_json *o, const char *key, bool required, double *v, char *err,
                   size_t errlen)
{
    const ug_json *x = ug_json_get(o, key);
    if (!x && !required) return 0;
    return ug_json_value_figure(x, key, v, err, errlen);
}

/* A whole number in [lo, hi] (a count: lo 0, hi 2^64); -1 with why. */
static int ug_value_whole(const ug_json *v, const char *key, double lo, double hi, double *out,
                          char *err, size_t errlen)
{
    double d;
    if (ug_json_value_figure(v, key, &d, err, errlen) != 0) return -1;
    if (!(d >= lo && d < hi) || d != floor(d)) {
        snprintf(err, errlen, "\"%s\" is %.17g, not a%s integer", key, d,
                 lo == 0 ? " non-negative" : "n");
        return -1;
    }
    *out = d;
    return 0;
}

int ug_json_value_count(const ug_json *v, const char *key, size_t *out, char *err,
                          size_t errlen)
{
    double d;
    if (ug_value_whole(v, key, 0, 0x1p64, &d, err, errlen) != 0) return -1;
    if (d > (double)SIZE_MAX) { /* a 32-bit size_t */
        snprintf(err, errlen, "\"%s\" is %.17g, too large a count", key, d);
        return -1;
    }
    *out = (size_t)d;
    return 0;
}

int ug_json_value_int(const ug_json *v, const char *key, int *out, char *err, size_t errlen)
{
    double d;
    if (ug_value_whole(v, key, -2147483648.0, 2147483648.0, &d, err, errlen) != 0) return -1;
    *out = (int)d;
    return 0;
}

