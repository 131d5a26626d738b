/*
 * fix192.c - the multi-limb integer arithmetic of the row references' fast path
 * (transcend_fast.c) and the records it decides (fix192.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "oracle/rows/fix192.h"

/* ---- multi-limb helpers (little-endian limbs) ------------------------------------------------ */

/* Bits pos .. pos+63 of the n-limb number a (zeros outside it; pos may be negative). */
limb ug_fx_bits64(const limb *a, int n, long pos)
{
    long q = pos >= 0 ? pos / 64 : -((-pos + 63) / 64);
    int r = (int)(pos - q * 64);
    limb lo = q >= 0 && q < n ? a[q] : 0, hi = q + 1 >= 0 && q + 1 < n ? a[q + 1] : 0;
    return r ? (lo >> r) | (hi << (64 - r)) : lo;
}

/* dst (dn limbs) = floor(src 2^s) mod 2^(64 dn). */
void ug_fx_shift(const limb *src, int sn, long s, limb *dst, int dn)
{
    for (int i = 0; i < dn; i++) dst[i] = ug_fx_bits64(src, sn, 64L * i - s);
}

int ug_fx_bitlen(const limb *a, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i]) return 64 * i + 64 - __builtin_clzll(a[i]);
    return 0;
}

/* Whether any of bits 0 .. pos-1 of a is set. */
static bool any_below(const limb *a, int n, long pos)
{
    for (int i = 0; i < n && 64L * i < pos; i++) {
        limb m = pos - 64L * i >= 64 ? ~(limb)0 : (((limb)1 << (pos - 64L * i)) - 1);
        if (a[i] & m) return true;
    }
    return false;
}

limb ug_fx_add(limb *r, const limb *a, const limb *b, int n)
{
    u128 c = 0;
    for (int i = 0; i < n; i++) {
        c += (u128)a[i] + b[i];
        r[i] = (limb)c;
        c >>= 64;
    }
    return (limb)c;
}

limb ug_fx_sub(limb *r, const limb *a, const limb *b, int n)
{
    limb br = 0;
    for (int i = 0; i < n; i++) {
        limb ai = a[i], bi = b[i];
        limb d = ai - bi - br;
        br = (ai < bi) || (ai == bi && br);
        r[i] = d;
    }
    return br;
}

int ug_fx_cmp(const limb *a, const limb *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i] ? 1 : -1;
    return 0;
}

bool ug_fx_add_signed(limb *r, const limb *a, bool aneg, const limb *b, bool bneg, int n)
{
    if (aneg == bneg) {
        ug_fx_add(r, a, b, n);
        return aneg;
    }
    if (ug_fx_cmp(a, b, n) >= 0) {
        ug_fx_sub(r, a, b, n);
        return aneg;
    }
    ug_fx_sub(r, b, a, n);
    return bneg;
}

/* r (an + bn limbs) = a b exactly. */
void ug_fx_mul(limb *r, const limb *a, int an, const limb *b, int bn)
{
    memset(r, 0, (size_t)(an + bn) * sizeof *r);
    for (int i = 0; i < an; i++) {
        u128 c = 0;
        for (int j = 0; j < bn; j++) {
            c += (u128)a[i] * b[j] + r[i + j];
            r[i + j] = (limb)c;
            c >>= 64;
        }
        r[i + bn] = (limb)c;
    }
}

/* r = floor(a b / 2^190) for 3-limb a, b whose product is below 2^382.  Error < 1 unit. */
/* 2^e as a binary64 number, -1074 <= e <= 1023 (exact; cheaper than ldexp in the hot path). */
static inline double pow2d(long e)
{
    uint64_t b = e >= -1022 ? (uint64_t)(e + 1023) << 52 : (uint64_t)1 << (e + 1074);
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* q 2^F, exact where representable (q <= 2^53, F >= -1074): the records' values. */
static inline double scaled(limb q, long F)
{
    if (F > 1023) return (double)q * pow2d(1023) * pow2d(F - 1023);
    return (double)q * pow2d(F);
}

/* 4-limb two's complement of floor-toward-zero(v 2^190), |v| < 2^60. */
void ug_fx_fix4(double v, limb r[4])
{
    memset(r, 0, 4 * sizeof *r);
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    int be = (int)((u >> 52) & 0x7ff);
    limb m = u & (((uint64_t)1 << 52) - 1);
    if (be) m |= (uint64_t)1 << 52;
    else be = 1;
    if (m == 0) return;
    long sh = (long)be - 1075 + UG_FX_FB; /* |v| = m 2^(be - 1075) */
    if (sh >= 0) {
        int q = (int)(sh / 64), b = (int)(sh % 64);
        r[q] = m << b;
        if (b && q + 1 < 4) r[q + 1] = m >> (64 - b);
    } else if (sh > -64) {
        r[0] = m >> -sh;
    }
    if (u >> 63) {
        for (int i = 0; i < 4; i++) r[i] = ~r[i];
        limb one[4] = {1, 0, 0, 0};
        ug_fx_add(r, r, one, 4);
    }
}

/* ---- records from an approximation and its error --------------------------------------- */

typedef struct {
    double hi, lo;
    int sgn;
    float rn, rd;
} ug_rec;

/* The p-bit rounding of A 2^E (A > 0, n limbs) with quantum at least 2^qmin: to nearest even
 * (near) or toward zero: q 2^F, q <= 2^p.  *shift = F - E; *up: rounded away from zero. */
static limb round_p(const limb *A, int n, long E, int p, long qmin, bool near, long *F, long *shift,
                    bool *up, bool *inexact)
{
    long b = ug_fx_bitlen(A, n);
    long f = E + b - p > qmin ? E + b - p : qmin;
    long s = f - E;
    limb q;
    *inexact = false;
    *up = false;
    if (s <= 0) { /* exact: b <= p */
        q = ug_fx_bits64(A, n, 0);
        *F = E;
        *shift = 0;
        return q;
    }
    q = ug_fx_bits64(A, n, s);
    if (s > 64L * n) q = 0;
    bool half = (ug_fx_bits64(A, n, s - 1) & 1) != 0, sticky = any_below(A, n, s - 1);
    *inexact = half || sticky;
    if (near && half && (sticky || (q & 1))) {
        q++;
        *up = true;
    }
    *F = f;
    *shift = s;
    return q;
}

/* The record of v = (neg ? -1 : 1) A 2^E, A > 0: false where the fast path does not ug_fx_decide it
 * (2^-1075 < |v| < 2^-1020, or |v| >= 2^127). */
static bool rec_of(const limb *A, int n, long E, bool neg, ug_rec *r)
{
    long b = ug_fx_bitlen(A, n);
    double sg = neg ? -1 : 1;
    if (b == 0) return false;
    if (E + b <= -1075) { /* below half the least subnormal: RN64 0, as MPFR's get_d gives */
        r->hi = 0.0 * sg;
        r->lo = 0;
        r->sgn = neg ? -1 : 1;
        r->rn = (float)(0.0 * sg);
        r->rd = neg ? -0x1p-149f : 0.0f;
        return true;
    }
    if (E + b - 1 < -1020 || E + b > 127) return false;
    long F, s;
    bool up, inexact;
    limb q = round_p(A, n, E, 53, -1074, true, &F, &s, &up, &inexact);
    r->hi = sg * scaled(q, F);
    /* the residual |A - q 2^s| and the sign of v - hi */
    limb low[8] = {0}, rem[8] = {0}, pw[8] = {0};
    int m = n + 1;
    for (int i = 0; i < n; i++) low[i] = A[i];
    for (int i = 0; i < m; i++) /* A mod 2^s */
        if (64L * i >= s) low[i] = 0;
        else if (64L * (i + 1) > s) low[i] &= ((limb)1 << (s - 64L * i)) - 1;
    if (!inexact) {
        r->lo = 0;
        r->sgn = 0;
    } else {
        if (up) { /* 2^s - low */
            limb one = 1;
            ug_fx_shift(&one, 1, s, pw, m);
            ug_fx_sub(rem, pw, low, m);
        } else {
            memcpy(rem, low, (size_t)m * sizeof *rem);
        }
        long F2, s2;
        bool up2, in2;
        limb q2 = round_p(rem, m, E, 53, -1074, true, &F2, &s2, &up2, &in2);
        double lo = scaled(q2, F2);
        r->sgn = (up ? -1 : 1) * (neg ? -1 : 1);
        r->lo = r->sgn < 0 ? -lo : lo;
    }
    q = round_p(A, n, E, 24, -149, true, &F, &s, &up, &inexact);
    r->rn = (float)(sg * scaled(q, F));
    q = round_p(A, n, E, 24, -149, false, &F, &s, &up, &inexact);
    if (neg && inexact) q++; /* RD of a negative value: away from zero */
    r->rd = (float)(sg * scaled(q, F));
    return true;
}

/* Decides the record of v = (neg ? -1 : 1) A 2^E known to within D 2^E (D: n limbs): the
 * records of both ends agree (every field monotone in v).  Fills e (sum_abs apart). */
bool ug_fx_decide(const limb *A, const limb *D, int n, long E, bool neg, ug_exact *e)
{
    limb lo[8], hi[8];
    if (ug_fx_sub(lo, A, D, n)) return false; /* A - D < 0: the sign is not known */
    if (ug_fx_add(hi, A, D, n)) return false;
    if (ug_fx_bitlen(lo, n) == 0) return false;
    ug_rec a, b;
    if (!rec_of(lo, n, E, neg, &a) || !rec_of(hi, n, E, neg, &b)) return false;
    if (a.hi != b.hi || a.lo != b.lo || a.sgn != b.sgn || a.rn != b.rn || a.rd != b.rd ||
        signbit(a.hi) != signbit(b.hi))
        return false;
    e->cls = UG_X_FINITE;
    e->hi = a.hi;
    e->lo = a.lo;
    e->rn = a.rn;
    e->rd = a.rd;
    return true;
}

/* D = floor(A 2^eps_log2) + 2 over n limbs: the relative bound in units of A's last bit. */
void ug_fx_rel_bound(const limb *A, int n, int eps_log2, limb *D)
{
    limb two[8] = {2};
    ug_fx_shift(A, n, eps_log2, D, n);
    ug_fx_add(D, D, two, n);
}

/* RU64 of v in [A(1 - eps), A(1 + eps)] 2^E, eps = 2^eps_log2, decided at both ends (+inf
 * beyond DBL_MAX, 2^-1074 below it, as mpfr_get_d(RNDU) gives); false if not decided. */
bool ug_fx_ru64(const limb *A, int n, long E, int eps_log2, double *out)
{
    limb D[8], ends[2][8];
    ug_fx_rel_bound(A, n, eps_log2, D);
    if (ug_fx_sub(ends[0], A, D, n) || ug_fx_add(ends[1], A, D, n)) return false;
    double v[2];
    for (int i = 0; i < 2; i++) {
        long b = ug_fx_bitlen(ends[i], n), F, s;
        bool up, inexact;
        if (b == 0) return false;
        if (E + b - 1 >= 1024) {
            v[i] = INFINITY;
            continue;
        }
        limb q = round_p(ends[i], n, E, 53, -1074, false, &F, &s, &up, &inexact);
        if (inexact) q++;
        v[i] = scaled(q, F); /* 2^53 2^971 overflows to +inf, as RU64 does */
    }
    if (v[0] != v[1]) return false;
    *out = v[0];
    return true;
}
