/*
 * results_write.c - a results list as results.json text: {"format": 2, "meta": {...},
 * "summary": {...}, "units": [...], "results": [row, ...]}, rows from the schema
 * (row_fields.h).  results_json.c reads it back; harness/run/report_write.c writes the meta
 * block and the file.
 *
 * Numbers: finite values exactly (the shortest of %.15g/%.16g/%.17g that reads back to the same
 * binary64: ug_buf_json_num); non-finite ones as the strings "inf", "-inf", "nan"
 * (base/buf.h).  The seed is a hex string ("0x5eed"): a JSON number would lose its low bits.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
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

/* One field of the schema (its key and value). */
static void ug_field_json(ug_buf *b, bool *first, const ug_field *f, const ug_row *r)
{
    const char *p = (const char *)r + f->offset;
    ug_key(b, first, f->key);
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
    for (size_t i = 0; i < ug_n_row_fields; i++) {
        const ug_field *f = &ug_row_fields[i];
        if ((f->flags & UG_FF_DETAIL) && !full) continue;
        if (!(f->flags & UG_FF_EXTRA) && ug_field_in(f, r, baseline)) ug_field_json(b, &first, f, r);
    }
    if (baseline) return;
    ug_row_nested_json(b, r, full);
    ug_extra_json(b, r);
}

void ug_report_json(ug_buf *b, const char *meta, const char *shard, const ug_results *res)
{
    ug_buf_printf(b, "{\"format\":%d,\"detail\":%s,\"meta\":%s", UG_RESULTS_FORMAT,
                  ug_results_detail ? "true" : "false", meta);
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
    ug_buf_printf(b, "],\n\"results\":[");
    for (size_t i = 0; i < res->count; i++) {
        ug_buf_printf(b, "%s\n", i ? "," : "");
        ug_row_json_open(b, &res->rows[i], false);
        ug_buf_printf(b, "}");
    }
    ug_buf_printf(b, "\n]}\n");
}
