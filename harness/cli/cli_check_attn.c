/*
 * cli_check_attn.c - `ulpgate check --op attention`: grade an attention output computed
 * anywhere (PyTorch's scaled_dot_product_attention, FlashAttention, a Triton kernel) and saved
 * as .npy files, against the correctly rounded reference (oracle/attention/exact_attention.h).
 *
 *   ulpgate check --op attention --got O.npy Q.npy K.npy V.npy [--lse LSE.npy] [--causal]
 *                 [--scale C] [--dtype bf16] [--ulp-max U] [--rel-max R] [--json]
 *                 [--bound CLASS] [--correctly-rounded] [--oracle fast|mpfr]
 *
 * Shapes (PyTorch's layout): Q (L, d), K (S, d), V (S, dv), O (L, dv); or with leading axes
 * (H, ...) or (B, H, ...): Q and O (B, H, L, .), K and V (B, H_kv, S, .) with H a multiple of
 * H_kv (grouped-query attention: query head h reads key/value head h / (H / H_kv)).  LSE, if
 * given: (L), (H, L) or (B, H, L).  The scale: --scale C (a binary32 value: RN32 of C), else
 * RN32(1/sqrt(d)), the value the reference and any kernel can take (docs/operations-
 * attention.md).  --causal: bottom-right aligned (row i sees keys k <= i + S - L).
 * The grading is the library's (harness/check/check_attn.c: the descriptor's exact records and
 * its classes' bounds, check's figures): max and mean ULP of GOT's format, relative error, the
 * worst output (its flat index); O and lse are graded apart, one table each.  --bound CLASS:
 * an attention class's bound.  Exit 0, 1 past a limit, 2 bad input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "harness/check/check.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_check.h"
#include "harness/inputs/npy.h"

static const char attn_usage[] =
    "usage: ulpgate check --op attention --got O.npy Q.npy K.npy V.npy [options]\n"
    "  Q (L, d), K (S, d), V (S, dv), O (L, dv); or (H, ., .) / (B, H, ., .) with K and V of\n"
    "  H_kv heads, H a multiple of H_kv (grouped-query attention)\n"
    "  --lse LSE.npy  also grade the row log-sum-exp: (L), (H, L) or (B, H, L)\n"
    "  --causal       mask bottom-right aligned: row i sees keys k <= i + S - L\n"
    "  --scale C      the scale, rounded to binary32 (default RN32(1/sqrt(d)))\n"
    "  --dtype bf16   uint16 files hold bfloat16 bit patterns\n"
    "  --ulp-max U    exit 1 when an output's error exceeds U ULP of GOT's format\n"
    "  --rel-max R    exit 1 when an output's relative error exceeds R\n"
    "  --correctly-rounded  exit 1 when an output is not the correctly rounded result\n"
    "  --bound CLASS  exit 1 past the bound of an attention class: attn_naive, attn_naive_bf16\n"
    "                 (PyTorch's MATH backend on bf16), attn_unshifted, attn_online,\n"
    "                 attn_fa2_bf16 (FlashAttention-2 on bf16), attn_split_size,\n"
    "                 attn_split_count (split-KV decoding), attn_fa2_mma (FA2 on tensor cores)\n"
    "  --json         one JSON object per graded output (O, then lse)\n"
    "  --oracle K     fast (default) or mpfr: both correctly rounded\n";

static int attn_usage_error(FILE *err, const char *fmt, const char *arg)
{
    fputs("ulpgate check: ", err);
    fprintf(err, fmt, arg);
    fputc('\n', err);
    fputs(attn_usage, err);
    return 2;
}

int ug_cmd_check_attention(int argc, char **argv, FILE *out, FILE *err)
{
    const char *gotpath = NULL, *lsepath = NULL, *paths[3] = {0}, *val;
    int npaths = 0, json = 0;
    ug_fmt bits_fmt = UG_FMT_COUNT;
    ug_check_opts o;
    ug_check_opts_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *end;
        if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--causal")) o.causal = true;
        else if (!strcmp(a, "--correctly-rounded")) o.correctly_rounded = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(attn_usage, out);
            return 0;
        } else if (!strcmp(a, "--op") || !strcmp(a, "--got") || !strcmp(a, "--lse") ||
                   !strcmp(a, "--scale") || !strcmp(a, "--ulp-max") || !strcmp(a, "--rel-max") ||
                   !strcmp(a, "--dtype") || !strcmp(a, "--oracle") || !strcmp(a, "--bound")) {
            if (i + 1 >= argc) return attn_usage_error(err, "%s needs a value", a);
            val = argv[++i];
            if (!strcmp(a, "--op")) o.op = val;
            else if (!strcmp(a, "--got")) gotpath = val;
            else if (!strcmp(a, "--lse")) lsepath = val;
            else if (!strcmp(a, "--bound")) o.bound = val; /* checked by the library */
            else if (!strcmp(a, "--dtype")) {
                bits_fmt = ug_fmt_parse(val);
                if (bits_fmt != UG_BF16) return attn_usage_error(err, "--dtype: '%s' is not bf16", val);
            } else if (!strcmp(a, "--oracle")) {
                if (strcmp(val, "fast") && strcmp(val, "mpfr"))
                    return attn_usage_error(err, "--oracle: '%s' is neither fast nor mpfr", val);
                o.mpfr = !strcmp(val, "mpfr");
            } else {
                double v = strtod(val, &end);
                if (end == val || *end || !(v >= 0) || (!strcmp(a, "--scale") && !(v > 0 && v < 3e38)))
                    return attn_usage_error(err, "'%s' is not a positive number in range", val);
                if (!strcmp(a, "--scale")) o.scale = v;
                else if (!strcmp(a, "--ulp-max")) o.ulp_max = v;
                else o.rel_max = v;
            }
        } else if (!strncmp(a, "--op=", 5)) {
            o.op = a + 5;
        } else if (a[0] == '-' && a[1]) {
            return attn_usage_error(err, "unknown option '%s'", a);
        } else if (npaths == 3) {
            return attn_usage_error(err, "too many input files ('%s')", a);
        } else {
            paths[npaths++] = a;
        }
    }
    if (!gotpath) return attn_usage_error(err, "%s", "no --got file given");
    if (npaths != 3) return attn_usage_error(err, "%s", "--op attention takes three input files: Q K V");

    ug_npy f[5];
    const char *names[5] = {paths[0], paths[1], paths[2], gotpath, lsepath};
    int opened = 0, rc = 2, nfiles = lsepath ? 5 : 4;
    char msg[1024];
    for (; opened < nfiles; opened++)
        if (ug_npy_open(&f[opened], names[opened], bits_fmt, msg, sizeof msg) != 0) {
            fprintf(err, "ulpgate check: %s\n", msg);
            goto out;
        }
    ug_array in[3] = {f[0].array, f[1].array, f[2].array};
    ug_check_result r[2];
    if (ug_check_attention(&o, in, &f[3].array, lsepath ? &f[4].array : NULL, &r[0], &r[1], msg,
                           sizeof msg)) {
        fprintf(err, "ulpgate check: %s\n", msg);
        goto out;
    }
    rc = 0;
    for (int part = 0; part < (lsepath ? 2 : 1); part++) {
        if (!r[part].ok) rc = 1;
        if (!json) fprintf(out, "%s (%s):\n", part ? "lse" : "O", part ? lsepath : gotpath);
        ug_buf b = {0};
        if (json) ug_check_json(&b, &r[part]);
        else ug_check_table(&b, &r[part]);
        fputs(ug_buf_str(&b), out);
        ug_buf_free(&b);
    }
out:
    for (int i = 0; i < opened; i++) ug_npy_close(&f[i]);
    return rc;
}
