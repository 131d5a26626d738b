/*
 * fuzz_json.c - libFuzzer target: the JSON reader (base/json.h) that reads every results.json,
 * baseline and merge input.  What must hold: no crash, leak or undefined behaviour; a document
 * it accepts is written back (ug_json_write) as text that it accepts again and that writes
 * back to the same text (a fixed point after one round); a rejected one has a message.  Then
 * the results schema's reader (harness/results/results_json.c) on each element of its "results"
 * or "rows" array, as a results.json row and as a baseline row: a row it accepts, written by the
 * schema's writer (results_write.c), is accepted again and writes back to the same text; a
 * rejected row has a message.  The rows of a file of format 4 or 5 are arrays: they go through
 * the columnar reader (results_columns.c: columns, shapes, tables) first, which must refuse a
 * malformed one with a message, never read out of bounds.  And the whole input as a file through
 * ug_results_read (the bounded reader, base/sys.h, under a 4 KiB ULPGATE_JSON_LIMIT; the meta,
 * summary and row checks): a file over the limit or holding a NUL byte is refused, an accepted
 * one has no negative error figure and no passing row with failures.
 * Run (meson -Dfuzz=true, clang): build/tests/fuzz/fuzz_json tests/fuzz/corpus/json
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "harness/results/results_columns.h"
#include "harness/results/results_json.h"
#include "tests/fuzz/fuzz_io.h"

/* One row through the schema's reader, then writer -> reader -> writer: a fixed point. */
static void ug_fuzz_row(const ug_json *o, int format, bool baseline)
{
    ug_row r, r2;
    char err[1024] = "", perr[256];
    if (ug_row_read(o, format, baseline, &r, err, sizeof err) != 0) {
        if (!err[0]) ug_fuzz_fail("a row rejected without a message");
        return;
    }
    ug_buf a = {0}, b = {0};
    ug_row_json_open(&a, &r, baseline);
    ug_buf_printf(&a, "}");
    ug_json *w = ug_json_parse(ug_buf_str(&a), a.len, perr, sizeof perr);
    if (!w) ug_fuzz_fail("a written row does not parse: %s: %.300s", perr, ug_buf_str(&a));
    if (ug_row_read(w, UG_RESULTS_FORMAT, baseline, &r2, err, sizeof err) != 0)
        ug_fuzz_fail("a written row is refused: %s: %.300s", err, ug_buf_str(&a));
    ug_row_json_open(&b, &r2, baseline);
    ug_buf_printf(&b, "}");
    if (a.len != b.len || memcmp(ug_buf_str(&a), ug_buf_str(&b), a.len) != 0)
        ug_fuzz_fail("row write(read(write(r))) differs: %.300s vs %.300s", ug_buf_str(&a),
                     ug_buf_str(&b));
    ug_json_free(w);
    ug_buf_free(&a);
    ug_buf_free(&b);
}

/* The input as a results.json file, read as `compare` reads one. */
static void ug_fuzz_file(const uint8_t *data, size_t size)
{
    enum { UG_FUZZ_LIMIT = 4096 };
    setenv("ULPGATE_JSON_LIMIT", "4096", 1);
    char path[64], err[1200] = "";
    int fd = ug_fuzz_memfd(data, size, path);
    ug_results res;
    ug_json *root = ug_results_read(path, &res, err, sizeof err);
    close(fd);
    bool nul = size && memchr(data, 0, size) != NULL;
    if (!root) {
        if (!err[0]) ug_fuzz_fail("a file rejected without a message");
        if (size > UG_FUZZ_LIMIT && !strstr(err, "larger than") && !strstr(err, "NUL byte"))
            ug_fuzz_fail("a file over the limit refused for another reason: %s", err);
        return;
    }
    if (size > UG_FUZZ_LIMIT) ug_fuzz_fail("a file of %zu bytes read under a %d-byte limit", size, UG_FUZZ_LIMIT);
    if (nul) ug_fuzz_fail("a file holding a NUL byte accepted");
    for (size_t i = 0; i < res.count; i++) {
        const ug_row *r = &res.rows[i];
        if (r->ulp_max < 0 || r->ulp_mean < 0 || r->rel_max < 0 || r->bound_ratio_max < 0)
            ug_fuzz_fail("row %zu accepted with a negative error figure", i);
        if ((r->status == UG_ST_PASS || r->status == UG_ST_XPASS) && r->failures > 0)
            ug_fuzz_fail("row %zu accepted as %s with %d failures", i, ug_status_name(r->status),
                         r->failures);
    }
    ug_results_free(&res);
    ug_json_free(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* rows written in full (run --detail): the round trip reads them back with every field; a
     * compact row leaves the detail fields out, which only a "detail": false file may */
    ug_results_detail = true;
    ug_fuzz_file(data, size);
    char err[256] = "";
    ug_json *v = ug_json_parse((const char *)data, size, err, sizeof err);
    if (!v) {
        if (!err[0]) ug_fuzz_fail("rejected without a message");
        return 0;
    }
    ug_buf a = {0}, b = {0};
    ug_json_write(&a, v);
    ug_json *w = ug_json_parse(ug_buf_str(&a), a.len, err, sizeof err);
    if (!w) ug_fuzz_fail("its own output does not parse: %s: %.200s", err, ug_buf_str(&a));
    ug_json_write(&b, w);
    if (a.len != b.len || memcmp(ug_buf_str(&a), ug_buf_str(&b), a.len) != 0)
        ug_fuzz_fail("write(parse(write(v))) differs: %.200s vs %.200s", ug_buf_str(&a), ug_buf_str(&b));
    int format;
    char ferr[256];
    const ug_json *rows = ug_json_get(v, "results");
    if (!rows) rows = ug_json_get(v, "rows");
    if (rows && rows->type == UG_JSON_ARR &&
        ug_format_check("fuzz", v, "results", "", &format, ferr, sizeof ferr) == 0) {
        ug_columns cols;
        char cerr[256] = "";
        bool columnar = format >= 4 && ug_columns_open(&cols, v, format, cerr, sizeof cerr) == 0;
        if (format >= 4 && !columnar && !cerr[0]) ug_fuzz_fail("columns refused without a message");
        for (size_t i = 0; i < rows->count; i++) {
            const ug_json *row = rows->items[i];
            ug_json *o = NULL;
            if (columnar && row->type == UG_JSON_ARR) {
                cerr[0] = 0;
                o = ug_columns_row(&cols, row, cerr, sizeof cerr);
                if (!o) {
                    if (!cerr[0]) ug_fuzz_fail("a row array refused without a message");
                    continue;
                }
                row = o;
            }
            ug_fuzz_row(row, format, false);
            ug_fuzz_row(row, format, true);
            ug_columns_row_free(o);
        }
        if (columnar) ug_columns_close(&cols);
    }
    ug_json_free(v);
    ug_json_free(w);
    ug_buf_free(&a);
    ug_buf_free(&b);
    return 0;
}
