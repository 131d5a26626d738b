/*
 * baseline_lines.c - the grouped line form of a baseline's rows: compact and diff-local.  Each
 * row file of a baseline folder (format 4, baseline_dir.c) is this form under a "part" header;
 * a single-file baseline of format 3 was it with the fingerprints and updates in the same file
 * (still read).
 *
 *   {"part":{"format":4,"device":"cpu-x86_64"},
 *   "columns":["n","status","count","ulp_max","ulp_mean","rel_max","bound_ratio_max","correctly_rounded"],
 *   "defaults":{"backend":"cpu","op":"sum","deterministic":true,"seed":"0x5eed",...},
 *   "checks":[
 *   {"id":"canary/x y","case":"canary/x","point":"y","status":"pass","measured":false,...}],
 *   "groups":[
 *   {"kernel":"kahan_f32@default","case":"reduce/normal","dist":"normal(0,1)","backend":"cpu",...,"rows":[
 *   [1000,"pass",10,0.5,0.125,5.9604644775390625e-08,0.0039,9],
 *   [10000,"pass",10,2.379,...,{"trials":3}]]},
 *   ...]}
 *
 * One group per (kernel, case, distribution), sorted by kernel first: a change to one kernel
 * changes only the lines of its groups.  A group's first line holds what its rows share (the
 * first row's backend, op, deterministic, seed, trials, first_trial, slack, fingerprint), less
 * what equals the file's "defaults" (the most common value of each over its groups); each
 * row is one line of the figures the gate compares, in "columns" order, exact (the shortest
 * decimal that reads back to the same binary64), with a trailing object only where the row has
 * more (GEMM shape, repeats, its loosenings) or differs from its group's first line.  The id is
 * not stored: it is made from case, kernel, dist and n as the run made it (stored only where it
 * would differ).  Check points (rows with no figures) stay whole objects, one a line.
 *
 * Nothing is lost: every row reads back to the row a format 2 file held (the reader rebuilds
 * each row's object and reads it with the same strict row reader), checked by
 * scripts/same_rows.py on the committed baselines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/sys.h"
#include "harness/gate/baseline_rows.h"
#include "harness/results/results_json.h"

/* The figures of a row line, in order (the file names them in "columns"). */
static const char *const ug_cols[] = {"n",       "status",   "count",           "ulp_max",
                                      "ulp_mean", "rel_max", "bound_ratio_max", "correctly_rounded"};
enum { UG_NCOLS = sizeof ug_cols / sizeof ug_cols[0] };
/* The group's key, and what is never shared through a group's first line. */
static const char *const ug_gkey[] = {"kernel", "case", "dist"};
static const char *const ug_own[] = {"id", "measured", "m", "gemm_n", "k", "repeats",
                                     "distinct_results", "loosened", "history"};

static bool ug_in(const char *key, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, set[i]) == 0) return true;
    return false;
}
#define UG_IN(key, set) ug_in(key, set, sizeof set / sizeof set[0])

/* ---- writing --------------------------------------------------------------------------------- */

static const ug_baseline *ug_sort_bl;
/* Measured rows by kernel, case, distribution, n, id; check points (by id) after them. */
static int ug_cmp_line(const void *pa, const void *pb)
{
    const ug_row *a = &ug_sort_bl->res.rows[*(const size_t *)pa];
    const ug_row *b = &ug_sort_bl->res.rows[*(const size_t *)pb];
    if (a->measured != b->measured) return a->measured ? -1 : 1;
    int c;
    if (a->measured) {
        if ((c = strcmp(a->kernel, b->kernel))) return c;
        if ((c = strcmp(a->case_name, b->case_name))) return c;
        if ((c = strcmp(a->dist, b->dist))) return c;
        if (a->shape.dim[0] != b->shape.dim[0]) return a->shape.dim[0] < b->shape.dim[0] ? -1 : 1;
    }
    return strcmp(a->id, b->id);
}

static bool ug_same_group(const ug_row *a, const ug_row *b)
{
    return strcmp(a->kernel, b->kernel) == 0 && strcmp(a->case_name, b->case_name) == 0 &&
           strcmp(a->dist, b->dist) == 0;
}

/* Row i of bl as a parsed object (the format 2 row).  The text is this writer's own: it always
 * parses (a failure is a bug in the writer, reported and stopped, never a silent row lost). */
static ug_json *ug_row_obj(const ug_baseline *bl, size_t i)
{
    ug_buf t = {0};
    char err[200];
    ug_bl_row_json(&t, bl, i);
    ug_json *o = ug_json_parse(ug_buf_str(&t), t.len, err, sizeof err);
    if (!o) {
        fprintf(stderr, "ulpgate: internal error: baseline row %zu does not parse back: %s\n", i,
                err);
        abort();
    }
    ug_buf_free(&t);
    return o;
}

static bool ug_same_value(const ug_json *a, const ug_json *b)
{
    ug_buf x = {0}, y = {0};
    ug_json_write(&x, a);
    ug_json_write(&y, b);
    bool same = x.len == y.len && memcmp(ug_buf_str(&x), ug_buf_str(&y), x.len) == 0;
    ug_buf_free(&x);
    ug_buf_free(&y);
    return same;
}

/* The file's "defaults": per shared field, the value most groups' first rows hold (ties: the
 * one seen first in sort order), so that a group's first line names only what differs: the
 * fingerprint, seed, first trial, ... of most rows are written once, and a new fingerprint for
 * every row (a full update) changes one line, not one per group. */
typedef struct ug_dflt {
    char key[40];
    ug_buf val;           /* the value's JSON text */
    size_t count;
} ug_dflt;

static bool ug_shared_key(const char *key)
{
    return !UG_IN(key, ug_gkey) && !UG_IN(key, ug_cols) && !UG_IN(key, ug_own);
}

/* Count the shared fields of one group's first row (o) into *d (n entries). */
static void ug_dflt_count(ug_dflt **d, size_t *n, const ug_json *o)
{
    for (size_t k = 0; k < o->count; k++) {
        const ug_json *v = o->items[k];
        if (!ug_shared_key(v->key) || strlen(v->key) >= sizeof (*d)[0].key) continue;
        ug_buf t = {0};
        ug_json_write(&t, v);
        size_t i = 0;
        while (i < *n && !(strcmp((*d)[i].key, v->key) == 0 && (*d)[i].val.len == t.len &&
                           memcmp(ug_buf_str(&(*d)[i].val), ug_buf_str(&t), t.len) == 0))
            i++;
        if (i == *n) {
            *d = ug_xrealloc(*d, (*n + 1) * sizeof **d);
            memset(&(*d)[i], 0, sizeof **d);
            snprintf((*d)[i].key, sizeof (*d)[i].key, "%s", v->key);
            (*d)[i].val = t;
            (*n)++;
        } else {
            ug_buf_free(&t);
        }
        (*d)[i].count++;
    }
}

/* Keep the most common value of each key (the first entry of it on a tie), unless more of the
 * n_groups groups lack the key than have that value; the rest count 0. */
static void ug_dflt_pick(ug_dflt *d, size_t n, size_t n_groups)
{
    for (size_t i = 0; i < n; i++) {
        size_t with_key = 0;
        for (size_t j = 0; j < n; j++)
            if (strcmp(d[i].key, d[j].key) == 0) with_key += d[j].count;
        bool lose = n_groups - with_key >= d[i].count;
        for (size_t j = 0; j < n && !lose; j++)
            lose = j != i && strcmp(d[i].key, d[j].key) == 0 &&
                   (d[j].count > d[i].count || (d[j].count == d[i].count && j < i));
        if (lose) d[i].count = 0;
    }
    for (size_t i = 0; i < n; i++)
        if (d[i].count == 0) d[i].key[0] = 0;
}

/* The default's value text of key, or NULL. */
static const ug_buf *ug_dflt_of(const ug_dflt *d, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (d[i].key[0] && strcmp(d[i].key, key) == 0) return &d[i].val;
    return NULL;
}

/* A group's first line: its key and what its first row (o) holds beyond its own fields and the
 * file's defaults (a default it lacks: null). */
static void ug_group_open(ug_buf *b, const ug_json *o, const ug_dflt *d, size_t nd)
{
    ug_buf_printf(b, "{");
    for (size_t k = 0; k < sizeof ug_gkey / sizeof ug_gkey[0]; k++) {
        ug_buf_printf(b, "%s\"%s\":", k ? "," : "", ug_gkey[k]);
        ug_json_write(b, ug_json_get(o, ug_gkey[k]));
    }
    for (size_t k = 0; k < o->count; k++) {
        const ug_json *v = o->items[k];
        if (!ug_shared_key(v->key)) continue;
        const ug_buf *dv = ug_dflt_of(d, nd, v->key);
        ug_buf t = {0};
        ug_json_write(&t, v);
        if (!dv || dv->len != t.len || memcmp(ug_buf_str(dv), ug_buf_str(&t), t.len) != 0) {
            ug_buf_printf(b, ",");
            ug_buf_json_str(b, v->key);
            ug_buf_printf(b, ":%s", ug_buf_str(&t));
        }
        ug_buf_free(&t);
    }
    for (size_t i = 0; i < nd; i++)
        if (d[i].key[0] && !ug_json_get(o, d[i].key)) ug_buf_printf(b, ",\"%s\":null", d[i].key);
    ug_buf_printf(b, ",\"rows\":[");
}

/* A row line: the columns, then what the row holds that its group's first line (head) does
 * not say: its own fields, any field of another value, null for a field it lacks. */
static void ug_row_line(ug_buf *b, const ug_json *o, const ug_json *head, bool id_derived)
{
    ug_buf_printf(b, "[");
    for (size_t c = 0; c < UG_NCOLS; c++) {
        ug_buf_printf(b, "%s", c ? "," : "");
        ug_json_write(b, ug_json_get(o, ug_cols[c]));
    }
    bool any = false;
    for (size_t k = 0; k < o->count; k++) {
        const ug_json *v = o->items[k], *h = ug_json_get(head, v->key);
        if (UG_IN(v->key, ug_gkey) || UG_IN(v->key, ug_cols)) continue;
        if (strcmp(v->key, "measured") == 0 || (strcmp(v->key, "id") == 0 && id_derived)) continue;
        if (!UG_IN(v->key, ug_own) && h && ug_same_value(v, h)) continue;
        ug_buf_printf(b, "%s", any ? "," : ",{");
        ug_buf_json_str(b, v->key);
        ug_buf_printf(b, ":");
        ug_json_write(b, v);
        any = true;
    }
    for (size_t k = 0; k < head->count; k++) {
        const ug_json *h = head->items[k];
        if (UG_IN(h->key, ug_gkey) || UG_IN(h->key, ug_cols) || UG_IN(h->key, ug_own)) continue;
        if (ug_json_get(o, h->key)) continue;
        ug_buf_printf(b, "%s", any ? "," : ",{");
        ug_buf_json_str(b, h->key);
        ug_buf_printf(b, ":null");
        any = true;
    }
    ug_buf_printf(b, "%s]", any ? "}" : "");
}

void ug_bl_lines_body(const ug_baseline *bl, const size_t *rows, size_t n, ug_buf *b)
{
    size_t *order = ug_xcalloc(n + 1, sizeof *order);
    memcpy(order, rows, n * sizeof *order);
    ug_sort_bl = bl;
    qsort(order, n, sizeof *order, ug_cmp_line);
    ug_buf_printf(b, "\"columns\":[");
    for (size_t c = 0; c < UG_NCOLS; c++) ug_buf_printf(b, "%s\"%s\"", c ? "," : "", ug_cols[c]);
    size_t n_meas = 0;
    while (n_meas < n && bl->res.rows[order[n_meas]].measured) n_meas++;
    ug_dflt *d = NULL;
    size_t nd = 0, n_groups = 0;
    for (size_t i = 0; i < n_meas; i++) {
        if (i && ug_same_group(&bl->res.rows[order[i]], &bl->res.rows[order[i - 1]])) continue;
        ug_json *o = ug_row_obj(bl, order[i]);
        ug_dflt_count(&d, &nd, o);
        ug_json_free(o);
        n_groups++;
    }
    ug_dflt_pick(d, nd, n_groups);
    ug_buf_printf(b, "],\n\"defaults\":{");
    bool first = true;
    for (size_t i = 0; i < nd; i++) {
        if (!d[i].key[0]) continue;
        ug_buf_printf(b, "%s\"%s\":%s", first ? "" : ",", d[i].key, ug_buf_str(&d[i].val));
        first = false;
    }
    ug_buf_printf(b, "},\n\"checks\":[");
    for (size_t i = n_meas; i < n; i++) {
        ug_buf_printf(b, "%s\n", i > n_meas ? "," : "");
        ug_bl_row_json(b, bl, order[i]);
    }
    ug_buf_printf(b, "],\n\"groups\":[");
    ug_json *head = NULL;
    for (size_t i = 0; i < n_meas; i++) {
        const ug_row *r = &bl->res.rows[order[i]];
        ug_json *o = ug_row_obj(bl, order[i]);
        bool opens = i == 0 || !ug_same_group(r, &bl->res.rows[order[i - 1]]);
        if (opens) {
            ug_buf_printf(b, "%s\n", i ? "]}," : "");
            ug_json_free(head);
            head = o;
            ug_group_open(b, head, d, nd);
        }
        ug_row again = *r;
        ug_row_make_id(&again);
        ug_buf_printf(b, "%s\n", opens ? "" : ",");
        ug_row_line(b, o, head, strcmp(again.id, r->id) == 0);
        if (o != head) ug_json_free(o);
    }
    ug_json_free(head);
    ug_buf_printf(b, "%s\n]", n_meas ? "]}" : "");
    for (size_t i = 0; i < nd; i++) ug_buf_free(&d[i].val);
    free(d);
    free(order);
}

/* ---- reading --------------------------------------------------------------------------------- */

static const char *ug_type_name(const ug_json *v)
{
    static const char *const names[] = {"null", "a bool", "a number", "a string", "an array",
                                        "an object"};
    return v ? names[v->type] : "missing";
}

/* A shared field of a row: its own value, else its group's, else the file's default (null, or
 * absent everywhere: 0). */
static double ug_line_num(const ug_json *own, const ug_json *g, const ug_json *dflt,
                          const char *key)
{
    const ug_json *v = own ? ug_json_get(own, key) : NULL;
    if (!v) v = ug_json_get(g, key);
    if (!v) v = ug_json_get(dflt, key);
    return ug_json_num_of(v, 0);
}

/* Group g's row r (the array a) as the object a format 2 file held, into out.  0, or -1 with
 * what is wrong in err. */
static int ug_line_obj(const ug_json *dflt, const ug_json *g, const ug_json *a, ug_buf *out,
                       char *err, size_t errlen)
{
    if (!a || a->type != UG_JSON_ARR || (a->count != UG_NCOLS && a->count != UG_NCOLS + 1) ||
        (a->count == UG_NCOLS + 1 && a->items[UG_NCOLS]->type != UG_JSON_OBJ)) {
        snprintf(err, errlen, "a row is not an array of the %d columns (and an object)",
                 (int)UG_NCOLS);
        return -1;
    }
    const ug_json *own = a->count > UG_NCOLS ? a->items[UG_NCOLS] : NULL;
    for (size_t k = 0; own && k < own->count; k++) {
        const char *key = own->items[k]->key;
        if (UG_IN(key, ug_gkey) || UG_IN(key, ug_cols) || strcmp(key, "measured") == 0) {
            snprintf(err, errlen, "a row's object repeats \"%s\" (a column or the group's key)",
                     key);
            return -1;
        }
    }
    /* the id, as the run made it, unless the row says it */
    ug_row s;
    memset(&s, 0, sizeof s);
    s.measured = true;
    snprintf(s.case_name, sizeof s.case_name, "%s", ug_json_str_of(ug_json_get(g, "case"), ""));
    snprintf(s.kernel, sizeof s.kernel, "%s", ug_json_str_of(ug_json_get(g, "kernel"), ""));
    snprintf(s.dist, sizeof s.dist, "%s", ug_json_str_of(ug_json_get(g, "dist"), ""));
    const ug_json *op = own && ug_json_get(own, "op") ? ug_json_get(own, "op")
                        : ug_json_get(g, "op")                ? ug_json_get(g, "op")
                                                              : ug_json_get(dflt, "op");
    snprintf(s.op, sizeof s.op, "%s", ug_json_str_of(op, ""));
    s.shape.dim[0] = (size_t)ug_json_num_of(a->items[0], 0);
    s.shape.dim[1] = (size_t)ug_json_num_of(own ? ug_json_get(own, "gemm_n") : NULL, 0);
    s.shape.dim[2] = (size_t)ug_json_num_of(own ? ug_json_get(own, "k") : NULL, 0);
    /* the dims past K and the batch and head axes (attention's dv, GQA): part of its id */
    static const char *const more[] = {"dim3", "dim4", "dim5"};
    for (int i = 0; i < 3; i++) s.shape.dim[3 + i] = (size_t)ug_line_num(own, g, dflt, more[i]);
    s.shape.batch = (size_t)ug_line_num(own, g, dflt, "batch");
    s.shape.heads = (size_t)ug_line_num(own, g, dflt, "heads");
    s.shape.kv_heads = (size_t)ug_line_num(own, g, dflt, "kv_heads");
    ug_row_make_id(&s);
    ug_buf_printf(out, "{\"id\":");
    if (own && ug_json_get(own, "id"))
        ug_json_write(out, ug_json_get(own, "id"));
    else
        ug_buf_json_str(out, s.id);
    ug_buf_printf(out, ",\"measured\":true");
    /* a shared field: the row's own value, else its group's, else the file's default; null
     * at any level: absent */
    for (size_t k = 0; dflt && k < dflt->count; k++) {
        const ug_json *v = dflt->items[k];
        if (!ug_shared_key(v->key) || ug_json_get(g, v->key) || v->type == UG_JSON_NULL) continue;
        if (own && ug_json_get(own, v->key)) continue;
        ug_buf_printf(out, ",");
        ug_buf_json_str(out, v->key);
        ug_buf_printf(out, ":");
        ug_json_write(out, v);
    }
    for (size_t k = 0; k < g->count; k++) {
        const ug_json *v = g->items[k];
        if (strcmp(v->key, "rows") == 0 || UG_IN(v->key, ug_cols) || UG_IN(v->key, ug_own))
            continue;
        if (v->type == UG_JSON_NULL) continue;
        if (own && ug_json_get(own, v->key)) continue; /* the row's own value, below */
        ug_buf_printf(out, ",");
        ug_buf_json_str(out, v->key);
        ug_buf_printf(out, ":");
        ug_json_write(out, v);
    }
    for (size_t c = 0; c < UG_NCOLS; c++) {
        ug_buf_printf(out, ",\"%s\":", ug_cols[c]);
        ug_json_write(out, a->items[c]);
    }
    for (size_t k = 0; own && k < own->count; k++) {
        const ug_json *v = own->items[k];
        if (strcmp(v->key, "id") == 0 || v->type == UG_JSON_NULL) continue; /* null: absent */
        ug_buf_printf(out, ",");
        ug_buf_json_str(out, v->key);
        ug_buf_printf(out, ":");
        ug_json_write(out, v);
    }
    ug_buf_printf(out, "}");
    return 0;
}

int ug_baseline_read_lines(const char *path, const ug_json *root, ug_baseline *bl, char *err,
                           size_t errlen)
{
    const ug_json *cols = ug_json_get(root, "columns"), *checks = ug_json_get(root, "checks"),
                  *groups = ug_json_get(root, "groups"), *dflt = ug_json_get(root, "defaults");
    if (dflt && dflt->type != UG_JSON_OBJ) {
        snprintf(err, errlen, "%s: \"defaults\" is %s, not an object", path, ug_type_name(dflt));
        return -1;
    }
    bool cols_ok = cols && cols->type == UG_JSON_ARR && cols->count == UG_NCOLS;
    for (size_t c = 0; cols_ok && c < UG_NCOLS; c++)
        cols_ok = strcmp(ug_json_str_of(cols->items[c], ""), ug_cols[c]) == 0;
    if (!cols_ok) {
        snprintf(err, errlen, "%s: \"columns\" is not [\"n\", \"status\", \"count\", \"ulp_max\", "
                              "\"ulp_mean\", \"rel_max\", \"bound_ratio_max\", "
                              "\"correctly_rounded\"] (baseline format %d)",
                 path, UG_BASELINE_FORMAT);
        return -1;
    }
    if (!checks || checks->type != UG_JSON_ARR || !groups || groups->type != UG_JSON_ARR) {
        snprintf(err, errlen, "%s: a baseline of format %d needs a \"checks\" and a \"groups\" "
                              "array (%s, %s)",
                 path, UG_BASELINE_FORMAT, ug_type_name(checks), ug_type_name(groups));
        return -1;
    }
    /* room for this file's rows at once: grown a row at a time, the 3 KB rows were copied
     * again at every doubling (a quarter of a baseline's reading) */
    size_t more = checks->count;
    for (size_t gi = 0; gi < groups->count; gi++) {
        const ug_json *rows = ug_json_get(groups->items[gi], "rows");
        if (rows && rows->type == UG_JSON_ARR) more += rows->count;
    }
    ug_baseline_reserve(bl, bl->res.count + more);
    size_t at = 0; /* the row's index in this file, for messages */
    for (size_t i = 0; i < checks->count; i++, at++)
        if (ug_baseline_take_row(path, at, checks->items[i], UG_RESULTS_FORMAT, bl, err, errlen))
            return -1;
    ug_buf t = {0};
    int rc = 0;
    for (size_t gi = 0; gi < groups->count && rc == 0; gi++) {
        const ug_json *g = groups->items[gi], *rows = ug_json_get(g, "rows");
        if (g->type != UG_JSON_OBJ || !rows || rows->type != UG_JSON_ARR ||
            ug_json_get(g, "kernel") == NULL || ug_json_get(g, "case") == NULL ||
            ug_json_get(g, "dist") == NULL) {
            snprintf(err, errlen, "%s: group %zu is not an object with \"kernel\", \"case\", "
                                  "\"dist\" and a \"rows\" array",
                     path, gi);
            rc = -1;
            break;
        }
        for (size_t r = 0; r < rows->count && rc == 0; r++, at++) {
            char why[300];
            t.len = 0;
            if (ug_line_obj(dflt, g, rows->items[r], &t, why, sizeof why) != 0) {
                snprintf(err, errlen, "%s: group %zu (%.64s %.128s %.64s), row %zu: %s", path, gi,
                         ug_json_str_of(ug_json_get(g, "kernel"), "?"),
                         ug_json_str_of(ug_json_get(g, "case"), "?"),
                         ug_json_str_of(ug_json_get(g, "dist"), "?"), r, why);
                rc = -1;
                break;
            }
            ug_json *o = ug_json_parse(ug_buf_str(&t), t.len, why, sizeof why);
            if (!o) {
                snprintf(err, errlen, "%s: group %zu, row %zu: %s", path, gi, r, why);
                rc = -1;
                break;
            }
            rc = ug_baseline_take_row(path, at, o, UG_RESULTS_FORMAT, bl, err, errlen);
            ug_json_free(o);
        }
    }
    ug_buf_free(&t);
    bl->n_points += at;
    return rc;
}
