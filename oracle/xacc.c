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

static void xdig_trim(xdig *g)
{
    while (g->top >= g->lo && g->d[g->top] == 0)
        g->top--;
    while (g->lo <= g->top && g->d[g->lo] == 0)
        g->lo++;
}

/* Two's complement negation of digits lo..top (value 2^(32(top+1)) - D). */
static void xdig_negate(xdig *g)
{
    uint64_t c = 1;
    for (int j = g->lo; j <= g->top; j++) {
        uint64_t v = (uint64_t)(uint32_t)~g->d[j] + c;
        g->d[j] = (uint32_t)v;
        c = v >> 32;
    }
    if (c)
        g->d[++g->top] = 1; /* D was 0 */
}

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

static inline uint32_t xdig_at(const xdig *g, int i)
{
    return (i >= g->lo && i <= g->top) ? g->d[i] : 0;
}

/* Bits [pos, pos + cnt) of the magnitude, 0 <= cnt <= 60. */
static uint64_t xdig_bits(const xdig *g, int pos, int cnt)
{
    if (cnt <= 0)
        return 0;
    int idx = pos >> 5;
    u128 w = ((u128)xdig_at(g, idx + 2) << 64) | ((u128)xdig_at(g, idx + 1) << 32) |
             (u128)xdig_at(g, idx);
    return (uint64_t)(w >> (pos & 31)) & ((1ULL << cnt) - 1);
}

/* 1 if any bit below index pos is set (g trimmed, so g->lo is the lowest nonzero digit). */
static int xdig_any_below(const xdig *g, int pos)
{
    if (pos <= 0 || g->top < g->lo)
        return 0;
    int idx = pos >> 5;
    if (g->lo < idx)
        return 1;
    return g->lo == idx && (g->d[idx] & ((1u << (pos & 31)) - 1)) != 0;
}

static int xdig_msb(const xdig *g)
{
    return 32 * g->top + 31 - __builtin_clz(g->d[g->top]);
}

enum { RND_NEAREST_EVEN, RND_MAG_DOWN, RND_MAG_UP };

/* The magnitude rounded to prec significant bits with quantum at least 2^qmin (a nonzero,
 * trimmed g).  The result M 2^Q (M <= 2^prec) as a binary64 number: exact when it fits
 * (always for prec <= 53 and 2^Q >= 2^-1074 below 2^1024), +inf beyond. */
static double xdig_round(const xdig *g, int prec, int qmin, int mode)
{
    int t = xdig_msb(g);
    int q = t - prec + 1;
    if (q < qmin - UG_XACC_BASE)
        q = qmin - UG_XACC_BASE;
    uint64_t M = xdig_bits(g, q, t - q + 1);
    int round_bit = q >= 1 ? (int)xdig_bits(g, q - 1, 1) : 0;
    int sticky = xdig_any_below(g, q - 1);
    if (mode == RND_NEAREST_EVEN ? (round_bit && (sticky || (M & 1)))
                                 : (mode == RND_MAG_UP && (round_bit || sticky)))
        M++;
    int Q = q + UG_XACC_BASE;
    if (Q >= -1022 && Q <= 1023) /* M 2^Q: exact, or +inf on overflow (the rounding's answer) */
        return (double)M * ug_bits_f64((uint64_t)(Q + 1023) << 52);
    return ldexp((double)M, Q);
}

/* out = |g| - h for a binary64 h > 0 (finite), as magnitude and sign (out->neg: |g| < h). */
static void xdig_sub(const xdig *g, double h, xdig *out)
{
    uint64_t b = ug_f64_bits(h);
    unsigned biased = (unsigned)(b >> 52) & 0x7ff;
    uint64_t m = b & ((1ULL << 52) - 1);
    int pos = 0;
    if (biased) {
        m |= 1ULL << 52;
        pos = (int)biased - 1;
    }
    int hidx = pos >> 5;
    u128 t = (u128)m << (pos & 31);
    uint32_t hd[3] = {(uint32_t)t, (uint32_t)(t >> 32), (uint32_t)(t >> 64)};
    int lo = g->top >= g->lo && g->lo < hidx ? g->lo : hidx;
    int top = g->top > hidx + 2 ? g->top : hidx + 2;
    int64_t borrow = 0;
    for (int i = lo; i <= top; i++) {
        int64_t v = (int64_t)xdig_at(g, i) - (i >= hidx && i <= hidx + 2 ? hd[i - hidx] : 0) +
                    borrow;
        out->d[i] = (uint32_t)v;
        borrow = v >> 32;
    }
    out->lo = lo;
    out->top = top;
    out->neg = 0;
    if (borrow) {
        out->neg = 1;
        xdig_negate(out);
    }
    xdig_trim(out);
}

/* RN32 or RD32 of the signed value in g (nonzero), with binary32's overflow rules. */
static float xdig_to_f32(const xdig *g, int round_down)
{
    int mode = RND_NEAREST_EVEN;
    if (round_down)
        mode = g->neg ? RND_MAG_UP : RND_MAG_DOWN;
    double m = xdig_round(g, 24, -149, mode);
    if (m >= 0x1p128) /* overflow: RN and RD of a negative go to inf, RD of a positive to max */
        m = (round_down && !g->neg) ? (double)FLT_MAX : (double)INFINITY;
    float r = (float)m; /* exact: 24 bits, quantum >= 2^-149, below 2^128 or inf */
    return g->neg ? -r : r;
}

/* ---- reading: what ug_exact needs ------------------------------------------------------------ */

int ug_xacc_fill(const ug_xacc *a, ug_exact *e)
{
    xdig g;
    xacc_digits(a, &g);
    if (g.top < g.lo)
        return 0;
    e->cls = UG_X_FINITE;
    double hmag = xdig_round(&g, 53, -1074, RND_NEAREST_EVEN);
    e->hi = g.neg ? -hmag : hmag;
    e->lo = 0.0;
    if (isfinite(hmag)) { /* when |s| overflows binary64, lo is defined as 0 */
        xdig diff;
        xdig_sub(&g, hmag, &diff);
        if (diff.top >= diff.lo) {
            double lmag = xdig_round(&diff, 53, -1074, RND_NEAREST_EVEN);
            e->lo = (diff.neg != g.neg) ? -lmag : lmag;
        }
    }
    e->rn = xdig_to_f32(&g, 0);
    e->rd = xdig_to_f32(&g, 1);
    return 1;
}

double ug_xacc_mag_up(const ug_xacc *a)
{
    xdig g;
    xacc_digits(a, &g);
    return g.top < g.lo ? 0.0 : xdig_round(&g, 53, -1074, RND_MAG_UP);
}
