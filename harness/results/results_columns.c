/*
 * results_columns.c - the columnar rows of a results.json of format 5 (and 4): the keys once
 * per file, one JSON array a row (docs/results-schema.md#columnar-rows-format-5):
 *
 *   "columns":["case","kernel","n","count","ulp_max",...,"note"],
 *   "shapes":[[0,1,2,3,4,...],[0,1,2,3,4,...,17],[0,5]],
 *   "tables":{"kernel":["serial_f32@default",...],"ulp_hist":[[10],[9,1],...]},
 *   "results":[
 *   [0,3,1,1000,10,0.5,...],
 *   [1,3,4,1000,10,2.5,...,12,{"extra":{...}}]]
 *
 * A row's first value picks its shape: the columns, in order, of the values that follow (so a
 * row names only the columns it has: a GEMM row its m, n, k, a sum row none of them); a row
 * may end with an object holding the members that have no column (the nested "extra", the
 * worst elements, keys too rare to be columns).  A column named in "tables" holds an index
 * into its table instead of the value: values that repeat (kernel, case, dist, the histograms,
 * the notes) are written once.  The writer picks the columns (keys in at least 1/32 of the
 * rows, most frequent first), the shapes (each distinct set of a row's columns, most used
 * first) and the tables (where they make the file smaller); the reader needs none of these
 * choices, only the file.  Format 4 had no shapes: a row's i-th value was columns[i]'s, null
 * for a value left out, and the rows of a GPU run spent a quarter of the file on nulls.
 *
 * Writing keeps the row writer of format 3 (ug_row_json_open, one object a row) and recasts
 * each object: the two forms hold the same values, so a row reads back the same either way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/results/json_values.h"
#include "harness/results/results_columns.h"

/* ---- writing --------------------------------------------------------------------------------- */

/* One key's statistics over the file's rows: rows holding it, and its distinct values' text
 * with their counts. */
typedef struct ug_colstat {
    const char *key;
    size_t rows, first; /* rows that have it; the first row index that has it */
    size_t text_bytes;  /* the bytes of its values written in place */
    char **vals;        /* distinct values' JSON text, most used first after sorting */
    size_t *cnt, n_vals, cap;
    size_t *slot, n_slots; /* hash of vals: index + 1, 0 for none (open addressing) */
    bool column, table;
} ug_colstat;

static bool ug_nested(const ug_json *v)
{
    return v->type == UG_JSON_OBJ;
}

static ug_colstat *ug_stat_of(ug_colstat **st, size_t *n, const char *key, size_t row)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*st)[i].key, key) == 0) return &(*st)[i];
    *st = ug_xrealloc(*st, (*n + 1) * sizeof **st);
    ug_colstat *s = &(*st)[(*n)++];
    memset(s, 0, sizeof *s);
    s->key = key;
    s->first = row;
    return s;
}

static size_t ug_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of text in s's hash: the one holding it, or the empty one where it goes. */
static size_t *ug_slot(const ug_colstat *s, const char *text)
{
    size_t m = s->n_slots - 1, i = ug_hash(text) & m;
    while (s->slot[i] && strcmp(s->vals[s->slot[i] - 1], text) != 0) i = (i + 1) & m;
    return &s->slot[i];
}

/* Rebuild the hash of s's values (after it grew, or after they were sorted). */
static void ug_rehash(ug_colstat *s, size_t n_slots)
{
    free(s->slot);
    s->n_slots = n_slots;
    s->slot = ug_xcalloc(n_slots, sizeof *s->slot);
    for (size_t v = 0; v < s->n_vals; v++) *ug_slot(s, s->vals[v]) = v + 1;
}

/* The index of text among s's values, adding it when add (else (size_t)-1 when absent).
 * O(1) expected: a hash kept at most half full. */
static size_t ug_val_index(ug_colstat *s, const char *text, bool add)
{
    if (s->n_slots) {
        size_t *at = ug_slot(s, text);
        if (*at) return *at - 1;
    }
    if (!add) return (size_t)-1;
    if (s->n_vals == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->vals = ug_xrealloc(s->vals, s->cap * sizeof *s->vals);
        s->cnt = ug_xrealloc(s->cnt, s->cap * sizeof *s->cnt);
    }
    s->vals[s->n_vals] = ug_xstrdup(text);
    s->cnt[s->n_vals] = 0;
    s->n_vals++;
    if (2 * s->n_vals > s->n_slots)
        ug_rehash(s, 4 * s->cap);
    else
        *ug_slot(s, text) = s->n_vals;
    return s->n_vals - 1;
}

/* One value in ug_vals_sort: its count and where it was first seen. */
typedef struct {
    size_t cnt, at;
} ug_valrank;

static int ug_valrank_cmp(const void *a, const void *b)
{
    const ug_valrank *x = a, *y = b;
    if (x->cnt != y->cnt) return x->cnt > y->cnt ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

static void ug_colstat_free(ug_colstat *s)
{
    for (size_t v = 0; v < s->n_vals; v++) free(s->vals[v]);
    free(s->vals);
    free(s->cnt);
    free(s->slot);
}

/* Order s's values by use, most used first (ties: first seen first), so that the indexes most
 * rows write are the shortest, and rehash them.  O(v log v) for v values: a table is not
 * capped (a cap of 4096 values dropped the tables of ulp_max, rel_max, time_ms and
 * ulp_hist in a GPU run's ~28,600 rows, every value then written in place). */
static void ug_vals_sort(ug_colstat *s)
{
    ug_valrank *rk = ug_xcalloc(s->n_vals ? s->n_vals : 1, sizeof *rk);
    for (size_t i = 0; i < s->n_vals; i++) rk[i] = (ug_valrank){s->cnt[i], i};
    qsort(rk, s->n_vals, sizeof *rk, ug_valrank_cmp);
    char **vals = ug_xcalloc(s->n_vals ? s->n_vals : 1, sizeof *vals);
    for (size_t i = 0; i < s->n_vals; i++) {
        vals[i] = s->vals[rk[i].at];
        s->cnt[i] = rk[i].cnt;
    }
    memcpy(s->vals, vals, s->n_vals * sizeof *vals);
    free(vals);
    free(rk);
    ug_rehash(s, s->n_slots);
}

/* v's JSON text into t (cleared first). */
static void ug_value_text(ug_buf *t, const ug_json *v)
{
    ug_buf_clear(t);
    ug_json_write(t, v);
}

static size_t ug_digits(size_t i)
{
    size_t d = 1;
    while (i >= 10) i /= 10, d++;
    return d;
}

/* The text of row o's shape, "[i,j,...]": the indexes of the columns it has a value for, in
 * column order (a nested value has no column: it goes to the row's object). */
static void ug_shape_text(ug_buf *t, const ug_json *o, const ug_colstat *st, const size_t *order,
                          size_t nc)
{
    ug_buf_clear(t);
    ug_buf_printf(t, "[");
    bool any = false;
    for (size_t c = 0; c < nc; c++) {
        const ug_json *v = ug_json_get(o, st[order[c]].key);
        if (!v || ug_nested(v)) continue;
        ug_buf_printf(t, "%s%zu", any ? "," : "", c);
        any = true;
    }
    ug_buf_printf(t, "]");
}

void ug_columns_write(ug_buf *b, ug_json *const *rows, size_t n)
{
    ug_colstat *st = NULL, shapes = {.key = "shapes"};
    size_t ns = 0;
    ug_buf t = {0};
    /* what each key costs in place, and what it would cost as a table */
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < rows[r]->count; i++) {
            const ug_json *v = rows[r]->items[i];
            if (ug_nested(v)) continue;
            ug_colstat *s = ug_stat_of(&st, &ns, v->key, r);
            s->rows++;
            ug_value_text(&t, v);
            s->text_bytes += t.len;
            size_t at = ug_val_index(s, ug_buf_str(&t), true); /* may move s->cnt */
            s->cnt[at]++;
        }
    /* columns: keys in at least 1/32 of the rows (a column costs a row that lacks it nothing,
     * its shape says so; a key in the row's object costs its name every time), the most
     * frequent first; ties in order of first appearance */
    size_t *order = ug_xcalloc(ns ? ns : 1, sizeof *order), nc = 0;
    for (size_t i = 0; i < ns; i++) {
        st[i].column = 32 * st[i].rows >= n && st[i].rows > 0;
        if (!st[i].column) continue;
        size_t j = nc++;
        while (j > 0 && (st[order[j - 1]].rows < st[i].rows ||
                         (st[order[j - 1]].rows == st[i].rows && st[order[j - 1]].first > st[i].first))) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    /* tables: where the indexes and the table are fewer bytes than the values in place */
    for (size_t c = 0; c < nc; c++) {
        ug_colstat *s = &st[order[c]];
        ug_vals_sort(s);
        size_t cost = 0;
        for (size_t v = 0; v < s->n_vals; v++) cost += strlen(s->vals[v]) + 1 + s->cnt[v] * ug_digits(v);
        s->table = cost + 16 < s->text_bytes;
    }
    /* shapes: the distinct sets of columns of the rows, the most used first (shortest index) */
    for (size_t r = 0; r < n; r++) {
        ug_shape_text(&t, rows[r], st, order, nc);
        size_t at = ug_val_index(&shapes, ug_buf_str(&t), true); /* may move shapes.cnt */
        shapes.cnt[at]++;
    }
    if (n) ug_vals_sort(&shapes);
    ug_buf_printf(b, "\"columns\":[");
    for (size_t c = 0; c < nc; c++) {
        ug_buf_printf(b, "%s", c ? "," : "");
        ug_buf_json_str(b, st[order[c]].key);
    }
    ug_buf_printf(b, "],\n\"shapes\":[");
    for (size_t v = 0; v < shapes.n_vals; v++) ug_buf_printf(b, "%s%s", v ? "," : "", shapes.vals[v]);
    ug_buf_printf(b, "],\n\"tables\":{");
    bool first = true;
    for (size_t c = 0; c < nc; c++) {
        const ug_colstat *s = &st[order[c]];
        if (!s->table) continue;
        ug_buf_printf(b, "%s\n", first ? "" : ",");
        first = false;
        ug_buf_json_str(b, s->key);
        ug_buf_printf(b, ":[");
        for (size_t v = 0; v < s->n_vals; v++) ug_buf_printf(b, "%s%s", v ? "," : "", s->vals[v]);
        ug_buf_printf(b, "]");
    }
    ug_buf_printf(b, "},\n\"results\":[");
    /* the rows: the shape, each of its columns' values (or their indexes), then an object of
     * what has no column */
    for (size_t r = 0; r < n; r++) {
        const ug_json *o = rows[r];
        ug_shape_text(&t, o, st, order, nc);
        ug_buf_printf(b, "%s\n[%zu", r ? "," : "", ug_val_index(&shapes, ug_buf_str(&t), false));
        for (size_t c = 0; c < nc; c++) {
            const ug_colstat *s = &st[order[c]];
            const ug_json *v = ug_json_get(o, s->key);
            if (!v || ug_nested(v)) continue;
            ug_value_text(&t, v);
            if (s->table)
                ug_buf_printf(b, ",%zu", ug_val_index((ug_colstat *)s, ug_buf_str(&t), false));
            else
                ug_buf_printf(b, ",%s", ug_buf_str(&t));
        }
        bool rest = false;
        for (size_t i = 0; i < o->count; i++) {
            const ug_json *v = o->items[i];
            const ug_colstat *s = NULL;
            for (size_t c = 0; c < nc && !s; c++)
                if (strcmp(st[order[c]].key, v->key) == 0) s = &st[order[c]];
            if (s && !ug_nested(v)) continue;
            ug_buf_printf(b, "%s", rest ? "," : ",{");
            rest = true;
            ug_buf_json_str(b, v->key);
            ug_buf_printf(b, ":");
            ug_json_write(b, v);
        }
        ug_buf_printf(b, "%s]", rest ? "}" : "");
    }
    ug_buf_printf(b, "\n]");
    for (size_t i = 0; i < ns; i++) ug_colstat_free(&st[i]);
    ug_colstat_free(&shapes);
    free(st);
    free(order);
    ug_buf_free(&t);
}

/* ---- reading --------------------------------------------------------------------------------- */

/* A count that indexes a list of n: a JSON integer 0 <= v < n. */
static bool ug_index_of(const ug_json *v, size_t n, size_t *i)
{
    if (!v || v->type != UG_JSON_NUM || !(v->num >= 0 && v->num < (double)n) ||
        v->num != (double)(size_t)v->num)
        return false;
    *i = (size_t)v->num;
    return true;
}

/* Read root's "shapes" into c (format 5): each an array of distinct column indexes. */
static int ug_shapes_open(ug_columns *c, const ug_json *shapes, char *err, size_t errlen)
{
    if (!shapes || shapes->type != UG_JSON_ARR) {
        snprintf(err, errlen, "\"shapes\" is %s, not an array (a results.json of format 5 "
                              "gives each row's columns as a shape)",
                 shapes ? ug_json_type_name(shapes->type) : "missing");
        return -1;
    }
    c->n_shapes = shapes->count;
    c->shape = ug_xcalloc(c->n_shapes ? c->n_shapes : 1, sizeof *c->shape);
    c->shape_len = ug_xcalloc(c->n_shapes ? c->n_shapes : 1, sizeof *c->shape_len);
    bool *seen = ug_xcalloc(c->n + 1, sizeof *seen);
    int rc = -1;
    for (size_t i = 0; i < c->n_shapes; i++) {
        const ug_json *sh = shapes->items[i];
        if (sh->type != UG_JSON_ARR) {
            snprintf(err, errlen, "\"shapes\": shape %zu is %s, not an array of column indexes",
                     i, ug_json_type_name(sh->type));
            goto out;
        }
        c->shape[i] = ug_xcalloc(sh->count + 1, sizeof *c->shape[i]);
        c->shape_len[i] = sh->count;
        memset(seen, 0, (c->n + 1) * sizeof *seen);
        for (size_t j = 0; j < sh->count; j++) {
            size_t col;
            bool is_col = ug_index_of(sh->items[j], c->n, &col);
            if (!is_col || seen[col]) {
                snprintf(err, errlen, "\"shapes\": shape %zu: item %zu is %s (0 to %zu, each "
                                      "column once)", i, j,
                         is_col ? "a column named twice" : "no column index", c->n ? c->n - 1 : 0);
                goto out;
            }
            seen[col] = true;
            c->shape[i][j] = col;
        }
    }
    rc = 0;
out:
    free(seen);
    return rc;
}

int ug_columns_open(ug_columns *c, const ug_json *root, int format, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    const ug_json *cols = ug_json_get(root, "columns"), *tabs = ug_json_get(root, "tables"),
                  *shapes = ug_json_get(root, "shapes");
    if (!cols || cols->type != UG_JSON_ARR) {
        snprintf(err, errlen, "no \"columns\" array (a results.json of format %d names its "
                              "columns once)", format);
        return -1;
    }
    if (tabs && tabs->type != UG_JSON_OBJ) {
        snprintf(err, errlen, "\"tables\" is %s, not an object", ug_json_type_name(tabs->type));
        return -1;
    }
    if (format < 5 && shapes) {
        snprintf(err, errlen, "\"shapes\" in a file of format %d (shapes came with format 5)",
                 format);
        return -1;
    }
    c->n = cols->count;
    c->key = ug_xcalloc(c->n ? c->n : 1, sizeof *c->key);
    c->table = ug_xcalloc(c->n ? c->n : 1, sizeof *c->table);
    for (size_t i = 0; i < c->n; i++) {
        const ug_json *k = cols->items[i];
        if (k->type != UG_JSON_STR || !k->str[0]) {
            snprintf(err, errlen, "\"columns\": item %zu is not a key", i);
            goto bad;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->key[j], k->str) == 0) {
                snprintf(err, errlen, "\"columns\": \"%.40s\" is named twice", k->str);
                goto bad;
            }
        c->key[i] = k->str;
    }
    for (size_t i = 0; tabs && i < tabs->count; i++) {
        const ug_json *t = tabs->items[i];
        size_t j = 0;
        while (j < c->n && strcmp(c->key[j], t->key) != 0) j++;
        if (j == c->n || t->type != UG_JSON_ARR) {
            snprintf(err, errlen, "\"tables\": \"%.40s\" is %s", t->key,
                     j == c->n ? "no column" : "not an array");
            goto bad;
        }
        c->table[j] = t;
    }
    if (format >= 5 && ug_shapes_open(c, shapes, err, errlen) != 0) goto bad;
    c->shaped = format >= 5;
    return 0;
bad:
    ug_columns_close(c);
    return -1;
}

void ug_columns_close(ug_columns *c)
{
    for (size_t i = 0; c->shape && i < c->n_shapes; i++) free(c->shape[i]);
    free(c->shape);
    free(c->shape_len);
    free(c->key);
    free(c->table);
    memset(c, 0, sizeof *c);
}

/* A member for the row object: a shallow copy of v named key (its children stay v's). */
static void ug_member(ug_json *o, const ug_json *v, const char *key)
{
    ug_json *m = ug_xmalloc(sizeof *m);
    *m = *v;
    m->key = (char *)key;
    o->items[o->count++] = m;
}

ug_json *ug_columns_row(const ug_columns *c, const ug_json *row, char *err, size_t errlen)
{
    if (!row || row->type != UG_JSON_ARR) {
        snprintf(err, errlen, "a row is %s, not an array of the columns' values",
                 row ? ug_json_type_name(row->type) : "missing");
        return NULL;
    }
    size_t nv = row->count, first = 0, sh = 0;
    const ug_json *rest = NULL;
    if (nv && row->items[nv - 1]->type == UG_JSON_OBJ) rest = row->items[--nv];
    if (c->shaped) { /* format 5: the shape first, then exactly its columns' values */
        if (!nv || !ug_index_of(row->items[0], c->n_shapes, &sh)) {
            snprintf(err, errlen, "a row's first value is %s, not a shape (0 to %zu)",
                     nv ? ug_json_type_name(row->items[0]->type) : "missing",
                     c->n_shapes ? c->n_shapes - 1 : 0);
            return NULL;
        }
        first = 1;
        if (nv - 1 != c->shape_len[sh]) {
            snprintf(err, errlen, "a row of shape %zu has %zu values, the shape %zu columns", sh,
                     nv - 1, c->shape_len[sh]);
            return NULL;
        }
    } else if (nv > c->n) {
        snprintf(err, errlen, "a row has %zu values, the file %zu columns", nv, c->n);
        return NULL;
    }
    ug_json *o = ug_xcalloc(1, sizeof *o);
    o->type = UG_JSON_OBJ;
    o->items = ug_xcalloc(nv + (rest ? rest->count : 0) + 1, sizeof *o->items);
    for (size_t i = first; i < nv; i++) {
        const ug_json *v = row->items[i];
        size_t col = c->shaped ? c->shape[sh][i - 1] : i, at;
        if (v->type == UG_JSON_NULL) continue; /* left out */
        if (c->table[col]) {
            const ug_json *t = c->table[col];
            if (!ug_index_of(v, t->count, &at)) {
                snprintf(err, errlen, "\"%s\": %s is not an index of its table (0 to %zu)",
                         c->key[col], ug_json_type_name(v->type), t->count ? t->count - 1 : 0);
                goto bad;
            }
            v = t->items[at];
        } else if (v->type == UG_JSON_OBJ) {
            snprintf(err, errlen, "\"%s\": an object where a value goes", c->key[col]);
            goto bad;
        }
        ug_member(o, v, c->key[col]);
    }
    for (size_t i = 0; rest && i < rest->count; i++) {
        for (size_t j = 0; j < o->count; j++)
            if (strcmp(o->items[j]->key, rest->items[i]->key) == 0) {
                snprintf(err, errlen, "\"%.40s\" is both a column and in the row's object",
                         rest->items[i]->key);
                goto bad;
            }
        ug_member(o, rest->items[i], rest->items[i]->key);
    }
    return o;
bad:
    ug_columns_row_free(o);
    return NULL;
}

void ug_columns_row_free(ug_json *o)
{
    if (!o) return;
    for (size_t i = 0; i < o->count; i++) free(o->items[i]);
    free(o->items);
    free(o);
}
