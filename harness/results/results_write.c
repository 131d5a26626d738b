/*
 * results_write.c - a results list as results.json text: {"format": 5, "meta": {...},
 * "summary": {...}, "units": [...], "columns": [...], "shapes": [...], "tables": {...},
 * "results": [row, ...]},
 * rows from the schema (row_fields.h), one array a row (results_columns.c).  results_json.c reads it back; harness/run/report_write.c writes the meta
 * block and the file.
 *
 * Numbers: finite values exactly (the shortest of %.15g/%.16g/%.17g that reads back to the same
 * binary64: ug_buf_json_num); non-finite ones as the strings "inf", "-inf", "nan"
 * (base/buf.h).  The seed is a hex string ("0x5eed"): a JSON number would lose its low bits.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/sys.h"
#include "harness/results/results_columns.h"
#include "harness/results/results_json.h"

static void ug_key(ug_buf *b, bool *first, const char *key)
{
    ug_buf_printf(b, "%s\"%s\":", *first ? "" : ",", key);
    *first = false;
}

static void ug_kv_num(ug_buf *b, const char *key, double v)
{
    ug_buf_printf(b, ",\"%s\":", key);
    ug_buf_json_num(b, v);
}

bool ug_results_detail = false;

bool ug_row_in_full(const ug_row *r)
{
    return ug_results_detail || r->status == UG_ST_FAIL || r->status == UG_ST_XPASS;
}

/* One field's value (no key). */
static void ug_field_value(ug_buf *b, const ug_field *f, const ug_row *r)
{
    const char *p = (const char *)r + f->offset;
    switch (f->type) {
    case UG_FT_STR: ug_buf_json_str(b, p); break;
    case UG_FT_BOOL: ug_buf_printf(b, "%s", *(const bool *)p ? "true" : "false"); break;
    case UG_FT_SEED: ug_buf_printf(b, "\"0x%llx\"", (unsigned long long)*(const uint64_t *)p); break;
    case UG_FT_STATUS: ug_buf_json_str(b, ug_status_name(*(const ug_status *)p)); break;
    case UG_FT_PASSED: {
        ug_status s = *(const ug_status *)p;
        ug_buf_printf(b, "%s", s == UG_ST_PASS || s == UG_ST_XFAIL ? "true" : "false");
        break;
    }
    default: ug_buf_json_num(b, ug_row_num(r, f)); break;
    }
}

/* One field of the schema (its key and value). */
static void ug_field_json(ug_buf *b, bool *first, const ug_field *f, const ug_row *r)
{
    ug_key(b, first, f->key);
    ug_field_value(b, f, r);
}

/* A compact file's "defaults" (UG_FF_DFLT, row_fields.h): per schema field, the JSON text of
 * the value most of the file's compact rows have ("" for none), set by ug_report_json while it
 * writes its rows, so that ug_row_json_open leaves that value out of them; off otherwise (a
 * baseline, a --detail file, a row written on its own). */
enum { UG_DFLT_MAX = 64, UG_DFLT_LEN = 192, UG_DFLT_CAND = 8 };
static char ug_dflt[UG_DFLT_MAX][UG_DFLT_LEN];
static bool ug_dflt_on;
static const ug_row *ug_prev; /* the row written before, for UG_FF_PREV (NULL: none) */
/* Writing a format 4 or 5 file (ug_report_json): an id that ug_row_make_id makes back is left out
 * (the reader makes it), and case and dist are always written (a table holds each once), so
 * no row takes a value from the row before (UG_FF_RUN: format 3 only). */
static bool ug_fmt4;

/* Pick the defaults of res's compact rows: per UG_FF_DFLT field the most common of its first
 * UG_DFLT_CAND distinct values, when at least two rows share it.  O(rows x fields x
 * UG_DFLT_CAND) string compares: a few ms for a default run. */
static void ug_defaults_pick(const ug_results *res)
{
    ug_buf v = {0};
    memset(ug_dflt, 0, sizeof ug_dflt);
    for (size_t i = 0; i < ug_n_row_fields && i < UG_DFLT_MAX; i++) {
        const ug_field *f = &ug_row_fields[i];
        if (!(f->flags & UG_FF_DFLT)) continue;
        char cand[UG_DFLT_CAND][UG_DFLT_LEN];
        size_t cnt[UG_DFLT_CAND] = {0}, nc = 0, best = 0;
        for (size_t j = 0; j < res->count; j++) {
            const ug_row *r = &res->rows[j];
            if (ug_row_in_full(r) || !ug_field_in(f, r, false)) continue;
            ug_buf_clear(&v);
            ug_field_value(&v, f, r);
            if (v.len >= UG_DFLT_LEN) continue;
            size_t c = 0;
            while (c < nc && strcmp(cand[c], v.s) != 0) c++;
            if (c == nc && nc == UG_DFLT_CAND) continue;
            if (c == nc) memcpy(cand[nc++], v.s, v.len + 1);
            cnt[c]++;
        }
        for (size_t c = 1; c < nc; c++)
            if (cnt[c] > cnt[best]) best = c;
        if (nc && cnt[best] >= 2) memcpy(ug_dflt[i], cand[best], strlen(cand[best]) + 1);
    }
    ug_buf_free(&v);
}

/* Whether a compact row leaves field i out: its value is the file's default. */
static bool ug_field_is_default(size_t i, const ug_row *r)
{
    if (!ug_dflt_on || i >= UG_DFLT_MAX || !ug_dflt[i][0]) return false;
    ug_buf v = {0};
    ug_field_value(&v, &ug_row_fields[i], r);
    bool same = strcmp(v.s, ug_dflt[i]) == 0;
    ug_buf_free(&v);
    return same;
}

/* The row's "extra" object: the schema's UG_FF_EXTRA fields, then the case's own figures (a
 * case's name that is a schema key is left out: the schema's value is the row's). */
static void ug_extra_json(ug_buf *b, const ug_row *r)
{
    bool first = true, full = ug_row_in_full(r);
    for (size_t i = 0; i < ug_n_row_fields; i++) {
        const ug_field *f = &ug_row_fields[i];
        if (!(f->flags & UG_FF_EXTRA) || !ug_field_in(f, r, false)) continue;
        if ((f->flags & UG_FF_DETAIL) && !full) continue;
        ug_buf_printf(b, "%s", first ? ",\"extra\":{" : "");
        ug_field_json(b, &first, f, r);
    }
    ug_row_case_extras_json(b, r, &first);
    if (!first) ug_buf_printf(b, "}");
}

void ug_row_json_open(ug_buf *b, const ug_row *r, bool baseline)
{
    bool first = true, full = baseline || ug_row_in_full(r);
    ug_buf_printf(b, "{");
    char derived[sizeof r->point];
    if (r->measured) ug_row_point_derived(r, derived, sizeof derived);
    ug_row again = *r; /* UG_FF_RUN fields go only where the reader can check them by the id */
    ug_row_make_id(&again);
    bool id_made = strcmp(again.id, r->id) == 0;
    for (size_t i = 0; i < ug_n_row_fields; i++) {
        const ug_field *f = &ug_row_fields[i];
        if ((f->flags & UG_FF_DETAIL) && !full) continue;
        if (ug_fmt4 && !baseline && id_made && f->offset == offsetof(ug_row, id)) continue;
        if (!full && ug_dflt_on && (f->flags & UG_FF_DFLT) && ug_field_is_default(i, r)) continue;
        /* a compact row's point, named the usual way: made back by the reader */
        if (!full && ug_dflt_on && r->measured && f->offset == offsetof(ug_row, point) &&
            strcmp(r->point, derived) == 0)
            continue;
        if (!full && ug_dflt_on && !ug_fmt4 && (f->flags & UG_FF_RUN) && ug_prev && id_made &&
            strcmp((const char *)ug_prev + f->offset, (const char *)r + f->offset) == 0)
            continue;
        if (!full && ug_dflt_on && (f->flags & UG_FF_PREV) && ug_row_same_inputs(ug_prev, r) &&
            memcmp((const char *)ug_prev + f->offset, (const char *)r + f->offset, sizeof(double)) == 0)
            continue;
        double d;
        if (!full && ug_dflt_on && (f->flags & UG_FF_DERIV) && ug_row_rate_derived(r, f, &d) &&
            memcmp(&d, (const char *)r + f->offset, sizeof d) == 0)
            continue;
        if (!(f->flags & UG_FF_EXTRA) && ug_field_in(f, r, baseline)) ug_field_json(b, &first, f, r);
    }
    if (baseline) return;
    ug_row_nested_json(b, r, full, !full && ug_dflt_on);
    ug_extra_json(b, r);
}

void ug_report_json(ug_buf *b, const char *meta, const char *shard, const ug_results *res)
{
    ug_buf_printf(b, "{\"format\":%d,\"detail\":%s,", UG_RESULTS_FORMAT,
                  ug_results_detail ? "true" : "false");
    if (!ug_results_detail) { /* a compact file: the rows' common values, once */
        ug_defaults_pick(res);
        bool first = true;
        ug_buf_printf(b, "\"defaults\":{");
        for (size_t i = 0; i < ug_n_row_fields && i < UG_DFLT_MAX; i++)
            if (ug_dflt[i][0]) {
                ug_key(b, &first, ug_row_fields[i].key);
                ug_buf_printf(b, "%s", ug_dflt[i]);
            }
        ug_buf_printf(b, "},");
        ug_dflt_on = true;
    }
    ug_buf_printf(b, "\"meta\":%s", meta);
    if (shard) ug_buf_printf(b, "%s", shard);
    ug_buf_printf(b, ",\n\"summary\":{\"passed\":%d,\"failed\":%d,\"skipped\":%d,\"xfailed\":%d,"
                     "\"xpassed\":%d},\n\"units\":[",
                  res->passed, res->failed, res->skipped, res->xfailed, res->xpassed);
    for (size_t i = 0; i < res->n_units; i++) {
        ug_buf_printf(b, "%s{\"name\":", i ? "," : "");
        ug_buf_json_str(b, res->units[i].name);
        ug_kv_num(b, "seconds", res->units[i].seconds);
        ug_buf_printf(b, "}");
    }
    ug_buf_printf(b, "],\n");
    /* each row as the object format 3 wrote, parsed, then recast as columns (format 5) */
    ug_json **obj = ug_xcalloc(res->count ? res->count : 1, sizeof *obj);
    ug_buf row = {0};
    ug_fmt4 = true;
    for (size_t i = 0; i < res->count; i++) {
        char err[200];
        ug_buf_clear(&row);
        ug_prev = i ? &res->rows[i - 1] : NULL;
        ug_row_json_open(&row, &res->rows[i], false);
        ug_buf_printf(&row, "}");
        obj[i] = ug_json_parse(ug_buf_str(&row), row.len, err, sizeof err);
        if (!obj[i]) { /* a bug of the writer above, never bad input: stop loudly */
            fprintf(stderr, "ulpgate: results.json: row %zu (%s) wrote text it cannot read: %s\n",
                    i, res->rows[i].id, err);
            abort();
        }
    }
    ug_columns_write(b, obj, res->count);
    ug_buf_printf(b, "}\n");
    for (size_t i = 0; i < res->count; i++) ug_json_free(obj[i]);
    free(obj);
    ug_buf_free(&row);
    ug_fmt4 = false;
    ug_dflt_on = false;
    ug_prev = NULL;
}
