/*
 * xacc.c - the exact fixed-point accumulator (xacc.h: the representation, why it is exact, and
 * each function's contract).
 */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "base/bits.h"
#include "oracle/xacc.h"

__extension__ typedef unsigned __int128 u128;

/* Additions between normalisations (ug_xacc_set_norm_interval). */
static _Atomic uint32_t norm_every = UG_XACC_NORM_EVERY;

void ug_xacc_set_norm_interval(uint32_t every)
{
    norm_every = every && every <= UG_XACC_NORM_EVERY ? every : UG_XACC_NORM_EVERY;
}

void ug_xacc_init(ug_xacc *a)
{
    memset(a->c, 0, sizeof a->c);
    a->lo = UG_XACC_N;
    a->hi = -1;
    a->adds = 0;
}

/* Clears only the touched chunks lo..hi. */
void ug_xacc_reset(ug_xacc *a)
{
    if (a->hi >= a->lo)
        memset(a->c + a->lo, 0, (size_t)(a->hi - a->lo + 1) * sizeof a->c[0]);
    a->lo = UG_XACC_N;
    a->hi = -1;
    a->adds = 0;
}

/* Carry propagation: chunks lo..hi-1 into [0, 2^32), the top one signed and below 2^31 in
 * magnitude.  (>> on a negative int64_t is an arithmetic shift in GCC and Clang.) */
static void xacc_normalise(ug_xacc *a)
{
    if (a->hi < a->lo)
        return;
    int64_t carry = 0;
    for (int i = a->lo; i < a->hi; i++) {
        int64_t v = a->c[i] + carry;
        a->c[i] = v & 0xffffffffLL;
        carry = v >> 32;
    }
    int64_t top = a->c[a->hi] + carry;
    while ((top >= (1LL << 31) || top < -(1LL << 31)) && a->hi < UG_XACC_N - 1) {
        a->c[a->hi++] = top & 0xffffffffLL;
        top >>= 32;
    }
    a->c[a->hi] = top;
    a->adds = 0;
}

/* +-m 2^(pos - 1074) (m < 2^64, 0 <= pos <= 2046) lands in chunks idx..idx+2: m shifted by
 * pos mod 32 < 2^95, so each 32-bit piece is below 2^32; neg (0 or -1) adds the pieces
 * negated.  One addition in the normalisation count (xacc.h: every chunk moves by < 2^32). */
static inline void xacc_add_bits(ug_xacc *a, uint64_t m, int pos, int64_t neg)
{
    int idx = pos >> 5;
    u128 t = (u128)m << (pos & 31);
    int64_t d0 = (int64_t)(uint32_t)t, d1 = (int64_t)(uint32_t)(t >> 32), d2 = (int64_t)(t >> 64);
    a->c[idx] += (d0 ^ neg) - neg;
    a->c[idx + 1] += (d1 ^ neg) - neg;
    a->c[idx + 2] += (d2 ^ neg) - neg;
    /* a previous signed top chunk may now sit below the new top: the representation is the
     * plain sum of c[i] 2^(32 i), so a negative middle chunk is fine until normalisation */
    if (idx < a->lo)
        a->lo = idx;
    if (idx + 2 > a->hi)
        a->hi = idx + 2;
    if (++a->adds >= atomic_load_explicit(&norm_every, memory_order_relaxed))
        xacc_normalise(a);
}

void ug_xacc_add(ug_xacc *a, double d)
{
    uint64_t b = ug_f64_bits(d);
    unsigned biased = (unsigned)(b >> 52) & 0x7ff;
    uint64_t m = b & ((1ULL << 52) - 1);
    int pos; /* bit index of m's least significant bit, from 2^-1074 */
    if (biased == 0) {
        if (m == 0)
            return;
        pos = 0;
    } else {
        m |= 1ULL << 52;
        pos = (int)biased - 1;
    }
    xacc_add_bits(a, m, pos, -(int64_t)(b >> 63));
}

/* ---- the large accumulator (xacc.h: ug_xbig) -------------------------------------------------- */

void ug_xbig_init(ug_xbig *g)
{
    memset(g->c, 0, sizeof g->c);
    for (int i = 0; i < UG_XBIG_N; i++)
        g->left[i] = UG_XBIG_ADDS;
}

/* Moves bin ix (sign and biased exponent E) into a and empties it.  The bin holds k additions
 * (k = UG_XBIG_ADDS - left <= 2^11) of binary64 numbers with that sign and exponent field:
 * their fractions sum to c < 2^11 2^52 = 2^63, and their implicit bits (normal numbers, E > 0)
 * to k 2^52 <= 2^63, so the magnitude M = c + k 2^52 < 2^64 is exact in uint64_t; its unit is
 * the quantum of that binade, 2^(max(E, 1) - 1075) = 2^(pos - 1074) with pos = max(E, 1) - 1. */
static void xbig_spill(ug_xbig *g, ug_xacc *a, int ix)
{
    int E = ix & 0x7ff;
    uint64_t k = (uint64_t)(UG_XBIG_ADDS - g->left[ix]);
    uint64_t M = g->c[ix] + (E ? k << 52 : 0);
    if (M)
        xacc_add_bits(a, M, E ? E - 1 : 0, -(int64_t)(ix >> 11));
    g->c[ix] = 0;
    g->left[ix] = UG_XBIG_ADDS;
}

/* Neal's large superaccumulator: the top 12 bits of a binary64 (sign and exponent field) index
 * the bin, its 52 fraction bits are added to it; the implicit bits are counted (left) and
 * added when the bin spills, after UG_XBIG_ADDS additions or in ug_xbig_flush. */
void ug_xbig_add_n(ug_xbig *g, ug_xacc *a, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t b = ug_f64_bits(v[i]);
        unsigned ix = (unsigned)(b >> 52);
        g->c[ix] += b & ((1ULL << 52) - 1);
        if (--g->left[ix] == 0)
            xbig_spill(g, a, (int)ix);
    }
}

void ug_xbig_flush(ug_xbig *g, ug_xacc *a)
{
    for (int ix = 0; ix < UG_XBIG_N; ix++)
        if (g->left[ix] != UG_XBIG_ADDS)
            xbig_spill(g, a, ix);
}

/* Both normalised first: each chunk sum is then below 2^33 in magnitude. */
void ug_xacc_merge(ug_xacc *dst, ug_xacc *src)
{
    if (src->hi < src->lo)
        return;
    xacc_normalise(src);
    xacc_normalise(dst);
    for (int i = src->lo; i <= src->hi; i++)
        dst->c[i] += src->c[i];
    if (src->lo < dst->lo)
        dst->lo = src->lo;
    if (src->hi > dst->hi)
        dst->hi = src->hi;
    xacc_normalise(dst);
}

/* ---- reading: magnitude digits and rounding -------------------------------------------------- */

typedef struct xdig {
    uint32_t d[UG_XACC_N + 2]; /* magnitude, digit i worth 2^(32 i + UG_XACC_BASE) */
    int lo, top;               /* lowest and highest nonzero digit; top < lo: zero */
    int neg;
} xdig;

/* trim, negate, at, bits, any_below, msb, round, sub, to_f32: the GPU's too (oracle/digits.h) */
#define UG_DIG_T xdig
#define UG_DIG(name) xdig_##name
#define UG_DIG_HD static inline
#include "oracle/digits.h"

/* Magnitude and sign of the value held by a (which is left unchanged).  Cost O(span). */
static void xacc_digits(const ug_xacc *a, xdig *g)
{
    g->neg = 0;
    g->lo = 0;
    g->top = -1;
    if (a->hi < a->lo)
        return;
    int64_t carry = 0;
    int i;
    for (i = a->lo; i <= a->hi; i++) {
        int64_t v = a->c[i] + carry;
        g->d[i] = (uint32_t)v;
        carry = v >> 32;
    }
    while (carry != 0 && carry != -1 && i < UG_XACC_N + 1) {
        g->d[i++] = (uint32_t)carry;
        carry >>= 32;
    }
    g->lo = a->lo;
    g->top = i - 1;
    if (carry == -1) {
        g->neg = 1;
        xdig_negate(g);
    }
    xdig_trim(g);
}

/* ---- reading: what ug_exact needs ------------------------------------------------------------ */

int ug_xacc_fill(const ug_xacc *a, ug_exact *e)
{
    xdig g;
    xacc_digits(a, &g);
    if (g.top < g.lo)
        return 0;
    e->cls = UG_X_FINITE;
    uint64_t M;
    int q;
    double hmag = xdig_round(&g, UG_XACC_BASE, 53, -1074, UG_DIG_RN, &M, &q);
    e->hi = g.neg ? -hmag : hmag;
    e->lo = 0.0;
    if (isfinite(hmag)) { /* when |s| overflows binary64, lo is defined as 0 */
        xdig diff;
        xdig_sub(&g, M, q, &diff); /* |s| - hmag, hmag being M 2^(q + base) */
        if (diff.top >= diff.lo) {
            double lmag = xdig_round(&diff, UG_XACC_BASE, 53, -1074, UG_DIG_RN, NULL, NULL);
            e->lo = (diff.neg != g.neg) ? -lmag : lmag;
        }
    }
    e->rn = xdig_to_f32(&g, UG_XACC_BASE, 0);
    e->rd = xdig_to_f32(&g, UG_XACC_BASE, 1);
    return 1;
}

double ug_xacc_mag_up(const ug_xacc *a)
{
    xdig g;
    xacc_digits(a, &g);
    return g.top < g.lo ? 0.0
                        : xdig_round(&g, UG_XACC_BASE, 53, -1074, UG_DIG_MAG_UP, NULL, NULL);
}
