/*
 * attention_mpfr.c - the attention reference by MPFR enclosures (attention.h), the ground truth
 * the fast path (attention_fast.c) is checked against.  What the two share (the shape rules,
 * the special values, the bound quantities) is attention_common.c's; the dispatcher
 * ug_exact_attention is attention_fast.c's.
 *
 * Why this is correct without an error analysis: the scores are exact (each a dot of d binary32
 * products, summed by MPFR at a precision that holds every bit of it: exact_score), and every
 * later operation is done on intervals whose lower end is rounded down and upper end up: exp is
 * increasing, the products with a binary32 V_kj take the end that keeps the enclosure by V's
 * sign, the division is by a positive interval, log is increasing.  So [L, U] contains the
 * real output by induction, at any precision; Ziv's strategy raises the precision (128, 256,
 * ... bits up to the cap) until every record's roundings agree at both ends (oracle/rows/ziv.h).
 * The shift m0 = max_k s_k is exact (a point, not an interval), and any shift gives the same
 * softmax: it only keeps e^(s - m0) <= 1 inside MPFR's exponent range.
 * Cost per query row at 128 bits: d exact multiply-adds a score, two exps a key, four MPFR
 * multiply-adds per key and output column: ~50 ms for 2048 keys and dv = 128 on one core.
 */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "base/sys.h"
#include "oracle/attention/exact_attention.h"
#include "oracle/rows/transcend.h"
#include "oracle/rows/ziv.h"
#include "oracle/special.h"

/* Every output of row i is NaN (a non-finite score, or a fully masked O), lse NaN or -inf. */
static bool attn_row_trivial(const float *Q, const float *K, const ug_shape *shp,
                             const ug_opts *opt, size_t i, ug_exact *O, ug_exact *lse)
{
    bool special = ug_attn_row_special(Q, K, shp, opt, i);
    if (!special && ug_attn_keys(shp, opt, i) > 0) return false;
    for (size_t j = 0; j < shp->dim[3]; j++) ug_exact_set_special(&O[j], UG_X_NAN);
    if (lse) ug_exact_set_special(lse, special ? UG_X_NAN : UG_X_NEGINF);
    return true;
}

/* ---- exact scores ------------------------------------------------------------------------------ */

/* s = c (q . k) exactly: every product's bits lie in [2^(eq+ek-48), 2^(eq+ek)) (frexpf
 * exponents; a subnormal's bits too), so a precision spanning the highest product's top to the
 * lowest product's bottom, plus log2(d) + 2 carry bits and 24 for c, holds the sum and its
 * product with c exactly.  Every MPFR call below is exact (ternary 0: checked). */
static void exact_score(mpfr_t s, const float *q, const float *k, size_t d, float c)
{
    int hmax = -100000, lmin = 100000, carry = 2;
    for (size_t t = 0; t < d; t++) {
        if (q[t] == 0 || k[t] == 0) continue;
        int eq, ek;
        frexpf(q[t], &eq);
        frexpf(k[t], &ek);
        hmax = eq + ek > hmax ? eq + ek : hmax;
        lmin = eq + ek - 48 < lmin ? eq + ek - 48 : lmin;
    }
    while (((size_t)1 << carry) < d) carry++;
    long prec = hmax >= lmin ? (long)(hmax - lmin) + carry + 2 + 24 : 64;
    mpfr_set_prec(s, prec < 64 ? 64 : prec);
    mpfr_set_zero(s, 1);
    mpfr_t a, b, p;
    mpfr_inits2(48, a, b, p, (mpfr_ptr)0);
    int inexact = 0;
    for (size_t t = 0; t < d; t++) {
        mpfr_set_flt(a, q[t], MPFR_RNDN);
        mpfr_set_flt(b, k[t], MPFR_RNDN);
        inexact |= mpfr_mul(p, a, b, MPFR_RNDN);
        inexact |= mpfr_add(s, s, p, MPFR_RNDN);
    }
    inexact |= mpfr_mul_d(s, s, (double)c, MPFR_RNDN);
    mpfr_clears(a, b, p, (mpfr_ptr)0);
    if (inexact) { /* cannot happen (the precision above); a loud failure if it ever does */
        fprintf(stderr, "ulpgate: oracle: attention score not exact at %ld bits\n", prec);
        abort();
    }
}

/* ---- one row by enclosures ------------------------------------------------------------------ */

typedef struct {
    const float *Q, *K, *V;
    const ug_shape *shp;
    const ug_opts *opt;
    size_t i, keys;
    mpfr_t *s; /* exact scores of the keys row i sees */
    mpfr_t m0; /* their max, exact */
} attn_row;

/* Enclosures of the row's dv outputs of O into [Ol[j], Ou[j]] and its lse into [ll, lu] at
 * precision p; X (dv values, NULL: not wanted): RU64 of sum_k p_k |V_kj| from this
 * evaluation's upper ends. */
static void attn_row_eval(const attn_row *r, mpfr_prec_t p, mpfr_t *Ol, mpfr_t *Ou, mpfr_t ll,
                          mpfr_t lu, double *X)
{
    size_t dv = r->shp->dim[3];
    mpfr_t el, eu, Sl, Su, t, *xa = NULL;
    mpfr_inits2(p, el, eu, Sl, Su, t, (mpfr_ptr)0);
    mpfr_set_zero(Sl, 1);
    mpfr_set_zero(Su, 1);
    for (size_t j = 0; j < dv; j++) {
        mpfr_set_zero(Ol[j], 1);
        mpfr_set_zero(Ou[j], 1);
    }
    if (X) {
        xa = ug_xcalloc(dv, sizeof *xa);
        for (size_t j = 0; j < dv; j++) {
            mpfr_init2(xa[j], p);
            mpfr_set_zero(xa[j], 1);
        }
    }
    for (size_t k = 0; k < r->keys; k++) {
        mpfr_sub(el, r->s[k], r->m0, MPFR_RNDD);
        mpfr_sub(eu, r->s[k], r->m0, MPFR_RNDU);
        mpfr_exp(el, el, MPFR_RNDD);
        mpfr_exp(eu, eu, MPFR_RNDU);
        mpfr_add(Sl, Sl, el, MPFR_RNDD);
        mpfr_add(Su, Su, eu, MPFR_RNDU);
        const float *vk = r->V + k * dv;
        for (size_t j = 0; j < dv; j++) {
            double v = vk[j];
            if (v == 0) continue;
            /* e v over e in [el, eu]: the smallest at el for v > 0, at eu for v < 0 */
            mpfr_mul_d(t, v > 0 ? el : eu, v, MPFR_RNDD);
            mpfr_add(Ol[j], Ol[j], t, MPFR_RNDD);
            mpfr_mul_d(t, v > 0 ? eu : el, v, MPFR_RNDU);
            mpfr_add(Ou[j], Ou[j], t, MPFR_RNDU);
            if (X) {
                mpfr_mul_d(t, eu, fabs(v), MPFR_RNDU);
                mpfr_add(xa[j], xa[j], t, MPFR_RNDU);
            }
        }
    }
    /* O = N / S, S > 0 (the max's term is e^0 = 1): the smallest quotient of a lower end
     * >= 0 is over the largest S, of a negative one over the smallest; the upper end alike */
    for (size_t j = 0; j < dv; j++) {
        mpfr_div(Ol[j], Ol[j], mpfr_sgn(Ol[j]) >= 0 ? Su : Sl, MPFR_RNDD);
        mpfr_div(Ou[j], Ou[j], mpfr_sgn(Ou[j]) >= 0 ? Sl : Su, MPFR_RNDU);
        if (X) {
            mpfr_div(xa[j], xa[j], Sl, MPFR_RNDU);
            X[j] = mpfr_get_d(xa[j], MPFR_RNDU);
            mpfr_clear(xa[j]);
        }
    }
    free(xa);
    mpfr_log(ll, Sl, MPFR_RNDD);
    mpfr_log(lu, Su, MPFR_RNDU);
    mpfr_add(ll, ll, r->m0, MPFR_RNDD);
    mpfr_add(lu, lu, r->m0, MPFR_RNDU);
    mpfr_clears(el, eu, Sl, Su, t, (mpfr_ptr)0);
}

/* The row's exact scores and their max (r->s allocated: attn_row_free). */
static void attn_row_init(attn_row *r, const float *Q, const float *K, const float *V,
                          const ug_shape *shp, const ug_opts *opt, size_t i)
{
    r->Q = Q;
    r->K = K;
    r->V = V;
    r->shp = shp, r->opt = opt;
    r->i = i;
    r->keys = ug_attn_keys(shp, opt, i);
    r->s = ug_xcalloc(r->keys ? r->keys : 1, sizeof *r->s);
    size_t best = 0, d = shp->dim[2];
    float c = ug_attn_scale(shp, opt);
    for (size_t k = 0; k < r->keys; k++) {
        mpfr_init2(r->s[k], 64);
        exact_score(r->s[k], Q + i * d, K + k * d, d, c);
        if (k && mpfr_cmp(r->s[k], r->s[best]) > 0) best = k;
    }
    mpfr_init2(r->m0, r->keys ? mpfr_get_prec(r->s[best]) : 64);
    if (r->keys) mpfr_set(r->m0, r->s[best], MPFR_RNDN); /* exact: same precision */
}

static void attn_row_free(attn_row *r)
{
    for (size_t k = 0; k < r->keys; k++) mpfr_clear(r->s[k]);
    free(r->s);
    mpfr_clear(r->m0);
}

/* ---- exact outputs ------------------------------------------------------------------------------ */

/* Keys by exact score, ascending (a merge sort of indices: mpfr_cmp, no qsort context). */
static void attn_sort_keys(const attn_row *r, size_t *ix, size_t *tmp, size_t n)
{
    if (n < 2) return;
    size_t h = n / 2, a = 0, b = h, o = 0;
    attn_sort_keys(r, ix, tmp, h);
    attn_sort_keys(r, ix + h, tmp, n - h);
    while (a < h && b < n) tmp[o++] = mpfr_cmp(r->s[ix[b]], r->s[ix[a]]) < 0 ? ix[b++] : ix[a++];
    while (a < h) tmp[o++] = ix[a++];
    while (b < n) tmp[o++] = ix[b++];
    memcpy(ix, tmp, n * sizeof *ix);
}

/* Whether O_ij is exactly a dyadic rational, put into v (its precision raised to hold it).
 * O - v = (1/l) sum_g e^(s_g - m0) (sum_{k in g} V_kj - c_g v), g the groups of keys of equal
 * exact score s_g (c_g keys each).  The s_g are distinct rationals, so by Lindemann-Weierstrass
 * the e^(s_g - m0) are linearly independent over the algebraic numbers: O = v exactly iff every
 * group's coefficient is 0, i.e. every group's V_kj average the same v.  Enclosures never
 * collapse onto such a value (Ziv's loop cannot decide the sign of O - v: two keys of different
 * scores and equal V_kj), so it is decided here, exactly.  A non-dyadic v (a group's average
 * 4/3) is no binary value nor midpoint: the enclosures decide it.  Cost: O(n) per column with
 * the keys sorted once (ix: the order, NULL on entry: sorted here, O(n log n)). */
static bool attn_exact_column(const attn_row *r, size_t **ix, size_t j, mpfr_t v)
{
    size_t n = r->keys, dv = r->shp->dim[3];
    if (!*ix) {
        size_t *tmp = ug_xmalloc(n * sizeof *tmp);
        *ix = ug_xmalloc(n * sizeof **ix);
        for (size_t k = 0; k < n; k++) (*ix)[k] = k;
        attn_sort_keys(r, *ix, tmp, n);
        free(tmp);
    }
    /* a sum of up to 2^32 binary32 values is exact in 320 bits (2^128 .. 2^-149, 32 carries);
     * its quotient by c_g in 400 bits when dyadic; c_g v back exactly the same way */
    mpfr_t sum, want;
    mpfr_inits2(400, sum, want, (mpfr_ptr)0);
    mpfr_set_prec(v, 400);
    bool exact = true, first = true;
    for (size_t a = 0; exact && a < n;) {
        size_t b = a;
        mpfr_set_zero(sum, 1);
        while (b < n && mpfr_equal_p(r->s[(*ix)[b]], r->s[(*ix)[a]])) {
            exact &= mpfr_add_d(sum, sum, r->V[(*ix)[b] * dv + j], MPFR_RNDN) == 0;
            b++;
        }
        if (first) exact &= mpfr_div_ui(v, sum, (unsigned long)(b - a), MPFR_RNDN) == 0;
        else exact &= mpfr_mul_ui(want, v, (unsigned long)(b - a), MPFR_RNDN) == 0 &&
                      mpfr_equal_p(want, sum);
        first = false;
        a = b;
    }
    mpfr_clears(sum, want, (mpfr_ptr)0);
    return exact && n > 0;
}

/* sum_abs of O_ij: RU64((X_j + 2^-100 Z_j)(1 + 2^-41)) (attention.h); of lse_i: A_i. */
static double attn_w(double X, double Z)
{
    return (X + 0x1p-100 * Z) * (1 + 0x1p-41);
}

void ug_exact_attention_row_mpfr(const float *Q, const float *K, const float *V,
                                 const ug_shape *shp, const ug_opts *opt, size_t i, ug_exact *O, ug_exact *lse)
{
    if (attn_row_trivial(Q, K, shp, opt, i, O, lse)) return;
    /* a non-finite V: the row on finite values, then its columns (exact_attention.h's rule) */
    float *Vf = ug_attn_v_finite(V, ug_attn_keys(shp, opt, i) * shp->dim[3]);
    if (Vf) {
        ug_exact_attention_row_mpfr(Q, K, Vf, shp, opt, i, O, lse);
        ug_attn_v_special(V, shp, ug_attn_keys(shp, opt, i), O);
        free(Vf);
        return;
    }
    size_t dv = shp->dim[3], outs = dv + 1, open = lse ? outs : dv;
    attn_row r;
    attn_row_init(&r, Q, K, V, shp, opt, i);
    double *X = ug_xcalloc(dv, sizeof *X), *Z = ug_xcalloc(dv, sizeof *Z);
    double A = ug_attn_score_abs(Q, K, shp, opt, i);
    ug_attn_v_abs(V, shp, r.keys, Z);
    mpfr_t *lo = ug_xcalloc(outs, sizeof *lo), *hi = ug_xcalloc(outs, sizeof *hi);
    bool *done = ug_xcalloc(outs, sizeof *done), have_x = false;
    size_t *order = NULL; /* the keys by score, sorted when an exact output is looked for */
    if (!lse) done[dv] = true;
    /* lse > m0 strictly once two keys are seen (S > 1): an end on m0 is decided as open */
    double lb = NAN;
    if (r.keys > 1 && mpfr_cmp_d(r.m0, mpfr_get_d(r.m0, MPFR_RNDN)) == 0)
        lb = mpfr_get_d(r.m0, MPFR_RNDN);
    long prec0, cap, p;
    ug_ziv_precisions(&prec0, &cap);
    for (p = prec0; open && p <= cap; p *= 2) {
        for (size_t o = 0; o < outs; o++) {
            mpfr_init2(lo[o], (mpfr_prec_t)p);
            mpfr_init2(hi[o], (mpfr_prec_t)p);
        }
        bool want_x = !have_x && p >= 128;
        attn_row_eval(&r, (mpfr_prec_t)p, lo, hi, lo[dv], hi[dv], want_x ? X : NULL);
        have_x |= want_x;
        for (size_t o = 0; o < outs; o++) {
            ug_exact *e = o < dv ? &O[o] : lse;
            if (!done[o] && ug_ziv_decide(lo[o], hi[o], 0, o < dv ? NAN : lb, NAN, e)) {
                done[o] = true;
                open--;
                ug_ziv_count_decided(p, mpfr_equal_p(lo[o], hi[o]));
            } else if (!done[o] && o < dv && p == prec0) {
                /* not decided at the first precision: an exact output? (lse is exact only
                 * with one key, where the enclosures collapse: attn_exact_column's argument
                 * with log) */
                mpfr_t v;
                mpfr_init2(v, 400);
                if (attn_exact_column(&r, &order, o, v) && ug_ziv_decide(v, v, 0, NAN, NAN, e)) {
                    done[o] = true;
                    open--;
                    ug_ziv_count_decided(p, true);
                }
                mpfr_clear(v);
            }
            mpfr_clear(lo[o]);
            mpfr_clear(hi[o]);
        }
    }
    if (!have_x) { /* decided below 128 bits (a test's precisions): the bound quantity at 128 */
        mpfr_t *l2 = ug_xcalloc(outs, sizeof *l2), *h2 = ug_xcalloc(outs, sizeof *h2);
        for (size_t o = 0; o < outs; o++) mpfr_inits2(128, l2[o], h2[o], (mpfr_ptr)0);
        attn_row_eval(&r, 128, l2, h2, l2[dv], h2[dv], X);
        for (size_t o = 0; o < outs; o++) mpfr_clears(l2[o], h2[o], (mpfr_ptr)0);
        free(l2);
        free(h2);
    }
    for (size_t o = 0; o < outs; o++) {
        ug_exact *e = o < dv ? &O[o] : lse;
        if (!done[o]) {
            fprintf(stderr, "ulpgate: oracle: attention row %zu output %s%zu (L %zu, S %zu, d %zu): "
                    "rounding not decided at %ld bits (reported, not guessed: recorded as NaN)\n",
                    i, o < dv ? "O " : "lse", o < dv ? o : 0, shp->dim[0], shp->dim[1], shp->dim[2], cap);
            ug_exact_set_special(e, UG_X_NAN);
            ug_ziv_count_undecided();
            continue;
        }
        e->sum_abs = o < dv ? attn_w(X[o], Z[o]) : A;
    }
    ug_attn_v_negzero(V, shp, r.keys, O);
    free(lo);
    free(hi);
    free(done);
    free(order);
    free(X);
    free(Z);
    attn_row_free(&r);
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); /* a ug_par worker's log 2 cache would leak */
}

void ug_attn_enclose_testing(const float *Q, const float *K, const float *V,
                             const ug_shape *shp, const ug_opts *opt, size_t i, long prec, double *lo, double *hi)
{
    size_t dv = shp->dim[3], outs = dv + 1;
    attn_row r;
    attn_row_init(&r, Q, K, V, shp, opt, i);
    mpfr_t *l = ug_xcalloc(outs, sizeof *l), *h = ug_xcalloc(outs, sizeof *h);
    for (size_t o = 0; o < outs; o++) mpfr_inits2((mpfr_prec_t)prec, l[o], h[o], (mpfr_ptr)0);
    attn_row_eval(&r, (mpfr_prec_t)prec, l, h, l[dv], h[dv], NULL);
    for (size_t o = 0; o < outs; o++) {
        lo[o] = mpfr_get_d(l[o], MPFR_RNDD);
        hi[o] = mpfr_get_d(h[o], MPFR_RNDU);
        mpfr_clears(l[o], h[o], (mpfr_ptr)0);
    }
    free(l);
    free(h);
    attn_row_free(&r);
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
}

/* ---- whole heads -------------------------------------------------------------------------- */

typedef struct {
    const float *Q, *K, *V;
    const ug_shape *shp;
    const ug_opts *opt;
    ug_exact *O, *lse;
} attn_head;

static void attn_mpfr_range(void *vctx, size_t lo, size_t hi)
{
    attn_head *h = vctx;
    for (size_t i = lo; i < hi; i++)
        ug_exact_attention_row_mpfr(h->Q, h->K, h->V, h->shp, h->opt, i, h->O + i * h->shp->dim[3],
                                    h->lse ? h->lse + i : NULL);
}

void ug_exact_attention_mpfr(const float *Q, const float *K, const float *V,
                             const ug_shape *shp, const ug_opts *opt, ug_exact *O, ug_exact *lse)
{
    attn_head h = {Q, K, V, shp, opt, O, lse};
    ug_par_range(shp->dim[0], 1, 0, attn_mpfr_range, &h);
}
