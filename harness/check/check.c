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
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/check/check.h"
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

const char *ug_check_op_names(char *buf, size_t len)
{
    size_t k = 0, total = 0, o = 0;
    for (size_t i = 0; ug_op_at(i); i++) total += ug_check_supported(ug_op_at(i));
    if (len) buf[0] = '\0';
    for (size_t i = 0; ug_op_at(i) && o < len; i++) {
        const ug_op_desc *d = ug_op_at(i);
        if (!ug_check_supported(d)) continue;
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
    if (!ug_check_supported(op))
        return fail(err, errlen, "--op: '%s' is not %s", o->op,
                    ug_check_op_names(names, sizeof names));
    if (o->axis != UG_CHECK_AXIS_NONE && !ug_check_row_op(op))
        return fail(err, errlen, "--axis: --op %s has no axis to choose%s", o->op, "");
    if (o->bound && strcmp(o->bound, "tree"))
        return fail(err, errlen, "--bound: '%s' is not tree (the one class check applies)%s",
                    o->bound, "");
    if (o->bound && ug_check_row_op(op))
        return fail(err, errlen, "--bound tree: --op %s is not a sum (use --ulp-max or "
                                 "--rel-max)%s", o->op, "");
    if (o->depth >= 0 && (o->depth != floor(o->depth) || o->depth > 1e15)) {
        char v[32];
        snprintf(v, sizeof v, "%g", o->depth);
        return fail(err, errlen, "--depth: '%s' is not a whole number%s", v, "");
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

size_t ug_check_count(const ug_check_array *a)
{
    size_t c = 1;
    for (int d = 0; d < a->ndim; d++) c *= a->shape[d];
    return c;
}

double ug_check_load(const ug_check_array *a, size_t i)
{
    const unsigned char *data = a->data;
    if (!a->big_endian) return ug_fmt_load(a->fmt, data, i);
    size_t w = ug_fmt_bytes(a->fmt);
    unsigned char tmp[8];
    for (size_t k = 0; k < w; k++) tmp[k] = data[i * w + w - 1 - k];
    return ug_fmt_load(a->fmt, tmp, 0);
}

uint64_t ug_check_bits(const ug_check_array *a, size_t i)
{
    const unsigned char *p = (const unsigned char *)a->data + i * ug_fmt_bytes(a->fmt);
    size_t w = ug_fmt_bytes(a->fmt);
    uint64_t v = 0;
    for (size_t k = 0; k < w; k++) /* little-endian storage; big_endian: the other way round */
        v |= (uint64_t)p[a->big_endian ? w - 1 - k : k] << (8 * k);
    return v;
}

/* The elements in place when they are native binary32 (binary64) aligned to their size. */
static bool check_native(const ug_check_array *a, ug_fmt f, size_t align)
{
    static const uint16_t one = 1;
    bool little = *(const unsigned char *)&one == 1;
    return a->fmt == f && a->big_endian != little && ((uintptr_t)a->data % align) == 0;
}

/* Elements [off, off + len) of a as binary32 (wide: binary64): in place when native, else
 * widened into buf (len elements).  Exact either way. */
static const void *check_row(const ug_check_array *a, bool wide, size_t off, size_t len, void *buf)
{
    if (len == 0) return buf; /* an empty row: a->data may be NULL */
    if (!wide && check_native(a, UG_F32, _Alignof(float))) return (const float *)a->data + off;
    if (wide && check_native(a, UG_F64, _Alignof(double))) return (const double *)a->data + off;
    for (size_t i = 0; i < len; i++) {
        double v = ug_check_load(a, off + i);
        if (wide) ((double *)buf)[i] = v;
        else ((float *)buf)[i] = (float)v;
    }
    return buf;
}

/* The shape as text, "(4, 1000)", into buf. */
static const char *shape_text(const ug_check_array *a, char *buf, size_t len)
{
    size_t o = 0;
    o += (size_t)snprintf(buf, len, "(");
    for (int d = 0; d < a->ndim && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%zu", d ? ", " : "", a->shape[d]);
    if (o < len) snprintf(buf + o, len - o, a->ndim == 1 ? ",)" : ")");
    return buf;
}

/* A shape error: "NAME: shape (..): what"; 2. */
static int shape_error(char *err, size_t errlen, const ug_check_array *a, const char *what)
{
    char s[128];
    snprintf(err, errlen, "%s: shape %s: %s", a->name, shape_text(a, s, sizeof s), what);
    return 2;
}

static bool same_shape(const ug_check_array *a, const ug_check_array *b)
{
    return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(size_t) * (size_t)a->ndim);
}

/* Work out batch, per, n (and M, N, K) from the shapes; 0, or 2 naming the array at fault. */
static int check_shapes(const ug_check_array *in, int nin, const ug_check_array *g,
                        ug_check_result *r, char *err, size_t errlen)
{
    const ug_check_array *x = &in[0], *y = &in[1];
    size_t xcount = ug_check_count(x), gcount = ug_check_count(g);
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
                              : g->ndim == x->ndim && gcount == xcount;
        if (!ok)
            return shape_error(err, errlen, g, r->per == 1 ? "one output per row: () or (batch,)"
                                                           : "one output per input: X's shape");
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

/* ---- binary64 dot products, exactly, with MPFR ----------------------------------------------- */

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

/* ---- the exact results ----------------------------------------------------------------------- */

typedef struct check_in {
    const ug_check_array *a;
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
        exact_dot_f64(x, 1, y, 1, r->n, e);
    else
        for (size_t i = 0; i < r->M; i++)
            for (size_t j = 0; j < r->N; j++)
                exact_dot_f64(x + i * r->K, 1, y + j, r->N, r->K, &e[i * r->N + j]);
}

/* The verdict against o's limits, into r->ok and r->verdict (the first limit passed):
 *   - no outputs: with any limit, a failure (nothing was graded, so nothing may pass);
 *   - --ulp-max U: an output past U ULP; and where U <= 0.5 (round to nearest asked for) or
 *     --rel-max 0 (exactness asked for), an output that is a zero of the wrong sign: IEEE 754
 *     fixes the sign of an exact zero under rounding to nearest, its error in value is 0 but it
 *     is not the correctly rounded result (run's correctly_rounded check grades it the same);
 *     NaN for a number, a number for NaN: an infinite error (oracle.h), past every limit;
 *   - --correctly-rounded: an output that is not bit for bit RN_F(s);
 *   - --rel-max R: an output past R;
 *   - --bound tree: an output past its bound, or any finite output whose bound is vacuous
 *     (K u >= 1: it bounds nothing, so it cannot pass anything). */
static void check_verdict(const ug_check_opts *o, ug_check_result *r)
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
        snprintf(r->verdict, sizeof r->verdict, "FAIL: the tree bound is vacuous for %zu "
                 "output%s (K u >= 1: it bounds nothing; grade with --ulp-max or --rel-max)",
                 r->vacuous, r->vacuous == 1 ? "" : "s");
    else if (o->bound && !(r->ratio_max <= 1))
        snprintf(r->verdict, sizeof r->verdict, "FAIL: error / tree bound %.6g > 1", r->ratio_max);
    else
        r->ok = true;
    if (r->ok) snprintf(r->verdict, sizeof r->verdict, "ok");
}

int ug_check_run(const ug_check_opts *o, const ug_check_array *a, int nin,
                 const ug_check_array *got, ug_check_result *r, char *err, size_t errlen)
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
        const ug_check_array *v = i < in.arity ? &a[i] : got;
        size_t c = 1;
        bool over = v->ndim < 0 || v->ndim > UG_CHECK_MAX_DIMS;
        for (int d = 0; !over && d < v->ndim; d++) {
            if (v->shape[d] && c > SIZE_MAX / 16 / v->shape[d]) over = true;
            c *= v->shape[d];
        }
        if (over) return fail(err, errlen, "%s: %s", v->name, "a shape of more than 8 dimensions "
                              "or more elements than memory holds");
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
    r->oracle = o->mpfr ? "mpfr" : in.wide && r->op->shape->arity == 2 ? "mpfr (binary64 products)"
                                                                 : "fast";
    r->has_bound = !ug_check_row_op(r->op);
    {
        /* gamma_K(u_F), K = D (+1 for products: the product's own rounding), u_F = 2^-p */
        const ug_format *F = ug_format_of(r->out_fmt);
        double u = ldexp(1.0, -F->p);
        double k = (double)r->depth + (r->op->terms_kind == UG_TERMS_PRODUCTS ? 1 : 0);
        r->gamma = k * u < 1 && r->has_bound ? k * u / (1 - k * u) : INFINITY;
    }
    if (r->outputs) { /* none: nothing to compute (and a (0, n) shape's n is no size to
                           allocate: its data is empty whatever n says) */
        size_t esz = in.wide ? sizeof(double) : sizeof(float);
        void *buf[2] = {NULL, NULL};
        for (int i = 0; i < in.arity && i < 2; i++) {
            size_t len = r->op->shape->layout == UG_LAYOUT_VECTORS ? r->n
                                                            : (i ? r->K * r->N : r->M * r->K);
            if (i && ug_check_row_op(r->op)) len *= (size_t)(in.arity - 1); /* [w | b] */
            buf[i] = ug_xmalloc((len ? len : 1) * esz);
        }
        ug_exact *e = ug_xmalloc(r->per * sizeof *e);
        for (size_t b = 0; b < r->batch; b++) {
            check_exact(&in, r, b, buf, e);
            for (size_t j = 0; j < r->per; j++) {
                ug_check_add(r, b * r->per + j, &e[j], ug_check_load(got, b * r->per + j));
                if (o->each_exact) o->each_exact(o->each_ctx, b * r->per + j, &e[j]);
            }
        }
        free(buf[0]);
        free(buf[1]);
        free(e);
        r->worst_got_bits = ug_check_bits(got, r->worst); /* as stored: a NaN's payload too */
    }
    r->ulp_mean = r->outputs ? r->ulp_sum / (double)r->outputs : 0;
    ug_check_tolerance(r);
    check_verdict(o, r);
    return 0;
}
