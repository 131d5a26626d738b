/*
 * transcend.c - correctly rounded softmax, log-sum-exp, RMSNorm and LayerNorm (transcend.h):
 * MPFR interval enclosures, raised in precision until the roundings are decided.
 *
 * Why intervals rather than one MPFR evaluation and mpfr_can_round: an evaluation's error bound
 * would have to be derived per formula (and re-derived when one changes), and a wrong constant
 * gives a wrong "correctly rounded" answer silently.  Outward rounding needs no derivation:
 * every operation below rounds its lower end down and its upper end up (RNDD/RNDU), the
 * functions used are monotone on the ranges they see (exp, log, sqrt; division by a positive
 * interval; squaring splits at zero), so [L, U] contains the real result by induction over the
 * operations.  The cost is two evaluations instead of one.
 */
#include <math.h>
#include <mpfr.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "oracle/exact_mpfr.h"
#include "oracle/special.h"
#include "oracle/rows/transcend.h"
#include "oracle/rows/ziv.h"

static _Thread_local ug_ziv_stats ug_zs;
static _Thread_local long ug_prec0 = UG_ZIV_PREC0, ug_cap = UG_ZIV_PREC_CAP;

void ug_ziv_stats_reset(void) { ug_zs = (ug_ziv_stats){0}; }
void ug_ziv_count_fast(size_t outputs)
{
    ug_zs.outputs += outputs;
    ug_zs.fast += outputs;
}
void ug_ziv_count_fallback_row(void) { ug_zs.fallback_rows++; }
ug_ziv_stats ug_ziv_stats_get(void) { return ug_zs; }

void ug_ziv_set_precisions(long prec0, long cap)
{
    ug_prec0 = prec0 > 0 ? prec0 : UG_ZIV_PREC0;
    ug_cap = cap > 0 ? cap : UG_ZIV_PREC_CAP;
}

/* ---- intervals ------------------------------------------------------------------------------ */

typedef struct {
    mpfr_t l, u;
} ug_iv;

static void iv_init(ug_iv *a, mpfr_prec_t p)
{
    mpfr_init2(a->l, p);
    mpfr_init2(a->u, p);
}
static void iv_clear(ug_iv *a)
{
    mpfr_clear(a->l);
    mpfr_clear(a->u);
}
static void iv_set_flt(ug_iv *a, float x) /* exact: p >= 24 */
{
    mpfr_set_flt(a->l, x, MPFR_RNDD);
    mpfr_set_flt(a->u, x, MPFR_RNDU);
}
static void iv_set_zero(ug_iv *a)
{
    mpfr_set_zero(a->l, 1);
    mpfr_set_zero(a->u, 1);
}
static void iv_add(ug_iv *r, const ug_iv *a, const ug_iv *b)
{
    mpfr_add(r->l, a->l, b->l, MPFR_RNDD);
    mpfr_add(r->u, a->u, b->u, MPFR_RNDU);
}
/* r = a - b; r may not alias b. */
static void iv_sub(ug_iv *r, const ug_iv *a, const ug_iv *b)
{
    mpfr_sub(r->l, a->l, b->u, MPFR_RNDD);
    mpfr_sub(r->u, a->u, b->l, MPFR_RNDU);
}
/* Monotone increasing functions: exp, log (a > 0), sqrt (a >= 0). */
static void iv_exp(ug_iv *r, const ug_iv *a)
{
    mpfr_exp(r->l, a->l, MPFR_RNDD);
    mpfr_exp(r->u, a->u, MPFR_RNDU);
}
static void iv_log(ug_iv *r, const ug_iv *a)
{
    mpfr_log(r->l, a->l, MPFR_RNDD);
    mpfr_log(r->u, a->u, MPFR_RNDU);
}
static void iv_sqrt(ug_iv *r, const ug_iv *a)
{
    mpfr_sqrt(r->l, a->l, MPFR_RNDD);
    mpfr_sqrt(r->u, a->u, MPFR_RNDU);
}
/* r = a^2 (split at zero); r may alias a. */
static void iv_sqr(ug_iv *r, const ug_iv *a, mpfr_ptr tmp)
{
    if (mpfr_sgn(a->l) >= 0) {
        mpfr_sqr(r->l, a->l, MPFR_RNDD);
        mpfr_sqr(r->u, a->u, MPFR_RNDU);
    } else if (mpfr_sgn(a->u) <= 0) {
        mpfr_sqr(tmp, a->u, MPFR_RNDD);
        mpfr_sqr(r->u, a->l, MPFR_RNDU);
        mpfr_set(r->l, tmp, MPFR_RNDD);
    } else {
        mpfr_sqr(tmp, mpfr_cmpabs(a->l, a->u) > 0 ? a->l : a->u, MPFR_RNDU);
        mpfr_set(r->u, tmp, MPFR_RNDU);
        mpfr_set_zero(r->l, 1);
    }
}
/* r = a * w, w a point (a binary32 weight). */
static void iv_mul_flt(ug_iv *r, const ug_iv *a, float w, mpfr_ptr tmp)
{
    if (w >= 0) {
        mpfr_mul_d(r->l, a->l, w, MPFR_RNDD);
        mpfr_mul_d(r->u, a->u, w, MPFR_RNDU);
    } else {
        mpfr_mul_d(tmp, a->u, w, MPFR_RNDD);
        mpfr_mul_d(r->u, a->l, w, MPFR_RNDU);
        mpfr_set(r->l, tmp, MPFR_RNDD);
    }
}
/* r = a / b for b > 0 (b.l > 0); r may alias a. */
static void iv_div_pos(ug_iv *r, const ug_iv *a, const ug_iv *b)
{
    /* the smallest quotient: a.l over the largest b if a.l >= 0, else over the smallest */
    mpfr_div(r->l, a->l, mpfr_sgn(a->l) >= 0 ? b->u : b->l, MPFR_RNDD);
    mpfr_div(r->u, a->u, mpfr_sgn(a->u) >= 0 ? b->l : b->u, MPFR_RNDU);
}

/* ---- deciding a record from an enclosure ------------------------------------------------------ */

/* hi = RN64(v), lo = RN64(v - hi) of one MPFR number; the sign of v - hi into *sgn. */
static void ug_hilo(mpfr_srcptr v, double *hi, double *lo, int *sgn)
{
    *hi = mpfr_get_d(v, MPFR_RNDN);
    *lo = 0;
    *sgn = 0;
    if (!isfinite(*hi)) return;
    mpfr_t d;
    mpfr_init2(d, mpfr_get_prec(v) + 64);
    mpfr_sub_d(d, v, *hi, MPFR_RNDN); /* exact: v and hi are within one ulp64 of each other */
    *sgn = mpfr_sgn(d);
    *lo = mpfr_get_d(d, MPFR_RNDN);
    mpfr_clear(d);
}

/* Whether [L, U] decides every rounding of the record; fills e if so.  S: sum_abs.
 * lb / ub (NaN: none): values the real one is known to lie strictly above / below (a softmax
 * output is > 0, and < 1 when another logit is finite; a log-sum-exp of two finite logits is
 * > max).  Where an end equals such a value, the real one lies strictly inside: an end that is
 * a binary32 number then has the roundings of its one-sided limit: the same RN64, RN32, and
 * RD32 above a lower end; RD32 below an upper end U is U's predecessor; the sign of s - hi is
 * the side the value lies on.
 * This decides rows whose other terms are below every precision (logits 1e30 and -1e30: the
 * log-sum-exp is 1e30 + e^-2e30, RN64 = 1e30, lo = 0, above it). */
static bool ug_decide(const ug_iv *a, double S, double lb, double ub, ug_exact *e)
{
    if (mpfr_zero_p(a->l) && mpfr_zero_p(a->u)) { /* an exact zero */
        ug_exact_set_zero(e, 0);
        e->sum_abs = S;
        return true;
    }
    double hl, ll, hu, lu;
    int sl, su;
    ug_hilo(a->l, &hl, &ll, &sl);
    ug_hilo(a->u, &hu, &lu, &su);
    if (sl == 0 && !isnan(lb) && mpfr_cmp_d(a->l, lb) == 0 && (double)(float)hl == hl) sl = 1;
    if (su == 0 && !isnan(ub) && mpfr_cmp_d(a->u, ub) == 0 && (double)(float)hu == hu) su = -1;
    if (!(hl == hu && ll == lu && sl == su) || !isfinite(hl)) return false;
    float nl = ug_mpfr_round_f32(a->l, MPFR_RNDN), nu = ug_mpfr_round_f32(a->u, MPFR_RNDN);
    float dl = ug_mpfr_round_f32(a->l, MPFR_RNDD), du = ug_mpfr_round_f32(a->u, MPFR_RNDD);
    /* just below an open upper end U that is a binary32 number, RD32 is U's predecessor */
    if (!isnan(ub) && mpfr_cmp_d(a->u, ub) == 0 && (double)(float)hu == hu)
        du = nextafterf(du, -INFINITY);
    if (nl != nu || dl != du) return false;
    e->cls = UG_X_FINITE;
    e->hi = hl;
    e->lo = ll;
    e->rn = nl;
    e->rd = dl;
    e->sum_abs = S;
    return true;
}

/* The exports of ziv.h: the decision and the statistics for other enclosure-based references
 * (oracle/attention/attention_mpfr.c). */
bool ug_ziv_decide(mpfr_srcptr l, mpfr_srcptr u, double S, double lb, double ub, ug_exact *e)
{
    ug_iv a;
    /* a shallow view of the two ends: ug_decide reads them only */
    memcpy(a.l, l, sizeof a.l);
    memcpy(a.u, u, sizeof a.u);
    return ug_decide(&a, S, lb, ub, e);
}

void ug_ziv_count_decided(long p, bool exact)
{
    ug_zs.outputs++;
    if (exact) ug_zs.exact++;
    if (p > ug_zs.prec_max) ug_zs.prec_max = p;
    if (p > ug_prec0) ug_zs.raised++;
}

void ug_ziv_count_undecided(void) { ug_zs.undecided++; }
void ug_ziv_precisions(long *prec0, long *cap)
{
    *prec0 = ug_prec0;
    *cap = ug_cap;
}

/* ---- the rows ------------------------------------------------------------------------------ */

/* UG_ROW_EXP, UG_ROW_LOG: e^a and ln a of one binary64 argument a (tests only: the hard-to-round
 * cases of the literature go through the same enclosure and decision as the rows' outputs). */
typedef enum { UG_ROW_SOFTMAX, UG_ROW_LSE, UG_ROW_RMS, UG_ROW_LAYER, UG_ROW_EXP, UG_ROW_LOG } ug_row_kind;

typedef struct {
    ug_row_kind kind;
    const float *x, *w, *b;
    size_t n, outs;
    float eps;
    double arg; /* UG_ROW_EXP, UG_ROW_LOG */
} ug_row;

/* Enclosures of every output of the row at precision p into y[0 .. outs), and each output's
 * sum_abs into S (the row operations' bound quantity, transcend.h), rounded up. */
static void ug_row_eval(const ug_row *r, mpfr_prec_t p, ug_iv *y, double *S)
{
    /* (the open ends of each enclosure: ug_row_open) */
    size_t n = r->n;
    ug_iv t, acc, v;
    mpfr_t tmp;
    iv_init(&t, p);
    iv_init(&acc, p);
    iv_init(&v, p);
    mpfr_init2(tmp, p);
    iv_set_zero(&acc);
    if (r->kind == UG_ROW_EXP || r->kind == UG_ROW_LOG) { /* the argument, outward if p < 53 */
        mpfr_set_d(t.l, r->arg, MPFR_RNDD);
        mpfr_set_d(t.u, r->arg, MPFR_RNDU);
        if (r->kind == UG_ROW_EXP) iv_exp(&y[0], &t);
        else iv_log(&y[0], &t);
        S[0] = 0;
    } else if (r->kind == UG_ROW_SOFTMAX || r->kind == UG_ROW_LSE) {
        float m = -INFINITY;
        for (size_t j = 0; j < n; j++) m = r->x[j] > m ? r->x[j] : m;
        ug_iv mm;
        iv_init(&mm, p);
        iv_set_flt(&mm, m);
        for (size_t j = 0; j < n; j++) { /* acc = sum_j e^(x_j - m), -inf terms 0 */
            if (isinf(r->x[j])) continue;
            iv_set_flt(&t, r->x[j]);
            iv_sub(&v, &t, &mm);
            iv_exp(&v, &v);
            iv_add(&acc, &acc, &v);
            if (r->kind == UG_ROW_SOFTMAX) {
                mpfr_set(y[j].l, v.l, MPFR_RNDD); /* the numerator, divided below */
                mpfr_set(y[j].u, v.u, MPFR_RNDU);
            }
        }
        /* sum_abs = e^m acc.u, rounded up */
        mpfr_exp(tmp, mm.u, MPFR_RNDU);
        mpfr_mul(tmp, tmp, acc.u, MPFR_RNDU);
        double sabs = mpfr_get_d(tmp, MPFR_RNDU);
        if (r->kind == UG_ROW_SOFTMAX) {
            for (size_t j = 0; j < n; j++) {
                if (isinf(r->x[j])) iv_set_zero(&y[j]);
                else iv_div_pos(&y[j], &y[j], &acc);
                S[j] = sabs;
            }
        } else {
            iv_log(&v, &acc);
            iv_add(&y[0], &v, &mm);
            S[0] = sabs;
        }
        iv_clear(&mm);
    } else {
        ug_iv mu, rs;
        iv_init(&mu, p);
        iv_init(&rs, p);
        iv_set_zero(&mu);
        mpfr_t A;
        mpfr_init2(A, p);
        mpfr_set_zero(A, 1);
        if (r->kind == UG_ROW_LAYER) { /* mu = sum x / n, A = sum |x| (up) */
            for (size_t j = 0; j < n; j++) {
                iv_set_flt(&t, r->x[j]);
                iv_add(&mu, &mu, &t);
                mpfr_set_flt(tmp, fabsf(r->x[j]), MPFR_RNDU);
                mpfr_add(A, A, tmp, MPFR_RNDU);
            }
            mpfr_div_ui(mu.l, mu.l, (unsigned long)n, MPFR_RNDD);
            mpfr_div_ui(mu.u, mu.u, (unsigned long)n, MPFR_RNDU);
            mpfr_div_ui(A, A, (unsigned long)n, MPFR_RNDU);
        }
        for (size_t j = 0; j < n; j++) { /* acc = sum (x_j - mu)^2 */
            iv_set_flt(&t, r->x[j]);
            iv_sub(&v, &t, &mu);
            if (j < r->outs) { /* keep x_j - mu for the output */
                mpfr_set(y[j].l, v.l, MPFR_RNDD);
                mpfr_set(y[j].u, v.u, MPFR_RNDU);
            }
            iv_sqr(&v, &v, tmp);
            iv_add(&acc, &acc, &v);
        }
        mpfr_div_ui(acc.l, acc.l, (unsigned long)n, MPFR_RNDD);
        mpfr_div_ui(acc.u, acc.u, (unsigned long)n, MPFR_RNDU);
        mpfr_add_d(acc.l, acc.l, r->eps, MPFR_RNDD);
        mpfr_add_d(acc.u, acc.u, r->eps, MPFR_RNDU);
        iv_sqrt(&rs, &acc); /* sqrt(var + eps) > 0 */
        for (size_t j = 0; j < r->outs; j++) {
            /* S, up: rmsnorm |x_j w_j| / rs; layernorm (|x_j - mu| + mean|x| + 2^-100) / rs,
             * +inf for |w_j| > 2 (kernels/bounds_rows.c: the bound's W) */
            mpfr_abs(tmp, mpfr_cmpabs(y[j].l, y[j].u) > 0 ? y[j].l : y[j].u, MPFR_RNDU);
            if (r->kind == UG_ROW_LAYER) {
                mpfr_add(tmp, tmp, A, MPFR_RNDU);
                mpfr_add_d(tmp, tmp, 0x1p-100, MPFR_RNDU);
            } else {
                mpfr_mul_d(tmp, tmp, fabsf(r->w[j]), MPFR_RNDU);
            }
            mpfr_div(tmp, tmp, rs.l, MPFR_RNDU);
            S[j] = mpfr_get_d(tmp, MPFR_RNDU);
            if (r->kind == UG_ROW_LAYER && !(fabsf(r->w[j]) <= 2)) S[j] = INFINITY;
            iv_mul_flt(&y[j], &y[j], r->w[j], tmp);
            iv_div_pos(&y[j], &y[j], &rs);
            if (r->b) {
                mpfr_add_d(y[j].l, y[j].l, r->b[j], MPFR_RNDD);
                mpfr_add_d(y[j].u, y[j].u, r->b[j], MPFR_RNDU);
            }
        }
        mpfr_clear(A);
        iv_clear(&mu);
        iv_clear(&rs);
    }
    iv_clear(&t);
    iv_clear(&acc);
    iv_clear(&v);
    mpfr_clear(tmp);
}

/* The values output i lies strictly between (ug_decide; NaN: none known): a softmax output
 * in (0, 1) once two logits are finite (in (0, 1] with one), a log-sum-exp of two or more
 * finite logits above the max. */
static void ug_row_open(const ug_row *r, size_t i, double *lb, double *ub)
{
    size_t finite = 0;
    float m = -INFINITY;
    *lb = *ub = NAN;
    if (r->kind != UG_ROW_SOFTMAX && r->kind != UG_ROW_LSE) return;
    for (size_t j = 0; j < r->n; j++) {
        finite += isfinite(r->x[j]);
        m = r->x[j] > m ? r->x[j] : m;
    }
    if (r->kind == UG_ROW_SOFTMAX && isfinite(r->x[i])) {
        *lb = 0;
        if (finite > 1) *ub = 1;
    } else if (r->kind == UG_ROW_LSE && finite > 1) {
        *lb = m;
    }
}

/* The Ziv loop over a row: every output's record decided at the lowest precision that
 * decides it (the row evaluated again at twice the precision while any is open). */
static void ug_row_exact(const ug_row *r, ug_exact *out)
{
    size_t outs = r->outs, open = outs;
    bool *done = ug_xcalloc(outs ? outs : 1, sizeof *done);
    double *S = ug_xcalloc(outs ? outs : 1, sizeof *S);
    ug_iv *y = ug_xcalloc(outs ? outs : 1, sizeof *y);
    long p = ug_prec0;
    for (; open && p <= ug_cap; p *= 2) {
        for (size_t i = 0; i < outs; i++) iv_init(&y[i], (mpfr_prec_t)p);
        ug_row_eval(r, (mpfr_prec_t)p, y, S);
        for (size_t i = 0; i < outs; i++) {
            double lb, ub;
            ug_row_open(r, i, &lb, &ub);
            if (!done[i] && ug_decide(&y[i], S[i], lb, ub, &out[i])) {
                done[i] = true;
                open--;
                ug_zs.outputs++;
                if (mpfr_equal_p(y[i].l, y[i].u)) ug_zs.exact++;
                if (p > ug_zs.prec_max) ug_zs.prec_max = p;
                if (p > ug_prec0) ug_zs.raised++;
            }
            iv_clear(&y[i]);
        }
    }
    for (size_t i = 0; i < outs; i++) {
        if (done[i]) continue;
        fprintf(stderr, "ulpgate: oracle: output %zu of a row of %zu: rounding not decided at "
                "%ld bits (reported, not guessed: recorded as NaN)\n", i, r->n, ug_cap);
        ug_exact_set_special(&out[i], UG_X_NAN);
        ug_zs.undecided++;
    }
    free(done);
    free(S);
    free(y);
    /* MPFR keeps constants (log 2 for exp and log) in thread-local caches: a worker thread of
     * ug_par that ends would leak them (LeakSanitizer).  Recomputing one per row costs
     * microseconds beside the row's evaluation. */
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
}

void ug_exact_softmax_row_mpfr(const float *x, size_t n, ug_exact *out)
{
    size_t nan = 0, pinf = 0, finite = 0;
    for (size_t j = 0; j < n; j++) {
        nan += isnan(x[j]);
        pinf += x[j] == INFINITY;
        finite += isfinite(x[j]);
    }
    if (nan || pinf || !finite) {
        for (size_t j = 0; j < n; j++) ug_exact_set_special(&out[j], UG_X_NAN);
        return;
    }
    ug_row r = {UG_ROW_SOFTMAX, x, NULL, NULL, n, n, 0, 0};
    ug_row_exact(&r, out);
}

void ug_exact_logsumexp_row_mpfr(const float *x, size_t n, ug_exact *out)
{
    size_t nan = 0, pinf = 0, finite = 0;
    for (size_t j = 0; j < n; j++) {
        nan += isnan(x[j]);
        pinf += x[j] == INFINITY;
        finite += isfinite(x[j]);
    }
    if (nan || pinf || !finite) {
        ug_exact_set_special(out, nan ? UG_X_NAN : pinf ? UG_X_POSINF : UG_X_NEGINF);
        return;
    }
    ug_row r = {UG_ROW_LSE, x, NULL, NULL, n, 1, 0, 0};
    ug_row_exact(&r, out);
}

static bool ug_all_finite(const float *v, size_t n)
{
    for (size_t j = 0; v && j < n; j++)
        if (!isfinite(v[j])) return false;
    return true;
}

void ug_exact_rmsnorm_row(const float *x, const float *w, size_t n, float eps, ug_exact *out)
{
    if (!ug_all_finite(x, n) || !ug_all_finite(w, n)) {
        for (size_t j = 0; j < n; j++) ug_exact_set_special(&out[j], UG_X_NAN);
        return;
    }
    ug_row r = {UG_ROW_RMS, x, w, NULL, n, n, eps, 0};
    ug_row_exact(&r, out);
}

void ug_exact_layernorm_row(const float *x, const float *w, const float *b, size_t n, float eps,
                            ug_exact *out)
{
    if (!ug_all_finite(x, n) || !ug_all_finite(w, n) || (b && !ug_all_finite(b, n))) {
        for (size_t j = 0; j < n; j++) ug_exact_set_special(&out[j], UG_X_NAN);
        return;
    }
    ug_row r = {UG_ROW_LAYER, x, w, b, n, n, eps, 0};
    ug_row_exact(&r, out);
}

void ug_exact_fn_mpfr_testing(int log, double a, ug_exact *out)
{
    if (!isfinite(a) || (log && !(a > 0)) || (!log && !(fabs(a) <= 700))) {
        ug_exact_set_special(out, UG_X_NAN); /* outside what the rows ever evaluate */
        return;
    }
    ug_row r = {log ? UG_ROW_LOG : UG_ROW_EXP, NULL, NULL, NULL, 1, 1, 0, a};
    ug_row_exact(&r, out);
}

void ug_transcend_enclose_testing(int kind, const float *x, const float *w, const float *b,
                                  size_t n, float eps, long prec, double *lo, double *hi)
{
    ug_row r = {(ug_row_kind)kind, x, w, b, n, kind == UG_ROW_LSE ? 1 : n, eps, 0};
    ug_iv *y = ug_xcalloc(r.outs, sizeof *y);
    double *S = ug_xcalloc(r.outs, sizeof *S);
    for (size_t i = 0; i < r.outs; i++) iv_init(&y[i], (mpfr_prec_t)prec);
    ug_row_eval(&r, (mpfr_prec_t)prec, y, S);
    for (size_t i = 0; i < r.outs; i++) {
        lo[i] = mpfr_get_d(y[i].l, MPFR_RNDD);
        hi[i] = mpfr_get_d(y[i].u, MPFR_RNDU);
        iv_clear(&y[i]);
    }
    free(y);
    free(S);
}
