/*
 * row_nested.c - the values of a row that are no scalar field of the schema (row_fields.h),
 * written and read side by side: ulp_hist (16 counts), the worst elements (worst_ulp,
 * worst_bound_ratio: objects) and a case's own figures (ug_row.extra, in the row's "extra"
 * object after the schema's UG_FF_EXTRA fields).  results_write.c and results_json.c call these
 * where the table's fields end.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/parse.h"
#include "harness/results/json_values.h"
#include "harness/results/row_nested.h"

/* ---- the worst elements ---- */

static void ug_kv_num(ug_buf *b, const char *key, double v)
{
    ug_buf_printf(b, ",\"%s\":", key);
    ug_buf_json_num(b, v);
}

static void ug_worst_json(ug_buf *b, const char *name, const ug_row_worst *w)
{
    char h[64];
    if (!w->set) return;
    ug_buf_printf(b, ",\"%s\":{\"trial\":%d,\"element\":%zu,\"got\":", name, w->trial, w->element);
    ug_buf_json_str(b, ug_hex(w->got, h));
    ug_buf_printf(b, ",\"exact\":");
    ug_buf_json_str(b, ug_hex(w->exact, h));
    ug_kv_num(b, "exact_lo", w->exact_lo);
    ug_kv_num(b, "ulp", w->ulp);
    ug_kv_num(b, "rel", w->rel);
    ug_kv_num(b, "abs", w->abs);
    ug_kv_num(b, "bound_ratio", w->bound_ratio);
    ug_buf_printf(b, "}");
}

/* An optional worst-element object (absent: w->set stays false). */
static int ug_worst_read(ug_row_worst *w, const ug_json *o, const char *name, char *err,
                         size_t errlen)
{
    if (!o) return 0;
    if (ug_json_want(o, name, UG_JSON_OBJ, err, errlen) != 0) return -1;
    char why[200];
    const char *hex[2] = {"got", "exact"};
    double *hv[2] = {&w->got, &w->exact};
    const char *fig[5] = {"exact_lo", "ulp", "rel", "abs", "bound_ratio"};
    double *fv[5] = {&w->exact_lo, &w->ulp, &w->rel, &w->abs, &w->bound_ratio};
    if (ug_json_value_int(ug_json_get(o, "trial"), "trial", &w->trial, why, sizeof why) != 0 ||
        ug_json_value_count(ug_json_get(o, "element"), "element", &w->element, why,
                            sizeof why) != 0)
        goto bad;
    for (int i = 0; i < 2; i++) {
        const ug_json *v = ug_json_get(o, hex[i]);
        if (ug_json_want(v, hex[i], UG_JSON_STR, why, sizeof why) != 0) goto bad;
        if (!ug_parse_double(v->str, hv[i])) {
            snprintf(why, sizeof why, "\"%s\" is \"%.40s\", not a number", hex[i], v->str);
            goto bad;
        }
    }
    for (int i = 0; i < 5; i++)
        if (ug_json_figure(o, fig[i], true, fv[i], why, sizeof why) != 0) goto bad;
    w->set = true;
    return 0;
bad:
    snprintf(err, errlen, "\"%s\": %s", name, why);
    return -1;
}

/* ---- ulp_hist and the worst elements of a measured row ---- */

void ug_row_nested_json(ug_buf *b, const ug_row *r, bool full, bool trim)
{
    if (!r->measured) return;
    int nb = 16;
    while (trim && nb > 1 && r->ulp_hist[nb - 1] == 0) nb--;
    ug_buf_printf(b, ",\"ulp_hist\":[");
    for (int i = 0; i < nb; i++)
        ug_buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)r->ulp_hist[i]);
    ug_buf_printf(b, "]");
    if (!full) return; /* the worst elements are detail (ug_results_detail) */
    ug_worst_json(b, "worst_ulp", &r->worst_ulp);
    ug_worst_json(b, "worst_bound_ratio", &r->worst_bound_ratio);
}

int ug_row_nested_read(const ug_json *o, ug_row *r, bool trimmed, char *why, size_t whylen)
{
    if (r->measured) {
        const ug_json *h = ug_json_get(o, "ulp_hist");
        if (ug_json_want(h, "ulp_hist", UG_JSON_ARR, why, whylen) != 0) return -1;
        if (trimmed ? h->count < 1 || h->count > 16 : h->count != 16) {
            snprintf(why, whylen, "\"ulp_hist\" has %zu buckets, not %s", h->count,
                     trimmed ? "1 to 16" : "16");
            return -1;
        }
        for (size_t i = 0; i < h->count; i++) {
            size_t c; /* a uint64_t; size_t is as wide where ulpgate builds */
            if (ug_json_value_count(h->items[i], "ulp_hist", &c, why, whylen) != 0) return -1;
            r->ulp_hist[i] = c;
        }
        if (ug_worst_read(&r->worst_ulp, ug_json_get(o, "worst_ulp"), "worst_ulp", why,
                          whylen) != 0 ||
            ug_worst_read(&r->worst_bound_ratio, ug_json_get(o, "worst_bound_ratio"),
                          "worst_bound_ratio", why, whylen) != 0)
            return -1;
    }
    return ug_row_case_extras_read(ug_json_get(o, "extra"), r, why, whylen);
}

/* ---- a case's own figures, in "extra" ---- */

bool ug_extra_is_field(const char *name)
{
    for (size_t i = 0; i < ug_n_row_fields; i++)
        if ((ug_row_fields[i].flags & UG_FF_EXTRA) && strcmp(ug_row_fields[i].key, name) == 0)
            return true;
    return false;
}

void ug_row_case_extras_json(ug_buf *b, const ug_row *r, bool *first)
{
    for (int e = 0; e < r->n_extra; e++) {
        if (ug_extra_is_field(r->extra[e].name)) continue;
        ug_buf_printf(b, "%s", *first ? ",\"extra\":{" : ",");
        *first = false;
        ug_buf_json_str(b, r->extra[e].name);
        ug_buf_printf(b, ":");
        ug_buf_json_num(b, r->extra[e].value);
    }
}

int ug_row_case_extras_read(const ug_json *x, ug_row *r, char *err, size_t errlen)
{
    for (size_t i = 0; x && i < x->count; i++) {
        const char *name = x->items[i]->key;
        if (ug_extra_is_field(name)) continue;
        if (r->n_extra == (int)(sizeof r->extra / sizeof r->extra[0]) ||
            strlen(name) >= sizeof r->extra[0].name) {
            snprintf(err, errlen, "\"extra\": \"%.40s\": more than %zu figures or too long a name",
                     name, sizeof r->extra / sizeof r->extra[0]);
            return -1;
        }
        char why[200];
        if (ug_json_value_figure(x->items[i], name, &r->extra[r->n_extra].value, why,
                                 sizeof why) != 0) {
            snprintf(err, errlen, "\"extra\": %s", why);
            return -1;
        }
        snprintf(r->extra[r->n_extra].name, sizeof r->extra[0].name, "%s", name);
        r->n_extra++;
    }
    return 0;
}

