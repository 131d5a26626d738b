/*
 * cli_check_attn.c - `ulpgate check --op attention`: grade an attention output computed
 * anywhere (PyTorch's scaled_dot_product_attention, FlashAttention, a Triton kernel) and saved
 * as .npy files, against the correctly rounded reference (oracle/attention/exact_attention.h).
 *
 *   ulpgate check --op attention --got O.npy Q.npy K.npy V.npy [--lse LSE.npy] [--causal]
 *                 [--scale C] [--dtype bf16] [--ulp-max U] [--rel-max R] [--json]
 *                 [--oracle fast|mpfr]
 *
 * Shapes (PyTorch's layout): Q (L, d), K (S, d), V (S, dv), O (L, dv); or with leading axes
 * (H, ...) or (B, H, ...): Q and O (B, H, L, .), K and V (B, H_kv, S, .) with H a multiple of
 * H_kv (grouped-query attention: query head h reads key/value head h / (H / H_kv)).  LSE, if
 * given: (L), (H, L) or (B, H, L).  The scale: --scale C (a binary32 value: RN32 of C), else
 * RN32(1/sqrt(d)), the value the reference and any kernel can take (docs/operations-
 * attention.md).  --causal: bottom-right aligned (row i sees keys k <= i + S - L).
 * The figures are check's own (cli_check_out.c): max and mean ULP of GOT's format, relative
 * error, the worst output (its flat index); O and lse are graded apart, one line each.
 * Exit 0, 1 past a limit, 2 bad input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/sys.h"
#include "harness/cli/cli.h"
#include "harness/check/check.h"
#include "harness/cli/cli_check.h"
#include "harness/inputs/npy.h"
#include "oracle/attention/exact_attention.h"

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

/* The heads of an array of `inner` trailing dims: its leading axes' product (B H), into
 * *b and *h; false if the rank is not inner, inner + 1 or inner + 2. */
static bool lead_axes(const ug_npy *a, int inner, size_t *b, size_t *h)
{
    int lead = a->ndim - inner;
    if (lead < 0 || lead > 2) return false;
    *b = lead == 2 ? a->shape[0] : 1;
    *h = lead >= 1 ? a->shape[lead - 1] : 1;
    return true;
}

/* Head (bb, hh)'s rows of a (rows x cols), widened to binary32 into dst. */
static void load_head(const ug_npy *a, size_t head, size_t rows, size_t cols, float *dst)
{
    size_t base = head * rows * cols;
    for (size_t i = 0; i < rows * cols; i++) dst[i] = (float)ug_npy_load(a, base + i);
}

int ug_cmd_check_attention(int argc, char **argv, FILE *out, FILE *err)
{
    const char *gotpath = NULL, *lsepath = NULL, *paths[3] = {0}, *val;
    int npaths = 0, json = 0, mpfr = 0, causal = 0;
    double ulp_max = -1, rel_max = -1, scale = 0;
    ug_fmt bits_fmt = UG_FMT_COUNT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *end;
        if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--causal")) causal = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(attn_usage, out);
            return 0;
        } else if (!strcmp(a, "--op")) {
            i++; /* attention: how we got here */
        } else if (!strncmp(a, "--op=", 5)) {
        } else if (!strcmp(a, "--got") || !strcmp(a, "--lse") || !strcmp(a, "--scale") ||
                   !strcmp(a, "--ulp-max") || !strcmp(a, "--rel-max") || !strcmp(a, "--dtype") ||
                   !strcmp(a, "--oracle")) {
            if (i + 1 >= argc) return attn_usage_error(err, "%s needs a value", a);
            val = argv[++i];
            if (!strcmp(a, "--got")) gotpath = val;
            else if (!strcmp(a, "--lse")) lsepath = val;
            else if (!strcmp(a, "--dtype")) {
                bits_fmt = ug_fmt_parse(val);
                if (bits_fmt != UG_BF16) return attn_usage_error(err, "--dtype: '%s' is not bf16", val);
            } else if (!strcmp(a, "--oracle")) {
                if (strcmp(val, "fast") && strcmp(val, "mpfr"))
                    return attn_usage_error(err, "--oracle: '%s' is neither fast nor mpfr", val);
                mpfr = !strcmp(val, "mpfr");
            } else {
                double v = strtod(val, &end);
                if (end == val || *end || !(v >= 0) || (!strcmp(a, "--scale") && !(v > 0 && v < 3e38)))
                    return attn_usage_error(err, "'%s' is not a positive number in range", val);
                if (!strcmp(a, "--scale")) scale = v;
                else if (!strcmp(a, "--ulp-max")) ulp_max = v;
                else rel_max = v;
            }
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
    if (mpfr) ug_oracle_select(UG_ORACLE_MPFR);

    ug_npy q, k, v, o, l;
    memset(&l, 0, sizeof l);
    ug_npy *arr[5] = {&q, &k, &v, &o, &l};
    const char *names[5] = {paths[0], paths[1], paths[2], gotpath, lsepath};
    int opened = 0, rc = 2, nfiles = lsepath ? 5 : 4;
    char msg[512];
    float *Q = NULL, *K = NULL, *V = NULL;
    ug_exact *eo = NULL, *el = NULL;
    for (; opened < nfiles; opened++)
        if (ug_npy_open(arr[opened], names[opened], bits_fmt, msg, sizeof msg) != 0) {
            fprintf(err, "ulpgate check: %s\n", msg);
            goto out;
        }
    for (int i = 0; i < nfiles; i++)
        if (arr[i]->fmt == UG_F64) {
            fprintf(err, "ulpgate check: %s: binary64: --op attention takes binary32, binary16 "
                         "and bfloat16 files\n", names[i]);
            goto out;
        }
    size_t qb, qh, kb, kh, vb, vh, ob, oh;
    if (!lead_axes(&q, 2, &qb, &qh) || !lead_axes(&k, 2, &kb, &kh) || !lead_axes(&v, 2, &vb, &vh) ||
        !lead_axes(&o, 2, &ob, &oh) || q.ndim != k.ndim || q.ndim != v.ndim || q.ndim != o.ndim) {
        fprintf(err, "ulpgate check: Q, K, V and GOT are (L, d), (S, d), (S, dv), (L, dv), all "
                     "with the same leading axes (H, ...) or (B, H, ...)\n");
        goto out;
    }
    int r2 = q.ndim - 2;
    ug_shape shp = {{q.shape[r2], k.shape[r2], q.shape[r2 + 1], v.shape[r2 + 1]}, 1, 1, 1};
    ug_opts opt = {0, (causal != 0) ? UG_OPT_CAUSAL : 0u};
    if (k.shape[r2 + 1] != shp.dim[2] || v.shape[r2] != shp.dim[1] || o.shape[r2] != shp.dim[0] ||
        o.shape[r2 + 1] != shp.dim[3] || kb != qb || vb != qb || ob != qb || vh != kh || oh != qh ||
        !kh || qh % kh) {
        char sq[64], sk[64], sv[64], so[64];
        fprintf(err, "ulpgate check: shapes do not fit: Q %s, K %s, V %s, GOT %s (K's d is Q's, "
                     "V's rows K's, GOT (L, dv), query heads a multiple of key heads)\n",
                ug_npy_shape_text(&q, sq, sizeof sq), ug_npy_shape_text(&k, sk, sizeof sk),
                ug_npy_shape_text(&v, sv, sizeof sv), ug_npy_shape_text(&o, so, sizeof so));
        goto out;
    }
    if (lsepath && (l.count != qb * qh * shp.dim[0] || l.ndim != q.ndim - 1)) {
        fprintf(err, "ulpgate check: %s: the log-sum-exp is one value a query row: (L), (H, L) "
                     "or (B, H, L)\n", lsepath);
        goto out;
    }
    opt.scale = scale > 0 ? (float)scale : ug_attn_scale_default(shp.dim[2]);
    char why[160];
    if (!ug_attn_head_ok(&shp, &opt, why, sizeof why)) {
        fprintf(err, "ulpgate check: %s\n", why);
        goto out;
    }
    size_t heads = qb * qh, group = qh / kh, per = shp.dim[0] * shp.dim[3];
    Q = ug_xmalloc(shp.dim[0] * shp.dim[2] * sizeof *Q);
    K = ug_xmalloc(shp.dim[1] * shp.dim[2] * sizeof *K);
    V = ug_xmalloc(shp.dim[1] * shp.dim[3] * sizeof *V);
    eo = ug_xmalloc(per * sizeof *eo);
    el = ug_xmalloc(shp.dim[0] * sizeof *el);
    ug_check_result ro, rl;
    memset(&ro, 0, sizeof ro);
    memset(&rl, 0, sizeof rl);
    const ug_op_desc *op = ug_op_find("attention");
    ro.op = rl.op = op;
    ro.inputs = rl.inputs = 3;
    for (int i = 0; i < 3; i++) ro.in_fmt[i] = rl.in_fmt[i] = arr[i]->fmt;
    ro.out_fmt = o.fmt;
    rl.out_fmt = lsepath ? l.fmt : UG_F32;
    ro.batch = rl.batch = heads;
    ro.per = per;
    rl.per = shp.dim[0];
    ro.outputs = heads * per;
    rl.outputs = heads * shp.dim[0];
    ro.n = rl.n = shp.dim[1];
    ro.gamma = rl.gamma = INFINITY; /* no tree bound: the bounds are the kernel classes' */
    ro.oracle = rl.oracle = mpfr ? "mpfr" : "fast";
    for (size_t hd = 0; hd < heads; hd++) {
        size_t kvh = (hd / qh) * kh + (hd % qh) / group;
        load_head(&q, hd, shp.dim[0], shp.dim[2], Q);
        load_head(&k, kvh, shp.dim[1], shp.dim[2], K);
        load_head(&v, kvh, shp.dim[1], shp.dim[3], V);
        ug_exact_attention(Q, K, V, &shp, &opt, eo, el);
        for (size_t j = 0; j < per; j++) ug_check_add(&ro, hd * per + j, &eo[j], ug_npy_load(&o, hd * per + j));
        if (lsepath)
            for (size_t i = 0; i < shp.dim[0]; i++) ug_check_add(&rl, hd * shp.dim[0] + i, &el[i],
                 ug_npy_load(&l, hd * shp.dim[0] + i));
    }
    rc = 0;
    for (int part = 0; part < (lsepath ? 2 : 1); part++) {
        ug_check_result *r = part ? &rl : &ro;
        ug_check_tolerance(r);
        r->ulp_mean = r->outputs ? r->ulp_sum / (double)r->outputs : 0;
        r->limit_ulp = ulp_max;
        r->limit_rel = rel_max;
        r->ok = true;
        const char *what = part ? "lse" : "O";
        if (ulp_max >= 0 && !(r->ulp_max <= ulp_max)) {
            snprintf(r->verdict, sizeof r->verdict, "FAIL: %s %.6g ulp > --ulp-max %g", what,
                     r->ulp_max, ulp_max);
            r->ok = false;
        } else if (((ulp_max >= 0 && ulp_max <= 0.5) || rel_max == 0) && r->wrong_sign_zeros) {
            /* as check's other operations: a zero of the wrong sign is not the correctly
             * rounded result, whatever its error in value (harness/check/check.c) */
            snprintf(r->verdict, sizeof r->verdict, "FAIL: %s: %zu output%s a zero of the wrong "
                     "sign", what, r->wrong_sign_zeros, r->wrong_sign_zeros == 1 ? " is" : "s are");
            r->ok = false;
        } else if (rel_max >= 0 && !(r->rel_max <= rel_max)) {
            snprintf(r->verdict, sizeof r->verdict, "FAIL: %s relative error %.6g > --rel-max %g",
                     what, r->rel_max, rel_max);
            r->ok = false;
        }
        if (r->ok) snprintf(r->verdict, sizeof r->verdict, "ok");
        else rc = 1;
        if (!json) fprintf(out, "%s (%s):\n", what, part ? lsepath : gotpath);
        ug_buf b = {0};
        if (json) ug_check_json(&b, r);
        else ug_check_table(&b, r);
        fputs(ug_buf_str(&b), out);
        ug_buf_free(&b);
    }
out:
    for (int i = 0; i < opened; i++) ug_npy_close(arr[i]);
    free(Q);
    free(K);
    free(V);
    free(eo);
    free(el);
    return rc;
}
