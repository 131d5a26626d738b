/*
 * cli_oracle.c - `ulpgate oracle`: the exact sum or dot product of the binary32 values in a file
 * (values.h reads it), its correctly rounded binary32 value and, with --got, the error of a
 * computed one.  The exact value is printed with every bit, from the MPFR oracle.
 *
 *   ulpgate oracle [--op sum|dot] [--json] [--got X] [--oracle fast|mpfr] FILE
 */
#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "oracle/exact_mpfr.h"
#include "harness/inputs/values.h"
#include "ops/op.h"

static const char usage_text[] =
    "usage: ulpgate oracle [--op sum|dot] [--json] [--got X] [--oracle fast|mpfr] FILE\n"
    "  FILE     one binary32 value per line (--op sum, the default) or two (--op dot: \"x y\" or\n"
    "           \"x, y\"); decimal (rounded to the nearest binary32) or C99 hex-float, inf, -inf,\n"
    "           nan; '#' starts a comment; blank lines are skipped; '-' reads stdin.\n"
    "  --got X  also report the error of the computed value X (read like a file value)\n"
    "  --json   one line: {\"op\",\"n\",\"exact\" (binary64 nearest the exact value),\n"
    "           \"rounded\" (binary32), \"ulp_error\" (with --got; null when infinite)}\n"
    "  --oracle which implementation computes the result (default fast; both are exact)\n";

/* ---- output ---------------------------------------------------------------------------------- */

/* The exact value of s in C99 hex-float, normalised like printf's %a for binary64 ("0x1.8p+1",
 * "-0x0p+0"): every significant bit, however many. */
static void print_hex_exact(FILE *out, mpfr_srcptr s)
{
    if (mpfr_nan_p(s)) {
        fputs("nan", out);
        return;
    }
    if (mpfr_inf_p(s)) {
        fputs(mpfr_signbit(s) ? "-inf" : "inf", out);
        return;
    }
    if (mpfr_zero_p(s)) {
        fputs(mpfr_signbit(s) ? "-0x0p+0" : "0x0p+0", out);
        return;
    }
    mpz_t m;
    mpz_init(m);
    long e = (long)mpfr_get_z_2exp(m, s); /* s = m 2^e exactly */
    int neg = mpz_sgn(m) < 0;
    mpz_abs(m, m);
    mp_bitcnt_t tz = mpz_scan1(m, 0);
    mpz_tdiv_q_2exp(m, m, tz);
    e += (long)tz;
    size_t bits = mpz_sizeinbase(m, 2); /* m = 1.f * 2^(bits-1) */
    long exp2 = e + (long)bits - 1;
    mpz_clrbit(m, bits - 1); /* the fraction f, bits - 1 of them */
    size_t fbits = bits - 1, pad = (4 - fbits % 4) % 4;
    mpz_mul_2exp(m, m, pad);
    fprintf(out, "%s0x1", neg ? "-" : "");
    if (fbits) {
        size_t digits = (fbits + pad) / 4;
        char *hex = mpz_get_str(NULL, 16, m);
        size_t len = strlen(hex);
        fputc('.', out);
        for (size_t i = len; i < digits; i++) /* leading zero digits of the fraction */
            fputc('0', out);
        fputs(hex, out);
        void (*freefunc)(void *, size_t);
        mp_get_memory_functions(NULL, NULL, &freefunc);
        freefunc(hex, len + 1);
    }
    fprintf(out, "p%+ld", exp2);
    mpz_clear(m);
}

/* %a of a binary32/64 value, with plain inf/-inf/nan. */
static void print_hex(FILE *out, double v)
{
    if (isnan(v))
        fputs("nan", out);
    else if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", out);
    else
        fprintf(out, "%a", v);
}

static void print_number_json(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

static int usage(FILE *err, const char *fmt, const char *arg)
{
    fputs("ulpgate oracle: ", err);
    fprintf(err, fmt, arg);
    fputc('\n', err);
    fputs(usage_text, err);
    return 2;
}

/* An option's value: "--opt value" or "--opt=value". */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (argv[*i][len] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

int ug_cmd_oracle_io(int argc, char **argv, FILE *out, FILE *err)
{
    int dot = 0, json = 0, have_got = 0;
    ug_oracle_kind kind = ug_oracle_selected();
    const char *path = NULL, *val;
    float got = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, out);
            return 0;
        } else if (!strncmp(a, "--op", 4) && (a[4] == '\0' || a[4] == '=')) {
            if (!(val = option_value(argc, argv, &i, "--op")))
                return usage(err, "%s needs a value (sum or dot)", a);
            /* a sum of its index-aligned terms: sum (one input) or dot (two) */
            const ug_op_desc *d = ug_op_find(val);
            if (d && d->exact_is_sum && d->term_attribution)
                dot = d->shape->arity == 2;
            else
                return usage(err, "--op: '%s' is neither sum nor dot", val);
        } else if (!strncmp(a, "--oracle", 8) && (a[8] == '\0' || a[8] == '=')) {
            if (!(val = option_value(argc, argv, &i, "--oracle")))
                return usage(err, "%s needs a value (fast or mpfr)", a);
            if (!strcmp(val, "fast") || !strcmp(val, "mpfr"))
                kind = !strcmp(val, "mpfr") ? UG_ORACLE_MPFR : UG_ORACLE_FAST;
            else
                return usage(err, "--oracle: '%s' is neither fast nor mpfr", val);
        } else if (!strncmp(a, "--got", 5) && (a[5] == '\0' || a[5] == '=')) {
            char why[160];
            if (!(val = option_value(argc, argv, &i, "--got")))
                return usage(err, "%s needs a value", a);
            if (ug_oracle_parse_value(val, &got, why, sizeof why) != 0) {
                fprintf(err, "ulpgate oracle: --got: %s\n", why);
                return 2;
            }
            have_got = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage(err, "unknown option '%s'", a);
        } else if (path) {
            return usage(err, "more than one FILE ('%s')", a);
        } else {
            path = a;
        }
    }
    if (!path)
        return usage(err, "%s", "no FILE given");

    float *x = NULL, *y = NULL;
    size_t n = 0;
    char msg[512];
    if (ug_oracle_parse_file(path, dot, &x, &y, &n, msg, sizeof msg) != 0) {
        fprintf(err, "%s\n", msg);
        return 2;
    }
    ug_exact e;
    if (kind == UG_ORACLE_MPFR) {
        if (dot)
            ug_exact_dot_f32_mpfr(x, 1, y, 1, n, &e);
        else
            ug_exact_sum_f32_mpfr(x, n, &e);
    } else {
        if (dot)
            ug_exact_dot_f32_fast(x, 1, y, 1, n, &e);
        else
            ug_exact_sum_f32_fast(x, n, &e);
    }
    ug_error er = have_got ? ug_error_of(&e, got) : (ug_error){0, 0, 0};
    const char *op = dot ? "dot" : "sum";

    if (json) {
        fprintf(out, "{\"op\":\"%s\",\"n\":%zu,\"exact\":\"", op, n);
        print_hex(out, e.hi);
        fputs("\",\"rounded\":\"", out);
        print_hex(out, e.rn);
        fputc('"', out);
        if (have_got) {
            fputs(",\"ulp_error\":", out);
            print_number_json(out, er.ulp);
        }
        fputs("}\n", out);
    } else {
        mpfr_t s;
        ug_mpfr_exact_value_f32(x, 1, y, 1, n, s);
        fprintf(out, "op       %s of %zu binary32 %s\n", op, n, dot ? "pairs" : "values");
        fputs("exact    ", out);
        print_hex_exact(out, s);
        fputc('\n', out);
        if (e.cls == UG_X_FINITE && (!isfinite(e.hi) || mpfr_cmp_d(s, e.hi) != 0)) {
            fprintf(out, "         (does not fit binary64: %ld significant bits; nearest "
                         "binary64 ",
                    (long)(mpfr_zero_p(s) ? 0 : mpfr_min_prec(s)));
            print_hex(out, e.hi);
            fputs(")\n", out);
        }
        fputs("rounded  ", out);
        print_hex(out, e.rn);
        fprintf(out, " = %.9g   (binary32, round to nearest even)\n", (double)e.rn);
        if (have_got) {
            fputs("got      ", out);
            print_hex(out, got);
            fprintf(out, " = %.9g\n", (double)got);
            fprintf(out, "error    %.6g ulp   abs %.6g   rel %.6g\n", er.ulp, er.abs, er.rel);
        }
        fprintf(out, "oracle   %s\n", ug_oracle_name(kind));
        mpfr_clear(s);
    }
    free(x);
    free(y);
    return 0;
}

int ug_cmd_oracle(int argc, char **argv)
{
    return ug_cmd_oracle_io(argc, argv, stdout, stderr);
}
