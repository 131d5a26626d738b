/*
 * fuzz_npy.c - libFuzzer target: the .npy reader (harness/inputs/npy.h, what `ulpgate check`
 * maps) on the bytes of a file, and `check`'s grading (harness/check/check.h) on every array it
 * accepts.
 *
 * Each input is parsed three times: with no --dtype, as bfloat16 and as e4m3 bit patterns.
 * What must hold:
 *   - no crash, leak or undefined behaviour (built with -fsanitize=fuzzer,address,undefined);
 *   - 0 with a consistent array, or 2 with a one-line message that names the file;
 *   - an accepted array: ndim <= 8, count the product of its shape, its data exactly the last
 *     count * bytes of the input (no byte after it, none read outside it: every element loaded);
 *   - the same bytes parse the same (the reader keeps no state);
 *   - an accepted array of 1 or 2 dimensions, up to 2^12 elements, graded as `check --op sum`
 *     X against a GOT of zeros of the right shape: 0 with every output counted, or 2 with a
 *     message; the table and the JSON written.
 * Run (meson -Dfuzz=true, clang): build/tests/fuzz/fuzz_npy tests/fuzz/corpus/npy
 *   -dict=tests/fuzz/npy.dict
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/par.h"
#include "harness/check/check.h"
#include "harness/inputs/npy.h"
#include "tests/fuzz/fuzz_io.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    ug_par_set_threads(1);
    return 0;
}

/* check --op sum on a as X, GOT zeros of one per row. */
static void fuzz_grade(const ug_npy *a)
{
    ug_array x = a->array;
    if (x.ndim < 1 || x.ndim > 2 || ug_array_count(&x) > 4096) return;
    x.name = "x.npy";
    size_t rows = x.ndim == 2 ? x.shape[0] : 1;
    float *zeros = calloc(rows ? rows : 1, sizeof *zeros);
    ug_array got = {.name = "got.npy", .data = zeros, .fmt = UG_F32,
                    .ndim = x.ndim == 2 ? 1 : 0, .shape = {rows}};
    ug_check_opts o;
    ug_check_opts_init(&o);
    o.op = "sum";
    o.ulp_max = 1;
    ug_check_result r;
    char err[512] = "";
    int rc = ug_check_run(&o, &x, 1, &got, &r, err, sizeof err);
    if (rc != 0 && (rc != 2 || !err[0])) ug_fuzz_fail("check: status %d, message '%s'", rc, err);
    if (rc == 0) {
        if (r.outputs != rows) ug_fuzz_fail("check: %zu outputs of %zu rows", r.outputs, rows);
        if (r.correctly_rounded > r.outputs)
            ug_fuzz_fail("check: more correctly rounded than outputs");
        ug_buf b = {0};
        ug_check_table(&b, &r);
        ug_check_json(&b, &r);
        ug_buf_free(&b);
    }
    free(zeros);
}

static void fuzz_one(const uint8_t *data, size_t size, ug_fmt bits)
{
    ug_npy a, a2;
    char err[512] = "", err2[512] = "";
    int rc = ug_npy_parse(&a, "in.npy", data, size, bits, err, sizeof err);
    int rc2 = ug_npy_parse(&a2, "in.npy", data, size, bits, err2, sizeof err2);
    if (rc != rc2 || strcmp(err, err2))
        ug_fuzz_fail("two parses differ: %d '%s' vs %d '%s'", rc, err, rc2, err2);
    if (rc == 2) {
        if (strncmp(err, "in.npy: ", 8) || strchr(err, '\n'))
            ug_fuzz_fail("a refusal that does not name the file on one line: '%s'", err);
        return;
    }
    if (rc != 0) ug_fuzz_fail("status %d", rc);
    const ug_array *v = &a.array;
    if (v->ndim < 0 || v->ndim > UG_ARRAY_MAX_DIMS) ug_fuzz_fail("ndim %d", v->ndim);
    if (strcmp(v->name, "in.npy")) ug_fuzz_fail("the array is named '%s', not the path", v->name);
    if (!ug_array_contiguous(v)) ug_fuzz_fail("%s", "a .npy array whose strides are not C order's");
    size_t count = ug_array_count(v);
    size_t bytes = count * ug_fmt_bytes(v->fmt);
    if (v->data != data + size - bytes) ug_fuzz_fail("data not the last %zu bytes", bytes);
    double s = 0;
    for (size_t i = 0; i < count && i < 65536; i++) s += ug_array_load(v, i) * 0;
    (void)s;
    fuzz_grade(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_one(data, size, UG_FMT_COUNT);
    fuzz_one(data, size, UG_BF16);
    fuzz_one(data, size, UG_E4M3);
    return 0;
}
