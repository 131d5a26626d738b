/*
 * fuzz_values.c - libFuzzer target: the value-file parser (harness/inputs/values.h, what `ulpgate
 * oracle FILE` and the corpus read) and, on every file it accepts, the two oracles against
 * each other.
 *
 * Each input is parsed twice, as a sum file and as a dot file.  What must hold:
 *   - no crash, leak or undefined behaviour (built with -fsanitize=fuzzer,address,undefined);
 *   - the parser returns 0 with n values (x, and y for a dot, NULL when n == 0) or 2 with a
 *     one-line message that names the file (no newline inside it);
 *   - on an accepted file, the fast exact oracle and MPFR agree bit for bit on the summary
 *     (hi, lo, RN32, RD32, class and Sum|terms|: ug_exact_equal);
 *   - ug_oracle_parse_value (the --got value) on the input's first line: 0 or -1 with a reason.
 * Run (meson -Dfuzz=true, clang): build/tests/fuzz/fuzz_values tests/fuzz/corpus/values
 *   -dict=tests/fuzz/values.dict
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "tests/fuzz/fuzz_io.h"
#include "oracle/oracle.h"
#include "harness/inputs/values.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    ug_par_set_threads(1); /* one thread: the fuzzer measures coverage, not speed */
    return 0;
}

static void ug_fuzz_one(const uint8_t *data, size_t size, int dot)
{
    float *x = (float *)1, *y = (float *)1; /* must be overwritten */
    size_t n = (size_t)-1;
    char err[512] = "";
    int rc = ug_fuzz_parse_buffer(data, size, dot, &x, &y, &n, err, sizeof err);
    if (rc != 0) {
        if (rc != 2) ug_fuzz_fail("parse returned %d", rc);
        if (!err[0] || strchr(err, '\n')) ug_fuzz_fail("bad error message '%s'", err);
        if (strncmp(err, "/proc/self/fd/", 14) != 0) ug_fuzz_fail("message does not name the file: '%s'", err);
        return;
    }
    if (n == (size_t)-1) ug_fuzz_fail("n not set");
    if (n == 0 && (x || y)) ug_fuzz_fail("empty file with buffers");
    if (n > 0 && (!x || (dot && !y) || (!dot && y))) ug_fuzz_fail("buffers missing for n = %zu", n);
    ug_exact fast, mpfr;
    if (dot) {
        ug_exact_dot_f32_fast(x, 1, y, 1, n, &fast);
        ug_exact_dot_f32_mpfr(x, 1, y, 1, n, &mpfr);
    } else {
        ug_exact_sum_f32_fast(x, n, &fast);
        ug_exact_sum_f32_mpfr(x, n, &mpfr);
    }
    if (!ug_exact_equal(&fast, &mpfr))
        ug_fuzz_fail("%s of %zu values: fast hi=%a lo=%a rn=%a rd=%a cls=%d, mpfr hi=%a lo=%a "
                     "rn=%a rd=%a cls=%d", dot ? "dot" : "sum", n, fast.hi, fast.lo,
                     (double)fast.rn, (double)fast.rd, fast.cls, mpfr.hi, mpfr.lo,
                     (double)mpfr.rn, (double)mpfr.rd, mpfr.cls);
    free(x);
    free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ug_fuzz_one(data, size, 0);
    ug_fuzz_one(data, size, 1);
    /* the first line as a --got value */
    char line[256];
    size_t len = 0;
    while (len < size && len < sizeof line - 1 && data[len] != '\n' && data[len] != 0) {
        line[len] = (char)data[len];
        len++;
    }
    line[len] = 0;
    float v = 0;
    char why[160] = "";
    int rc = ug_oracle_parse_value(line, &v, why, sizeof why);
    if (rc != 0 && (rc != -1 || !why[0])) ug_fuzz_fail("parse_value returned %d ('%s')", rc, why);
    return 0;
}
