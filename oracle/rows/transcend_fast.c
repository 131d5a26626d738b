/*
 * transcend_fast.c - the fast path of the softmax and log-sum-exp references (transcend.h):
 * the same records as the MPFR enclosures of transcend.c, from 192-bit fixed-point arithmetic
 * with a proven error bound, and the MPFR path for a row whose records it cannot ug_fx_decide.
 *
 * Why 192 bits: a record holds hi = RN64(s) and lo = RN64(s - hi), so deciding it needs s to
 * about 2^-110 relative and, for the undecided fraction to stay far below 1/n (one undecided
 * output sends its whole row to MPFR), to about 2^-150.  Binary64 or double-double exp/log
 * (at best ~2^-104) cannot; 192-bit integers (3 limbs) give 2^-160 with margin, and exp and
 * log are then short Taylor / atanh series whose errors are counted in units of the last bit.
 * No libm function is used for a value: exp, log and the division are our own integer
 * arithmetic (the binary64 operations below only pick k = round(d / ln 2), and a wrong k only
 * fails the range guard, it cannot make a wrong value).
 *
 * The error bound (units u = 2^-190 unless said; every step truncates, error < 1 unit):
 *  exp(d), d = x_j - m exactly (TwoSum of two binary32 numbers in binary64: dh + dl = d):
 *   kk = nearest(64 dh / ln 2), |kk| <= 70200, kk = 64 a + j, 0 <= j < 64;
 *   R = fix(dh) + fix(dl) - kk L, L = RN(2^184 ln 2): |R - (d - kk ln2/64) 2^190| <= 2 +
 *   |kk|/2 <= 35102.  The guard |R| <= 0.0055 2^190 is checked (|r| <= ln 2 / 128 = 0.00542).
 *   e^r by Taylor to degree 18 (tail 2 r^19 / 19! < 2^-197), Horner: the inner part
 *   q6 = sum_{i>=6} r^(i-6) / i! in 128 bits at scale 2^-137 (each step's error <= 2 units of
 *   2^-137, carried by |r| < 2^-7: <= 2.02 2^-137 = 2.02 2^53 u), which the six outer 192-bit
 *   steps multiply by |r|^6 < 2^-45: <= 2^9 u; the outer steps 2 u each (c_i = floor(2^190 / i!)
 *   and the product): Horner <= 525 u.  With R's error (times e^|r| < 1.0056): <= 35900 u.
 *   Then times T_j = RN(2^190 2^(j/64)) (relative 2^-191) and one truncation (1 u): P in
 *   [0.99, 2.02) 2^190, t_j = P 2^(a - 190) to relative eps_e <= 35900 / 0.994 2^-190 +
 *   2^-191 + 2^-189.9 < 2^-174.
 *  S = sum_j t_j, accumulated in 256 bits of scale 2^-192: each term truncated once (< 2^-192),
 *   the terms with d < -746 dropped (each < e^-746 < 2^-1076); S >= 1 (the max's own term is
 *   e^0 = 1 exactly: R = 0, P = c_0 T_0 / 2^190 = 2^190), so eps_S <= 2^-174 + n 2^-191.  Its
 *   top 192 bits are kept: 2^-191 more.
 *  softmax y_j = t_j / S: 1/S as floor((2^383 - 1) / Sm), Sm in [2^191, 2^192): relative
 *   2^-190; the product t_j (1/S) exact, then cut to its top 192 bits (< 2^-187, in D's +2).
 *   In all, eps_y <= 2 * 2^-174 + (n + 1) 2^-191 + 2^-190 + (second order) < 2^-172.9 +
 *   n 2^-191, below 2^-160.9 for n <= 2^28 (longer rows take the MPFR path); the records are
 *   decided at 2^-160 relative (ug_fast_eps_log2; the margin covers eps_y / (1 - eps_y)).
 *  log-sum-exp s = m + ln S: S = z 2^e, z in [0.75, 1.5), ln z = 2 atanh(u), u = (z-1)/(z+1),
 *   |u| <= 0.2, series in w = u^2 <= 0.04 to degree 40: steps <= 2 / 0.96 < 2.1, tail < 2^-180,
 *   u to 1 unit (times 2 / (1 - u^2) < 2.1 on ln z), the last products 2 units: |ln z error|
 *   < 16 units; e ln 2 to |e|/2 <= 96; ln S of the relative error of S: <= eps_S (1 + eps_S).
 *   z itself is Sm 2^-191 truncated to 190 bits (1 unit).  So |L - ln S| < 2^-174 +
 *   (n + 1) 2^-191 + 113 2^-190 < 2^-162 absolute for n <= 2^28, and s = m + L is formed
 *   exactly (m is a multiple of 2^-149, L of 2^-190): s is known to 2^-162 absolute.
 *  sum_abs (RU64 of e^m S, transcend.h): t_m S with relative error < 2^-172.9 + n 2^-191.
 *   (MPFR's sum_abs is RU64 of its 128-bit upper bound: the two agree unless a binary64
 *   number lies within 2^-120 above e^m S; the differential test compares them.)
 * Every record is then decided as transcend.c decides one from an enclosure: the records of
 * both ends of [s - D, s + D] (hi, lo, the sign of s - hi, RN32, RD32) must agree, all of them
 * monotone in s.  A row with any output undecided (an exact result such as 1/4 but for a
 * one-logit row, done exactly; a result within 2^-160 of a rounding boundary; a log-sum-exp
 * whose residual lies below 2^-162; an output in (2^-1075, 2^-1020); a log-sum-exp beyond 2^127) is evaluated by MPFR,
 * and its outputs are counted there (ug_ziv_stats: fast vs outputs).
 * Cost: per logit one exp (13 128-bit and 7 192-bit products), per softmax output one more
 * 192 x 192-bit product and the records of two ends: ~0.25 us a logit-sum term and ~0.45 us
 * a softmax output on one core of this project's 2-core CI host (`ulpgate bench rows`).
 */
#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "oracle/oracle.h"
#include "oracle/special.h"
#include "oracle/rows/fix192.h"
#include "oracle/rows/transcend.h"

enum { FB = UG_FX_FB, EXP_DEG = 18, TAIL = 6, LOG_DEG = 40 };

/* log2 of the relative bound every softmax output and sum_abs is decided at (see above) */
static _Thread_local int ug_fast_eps_log2 = -160;

void ug_transcend_fast_set_eps_testing(int log2_eps) { ug_fast_eps_log2 = log2_eps ? log2_eps : -160; }

/* ---- constants: 2^190 ln 2 (MPFR, once), floor(2^190 / i!), floor(2^190 / (2i+1)) ---------- */

static limb L2[3], L2_64[3], T64[64][3], C_EXP[EXP_DEG + 1][3], C_LOG[LOG_DEG + 1][3];
static u128 C_TAIL[EXP_DEG + 1]; /* floor(2^137 / i!) for the tail i >= TAIL */
static pthread_once_t ug_fast_once = PTHREAD_ONCE_INIT;

/* a (3 limbs) = floor(a / d) */
static void div3_small(limb a[3], uint64_t d)
{
    u128 r = 0;
    for (int i = 2; i >= 0; i--) {
        u128 cur = (r << 64) | a[i];
        a[i] = (limb)(cur / d);
        r = cur % d;
    }
}

static void ug_fast_init(void)
{
    mpfr_t t;
    mpz_t z;
    mpfr_init2(t, 400);
    mpz_init(z);
    mpfr_const_log2(t, MPFR_RNDN);
    mpfr_mul_2ui(t, t, FB, MPFR_RNDN); /* exact */
    mpfr_get_z(z, t, MPFR_RNDN);
    for (int i = 0; i < 3; i++) L2[i] = (limb)mpz_getlimbn(z, i);
    mpfr_div_2ui(t, t, 6, MPFR_RNDN); /* 2^184 ln 2, exact */
    mpfr_get_z(z, t, MPFR_RNDN);
    for (int i = 0; i < 3; i++) L2_64[i] = (limb)mpz_getlimbn(z, i);
    for (int j = 0; j < 64; j++) { /* RN(2^190 2^(j/64)) */
        mpfr_set_ui(t, (unsigned long)j, MPFR_RNDN);
        mpfr_div_2ui(t, t, 6, MPFR_RNDN);
        mpfr_exp2(t, t, MPFR_RNDN); /* 400 bits: the rounding to an integer is then exact */
        mpfr_mul_2ui(t, t, FB, MPFR_RNDN);
        mpfr_get_z(z, t, MPFR_RNDN);
        for (int i = 0; i < 3; i++) T64[j][i] = (limb)mpz_getlimbn(z, i);
    }
    mpz_clear(z);
    mpfr_clear(t);
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); /* this thread's log2 cache: a worker's would leak */
    limb one[3] = {0, 0, (limb)1 << (FB - 128)};
    memcpy(C_EXP[0], one, sizeof one);
    for (int i = 1; i <= EXP_DEG; i++) { /* floor(floor(a / b) / c) = floor(a / (b c)) */
        memcpy(C_EXP[i], C_EXP[i - 1], sizeof one);
        div3_small(C_EXP[i], (uint64_t)i);
    }
    for (int i = TAIL; i <= EXP_DEG; i++) /* C_EXP[i] = floor(2^190 / i!) < 2^181: shift 53 */
        C_TAIL[i] = ((u128)C_EXP[i][2] << 75) | ((u128)C_EXP[i][1] << 11) | (C_EXP[i][0] >> 53);
    for (int i = 0; i <= LOG_DEG; i++) {
        memcpy(C_LOG[i], one, sizeof one);
        div3_small(C_LOG[i], (uint64_t)(2 * i + 1));
    }
}

/* ---- exp and log in 192-bit fixed point --------------------------------------------------- */

/* e^d for d = dh + dl (exact): P (3 limbs, P 2^-190 in [0.99, 2.02)) and *k, e^d = P 2^(k-190)
 * to relative 2^-174 (the header's derivation).  Cost: ~130 64-bit multiplies.  false: |dh| > 760 or the guard failed. */
static bool fexp_fix(const limb D[4], double dh, limb P[3], int *k);
static bool fexp(double dh, double dl, limb P[3], int *k)
{
    if (!(fabs(dh) <= 760)) return false;
    limb R[4], t[4];
    ug_fx_fix4(dh, R);
    ug_fx_fix4(dl, t);
    ug_fx_add(R, R, t, 4);
    return fexp_fix(R, dh, P, k);
}

/* fexp's reduction and series from d 2^190 in D (4-limb two's complement, truncated: error
 * < 2 units as fexp's two fix4 give) and dh, a binary64 value within 2^-40 of d that picks
 * kk (a wrong kk only fails the guard). */
static bool fexp_fix(const limb D[4], double dh, limb P[3], int *k)
{
    if (!(fabs(dh) <= 760)) return false;
    long kk = (long)nearbyint(dh * (64 / 0.6931471805599453)); /* |kk| <= 70200 */
    limb R[4], kl[4] = {0};
    memcpy(R, D, sizeof R);
    limb ak = (limb)(kk < 0 ? -kk : kk);
    ug_fx_mul(kl, L2_64, 3, &ak, 1); /* |kk| 2^184 ln 2 < 2^201: 4 limbs */
    if (kk >= 0) ug_fx_sub(R, R, kl, 4);
    else ug_fx_add(R, R, kl, 4);
    bool neg = R[3] >> 63;
    if (neg) { /* magnitude */
        for (int i = 0; i < 4; i++) R[i] = ~R[i];
        limb one[4] = {1, 0, 0, 0};
        ug_fx_add(R, R, one, 4);
    }
    /* the guard |r| <= 0.0055 (ln 2 / 128 = 0.00541...): in the top limb, 0.0055 2^62 */
    if (R[3] || R[2] >= (limb)(0.0055 * 0x1p62)) return false;
    /* the tail q6 = sum_{i>=6} r^(i-6) / i! in 128 bits (scale 2^-137, r at 2^-135) */
    u128 r135 = ((u128)R[2] << 73) | ((u128)R[1] << 9) | (R[0] >> 55), q = C_TAIL[EXP_DEG];
    for (int i = EXP_DEG - 1; i >= TAIL; i--) {
        u128 t = ug_fx_mulhi128(r135, q);
        q = neg ? C_TAIL[i] - t : C_TAIL[i] + t;
    }
    limb Q[3] = {(limb)q << 53, (limb)(q >> 11), (limb)(q >> 75)}, T[3];
    for (int i = TAIL - 1; i >= 0; i--) {
        ug_fx_mulfix(T, R, Q);
        if (neg) ug_fx_sub(Q, C_EXP[i], T, 3); /* >= 0: |r| Q_{i+1} < 0.01 / (i+1)! < c_i */
        else ug_fx_add(Q, C_EXP[i], T, 3);
    }
    long j = ((kk % 64) + 64) % 64;
    ug_fx_mulfix(P, Q, T64[j]); /* e^r 2^(j/64) */
    *k = (int)((kk - j) / 64);
    return true;
}

/* ln z for z = Z 2^-190, Z in [0.75, 1.5) 2^190: |ln z| 2^190 into L (3 limbs), *neg its sign.
 * Error < 16 units (the header). */
static void flog(const limb Z[3], limb L[3], bool *neg)
{
    limb one[3] = {0, 0, (limb)1 << (FB - 128)}, num[6] = {0}, den[4] = {0}, U[4], rem[4], W[3];
    limb a[3];
    *neg = ug_fx_cmp(Z, one, 3) < 0;
    if (*neg) ug_fx_sub(a, one, Z, 3);
    else ug_fx_sub(a, Z, one, 3);
    ug_fx_shift(a, 3, FB, num, 6); /* |z - 1| 2^380 */
    ug_fx_add(den, Z, one, 3);        /* (z + 1) 2^190, < 2^192 */
    int dn = den[2] ? 3 : 2;
    memset(U, 0, sizeof U);
    mpn_tdiv_qr((mp_limb_t *)U, (mp_limb_t *)rem, 0, (const mp_limb_t *)num, 6,
                (const mp_limb_t *)den, dn); /* |u| 2^190, truncated */
    ug_fx_mulfix(W, U, U);
    limb H[3], T[3];
    memcpy(H, C_LOG[LOG_DEG], sizeof H);
    for (int i = LOG_DEG - 1; i >= 0; i--) {
        ug_fx_mulfix(T, W, H);
        ug_fx_add(H, C_LOG[i], T, 3);
    }
    ug_fx_mulfix(T, U, H);
    ug_fx_add(L, T, T, 3); /* 2 u (1 + w/3 + ...) */
}

/* The exports of fix192.h: the same exp and log for the attention reference
 * (oracle/attention/attention_fast.c), with the same error bounds (the header above). */
void ug_fx_init(void) { pthread_once(&ug_fast_once, ug_fast_init); }
bool ug_fx_exp(const limb D[4], double dh, limb P[3], int *k)
{
    ug_fx_init();
    return fexp_fix(D, dh, P, k);
}
void ug_fx_log(const limb Z[3], limb L[3], bool *neg)
{
    ug_fx_init();
    flog(Z, L, neg);
}
const limb *ug_fx_ln2(void)
{
    ug_fx_init();
    return L2;
}

/* ---- the rows ------------------------------------------------------------------------------ */

typedef struct {
    limb (*P)[3];
    int *k;
    signed char *kind; /* 0: P, k hold e^(x_j - m); 1: -inf logit (+0); 2: e^d < 2^-1076 */
    limb S[3];         /* Sm: S = Sm 2^es, Sm in [2^191, 2^192) */
    long es;
    double sum_abs;
    float m;
} ug_fast_row;

/* The row's terms and S, and sum_abs.  false: the fast path does not take this row. */
static bool fast_row_eval(const float *x, size_t n, ug_fast_row *r)
{
    pthread_once(&ug_fast_once, ug_fast_init);
    if (n == 0 || n > ((size_t)1 << 28)) return false;
    float m = -INFINITY;
    for (size_t j = 0; j < n; j++) m = x[j] > m ? x[j] : m;
    r->m = m;
    limb acc[4] = {0}, t[4];
    for (size_t j = 0; j < n; j++) {
        if (isinf(x[j])) {
            r->kind[j] = 1;
            continue;
        }
        double dh = (double)x[j] - (double)m, bv = dh - (double)x[j];
        double dl = ((double)x[j] - (dh - bv)) + (-(double)m - bv); /* TwoSum: dh + dl = d */
        if (dh < -746.5) {
            r->kind[j] = 2;
            continue;
        }
        if (!fexp(dh, dl, r->P[j], &r->k[j])) return false;
        r->kind[j] = 0;
        ug_fx_shift(r->P[j], 3, (long)r->k[j] + 2, t, 4); /* P 2^(k-190) 2^192 */
        ug_fx_add(acc, acc, t, 4);
    }
    long b = ug_fx_bitlen(acc, 4); /* S >= 1: b >= 193 */
    ug_fx_shift(acc, 4, 192 - b, r->S, 3);
    r->es = b - 192 - 192;
    /* sum_abs = RU64(e^m S): m's own exp, |m| <= 745 (else MPFR) */
    if (m > 710) {
        r->sum_abs = INFINITY;
        return true;
    }
    limb Pm[3], prod[6];
    int km;
    if (!(m >= -745) || !fexp((double)m, 0, Pm, &km)) return false;
    ug_fx_mul(prod, Pm, 3, r->S, 3);
    return ug_fx_ru64(prod, 6, (long)km - FB + r->es, ug_fast_eps_log2, &r->sum_abs);
}

static ug_fast_row *fast_row_alloc(size_t n)
{
    ug_fast_row *r = ug_xcalloc(1, sizeof *r);
    r->P = ug_xcalloc(n ? n : 1, sizeof *r->P);
    r->k = ug_xcalloc(n ? n : 1, sizeof *r->k);
    r->kind = ug_xcalloc(n ? n : 1, sizeof *r->kind);
    return r;
}

static void fast_row_free(ug_fast_row *r)
{
    free(r->P);
    free(r->k);
    free(r->kind);
    free(r);
}

static bool softmax_fast(const float *x, size_t n, ug_exact *out)
{
    ug_fast_row *r = fast_row_alloc(n);
    bool ok = fast_row_eval(x, n, r);
    limb Rinv[4] = {0}, num[6], rem[3];
    if (ok) { /* Rinv = floor((2^383 - 1) / Sm) < 2^192 */
        for (int i = 0; i < 6; i++) num[i] = ~(limb)0;
        num[5] >>= 1;
        mpn_tdiv_qr((mp_limb_t *)Rinv, (mp_limb_t *)rem, 0, (const mp_limb_t *)num, 6,
                    (const mp_limb_t *)r->S, 3);
    }
    for (size_t j = 0; ok && j < n; j++) {
        if (r->kind[j] == 1) {
            ug_exact_set_zero(&out[j], 0);
        } else if (r->kind[j] == 2) { /* y < e^-746 < 2^-1076: MPFR's record of such a value */
            ug_exact_set_zero(&out[j], 0);
        } else { /* y = P Rinv 2^(k - 190 - 383 - es) */
            limb prod[6], D[3]; /* its top 3 limbs (>= 188 bits; the +2 of D covers the cut) */
            ug_fx_mul33(prod, r->P[j], Rinv);
            ug_fx_rel_bound(prod + 3, 3, ug_fast_eps_log2, D);
            ok = ug_fx_decide(prod + 3, D, 3, (long)r->k[j] - FB - 383 - r->es + 192, false, &out[j]);
        }
        out[j].sum_abs = r->sum_abs;
    }
    fast_row_free(r);
    return ok;
}

/* The record of s = m + ln S, S = Sm 2^es (Sm in [2^191, 2^192)), decided at |L - ln S| <
 * 2^-162 (the header); out's sum_abs is the caller's.  false: not decided. */
static bool lse_decide(float m, const limb Sm[3], long es, ug_exact *out)
{
    bool ok;
    {
        /* S = Sm 2^es = z 2^e with z = Sm 2^-191 in [1, 2), or half that when >= 1.5 */
        limb Z[3], L[3], acc[6] = {0}, mpart[6] = {0}, lpart[6] = {0}, D[6] = {0};
        long e = es + 191;
        ug_fx_shift(Sm, 3, -1, Z, 3); /* Sm 2^-191 2^190, its last bit dropped: 1 unit */
        limb th[3] = {0, 0, (limb)3 << (FB - 129)}; /* 1.5 2^190 */
        if (ug_fx_cmp(Z, th, 3) >= 0) {
            ug_fx_shift(Sm, 3, -2, Z, 3);
            e++;
        }
        bool lneg;
        flog(Z, L, &lneg);
        /* L = ln z + e ln 2 at scale 2^-190 (|L| < 2^6: 3 limbs) */
        limb el[4] = {0}, ae = (limb)(e < 0 ? -e : e), L4[4] = {L[0], L[1], L[2], 0};
        ug_fx_mul(el, L2, 3, &ae, 1);
        lneg = ug_fx_add_signed(L4, L4, lneg, el, e < 0, 4);
        /* s 2^192 = m 2^192 + L 2^192, signed magnitudes, 6 limbs */
        int me;
        float mf = frexpf(fabsf(m), &me);
        limb mm = (limb)ldexpf(mf, 24);
        ug_fx_shift(&mm, 1, (long)me - 24 + 192, mpart, 6); /* exact: m = mm 2^(me-24), me >= -148 */
        ug_fx_shift(L4, 4, 2, lpart, 6);
        bool sneg = ug_fx_add_signed(acc, mpart, m < 0, lpart, lneg, 6);
        /* |L - ln S| < 2^-162 (the header; 2^(eps + 30) units at the default eps 2^-160) */
        limb one = 1;
        ug_fx_shift(&one, 1, 192 + ug_fast_eps_log2 - 2, D, 6);
        ok = ug_fx_decide(acc, D, 6, -192, sneg, out);
    }
    return ok;
}

static bool lse_fast(const float *x, size_t n, ug_exact *out)
{
    ug_fast_row *r = fast_row_alloc(n);
    bool ok = fast_row_eval(x, n, r) && lse_decide(r->m, r->S, r->es, out);
    if (ok) out->sum_abs = r->sum_abs;
    fast_row_free(r);
    return ok;
}

bool ug_exact_fn_fast_testing(int log, double a, ug_exact *out)
{
    pthread_once(&ug_fast_once, ug_fast_init);
    ug_exact_set_zero(out, 0);
    if (log) { /* ln a as the log-sum-exp takes ln S: a = Sm 2^es, m = 0 */
        if (!(a > 0) || !isfinite(a)) return false;
        int ex;
        double fr = frexp(a, &ex); /* a = fr 2^ex, fr in [0.5, 1) */
        limb M = (limb)ldexp(fr, 53), Sm[3];
        ug_fx_shift(&M, 1, 192 - 53, Sm, 3); /* exact: Sm in [2^191, 2^192) */
        return lse_decide(0, Sm, (long)ex - 192, out);
    }
    limb P[3], D[3]; /* e^a as every softmax term: P 2^(k - 190), relative 2^-174 */
    int k;
    if (!fexp(a, 0, P, &k)) return false;
    ug_fx_rel_bound(P, 3, ug_fast_eps_log2, D);
    return ug_fx_decide(P, D, 3, (long)k - FB, false, out);
}

/* ---- entry points -------------------------------------------------------------------------- */

static bool ug_row_special(const float *x, size_t n, size_t *nan, size_t *pinf, size_t *finite)
{
    *nan = *pinf = *finite = 0;
    for (size_t j = 0; j < n; j++) {
        *nan += isnan(x[j]);
        *pinf += x[j] == INFINITY;
        *finite += isfinite(x[j]);
    }
    return *nan || *pinf || !*finite;
}

/* One finite logit m (the others -inf): softmax 1 and +0s, log-sum-exp m, exactly (the records
 * MPFR's exact enclosures give); sum_abs RU64(e^m), decided as above (e^0 = 1 exactly).  false
 * where sum_abs is not decided. */
static bool one_finite(const float *x, size_t n, bool lse, ug_exact *out)
{
    size_t at = 0;
    for (size_t j = 0; j < n; j++)
        if (isfinite(x[j])) at = j;
    double sabs = 1;
    limb Pm[3];
    int km;
    pthread_once(&ug_fast_once, ug_fast_init);
    if (x[at] > 710) sabs = INFINITY;
    else if (x[at] != 0 && (!(x[at] >= -745) || !fexp(x[at], 0, Pm, &km) ||
                            !ug_fx_ru64(Pm, 3, (long)km - FB, ug_fast_eps_log2, &sabs)))
        return false;
    for (size_t j = 0; j < (lse ? 1 : n); j++) {
        ug_exact_set_zero(&out[j], 0);
        if (lse) { /* x[at], +0 for a -0 logit (MPFR's enclosure of +0 + -0 is [-0, +0]) */
            out[j].hi = x[at] + 0.0f;
            out[j].rn = out[j].rd = x[at] + 0.0f;
        } else if (j == at) {
            out[j].hi = 1;
            out[j].rn = out[j].rd = 1;
        }
        out[j].sum_abs = sabs;
    }
    return true;
}

void ug_exact_softmax_row_fast(const float *x, size_t n, ug_exact *out)
{
    size_t nan, pinf, finite;
    if (ug_row_special(x, n, &nan, &pinf, &finite)) {
        ug_exact_softmax_row_mpfr(x, n, out); /* the special rules, in one place */
        return;
    }
    if (finite == 1 ? one_finite(x, n, false, out) : softmax_fast(x, n, out)) {
        ug_ziv_count_fast(n);
        return;
    }
    ug_ziv_count_fallback_row();
    ug_exact_softmax_row_mpfr(x, n, out);
}

void ug_exact_logsumexp_row_fast(const float *x, size_t n, ug_exact *out)
{
    size_t nan, pinf, finite;
    if (ug_row_special(x, n, &nan, &pinf, &finite)) {
        ug_exact_logsumexp_row_mpfr(x, n, out);
        return;
    }
    if (finite == 1 ? one_finite(x, n, true, out) : lse_fast(x, n, out)) {
        ug_ziv_count_fast(1);
        return;
    }
    ug_ziv_count_fallback_row();
    ug_exact_logsumexp_row_mpfr(x, n, out);
}

void ug_exact_softmax_row(const float *x, size_t n, ug_exact *out)
{
    if (ug_oracle_selected() == UG_ORACLE_MPFR) ug_exact_softmax_row_mpfr(x, n, out);
    else ug_exact_softmax_row_fast(x, n, out);
}

void ug_exact_logsumexp_row(const float *x, size_t n, ug_exact *out)
{
    if (ug_oracle_selected() == UG_ORACLE_MPFR) ug_exact_logsumexp_row_mpfr(x, n, out);
    else ug_exact_logsumexp_row_fast(x, n, out);
}
