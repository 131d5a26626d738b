/*
 * results_json.c - read a results.json (results_write.c writes it) or a baseline's rows back
 * into ug_row structs, for compare, merge, the gate and reports.  The row's fields come from the
 * schema (row_fields.h); the nested values (ulp_hist, the worst elements, the case's own "extra"
 * figures) are read by hand in row_nested.c, beside their writer.
 *
 * Strict: a field the schema says a row has must be there with the right JSON type.  A figure
 * is a JSON number or one of the strings "inf", "-inf", "nan" (how base/buf.h writes non-finite
 * values); a count is a finite non-negative integer.  Anything else - missing, null, "NaN",
 * "abc", a bool - is an error naming the key, never a 0 that the gate would call an improvement.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "base/parse.h"
#include "harness/results/results_columns.h"
#include "harness/results/results_json.h"
#include "harness/results/report_mark.h"
#include "ops/op.h"

static ug_status ug_status_named(const char *s, bool *ok)
{
    static const ug_status all[] = {UG_ST_PASS, UG_ST_FAIL, UG_ST_SKIP, UG_ST_XFAIL, UG_ST_XPASS};
    *ok = true;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, ug_status_name(all[i])) == 0) return all[i];
    *ok = false;
    return UG_ST_FAIL;
}

/* One field of the schema from v (present) into r. */
static int ug_field_read(const ug_field *f, const ug_json *v, ug_row *r, char *err, size_t errlen)
{
    char *p = (char *)r + f->offset;
    const char *k = f->key;
    switch (f->type) {
    case UG_FT_STR:
        if (ug_json_want(v, k, UG_JSON_STR, err, errlen) != 0) return -1;
        if (strlen(v->str) >= f->len) {
            snprintf(err, errlen, "\"%s\" is too long (%zu bytes, at most %zu)", k, strlen(v->str),
                     f->len - 1);
            return -1;
        }
        memcpy(p, v->str, strlen(v->str) + 1);
        return 0;
    case UG_FT_BOOL:
    case UG_FT_PASSED:
        if (ug_json_want(v, k, UG_JSON_BOOL, err, errlen) != 0) return -1;
        if (f->type == UG_FT_BOOL) *(bool *)p = v->b;
        return 0;
    case UG_FT_INT: return ug_json_value_int(v, k, (int *)p, err, errlen);
    case UG_FT_COUNT: return ug_json_value_count(v, k, (size_t *)p, err, errlen);
    case UG_FT_NUM: return ug_json_value_figure(v, k, (double *)p, err, errlen);
    case UG_FT_SEED:
        if (ug_json_want(v, k, UG_JSON_STR, err, errlen) != 0) return -1;
        if (!ug_parse_u64(v->str, (uint64_t *)p)) {
            snprintf(err, errlen, "\"%s\" is \"%.40s\", not a seed (\"0x5eed\")", k, v->str);
            return -1;
        }
        return 0;
    case UG_FT_STATUS: {
        bool ok;
        if (ug_json_want(v, k, UG_JSON_STR, err, errlen) != 0) return -1;
        *(ug_status *)p = ug_status_named(v->str, &ok);
        if (!ok) {
            snprintf(err, errlen, "\"%s\" is \"%.40s\", not pass, fail, skip, xfail or xpass", k,
                     v->str);
            return -1;
        }
        return 0;
    }
    }
    return -1;
}

/* The fields read first: the id (for messages) and those the others' presence depends on
 * (ug_field_in). */
static bool ug_field_controls(const ug_field *f)
{
    return strcmp(f->key, "id") == 0 || strcmp(f->key, "measured") == 0 || strcmp(f->key, "op") == 0 ||
           strcmp(f->key, "repeats") == 0;
}

/* The figures that are sizes of an error (or of a time, a speed, a condition number): never
 * below 0.  NaN (garbage returned) and +inf are figures; -3 or -inf are not, and a negative
 * ulp_max would be "better" than any error at the gate. */
static bool ug_figure_nonneg(const char *key)
{
    static const char *const keys[] = {
        "ulp_max", "ulp_mean", "rel_max", "rel_mean", "abs_max", "abs_err_sum", "rel_err_sum",
        "abs_err_sum_rd", "rel_err_sum_rd", "bound_ratio_max", "bound_ratio_mean",
        "apriori_ratio_max", "prob_ratio_max", "kappa_max", "time_ms", "gbps", "gflops"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0) return true;
    return false;
}

/* What one row's fields say together: no negative error figure, a status its failures and
 * "passed" agree with.  0, or -1 with why naming the field. */
static int ug_row_consistent(const ug_json *o, const ug_row *r, char *err, size_t errlen)
{
    for (size_t i = 0; i < ug_n_row_fields; i++) {
        const ug_field *f = &ug_row_fields[i];
        if (f->type != UG_FT_NUM || !ug_figure_nonneg(f->key)) continue;
        double v = *(const double *)((const char *)r + f->offset);
        if (v < 0) {
            snprintf(err, errlen, "\"%s\" is %.17g: negative, and an error (a time, a speed) "
                                  "never is", f->key, v);
            return -1;
        }
    }
    bool passing = r->status == UG_ST_PASS || r->status == UG_ST_XFAIL;
    /* (a skip may hold failures: a point interrupted after a failed trial is a skip) */
    if ((r->status == UG_ST_PASS || r->status == UG_ST_XPASS) && r->failures > 0) {
        snprintf(err, errlen, "\"status\" is \"%s\" with \"failures\": %d (a point with a "
                              "failed check fails, or is an expected failure)",
                 ug_status_name(r->status), r->failures);
        return -1;
    }
    if (r->status == UG_ST_XFAIL && r->measured && r->failures == 0 && ug_json_get(o, "failures")) {
        snprintf(err, errlen, "\"status\" is \"xfail\" with \"failures\": 0 (an expected "
                              "failure that did not fail is an xpass)");
        return -1;
    }
    const ug_json *p = ug_json_get(o, "passed");
    if (p && p->type == UG_JSON_BOOL && p->b != passing) {
        snprintf(err, errlen, "\"passed\" is %s but \"status\" is \"%s\"",
                 p->b ? "true" : "false", ug_status_name(r->status));
        return -1;
    }
    return 0;
}

static bool ug_cut_names_ok;
static size_t ug_cut_names_whole;

void ug_row_read_cut_names(bool allow) { ug_cut_names_ok = allow; }
size_t ug_row_cut_names_made_whole(void) { return ug_cut_names_whole; }

/* The whole name an older ulpgate cut to 7 bytes (its row held char[8]): the one operation
 * whose name is longer and starts with it; NULL if none or several. */
static const char *ug_op_name_uncut(const char *cut)
{
    const char *whole = NULL;
    if (strlen(cut) != 7) return NULL;
    for (size_t i = 0; i < ug_op_count(); i++) {
        const char *name = ug_op_at(i)->shape->name;
        if (strlen(name) > 7 && strncmp(name, cut, 7) == 0) {
            if (whole) return NULL;
            whole = name;
        }
    }
    return whole;
}

/* A measured row names an operation this ulpgate has (the shape, the rates and the grouping by
 * operation all follow the name): 0, or -1 with the name in why.  Under
 * ug_row_read_cut_names(true) a name cut to 7 bytes is made whole. */
static int ug_row_op_known(ug_row *r, char *why, size_t len)
{
    if (!r->measured || ug_op_find(r->op)) return 0;
    const char *whole = ug_op_name_uncut(r->op);
    if (whole && ug_cut_names_ok) {
        snprintf(r->op, sizeof r->op, "%s", whole);
        ug_cut_names_whole++;
        return 0;
    }
    char names[256];
    if (whole)
        snprintf(why, len, "\"op\" is \"%s\", \"%s\" cut to 7 bytes by an older ulpgate: "
                           "`ulpgate baseline migrate --reason ...` writes it whole", r->op, whole);
    else
        snprintf(why, len, "\"op\" is \"%.40s\", not an operation of this ulpgate (%s)", r->op,
                 ug_op_names(names, sizeof names));
    return -1;
}

int ug_row_read(const ug_json *o, int format, bool baseline, ug_row *r, char *err, size_t errlen)
{
    return ug_row_read_ex(o, format, baseline, false, NULL, NULL, r, err, errlen);
}

int ug_row_read_ex(const ug_json *o, int format, bool baseline, bool compact,
                   const ug_json *dflt, const ug_row *prev, ug_row *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!o || o->type != UG_JSON_OBJ) {
        snprintf(err, errlen, "a row is %s, not an object", o ? ug_json_type_name(o->type) : "missing");
        return -1;
    }
    char why[300];
    const ug_json *x = ug_json_get(o, "extra");
    if (x && ug_json_want(x, "extra", UG_JSON_OBJ, why, sizeof why) != 0) goto bad;
    /* format 1 wrote the UG_FF_EXTRA fields in the row itself */
    const ug_json *xo = format >= 2 ? x : o;
    bool inherited = false, make_id = false;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < ug_n_row_fields; i++) {
            const ug_field *f = &ug_row_fields[i];
            if (pass == 1 && i == 0 && ug_row_op_known(r, why, sizeof why) != 0) goto bad;
            if (ug_field_controls(f) != (pass == 0)) continue;
            ug_when w = baseline ? f->bl : f->res;
            /* a compact file (the default) leaves the detail fields out of passing rows */
            bool optional = w == UG_W_NONZERO || (compact && (f->flags & UG_FF_DETAIL));
            if (!optional && !ug_field_in(f, r, baseline)) continue;
            const ug_json *v = ug_json_get(f->flags & UG_FF_EXTRA ? xo : o, f->key);
            /* format 4 leaves out an id that ug_row_make_id makes (made below) */
            if (!v && format >= 4 && !baseline && f->offset == offsetof(ug_row, id)) {
                make_id = true;
                continue;
            }
            if (!v && compact && dflt && (f->flags & UG_FF_DFLT)) v = ug_json_get(dflt, f->key);
            if (!v && optional) continue;
            /* format 3's compact measured row: a point named the usual way is left out */
            if (!v && compact && format >= 3 && r->measured && f->offset == offsetof(ug_row, point))
                continue;
            /* ... a value the row before has (checked by the id below) */
            if (!v && compact && format == 3 && (f->flags & UG_FF_RUN) && prev) {
                memcpy((char *)r + f->offset, (const char *)prev + f->offset, f->len);
                inherited = true;
                continue;
            }
            /* ... an input's figure the row before, of the same inputs, has */
            if (!v && compact && format >= 3 && (f->flags & UG_FF_PREV) && ug_row_same_inputs(prev, r)) {
                memcpy((char *)r + f->offset, (const char *)prev + f->offset, sizeof(double));
                continue;
            }
            /* ... and a speed the reader makes back from time_ms (read before it) */
            if (!v && compact && format >= 3 && (f->flags & UG_FF_DERIV)) {
                if (!ug_row_rate_derived(r, f, (double *)((char *)r + f->offset))) {
                    snprintf(why, sizeof why, "\"%s\" is missing and cannot be made from "
                                              "\"time_ms\" (operation \"%s\")", f->key, r->op);
                    goto bad;
                }
                continue;
            }
            if (!v && (f->flags & UG_FF_EXTRA) && format >= 2 && !optional) {
                snprintf(why, sizeof why, "\"extra\": \"%s\" is missing", f->key);
                goto bad;
            }
            if (ug_field_read(f, v, r, why, sizeof why) != 0) goto bad;
        }
    if (!baseline && ug_row_nested_read(o, r, compact && format >= 3, why, sizeof why) != 0)
        goto bad;
    if (!r->point[0] && r->measured && compact && format >= 3)
        ug_row_point_derived(r, r->point, sizeof r->point);
    if (make_id) ug_row_make_id(r);
    if (ug_row_consistent(o, r, why, sizeof why) != 0) goto bad;
    if (inherited) {
        ug_row again = *r;
        ug_row_make_id(&again);
        if (strcmp(again.id, r->id) != 0) {
            snprintf(why, sizeof why, "its case or dist, left out as the row before's, does not "
                                      "make its id (a row edited out of a compact file?)");
            goto bad;
        }
    }
    if (compact && r->measured && !r->kernel_name[0]) { /* name@variant: the detail split */
        const char *at = strrchr(r->kernel, '@');
        snprintf(r->kernel_name, sizeof r->kernel_name, "%.*s",
                 at ? (int)(at - r->kernel) : (int)strlen(r->kernel), r->kernel);
        snprintf(r->variant, sizeof r->variant, "%s", at ? at + 1 : "default");
    }
    return 0;
bad:
    snprintf(err, errlen, "%s", why);
    return -1;
}

int ug_format_check(const char *path, const ug_json *head, const char *what, const char *hint,
                    int *format, char *err, size_t errlen)
{
    const ug_json *v = ug_json_get(head, "format");
    *format = 1;
    if (!v) return 0;
    if (v->type != UG_JSON_NUM || !(v->num >= 1 && v->num < 1e6) || v->num != floor(v->num)) {
        snprintf(err, errlen, "%s: \"format\" is not a %s format this ulpgate knows (1 to %d)",
                 path, what, UG_RESULTS_FORMAT);
        return -1;
    }
    *format = (int)v->num;
    if (*format > UG_RESULTS_FORMAT) {
        snprintf(err, errlen, "%s: %s format %d is newer than this ulpgate reads (%d): update "
                              "ulpgate or %s",
                 path, what, *format, UG_RESULTS_FORMAT, hint);
        return -1;
    }
    return 0;
}

const char *ug_meta_limits_text(const ug_json *meta, char *buf, size_t len)
{
    const ug_json *l = ug_json_get(meta, "limits");
    double e = ug_json_num_of(ug_json_get(l, "max_elements"), 0);
    double left = ug_json_num_of(ug_json_get(l, "sizes_left_out"), 0);
    double tr = ug_json_num_of(ug_json_get(l, "max_trials"), 0);
    bool nt = ug_json_bool_of(ug_json_get(l, "no_timing"), false);
    buf[0] = 0;
    if (e > 0)
        snprintf(buf, len, "ULPGATE_MAX_ELEMENTS=%.0f (%.0f size%s left out)", e, left,
                 left == 1 ? "" : "s");
    if (tr > 0)
        snprintf(buf + strlen(buf), len - strlen(buf), "%sULPGATE_MAX_TRIALS=%.0f",
                 buf[0] ? ", " : "", tr);
    if (nt)
        snprintf(buf + strlen(buf), len - strlen(buf), "%sULPGATE_NO_TIMING=1", buf[0] ? ", " : "");
    return buf;
}

/* The run's description and its summary, typed as run.c writes them: a key the gate or merge
 * acts on ("interrupted", "seed", the build's flags, the summary's counts) of another type would
 * read as its default ("interrupted": "true" as false), so it is an error naming the key. */
static int ug_meta_check(const ug_json *root, char *err, size_t errlen)
{
    static const struct { const char *key; ug_json_type type; } meta_keys[] = {
        {"tool", UG_JSON_STR}, {"version", UG_JSON_STR}, {"git", UG_JSON_STR},
        {"date", UG_JSON_STR}, {"host", UG_JSON_STR}, {"arch", UG_JSON_STR},
        {"compiler", UG_JSON_STR}, {"cflags", UG_JSON_STR}, {"build", UG_JSON_OBJ},
        {"nvcc", UG_JSON_STR}, {"nvcc_flags", UG_JSON_STR}, {"cuda_built", UG_JSON_BOOL},
        {"oracle", UG_JSON_STR}, {"seed", UG_JSON_STR}, {"command", UG_JSON_STR},
        {"selection", UG_JSON_OBJ}, {"interrupted", UG_JSON_BOOL}, {"stop_reason", UG_JSON_STR},
        {"device", UG_JSON_STR}, {"gpu", UG_JSON_OBJ}, {"limits", UG_JSON_OBJ}};
    const ug_json *meta = ug_json_get(root, "meta");
    char why[300];
    if (ug_json_want(meta, "meta", UG_JSON_OBJ, err, errlen) != 0) return -1;
    for (size_t i = 0; i < sizeof meta_keys / sizeof meta_keys[0]; i++) {
        const ug_json *v = ug_json_get(meta, meta_keys[i].key);
        if (v && ug_json_want(v, meta_keys[i].key, meta_keys[i].type, why, sizeof why) != 0) {
            snprintf(err, errlen, "meta: %s", why);
            return -1;
        }
    }
    const ug_json *lim = ug_json_get(meta, "limits");
    static const char *const caps[] = {"max_elements", "sizes_left_out", "max_trials"};
    for (size_t k = 0; lim && k < sizeof caps / sizeof caps[0]; k++) {
        const ug_json *v = ug_json_get(lim, caps[k]);
        size_t c;
        if (v && ug_json_value_count(v, caps[k], &c, why, sizeof why) != 0) {
            snprintf(err, errlen, "meta: limits: %s", why);
            return -1;
        }
    }
    const ug_json *nt = ug_json_get(lim, "no_timing");
    if (nt && ug_json_want(nt, "no_timing", UG_JSON_BOOL, why, sizeof why) != 0) {
        snprintf(err, errlen, "meta: limits: %s", why);
        return -1;
    }
    const ug_json *sum = ug_json_get(root, "summary");
    if (sum && ug_json_want(sum, "summary", UG_JSON_OBJ, err, errlen) != 0) return -1;
    static const char *const counts[] = {"passed", "failed", "skipped", "xfailed", "xpassed"};
    for (size_t k = 0; sum && k < sizeof counts / sizeof counts[0]; k++) {
        const ug_json *v = ug_json_get(sum, counts[k]);
        size_t c;
        if (v && ug_json_value_count(v, counts[k], &c, why, sizeof why) != 0) {
            snprintf(err, errlen, "summary: %s", why);
            return -1;
        }
    }
    return 0;
}

ug_json *ug_results_read(const char *path, ug_results *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    /* a report folder whose run has not finished (or was killed): not one run's files */
    if (ug_report_in_progress(path, err, errlen) != 0) return NULL;
    ug_json *root = ug_json_parse_file(path, err, errlen);
    if (!root) return NULL;
    int format;
    char why[600];
    if (ug_format_check(path, root, "results",
                        "regenerate the file with 'ulpgate run --report DIR'", &format, err,
                        errlen) != 0)
        goto fail;
    const ug_json *rows = ug_json_get(root, "results");
    if (!ug_json_get(root, "meta") || !rows || rows->type != UG_JSON_ARR) {
        snprintf(err, errlen, "%s: not a results.json (no \"meta\" object or \"results\" array)", path);
        goto fail;
    }
    if (format == 1 && rows->count && !ug_json_get(rows->items[0], "measured") &&
        !ug_json_get(rows->items[0], "status")) { /* the layout of the first runs */
        snprintf(err, errlen, "%s: rows without \"status\" and \"measured\": a results.json "
                              "older than results format 1, which this ulpgate does not read: "
                              "regenerate the file with 'ulpgate run --report DIR'", path);
        goto fail;
    }
    if (ug_meta_check(root, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        goto fail;
    }
    const ug_json *units = ug_json_get(root, "units");
    for (size_t i = 0; units && units->type == UG_JSON_ARR && i < units->count; i++) {
        const ug_json *u = units->items[i], *name = ug_json_get(u, "name");
        double s;
        if (ug_json_want(name, "name", UG_JSON_STR, why, sizeof why) != 0 ||
            ug_json_figure(u, "seconds", true, &s, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: unit %zu: %s", path, i, why);
            goto fail;
        }
        ug_results_add_unit(res, name->str, s);
    }
    /* "detail": false marks a compact file (the default of `run`): its passing rows leave the
     * UG_FF_DETAIL fields out.  Absent (older files) or true: every row is in full. */
    const ug_json *detail = ug_json_get(root, "detail");
    if (detail && detail->type != UG_JSON_BOOL) {
        snprintf(err, errlen, "%s: \"detail\" is %s, not true or false", path,
                 ug_json_type_name(detail->type));
        goto fail;
    }
    bool compact = detail && !detail->b;
    /* format 3: a compact file's "defaults", the values its rows leave out (UG_FF_DFLT) */
    const ug_json *dflt = ug_json_get(root, "defaults");
    if (dflt && (dflt->type != UG_JSON_OBJ || !compact)) {
        snprintf(err, errlen, "%s: \"defaults\" is %s, not an object of a compact file "
                              "(\"detail\": false)", path, ug_json_type_name(dflt->type));
        goto fail;
    }
    /* format 4 and 5: rows are arrays of the file's "columns" (an object row, as a script that
     * rewrote the file may leave, is read as in format 3) */
    ug_columns cols = {0};
    if (format >= 4 && ug_columns_open(&cols, root, format, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        goto fail;
    }
    for (size_t i = 0; i < rows->count; i++) {
        ug_row r;
        memset(&r, 0, sizeof r);
        const ug_row *prev = res->count ? &res->rows[res->count - 1] : NULL;
        const ug_json *item = rows->items[i];
        ug_json *o = NULL;
        if (format >= 4 && item->type == UG_JSON_ARR &&
            !(o = ug_columns_row(&cols, item, why, sizeof why))) {
            snprintf(err, errlen, "%s: result %zu: %s", path, i, why);
            ug_columns_close(&cols);
            goto fail;
        }
        int rc = ug_row_read_ex(o ? o : item, format, false, compact, dflt, prev, &r, why, sizeof why);
        ug_columns_row_free(o);
        if (rc != 0) {
            snprintf(err, errlen, "%s: result %zu%s%.200s%s: %s", path, i, r.id[0] ? " (" : "",
                     r.id, r.id[0] ? ")" : "", why);
            ug_columns_close(&cols);
            goto fail;
        }
        ug_results_add(res, &r);
    }
    ug_columns_close(&cols);
    return root;
fail:
    ug_results_free(res);
    ug_json_free(root);
    return NULL;
}
