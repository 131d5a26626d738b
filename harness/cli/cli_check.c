/*
 * cli_check.c - `ulpgate check`: grade results computed anywhere (PyTorch, Triton, JAX, CuPy,
 * NumPy) and saved as .npy files, against the exact results of the operation table.
 *
 *   ulpgate check --op sum|dot|gemm|... --got GOT.npy X.npy [Y.npy [Z.npy]]
 *                 [--dtype bf16|e4m3|e5m2]
 *                 [--ulp-max U] [--rel-max R] [--correctly-rounded] [--bound CLASS]
 *                 [--acc FMT] [--op-fmt FMT] [--depth D] [--json]
 *                 [--oracle fast|mpfr]
 *
 * The inputs are memory-mapped (harness/inputs/npy.h) and handed to the grading library
 * (harness/check/check.h) as arrays in place: this file is the command line and the files,
 * the library is everything else.  Exit 0, 1 past a limit, 2 bad input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "harness/check/check.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_check.h"
#include "harness/inputs/npy.h"

static const char check_usage[] =
    "usage: ulpgate check --op OP --got GOT.npy X.npy [Y.npy [Z.npy]] [options]\n"
    "  sum, asum, nrm2: X (n) or (B, n); GOT () or (1,), or (B,)\n"
    "  scan, exscan: X (n) or (B, n);    GOT the shape of X (every prefix graded)\n"
    "  dot:  X, Y (n) or (B, n);          GOT () or (1,), or (B,)\n"
    "  gemm: X=A (M, K) or (Bt, M, K), Y=B (K, N) or (Bt, K, N); GOT (M, N) or (Bt, M, N)\n"
    "  softmax, logsumexp: X (n) or (B, n) over the last axis; GOT as X (softmax), or () / (B,)\n"
    "  rmsnorm: X (n) or (B, n), Y = the weight (n); GOT as X (eps 1e-5)\n"
    "  layernorm: X (n) or (B, n), Y = the weight (n), Z = the bias (n); GOT as X (eps 1e-5)\n"
    "  dtypes: '<f2' '<f4' '<f8' (either byte order); bfloat16 / fp8 bit patterns saved as\n"
    "          uint16 / uint8 with --dtype bf16 | e4m3 | e5m2\n"
    "  --ulp-max U    exit 1 when an output's error exceeds U ULP of GOT's format\n"
    "  --rel-max R    exit 1 when an output's relative error exceeds R\n"
    "  --correctly-rounded  exit 1 when an output is not bit for bit the correctly rounded\n"
    "                 result (the exact value rounded to nearest in GOT's format; -0 is not +0)\n"
    "  --bound CLASS  exit 1 when an output breaks the a-priori bound of CLASS (the classes of\n"
    "                 <ulpgate/ulpgate.h>, the arithmetic that grades a plugin of that class):\n"
    "    tree         sums, dots, GEMMs: gamma_D with u of GOT's format (any order of depth D)\n"
    "    kahan, neumaier  compensated summation (binary32 accumulator)\n"
    "    wide_acc     a wider accumulator (--acc, default binary64) rounded once to GOT\n"
    "    bf16_out     binary32 accumulation rounded once to bfloat16: PyTorch's bf16 matmul\n"
    "                 and sum on CPU, cuBLAS bf16 GEMMs with a SIMT kernel\n"
    "    tf32, f16, bf16  operands rounded to TF32 / binary16 / bfloat16, binary32 accumulation:\n"
    "                 cuBLAS with TF32 or reduced-precision math modes\n"
    "    bf16x9       binary32 emulated by 3x3 bfloat16 products (cuBLAS's BF16x9)\n"
    "    block_fma    tensor-core blocks of fused products (cuBLAS/cuBLASLt bf16/fp16/fp8\n"
    "                 GEMMs, torch.matmul on a GPU); --op-fmt the MMA's operand format\n"
    "                 (default the inputs'), --acc f32 or f16; the published envelope model\n"
    "    block_fma_promoted  the same, each 128-term chunk added to a binary32 sum (DeepSeek)\n"
    "    bs_fp8_promoted  block-scaled fp8 GEMMs (--op gemm_bs): e4m3 elements in the fp8\n"
    "                 tensor core, each 128-term chunk scaled and added to a binary32 sum\n"
    "    f64_tree, f64_kahan  binary64 data, accumulator and output\n"
    "    f16_acc      binary16 values summed in a binary16 accumulator\n"
    "    softmax_naive, softmax_shifted, softmax_online  softmax (torch.softmax: shifted;\n"
    "                 fused kernels, FlashAttention: online)\n"
    "    lse_naive, lse_shifted, lse_online  logsumexp (torch.logsumexp: shifted)\n"
    "    rmsnorm      RMSNorm;  layernorm_twopass, layernorm_onepass, layernorm_welford\n"
    "                 LayerNorm (torch.nn.functional.layer_norm on CPU: twopass)\n"
    "  --acc FMT      a class's accumulator format (f32 default; f16, f64)\n"
    "  --op-fmt FMT   a class's operand format (block_fma: bf16, f16, e4m3, e5m2, tf32 ...)\n"
    "  --tc-model GPU block_fma's tensor-core model: envelope (default: every published model\n"
    "                 inside it), or a GPU of reports/tensorcore/params.tsv (H100, B200, ...)\n"
    "  --depth D      the bound's depth: the most additions a term passes (default n - 1)\n"
    "  --json         one JSON object (docs/check.md lists the keys)\n"
    "  --oracle K     fast (default) or mpfr: both exact\n"
    "  --axis A       a row operation's axis: -1 (the last, the only one supported)\n";

static int check_usage_error(FILE *err, const char *fmt, const char *arg)
{
    fputs("ulpgate check: ", err);
    fprintf(err, fmt, arg);
    fputc('\n', err);
    fputs(check_usage, err);
    return 2;
}

/* ---- the command ----------------------------------------------------------------------------- */

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0) return NULL;
    if (argv[*i][len] == '=') return argv[*i] + len + 1;
    if (argv[*i][len] == '\0' && *i + 1 < argc) return argv[++*i];
    return NULL;
}

static int is_opt(const char *a, const char *name)
{
    size_t len = strlen(name);
    return !strncmp(a, name, len) && (a[len] == '\0' || a[len] == '=');
}

/* A nonnegative number for option name; 0, or 2 after the usage error. */
static int parse_limit(FILE *err, const char *name, const char *val, double *out)
{
    char *end;
    if (!val) return check_usage_error(err, "%s needs a value", name);
    *out = strtod(val, &end);
    if (end == val || *end || !(*out >= 0)) {
        char what[200];
        snprintf(what, sizeof what, "%s: '%.100s' is not a nonnegative number", name, val);
        return check_usage_error(err, "%s", what);
    }
    return 0;
}

int ug_cmd_check_io(int argc, char **argv, FILE *out, FILE *err)
{
    for (int i = 1; i + 1 < argc; i++) /* heads of Q, K, V (attention): cli_check_attn.c */
        if (!strcmp(argv[i], "--op") && ug_op_find(argv[i + 1]) &&
            ug_op_find(argv[i + 1])->shape->layout == UG_LAYOUT_HEADS)
            return ug_cmd_check_attention(argc, argv, out, err);
    const char *gotpath = NULL, *paths[UG_CHECK_MAX_INPUTS] = {0}, *val;
    int npaths = 0, json = 0, rc;
    ug_fmt bits_fmt = UG_FMT_COUNT;
    ug_check_opts o;
    ug_check_opts_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--correctly-rounded")) {
            o.correctly_rounded = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(check_usage, out);
            return 0;
        } else if (is_opt(a, "--op")) {
            if (!(o.op = opt_value(argc, argv, &i, "--op")))
                return check_usage_error(err, "%s needs a value", a);
        } else if (is_opt(a, "--got")) {
            if (!(gotpath = opt_value(argc, argv, &i, "--got")))
                return check_usage_error(err, "%s needs a file", a);
        } else if (is_opt(a, "--dtype")) {
            val = opt_value(argc, argv, &i, "--dtype");
            bits_fmt = val ? ug_fmt_parse(val) : UG_FMT_COUNT;
            if (bits_fmt != UG_BF16 && bits_fmt != UG_E4M3 && bits_fmt != UG_E5M2)
                return check_usage_error(err, "--dtype: '%s' is not bf16, e4m3 or e5m2",
                                         val ? val : "");
        } else if (is_opt(a, "--ulp-max")) {
            if ((rc = parse_limit(err, a, opt_value(argc, argv, &i, "--ulp-max"), &o.ulp_max)))
                return rc;
        } else if (is_opt(a, "--rel-max")) {
            if ((rc = parse_limit(err, a, opt_value(argc, argv, &i, "--rel-max"), &o.rel_max)))
                return rc;
        } else if (is_opt(a, "--depth")) {
            if ((rc = parse_limit(err, a, opt_value(argc, argv, &i, "--depth"), &o.depth)))
                return rc;
            if (o.depth != floor(o.depth) || o.depth > 1e15)
                return check_usage_error(err, "--depth: '%s' is not a whole number from 0 to "
                                              "10^15", argv[i]);
        } else if (is_opt(a, "--bound")) {
            if (!(o.bound = opt_value(argc, argv, &i, "--bound")))
                return check_usage_error(err, "%s needs a class", a); /* checked with --op */
        } else if (is_opt(a, "--tc-model")) {
            if (!(o.tc_model = opt_value(argc, argv, &i, "--tc-model")))
                return check_usage_error(err, "%s needs a GPU (H100, ...) or envelope", a);
        } else if (is_opt(a, "--acc") || is_opt(a, "--op-fmt")) {
            bool acc = is_opt(a, "--acc");
            val = opt_value(argc, argv, &i, acc ? "--acc" : "--op-fmt");
            ug_fmt f = val ? ug_fmt_parse(val) : UG_FMT_COUNT;
            if (f == UG_FMT_COUNT)
                return check_usage_error(err, "'%s' is not a number format (f64, f32, tf32, f16, "
                                              "bf16, e4m3, e5m2)", val ? val : "");
            *(acc ? &o.acc_fmt : &o.op_fmt) = f;
        } else if (is_opt(a, "--axis")) {
            val = opt_value(argc, argv, &i, "--axis");
            if (!val || (strcmp(val, "-1") && strcmp(val, "0") && strcmp(val, "1")))
                return check_usage_error(err, "--axis: '%s' is not -1 (the last axis)",
                                         val ? val : "");
            o.axis = atoi(val);
        } else if (is_opt(a, "--oracle")) {
            val = opt_value(argc, argv, &i, "--oracle");
            if (!val || (strcmp(val, "fast") && strcmp(val, "mpfr")))
                return check_usage_error(err, "--oracle: '%s' is neither fast nor mpfr",
                                         val ? val : "");
            o.mpfr = !strcmp(val, "mpfr");
        } else if (a[0] == '-' && a[1] != '\0') {
            return check_usage_error(err, "unknown option '%s'", a);
        } else if (npaths == UG_CHECK_MAX_INPUTS) {
            return check_usage_error(err, "too many input files ('%s')", a);
        } else {
            paths[npaths++] = a;
        }
    }
    if (!o.op) return check_usage_error(err, "%s", "no --op given");
    char msg[1024];
    const ug_op_desc *op;
    int arity;
    if (ug_check_prepare(&o, &op, &arity, msg, sizeof msg))
        return check_usage_error(err, "%s", msg);
    if (o.mpfr) ug_oracle_select(UG_ORACLE_MPFR);
    if (!gotpath) return check_usage_error(err, "%s", "no --got file given");
    if (npaths != arity)
        return check_usage_error(err, arity == 1   ? "--op %s takes one input file"
                                      : arity == 2 ? "--op %s takes two input files"
                                                   : "--op %s takes three input files (X, "
                                                     "the weight, the bias)",
                                 o.op);

    ug_npy f[UG_CHECK_MAX_INPUTS], g;
    ug_array in[UG_CHECK_MAX_INPUTS];
    int opened = 0;
    bool got_open = false;
    rc = 2;
    for (; opened < arity; opened++) {
        if (ug_npy_open(&f[opened], paths[opened], bits_fmt, msg, sizeof msg) != 0) goto bad;
        in[opened] = f[opened].array; /* a copy of the struct: the data stays mapped */
    }
    if (ug_npy_open(&g, gotpath, bits_fmt, msg, sizeof msg) != 0) goto bad;
    got_open = true;
    ug_array got = g.array;
    ug_check_result r;
    if (ug_check_run(&o, in, arity, &got, &r, msg, sizeof msg) != 0) goto bad;
    ug_buf text = {0};
    if (json) ug_check_json(&text, &r);
    else ug_check_table(&text, &r);
    fputs(ug_buf_str(&text), out);
    ug_buf_free(&text);
    rc = r.ok ? 0 : 1;
    goto out;
bad:
    fprintf(err, "ulpgate check: %s\n", msg);
out:
    for (int i = 0; i < opened; i++) ug_npy_close(&f[i]);
    if (got_open) ug_npy_close(&g);
    return rc;
}

int ug_cmd_check(int argc, char **argv)
{
    return ug_cmd_check_io(argc, argv, stdout, stderr);
}
