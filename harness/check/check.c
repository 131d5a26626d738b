/*
 * check.c - grading outputs computed elsewhere against the exact results of the operation
 * table (check.h has the contract): the operations graded, the shapes, the exact results, the
 * verdict.  The figures and the text: check_out.c.
 *
 * Exact results: the descriptor's exact() (the selected fast or MPFR oracle) when every input
 * fits binary32; the oracle's binary64 exact sum for binary64 sums; binary64 dots and GEMM
 * through MPFR here (exact_dot_f64).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/check/check.h"
#include "oracle/oracle.h"
#include "oracle/tc/tcprobe.h"
#include "oracle/rows/transcend.h"

/* ---- the operations -------------------------------------------------------------------------- */

bool ug_check_row_op(const ug_op_desc *op)
{
    /* correctly rounded but not a sum, over the last axis of X, with the layer's parameters as
     * its other inputs: no tree bound (op->bound: nrm2's own, through the root) */
    return op && op->shape->layout == UG_LAYOUT_VECTORS && !op->exact_is_sum && !op->bound;
}

bool ug_check_supported(const ug_op_desc *op)
{
    if (!op) return false;
    if (ug_check_row_op(op)) return true;
    if (op->shape->layout == UG_LAYOUT_VECTORS && op->shape->arity == 1) return true; /* scan, nrm2, asum */
    if (!op->exact_is_sum) return false;
    if (op->shape->layout == UG_LAYOUT_MATMUL) return op->shape->arity == 2;
    return op->shape->out_kind == UG_OUT_SCALAR && op->terms_kind == UG_TERMS_PRODUCTS;
}

/* Whether check computes op's exact results in binary64 too: the operations with a binary64
 * path in the table (sum, dot, gemm); check_exact's binary64 path is by their layout. */
static bool check_has_f64(const ug_op_desc *op)
{
    return op->exact64 != NULL && op->exact_is_sum;
}

/* Attention (the heads layout) is graded by its own path (check_attn.c, ug_check_attention),
 * not ug_check_run. */
static bool check_names_op(const ug_op_desc *op)
{
    return ug_check_supported(op) || op->shape->layout == UG_LAYOUT_HEADS;
}

const char *ug_check_op_names(char *buf, size_t len)
{
    size_t k = 0, total = 0, o = 0;
    for (size_t i = 0; ug_op_at(i); i++) total += check_names_op(ug_op_at(i));
    if (len) buf[0] = '\0';
    for (size_t i = 0; ug_op_at(i) && o < len; i++) {
        const ug_op_desc *d = ug_op_at(i);
        if (!check_names_op(d)) continue;
        k++;
        o += (size_t)snprintf(buf + o, len - o, "%s%s", k == 1 ? "" : k == total ? " or " : ", ",
                              d->shape->name);
    }
    return buf;
}

void ug_check_opts_init(ug_check_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ulp_max = o->rel_max = o->depth = -1;
    o->axis = UG_CHECK_AXIS_NONE;
    o->acc_fmt = o->op_fmt = UG_FMT_COUNT;
}

/* ---- the bound classes ------------------------------------------------------------------------ */

static bool check_has_class(const ug_op_desc *op, ug_bound_class c)
{
    if (c == UG_BOUND_TREE) return ug_check_supported(op) && !ug_check_row_op(op); /* its own */
    for (const ug_bound_class *p = op->classes; p && *p != UG_BOUND_NONE; p++)
        if (*p == c) return true;
    return false;
}

const char *ug_check_class_names(const ug_op_desc *op, char *buf, size_t len)
{
    size_t o = 0;
    if (len) buf[0] = '\0';
    if (ug_check_supported(op) && !ug_check_row_op(op))
        o += (size_t)snprintf(buf, len, "tree");
    for (const ug_bound_class *p = op->classes; p && *p != UG_BOUND_NONE && o < len; p++)
        if (*p != UG_BOUND_TREE)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", ug_bound_class_name(*p));
    return buf;
}

/* The class named, or UG_BOUND_NONE. */
static ug_bound_class check_class_parse(const char *name)
{
    for (int c = UG_BOUND_TREE; c <= UG_BOUND_BS_FP8_PROMOTED; c++)
        if (!strcmp(ug_bound_class_name((ug_bound_class)c), name)) return (ug_bound_class)c;
    return UG_BOUND_NONE;
}

ug_bound_class ug_check_class(const ug_op_desc *op, const char *name)
{
    ug_bound_class c = check_class_parse(name);
    return check_has_class(op, c) ? c : UG_BOUND_NONE;
}

/* The output (and data) format a class's derivation fixes, where it fixes one: a class whose
 * output is the accumulator rounded to a named format, or whose data is of one (the others
 * round their accumulator to any output format: kernels/bounds.c's rounds_out).  UG_FMT_COUNT:
 * any. */
static ug_fmt check_class_out(ug_bound_class c)
{
    switch (c) {
    case UG_BOUND_BF16_OUT: return UG_BF16;
    case UG_BOUND_F16_ACC: return UG_F16;
    case UG_BOUND_F64_TREE:
    case UG_BOUND_F64_KAHAN: return UG_F64;
    case UG_BOUND_TF32:
    case UG_BOUND_F16:
    case UG_BOUND_BF16:
    case UG_BOUND_BF16X9: return UG_F32;
    default: return UG_FMT_COUNT;
    }
}

static int fail(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    snprintf(err, errlen, fmt, a, b);
    return 2;
}

int ug_check_prepare(const ug_check_opts *o, const ug_op_desc **opp, int *inputs, char *err,
                     size_t errlen)
{
    char names[256];
    const ug_op_desc *op = o->op ? ug_op_find(o->op) : NULL;
    if (!o->op) return fail(err, errlen, "%s%s", "no operation given (--op)", "");
    if (op && op->shape->layout == UG_LAYOUT_HEADS) /* listed among check's operations */
        return fail(err, errlen, "--op %s: no exact records outside its grading (check, with "
                    "Q, K, V and O)%s", o->op, "");
    if (!ug_check_supported(op))
        return fail(err, errlen, "--op: '%s' is not %s", o->op,
                    ug_check_op_names(names, sizeof names));
    if (o->axis != UG_CHECK_AXIS_NONE && !ug_check_row_op(op))
        return fail(err, errlen, "--axis: --op %s has no axis to choose%s", o->op, "");
    if (o->bound) {
        char classes[512], what[700];
        ug_check_class_names(op, classes, sizeof classes);
        ug_bound_class c = check_class_parse(o->bound);
        if (!check_has_class(op, c)) {
            snprintf(what, sizeof what, "--bound: '%%s' is not a bound class of --op %%s (%s%s)",
                     classes[0] ? "its classes: " : "it has none: use --ulp-max or --rel-max",
                     classes);
            return fail(err, errlen, what, o->bound, o->op);
        }
    }
    if ((o->acc_fmt != UG_FMT_COUNT || o->op_fmt != UG_FMT_COUNT || o->tc_model) &&
        (!o->bound || !strcmp(o->bound, "tree")))
        return fail(err, errlen, "--acc, --op-fmt, --tc-model: the parameters of a --bound class "
                                 "(not tree, whose u is GOT's format)%s%s", "", "");
    if (o->depth >= 0 && (o->depth != floor(o->depth) || o->depth > 1e15)) {
        char v[32];
        snprintf(v, sizeof v, "%g", o->depth);
        return fail(err, errlen, "--depth: '%s' is not a whole number from 0 to 10^15%s", v, "");
    }
    if (o->eps != 0 && (!op->fill_params || (float)o->eps != UG_NORM_EPS)) {
        char v[32];
        snprintf(v, sizeof v, "%g", o->eps);
        return fail(err, errlen, op->fill_params ? "eps %s: only the descriptor's eps (1e-5) is "
                                                   "computed (--op %s)"
                                                 : "eps %s: --op %s takes no eps", v, o->op);
    }
    *opp = op;
    *inputs = ug_op_width(op);
    return 0;
}

/* ---- the arrays ------------------------------------------------------------------------------ */

/* Elements [off, off + len) of a as binary32 (wide: binary64): in place when native, else
 * widened into buf (len elements).  Exact either way. */
static const void *check_row(const ug_array *a, bool wide, size_t off, size_t len, void *buf)
{
    if (len == 0) return buf; /* an empty row: a->data may be NULL */
    const void *in_place = ug_array_native(a, wide ? UG_F64 : UG_F32);
    if (in_place) return (const unsigned char *)in_place + off * (wide ? 8 : 4);
    for (size_t i = 0; i < len; i++) {
        double v = ug_array_load(a, off + i);
        if (wide) ((double *)buf)[i] = v;
        else ((float *)buf)[i] = (float)v;
    }
    return buf;
}

/* A shape error: "NAME: shape (..): what"; 2. */
static int shape_error(char *err, size_t errlen, const ug_array *a, const char *what)
{
    char s[128];
    snprintf(err, errlen, "%s: shape %s: %s", a->name, ug_array_shape_text(a, s, sizeof s), what);
    return 2;
}

static bool same_shape(const ug_array *a, const ug_array *b)
{
    return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(size_t) * (size_t)a->ndim);
}

/* Work out batch, per, n (and M, N, K) from the shapes; 0, or 2 naming the array at fault. */
static int check_shapes(const ug_array *in, int nin, const ug_array *g,
                        ug_check_result *r, char *err, size_t errlen)
{
    const ug_array *x = &in[0], *y = &in[1];
    size_t gcount = ug_array_count(g);
    if (ug_check_row_op(r->op)) { /* a row operation: rows of x, a weight of n, GOT per row */
        if (x->ndim < 1 || x->ndim > 2)
            return shape_error(err, errlen, x, "X is (n) or (batch, n)");
        r->batch = x->ndim == 2 ? x->shape[0] : 1;
        r->n = x->shape[x->ndim - 1];
        for (int i = 1; i < nin; i++)
            if (in[i].ndim != 1 || in[i].shape[0] != r->n)
                return shape_error(err, errlen, &in[i],
                                   i == 1 ? "the weight is (n), n the length of X's rows"
                                          : "the bias is (n), n the length of X's rows");
        r->per = r->op->shape->out_kind == UG_OUT_SCALAR ? 1 : r->n;
        bool ok = r->per == 1 ? (x->ndim == 1 ? gcount == 1 && g->ndim <= 1
                                              : g->ndim == 1 && g->shape[0] == r->batch)
                              : same_shape(g, x); /* a transposed GOT is refused, not graded */
        if (!ok) { /* both shapes named: a transposed GOT reads as the same count */
            char xs[128], what[192];
            snprintf(what, sizeof what, r->per == 1 ? "one output per row of %s %s: () or (batch,)"
                                                    : "one output per input: %s's shape %s",
                     x->name, ug_array_shape_text(x, xs, sizeof xs));
            return shape_error(err, errlen, g, what);
        }
    } else if (r->op->shape->layout == UG_LAYOUT_VECTORS) {
        if (x->ndim < 1 || x->ndim > 2)
            return shape_error(err, errlen, x, "an input is (n) or (batch, n)");
        r->batch = x->ndim == 2 ? x->shape[0] : 1;
        r->n = x->shape[x->ndim - 1];
        r->per = 1;
        if (nin == 2 && !same_shape(y, x))
            return shape_error(err, errlen, y, "not the shape of the first input");
        if (r->op->shape->out_kind == UG_OUT_VECTOR) { /* one output per element: GOT as X */
            r->per = r->n;
            if (!same_shape(g, x))
                return shape_error(err, errlen, g, "GOT has the shape of the input (one output "
                                                   "each)");
            r->outputs = r->batch * r->per;
            return 0;
        }
        bool ok = x->ndim == 1 ? gcount == 1 && g->ndim <= 1
                               : (g->ndim == 1 || (g->ndim == 2 && g->shape[1] == 1)) &&
                                     g->shape[0] == r->batch;
        if (!ok)
            return shape_error(err, errlen, g, x->ndim == 1 ? "one output: () or (1,)"
                                                            : "one output per batch row: (batch,)");
    } else {
        if (x->ndim < 2 || x->ndim > 3)
            return shape_error(err, errlen, x, "A is (M, K) or (batch, M, K)");
        if (y->ndim != x->ndim)
            return shape_error(err, errlen, y, "B is (K, N) or (batch, K, N), as A");
        int o = x->ndim - 2;
        r->batch = o ? x->shape[0] : 1;
        if (o && y->shape[0] != r->batch) return shape_error(err, errlen, y, "a batch unlike A's");
        r->M = x->shape[o];
        r->K = x->shape[o + 1];
        r->N = y->shape[o + 1];
        if (y->shape[o] != r->K)
            return shape_error(err, errlen, y, "B's rows are not A's columns (K)");
        if (g->ndim != x->ndim || (o && g->shape[0] != r->batch) || g->shape[o] != r->M ||
            g->shape[o + 1] != r->N)
            return shape_error(err, errlen, g, "GOT is (M, N) or (batch, M, N) of A and B");
        r->n = r->K;
        r->per = r->M * r->N;
    }
    r->outputs = r->batch * r->per;
    return 0;
}

/* ---- the exact results ----------------------------------------------------------------------- */

typedef struct check_in {
    const ug_array *a;
    int arity;             /* input arrays */
    bool wide;             /* some input is binary64: compute in binary64 */
    bool mpfr;             /* the MPFR oracle */
} check_in;

/* The exact results of problem b into e[0 .. per). */
static void check_exact(const check_in *in, const ug_check_result *r, size_t b, void *buf[2],
                        ug_exact *e)
{
    const ug_op_desc *op = r->op;
    size_t len[2] = {op->shape->layout == UG_LAYOUT_VECTORS ? r->n : r->M * r->K,
                     op->shape->layout == UG_LAYOUT_VECTORS ? r->n : r->K * r->N};
    const void *v[2] = {NULL, NULL};
    if (ug_check_row_op(op)) { /* x's row b; the parameters, the same for every row: w (n), or
                                  [w | b] (2n) gathered from their arrays into buf[1] */
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
    /* binary64: by the layout: a sum of values, a dot of products, or a matrix product
     * (check_has_f64 admits no other) */
    const double *x = v[0], *y = v[1];
    if (op->shape->layout == UG_LAYOUT_VECTORS && op->shape->arity == 1)
        (in->mpfr ? ug_exact_sum_f64_mpfr : ug_exact_sum_f64)(x, r->n, e);
    else if (op->shape->layout == UG_LAYOUT_VECTORS)
        ug_check_dot_f64(x, 1, y, 1, r->n, e);
    else
        for (size_t i = 0; i < r->M; i++)
            for (size_t j = 0; j < r->N; j++)
                ug_check_dot_f64(x + i * r->K, 1, y + j, r->N, r->K, &e[i * r->N + j]);
}

/* The verdict against o's limits, into r->ok and r->verdict (the first limit passed):
 *   - no outputs: with any limit, a failure (nothing was graded, so nothing may pass);
 *   - an output NaN or infinite where the exact value is finite (and does not round to that
 *     infinity), with or without a limit: no tolerance makes a non-number right;
 *   - --ulp-max U: an output past U ULP; and where U <= 0.5 (round to nearest asked for) or
 *     --rel-max 0 (exactness asked for), an output that is a zero of the wrong sign: IEEE 754
 *     fixes the sign of an exact zero under rounding to nearest, its error in value is 0 but it
 *     is not the correctly rounded result (run's correctly_rounded check grades it the same);
 *     NaN for a number, a number for NaN: an infinite error (oracle.h), past every limit;
 *   - --correctly-rounded: an output that is not bit for bit RN_F(s);
 *   - --rel-max R: an output past R;
 *   - --bound CLASS (tree or a class of the operation): an output past its bound, or any
 *     finite output whose bound is vacuous (it bounds nothing, so it cannot pass anything). */
void ug_check_verdict(const ug_check_opts *o, ug_check_result *r)
{
    r->limit_ulp = o->ulp_max;
    r->limit_rel = o->rel_max;
    r->limit_bound = o->bound != NULL;
    r->limit_cr = o->correctly_rounded;
    r->ok = false;
    bool by_ulp = o->ulp_max >= 0 && o->ulp_max <= 0.5, sign_asked = by_ulp || o->rel_max == 0;
    if (r->outputs == 0 && (o->ulp_max >= 0 || o->rel_max >= 0 || o->bound ||
                            o->correctly_rounded))
        snprintf(r->verdict, sizeof r->verdict, "FAIL: no outputs: nothing was graded");
    else if (r->nonfinite)
        snprintf(r->verdict, sizeof r->verdict, "FAIL: %zu output%s NaN or infinite where the "
                 "exact value is finite", r->nonfinite, r->nonfinite == 1 ? " is" : "s are");
    else if (o->ulp_max >= 0 && !(r->ulp_max <= o->ulp_max))
        snprintf(r->verdict, sizeof r->verdict, "FAIL: %.6g ulp > --ulp-max %g", r->ulp_max,
                 o->ulp_max);
    else if (sign_asked && r->wrong_sign_zeros)
        snprintf(r->verdict, sizeof r->verdict, "FAIL: %zu output%s a zero of the wrong sign "
                 "(not the correctly rounded result; --%s %g)", r->wrong_sign_zeros,
                 r->wrong_sign_zeros == 1 ? " is" : "s are", by_ulp ? "ulp-max" : "rel-max",
                 by_ulp ? o->ulp_max : o->rel_max);
    else if (o->correctly_rounded && r->correctly_rounded < r->outputs)
        snprintf(r->verdict, sizeof r->verdict, "FAIL: %zu of %zu outputs are not the correctly "
                 "rounded result (--correctly-rounded)", r->outputs - r->correctly_rounded,
                 r->outputs);
    else if (o->rel_max >= 0 && !(r->rel_max <= o->rel_max))
        snprintf(r->verdict, sizeof r->verdict, "FAIL: relative error %.6g > --rel-max %g",
                 r->rel_max, o->rel_max);
    else if (o->bound && r->vacuous)
        snprintf(r->verdict, sizeof r->verdict, "FAIL: the %s bound is vacuous for %zu "
                 "output%s (%s: it bounds nothing; grade with --ulp-max or --rel-max)",
                 ug_bound_class_name(r->bound_class), r->vacuous, r->vacuous == 1 ? "" : "s",
                 r->bound_class == UG_BOUND_TREE ? "K u >= 1" : "+inf");
    else if (o->bound && !(r->ratio_max <= 1))
        snprintf(r->verdict, sizeof r->verdict, "FAIL: error / %s bound %.6g > 1",
                 ug_bound_class_name(r->bound_class), r->ratio_max);
    else
        r->ok = true;
    if (r->ok) snprintf(r->verdict, sizeof r->verdict, "ok");
}

/* o->tc_model's published rows into m (*count of them), its name into r->block_model: 0, or 2
 * when no GPU of the table is named (err lists them).  m NULL: checked only.  Nothing to do
 * (*count 0) for the envelope. */
static int check_tc_model(const ug_check_opts *o, ug_check_result *r, ug_block_model *m,
                          char *err, size_t errlen)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    static int n = -2;
    if (!o->tc_model || !strcmp(o->tc_model, "envelope")) return 0;
    if (n == -2) n = ug_tc_table_load(NULL, rows, UG_TC_TABLE_MAX, err, errlen);
    const char *gpu = n > 0 ? ug_tc_table_gpu_of(rows, n, o->tc_model) : NULL;
    if (!gpu) {
        char gpus[200] = "";
        for (int i = 0, k = 0; i < n && k < (int)sizeof gpus - 20; i++)
            if (!strstr(gpus, rows[i].gpu))
                k += snprintf(gpus + k, sizeof gpus - (size_t)k, "%s%s", k ? ", " : "",
                              rows[i].gpu);
        char table[300];
        snprintf(table, sizeof table, "%s", n > 0 ? gpus : "the table is not readable");
        snprintf(err, errlen, "--tc-model: '%s' names no GPU of reports/tensorcore/params.tsv "
                 "(%s; or envelope)", o->tc_model, table);
        return 2;
    }
    snprintf(r->block_model, sizeof r->block_model, "the published %s rows "
             "(reports/tensorcore/params.tsv)", gpu);
    if (m) ug_block_models_set(m, ug_tc_block_models(rows, n, o->tc_model, m, UG_TC_TABLE_MAX,
                                                     &gpu), r->block_model);
    return 0;
}

/* The class graded and its formats into r (default: tree for the operations with a tree bound,
 * none for the row operations); 0, or 2 when GOT's or the data's format is not the one the
 * class's derivation is of.  A class's operand magnitude (its underflow term) is read here:
 * one pass over the inputs. */
static int check_class(const ug_check_opts *o, const ug_array *a, int nin,
                       ug_check_result *r, char *err, size_t errlen)
{
    r->bound_class = o->bound ? check_class_parse(o->bound)
                              : ug_check_row_op(r->op) ? UG_BOUND_NONE : UG_BOUND_TREE;
    r->acc_fmt = o->acc_fmt != UG_FMT_COUNT ? o->acc_fmt : UG_F32;
    r->op_fmt = o->op_fmt != UG_FMT_COUNT ? o->op_fmt
              : ug_format_of(a[0].fmt)->p < 24 ? a[0].fmt : UG_F32;
    snprintf(r->block_model, sizeof r->block_model, "%s", ug_block_models_source());
    if (r->bound_class <= UG_BOUND_TREE) return 0;
    if (check_tc_model(o, r, NULL, err, errlen)) return 2;
    ug_fmt want = check_class_out(r->bound_class);
    if (want != UG_FMT_COUNT && r->out_fmt != want) {
        snprintf(err, errlen, "--bound %s: the class's output is %s, GOT is %s", o->bound,
                 ug_fmt_name(want), ug_fmt_name(r->out_fmt));
        return 2;
    }
    if (want == UG_F64 || want == UG_F16)
        for (int i = 0; i < nin; i++)
            if (a[i].fmt != want) {
                snprintf(err, errlen, "--bound %s: the class's data is %s, %s is %s", o->bound,
                         ug_fmt_name(want), a[i].name, ug_fmt_name(a[i].fmt));
                return 2;
            }
    for (int i = 0; i < nin; i++)
        for (size_t j = 0, c = ug_array_count(&a[i]); j < c; j++) {
            double v = fabs(ug_array_load(&a[i], j));
            if (!(v <= r->operand_max)) r->operand_max = isnan(v) ? INFINITY : v;
        }
    return 0;
}

/* An upper bound on the bytes the oracle allocates for one problem, beside check's own buffers:
 * a row operation's per-element terms and the per-output intervals of its Ziv loop (~100 bytes
 * an element), a GEMM's row and column maxima. */
static size_t check_oracle_bytes(const ug_check_result *r)
{
    size_t bytes = 4096;
    if (ug_check_row_op(r->op)) bytes += 160 * (r->n + r->per);
    else if (r->op->shape->layout == UG_LAYOUT_MATMUL) bytes += (r->M + r->N) * sizeof(float);
    return bytes;
}

/* Every problem's exact records and their grading, under a trap for memory refused (base/sys.h):
 * 1 when the oracle's own allocation failed (what it had allocated is leaked; the caller frees
 * buf and e and restores what it set), else 0. */
static int check_batches(const ug_check_opts *o, const check_in *in, const ug_array *got,
                         ug_check_result *r, void *buf[2], ug_exact *e)
{
    ug_oom_trap trap;
    if (setjmp(trap.at)) {
        ug_oracle_after_refusal(); /* a jump out of MPFR: its caches, its exponent range */
        return 1;
    }
    ug_oom_trap_push(&trap);
    for (size_t b = 0; b < r->batch; b++) {
        check_exact(in, r, b, buf, e);
        for (size_t j = 0; j < r->per; j++) {
            ug_check_add(r, b * r->per + j, &e[j], ug_array_load(got, b * r->per + j));
            if (o->each_exact) o->each_exact(o->each_ctx, b * r->per + j, &e[j]);
        }
    }
    ug_oom_trap_pop(&trap);
    return 0;
}

int ug_check_run(const ug_check_opts *o, const ug_array *a, int nin,
                 const ug_array *got, ug_check_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    check_in in = {.a = a, .arity = 0, .mpfr = o->mpfr};
    if (ug_check_prepare(o, &r->op, &in.arity, err, errlen)) return 2;
    const char *opname = r->op->shape->name;
    if (nin != in.arity) {
        snprintf(err, errlen, "--op %s takes %d input array%s, not %d", opname, in.arity,
                 in.arity == 1 ? "" : "s", nin);
        return 2;
    }
    if (o->mpfr) ug_oracle_select(UG_ORACLE_MPFR);
    r->inputs = in.arity;
    for (int i = 0; i < in.arity; i++) {
        r->in_fmt[i] = a[i].fmt;
        in.wide |= a[i].fmt == UG_F64;
    }
    r->out_fmt = got->fmt;
    for (int i = 0; i <= in.arity; i++) { /* the arrays' sizes: shapes whose product overflows,
                                              or more dimensions than an array has, refused */
        const ug_array *v = i < in.arity ? &a[i] : got;
        size_t c = 1;
        bool over = v->ndim < 0 || v->ndim > UG_ARRAY_MAX_DIMS;
        for (int d = 0; !over && d < v->ndim; d++) {
            if (v->shape[d] && c > SIZE_MAX / 16 / v->shape[d]) over = true;
            c *= v->shape[d];
        }
        if (over) return fail(err, errlen, "%s: %s", v->name, "a shape of more than 8 dimensions "
                              "or more elements than memory holds");
        if (ug_array_require_c_order(v, err, errlen) || ug_array_check_codes(v, err, errlen))
            return 2;
    }
    if (ug_check_row_op(r->op) && in.wide)
        return fail(err, errlen, "--op %s: binary64 inputs are not supported (binary32, "
                                 "binary16 and bfloat16 are)%s", opname, "");
    if (in.wide && !check_has_f64(r->op))
        return fail(err, errlen, "%s: binary64 input: --op %s grades binary32 (and narrower) "
                                 "inputs only", a[0].fmt == UG_F64 ? a[0].name : a[1].name,
                    opname);
    if (r->op->bound && r->out_fmt != UG_F32) /* its bound (ops/) is binary32's */
        return fail(err, errlen, "%s: --op %s grades a binary32 GOT only", got->name, opname);
    if (check_shapes(a, in.arity, got, r, err, errlen)) return 2;
    if (o->axis != UG_CHECK_AXIS_NONE && o->axis != -1 && o->axis != a[0].ndim - 1) {
        char ax[16], last[16];
        snprintf(ax, sizeof ax, "%d", o->axis);
        snprintf(last, sizeof last, "%d", a[0].ndim - 1);
        snprintf(err, errlen, "--axis %s: only the last axis of %s (-1 or %s) is supported", ax,
                 a[0].name, last);
        return 2;
    }
    r->depth = o->depth >= 0 ? (size_t)o->depth : (r->n ? r->n - 1 : 0);
    if (check_class(o, a, in.arity, r, err, errlen)) return 2;
    r->oracle = o->mpfr ? "mpfr" : in.wide && r->op->shape->arity == 2 ? "mpfr (binary64 products)"
                                                                 : "fast";
    r->has_bound = !ug_check_row_op(r->op) || r->bound_class != UG_BOUND_NONE;
    if (r->bound_class > UG_BOUND_TREE) {
        r->gamma = NAN; /* a class's bound is kernels/bounds.c's (check_out.c) */
    } else {
        /* gamma_K(u_F), K = D (+1 for products: the product's own rounding), u_F = 2^-p */
        const ug_format *F = ug_format_of(r->out_fmt);
        double u = ldexp(1.0, -F->p);
        double k = (double)r->depth + (r->op->terms_kind == UG_TERMS_PRODUCTS ? 1 : 0);
        r->gamma = k * u < 1 && r->has_bound ? k * u / (1 - k * u) : INFINITY;
    }
    if (r->outputs) { /* none: nothing to compute (and a (0, n) shape's n is no size to
                           allocate: its data is empty whatever n says) */
        size_t esz = in.wide ? sizeof(double) : sizeof(float), len[2] = {0, 0};
        void *buf[2] = {NULL, NULL};
        for (int i = 0; i < in.arity && i < 2; i++) {
            len[i] = r->op->shape->layout == UG_LAYOUT_VECTORS ? r->n
                                                               : (i ? r->K * r->N : r->M * r->K);
            if (i && ug_check_row_op(r->op)) len[i] *= (size_t)(in.arity - 1); /* [w | b] */
        }
        /* memory refused is an answer (Python raises MemoryError), never the end of the
         * process: the scratch the oracle will ask for is tried first, as one block, since its
         * own allocations end the process when they fail */
        size_t need = check_oracle_bytes(r);
        for (int i = 0; i < in.arity && i < 2; i++) {
            buf[i] = malloc((len[i] ? len[i] : 1) * esz);
            need += (len[i] ? len[i] : 1) * esz;
        }
        ug_exact *e = malloc((r->per ? r->per : 1) * sizeof *e);
        need += r->per * sizeof *e;
        ug_block_model tc[UG_TC_TABLE_MAX]; /* block_fma's published rows, for this check only */
        bool tc_set = r->bound_class > UG_BOUND_TREE && o->tc_model &&
                      strcmp(o->tc_model, "envelope");
        void *probe = malloc(check_oracle_bytes(r));
        free(probe);
        if (!probe || !e || (in.arity > 0 && !buf[0]) || (in.arity > 1 && !buf[1])) {
            free(buf[0]);
            free(buf[1]);
            free(e);
            snprintf(err, errlen, "out of memory: --op %s on %s needs about %.3g MiB of scratch "
                     "for each problem (n = %zu)", opname, a[0].name, (double)need / 1048576.0,
                     r->n);
            return 3;
        }
        if (tc_set) check_tc_model(o, r, tc, err, errlen); /* checked by check_class */
        int oom = check_batches(o, &in, got, r, buf, e);
        if (tc_set) ug_block_models_set(NULL, 0, NULL); /* the envelope again */
        free(buf[0]);
        free(buf[1]);
        free(e);
        if (oom) {
            snprintf(err, errlen, "out of memory: the oracle of --op %s on %s was refused %zu "
                     "bytes (n = %zu)", opname, a[0].name, ug_oom_refused(), r->n);
            return 3;
        }
        r->worst_got_bits = ug_array_bits(got, r->worst); /* as stored: a NaN's payload too */
    }
    r->ulp_mean = r->outputs ? r->ulp_sum / (double)r->outputs : 0;
    ug_check_tolerance(r);
    ug_check_verdict(o, r);
    return 0;
}
