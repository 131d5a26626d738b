/*
 * detmath.c - the deterministic elementary functions of detmath.h.
 *
 * Plain binary64 polynomials: a few ulps of binary64 accuracy, far below the binary32 rounding
 * of the results, and the same bits everywhere.  Taylor coefficients are exact-ish constant
 * expressions folded by the compiler (correctly rounded), so they are the same everywhere too.
 */
#include "harness/inputs/detmath.h"

#include <math.h>
#include <pthread.h>

static const double UG_PI_4 = 7.85398163397448309616e-01;

/* 1/k!, k = 0..20 (every k! here is exact in binary64). */
static const double ug_inv_fact[21] = {
    1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
    1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0,
    1.0 / 87178291200.0, 1.0 / 1307674368000.0, 1.0 / 20922789888000.0,
    1.0 / 355687428096000.0, 1.0 / 6402373705728000.0, 1.0 / 121645100408832000.0,
    1.0 / 2432902008176640000.0};

/* ln x for finite x > 0.  x = m 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s),
 * s = (m-1)/(m+1), |s| <= 0.1716, series to s^23 (next term < 2^-58 relative). */
double ug_det_log(double x)
{
    int e;
    double m = frexp(x, &e);
    if (m < 0.70710678118654752440) {
        m *= 2;
        e--;
    }
    double s = (m - 1) / (m + 1), s2 = s * s;
    double p = 1.0 / 23;
    for (int k = 21; k >= 1; k -= 2) p = p * s2 + 1.0 / k;
    return (double)e * UG_LN2_HI + ((double)e * UG_LN2_LO + 2 * s * p);
}

/* e^x: x = k ln2 + r (Cody-Waite, k ln2_hi exact), |r| <= 0.35, Taylor to r^14 (next term
 * < 2^-58).  Overflow/underflow by ldexp, which rounds correctly. */
double ug_det_exp(double x)
{
    if (x > 710.0) return HUGE_VAL;
    if (x < -746.0) return 0.0;
    double kd = floor(x * UG_INV_LN2 + 0.5);
    double r = (x - kd * UG_LN2_HI) - kd * UG_LN2_LO;
    double p = ug_inv_fact[14];
    for (int k = 13; k >= 0; k--) p = p * r + ug_inv_fact[k];
    return ldexp(p, (int)kd);
}

/* 2^e = 2^floor(e) * e^(frac(e) ln 2); frac(e) is exact, 2^0 = 1 exactly, and the result is
 * >= 2^floor(e) (every Taylor term is positive). */
double ug_det_exp2(double e)
{
    double k = floor(e);
    double f = e - k;
    double p = ug_det_exp(f * UG_LN2_HI + f * UG_LN2_LO);
    return ldexp(p, (int)k);
}

/* cos(2 pi u), sin(2 pi u) for u in [0,1): the octant comes exactly from 8u, the angle inside
 * it, beta in [0, pi/4], goes through Taylor series to beta^19 / beta^20 (next < 2^-60). */
void ug_det_sincos2pi(double u, double *c, double *s)
{
    double t = u * 8;
    int o = (int)t;
    double f = t - o;
    double g = (o & 1) ? 1.0 - f : f;
    double b = g * UG_PI_4, z = b * b;
    double ps = ug_inv_fact[19], pc = ug_inv_fact[20];
    for (int k = 17; k >= 1; k -= 2) ps = ug_inv_fact[k] - z * ps;
    for (int k = 18; k >= 0; k -= 2) pc = ug_inv_fact[k] - z * pc;
    double sb = b * ps, cb = pc;
    double c1 = (o & 1) ? sb : cb, s1 = (o & 1) ? cb : sb;
    switch ((o >> 1) & 3) {
    case 0: *c = c1; *s = s1; break;
    case 1: *c = -s1; *s = c1; break;
    case 2: *c = -c1; *s = -s1; break;
    default: *c = s1; *s = -c1; break;
    }
}

/* The tables of the fast versions (detmath.h), made once by the series above. */
double ug_tab_cos[1 << UG_SC_BITS], ug_tab_sin[1 << UG_SC_BITS];
double ug_tab_logc[(1 << UG_LOG_BITS) + 1], ug_tab_invc[(1 << UG_LOG_BITS) + 1];
double ug_tab_exp2[1 << UG_EXP_BITS];
static pthread_once_t ug_tab_once = PTHREAD_ONCE_INIT;

static void ug_tab_init(void)
{
    for (int k = 0; k < 1 << UG_SC_BITS; k++)
        ug_det_sincos2pi((double)k / (1 << UG_SC_BITS), &ug_tab_cos[k], &ug_tab_sin[k]);
    for (int k = 0; k <= 1 << UG_LOG_BITS; k++) {
        double c = 1 + (double)k / (1 << UG_LOG_BITS);
        if (k >= 1 << (UG_LOG_BITS - 1)) c *= 0.5;
        ug_tab_logc[k] = ug_det_log(c);
        ug_tab_invc[k] = 1 / c;
    }
    for (int k = 0; k < 1 << UG_EXP_BITS; k++)
        ug_tab_exp2[k] = ug_det_exp2((double)k / (1 << UG_EXP_BITS));
}

void ug_det_init(void)
{
    pthread_once(&ug_tab_once, ug_tab_init);
}
