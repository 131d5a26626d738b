/*
 * oracle_parse.c - the `oracle` subcommand (harness/cli/cli_oracle.c) and its value parser
 * (harness/inputs/values.c): values, files, errors and output, on hand-written values and on the corpus
 * files tests/corpus/oracle_*.txt, whose headers give the expected results.
 *
 * Every expected value is derived by hand (in the comment beside it, or in the corpus file's
 * header); none comes from the oracle.
 */
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "harness/cli/cli.h"
#include "tests/oracle_check.h"
#include "harness/run/ug.h"
#include "ug_config.h"
#include "harness/inputs/values.h"

UG_CASE(oracle, parse_value)
{
    static const struct {
        const char *text;
        float want;
    } ok[] = {
        {"1.5", 1.5f},
        {"  -2", -2.0f},
        {"2.5 \t", 2.5f},             /* trailing blanks are fine */
        {"0x1.8p1", 3.0f},
        {"0.1", 0x1.99999ap-4f},      /* 0.1 = 0x1.9999999...p-4: RN32 rounds the 9 up to a */
        {"16777217", 16777216.0f},    /* 2^24 + 1: tie, even significand 2^24 */
        {"16777219", 16777220.0f},    /* 2^24 + 3: tie between 2^24+2 (odd) and 2^24+4 */
        {"1e-46", 0.0f},              /* below 2^-150 ~ 7.0e-46: underflows to +0 */
        {"1e-45", 0x1p-149f},         /* nearer 2^-149 ~ 1.4e-45 than 0 */
        {"3.4028235e38", FMAX},       /* FLT_MAX to 8 digits, below the threshold */
        {"inf", INFINITY},
        {"-Infinity", -INFINITY},
        {"-INF", -INFINITY},
    };
    char why[160];
    for (size_t i = 0; i < NOF(ok); i++) {
        float v = 0;
        int rc = ug_oracle_parse_value(ok[i].text, &v, why, sizeof why);
        UG_EXPECT_MSG(rc == 0 && same32(v, ok[i].want), "'%s' -> rc %d, %a (want %a) %s",
                      ok[i].text, rc, (double)v, (double)ok[i].want, rc ? why : "");
    }
    float v;
    UG_EXPECT(ug_oracle_parse_value("nan", &v, why, sizeof why) == 0 && isnan(v));
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"abc", "'abc' is not a number"},
        {"1.5x", "'1.5x' is not a number (unexpected 'x')"},
        {"0x", "'0x' is not a number (unexpected 'x')"},
        {"", "empty value"},
        /* 3.4028236e38 is above FLT_MAX + 2^103 ~ 3.40282357e38 */
        {"3.4028236e38", "'3.4028236e38' overflows binary32 (largest finite: 0x1.fffffep+127)"},
        {"-1e39", "'-1e39' overflows binary32 (largest finite: 0x1.fffffep+127)"},
    };
    for (size_t i = 0; i < NOF(bad); i++) {
        int rc = ug_oracle_parse_value(bad[i].text, &v, why, sizeof why);
        UG_EXPECT_MSG(rc == -1 && strcmp(why, bad[i].why) == 0, "'%s' -> rc %d, '%s' (want '%s')",
                      bad[i].text, rc, rc ? why : "", bad[i].why);
    }
}

/* Where the oracle's test files are: $UG_CORPUS_DIR, else the source tree's tests/corpus
 * (recorded at configure time), else ./tests/corpus.  (cases/corpus holds the corpus that
 * `ulpgate run` runs against the kernels.) */
static int corpus_dir(char *dir, size_t len)
{
    const char *env = getenv("UG_CORPUS_DIR");
    char cand[3][1024];
    int nc = 0;
    if (env && *env)
        snprintf(cand[nc++], sizeof cand[0], "%s", env);
    if (ug_data_path("tests/corpus", cand[nc], sizeof cand[0])) nc++;
    snprintf(cand[nc++], sizeof cand[0], "tests/corpus");
    for (int i = 0; i < nc; i++) {
        DIR *d = opendir(cand[i]);
        size_t l = strlen(cand[i]);
        if (d && l < len) {
            closedir(d);
            memcpy(dir, cand[i], l + 1);
            return 0;
        }
        if (d)
            closedir(d);
    }
    return -1;
}

/* A corpus file's "# expect-KEY: VALUE" header line, or NULL. */
typedef struct corpus_expect {
    char op[8], n[32], hi[64], lo[64], rn[64], rd[64], error[512], args[256], output[512];
} corpus_expect;

static void read_expect(FILE *f, corpus_expect *ce)
{
    char line[1024];
    memset(ce, 0, sizeof *ce);
    while (fgets(line, sizeof line, f)) {
        if (line[0] != '#')
            break;
        line[strcspn(line, "\n")] = '\0';
        static const struct {
            const char *key;
            size_t off, size;
        } keys[] = {
#define K(name) {"# expect-" #name ": ", offsetof(corpus_expect, name), sizeof ce->name}
            K(op), K(n), K(hi), K(lo), K(rn), K(rd), K(error), K(args), K(output),
#undef K
        };
        for (size_t k = 0; k < NOF(keys); k++)
            if (!strncmp(line, keys[k].key, strlen(keys[k].key)))
                snprintf((char *)ce + keys[k].off, keys[k].size, "%s",
                         line + strlen(keys[k].key));
    }
}

/* Runs `oracle ARGS PATH` in-process; returns its exit code with stdout and stderr captured. */
static int run_cmd(const char *args, const char *path, char **out, char **err)
{
    char buf[256], *argv[16];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", args);
    argv[argc++] = "oracle";
    for (char *tok = strtok(buf, " "); tok && argc < 14; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc++] = (char *)path;
    argv[argc] = NULL;
    size_t ol, el;
    FILE *fo = open_memstream(out, &ol), *fe = open_memstream(err, &el);
    if (!fo || !fe) {
        if (fo)
            fclose(fo);
        if (fe)
            fclose(fe);
        return -1;
    }
    int rc = ug_cmd_oracle_io(argc, argv, fo, fe);
    fclose(fo);
    fclose(fe);
    return rc;
}

static void check_corpus_file(ug_t *t, const char *dir, const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    UG_ASSERT_MSG(f != NULL, "%s: cannot open", path);
    corpus_expect ce;
    read_expect(f, &ce);
    fclose(f);
    UG_EXPECT_MSG(ce.op[0] && (ce.error[0] || ce.rn[0] || ce.output[0]),
                  "%s: header has no expect-op and expectations", name);
    int dot = !strcmp(ce.op, "dot");
    float *x = NULL, *y = NULL;
    size_t n = 0;
    char err[1024] = "";
    int rc = ug_oracle_parse_file(path, dot, &x, &y, &n, err, sizeof err);
    if (ce.error[0]) { /* "LINE: message" after the path */
        char want_err[2600];
        snprintf(want_err, sizeof want_err, "%s:%s", path, ce.error);
        UG_EXPECT_MSG(rc == 2 && !strcmp(err, want_err), "%s: rc %d, '%s' (want '%s')", name, rc,
                      err, want_err);
    } else {
        UG_EXPECT_MSG(rc == 0, "%s: %s", name, err);
        if (rc == 0 && ce.n[0])
            UG_EXPECT_MSG(n == strtoull(ce.n, NULL, 10), "%s: n = %zu, want %s", name, n, ce.n);
        if (rc == 0 && ce.rn[0]) {
            ug_exact a, b;
            if (dot) {
                ug_exact_dot_f32_fast(x, 1, y, 1, n, &a);
                ug_exact_dot_f32_mpfr(x, 1, y, 1, n, &b);
            } else {
                ug_exact_sum_f32_fast(x, n, &a);
                ug_exact_sum_f32_mpfr(x, n, &b);
            }
            ug_exact w = want(strtod(ce.hi, NULL), strtod(ce.lo, NULL), strtof(ce.rn, NULL),
                              strtof(ce.rd, NULL));
            if (isnan(w.rn))
                w = want_special(UG_X_NAN);
            check_exact(t, name, "fast", &a, &w, __LINE__);
            check_exact(t, name, "mpfr", &b, &w, __LINE__);
        }
    }
    free(x);
    free(y);
    if (ce.output[0] || ce.error[0]) { /* the whole subcommand, in-process */
        char *out = NULL, *errs = NULL;
        char args[300];
        snprintf(args, sizeof args, "%s%s", ce.args[0] ? ce.args : "--op ",
                 ce.args[0] ? "" : ce.op);
        int crc = run_cmd(args, path, &out, &errs);
        if (ce.output[0]) {
            char want_out[600];
            snprintf(want_out, sizeof want_out, "%s\n", ce.output);
            UG_EXPECT_MSG(crc == 0 && out && !strcmp(out, want_out),
                          "%s: oracle %s -> rc %d, stdout '%s' stderr '%s' (want '%s')", name,
                          args, crc, out ? out : "", errs ? errs : "", ce.output);
        } else {
            char want_err[2600];
            snprintf(want_err, sizeof want_err, "%s:%s\n", path, ce.error);
            UG_EXPECT_MSG(crc == 2 && errs && !strcmp(errs, want_err),
                          "%s: oracle %s -> rc %d, stderr '%s' (want '%s')", name, args, crc,
                          errs ? errs : "", want_err);
        }
        free(out);
        free(errs);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

UG_CASE(oracle, corpus)
{
    char dir[1024];
    UG_ASSERT_MSG(corpus_dir(dir, sizeof dir) == 0,
                  "tests/corpus not found (set UG_CORPUS_DIR; this source is %s)", __FILE__);
    DIR *d = opendir(dir);
    UG_ASSERT_MSG(d != NULL, "%s: cannot open", dir);
    char *names[256];
    int count = 0;
    for (struct dirent *de; (de = readdir(d)) && count < 256;) {
        size_t len = strlen(de->d_name);
        if (!strncmp(de->d_name, "oracle_", 7) && len > 4 && !strcmp(de->d_name + len - 4, ".txt"))
            names[count++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], cmp_str);
    UG_EXPECT_MSG(count >= 8, "only %d oracle_*.txt corpus files in %s", count, dir);
    for (int i = 0; i < count; i++) {
        if (names[i])
            check_corpus_file(t, dir, names[i]);
        free(names[i]);
    }
}

UG_CASE(oracle, command_errors)
{
    char *out = NULL, *err = NULL;
    /* a missing file is named */
    int rc = run_cmd("--op sum", "/nonexistent/ug-oracle-input.txt", &out, &err);
    UG_EXPECT_MSG(rc == 2 && err && strstr(err, "/nonexistent/ug-oracle-input.txt: cannot open"),
                  "rc %d, stderr '%s'", rc, err ? err : "");
    free(out);
    free(err);
    /* an unknown option: exit 2 with the usage */
    out = err = NULL;
    rc = run_cmd("--frobnicate", "x.txt", &out, &err);
    UG_EXPECT_MSG(rc == 2 && err && strstr(err, "unknown option '--frobnicate'") &&
                      strstr(err, "usage: ulpgate oracle"),
                  "rc %d, stderr '%s'", rc, err ? err : "");
    free(out);
    free(err);
    out = err = NULL;
    rc = run_cmd("--op mul", "x.txt", &out, &err);
    UG_EXPECT_MSG(rc == 2 && err && strstr(err, "'mul' is neither sum nor dot"), "rc %d, '%s'", rc,
                  err ? err : "");
    free(out);
    free(err);
    static const struct {
        const char *args, *msg;
    } usage_errors[] = {
        {"--oracle gmp", "--oracle: 'gmp' is neither fast nor mpfr"},
        {"a.txt", "more than one FILE ('x.txt')"}, /* run_cmd appends x.txt */
        {"--op", "--op: 'x.txt' is neither sum nor dot"}, /* --op takes x.txt as its value */
    };
    for (size_t i = 0; i < NOF(usage_errors); i++) {
        out = err = NULL;
        rc = run_cmd(usage_errors[i].args, "x.txt", &out, &err);
        UG_EXPECT_MSG(rc == 2 && err && strstr(err, usage_errors[i].msg) &&
                          strstr(err, "usage: ulpgate oracle"),
                      "oracle %s x.txt: rc %d, stderr '%s'", usage_errors[i].args, rc,
                      err ? err : "");
        free(out);
        free(err);
    }
    {
        char *argv[] = {"oracle", "--json", NULL};
        size_t ol, el;
        out = err = NULL;
        FILE *fo = open_memstream(&out, &ol), *fe = open_memstream(&err, &el);
        UG_ASSERT(fo && fe);
        rc = ug_cmd_oracle_io(2, argv, fo, fe);
        fclose(fo);
        fclose(fe);
        UG_EXPECT_MSG(rc == 2 && strstr(err, "no FILE given"), "rc %d, stderr '%s'", rc, err);
        free(out);
        free(err);
        char *argv2[] = {"oracle", "x.txt", "--op", NULL};
        out = err = NULL;
        fo = open_memstream(&out, &ol);
        fe = open_memstream(&err, &el);
        UG_ASSERT(fo && fe);
        rc = ug_cmd_oracle_io(3, argv2, fo, fe);
        fclose(fo);
        fclose(fe);
        UG_EXPECT_MSG(rc == 2 && strstr(err, "--op needs a value (sum or dot)"),
                      "rc %d, stderr '%s'", rc, err);
        free(out);
        free(err);
    }
    out = err = NULL;
    rc = run_cmd("--got 1e40", "x.txt", &out, &err);
    UG_EXPECT_MSG(rc == 2 && err && strstr(err, "--got: '1e40' overflows binary32"), "rc %d, '%s'",
                  rc, err ? err : "");
    free(out);
    free(err);
}

/* The text output, on corpus files (hand-derived lines; see the files' headers). */
UG_CASE(oracle, command_text)
{
    char dir[1024];
    UG_ASSERT_MSG(corpus_dir(dir, sizeof dir) == 0, "tests/corpus not found (set UG_CORPUS_DIR)");
    static const struct {
        const char *file, *args, *want;
    } c[] = {
        /* 1 + 2^-149: "0x1." then 37 zero hex digits and 8 (2^-149 = 2^3 * 2^-152, the top bit
         * of the 38th digit); 150 significant bits; --got 1 is 2^-149 ~ 1.4013e-45 off, which
         * is 2^-126 ~ 1.17549e-38 ulp32(1) */
        {"oracle_sum_cancel.txt", "--op sum --oracle fast --got 1",
         "op       sum of 4 binary32 values\n"
         "exact    0x1.00000000000000000000000000000000000008p+0\n"
         "         (does not fit binary64: 150 significant bits; nearest binary64 0x1p+0)\n"
         "rounded  0x1p+0 = 1   (binary32, round to nearest even)\n"
         "got      0x1p+0 = 1\n"
         "error    1.17549e-38 ulp   abs 1.4013e-45   rel 1.4013e-45\n"
         "oracle   fast\n"},
        {"oracle_dot_basic.txt", "--op dot --oracle mpfr",
         "op       dot of 4 binary32 pairs\n"
         "exact    0x1.bcp+3\n"
         "rounded  0x1.bcp+3 = 13.875   (binary32, round to nearest even)\n"
         "oracle   mpfr\n"},
        {"oracle_sum_negative.txt", "--oracle fast",
         "op       sum of 2 binary32 values\n"
         "exact    -0x1.000000000000001p+0\n"
         "         (does not fit binary64: 61 significant bits; nearest binary64 -0x1p+0)\n"
         "rounded  -0x1p+0 = -1   (binary32, round to nearest even)\n"
         "oracle   fast\n"},
        {"oracle_sum_specials.txt", "--oracle fast --got nan",
         "op       sum of 3 binary32 values\n"
         "exact    nan\n"
         "rounded  nan = nan   (binary32, round to nearest even)\n"
         "got      nan = nan\n"
         "error    0 ulp   abs 0   rel 0\n"
         "oracle   fast\n"},
        {"oracle_sum_empty.txt", "--oracle fast",
         "op       sum of 0 binary32 values\n"
         "exact    0x0p+0\n"
         "rounded  0x0p+0 = 0   (binary32, round to nearest even)\n"
         "oracle   fast\n"},
    };
    for (size_t i = 0; i < NOF(c); i++) {
        char path[2048], *out = NULL, *err = NULL;
        snprintf(path, sizeof path, "%s/%s", dir, c[i].file);
        int rc = run_cmd(c[i].args, path, &out, &err);
        UG_EXPECT_MSG(rc == 0 && out && !strcmp(out, c[i].want),
                      "oracle %s %s -> rc %d\n--- stdout:\n%s--- stderr:\n%s--- want:\n%s",
                      c[i].args, c[i].file, rc, out ? out : "", err ? err : "", c[i].want);
        free(out);
        free(err);
    }
}

/* Write text (len bytes) to a fresh temporary file; its path into path. */
static int ug_tmp_text(char *path, size_t pathlen, const char *text, size_t len)
{
    snprintf(path, pathlen, "/tmp/ulpgate-values-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) return -1;
    size_t w = fwrite(text, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

/* Bounded input (values.h): line ends LF, CR LF and a lone CR, a BOM skipped, a line beyond
 * UG_VALUES_LINE_MAX bytes or holding a control byte refused at once, naming FILE:LINE. */
UG_CASE(oracle, parse_bounded_input)
{
    static char big[UG_VALUES_LINE_MAX + 64];
    char path[64], err[600];
    ug_values v;
    /* the longest line allowed: UG_VALUES_LINE_MAX bytes (blanks, then a value) */
    memset(big, ' ', UG_VALUES_LINE_MAX - 1);
    big[UG_VALUES_LINE_MAX - 1] = '7';
    big[UG_VALUES_LINE_MAX] = '\n';
    UG_ASSERT(ug_tmp_text(path, sizeof path, big, UG_VALUES_LINE_MAX + 1) == 0);
    int rc = ug_values_read(path, 1, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 0 && v.n == 1 && v.x[0] == 7.0f, "a %d-byte line: rc %d %s", UG_VALUES_LINE_MAX, rc, rc ? err : "");
    if (rc == 0) ug_values_free(&v);
    unlink(path);
    /* one byte more */
    memset(big, ' ', UG_VALUES_LINE_MAX);
    big[UG_VALUES_LINE_MAX] = '7';
    big[UG_VALUES_LINE_MAX + 1] = '\n';
    UG_ASSERT(ug_tmp_text(path, sizeof path, big, UG_VALUES_LINE_MAX + 2) == 0);
    rc = ug_values_read(path, 1, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 2 && strstr(err, ":1: line too long (more than 4096 bytes)"), "rc %d: %s", rc, err);
    unlink(path);
    /* /dev/zero: refused at its first byte, not read through */
    rc = ug_values_read("/dev/zero", 1, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 2 && !strcmp(err, "/dev/zero:1: NUL byte (not a text file?)"), "rc %d: %s", rc, err);
    /* a control byte (ESC) in line 2: named by its value, not printed */
    UG_ASSERT(ug_tmp_text(path, sizeof path, "1\n2\x1b[2J\n", 7) == 0);
    rc = ug_values_read(path, 1, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 2 && strstr(err, ":2: control byte 0x1b at column 2") && !strchr(err, 0x1b),
                  "rc %d: %s", rc, err);
    unlink(path);
    /* a UTF-8 BOM, then CR LF line ends: two records; an error counts lines the same way */
    UG_ASSERT(ug_tmp_text(path, sizeof path, "\xef\xbb\xbf" "1\r\n2\r\n", 9) == 0);
    rc = ug_values_read(path, 1, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 0 && v.n == 2 && v.x[0] == 1.0f && v.x[1] == 2.0f, "BOM + CRLF: rc %d %s", rc, rc ? err : "");
    if (rc == 0) ug_values_free(&v);
    unlink(path);
    UG_ASSERT(ug_tmp_text(path, sizeof path, "1\r\nx\r\n", 6) == 0);
    rc = ug_values_read(path, 1, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 2 && strstr(err, ":2: 'x' is not a number"), "rc %d: %s", rc, err);
    unlink(path);
    /* lone CRs end lines (old Mac text): three records, not one line of three values */
    UG_ASSERT(ug_tmp_text(path, sizeof path, "1\r2\r3", 5) == 0);
    rc = ug_values_read(path, 1, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 0 && v.n == 3 && v.x[2] == 3.0f, "lone CR: rc %d %s", rc, rc ? err : "");
    if (rc == 0) ug_values_free(&v);
    unlink(path);
}
