/*
 * results_checks.c - the results schema (harness/results/row_fields.h) and its reader: every
 * field of the table written and read back equal (the table iterated, so a new field is covered
 * by itself), in a results.json and in a baseline; the "extra" object; a format 1 file read; a
 * newer format refused; every kind of bad figure refused with its key named, never read as 0.
 * One case per property of one schema, sharing the row builders at the top: kept in one file
 * (past the ~650 lines of a layer's file) because every case builds its rows with them; a new
 * property with builders of its own goes into a file of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"
#include "harness/results/results_columns.h"
#include "harness/results/results_json.h"
#include "harness/run/run.h"
#include "harness/run/ug.h"

/* Row i of a results.json document of format 4 or 5 as the object it stands for (results_columns.c);
 * free with ug_columns_row_free. */
static ug_json *ug_row_object(const ug_json *root, size_t i)
{
    ug_columns c;
    char e[200];
    if (ug_columns_open(&c, root, (int)ug_json_num_of(ug_json_get(root, "format"), 0), e, sizeof e) != 0)
        return NULL;
    ug_json *o = ug_columns_row(&c, ug_json_get(root, "results")->items[i], e, sizeof e);
    ug_columns_close(&c);
    return o;
}

/* Write text to a fresh temporary file; its path in path (PATH_MAX-free: a fixed template). */
static int ug_tmp_write(char path[32], const char *text)
{
    snprintf(path, 32, "/tmp/ug_results_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    size_t len = strlen(text);
    int rc = write(fd, text, len) == (ssize_t)len ? 0 : -1;
    close(fd);
    return rc;
}

/* Every field of the schema set to a value of its own (k: a salt, so that two rows differ),
 * plus the nested values; a measured row of op `op` with repeats, so that every conditional
 * field is written. */
static void ug_fill_row(ug_row *r, const char *op, int k)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < ug_n_row_fields; i++) {
        const ug_field *f = &ug_row_fields[i];
        char *p = (char *)r + f->offset;
        double v = 3 + (double)i + 100 * k;
        switch (f->type) {
        case UG_FT_STR: snprintf(p, f->len, "%s-%d", f->key, k); break;
        case UG_FT_BOOL: *(bool *)p = true; break;
        case UG_FT_INT: *(int *)p = (int)v; break;
        case UG_FT_COUNT: *(size_t *)p = (size_t)v + ((size_t)1 << 40); break;
        case UG_FT_SEED: *(uint64_t *)p = 0xfedcba9876543210ull + (uint64_t)i; break;
        case UG_FT_NUM: *(double *)p = v + 0x1p-30; break;
        case UG_FT_STATUS: *(ug_status *)p = UG_ST_XFAIL; break;
        case UG_FT_PASSED: break;
        }
    }
    snprintf(r->op, sizeof r->op, "%s", op);
    r->measured = true;
    /* the non-finite spellings round-trip too */
    r->rel_mean = INFINITY;
    r->prob_lambda = -INFINITY; /* a figure that may be negative (an error may not) */
    r->prob_failure = NAN;
    for (int i = 0; i < 16; i++) r->ulp_hist[i] = (uint64_t)(i * 1000 + k);
    r->worst_ulp = (ug_row_worst){true, 7 + k, 12345, 1.5, 0x1.000001p0, -0x1p-60, 2.5, 1e-7, 3e-8, 0.25};
    r->worst_bound_ratio = (ug_row_worst){true, 1, 2, -3.0, 4.0, 0, 5, 6, 7, 8};
    r->n_extra = 2;
    snprintf(r->extra[0].name, sizeof r->extra[0].name, "out_hash_hi");
    r->extra[0].value = 4294967295.0;
    snprintf(r->extra[1].name, sizeof r->extra[1].name, "post_mean_err");
    r->extra[1].value = 0.125 + k;
}

/* Whether field f of a and b holds the same bits. */
static bool ug_field_same(const ug_field *f, const ug_row *a, const ug_row *b)
{
    size_t size = f->type == UG_FT_STR ? strlen((const char *)a + f->offset) + 1
                  : f->type == UG_FT_BOOL ? sizeof(bool)
                  : f->type == UG_FT_INT ? sizeof(int)
                  : f->type == UG_FT_COUNT ? sizeof(size_t)
                  : f->type == UG_FT_NUM || f->type == UG_FT_SEED ? 8
                                                                  : sizeof(ug_status);
    return memcmp((const char *)a + f->offset, (const char *)b + f->offset, size) == 0;
}

static bool ug_worst_same(const ug_row_worst *a, const ug_row_worst *b)
{
    return a->set == b->set && a->trial == b->trial && a->element == b->element &&
           a->got == b->got && a->exact == b->exact && a->exact_lo == b->exact_lo &&
           a->ulp == b->ulp && a->rel == b->rel && a->abs == b->abs && a->bound_ratio == b->bound_ratio;
}

UG_CASE(results_schema, every_field_round_trips)
{
    ug_results res = {0}, back;
    ug_row rows[2];
    ug_fill_row(&rows[0], "sum", 0);
    ug_fill_row(&rows[1], "gemm", 1);
    ug_results_add(&res, &rows[0]);
    ug_results_add(&res, &rows[1]);
    ug_buf text = {0};
    ug_results_detail = true; /* every field: `run --detail` */
    ug_report_json(&text, "{}", NULL, &res);
    ug_results_detail = false;
    char path[32], err[1200];
    UG_ASSERT(ug_tmp_write(path, ug_buf_str(&text)) == 0);
    ug_json *root = ug_results_read(path, &back, err, sizeof err);
    UG_ASSERT_MSG(root != NULL, "%s", err);
    UG_ASSERT(back.count == 2);
    /* every field of the table is in one of the two rows at least, and read back equal */
    for (size_t i = 0; i < ug_n_row_fields; i++) {
        const ug_field *f = &ug_row_fields[i];
        int written = 0;
        for (int r = 0; r < 2; r++) {
            if (!ug_field_in(f, &rows[r], false)) continue;
            written++;
            UG_EXPECT_MSG(ug_field_same(f, &rows[r], &back.rows[r]),
                          "\"%s\" (%s) of row %d not read back as written", f->key, f->member, r);
        }
        UG_EXPECT_MSG(written > 0, "\"%s\" is written in no row of the test: cover it", f->key);
    }
    for (int r = 0; r < 2; r++) {
        const ug_row *a = &rows[r], *b = &back.rows[r];
        UG_EXPECT(memcmp(a->ulp_hist, b->ulp_hist, sizeof a->ulp_hist) == 0);
        UG_EXPECT(ug_worst_same(&a->worst_ulp, &b->worst_ulp));
        UG_EXPECT(ug_worst_same(&a->worst_bound_ratio, &b->worst_bound_ratio));
        /* the case's own figures, in "extra" beside the schema's extra fields */
        UG_EXPECT_MSG(b->n_extra == 2 && strcmp(b->extra[0].name, "out_hash_hi") == 0 &&
                          b->extra[0].value == a->extra[0].value &&
                          strcmp(b->extra[1].name, "post_mean_err") == 0 &&
                          b->extra[1].value == a->extra[1].value,
                      "extra of row %d: %d figures", r, b->n_extra);
    }
    /* the schema's extra fields are inside "extra", not beside the other fields */
    ug_json *j0 = ug_row_object(root, 0);
    const ug_json *x = ug_json_get(j0, "extra");
    UG_ASSERT(j0 != NULL);
    UG_EXPECT(ug_json_get(j0, "method") == NULL && ug_json_get(j0, "abs_err_sum_rd") == NULL);
    UG_EXPECT(x && ug_json_get(x, "method") && ug_json_get(x, "abs_err_sum_rd") &&
              ug_json_get(x, "out_hash_hi"));
    UG_EXPECT(ug_json_num_of(ug_json_get(root, "format"), 0) == UG_RESULTS_FORMAT);
    ug_columns_row_free(j0);
    ug_json_free(root);
    ug_results_free(&back);
    unlink(path);

    /* a baseline keeps the bl column's fields, and reads them back equal */
    ug_baseline bl = {0}, bb;
    ug_fingerprint fp = {0};
    snprintf(fp.hash, sizeof fp.hash, "0123456789abcdef");
    snprintf(fp.v[UG_FP_SEED], sizeof fp.v[0], "0x5eed"); /* a fingerprint without it is refused */
    ug_baseline_fp(&bl, &fp);
    snprintf(bl.device, sizeof bl.device, "cpu-test");
    ug_bl_extra bx = {.slack = 1.0, .fp = 0};
    for (int r = 0; r < 2; r++) ug_baseline_add(&bl, &rows[r], &bx);
    char bdir[] = "/tmp/ug_results_checks_XXXXXX", folder[64];
    UG_ASSERT(mkdtemp(bdir) != NULL);
    snprintf(folder, sizeof folder, "%s/cpu-test", bdir);
    UG_ASSERT_MSG(ug_baseline_write(&bl, folder, err, sizeof err) == 0, "%s", err);
    UG_ASSERT_MSG(ug_baseline_load(folder, 2.0, &bb, err, sizeof err) == 0, "%s", err);
    UG_ASSERT(bb.res.count == 2 && bb.format == UG_BASELINE_FORMAT);
    for (size_t i = 0; i < ug_n_row_fields; i++) {
        const ug_field *f = &ug_row_fields[i];
        for (int r = 0; r < 2; r++) {
            const ug_row *b = ug_results_find(&bb.res, rows[r].id);
            UG_ASSERT(b != NULL);
            if (ug_field_in(f, &rows[r], true))
                UG_EXPECT_MSG(ug_field_same(f, &rows[r], b), "baseline: \"%s\" of row %d", f->key,
                              r);
        }
    }
    ug_remove_tree(bdir);
    ug_baseline_free(&bb);
    ug_baseline_free(&bl);
    ug_buf_free(&text);
    ug_results_free(&res);
}

/* A format 1 row: no "format" key, method and the *_rd sums beside the other fields. */
static const char ug_v1_doc[] =
    "{\"meta\":{},\"results\":[{\"id\":\"c k@default normal(0,1) 8\",\"case\":\"c\","
    "\"point\":\"c k@default n=8\",\"status\":\"pass\",\"passed\":true,\"failures\":0,"
    "\"seed\":\"0x5eed\",\"device\":\"cpu\",\"measured\":true,\"kernel\":\"k@default\","
    "\"kernel_name\":\"k\",\"variant\":\"default\",\"backend\":\"cpu\",\"op\":\"sum\","
    "\"dist\":\"normal(0,1)\",\"n\":8,\"deterministic\":true,\"trials\":2,\"first_trial\":0,"
    "\"elements\":1,\"count\":2,\"ulp_max\":1.5,\"ulp_mean\":0.75,\"rel_max\":1e-7,"
    "\"rel_mean\":5e-8,\"abs_max\":\"inf\",\"abs_err_sum\":2,\"rel_err_sum\":3,"
    "\"abs_err_sum_rd\":4,\"rel_err_sum_rd\":5,\"bound_class\":\"serial\","
    "\"bound_ratio_max\":0.5,\"bound_ratio_mean\":0.25,\"apriori_ratio_max\":0.5,"
    "\"prob_ratio_max\":0,\"prob_lambda\":0,\"prob_failure\":0,\"bound_vacuous\":0,"
    "\"bound_unchecked\":0,\"unwritten\":0,\"kappa_max\":1,\"correctly_rounded\":1,"
    "\"time_ms\":0.01,\"gbps\":3.2,\"ulp_hist\":[0,0,0,0,0,1,1,0,0,0,0,0,0,0,0,0],"
    "\"method\":6,\"extra\":{\"post_max_err\":9}}]}";

/* The default (compact) file: a passing row leaves out the UG_FF_DETAIL fields and its worst
 * elements, keeps every field a baseline (the gate) keeps, and reads back; a failing row is
 * written in full; the file says "detail": false, and only then may detail fields be absent. */
UG_CASE(results_schema, compact_rows_keep_the_gate_fields)
{
    ug_results res = {0}, back;
    ug_row rows[2];
    ug_fill_row(&rows[0], "sum", 0);
    ug_fill_row(&rows[1], "gemm", 1);
    rows[0].status = UG_ST_PASS;
    rows[1].status = UG_ST_FAIL;
    ug_results_add(&res, &rows[0]);
    ug_results_add(&res, &rows[1]);
    ug_buf text = {0};
    ug_report_json(&text, "{}", NULL, &res);
    UG_EXPECT(strstr(ug_buf_str(&text), "\"detail\":false") != NULL);
    char path[32], err[1200];
    UG_ASSERT(ug_tmp_write(path, ug_buf_str(&text)) == 0);
    ug_json *root = ug_results_read(path, &back, err, sizeof err);
    UG_ASSERT_MSG(root != NULL, "%s", err);
    UG_ASSERT(back.count == 2);
    ug_json *j0 = ug_row_object(root, 0), *j1 = ug_row_object(root, 1);
    UG_ASSERT(j0 && j1);
    int detail = 0;
    for (size_t i = 0; i < ug_n_row_fields; i++) {
        const ug_field *f = &ug_row_fields[i];
        const ug_json *x0 = ug_json_get(j0, "extra");
        const ug_json *in0 = ug_json_get(f->flags & UG_FF_EXTRA ? x0 : j0, f->key);
        if (f->flags & UG_FF_DETAIL) {
            detail++;
            UG_EXPECT_MSG(in0 == NULL, "\"%s\" is detail but in a passing compact row", f->key);
            UG_EXPECT_MSG(f->bl == UG_W_NEVER, "\"%s\" is detail but a baseline keeps it", f->key);
        } else if (ug_field_in(f, &rows[0], false) && f->type != UG_FT_PASSED) {
            UG_EXPECT_MSG(ug_field_same(f, &rows[0], &back.rows[0]),
                          "\"%s\" of the passing row not read back as written", f->key);
        }
        if (ug_field_in(f, &rows[1], false) && f->type != UG_FT_PASSED)
            UG_EXPECT_MSG(ug_field_same(f, &rows[1], &back.rows[1]),
                          "\"%s\" of the failing row not read back in full", f->key);
    }
    UG_EXPECT_MSG(detail >= 10, "only %d detail fields", detail);
    UG_EXPECT(ug_json_get(j0, "worst_ulp") == NULL && ug_json_get(j1, "worst_ulp") != NULL);
    UG_EXPECT(memcmp(rows[0].ulp_hist, back.rows[0].ulp_hist, sizeof rows[0].ulp_hist) == 0);
    ug_columns_row_free(j0);
    ug_columns_row_free(j1);
    ug_json_free(root);
    ug_results_free(&back);
    unlink(path);
    /* the same text without "detail": false (and its "defaults") is no compact file: the
     * missing fields are errors */
    char *cut = strstr(ug_buf_str(&text), "\"detail\":false,");
    UG_ASSERT(cut != NULL);
    memmove(cut, cut + strlen("\"detail\":false,"), strlen(cut + strlen("\"detail\":false,")) + 1);
    cut = strstr(ug_buf_str(&text), "\"defaults\":{");
    char *end = cut ? strstr(cut, "},") : NULL;
    UG_ASSERT(cut && end);
    memmove(cut, end + 2, strlen(end + 2) + 1);
    UG_ASSERT(ug_tmp_write(path, ug_buf_str(&text)) == 0);
    root = ug_results_read(path, &back, err, sizeof err);
    UG_EXPECT_MSG(!root && strstr(err, "missing"), "a full file missing detail fields: %s",
                  root ? "accepted" : err);
    ug_json_free(root);
    unlink(path);
    ug_buf_free(&text);
    ug_results_free(&res);
}

/* Compact rows (format 4) read back to the same figures: the values left out as the file's
 * "defaults", as the row before's (kappa_max of the same inputs), as derivable (id, point,
 * gbps) or as trailing zero histogram buckets all come back bit for bit; a row whose value
 * differs keeps it; a row without its case is an error, not a silent re-parenting. */
UG_CASE(results_schema, compact_rows_read_back_the_same)
{
    enum { N = 5 };
    ug_results res = {0}, back;
    ug_row rows[N];
    for (int i = 0; i < N; i++) {
        ug_row *r = &rows[i];
        ug_fill_row(r, "sum", 0);
        r->status = UG_ST_PASS;
        r->repeats = 0;
        snprintf(r->kernel, sizeof r->kernel, "k%d@default", i);
        if (i >= 2) snprintf(r->case_name, sizeof r->case_name, "other/case");
        if (i >= 2) r->shape.dim[0] += 1; /* other inputs: row 2's kappa_max is its own */
        if (i == 3) r->kappa_max = 7.5;               /* same inputs as row 2, another value: kept */
        if (i == 4) r->kappa_max = 7.5;               /* same inputs and value as row 3: left out */
        if (i == 4) r->deterministic = false;         /* not the default: kept */
        ug_row_point_derived(r, r->point, sizeof r->point);
        if (i == 1) snprintf(r->point, sizeof r->point, "a point named otherwise");
        double g;
        UG_ASSERT(ug_row_rate_derived(r, &ug_row_fields[0], &g) == false);
        for (size_t j = 0; j < ug_n_row_fields; j++)
            if (strcmp(ug_row_fields[j].key, "gbps") == 0 && i != 2)
                UG_ASSERT(ug_row_rate_derived(r, &ug_row_fields[j], &r->gbps));
        memset(r->ulp_hist, 0, sizeof r->ulp_hist);
        r->ulp_hist[0] = (uint64_t)i; /* row 0: all zero */
        if (i == 3) r->ulp_hist[15] = 9;
        ug_row_make_id(r);
        ug_results_add(&res, r);
    }
    ug_buf text = {0};
    ug_report_json(&text, "{}", NULL, &res);
    const char *txt = ug_buf_str(&text);
    UG_EXPECT(strstr(txt, "\"defaults\":{") != NULL);
    /* what each row (format 5: an array of its shape's columns) holds, as an object */
    char perr[200];
    ug_json *doc = ug_json_parse(txt, strlen(txt), perr, sizeof perr);
    UG_ASSERT_MSG(doc != NULL, "%s", perr);
    int ids = 0, cases = 0, points = 0, kappas = 0, gbps = 0, dets = 0, hist0 = 0, hist1 = 0;
    for (int i = 0; i < N; i++) {
        ug_json *o = ug_row_object(doc, (size_t)i);
        UG_ASSERT(o != NULL);
        ids += ug_json_get(o, "id") != NULL;
        cases += ug_json_get(o, "case") != NULL;
        points += ug_json_get(o, "point") != NULL;
        kappas += ug_json_get(o, "kappa_max") != NULL;
        gbps += ug_json_get(o, "gbps") != NULL;
        dets += ug_json_get(o, "deterministic") != NULL;
        const ug_json *h = ug_json_get(o, "ulp_hist");
        hist0 += h && h->count == 1 && h->items[0]->num == 0;
        hist1 += h && h->count == 1 && h->items[0]->num == 1;
        ug_columns_row_free(o);
    }
    /* formats 4 and 5: every id made back (none written), every row's case written (no row
     * takes one from the row before) */
    UG_EXPECT_MSG(ids == 0 && cases == N && points == 1 && kappas == 3 && gbps == 1 && dets == 1,
                  "id %d, case %d, point %d, kappa_max %d, gbps %d, deterministic %d times", ids,
                  cases, points, kappas, gbps, dets);
    UG_EXPECT(hist0 == 1 && hist1 == 1);
    char path[32], err[1200];
    UG_ASSERT(ug_tmp_write(path, txt) == 0);
    ug_json *root = ug_results_read(path, &back, err, sizeof err);
    UG_ASSERT_MSG(root != NULL, "%s", err);
    UG_ASSERT(back.count == N);
    for (int i = 0; i < N; i++) {
        for (size_t j = 0; j < ug_n_row_fields; j++) {
            const ug_field *f = &ug_row_fields[j];
            if (!(f->flags & UG_FF_DETAIL) && f->type != UG_FT_PASSED && ug_field_in(f, &rows[i], false))
                UG_EXPECT_MSG(ug_field_same(f, &rows[i], &back.rows[i]),
                              "row %d: \"%s\" not read back as written", i, f->key);
        }
        UG_EXPECT_MSG(memcmp(rows[i].ulp_hist, back.rows[i].ulp_hist, sizeof rows[i].ulp_hist) == 0,
                      "row %d: ulp_hist", i);
    }
    ug_json_free(root);
    ug_results_free(&back);
    /* a row whose case is left out (null) is an error naming the key: formats 4 and 5 take no
     * case from the row before, so a row edited out cannot move the next ones to another case */
    const ug_json *cols = ug_json_get(doc, "columns");
    ug_json *row3 = ug_json_get(doc, "results")->items[3];
    const ug_json *shape3 = ug_json_get(doc, "shapes")->items[(size_t)row3->items[0]->num];
    size_t at = 0;
    while (at < shape3->count && strcmp(cols->items[(size_t)shape3->items[at]->num]->str, "case") != 0)
        at++;
    UG_ASSERT(at < shape3->count);
    at++; /* the row's values follow its shape */
    row3->items[at]->type = UG_JSON_NULL;
    ug_buf edited = {0};
    ug_json_write(&edited, doc);
    UG_ASSERT(ug_tmp_write(path, ug_buf_str(&edited)) == 0);
    ug_buf_free(&edited);
    ug_json_free(doc);
    root = ug_results_read(path, &back, err, sizeof err);
    UG_EXPECT_MSG(!root && strstr(err, "result 3") && strstr(err, "\"case\""),
                  "a row without its case: %s", root ? "accepted" : err);
    ug_json_free(root);
    unlink(path);
    ug_buf_free(&text);
    ug_results_free(&res);
}

/* A results.json text with one edit (0..4, below) made to its parsed document, then read: the
 * error, or "" when it read. */
static void ug_shapes_edit_read(const char *text, int edit, char *err, size_t errlen)
{
    char perr[200], path[32];
    ug_json *doc = ug_json_parse(text, strlen(text), perr, sizeof perr);
    ug_json *rows = (ug_json *)ug_json_get(doc, "results");
    ug_json *shapes = (ug_json *)ug_json_get(doc, "shapes");
    ug_json *row = rows->items[1];
    if (edit == 0) row->items[0]->num = (double)shapes->count;   /* no such shape */
    if (edit == 1) {                                               /* a value cut out */
        ug_json *gone = row->items[1];
        memmove(&row->items[1], &row->items[2], (row->count - 2) * sizeof *row->items);
        row->count--;
        ug_json_free(gone);
    }
    if (edit == 2) shapes->items[0]->items[1]->num = shapes->items[0]->items[0]->num; /* twice */
    if (edit == 3) ((ug_json *)ug_json_get(doc, "format"))->num = 4;           /* shapes in format 4 */
    if (edit == 4) shapes->key[0] = 'S';                           /* "Shapes": none */
    ug_buf b = {0};
    ug_json_write(&b, doc);
    ug_json_free(doc);
    ug_results res;
    err[0] = 0;
    if (ug_tmp_write(path, ug_buf_str(&b)) == 0) {
        ug_json *root = ug_results_read(path, &res, err, errlen);
        if (root) err[0] = 0, ug_results_free(&res);
        ug_json_free(root);
        unlink(path);
    }
    ug_buf_free(&b);
}

/* Format 5's shapes: a row names its shape, then exactly the shape's columns' values.  A shape
 * out of range, a row with a value cut out, a shape naming a column twice, "shapes" in a
 * format 4 file and a format 5 file without them are each refused naming what is wrong, never
 * read with values moved to other columns. */
UG_CASE(results_schema, shapes_read_strictly)
{
    ug_results res = {0};
    ug_row r;
    for (int i = 0; i < 4; i++) {
        ug_fill_row(&r, i % 2 ? "gemm" : "sum", i % 2 ? 64 : 0);
        r.status = UG_ST_PASS;
        snprintf(r.kernel, sizeof r.kernel, "k%d@default", i);
        ug_row_make_id(&r);
        ug_results_add(&res, &r);
    }
    ug_buf text = {0};
    ug_report_json(&text, "{}", NULL, &res);
    char err[1200];
    ug_shapes_edit_read(ug_buf_str(&text), -1, err, sizeof err);
    UG_EXPECT_MSG(!err[0], "the file as written: %s", err);
    static const char *const want[] = {
        "result 1: a row's first value is a number, not a shape",
        "result 1: a row of shape",
        "\"shapes\": shape 0: item 1 is a column named twice",
        "\"shapes\" in a file of format 4",
        "\"shapes\" is missing, not an array",
    };
    for (int e = 0; e < 5; e++) {
        ug_shapes_edit_read(ug_buf_str(&text), e, err, sizeof err);
        UG_EXPECT_MSG(err[0] && strstr(err, want[e]), "edit %d: want \"%s\", got \"%s\"", e,
                      want[e], err[0] ? err : "read");
    }
    ug_buf_free(&text);
    ug_results_free(&res);
}

/* The bytes of the compact results.json of rows [0, n) of res (a copy: ug_results_add copies). */
static size_t ug_compact_bytes(const ug_results *res, size_t n, ug_json **doc)
{
    ug_results part = {0};
    for (size_t i = 0; i < n; i++) ug_results_add(&part, &res->rows[i]);
    ug_buf text = {0};
    ug_report_json(&text, "{}", NULL, &part);
    size_t len = text.len;
    char err[200];
    if (doc) *doc = ug_json_parse(ug_buf_str(&text), len, err, sizeof err);
    ug_buf_free(&text);
    ug_results_free(&part);
    return len;
}

UG_CASE(results_schema, bytes_a_row_do_not_grow_with_the_rows)
{
    /* A GPU machine's default run has ~28,600 rows; the writer's tables were capped at 4096
     * values, so there every figure with more distinct values than that (ulp_max, rel_max,
     * time_ms, the histograms) went in place and the file took 191 bytes a row, against the
     * ~110 that a run of a few thousand rows measures.  Here 20,000 rows whose
     * figures take 5,000 values, each 4 times: a row costs no more bytes than in the file of
     * the first 2,000 rows but for an index digit a table, and the repeated figures are in tables. */
    enum { N = 20000, SMALL = 2000, REPEAT = 4 };
    ug_results res = {0};
    ug_row r;
    for (int i = 0; i < N; i++) {
        ug_fill_row(&r, "sum", 0);
        int v = i / REPEAT;
        r.status = UG_ST_PASS;
        r.repeats = 0;
        snprintf(r.kernel, sizeof r.kernel, "k%d@default", i % 16);
        snprintf(r.case_name, sizeof r.case_name, "case/%d", i / 64);
        r.shape.dim[0] = (size_t)(1000 + i % 64);
        r.ulp_max = 0.123456789012345 + v;
        r.ulp_mean = 0.0123456789012345 * v;
        r.rel_max = 1.23456789012345e-8 * (v + 1);
        r.bound_ratio_max = 0.000123456789012345 * (v + 1);
        r.time_ms = 0.001 * (v % 2000 + 1);
        memset(r.ulp_hist, 0, sizeof r.ulp_hist);
        for (int b = 0; b < 6; b++) r.ulp_hist[b] = (uint64_t)((v >> (2 * b)) & 3) + 1;
        ug_row_point_derived(&r, r.point, sizeof r.point);
        ug_row_make_id(&r);
        ug_results_add(&res, &r);
    }
    ug_json *doc = NULL;
    double small = (double)ug_compact_bytes(&res, SMALL, NULL) / SMALL;
    double big = (double)ug_compact_bytes(&res, N, &doc) / N;
    UG_ASSERT(doc != NULL);
    /* ten times the values: an index one digit longer in each table, no more */
    const ug_json *tables = ug_json_get(doc, "tables");
    size_t digits = tables ? tables->count : 0;
    UG_EXPECT_MSG(big <= small + (double)digits, "%d rows: %.1f bytes a row, %d rows: %.1f (+ %zu "
                  "tables' index digit)", N, big, SMALL, small, digits);
    static const char *const tabled[] = {"ulp_max", "rel_max", "bound_ratio_max", "ulp_hist"};
    for (size_t i = 0; i < sizeof tabled / sizeof *tabled; i++)
        UG_EXPECT_MSG(tables && ug_json_get(tables, tabled[i]), "\"%s\": 5,000 values, each 4 "
                      "times, not in a table", tabled[i]);
    ug_json_free(doc);
    ug_results_free(&res);
}

UG_CASE(results_schema, format_1_read_newer_refused)
{
    char path[32], err[1200];
    ug_results res;
    UG_ASSERT(ug_tmp_write(path, ug_v1_doc) == 0);
    ug_json *root = ug_results_read(path, &res, err, sizeof err);
    UG_ASSERT_MSG(root != NULL, "a format 1 file: %s", err);
    const ug_row *r = &res.rows[0];
    UG_EXPECT_MSG(res.count == 1 && r->method == 6 && r->abs_err_sum_rd == 4 &&
                      r->rel_err_sum_rd == 5 && isinf(r->abs_max) && r->ulp_max == 1.5 &&
                      r->n_extra == 1 && r->extra[0].value == 9 && r->ulp_hist[6] == 1,
                  "method %d, abs_err_sum_rd %g, %d extra", r->method, r->abs_err_sum_rd, r->n_extra);
    ug_json_free(root);
    ug_results_free(&res);
    unlink(path);
    /* the same rows as format 6: refused, naming the file and both versions */
    char v3[sizeof ug_v1_doc + 16];
    snprintf(v3, sizeof v3, "{\"format\":6,%s", ug_v1_doc + 1);
    UG_ASSERT(ug_tmp_write(path, v3) == 0);
    root = ug_results_read(path, &res, err, sizeof err);
    UG_EXPECT_MSG(!root && strstr(err, path) &&
                      strstr(err, "results format 6 is newer than this ulpgate reads (5)") &&
                      strstr(err, "ulpgate run --report DIR"),
                  "%s", err);
    ug_json_free(root);
    unlink(path);
    /* format 2 with the extra fields beside the others (format 1's place): the reader looks in
     * "extra" and finds them missing */
    snprintf(v3, sizeof v3, "{\"format\":2,%s", ug_v1_doc + 1);
    UG_ASSERT(ug_tmp_write(path, v3) == 0);
    root = ug_results_read(path, &res, err, sizeof err);
    UG_EXPECT_MSG(!root && strstr(err, "\"extra\": \"abs_err_sum_rd\" is missing"), "%s", err);
    ug_json_free(root);
    unlink(path);
}

/* The good format 1 document with the member `key` of row 0 (or of its "extra" / "worst_ulp"
 * when sub names one) replaced by `value` (JSON text; NULL: removed); read; the error. */
static bool ug_bad_read(const char *sub, const char *key, const char *value, char *err,
                        size_t errlen)
{
    char perr[200], path[32];
    ug_json *doc = ug_json_parse(ug_v1_doc, strlen(ug_v1_doc), perr, sizeof perr);
    ug_json *row = doc->items[1]->items[0], *o = row;
    if (sub) {
        for (size_t i = 0; i < row->count; i++)
            if (strcmp(row->items[i]->key, sub) == 0) o = row->items[i];
    }
    for (size_t i = 0; i < o->count; i++) {
        if (strcmp(o->items[i]->key, key) != 0) continue;
        if (!value) { /* renamed out of the way: removed */
            o->items[i]->key[0] = '_';
            continue;
        }
        ug_json *v = ug_json_parse(value, strlen(value), perr, sizeof perr);
        v->key = o->items[i]->key;
        o->items[i]->key = NULL;
        ug_json_free(o->items[i]);
        o->items[i] = v;
    }
    ug_buf b = {0};
    ug_json_write(&b, doc);
    ug_json_free(doc);
    ug_results res;
    bool refused = ug_tmp_write(path, ug_buf_str(&b)) == 0;
    ug_json *root = ug_results_read(path, &res, err, errlen);
    refused = refused && root == NULL && strstr(err, path) && strstr(err, "c k@default normal(0,1) 8");
    if (root) snprintf(err, errlen, "read without an error");
    ug_json_free(root);
    ug_results_free(&res);
    ug_buf_free(&b);
    unlink(path);
    return refused;
}

UG_CASE(results_schema, bad_figures_refused)
{
    static const struct {
        const char *sub, *key, *value, *says;
    } bad[] = {
        {NULL, "ulp_max", NULL, "\"ulp_max\" is missing"},
        {NULL, "ulp_max", "null", "\"ulp_max\" is null"},
        {NULL, "ulp_max", "\"NaN\"", "\"ulp_max\" is the string \"NaN\""},
        {NULL, "ulp_max", "\"abc\"", "\"ulp_max\" is the string \"abc\""},
        {NULL, "ulp_max", "true", "\"ulp_max\" is a bool, not a number"},
        {NULL, "rel_max", "[1]", "\"rel_max\" is an array, not a number"},
        {NULL, "count", "\"nan\"", "\"count\" is nan, not a non-negative integer"},
        {NULL, "count", "-1", "\"count\" is -1, not a non-negative integer"},
        {NULL, "count", "2.5", "\"count\" is 2.5, not a non-negative integer"},
        {NULL, "n", "1e300", "\"n\" is 1.0000000000000001e+300, not a non-negative integer"},
        {NULL, "trials", "\"inf\"", "\"trials\" is inf, not an integer"},
        {NULL, "status", "\"passed\"", "\"status\" is \"passed\", not pass"},
        {NULL, "measured", "1", "\"measured\" is a number, not a bool"},
        {NULL, "seed", "24301", "\"seed\" is a number, not a string"},
        {NULL, "kernel", NULL, "\"kernel\" is missing"},
        {NULL, "abs_err_sum_rd", "null", "\"abs_err_sum_rd\" is null"},
        {NULL, "ulp_hist", "[1,2]", "\"ulp_hist\" has 2 buckets, not 16"},
        {"extra", "post_max_err", "\"x\"", "\"extra\": \"post_max_err\" is the string \"x\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[1200];
        bool refused = ug_bad_read(bad[i].sub, bad[i].key, bad[i].value, err, sizeof err);
        UG_EXPECT_MSG(refused && strstr(err, bad[i].says), "%s = %s: want '%s', got '%s'",
                      bad[i].key, bad[i].value ? bad[i].value : "(removed)", bad[i].says, err);
    }
    /* the defined spellings of non-finite figures are figures */
    char err[1200];
    UG_EXPECT(!ug_bad_read(NULL, "ulp_max", "\"nan\"", err, sizeof err));
    UG_EXPECT(!ug_bad_read(NULL, "ulp_max", "\"inf\"", err, sizeof err));
    /* an error is never negative: -3 or -inf would be "better" than any error at the gate */
    UG_EXPECT(ug_bad_read(NULL, "ulp_max", "\"-inf\"", err, sizeof err) &&
              strstr(err, "\"ulp_max\" is -inf: negative"));
    UG_EXPECT(ug_bad_read(NULL, "rel_max", "-3", err, sizeof err) &&
              strstr(err, "\"rel_max\" is -3: negative"));
}

/* Every figure the gate judges (compare.h's ug_gated) is a field of the schema that a baseline
 * keeps, and reads back as ug_gated_value reads it. */
UG_CASE(results_schema, baselines_keep_the_gated_figures)
{
    for (int m = 0; m < UG_GM_COUNT; m++) {
        const ug_field *f = NULL;
        for (size_t i = 0; i < ug_n_row_fields; i++)
            if (strcmp(ug_row_fields[i].key, ug_gated[m].name) == 0) f = &ug_row_fields[i];
        UG_EXPECT_MSG(f && f->bl != UG_W_NEVER && !(f->flags & UG_FF_EXTRA),
                      "gated figure \"%s\": %s", ug_gated[m].name,
                      f ? "not kept by a baseline" : "not in the schema");
        ug_row r;
        ug_fill_row(&r, "sum", 0);
        if (f) UG_EXPECT(ug_row_num(&r, f) == ug_gated_value(&r, m));
    }
}

/* Every figure of a measured row is the figure its measurement computed, field by field:
 * the round trips above write and read values they made themselves, so a row filled from
 * the wrong member of ug_result (ulp_mean from rel_mean, count from elements) would pass them.
 * A real measurement of serial_f32 (every figure nonzero and the pairs that could be swapped
 * different) goes through ug_row_from_point, results.json's writer and its reader. */
UG_CASE(results_schema, row_figures_are_the_measurement)
{
    const ug_kernel *k = ug_kernel_find("serial_f32");
    UG_ASSERT(k != NULL);
    ug_dist d = ug_normal(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 1000, 4);
    ug_result *r = ug_measure(t, k, in);
    UG_ASSERT(r != NULL && r->count == 4 && r->ulp_max > 0);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* serial summation stays under its a-priori bound */
    ug_point_record p = {.name = "results_schema/figures serial_f32@default n=1000",
                         .status = UG_ST_PASS, .result = r};
    ug_row row;
    ug_row_from_point(&row, "results_schema/figures", &p, "cpu", 0x5eed);
    ug_results res = {0};
    ug_results_add(&res, &row);
    ug_buf text = {0};
    ug_results_detail = true; /* every figure written */
    ug_report_json(&text, "{}", NULL, &res);
    ug_results_detail = false;
    char path[32], err[1200];
    UG_ASSERT(ug_tmp_write(path, ug_buf_str(&text)) == 0);
    ug_results back = {0};
    ug_json *doc = ug_results_read(path, &back, err, sizeof err);
    UG_ASSERT_MSG(doc && back.count == 1, "%s", err);
    const ug_row *b = &back.rows[0];
    struct { const char *name; double row, measured; } figs[] = {
        {"ulp_max", b->ulp_max, r->ulp_max}, {"ulp_mean", b->ulp_mean, r->ulp_mean},
        {"rel_max", b->rel_max, r->rel_max}, {"rel_mean", b->rel_mean, r->rel_mean},
        {"abs_max", b->abs_max, r->abs_max}, {"abs_err_sum", b->abs_err_sum, r->abs_err_sum},
        {"rel_err_sum", b->rel_err_sum, r->rel_err_sum},
        {"bound_ratio_max", b->bound_ratio_max, r->bound_ratio_max},
        {"bound_ratio_mean", b->bound_ratio_mean, r->bound_ratio_mean},
        {"apriori_ratio_max", b->apriori_ratio_max, r->apriori_ratio_max},
        {"prob_ratio_max", b->prob_ratio_max, r->prob_ratio_max},
        {"kappa_max", b->kappa_max, r->kappa_max},
        {"count", (double)b->count, (double)r->count},
        {"elements", (double)b->elements, (double)r->elements},
        {"trials", b->trials, r->trials},
        {"correctly_rounded", (double)b->correctly_rounded, (double)r->correctly_rounded},
        {"bound_vacuous", (double)b->bound_vacuous, (double)r->bound_vacuous},
        {"unwritten", (double)b->unwritten, (double)r->unwritten},
        {"n", (double)b->shape.dim[0], (double)r->shape.dim[0]},
    };
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        UG_EXPECT_MSG(figs[i].row == figs[i].measured || (isnan(figs[i].row) && isnan(figs[i].measured)),
                      "%s: the row has %.17g, the measurement %.17g", figs[i].name, figs[i].row,
                      figs[i].measured);
    /* the pairs a row could take from each other differ, so a swap cannot pass */
    UG_EXPECT(r->ulp_max != r->ulp_mean && r->rel_max != r->rel_mean &&
              r->bound_ratio_max != r->bound_ratio_mean && r->count != (size_t)r->trials * 2 &&
              r->abs_err_sum != r->abs_max && r->ulp_max != r->bound_ratio_max);
    UG_EXPECT(strcmp(b->op, "sum") == 0 && strcmp(b->kernel, k->id) == 0);
    ug_json_free(doc);
    ug_results_free(&back);
    ug_results_free(&res);
    ug_buf_free(&text);
    unlink(path);
}
