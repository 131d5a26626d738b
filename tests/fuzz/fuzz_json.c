/*
 * fuzz_json.c - libFuzzer target: the JSON reader (base/json.h) that reads every results.json,
 * baseline and merge input.  What must hold: no crash, leak or undefined behaviour; a document
 * it accepts is written back (ug_json_write) as text that it accepts again and that writes
 * back to the same text (a fixed point after one round); a rejected one has a message.
 * Run (meson -Dfuzz=true, clang): build/tests/fuzz/fuzz_json tests/fuzz/corpus/json
 */
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "tests/fuzz/fuzz_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
    ug_json_free(v);
    ug_json_free(w);
    ug_buf_free(&a);
    ug_buf_free(&b);
    return 0;
}
