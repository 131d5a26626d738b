/* results_columns.h - the columnar rows of a results.json of format 5 and 4
 * (results_columns.c): the keys once per file, one array a row. */
#ifndef UG_RESULTS_COLUMNS_H
#define UG_RESULTS_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/json.h"

/* Append "\"columns\":[...],\n\"shapes\":[...],\n\"tables\":{...},\n\"results\":[...]" (format 5)
 * for the row objects rows[0..n) (what ug_row_json_open writes, parsed), in order: each row one
 * line, an array of its shape and its columns' values.  Cost: O(rows x keys x columns); the
 * tables' and shapes' look-ups are hashed. */
void ug_columns_write(ug_buf *b, ug_json *const *rows, size_t n);

/* A file's columns, shapes and tables (pointing into its parsed document). */
typedef struct ug_columns {
    const char **key;        /* n column names */
    const ug_json **table;   /* per column: its table, or NULL (the values are in place) */
    size_t n;
    bool shaped;             /* format 5: a row starts with its shape */
    size_t **shape, *shape_len, n_shapes; /* per shape: its columns' indexes, in order */
} ug_columns;

/* Read root's "columns", "tables" and (format >= 5) "shapes".  0, or -1 with what is wrong in
 * err (a shape naming a column twice or none, "shapes" in a format 4 file, ...). */
int ug_columns_open(ug_columns *c, const ug_json *root, int format, char *err, size_t errlen);
void ug_columns_close(ug_columns *c);
/* A row array as the row object it stands for (its members borrowed from the document: free
 * with ug_columns_row_free, never ug_json_free), for ug_row_read_ex.  NULL with what is wrong
 * in err: not an array, a shape out of range or values not as many as its columns (format 5),
 * more values than columns (format 4), an index out of its table, a key both in a column and in
 * the row's trailing object. */
ug_json *ug_columns_row(const ug_columns *c, const ug_json *row, char *err, size_t errlen);
void ug_columns_row_free(ug_json *o);

#endif
