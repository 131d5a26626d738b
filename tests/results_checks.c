/*
 * results_checks.c - the results schema (harness/results/row_fields.h) and its reader: every
 * field of the table written and read back equal (the table iterated, so a new field is covered
 * by itself), in a results.json and in a baseline; the "extra" object; a format 1 file read; a
 * newer format refused; every kind of bad figure refused with its key named, never read as 0.
 * One case per property of one schema; the row builders shared with results_read_checks.c (the
 * reader's refusals and the format's growth) are declared in results_rows.h.
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
int ug_tmp_write(char path[32], const char *text)
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
void ug_fill_row(ug_row *r, const char *op, int k)
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
    unlink(path); /* the first file's: a second one gets a path of its own */
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
