/*
 * detmath.h - deterministic binary64 log, exp, exp2 and sin/cos for the input distributions.
 *
 * Our own polynomial evaluations in plain IEEE binary64 arithmetic, not libm's, whose last bit
 * differs between library versions: the same bits come out on every machine that does IEEE
 * double arithmetic without contraction (gcc -std=c11 gives -ffp-contract=off), so every
 * generated input is the same everywhere.  Two sets:
 *   ug_det_*   plain series (a few binary64 ulps), used where speed does not matter and to make
 *              the tables;
 *   ug_fast_*  table-driven (about 3x faster, also a few ulps), static inline here for the
 *              per-element hot paths; call ug_det_init() once before using them.
 */
#ifndef UG_DETMATH_H
#define UG_DETMATH_H

#include <stdint.h>

#include "base/bits.h"

static const double UG_LN2_HI = 6.93147180369123816490e-01; /* 32 trailing zero bits */
static const double UG_LN2_LO = 1.90821492927058770002e-10;
static const double UG_INV_LN2 = 1.44269504088896338700e+00;

/* ln x for finite x > 0. */
double ug_det_log(double x);
/* e^x (HUGE_VAL above 710, 0 below -746). */
double ug_det_exp(double x);
/* 2^e, >= 2^floor(e). */
double ug_det_exp2(double e);
/* cos(2 pi u), sin(2 pi u) for u in [0,1). */
void ug_det_sincos2pi(double u, double *c, double *s);

/* Makes the tables of the ug_fast_* functions (once; thread-safe). */
void ug_det_init(void);


/* Tables of the fast versions (about 3x faster than the series, accuracy a few binary64
 * ulps), made once by ug_det_init from the ug_det_* series, so they are the same on every
 * machine too. */
#define UG_SC_BITS 8  /* sin/cos table: 2^8 angles 2 pi k / 256 */
#define UG_LOG_BITS 7 /* log table: grid points 1 + k/128, k = 0..128 */
#define UG_EXP_BITS 6 /* exp table: 2^(k/64) */
extern double ug_tab_cos[1 << UG_SC_BITS], ug_tab_sin[1 << UG_SC_BITS];
extern double ug_tab_logc[(1 << UG_LOG_BITS) + 1], ug_tab_invc[(1 << UG_LOG_BITS) + 1];
extern double ug_tab_exp2[1 << UG_EXP_BITS];

/* floor(v) for |v| < 2^31 without a libm call (SSE2 has no rounding instruction). */
static inline int ug_floor_int(double v)
{
    int i = (int)v;
    return (double)i > v ? i - 1 : i;
}

/* 2^k for -1022 <= k <= 1023, exactly. */
static inline double ug_pow2i(int k)
{
    return ug_bits_f64((uint64_t)(k + 1023) << 52);
}

/* ln u for u in [2^-1022, 1]: u = m 2^e, m in [1,2); c = 1 + k/128 the grid point nearest m
 * (k = 0..128); from c = 1.5 on, m, c are halved and e incremented, so the reduced m lies in
 * [0.74, 1.5) and e = 0 for u >= 0.74: no cancellation between e ln 2 and ln c beyond a factor
 * ~2.4, and the bin around 1 has c = 1, ln c = 0 exactly (Box-Muller's small radii keep full
 * relative accuracy).  r = (m - c)/c with m - c exact, |r| <= 2^-8; ln(1 + r) to r^7 (next
 * term < 2^-61).  Measured: within 3 ulps of glibc's log. */
static inline double ug_fast_log(double u)
{
    uint64_t b = ug_f64_bits(u);
    int e = (int)(b >> 52) - 1023;
    uint64_t mb = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m = ug_bits_f64(mb);
    int k = (int)((mb >> (52 - UG_LOG_BITS - 1)) & ((1u << (UG_LOG_BITS + 1)) - 1));
    k = (k + 1) >> 1; /* nearest grid point: 0 .. 128 */
    double c = 1 + (double)k / (1 << UG_LOG_BITS);
    if (k >= 1 << (UG_LOG_BITS - 1)) {
        m *= 0.5;
        c *= 0.5;
        e += 1;
    }
    double r = (m - c) * ug_tab_invc[k];
    double p = r * (1.0 / 7);
    p = r * (-1.0 / 6 + p);
    p = r * (1.0 / 5 + p);
    p = r * (-1.0 / 4 + p);
    p = r * (1.0 / 3 + p);
    p = r * (-1.0 / 2 + p);
    double l1p = r + r * p;
    return (double)e * UG_LN2_HI + (ug_tab_logc[k] + ((double)e * UG_LN2_LO + l1p));
}

/* cos(2 pi u), sin(2 pi u), u in [0,1): 256 u = k + t exactly, angle 2 pi t/256 < 0.0246 by
 * series (to d^7 / d^8), then the addition formulas with the table angle. */
static inline void ug_fast_sincos2pi(double u, double *c, double *s)
{
    double t = u * (1 << UG_SC_BITS);
    int k = (int)t;
    double d = (t - k) * (6.28318530717958647692 / (1 << UG_SC_BITS)), z = d * d;
    double sd = d * (1 - z * (1.0 / 6) * (1 - z * (1.0 / 20) * (1 - z * (1.0 / 42))));
    double cd = 1 - z * 0.5 * (1 - z * (1.0 / 12) * (1 - z * (1.0 / 30) * (1 - z * (1.0 / 56))));
    *c = ug_tab_cos[k] * cd - ug_tab_sin[k] * sd;
    *s = ug_tab_sin[k] * cd + ug_tab_cos[k] * sd;
}

/* 2^e for e in [-149, 127]: e = j + (i + t)/64 with j = floor(e), 0 <= t < 1 all exact;
 * 2^(t/64) by series to the 7th power (argument < 0.0109, next term < 2^-60); every factor is
 * >= 1, so 2^e >= 2^floor(e) holds in floating point too. */
static inline double ug_fast_exp2(double e)
{
    int j = ug_floor_int(e);
    double f = (e - j) * (1 << UG_EXP_BITS);
    int i = (int)f;
    double a = (f - i) * (UG_LN2_HI + UG_LN2_LO) / (1 << UG_EXP_BITS);
    double p =
        1 + a * (1 + a * (0.5 + a * (1.0 / 6 +
                                     a * (1.0 / 24 +
                                          a * (1.0 / 120 + a * (1.0 / 720 + a * (1.0 / 5040)))))));
    return ug_tab_exp2[i] * p * ug_pow2i(j);
}

/* e^x for the lognormal: x = (k + i/64) ln 2 + r, |r| <= ln2/128, series to r^6; outside
 * binary32's reach the answer is decided by ug_det_exp (0 or inf after rounding to binary32). */
static inline double ug_fast_exp(double x)
{
    if (!(x > -700 && x < 700)) return ug_det_exp(x);
    int ki = ug_floor_int(x * (UG_INV_LN2 * (1 << UG_EXP_BITS)) + 0.5);
    double kd = ki;
    double r = (x - kd * (UG_LN2_HI / (1 << UG_EXP_BITS))) - kd * (UG_LN2_LO / (1 << UG_EXP_BITS));
    int i = ki & ((1 << UG_EXP_BITS) - 1);
    int k = (ki - i) / (1 << UG_EXP_BITS);
    double p =
        1 +
        r * (1 + r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720))))));
    return ug_tab_exp2[i] * p * ug_pow2i(k);
}

#endif
