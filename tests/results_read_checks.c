/*
 * results_read_checks.c - the results.json reader's strictness and the format's size: shapes
 * read strictly, bytes a row that do not grow with the rows, format 1 read and a newer one
 * refused, every kind of bad figure refused with its key named, the baselines' gated figures,
 * a row's figures the measurement's (the row builders: results_rows.h).
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
#include "tests/results_rows.h"

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
