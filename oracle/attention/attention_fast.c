/*
 * attention_fast.c - the fast path of the attention reference (attention.h): the records of
 * attention_mpfr.c's enclosures from integer arithmetic with a proven error bound, and the MPFR
 * path for a row it cannot decide.
 *
 * Exact scores.  Each vector of binary32 values (a row of Q, of K; a column of V) is aligned to
 * one exponent: x_t = X_t 2^E with integers |X_t| < 2^58 (E = the largest frexp exponent - 58;
 * a value whose bits reach below 2^E makes the vector "not aligned", and the rows that read it
 * take MPFR).  q . k = 2^(Eq + Ek) sum_t Q_t K_t is then an exact sum of d products below 2^116
 * in a signed 128-bit integer (d <= 2048: below 2^127), and s = c (q . k) with c = mc 2^ec
 * (mc < 2^24) is the exact integer mc |D| < 2^151 times a power of two: no rounding.
 * Each score goes to 4-limb two's complement fixed point at 2^-190 (|s| < 2^57, else MPFR),
 * truncated (< 1 unit); the shift m0 is the score of the largest fixed-point value, exactly a
 * score, so its own term is e^0 = 1 and S >= 1, and every d_k = s_k - m0 is <= 2^-189 (a
 * truncation can misorder two scores by less than a unit).  d_k is known to < 2 units, which
 * is what transcend_fast.c's exp assumes of its argument (its two fix4 truncations), so
 *   t~_k = e^(d_k) to relative 2^-174 (transcend_fast.c's header: fexp), then
 *   T_k = floor(t~_k 2^191) < 2^192 (3 limbs): |T_k 2^-191 - t_k| <= 2^-174 t_k + 2^-191;
 *   terms with d_k < -746.5 (t_k < 2^-1076) are T_k = 0, inside the same 2^-191.
 * The sums, exactly: S~ = sum T_k (4 limbs) and, per output column j with V_kj = W_kj 2^Ev_j
 * (|W| < 2^58), N~_j = sum_k T_k W_kj in two 320-bit accumulators (the positive and negative
 * products; T W < 2^250, so 2^60 keys fit).  With N = sum_k t_k V_kj, X_j = sum_k p_k |V_kj|,
 * Z_j = sum_k |V_kj|, sigma = 2^-174 + n 2^-191 (n keys), S = sum t_k >= 1:
 *   |N~ 2^-191 - N| <= 2^-174 S X + 2^-191 Z,   |S~ 2^-191 - S| <= sigma S.
 * O_j = N~ / S~ by a reciprocal of S~'s top 192 bits (floor((2^383 - 1) / Sm): relative
 * 2^-190), N~'s top 192 bits (relative 2^-191) and an exact 3 x 3-limb product:
 *   |O~ - O| <= (1 + 2^-100) [X (2^-174 + sigma + 2^-188) + 2^-191 Z]
 *            <= 2 [X^ (2^-172 + n 2^-190) + 2^-190 Z^] = D,
 * X^ the computed X (binary64 blocks of 64 keys summed in long double: relative < 2^-45) and
 * Z^ >= Z (attention_mpfr.c's ug_attn_v_abs); the factor 2 covers every second-order term.
 * The record is decided when both ends of [O~ - D, O~ + D] give the same record (fix192.h's
 * ug_fx_decide).  lse = m0 + ln S is transcend_fast.c's log-sum-exp decision (|ln S~ - ln S|
 * < 2^-162 for n <= 2^28) with m0 an exact score, not a binary32 value: m0 at 2^-192 in 6
 * limbs (one more unit if its bits reach below).  A row with any output undecided (exact
 * results such as two equal scores whose V average is a binary32 midpoint; outputs that
 * cancel below the bound; |O| >= 2^127 or in (2^-1075, 2^-1020)), any vector not aligned,
 * d > 2048 or |s| >= 2^57 is computed by attention_mpfr.c whole.
 * Cost per query row and key: d 64 x 64-bit multiply-adds (the score), one exp (~0.25 us),
 * 3 dv 64 x 64-bit products (the weighted sums): ~1 us for d = dv = 128 on one core.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "base/par.h"
#include "base/sys.h"
#include "oracle/attention/exact_attention.h"
#include "oracle/rows/fix192.h"
#include "oracle/rows/transcend.h"
#include "oracle/special.h"

enum { ALIGN_BITS = 58, FAST_MAX_D = 2048, BLK = 64 };

static _Atomic int ug_attn_slack_log2 = 0; /* tests only; read by every worker */
void ug_attn_fast_set_slack_testing(int log2_eps) { ug_attn_slack_log2 = log2_eps; }

/* ---- alignment -------------------------------------------------------------------------------- */

/* x[t stride], t < n, as X[t ostride] 2^E exactly with |X| < 2^58; false if a value's bits
 * reach below 2^E (its exponent more than 34 below the largest). */
static bool align_vec(const float *x, size_t n, size_t stride, int64_t *X, size_t ostride, int *E)
{
    int emax = -1000;
    for (size_t t = 0; t < n; t++) {
        int e;
        if (!isfinite(x[t * stride])) return false; /* a NaN or an infinity: MPFR's path */
        if (x[t * stride] == 0) continue;
        frexpf(x[t * stride], &e);
        emax = e > emax ? e : emax;
    }
    *E = emax == -1000 ? 0 : emax - ALIGN_BITS;
    for (size_t t = 0; t < n; t++) {
        float v = x[t * stride];
        X[t * ostride] = 0;
        if (v == 0) continue;
        int e;
        float f = frexpf(v, &e);
        int64_t m = (int64_t)ldexpf(f, 24); /* exact: |m| < 2^24, v = m 2^(e - 24) */
        int sh = e - 24 - *E;                /* >= -34 - 24 ... */
        int64_t am = m < 0 ? -m : m;
        if (sh >= 0) {
            am <<= sh; /* < 2^(24 + 34) */
        } else {
            if (sh <= -63 || (am & (((int64_t)1 << -sh) - 1))) return false;
            am >>= -sh;
        }
        X[t * ostride] = m < 0 ? -am : am;
    }
    return true;
}

/* ---- fixed point ---------------------------------------------------------------------------- */

/* v = (neg ? -1 : 1) A 2^e (A 3 limbs) at 2^-190 in 4-limb two's complement, truncated toward
 * zero; |v| < 2^57 (the caller checks). */
static void to_fix4(const limb A[3], long e, bool neg, limb F[4])
{
    limb A4[4] = {A[0], A[1], A[2], 0};
    ug_fx_shift(A4, 4, e + UG_FX_FB, F, 4);
    if (neg) {
        limb one[4] = {1, 0, 0, 0};
        for (int i = 0; i < 4; i++) F[i] = ~F[i];
        ug_fx_add(F, F, one, 4);
    }
}

static bool fix4_neg(const limb F[4]) { return F[3] >> 63; }

/* Signed compare of two 4-limb two's complement values. */
static int fix4_cmp(const limb a[4], const limb b[4])
{
    bool na = fix4_neg(a), nb = fix4_neg(b);
    if (na != nb) return na ? -1 : 1;
    return ug_fx_cmp(a, b, 4);
}

/* A binary64 approximation of a 4-limb two's complement value at 2^-190 (relative 2^-52). */
static double fix4_to_double(const limb F[4])
{
    limb m[4];
    memcpy(m, F, sizeof m);
    bool neg = fix4_neg(F);
    if (neg) {
        limb one[4] = {1, 0, 0, 0};
        for (int i = 0; i < 4; i++) m[i] = ~m[i];
        ug_fx_add(m, m, one, 4);
    }
    int b = ug_fx_bitlen(m, 4);
    if (!b) return 0;
    double v = ldexp((double)ug_fx_bits64(m, 4, b - 64), b - 64 - UG_FX_FB);
    return neg ? -v : v;
}

/* The weighted sums' accumulator of one output column and sign: four 128-bit column sums of
 * the 64-bit halves of T w (T 3 limbs, w < 2^58), carries deferred (each column gains < 2^65 a
 * term: 2^62 terms fit), folded into 5 limbs by acc_fold. */
typedef struct {
    u128 c[4];
} acc4;

static inline void mac4(acc4 *a, limb T0, limb T1, limb T2, limb w)
{
    u128 p0 = (u128)T0 * w, p1 = (u128)T1 * w, p2 = (u128)T2 * w;
    a->c[0] += (limb)p0;
    a->c[1] += (u128)(limb)(p0 >> 64) + (limb)p1;
    a->c[2] += (u128)(limb)(p1 >> 64) + (limb)p2;
    a->c[3] += (limb)(p2 >> 64);
}

/* r (5 limbs) = sum_i c[i] 2^(64 i). */
static void acc_fold(const acc4 *a, limb r[5])
{
    u128 c = a->c[0];
    r[0] = (limb)c;
    c = (c >> 64) + (limb)a->c[1];
    r[1] = (limb)c;
    c = (c >> 64) + (limb)(a->c[1] >> 64) + (limb)a->c[2];
    r[2] = (limb)c;
    c = (c >> 64) + (limb)(a->c[2] >> 64) + (limb)a->c[3];
    r[3] = (limb)c;
    r[4] = (limb)(c >> 64) + (limb)(a->c[3] >> 64);
}

/* D (n limbs) = ceil(v 2^sh) + 2 for v >= 0 finite; false if it does not fit. */
static bool dbl_units(double v, long sh, limb *D, int n)
{
    memset(D, 0, (size_t)n * sizeof *D);
    if (v > 0) {
        int e;
        double f = frexp(v, &e);
        limb m = (limb)ldexp(f, 53); /* v = m 2^(e - 53) */
        long s = e - 53 + sh;
        if (s + 53 >= 64L * n - 2) return false;
        ug_fx_shift(&m, 1, s, D, n); /* floor; the + 2 below covers the ceiling */
    }
    limb two[8] = {2};
    ug_fx_add(D, D, two, n);
    return true;
}

/* ---- the head's aligned K and V ------------------------------------------------------------ */

typedef struct {
    const float *Q, *K, *V;
    const ug_shape *shp;
    const ug_opts *opt;
    ug_exact *O, *lse;
    int64_t *Ki; /* S x d */
    int *Ek;
    bool *kok;
    limb *Wm;          /* |W|, S x dv */
    unsigned char *Wn; /* sign of W */
    int *Ev;
    bool vok;
    long mc, ec; /* c = mc 2^ec */
    double *Zp;      /* (S + 1) x dv: sum_{k' < k} |V_k'j| summed in key order */
    size_t bad_from; /* the first key whose K or V row holds a non-finite value (S: none) */
} attn_fast_head;

static _Atomic size_t ug_attn_rows_fast, ug_attn_rows_mpfr;

void ug_attn_stats(size_t *rows_fast, size_t *rows_mpfr)
{
    *rows_fast = atomic_load(&ug_attn_rows_fast);
    *rows_mpfr = atomic_load(&ug_attn_rows_mpfr);
}

void ug_attn_stats_reset(void)
{
    atomic_store(&ug_attn_rows_fast, 0);
    atomic_store(&ug_attn_rows_mpfr, 0);
}

/* ---- one row -------------------------------------------------------------------------------- */

typedef struct {
    limb (*T)[3];
    double *td; /* T_k 2^-191 in binary64 */
    limb (*F)[4];
    limb (*A)[3];
    long *ea;
    unsigned char *neg;
    int64_t *Qi;
    acc4 *acc; /* 2 dv: positive, negative products */
    double *Z; /* dv */
    double *xb;      /* dv: a block's sums */
    long double *xs; /* dv: the blocks' */
} attn_scratch;

/* The record of lse = m0 + ln S, S = Sacc 2^-191 (Sacc 4 limbs, >= 2^191), m0 = (neg ? -1 : 1)
 * Am 2^em exactly: transcend_fast.c's lse_decide with an exact m0 (the header). */
static bool lse_decide_fix(const limb Am[3], long em, bool mneg, const limb Sacc[4], ug_exact *out)
{
    long b = ug_fx_bitlen(Sacc, 4);
    limb Sm[3];
    ug_fx_shift(Sacc, 4, 192 - b, Sm, 3);
    long es = b - 192 - 191; /* S = Sm 2^es, Sm in [2^191, 2^192) */
    limb Z[3], L[3], acc[6] = {0}, mpart[6] = {0}, lpart[6] = {0}, D[6] = {0};
    long e = es + 191;
    ug_fx_shift(Sm, 3, -1, Z, 3);
    limb th[3] = {0, 0, (limb)3 << (UG_FX_FB - 129)}; /* 1.5 2^190 */
    if (ug_fx_cmp(Z, th, 3) >= 0) {
        ug_fx_shift(Sm, 3, -2, Z, 3);
        e++;
    }
    bool lneg;
    ug_fx_log(Z, L, &lneg);
    limb el[4] = {0}, ae = (limb)(e < 0 ? -e : e), L4[4] = {L[0], L[1], L[2], 0};
    ug_fx_mul(el, ug_fx_ln2(), 3, &ae, 1);
    lneg = ug_fx_add_signed(L4, L4, lneg, el, e < 0, 4);
    /* m0 at 2^-192: exact unless its bits reach below (then < 1 unit: D's + 1) */
    limb Am6[6] = {Am[0], Am[1], Am[2], 0, 0, 0};
    if (ug_fx_bitlen(Am, 3) + em + 192 >= 64 * 6 - 1) return false;
    ug_fx_shift(Am6, 6, em + 192, mpart, 6);
    ug_fx_shift(L4, 4, 2, lpart, 6);
    bool sneg = ug_fx_add_signed(acc, mpart, mneg, lpart, lneg, 6);
    limb one = 1, two[6] = {2};
    ug_fx_shift(&one, 1, 192 - 162 + ug_attn_slack_log2, D, 6); /* 2^-162 at 2^-192 */
    ug_fx_add(D, D, two, 6);                                   /* m0's truncation, and margin */
    return ug_fx_decide(acc, D, 6, -192, sneg, out);
}

/* A row the fast path passes to MPFR, and why (the string documents it). */
#define FAIL(why) return false
static bool attn_row_fast(const attn_fast_head *h, size_t i, attn_scratch *w)
{
    const ug_shape *shp = h->shp;
    const ug_opts *opt = h->opt;
    size_t d = shp->dim[2], dv = shp->dim[3], keys = ug_attn_keys(shp, opt, i);
    ug_exact *O = h->O + i * dv, *lse = h->lse ? h->lse + i : NULL;
    int Eq;
    if (!h->vok || d > FAST_MAX_D || !align_vec(h->Q + i * d, d, 1, w->Qi, 1, &Eq)) FAIL("align q/v");
    /* exact scores to fixed point; the max */
    size_t best = 0;
    for (size_t k = 0; k < keys; k++) {
        if (!h->kok[k]) FAIL("align k");
        const int64_t *kr = h->Ki + k * d;
        __int128 D = 0;
        for (size_t t = 0; t < d; t++) D += (__int128)w->Qi[t] * kr[t];
        bool neg = D < 0;
        u128 aD = neg ? -(u128)D : (u128)D;
        limb a2[2] = {(limb)aD, (limb)(aD >> 64)}, mcl = (limb)h->mc, A4[3];
        ug_fx_mul(A4, a2, 2, &mcl, 1); /* mc |D| < 2^151: 3 limbs */
        memcpy(w->A[k], A4, sizeof A4);
        w->ea[k] = h->ec + Eq + h->Ek[k];
        w->neg[k] = neg;
        int b = ug_fx_bitlen(A4, 3);
        if (b && b + w->ea[k] > 57) FAIL("big score"); /* |s| >= 2^57 */
        to_fix4(A4, w->ea[k], neg, w->F[k]);
        if (k && fix4_cmp(w->F[k], w->F[best]) > 0) best = k;
    }
    if (keys == 1) { /* O = V_0j and lse = s_0, exactly (a zero's sign kept, as MPFR's) */
        for (size_t j = 0; j < dv; j++) {
            double v = h->V[j];
            ug_exact_set_zero(&O[j], signbit(v) != 0);
            if (v != 0) {
                O[j].hi = v;
                O[j].rn = O[j].rd = (float)v;
            }
            O[j].sum_abs = (fabs(v) + 0x1p-100 * fabs(v) * (1 + 0x1p-30)) * (1 + 0x1p-41);
        }
        if (lse) {
            limb zero[3] = {0};
            ug_exact_set_zero(lse, 0);
            if (ug_fx_bitlen(w->A[0], 3) &&
                !ug_fx_decide(w->A[0], zero, 3, w->ea[0], w->neg[0], lse))
                FAIL("one key's score");
            lse->sum_abs = ug_attn_score_abs(h->Q, h->K, shp, opt, i);
        }
        return true;
    }
    /* the terms: T_k = floor(e^(d_k) 2^191); S~ */
    limb S4[4] = {0};
    for (size_t k = 0; k < keys; k++) {
        limb Dk[4];
        ug_fx_sub(Dk, w->F[k], w->F[best], 4);
        double dh = fix4_to_double(Dk);
        memset(w->T[k], 0, sizeof w->T[k]);
        w->td[k] = 0;
        if (dh < -746.5) continue; /* t_k < 2^-1076: T_k = 0 */
        limb P[3], T4[4];
        int kx;
        if (!ug_fx_exp(Dk, dh, P, &kx)) FAIL("exp");
        ug_fx_shift(P, 3, (long)kx + 1, T4, 3); /* P 2^(kx - 190) 2^191 < 2^192 */
        memcpy(w->T[k], T4, 3 * sizeof(limb));
        limb T4b[4] = {T4[0], T4[1], T4[2], 0};
        ug_fx_add(S4, S4, T4b, 4);
        int tb = ug_fx_bitlen(T4, 3);
        w->td[k] = tb ? ldexp((double)ug_fx_bits64(T4, 3, tb - 64), tb - 64 - 191) : 0;
    }
    /* N~_j: the positive and negative products apart */
    memset(w->acc, 0, 2 * dv * sizeof *w->acc);
    for (size_t k = 0; k < keys; k++) {
        const limb *wm = h->Wm + k * dv;
        const unsigned char *wn = h->Wn + k * dv;
        limb T0 = w->T[k][0], T1 = w->T[k][1], T2 = w->T[k][2];
        if (!(T0 | T1 | T2)) continue;
        for (size_t j = 0; j < dv; j++) mac4(w->acc + j + dv * wn[j], T0, T1, T2, wm[j]);
    }
    /* 1 / S~: Rinv = floor((2^383 - 1) / Sm), S~ = Sm 2^(es - 191) */
    long sb = ug_fx_bitlen(S4, 4);
    limb Sm[3], Rinv[4] = {0}, num[6], rem[3];
    ug_fx_shift(S4, 4, 192 - sb, Sm, 3);
    long es = sb - 192;
    for (int q = 0; q < 6; q++) num[q] = ~(limb)0;
    num[5] >>= 1;
    mpn_tdiv_qr((mp_limb_t *)Rinv, (mp_limb_t *)rem, 0, (const mp_limb_t *)num, 6,
                (const mp_limb_t *)Sm, 3);
    double Sd = ldexp((double)ug_fx_bits64(S4, 4, sb - 64), (int)(sb - 64 - 191));
    double *Z = w->Z; /* ug_attn_v_abs(V, shp, keys, Z): its sums in its order, kept by prefix */
    for (size_t j = 0; j < dv; j++) Z[j] = h->Zp[keys * dv + j] * (1 + 0x1p-30);
    double n = (double)keys;
    /* X^_j = sum_k t_k |V_kj| / S in blocks of 64 keys (binary64), the blocks in long double */
    for (size_t j = 0; j < dv; j++) w->xs[j] = 0;
    for (size_t k0 = 0; k0 < keys; k0 += BLK) {
        size_t k1 = k0 + BLK < keys ? k0 + BLK : keys;
        for (size_t j = 0; j < dv; j++) w->xb[j] = 0;
        for (size_t k = k0; k < k1; k++) {
            const float *vk = h->V + k * dv;
            double tk = w->td[k];
            for (size_t j = 0; j < dv; j++) w->xb[j] += tk * fabs((double)vk[j]);
        }
        for (size_t j = 0; j < dv; j++) w->xs[j] += w->xb[j];
    }
    for (size_t j = 0; j < dv; j++) {
        double X = (double)(w->xs[j] / Sd);
        limb ap[5], an[5], N5[5];
        acc_fold(&w->acc[j], ap);
        acc_fold(&w->acc[dv + j], an);
        bool nneg = ug_fx_cmp(ap, an, 5) < 0;
        if (nneg) ug_fx_sub(N5, an, ap, 5);
        else ug_fx_sub(N5, ap, an, 5);
        long nb = ug_fx_bitlen(N5, 5);
        if (!nb) FAIL("N zero"); /* N~ = 0: the sign is not known */
        limb N3[3], prod[6], Dl[6];
        ug_fx_shift(N5, 5, 192 - nb, N3, 3);
        long en = nb - 192;
        ug_fx_mul33(prod, N3, Rinv);
        /* O~ = prod 2^E: N~ 2^-191 2^Ev / (Sm 2^(es - 191)) = N3 2^en Rinv 2^-383 2^(Ev - es) */
        long E = en - 383 + h->Ev[j] - es;
        double Dabs = 2 * (X * (0x1p-172 + n * 0x1p-190) + 0x1p-190 * Z[j]);
        Dabs = ldexp(Dabs, ug_attn_slack_log2);
        if (!dbl_units(Dabs, -E, Dl, 6)) FAIL("units");
        if (!ug_fx_decide(prod, Dl, 6, E, nneg, &O[j])) FAIL("decide O");
        O[j].sum_abs = (X + 0x1p-100 * Z[j]) * (1 + 0x1p-41);
    }
    if (lse) {
        if (!lse_decide_fix(w->A[best], w->ea[best], w->neg[best], S4, lse)) FAIL("decide lse");
        lse->sum_abs = ug_attn_score_abs(h->Q, h->K, shp, opt, i);
    }
    return true;
}

static void attn_fast_range(void *vctx, size_t lo, size_t hi)
{
    attn_fast_head *h = vctx;
    const ug_shape *shp = h->shp;
    const ug_opts *opt = h->opt;
    size_t S = shp->dim[1], dv = shp->dim[3];
    attn_scratch w;
    w.T = ug_xcalloc(S, sizeof *w.T);
    w.td = ug_xcalloc(S, sizeof *w.td);
    w.F = ug_xcalloc(S, sizeof *w.F);
    w.A = ug_xcalloc(S, sizeof *w.A);
    w.ea = ug_xcalloc(S, sizeof *w.ea);
    w.neg = ug_xcalloc(S, sizeof *w.neg);
    w.Qi = ug_xcalloc(shp->dim[2], sizeof *w.Qi);
    w.acc = ug_xcalloc(2 * dv, sizeof *w.acc);
    w.Z = ug_xcalloc(dv, sizeof *w.Z);
    w.xb = ug_xcalloc(dv, sizeof *w.xb);
    w.xs = ug_xcalloc(dv, sizeof *w.xs);
    for (size_t i = lo; i < hi; i++) {
        ug_exact *O = h->O + i * dv, *lse = h->lse ? h->lse + i : NULL;
        bool special = ug_attn_keys(shp, opt, i) > h->bad_from;
        for (size_t t = 0; t < shp->dim[2]; t++) special |= !isfinite(h->Q[i * shp->dim[2] + t]);
        if (special || !ug_attn_keys(shp, opt, i)) {
            ug_exact_attention_row_mpfr(h->Q, h->K, h->V, shp, opt, i, O,
                                        lse); /* the rules, once */
            continue;
        }
        if (attn_row_fast(h, i, &w)) {
            ug_ziv_count_fast(dv + (lse != NULL));
            atomic_fetch_add(&ug_attn_rows_fast, 1);
        } else {
            ug_ziv_count_fallback_row();
            atomic_fetch_add(&ug_attn_rows_mpfr, 1);
            ug_exact_attention_row_mpfr(h->Q, h->K, h->V, shp, opt, i, O, lse);
        }
    }
    free(w.T);
    free(w.td);
    free(w.F);
    free(w.A);
    free(w.ea);
    free(w.neg);
    free(w.Qi);
    free(w.acc);
    free(w.Z);
    free(w.xb);
    free(w.xs);
}

void ug_exact_attention_fast(const float *Q, const float *K, const float *V,
                             const ug_shape *shp, const ug_opts *opt, ug_exact *O, ug_exact *lse)
{
    size_t S = shp->dim[1], d = shp->dim[2], dv = shp->dim[3];
    const float *V0 = V;
    attn_fast_head h = {.Q = Q, .K = K, .V = V, .shp = shp, .opt = opt, .O = O, .lse = lse};
    ug_fx_init();
    h.Ki = ug_xcalloc(S * d, sizeof *h.Ki);
    h.Ek = ug_xcalloc(S, sizeof *h.Ek);
    h.kok = ug_xcalloc(S, sizeof *h.kok);
    h.Wm = ug_xcalloc(S * dv, sizeof *h.Wm);
    h.Wn = ug_xcalloc(S * dv, sizeof *h.Wn);
    h.Ev = ug_xcalloc(dv, sizeof *h.Ev);
    int64_t *Wc = ug_xcalloc(S, sizeof *Wc);
    for (size_t k = 0; k < S; k++) h.kok[k] = align_vec(K + k * d, d, 1, h.Ki + k * d, 1, &h.Ek[k]);
    h.vok = true;
    for (h.bad_from = 0; h.bad_from < S; h.bad_from++) { /* ug_attn_row_special's rule, once */
        bool bad = false;
        for (size_t t = 0; t < d; t++) bad |= !isfinite(K[h.bad_from * d + t]);
        if (bad) break;
    }
    /* a non-finite V: the head on finite values, then the columns that read one */
    float *Vf = ug_attn_v_finite(V, S * dv);
    if (Vf) h.V = V = Vf;
    for (size_t j = 0; j < dv; j++) {
        h.vok &= align_vec(V + j, S, dv, Wc, 1, &h.Ev[j]);
        for (size_t k = 0; k < S; k++) {
            h.Wm[k * dv + j] = (limb)(Wc[k] < 0 ? -Wc[k] : Wc[k]);
            h.Wn[k * dv + j] = Wc[k] < 0;
        }
    }
    h.Zp = ug_xcalloc((S + 1) * dv, sizeof *h.Zp);
    for (size_t k = 0; k < S; k++)
        for (size_t j = 0; j < dv; j++)
            h.Zp[(k + 1) * dv + j] = h.Zp[k * dv + j] + fabs((double)V[k * dv + j]);
    int ec;
    float fc = frexpf(ug_attn_scale(shp, opt), &ec);
    h.mc = (long)ldexpf(fc, 24);
    h.ec = ec - 24;
    ug_par_range(shp->dim[0], 1, 0, attn_fast_range, &h);
    for (size_t i = 0; Vf && i < shp->dim[0]; i++)
        if (ug_attn_keys(shp, opt, i) && !ug_attn_row_special(Q, K, shp, opt, i))
            ug_attn_v_special(V0, shp, ug_attn_keys(shp, opt, i), O + i * dv);
    free(Vf);
    free(Wc);
    free(h.Ki);
    free(h.Ek);
    free(h.kok);
    free(h.Wm);
    free(h.Wn);
    free(h.Ev);
    free(h.Zp);
}

void ug_exact_attention(const float *Q, const float *K, const float *V, const ug_shape *shp,
                        const ug_opts *opt,
                        ug_exact *O, ug_exact *lse)
{
    if (ug_oracle_selected() == UG_ORACLE_MPFR) ug_exact_attention_mpfr(Q, K, V, shp, opt, O, lse);
    else ug_exact_attention_fast(Q, K, V, shp, opt, O, lse);
}
