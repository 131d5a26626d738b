/*
 * digits.h - an exact value as magnitude digits, rounded: the reading half of the exact
 * accumulator, written once for the CPU's (oracle/xacc.c) and the GPU's (oracle/gpu_arith.h,
 * host and device).  Digit i of a struct's d[] is worth 2^(32 i + base); lo and top are the
 * lowest and highest nonzero digit (top < lo: zero); neg the sign.  The two sides keep their
 * own storage (the CPU's 74 digits, the GPU's 24), so this header is a template: the includer
 * defines
 *   UG_DIG_T         the struct type (uint32_t d[]; int lo, top, neg)
 *   UG_DIG(name)     the functions' names (UG_DIG(trim) -> xdig_trim, ugg_dig_trim)
 *   UG_DIG_HD        their storage class (static inline; static __host__ __device__ inline)
 * and includes it; each inclusion defines, for that type:
 *   trim, negate, at, bits, any_below, msb   the digits
 *   scale(M, Q)       M 2^Q in binary64 (M <= 2^54): exact when representable, +inf beyond
 *   round(g, base, prec, qmin, mode, &M, &q) |g| to prec bits, quantum at least 2^qmin
 *   sub(g, M, q, out) |g| - M 2^q as magnitude and sign
 *   to_f32(g, base, round_down)  RN32 or RD32 of the signed value, binary32's overflow rules
 * The rounding modes (one set for every inclusion) and the bit helpers are defined once.
 */
#ifndef UG_ORACLE_DIGITS_COMMON
#define UG_ORACLE_DIGITS_COMMON

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define UG_DIG_COMMON_HD static __host__ __device__ inline
#else
#define UG_DIG_COMMON_HD static inline
#endif

enum { UG_DIG_RN = 0, UG_DIG_MAG_DOWN = 1, UG_DIG_MAG_UP = 2 };

UG_DIG_COMMON_HD int ug_dig_clz32(uint32_t v) /* v != 0 */
{
#ifdef __CUDA_ARCH__
    return __clz((int)v);
#else
    return __builtin_clz(v);
#endif
}

UG_DIG_COMMON_HD double ug_dig_f64_of(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

#endif /* UG_ORACLE_DIGITS_COMMON */

#if !defined(UG_DIG_T) || !defined(UG_DIG) || !defined(UG_DIG_HD)
#error "oracle/digits.h: define UG_DIG_T, UG_DIG(name) and UG_DIG_HD before including it"
#endif

UG_DIG_HD void UG_DIG(trim)(UG_DIG_T *g)
{
    while (g->top >= g->lo && g->d[g->top] == 0)
        g->top--;
    while (g->lo <= g->top && g->d[g->lo] == 0)
        g->lo++;
}

/* Two's complement negation of digits lo..top (the value was D - 2^(32 (top + 1))). */
UG_DIG_HD void UG_DIG(negate)(UG_DIG_T *g)
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

UG_DIG_HD uint32_t UG_DIG(at)(const UG_DIG_T *g, int i)
{
    return (i >= g->lo && i <= g->top) ? g->d[i] : 0;
}

/* Bits [pos, pos + cnt) of the magnitude, pos >= 0, 0 <= cnt <= 60. */
UG_DIG_HD uint64_t UG_DIG(bits)(const UG_DIG_T *g, int pos, int cnt)
{
    if (cnt <= 0)
        return 0;
    int idx = pos >> 5, off = pos & 31;
    uint64_t w = (uint64_t)UG_DIG(at)(g, idx) | ((uint64_t)UG_DIG(at)(g, idx + 1) << 32);
    uint64_t r = w >> off;
    if (off)
        r |= (uint64_t)UG_DIG(at)(g, idx + 2) << (64 - off);
    return r & ((1ULL << cnt) - 1);
}

/* 1 if any bit below index pos is set (g trimmed: g->lo is the lowest nonzero digit). */
UG_DIG_HD int UG_DIG(any_below)(const UG_DIG_T *g, int pos)
{
    if (pos <= 0 || g->top < g->lo)
        return 0;
    int idx = pos >> 5;
    if (g->lo < idx)
        return 1;
    return g->lo == idx && (g->d[idx] & ((1u << (pos & 31)) - 1)) != 0;
}

UG_DIG_HD int UG_DIG(msb)(const UG_DIG_T *g)
{
    return 32 * g->top + 31 - ug_dig_clz32(g->d[g->top]);
}

UG_DIG_HD double UG_DIG(scale)(uint64_t M, int Q)
{
    if (Q >= -1022 && Q <= 1023)
        return (double)M * ug_dig_f64_of((uint64_t)(Q + 1023) << 52);
    return ldexp((double)M, Q);
}

/* The magnitude of g (nonzero, trimmed) rounded to prec bits with quantum at least 2^qmin:
 * M 2^(q + base) (M <= 2^prec), returned as binary64 and, when wanted, as (M, q).  Bits below
 * digit 0 do not exist, so q >= 0 (then nothing is rounded). */
UG_DIG_HD double UG_DIG(round)(const UG_DIG_T *g, int base, int prec, int qmin, int mode,
                               uint64_t *Mout, int *qout)
{
    int t = UG_DIG(msb)(g);
    int q = t - prec + 1;
    if (q < qmin - base)
        q = qmin - base;
    if (q < 0)
        q = 0;
    uint64_t M = UG_DIG(bits)(g, q, t - q + 1);
    int round_bit = q >= 1 ? (int)UG_DIG(bits)(g, q - 1, 1) : 0;
    int sticky = UG_DIG(any_below)(g, q - 1);
    if (mode == UG_DIG_RN ? (round_bit && (sticky || (M & 1)))
                          : (mode == UG_DIG_MAG_UP && (round_bit || sticky)))
        M++;
    if (Mout)
        *Mout = M;
    if (qout)
        *qout = q;
    return UG_DIG(scale)(M, q + base);
}

/* out = |g| - M 2^q (M <= 2^54, q >= 0), as magnitude and sign (out->neg: |g| < M 2^q). */
UG_DIG_HD void UG_DIG(sub)(const UG_DIG_T *g, uint64_t M, int q, UG_DIG_T *out)
{
    int hidx = q >> 5, off = q & 31;
    uint64_t low = M << off, high = off ? M >> (64 - off) : 0;
    uint32_t hd[3] = {(uint32_t)low, (uint32_t)(low >> 32), (uint32_t)high};
    int lo = g->top >= g->lo && g->lo < hidx ? g->lo : hidx;
    int top = g->top > hidx + 2 ? g->top : hidx + 2;
    int64_t borrow = 0;
    for (int i = lo; i <= top; i++) {
        int64_t v = (int64_t)UG_DIG(at)(g, i) -
                    (int64_t)(i >= hidx && i <= hidx + 2 ? hd[i - hidx] : 0) + borrow;
        out->d[i] = (uint32_t)v;
        borrow = v >> 32;
    }
    out->lo = lo;
    out->top = top;
    out->neg = 0;
    if (borrow) {
        out->neg = 1;
        UG_DIG(negate)(out);
    }
    UG_DIG(trim)(out);
}

/* RN32 or RD32 of the signed value in g (nonzero), with binary32's overflow rules. */
UG_DIG_HD float UG_DIG(to_f32)(const UG_DIG_T *g, int base, int round_down)
{
    int mode = UG_DIG_RN;
    if (round_down)
        mode = g->neg ? UG_DIG_MAG_UP : UG_DIG_MAG_DOWN;
    double m = UG_DIG(round)(g, base, 24, -149, mode, 0, 0);
    if (m >= 0x1p128) /* overflow: RN and RD of a negative go to inf, RD of a positive to max */
        m = (round_down && !g->neg) ? (double)FLT_MAX : ug_dig_f64_of(0x7ff0000000000000ULL);
    float r = (float)m; /* exact: 24 bits, quantum >= 2^-149, below 2^128 or inf */
    return g->neg ? -r : r;
}

#undef UG_DIG_T
#undef UG_DIG
#undef UG_DIG_HD
