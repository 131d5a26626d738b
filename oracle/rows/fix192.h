/*
 * fix192.h - 192-bit fixed-point and multi-limb integer helpers of the row references' fast path
 * (oracle/rows/transcend_fast.c, whose header derives the error bounds), and the decision of a
 * record (hi, lo, RN32, RD32) from an approximation and its error bound (fix192.c).
 * Numbers are little-endian arrays of 64-bit limbs; every operation is exact unless it says
 * "floor" (then its error is below one unit of its result's last bit).
 */
#ifndef UG_ORACLE_FIX192_H
#define UG_ORACLE_FIX192_H

#include <stdbool.h>
#include <stdint.h>

#include "oracle/oracle.h"

typedef unsigned __int128 u128;
typedef uint64_t limb;

/* The fixed point of exp and log: v is held as floor(v 2^190) in 3 limbs. */
enum { UG_FX_FB = 190 };

/* Bits pos .. pos+63 of the n-limb a (zeros outside it; pos may be negative). */
limb ug_fx_bits64(const limb *a, int n, long pos);
/* dst (dn limbs) = floor(src 2^s) mod 2^(64 dn). */
void ug_fx_shift(const limb *src, int sn, long s, limb *dst, int dn);
int ug_fx_bitlen(const limb *a, int n);
/* r = a + b, a - b (n limbs): the carry / borrow out; r may alias a or b. */
limb ug_fx_add(limb *r, const limb *a, const limb *b, int n);
limb ug_fx_sub(limb *r, const limb *a, const limb *b, int n);
int ug_fx_cmp(const limb *a, const limb *b, int n);
/* r = (aneg ? -a : a) + (bneg ? -b : b) for n-limb magnitudes a, b with their signs (no
 * overflow: the caller's sizes): |r| into r (which may alias a or b), its sign returned (a's
 * when the two cancel exactly). */
bool ug_fx_add_signed(limb *r, const limb *a, bool aneg, const limb *b, bool bneg, int n);
/* r (an + bn limbs) = a b. */
void ug_fx_mul(limb *r, const limb *a, int an, const limb *b, int bn);
/* 4-limb two's complement of v 2^190 truncated toward zero, |v| < 2^60 (error < 1 unit). */
void ug_fx_fix4(double v, limb r[4]);

/* Decides the record of v = (neg ? -1 : 1) A 2^E known to within D 2^E (n <= 7 limbs): the
 * records of both ends agree (hi = RN64, lo = RN64(v - hi), the sign of v - hi, RN32, RD32:
 * each monotone in v).  Fills e but sum_abs.  false: not decided, or |v| in (2^-1075, 2^-1020)
 * or >= 2^127 (ranges it leaves to MPFR). */
bool ug_fx_decide(const limb *A, const limb *D, int n, long E, bool neg, ug_exact *e);
/* D = floor(A 2^eps_log2) + 2 (n limbs): a relative bound in units of A's last bit. */
void ug_fx_rel_bound(const limb *A, int n, int eps_log2, limb *D);
/* RU64 of any v in [A (1 - 2^eps_log2), A (1 + 2^eps_log2)] 2^E, if the same at both ends
 * (+inf beyond DBL_MAX, 2^-1074 below it, as mpfr_get_d(RNDU) gives). */
bool ug_fx_ru64(const limb *A, int n, long E, int eps_log2, double *out);

/* The fast path's exp and log (transcend_fast.c, whose header bounds their errors), for other
 * references built on them (oracle/attention/):
 *   ug_fx_exp: e^d for d 2^190 given in D (4-limb two's complement, |d| <= 760, truncated
 *     to within 2 units) and dh, a binary64 value within 2^-40 of d: P (3 limbs), e^d =
 *     P 2^(k - 190), P 2^-190 in [0.99, 2.02), to relative 2^-174.  false: out of range.
 *   ug_fx_log: |ln z| 2^190 into L, z = Z 2^-190 in [0.75, 1.5), *neg its sign; < 16 units.
 *   ug_fx_ln2: RN(2^190 ln 2), 3 limbs. */
void ug_fx_init(void);
bool ug_fx_exp(const limb D[4], double dh, limb P[3], int *k);
void ug_fx_log(const limb Z[3], limb L[3], bool *neg);
const limb *ug_fx_ln2(void);

/* p (6 limbs) = a b for 3-limb a, b (straight-line: the softmax's per-output product). */
static inline void ug_fx_mul33(limb p[6], const limb a[3], const limb b[3])
{
    u128 p00 = (u128)a[0] * b[0], p01 = (u128)a[0] * b[1], p10 = (u128)a[1] * b[0];
    u128 p02 = (u128)a[0] * b[2], p11 = (u128)a[1] * b[1], p20 = (u128)a[2] * b[0];
    u128 p12 = (u128)a[1] * b[2], p21 = (u128)a[2] * b[1], p22 = (u128)a[2] * b[2];
    u128 c1 = (p00 >> 64) + (limb)p01 + (limb)p10;
    u128 c2 = (c1 >> 64) + (p01 >> 64) + (p10 >> 64) + (limb)p02 + (limb)p11 + (limb)p20;
    u128 c3 = (c2 >> 64) + (p02 >> 64) + (p11 >> 64) + (p20 >> 64) + (limb)p12 + (limb)p21;
    u128 c4 = (c3 >> 64) + (p12 >> 64) + (p21 >> 64) + (limb)p22;
    p[0] = (limb)p00;
    p[1] = (limb)c1;
    p[2] = (limb)c2;
    p[3] = (limb)c3;
    p[4] = (limb)c4;
    p[5] = (limb)((c4 >> 64) + (p22 >> 64));
}

static inline void ug_fx_mulfix(limb r[3], const limb a[3], const limb b[3])
{
    /* the exact product by columns (the hot loop: straight-line); each column sum < 6 2^64 */
    u128 p00 = (u128)a[0] * b[0], p01 = (u128)a[0] * b[1], p10 = (u128)a[1] * b[0];
    u128 p02 = (u128)a[0] * b[2], p11 = (u128)a[1] * b[1], p20 = (u128)a[2] * b[0];
    u128 p12 = (u128)a[1] * b[2], p21 = (u128)a[2] * b[1], p22 = (u128)a[2] * b[2];
    u128 c1 = (p00 >> 64) + (limb)p01 + (limb)p10;
    u128 c2 = (c1 >> 64) + (p01 >> 64) + (p10 >> 64) + (limb)p02 + (limb)p11 + (limb)p20;
    u128 c3 = (c2 >> 64) + (p02 >> 64) + (p11 >> 64) + (p20 >> 64) + (limb)p12 + (limb)p21;
    u128 c4 = (c3 >> 64) + (p12 >> 64) + (p21 >> 64) + (limb)p22;
    limb q2 = (limb)c2, q3 = (limb)c3, q4 = (limb)c4, q5 = (limb)((c4 >> 64) + (p22 >> 64));
    r[0] = (q2 >> 62) | (q3 << 2);
    r[1] = (q3 >> 62) | (q4 << 2);
    r[2] = (q4 >> 62) | (q5 << 2);
}

/* floor(a b / 2^135) for a b < 2^255 (exact: the floor of the product's top half, by 2^7). */
static inline u128 ug_fx_mulhi128(u128 a, u128 b)
{
    limb a0 = (limb)a, a1 = (limb)(a >> 64), b0 = (limb)b, b1 = (limb)(b >> 64);
    u128 p00 = (u128)a0 * b0, p01 = (u128)a0 * b1, p10 = (u128)a1 * b0, p11 = (u128)a1 * b1;
    u128 c1 = (p00 >> 64) + (limb)p01 + (limb)p10;
    u128 hi = p11 + (p01 >> 64) + (p10 >> 64) + (c1 >> 64); /* floor(a b / 2^128) */
    return hi >> 7;
}

#endif
