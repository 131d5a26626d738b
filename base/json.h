/*
 * json.h - a small JSON reader: the whole text parsed into a tree of values (RFC 8259; numbers
 * as binary64 by strtod, so %.17g output reads back exactly), for results.json, baselines and
 * merge inputs.  Depth and size are bounded by the text; errors name the line and column.  A
 * member name given twice in one object is an error ("duplicate member name \"ulp_max\""):
 * which of the two is the figure must not depend on the reader.
 */
#ifndef UG_JSON_H
#define UG_JSON_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { UG_JSON_NULL, UG_JSON_BOOL, UG_JSON_NUM, UG_JSON_STR, UG_JSON_ARR, UG_JSON_OBJ } ug_json_type;

typedef struct ug_json ug_json;
struct ug_json {
    ug_json_type type;
    bool b;
    double num;
    char *str;            /* UG_JSON_STR: the decoded string (UTF-8) */
    char *key;            /* the member's name when this value is in an object */
    ug_json **items;      /* UG_JSON_ARR / UG_JSON_OBJ: count values in order */
    size_t count;
};

/* Parse text (len bytes, need not be NUL-terminated).  Returns the root, or NULL with
 * "line L, column C: what is wrong" in err.  Nesting deeper than 64 is an error. */
ug_json *ug_json_parse(const char *text, size_t len, char *err, size_t errlen);
/* Read and parse a whole file; NULL with "PATH: why" or "PATH: line L, column C: ..." in err.
 * Bounded (base/sys.h ug_read_bounded): a file over ug_json_file_limit bytes is refused before
 * it is read ("PATH: 300000000 bytes, larger than 128 MiB, the limit of a JSON file ulpgate
 * reads (ULPGATE_JSON_LIMIT raises it): not read"), a device or FIFO once it passes the limit,
 * a NUL byte where it is read (/dev/zero: at once).  Every JSON reader of ulpgate comes here:
 * results.json (compare, merge, report, summary, baseline update --from), baselines (index.json
 * and every row file), the unit costs of --shard and --gpus. */
ug_json *ug_json_parse_file(const char *path, char *err, size_t errlen);
/* The limit: UG_JSON_FILE_LIMIT, or ULPGATE_JSON_LIMIT (a size, base/parse.h ug_parse_bytes)
 * when set; 0 with "ULPGATE_JSON_LIMIT='x' is not a size ..." in err when that is malformed.
 * 128 MiB: the largest file it must read is a results.json, 2.9 MB for a default H100 run and
 * 7.4 MB for a default CPU run with --detail (every field of every row; ~3x that on a GPU, by
 * the rows); 128 MiB is 44x the first and about 5x the largest a --detail GPU run writes, and
 * the tree it parses into (~8 bytes of node per byte of text for numbers) stays near 1 GiB. */
enum { UG_JSON_FILE_LIMIT = 128 << 20 };
size_t ug_json_file_limit(char *err, size_t errlen);
void ug_json_free(ug_json *v);

/* Member `key` of an object (NULL if v is not an object or has none). */
const ug_json *ug_json_get(const ug_json *v, const char *key);
/* A number: a JSON number, or one of the strings "inf", "-inf", "nan" (how this project writes
 * non-finite values, base/buf.h).  dflt when v is missing or neither. */
double ug_json_num_of(const ug_json *v, double dflt);
/* A string member's text, or dflt. */
const char *ug_json_str_of(const ug_json *v, const char *dflt);
bool ug_json_bool_of(const ug_json *v, bool dflt);

/* Append v as JSON text (numbers as base/buf.h writes them: a non-finite number read from the
 * strings "inf"/"-inf"/"nan" is written back the same way). */
struct ug_buf;
void ug_json_write(struct ug_buf *b, const ug_json *v);

#endif
