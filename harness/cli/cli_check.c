/*
 * cli_check.c - `ulpgate check`: grade results computed anywhere (PyTorch, Triton, JAX, CuPy,
 * NumPy) and saved as .npy files, against the exact results of the operation table.
 *
 *   ulpgate check --op sum|dot|gemm|... --got GOT.npy X.npy [Y.npy [Z.npy]]
 *                 [--dtype bf16|e4m3|e5m2]
 *                 [--ulp-max U] [--rel-max R] [--bound tree] [--depth D] [--json]
 *                 [--oracle fast|mpfr]
 *
 * The inputs are memory-mapped (harness/inputs/npy.h); native binary32 is read in place, every
 * other format is widened row by row (exactly: binary16, bfloat16 and fp8 embed in binary32,
 * binary32 in binary64).  Exact results: the oracle's binary32 sums, dots and GEMM when every
 * input fits binary32 (oracle.h, the selected fast or MPFR oracle); the oracle's binary64 exact
 * sum for binary64 sums; binary64 dots and GEMM through MPFR here (exact_dot_f64: the oracle has
 * no binary64 dot).  Figures: cli_check_out.c.  Exit 0, 1 past a limit, 2 bad input.
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_check.h"

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
    "  --bound tree   exit 1 when an output breaks the tree bound (gamma_D, u of GOT's format)\n"
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

/* ---- binary64 dot products, exactly, with MPFR ------------------------------------------- */

/* sum x[i*incx] y[i*incy] of binary64 values into e.  Every product is a multiple of 2^-2148
 * below 2^2048 in magnitude, so an accumulator of 2048 + 2148 + bits(n) + 1 bits adds them
 * exactly (the argument of oracle/exact_mpfr.c); a product of two 53-bit values is exact at 106
 * bits.  hi = RN64(s), lo = RN64(s - hi) (s - hi exact at the accumulator's precision), rn/rd
 * through format.c's exact rounding from hi and lo's sign; sum_abs = RU64(sum |products|).
 * Specials as oracle.h: a NaN term (NaN operand, 0 * inf), or +inf with -inf: NaN; else the
 * infinity.  Cost: ~0.3 us a term. */
static void exact_dot_f64(const double *x, size_t incx, const double *y, size_t incy, size_t n,
                          ug_exact *e)
{
    int bits = 0;
    while (n >> bits) bits++;
    mpfr_prec_t prec = 2048 + 2148 + bits + 1;
    mpfr_t s, sa, p;
    mpfr_inits2(prec, s, sa, (mpfr_ptr)0);
    mpfr_init2(p, 106);
    mpfr_set_zero(s, 1);
    mpfr_set_zero(sa, 1);
    int nan = 0, pinf = 0, ninf = 0, allneg0 = n > 0;
    for (size_t i = 0; i < n; i++) {
        double a = x[i * incx], b = y[i * incy];
        if (isnan(a) || isnan(b) || (isinf(a) && b == 0) || (isinf(b) && a == 0)) {
            nan = 1;
            continue;
        }
        if (isinf(a) || isinf(b)) {
            if (signbit(a) != signbit(b)) ninf = 1; else pinf = 1;
            continue;
        }
        double q = a * b; /* the sign of a zero product; a finite one may round: MPFR below */
        if (!(q == 0 && signbit(q) && (a == 0 || b == 0))) allneg0 = 0;
        mpfr_set_d(p, a, MPFR_RNDN);
        mpfr_mul_d(p, p, b, MPFR_RNDN); /* exact: 106 bits */
        mpfr_add(s, s, p, MPFR_RNDN);
        mpfr_abs(p, p, MPFR_RNDN);
        mpfr_add(sa, sa, p, MPFR_RNDN);
    }
    memset(e, 0, sizeof *e);
    if (nan || (pinf && ninf)) {
        e->cls = UG_X_NAN;
        e->hi = e->lo = e->rn = e->rd = NAN;
        e->sum_abs = INFINITY;
    } else if (pinf || ninf) {
        e->cls = pinf ? UG_X_POSINF : UG_X_NEGINF;
        e->hi = e->lo = e->rn = e->rd = pinf ? INFINITY : -INFINITY;
        e->sum_abs = INFINITY;
    } else {
        e->cls = UG_X_FINITE;
        e->hi = mpfr_get_d(s, MPFR_RNDN);
        if (mpfr_zero_p(s)) e->hi = allneg0 ? -0.0 : 0.0;
        if (isfinite(e->hi)) {
            mpfr_sub_d(s, s, e->hi, MPFR_RNDN); /* exact: prec holds both */
            e->lo = mpfr_get_d(s, MPFR_RNDN);
        }
        e->rn = (float)ug_fmt_round2(UG_F32, e->hi, e->lo, UG_RN);
        e->rd = (float)ug_fmt_round2(UG_F32, e->hi, e->lo, UG_RD);
        e->sum_abs = mpfr_get_d(sa, MPFR_RNDU);
    }
    mpfr_clears(s, sa, p, (mpfr_ptr)0);
}

/* ---- the inputs ---------------------------------------------------------------------------- */

typedef struct check_in {
    ug_npy a[3], got;
    int arity;             /* input files: the op's vectors (ops/op.h's ug_op_width): x w b */
    bool wide;             /* some input is binary64: compute in binary64 */
    bool mpfr;             /* --oracle mpfr */
} check_in;

/* Elements [off, off + len) of input a as binary32 (wide: binary64): in place when native,
 * else widened into buf (len elements).  Exact either way. */
static const void *check_row(const ug_npy *a, bool wide, size_t off, size_t len, void *buf)
{
    if (!wide && ug_npy_f32(a)) return ug_npy_f32(a) + off;
    if (wide && ug_npy_f64(a)) return ug_npy_f64(a) + off;
    for (size_t i = 0; i < len; i++) {
        double v = ug_npy_load(a, off + i);
        if (wide) ((double *)buf)[i] = v;
        else ((float *)buf)[i] = (float)v;
    }
    return buf;
}

/* A row operation (issue 25): correctly rounded but not a sum, over the last axis of X, with
 * the layer's parameters as its second input: a weight of n, or a LayerNorm's weight and bias
 * (two files of n, [w | b] to the descriptor: ops/layernorm.c). */
static bool check_row_op(const ug_op_desc *op)
{
    return op->over_rows;
}

/* The operations check grades (check_supported), "sum, dot or gemm" (usage messages). */
static bool check_supported(const ug_op_desc *op);
static const char *check_op_names(void)
{
    static char buf[512];
    size_t used = 0, n = 0, total = 0;
    for (size_t i = 0; ug_op_at(i); i++) total += check_supported(ug_op_at(i));
    buf[0] = 0;
    for (size_t i = 0; ug_op_at(i) && used < sizeof buf; i++)
        if (check_supported(ug_op_at(i)))
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s",
                                     n++ == 0 ? "" : n == total ? " or " : ", ",
                                     ug_op_at(i)->shape->name);
    return buf;
}

/* A shape error: "FILE: shape (..) ... (what)"; 2. */
static int shape_error(FILE *err, const ug_npy *a, const char *what)
{
    char s[128];
    fprintf(err, "ulpgate check: %s: shape %s: %s\n", a->path, ug_npy_shape_text(a, s, sizeof s),
            what);
    return 2;
}

/* Work out batch, per, n (and M, N, K) from the shapes; 0, or 2 naming the file at fault. */
static int check_shapes(const check_in *in, ug_check_result *r, FILE *err)
{
    const ug_npy *x = &in->a[0], *y = &in->a[1], *g = &in->got;
    if (check_row_op(r->op)) { /* a row operation: rows of x, a weight of n, GOT per row */
        if (x->ndim < 1 || x->ndim > 2) return shape_error(err, x, "X is (n) or (batch, n)");
        r->batch = x->ndim == 2 ? x->shape[0] : 1;
        r->n = x->shape[x->ndim - 1];
        for (int i = 1; i < in->arity; i++)
            if (in->a[i].ndim != 1 || in->a[i].shape[0] != r->n)
                return shape_error(err, &in->a[i], i == 1 ? "the weight is (n), n the length of "
                                                            "X's rows"
                                                          : "the bias is (n), n the length of "
                                                            "X's rows");
        r->per = r->op->shape->out_kind == UG_OUT_SCALAR ? 1 : r->n;
        bool ok = r->per == 1 ? (x->ndim == 1 ? g->count == 1 && g->ndim <= 1
                                              : g->ndim == 1 && g->shape[0] == r->batch)
                              : g->ndim == x->ndim && g->count == x->count;
        if (!ok)
            return shape_error(err, g, r->per == 1 ? "one output per row: () or (batch,)"
                                                   : "one output per input: X's shape");
    } else if (r->op->shape->layout == UG_LAYOUT_VECTORS) {
        if (x->ndim < 1 || x->ndim > 2)
            return shape_error(err, x, "an input is (n) or (batch, n)");
        r->batch = x->ndim == 2 ? x->shape[0] : 1;
        r->n = x->shape[x->ndim - 1];
        r->per = 1;
        if (in->arity == 2 && (y->ndim != x->ndim || memcmp(y->shape, x->shape,
                                                            sizeof(size_t) * (size_t)x->ndim)))
            return shape_error(err, y, "not the shape of the first input");
        if (r->op->shape->out_kind == UG_OUT_VECTOR) { /* one output per element: GOT as X */
            r->per = r->n;
            if (g->ndim != x->ndim || memcmp(g->shape, x->shape, sizeof(size_t) * (size_t)x->ndim))
                return shape_error(err, g, "GOT has the shape of the input (one output each)");
            r->outputs = r->batch * r->per;
            return 0;
        }
        bool ok = x->ndim == 1 ? g->count == 1 && g->ndim <= 1
                               : (g->ndim == 1 || (g->ndim == 2 && g->shape[1] == 1)) &&
                                     g->shape[0] == r->batch;
        if (!ok)
            return shape_error(err, g, x->ndim == 1 ? "one output: () or (1,)"
                                                    : "one output per batch row: (batch,)");
    } else {
        if (x->ndim < 2 || x->ndim > 3) return shape_error(err, x, "A is (M, K) or (batch, M, K)");
        if (y->ndim != x->ndim) return shape_error(err, y, "B is (K, N) or (batch, K, N), as A");
        int o = x->ndim - 2;
        r->batch = o ? x->shape[0] : 1;
        if (o && y->shape[0] != r->batch) return shape_error(err, y, "a batch unlike A's");
        r->M = x->shape[o];
        r->K = x->shape[o + 1];
        r->N = y->shape[o + 1];
        if (y->shape[o] != r->K) return shape_error(err, y, "B's rows are not A's columns (K)");
        if (g->ndim != x->ndim || (o && g->shape[0] != r->batch) || g->shape[o] != r->M ||
            g->shape[o + 1] != r->N)
            return shape_error(err, g, "GOT is (M, N) or (batch, M, N) of A and B");
        r->n = r->K;
        r->per = r->M * r->N;
    }
    r->outputs = r->batch * r->per;
    return 0;
}

/* The exact results of problem b into e[0 .. per). */
static void check_exact(const check_in *in, const ug_check_result *r, size_t b, void *buf[2],
                        ug_exact *e)
{
    const ug_op_desc *op = r->op;
    size_t len[2] = {op->shape->layout == UG_LAYOUT_VECTORS ? r->n : r->M * r->K,
                     op->shape->layout == UG_LAYOUT_VECTORS ? r->n : r->K * r->N};
    const void *v[2] = {NULL, NULL};
    if (check_row_op(op)) { /* x's row b; the parameters, the same for every row: w (n), or
                               [w | b] (2n) gathered from their files into buf[1] */
        v[0] = check_row(&in->a[0], in->wide, b * r->n, r->n, buf[0]);
        for (int i = 1; i < in->arity; i++) {
            float *dst = (float *)buf[1] + (size_t)(i - 1) * r->n;
            const float *p = check_row(&in->a[i], false, 0, r->n, dst);
            if (p != dst) memcpy(dst, p, r->n * sizeof(float));
            v[1] = buf[1];
        }
    } else {
        for (int i = 0; i < in->arity; i++)
            v[i] = check_row(&in->a[i], in->wide, b * len[i], len[i], buf[i]);
    }
    if (!in->wide) { /* the descriptor's exact results: the selected oracle (fast or MPFR) */
        ug_shape sh = {{r->n, 1, 1}, 1};
        if (op->shape->layout == UG_LAYOUT_MATMUL) sh = (ug_shape){{r->M, r->N, r->K}};
        op->exact(v[0], v[1], &sh, e);
        return;
    }
    /* binary64: the descriptor computes binary32 only; by the layout: a sum of values, a dot
     * of products, or a matrix product (check_supported admits no other) */
    const double *x = v[0], *y = v[1];
    if (op->shape->layout == UG_LAYOUT_VECTORS && op->shape->arity == 1)
        (in->mpfr ? ug_exact_sum_f64_mpfr : ug_exact_sum_f64)(x, r->n, e);
    else if (op->shape->layout == UG_LAYOUT_VECTORS)
        exact_dot_f64(x, 1, y, 1, r->n, e);
    else
        for (size_t i = 0; i < r->M; i++)
            for (size_t j = 0; j < r->N; j++)
                exact_dot_f64(x + i * r->K, 1, y + j, r->N, r->K, &e[i * r->N + j]);
}

/* Whether check grades op: a correctly rounded sum of terms (exact_is_sum) that is one output
 * of index-aligned vectors (a sum of values, a dot of products) or a matrix product; or an
 * operation of one vector whose descriptor computes its exact results (scan, exscan: every
 * prefix; nrm2, asum), which check then takes from the descriptor alone; or a row operation
 * (softmax, logsumexp, rmsnorm, layernorm: check_row_op). */
static bool check_supported(const ug_op_desc *op)
{
    if (!op) return false;
    if (check_row_op(op)) return true;
    if (op->shape->layout == UG_LAYOUT_VECTORS && op->shape->arity == 1) return true;
    if (!op->exact_is_sum) return false;
    if (op->shape->layout == UG_LAYOUT_MATMUL) return op->shape->arity == 2;
    return op->shape->out_kind == UG_OUT_SCALAR && op->terms_kind == UG_TERMS_PRODUCTS;
}

/* Whether check computes op's exact results in binary64 too: sum, dot and gemm (check_exact's
 * binary64 path is theirs); the others take binary32 (and narrower) inputs. */
static bool check_has_f64(const ug_op_desc *op)
{
    return op == &ug_op_sum_desc || op == &ug_op_dot_desc || op == &ug_op_gemm_desc;
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
    if (end == val || *end || !(*out >= 0))
        return check_usage_error(err, "'%s' is not a nonnegative number", val);
    return 0;
}

int ug_cmd_check_io(int argc, char **argv, FILE *out, FILE *err)
{
    const char *opname = NULL, *gotpath = NULL, *paths[3] = {0}, *val, *axis = NULL;
    int npaths = 0, json = 0, gate_bound = 0, rc;
    double ulp_max = -1, rel_max = -1, depth = -1;
    ug_fmt bits_fmt = UG_FMT_COUNT;
    check_in in;
    memset(&in, 0, sizeof in);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(check_usage, out);
            return 0;
        } else if (is_opt(a, "--op")) {
            if (!(opname = opt_value(argc, argv, &i, "--op")))
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
            if ((rc = parse_limit(err, a, opt_value(argc, argv, &i, "--ulp-max"), &ulp_max)))
                return rc;
        } else if (is_opt(a, "--rel-max")) {
            if ((rc = parse_limit(err, a, opt_value(argc, argv, &i, "--rel-max"), &rel_max)))
                return rc;
        } else if (is_opt(a, "--depth")) {
            if ((rc = parse_limit(err, a, opt_value(argc, argv, &i, "--depth"), &depth)))
                return rc;
            if (depth != floor(depth) || depth > 1e15)
                return check_usage_error(err, "--depth: '%s' is not a whole number", argv[i]);
        } else if (is_opt(a, "--bound")) {
            val = opt_value(argc, argv, &i, "--bound");
            if (!val || strcmp(val, "tree"))
                return check_usage_error(err, "--bound: '%s' is not tree (the one class "
                                              "check applies)", val ? val : "");
            gate_bound = 1;
        } else if (is_opt(a, "--axis")) {
            axis = opt_value(argc, argv, &i, "--axis");
            if (!axis || (strcmp(axis, "-1") && strcmp(axis, "0") && strcmp(axis, "1")))
                return check_usage_error(err, "--axis: '%s' is not -1 (the last axis)",
                                         axis ? axis : "");
        } else if (is_opt(a, "--oracle")) {
            val = opt_value(argc, argv, &i, "--oracle");
            if (!val || (strcmp(val, "fast") && strcmp(val, "mpfr")))
                return check_usage_error(err, "--oracle: '%s' is neither fast nor mpfr",
                                         val ? val : "");
            in.mpfr = !strcmp(val, "mpfr");
        } else if (a[0] == '-' && a[1] != '\0') {
            return check_usage_error(err, "unknown option '%s'", a);
        } else if (npaths == 3) {
            return check_usage_error(err, "too many input files ('%s')", a);
        } else {
            paths[npaths++] = a;
        }
    }
    if (!opname) return check_usage_error(err, "%s", "no --op given");
    ug_check_result r;
    memset(&r, 0, sizeof r);
    r.op = ug_op_find(opname);
    if (!check_supported(r.op)) {
        char what[700];
        snprintf(what, sizeof what, "'%.100s' is not %s", opname, check_op_names());
        return check_usage_error(err, "--op: %s", what);
    }
    if (axis && !check_row_op(r.op))
        return check_usage_error(err, "--axis: --op %s has no axis to choose", opname);
    if (gate_bound && check_row_op(r.op))
        return check_usage_error(err, "--bound tree: --op %s is not a sum (use --ulp-max or "
                                      "--rel-max)", opname);
    if (in.mpfr) ug_oracle_select(UG_ORACLE_MPFR);
    if (!gotpath) return check_usage_error(err, "%s", "no --got file given");
    in.arity = ug_op_width(r.op);
    if (npaths != in.arity)
        return check_usage_error(err, in.arity == 1   ? "--op %s takes one input file"
                                      : in.arity == 2 ? "--op %s takes two input files"
                                                      : "--op %s takes three input files (X, "
                                                        "the weight, the bias)",
                                 opname);

    char msg[512];
    void *buf[2] = {NULL, NULL};
    ug_exact *e = NULL;
    int opened = 0;
    rc = 2;
    for (; opened < in.arity; opened++)
        if (ug_npy_open(&in.a[opened], paths[opened], bits_fmt, msg, sizeof msg) != 0) goto bad;
    if (ug_npy_open(&in.got, gotpath, bits_fmt, msg, sizeof msg) != 0) goto bad;
    opened++;
    r.inputs = in.arity;
    for (int i = 0; i < in.arity; i++) {
        r.in_fmt[i] = in.a[i].fmt;
        in.wide |= in.a[i].fmt == UG_F64;
    }
    r.out_fmt = in.got.fmt;
    if (check_row_op(r.op) && in.wide) {
        fprintf(err, "ulpgate check: --op %s: binary64 inputs are not supported (binary32, "
                     "binary16 and bfloat16 are)\n", opname);
        goto out;
    }
    if (in.wide && !check_has_f64(r.op)) {
        fprintf(err, "ulpgate check: %s: binary64 input: --op %s grades binary32 (and narrower) "
                     "inputs only\n", in.a[0].fmt == UG_F64 ? paths[0] : paths[1], opname);
        goto out;
    }
    if (r.op->bound && r.out_fmt != UG_F32) { /* its bound (ops/) is binary32's */
        fprintf(err, "ulpgate check: %s: --op %s grades a binary32 GOT only\n", gotpath, opname);
        goto out;
    }
    if (check_shapes(&in, &r, err)) goto out;
    if (axis && strcmp(axis, "-1") && atoi(axis) != in.a[0].ndim - 1) {
        fprintf(err, "ulpgate check: --axis %s: only the last axis of %s (-1 or %d) is "
                     "supported\n", axis, in.a[0].path, in.a[0].ndim - 1);
        goto out;
    }
    r.depth = depth >= 0 ? (size_t)depth : (r.n ? r.n - 1 : 0);
    r.oracle = in.mpfr ? "mpfr" : in.wide && r.op->shape->arity == 2 ? "mpfr (binary64 products)"
                                                                  : "fast";
    {
        /* gamma_K(u_F), K = D (+1 for products: the product's own rounding), u_F = 2^-p */
        const ug_format *F = ug_format_of(r.out_fmt);
        double u = ldexp(1.0, -F->p);
        double k = (double)r.depth + (r.op->terms_kind == UG_TERMS_PRODUCTS ? 1 : 0);
        r.gamma = k * u < 1 && !check_row_op(r.op) ? k * u / (1 - k * u) : INFINITY;
    }
    size_t esz = in.wide ? sizeof(double) : sizeof(float);
    for (int i = 0; i < in.arity && i < 2; i++) {
        size_t len = r.op->shape->layout == UG_LAYOUT_VECTORS ? r.n : (i ? r.K * r.N : r.M * r.K);
        if (i && check_row_op(r.op)) len *= (size_t)(in.arity - 1); /* [w | b] */
        buf[i] = ug_xmalloc((len ? len : 1) * esz);
    }
    e = ug_xmalloc((r.per ? r.per : 1) * sizeof *e);
    for (size_t b = 0; b < r.batch; b++) {
        check_exact(&in, &r, b, buf, e);
        for (size_t j = 0; j < r.per; j++)
            ug_check_add(&r, b * r.per + j, &e[j], ug_npy_load(&in.got, b * r.per + j));
    }
    ug_check_tolerance(&r);

    char verdict[160] = "ok";
    rc = 0;
    if (ulp_max >= 0 && !(r.ulp_max <= ulp_max)) {
        snprintf(verdict, sizeof verdict, "FAIL: %.6g ulp > --ulp-max %g", r.ulp_max, ulp_max);
        rc = 1;
    } else if (rel_max >= 0 && !(r.rel_max <= rel_max)) {
        snprintf(verdict, sizeof verdict, "FAIL: relative error %.6g > --rel-max %g", r.rel_max,
                 rel_max);
        rc = 1;
    } else if (gate_bound && !(r.ratio_max <= 1)) {
        snprintf(verdict, sizeof verdict, "FAIL: error / tree bound %.6g > 1", r.ratio_max);
        rc = 1;
    }
    ug_check_print(out, &r, json, verdict);
    goto out;
bad:
    fprintf(err, "ulpgate check: %s\n", msg);
out:
    for (int i = 0; i < in.arity && i < opened; i++) ug_npy_close(&in.a[i]);
    if (opened > in.arity) ug_npy_close(&in.got);
    free(buf[0]);
    free(buf[1]);
    free(e);
    return rc;
}

int ug_cmd_check(int argc, char **argv)
{
    return ug_cmd_check_io(argc, argv, stdout, stderr);
}
