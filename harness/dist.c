/*
 * dist.c - the input distributions of dist.h.
 *
 * Reproducibility.  Every random number comes from Philox4x32-10 (rng.c) at a counter that
 * names what it is for: block index = purpose << 56 | vector << 32 | element (or element pair),
 * so element i of any elementwise distribution depends only on (seed, stream id, trial, i) and
 * on nothing else -- not n, not the thread count, not the chunking.  The transcendental
 * functions (log, exp, sin, cos) are our own polynomial evaluations in plain IEEE binary64
 * arithmetic (below), not libm's, whose last bit differs between library versions: the same
 * bits come out on every machine that does IEEE double arithmetic without contraction (gcc
 * -std=c11 gives -ffp-contract=off).
 *
 * The base distributions (element i; "RN32" is round-to-nearest-even to binary32):
 *   uniform(a,b)      u in [0,1) with 53 random bits (= ug_rng_unit(s, i) for x),
 *                     x = RN32(a + (b-a)*u) clamped to [RN32(a), RN32(b)].  Both ends can occur:
 *                     RN32(a) when u = 0 or by rounding, RN32(b) only by rounding.
 *   normal(mu,sigma)  Box-Muller on two 53-bit uniforms u1 in (0,1], u2 in [0,1) from one
 *                     Philox block: elements 2j and 2j+1 are r*cos(2 pi u2) and r*sin(2 pi u2),
 *                     r = sqrt(-2 ln u1) <= sqrt(106 ln 2) = 8.5716; x = RN32(mu + sigma*z)
 *                     with the arithmetic in binary64.
 *   lognormal(mu,s)   x = RN32(exp(mu + s*z)), z the normal above.
 *   expuniform(lo,hi) x = +-RN32(2^e), e uniform real in [lo, hi] (53-bit u), random sign:
 *                     log2|x| is uniform, so |x| = m*2^floor(e) with m = 2^frac(e) in [1,2)
 *                     (a log-uniform, Benford-like mantissa).  For integer lo, hi every |x| lies
 *                     in [2^lo, 2^hi] and its binade exponent in [lo, hi]; -149 <= lo <= hi <= 127
 *                     keeps every value finite and nonzero (normal when lo >= -126).
 *   constant(c)       x = RN32(c).
 *   seed000           (float)rand()/RAND_MAX + (float)rand()/(RAND_MAX*RAND_MAX) with MSVC's
 *                     rand() after srand(trial): see ug_seed000_value.
 *   gensum, gendot    Ogita-Rump-Oishi with a calibrated last term: see the GenDot section.
 * Transforms, in this order: ordering, alternating signs, special values (see ug_dist_fill_*).
 */
#include "dist.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/par.h"
#include "rng.h"

/* ---- errors ----------------------------------------------------------------------------- */

static int ug_dist_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ug_dist_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- deterministic elementary functions ---------------------------------------------------
 * Plain binary64 polynomials: a few ulps of binary64 accuracy, far below the binary32 rounding
 * of the results, and the same bits everywhere.  Taylor coefficients are exact-ish constant
 * expressions folded by the compiler (correctly rounded), so they are the same everywhere too. */

static const double UG_LN2_HI = 6.93147180369123816490e-01; /* 32 trailing zero bits */
static const double UG_LN2_LO = 1.90821492927058770002e-10;
static const double UG_INV_LN2 = 1.44269504088896338700e+00;
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
static double ug_det_log(double x)
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
static double ug_det_exp(double x)
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
static double ug_det_exp2(double e)
{
    double k = floor(e);
    double f = e - k;
    double p = ug_det_exp(f * UG_LN2_HI + f * UG_LN2_LO);
    return ldexp(p, (int)k);
}

/* cos(2 pi u), sin(2 pi u) for u in [0,1): the octant comes exactly from 8u, the angle inside
 * it, beta in [0, pi/4], goes through Taylor series to beta^19 / beta^20 (next < 2^-60). */
static void ug_det_sincos2pi(double u, double *c, double *s)
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

/* Table-driven versions for the per-element hot paths (about 3x faster than the series
 * above, accuracy a few binary64 ulps).  The tables are made once, by the series above, so they
 * are the same on every machine too. */
#define UG_SC_BITS 8  /* sin/cos table: 2^8 angles 2 pi k / 256 */
#define UG_LOG_BITS 7 /* log table: grid points 1 + k/128, k = 0..128 */
#define UG_EXP_BITS 6 /* exp table: 2^(k/64) */
static double ug_tab_cos[1 << UG_SC_BITS], ug_tab_sin[1 << UG_SC_BITS];
static double ug_tab_logc[(1 << UG_LOG_BITS) + 1], ug_tab_invc[(1 << UG_LOG_BITS) + 1];
static double ug_tab_exp2[1 << UG_EXP_BITS];
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

static void ug_tabs(void)
{
    pthread_once(&ug_tab_once, ug_tab_init);
}

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

/* ---- random blocks by purpose ------------------------------------------------------------- */

enum {
    UG_P_X = 0,      /* x / A base values (element pairs: block = i/2) */
    UG_P_Y = 1,      /* y / B base values */
    UG_P_SPEC_X = 2, /* special-value decisions for x / A (block = i) */
    UG_P_SPEC_Y = 3,
    UG_P_PERM = 4,   /* GenSum/GenDot final permutation, per vector */
    UG_P_GEN = 5,    /* GenSum/GenDot terms, per vector (block = pair index) */
};

#define UG_DIST_MAX_ELEMS 0xffffffffull /* element index must fit the 32-bit block field */
#define UG_DIST_MAX_VECS (1u << 24)     /* vector index field */

static inline double ug_unit53(uint32_t lo, uint32_t hi)
{
    return (double)(((uint64_t)hi << 32 | lo) >> 11) * 0x1p-53;
}

/* ---- validation and names ------------------------------------------------------------------ */

/* Largest |z| the normal generator can produce: u1 >= 2^-53, r = sqrt(106 ln 2). */
#define UG_NORMAL_ZMAX 8.5717
#define UG_GEN_KAPPA_MAX 1e30

static int ug_f32_finite(double v)
{
    return isfinite(v) && fabs(v) <= FLT_MAX;
}

int ug_dist_validate(const ug_dist *d, char *err, size_t errlen)
{
    char name[128];
    ug_dist_describe(d, name, sizeof name);
    switch (d->kind) {
    case UG_D_UNIFORM:
        if (!ug_f32_finite(d->p1) || !ug_f32_finite(d->p2))
            return ug_dist_fail(err, errlen, "dist %s: a and b must be finite binary32 values",
                                name);
        if (d->p2 < d->p1) return ug_dist_fail(err, errlen, "dist %s: b < a", name);
        break;
    case UG_D_NORMAL:
    case UG_D_LOGNORMAL:
        if (!isfinite(d->p1) || !isfinite(d->p2))
            return ug_dist_fail(err, errlen, "dist %s: mu and sigma must be finite", name);
        if (d->p2 < 0) return ug_dist_fail(err, errlen, "dist %s: sigma < 0", name);
        if (d->kind == UG_D_NORMAL && !ug_f32_finite(fabs(d->p1) + UG_NORMAL_ZMAX * d->p2))
            return ug_dist_fail(err, errlen,
                                "dist %s: |mu| + 8.58 sigma overflows binary32 (max %g)", name,
                                (double)FLT_MAX);
        if (d->kind == UG_D_LOGNORMAL && d->p1 + UG_NORMAL_ZMAX * d->p2 >= 88.72)
            return ug_dist_fail(err, errlen,
                                "dist %s: exp(mu + 8.58 sigma) overflows binary32: need "
                                "mu + 8.58 sigma < 88.72",
                                name);
        break;
    case UG_D_EXPUNIFORM:
        if (!(d->p1 >= -149 && d->p2 <= 127))
            return ug_dist_fail(err, errlen,
                                "dist %s: need -149 <= lo and hi <= 127 (binary32 range)", name);
        if (d->p2 < d->p1) return ug_dist_fail(err, errlen, "dist %s: hi < lo", name);
        break;
    case UG_D_CONSTANT:
    case UG_D_SEED000:
        break;
    case UG_D_GENSUM:
    case UG_D_GENDOT:
        if (!(d->p1 >= 1))
            return ug_dist_fail(err, errlen, "dist %s: condition number kappa < 1", name);
        if (!(d->p1 <= UG_GEN_KAPPA_MAX))
            return ug_dist_fail(err, errlen, "dist %s: kappa > %g is not supported", name,
                                UG_GEN_KAPPA_MAX);
        break;
    default:
        return ug_dist_fail(err, errlen, "dist: unknown kind %d", (int)d->kind);
    }
    if ((unsigned)d->order > UG_ORDER_ABS_DESC)
        return ug_dist_fail(err, errlen, "dist %s: unknown order %d", name, (int)d->order);
    if (!(d->special_rate >= 0 && d->special_rate <= 1))
        return ug_dist_fail(err, errlen, "dist %s: special rate %g outside [0,1]", name,
                            d->special_rate);
    if (d->special_rate > 0 && (d->specials == 0 || (d->specials & ~(unsigned)UG_SP_ALL)))
        return ug_dist_fail(err, errlen,
                            "dist %s: special mask 0x%x must be a nonzero subset of 0x%x", name,
                            d->specials, (unsigned)UG_SP_ALL);
    return 0;
}

/* Shortest %g form (6 to 17 digits) that reads back as v: stable and short ("0.1", "1e+08"). */
static void ug_fmt_num(char *buf, size_t len, double v)
{
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, v);
        if (strtod(buf, NULL) == v || isnan(v)) return;
    }
}

const char *ug_dist_describe(const ug_dist *d, char *buf, size_t len)
{
    char a[32], b[32], r[32];
    ug_fmt_num(a, sizeof a, d->p1);
    ug_fmt_num(b, sizeof b, d->p2);
    int used = 0;
    switch (d->kind) {
    case UG_D_UNIFORM: used = snprintf(buf, len, "uniform(%s,%s)", a, b); break;
    case UG_D_NORMAL: used = snprintf(buf, len, "normal(%s,%s)", a, b); break;
    case UG_D_LOGNORMAL: used = snprintf(buf, len, "lognormal(%s,%s)", a, b); break;
    case UG_D_EXPUNIFORM: used = snprintf(buf, len, "expuniform(%s,%s)", a, b); break;
    case UG_D_CONSTANT: used = snprintf(buf, len, "constant(%s)", a); break;
    case UG_D_SEED000: used = snprintf(buf, len, "seed000"); break;
    case UG_D_GENSUM: used = snprintf(buf, len, "gensum(%s)", a); break;
    case UG_D_GENDOT: used = snprintf(buf, len, "gendot(%s)", a); break;
    default: used = snprintf(buf, len, "unknown(%d)", (int)d->kind); break;
    }
    static const char *const order_names[] = {"", "asc", "desc", "abs_asc", "abs_desc"};
    size_t at = used < 0 ? 0 : (size_t)used < len ? (size_t)used : len;
    if (d->order != UG_ORDER_NONE && at < len) {
        unsigned o = (unsigned)d->order;
        used = snprintf(buf + at, len - at, "|sorted(%s)", o <= 4 ? order_names[o] : "?");
        at += used < 0 ? 0 : (size_t)used < len - at ? (size_t)used : len - at;
    }
    if (d->alternate && at < len) {
        used = snprintf(buf + at, len - at, "|alt");
        at += used < 0 ? 0 : (size_t)used < len - at ? (size_t)used : len - at;
    }
    if (d->special_rate > 0 && at < len) {
        ug_fmt_num(r, sizeof r, d->special_rate);
        snprintf(buf + at, len - at, "|specials(%s,0x%x)", r, d->specials);
    }
    return buf;
}

/* ---- constructors -------------------------------------------------------------------------- */

static ug_dist ug_dist_base(ug_dist_kind kind, double p1, double p2)
{
    ug_dist d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.p1 = p1;
    d.p2 = p2;
    d.order = UG_ORDER_NONE;
    return d;
}

ug_dist ug_uniform(double a, double b) { return ug_dist_base(UG_D_UNIFORM, a, b); }
ug_dist ug_normal(double mu, double sigma) { return ug_dist_base(UG_D_NORMAL, mu, sigma); }
ug_dist ug_lognormal(double mu, double sigma) { return ug_dist_base(UG_D_LOGNORMAL, mu, sigma); }
ug_dist ug_expuniform(double lo, double hi) { return ug_dist_base(UG_D_EXPUNIFORM, lo, hi); }
ug_dist ug_constant(double c) { return ug_dist_base(UG_D_CONSTANT, c, 0); }
ug_dist ug_seed000(void) { return ug_dist_base(UG_D_SEED000, 0, 0); }
ug_dist ug_gensum(double kappa) { return ug_dist_base(UG_D_GENSUM, kappa, 0); }
ug_dist ug_gendot(double kappa) { return ug_dist_base(UG_D_GENDOT, kappa, 0); }

ug_dist ug_sorted(ug_dist d, ug_order order)
{
    d.order = order;
    return d;
}

ug_dist ug_alternating(ug_dist d)
{
    d.alternate = 1;
    return d;
}

ug_dist ug_with_specials(ug_dist d, double rate, unsigned mask)
{
    d.special_rate = rate;
    d.specials = mask;
    return d;
}

/* ---- elementwise base values --------------------------------------------------------------- */

/* Elements 2j, 2j+1 (j = 0..cnt) of a base distribution into v[2j], v[2j+1], from Philox
 * blocks w[j]: one loop per kind, so the inner loops are straight-line code. */
static void ug_base_batch(const ug_dist *d, const uint32_t (*w)[4], size_t cnt, float *v)
{
    const double p1 = d->p1, p2 = d->p2, width = d->p2 - d->p1;
    switch (d->kind) {
    case UG_D_UNIFORM: {
        const float lo = (float)p1, hi = (float)p2;
        for (size_t l = 0; l < 2 * cnt; l++) {
            const uint32_t *q = &w[l / 2][2 * (l % 2)];
            float x = (float)(p1 + width * ug_unit53(q[0], q[1]));
            v[l] = x < lo ? lo : x > hi ? hi : x;
        }
        break;
    }
    case UG_D_NORMAL:
    case UG_D_LOGNORMAL:
        for (size_t l = 0; l < cnt; l++) {
            double u1 = (double)((((uint64_t)w[l][1] << 32 | w[l][0]) >> 11) + 1) * 0x1p-53;
            double u2 = ug_unit53(w[l][2], w[l][3]);
            double r = sqrt(-2 * ug_fast_log(u1)), c, s;
            ug_fast_sincos2pi(u2, &c, &s);
            double z0 = p1 + p2 * (r * c), z1 = p1 + p2 * (r * s);
            if (d->kind == UG_D_LOGNORMAL) {
                z0 = ug_fast_exp(z0);
                z1 = ug_fast_exp(z1);
            }
            v[2 * l] = (float)z0;
            v[2 * l + 1] = (float)z1;
        }
        break;
    case UG_D_EXPUNIFORM:
        for (size_t l = 0; l < 2 * cnt; l++) {
            const uint32_t *q = &w[l / 2][2 * (l % 2)];
            float m = (float)ug_fast_exp2(p1 + width * ug_unit53(q[0], q[1]));
            v[l] = (q[0] & 1) ? -m : m; /* bit 0: below the 53 bits of u */
        }
        break;
    default: /* UG_D_CONSTANT */
        for (size_t l = 0; l < 2 * cnt; l++) v[l] = (float)p1;
        break;
    }
}

typedef struct {
    const ug_dist *d;
    const ug_stream *s;
    unsigned purpose;
    float *x;
} ug_base_job;

static void ug_base_range(void *ctx, size_t lo, size_t hi)
{
    enum { BATCH = 64 };
    const ug_base_job *job = ctx;
    uint32_t w[BATCH][4];
    float v[2 * BATCH];
    size_t j_end = (hi + 1) / 2;
    for (size_t j0 = lo / 2; j0 < j_end; j0 += BATCH) {
        size_t cnt = j_end - j0 < BATCH ? j_end - j0 : BATCH;
        ug_philox_blocks(job->s, (uint64_t)job->purpose << 56 | j0, cnt, w);
        ug_base_batch(job->d, (const uint32_t(*)[4])w, cnt, v);
        size_t from = 2 * j0 < lo ? lo : 2 * j0, to = 2 * (j0 + cnt) > hi ? hi : 2 * (j0 + cnt);
        memcpy(job->x + from, v + (from - 2 * j0), (to - from) * sizeof *v);
    }
}

static void ug_fill_base(const ug_dist *d, const ug_stream *s, unsigned purpose, float *x, size_t n)
{
    ug_base_job job = {d, s, purpose, x};
    ug_tabs();
    ug_par_range(n, 1 << 15, 0, ug_base_range, &job);
}

/* ---- seed 000 ------------------------------------------------------------------------------ */

/* a[i] = (float)rand() / RAND_MAX + (float)rand() / (RAND_MAX * RAND_MAX), evaluated as the C
 * expression is on MSVC x64 (SSE, FLT_EVAL_METHOD 0): RAND_MAX (int) converts to 32767.0f,
 * RAND_MAX * RAND_MAX is the int 1073676289, which converts to the float 1073676288.0f; two
 * binary32 divisions, then a binary32 addition.  The two rand() calls are taken left to right
 * (C leaves the order unspecified; MSVC evaluates them in this order).  The casts round each
 * step to binary32 even where FLT_EVAL_METHOD != 0, and a binary64 or x87 intermediate rounded
 * to binary32 gives the same value (double rounding is innocuous for +, / at 53 >= 2*24+2). */
static float ug_seed000_value(uint32_t r1, uint32_t r2)
{
    const float rmax = (float)UG_MSVC_RAND_MAX;
    const float rmax2 = (float)(UG_MSVC_RAND_MAX * UG_MSVC_RAND_MAX);
    float q1 = (float)((float)r1 / rmax);
    float q2 = (float)((float)r2 / rmax2);
    return (float)(q1 + q2);
}

float ug_seed000_at(uint32_t trial, uint64_t element)
{
    return ug_seed000_value(ug_msvc_rand_at(trial, 2 * element),
                            ug_msvc_rand_at(trial, 2 * element + 1));
}

typedef struct {
    uint32_t trial;
    uint64_t first_call; /* rand() call index of x[0]'s first call */
    float *x;
} ug_seed000_job;

static void ug_seed000_range(void *ctx, size_t lo, size_t hi)
{
    const ug_seed000_job *job = ctx;
    uint32_t x = ug_msvc_state_after(job->trial, job->first_call + 2 * (uint64_t)lo);
    for (size_t i = lo; i < hi; i++) {
        x = x * 214013u + 2531011u;
        uint32_t r1 = (x >> 16) & 0x7fffu;
        x = x * 214013u + 2531011u;
        uint32_t r2 = (x >> 16) & 0x7fffu;
        job->x[i] = ug_seed000_value(r1, r2);
    }
}

static void ug_fill_seed000(uint32_t trial, uint64_t first_call, float *x, size_t n)
{
    ug_seed000_job job = {trial, first_call, x};
    ug_par_range(n, 1 << 16, 0, ug_seed000_range, &job);
}

/* ---- GenDot / GenSum ----------------------------------------------------------------------
 *
 * Ogita, Rump, Oishi, "Accurate sum and dot product", SISC 26(6) 2005, Algorithm 6.1 (GenDot),
 * for binary32 data, m pairs, target kappa, b = log2 kappa:
 *   first half (n2 = ceil(m/2) pairs): x_i = r*2^e_i, y_i = r'*2^e_i, e_i = round(u*b/2), with
 *     e_0 = round(b/2)+1 and e_{n2-1} = 0 so both extremes occur;
 *   second half: exponents e_j = round(linspace(b/2, 0)); x_j = r*2^e_j and
 *     y_j = RN32((t_j - D)/x_j), D the exact dot so far, t_j = r''*2^e_j, so that the running
 *     dot cancels down to t_j step by step;
 *   finally a random permutation of the pairs.
 * r, r', r'' are odd multiples of 2^-24 in (-1,1): exact binary32, never 0.
 * Changes from the paper, each needed for binary32 or for the whole range 1 <= kappa <= 1e30:
 *   1. D is exact (MPFR, below), not Dot2: 1e30 ~ 2^100 needs ~100+ bits of cancellation.
 *   2. The last term calibrates: its target T is chosen (same sign as D) so that
 *      sum|x_i y_i| / |sum x_i y_i| equals kappa exactly in real arithmetic; the only deviation
 *      left is the binary32 rounding of y_last, relative 2^-24 |T - D| / |T|.
 *   3. Small kappa: the paper's random targets always cancel to O(1) and so cannot make
 *      kappa < ~sqrt(m).  Here the first-half products are positive with probability
 *      p = (1 + 1/kappa)/2 (exactly 1/2 in the limit of large kappa, as in the paper), and a
 *      second-half step cancels only while |D| > 2 A/kappa (A = sum of |terms| so far), with the
 *      target raised to A/kappa when r''*2^e_j is below it; otherwise the step is a free term
 *      like the first half whose sign steers |D| towards A/kappa.  The last step then only has
 *      about one term's worth to correct, and no term is an outlier (the largest |x_i y_i| is
 *      within a few times the second largest, measured up to m = 2^20).
 * Condition number here: kappa = sum|x_i y_i| / |sum x_i y_i|.  Ogita-Rump-Oishi define
 * cond(x'y) = 2 |x'||y| / |x'y|, twice ours; GenDot(c) in the paper aims at their cond = c, we
 * aim at ours = kappa.
 *
 * Exactness of D: every product of two binary32 values is exact in binary64 and an integer
 * multiple of 2^-298 below 2^256; a sum of fewer than 2^32 of them is an integer multiple of
 * 2^-298 below 2^288, i.e. fits in 586 bits, so a 600-bit MPFR accumulator adds exactly.
 *
 * GenSum (n terms, paper section 6): a GenDot of m = ceil(n/2) pairs, each product split by
 * TwoProduct into h = RN32(x*y) and l = x*y - h (exact in binary32 unless l underflows, which
 * needs |x*y| < 2^-102: never observed, and it would move the sum by < 2^-149); for odd n one
 * first-half pair has y = +-2^e, so its l is 0 and is dropped.  The sum and the condition number
 * are those of the GenDot pair, up to sum|h|+|l| vs |x*y| (relative 2^-24).  The n terms are then
 * permuted at random. */

#define UG_GEN_PREC 600
enum { UG_GEN_OVERFLOW = -1, UG_GEN_OOM = -2 };

static inline double ug_odd24(uint32_t w)
{
    /* (2k+1 - 2^24) * 2^-24, k the top 24 bits of w: odd, |.| <= 1 - 2^-24 */
    return ((double)(int32_t)((w >> 8) * 2 + 1) - 16777216.0) * 0x1p-24;
}

static inline double ug_u32unit(uint32_t w)
{
    return (double)w * 0x1p-32;
}

/* Round half away from zero, as MATLAB's round in the paper. */
static inline int ug_round_int(double v)
{
    return (int)(v < 0 ? -floor(-v + 0.5) : floor(v + 0.5));
}

/* Blocks of one vector's sub-stream, made 64 at a time (ug_philox_blocks is ~2x faster per
 * block than one at a time) and handed out by index. */
typedef struct {
    const ug_stream *s;
    uint64_t tag;   /* purpose << 56 | vec << 32 */
    uint64_t limit; /* indices < limit */
    uint64_t base;
    size_t have;
    uint32_t w[64][4];
} ug_blkbuf;

static const uint32_t *ug_blkbuf_get(ug_blkbuf *b, uint64_t i)
{
    if (i < b->base || i >= b->base + b->have) {
        b->base = i;
        b->have = b->limit - i < 64 ? (size_t)(b->limit - i) : 64;
        ug_philox_blocks(b->s, b->tag | i, b->have, b->w);
    }
    return b->w[i - b->base];
}

typedef struct {
    mpfr_t acc;
} ug_gen_state;

/* Makes one GenDot pair x[0..m), y[0..m) (unpermuted) from vector `vec` of the stream, kappa as
 * above; exact_pair < m: that first-half pair gets y = +-2^e (GenSum of odd length).  Returns 0,
 * or -1 if a y overflows binary32 (not seen for kappa <= 1e30).  Cost: m Philox blocks and m
 * 600-bit MPFR additions (+ m/2 mpfr_get_d): ~0.1-0.2 us per pair. */
static int ug_gendot_pairs(const ug_stream *s, uint32_t vec, double kappa, float *x, float *y,
                           size_t m, size_t exact_pair, ug_gen_state *gs)
{
    double b = ug_det_log(kappa) * UG_INV_LN2;
    double half_b = b / 2;
    double p_pos = (1 + 1 / kappa) / 2;
    size_t n2 = (m + 1) / 2, m2 = m - n2;
    double A = 0; /* sum |x_i y_i|, binary64: only steers the targets */
    ug_blkbuf bb = {s, (uint64_t)UG_P_GEN << 56 | (uint64_t)vec << 32, m, 0, 0, {{0}}};
    mpfr_set_zero(gs->acc, 1);
    for (size_t i = 0; i < n2; i++) {
        const uint32_t *w = ug_blkbuf_get(&bb, i);
        int e = i == 0 ? ug_round_int(half_b) + 1
                : i == n2 - 1 ? 0
                              : ug_round_int(ug_u32unit(w[2]) * half_b);
        double xi = ldexp(ug_odd24(w[0]), e);
        double yi = i == exact_pair ? ldexp(1.0, e) : ldexp(fabs(ug_odd24(w[1])), e);
        bool positive = ug_u32unit(w[3]) < p_pos;
        if ((xi < 0) == positive) yi = -yi;
        x[i] = (float)xi; /* exact */
        y[i] = (float)yi;
        double prod = xi * yi;
        A += fabs(prod);
        mpfr_add_d(gs->acc, gs->acc, prod, MPFR_RNDN);
    }
    for (size_t j = 0; j < m2; j++) {
        size_t i = n2 + j;
        const uint32_t *w = ug_blkbuf_get(&bb, i);
        int e = m2 == 1 ? 0 : ug_round_int(half_b * (double)(m2 - 1 - j) / (double)(m2 - 1));
        double xi = ldexp(ug_odd24(w[0]), e);
        double D = mpfr_get_d(gs->acc, MPFR_RNDN);
        double level = A / kappa; /* where the final |sum| must end */
        double yi;
        bool last = j == m2 - 1;
        if (last && kappa > 1) {
            /* T with sign(T) = sign(D) and (A + |T - D|) / |T| = kappa: */
            double aD = fabs(D), T;
            if (aD > 0 && kappa * aD >= A)
                T = (A + aD) / (kappa + 1); /* cancel part of D */
            else
                T = (A - aD) / (kappa - 1); /* kappa below the data's: add to D */
            double sgn = D > 0 ? 1 : D < 0 ? -1 : (w[3] & 1) ? -1 : 1;
            yi = (sgn * T - D) / xi;
        } else if (!last && fabs(D) > 2 * level) {
            double t = ldexp(ug_odd24(w[1]), e);
            if (fabs(t) < level) t = copysign(level, t);
            yi = (t - D) / xi;
        } else {
            /* a free term, its sign steering |D| towards level: the running sum tracks
             * A/kappa within about one term, so the last term has only that much to correct
             * (random signs would leave it ~sqrt(m) terms: one huge outlier at large m) */
            yi = ldexp(fabs(ug_odd24(w[1])), e);
            bool positive;
            if (kappa == 1)
                positive = true;
            else if (D == 0)
                positive = w[3] & 1;
            else
                positive = (D > 0) == (fabs(D) < level);
            if ((xi < 0) == positive) yi = -yi;
        }
        float yf = (float)yi;
        if (!isfinite(yf)) return UG_GEN_OVERFLOW;
        x[i] = (float)xi;
        y[i] = yf;
        double prod = xi * (double)yf;
        A += fabs(prod);
        mpfr_add_d(gs->acc, gs->acc, prod, MPFR_RNDN);
    }
    return 0;
}

/* Fisher-Yates driven by Philox: step i (from n-1 down to 1) swaps a[i] with a[j],
 * j = (w * (i+1)) >> 32, w word 0 of block i of vector `vec` (bias < n 2^-32: irrelevant, and
 * deterministic).  The blocks come in batches, so the partners of the next steps are known
 * early and prefetched: the random accesses, not the arithmetic, are the cost at n ~ 2^24. */
#define UG_PERMUTE_BODY(T)                                                                     \
    enum { BATCH = 64, AHEAD = 16 };                                                           \
    uint32_t w[BATCH][4];                                                                      \
    size_t j[BATCH];                                                                           \
    for (size_t top = n; top > 1;) {                                                           \
        size_t cnt = top - 1 < BATCH ? top - 1 : BATCH; /* steps top-1 .. top-cnt */           \
        ug_philox_blocks(s, (uint64_t)UG_P_PERM << 56 | (uint64_t)vec << 32 | (top - cnt), cnt, \
                         w);                                                                   \
        for (size_t l = 0; l < cnt; l++) {                                                     \
            size_t i = top - 1 - l;                                                            \
            j[l] = (size_t)(((uint64_t)w[i - (top - cnt)][0] * (uint64_t)(i + 1)) >> 32);      \
        }                                                                                      \
        for (size_t l = 0; l < cnt && l < AHEAD; l++) __builtin_prefetch(&a[j[l]], 1);         \
        for (size_t l = 0; l < cnt; l++) {                                                     \
            if (l + AHEAD < cnt) __builtin_prefetch(&a[j[l + AHEAD]], 1);                      \
            size_t i = top - 1 - l;                                                            \
            T t = a[i];                                                                        \
            a[i] = a[j[l]];                                                                    \
            a[j[l]] = t;                                                                       \
        }                                                                                      \
        top -= cnt;                                                                            \
    }

static void ug_permute_u64(const ug_stream *s, uint32_t vec, uint64_t *a, size_t n)
{
    UG_PERMUTE_BODY(uint64_t)
}

static void ug_permute_f32(const ug_stream *s, uint32_t vec, float *a, size_t n)
{
    UG_PERMUTE_BODY(float)
}

/* The pairs (x_i, y_i) permuted together, packed in one 64-bit word each so that a swap is one
 * cache miss, not two.  Returns -1 when out of memory. */
static int ug_permute_pairs(const ug_stream *s, uint32_t vec, float *x, float *y, size_t n)
{
    uint64_t *a = malloc(n * sizeof *a);
    if (!a) return UG_GEN_OOM;
    for (size_t i = 0; i < n; i++) a[i] = (uint64_t)ug_f32_bits(y[i]) << 32 | ug_f32_bits(x[i]);
    ug_permute_u64(s, vec, a, n);
    for (size_t i = 0; i < n; i++) {
        x[i] = ug_bits_f32((uint32_t)a[i]);
        y[i] = ug_bits_f32((uint32_t)(a[i] >> 32));
    }
    free(a);
    return 0;
}

static int ug_gendot_vec(const ug_stream *s, uint32_t vec, double kappa, float *x, float *y,
                         size_t m, ug_gen_state *gs)
{
    int rc = ug_gendot_pairs(s, vec, kappa, x, y, m, (size_t)-1, gs);
    if (rc) return rc;
    return ug_permute_pairs(s, vec, x, y, m);
}

/* GenSum of n terms into x; tmp holds 2 * ceil(n/2) floats. */
static int ug_gensum_vec(const ug_stream *s, uint32_t vec, double kappa, float *x, size_t n,
                         float *tmp, ug_gen_state *gs)
{
    size_t m = (n + 1) / 2, n2 = (m + 1) / 2;
    float *px = tmp, *py = tmp + m;
    int rc = ug_gendot_pairs(s, vec, kappa, px, py, m, n % 2 ? n2 - 1 : (size_t)-1, gs);
    if (rc) return rc;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        double prod = (double)px[i] * (double)py[i];
        float h = (float)prod;
        float l = (float)(prod - (double)h);
        x[k++] = h;
        if (!(n % 2 && i == n2 - 1)) x[k++] = l;
    }
    ug_permute_f32(s, vec, x, n);
    return 0;
}

/* ---- ordering ------------------------------------------------------------------------------ */

/* Total-order keys: ascending unsigned keys = ascending values (-NaN < -inf < ... < -0 < +0 <
 * ... < +inf < +NaN); the magnitude keys order by |x| and then by value (negative first). */
static inline uint32_t ug_key_val32(float f)
{
    uint32_t b = ug_f32_bits(f);
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}
static inline float ug_unkey_val32(uint32_t k)
{
    return ug_bits_f32((k & 0x80000000u) ? k & 0x7fffffffu : ~k);
}
static inline uint32_t ug_key_abs32(float f)
{
    uint32_t b = ug_f32_bits(f);
    return (b & 0x7fffffffu) << 1 | (b >> 31 ^ 1u);
}
static inline float ug_unkey_abs32(uint32_t k)
{
    return ug_bits_f32((k >> 1) | ((k & 1u) ? 0u : 0x80000000u));
}
static inline uint64_t ug_key_val64(double d)
{
    uint64_t b = ug_f64_bits(d);
    return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}
static inline uint64_t ug_key_abs64(double d)
{
    uint64_t b = ug_f64_bits(d);
    return (b & 0x7fffffffffffffffull) << 1 | (b >> 63 ^ 1u);
}

#define UG_RADIX_BITS 11
#define UG_RADIX_SIZE (1u << UG_RADIX_BITS)

/* Stable LSD radix sort of 32-bit keys (3 passes of 11 bits, a pass skipped when every key
 * shares the digit).  tmp: n words.  O(n). */
static void ug_radix32(uint32_t *k, uint32_t *tmp, size_t n)
{
    size_t *cnt = calloc(UG_RADIX_SIZE, sizeof *cnt);
    if (!cnt) abort(); /* 16 KiB: out of memory here is hopeless anyway */
    for (unsigned shift = 0; shift < 32; shift += UG_RADIX_BITS) {
        memset(cnt, 0, UG_RADIX_SIZE * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(k[i] >> shift) & (UG_RADIX_SIZE - 1)]++;
        if (cnt[(k[0] >> shift) & (UG_RADIX_SIZE - 1)] == n) continue;
        size_t sum = 0;
        for (size_t d = 0; d < UG_RADIX_SIZE; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) tmp[cnt[(k[i] >> shift) & (UG_RADIX_SIZE - 1)]++] = k[i];
        memcpy(k, tmp, n * sizeof *k);
    }
    free(cnt);
}

/* Stable LSD radix sort of (64-bit key, 32-bit index) pairs: ties keep index order. */
static void ug_radix64(uint64_t *k, uint32_t *idx, uint64_t *ktmp, uint32_t *itmp, size_t n)
{
    size_t *cnt = calloc(UG_RADIX_SIZE, sizeof *cnt);
    if (!cnt) abort();
    for (unsigned shift = 0; shift < 64; shift += UG_RADIX_BITS) {
        memset(cnt, 0, UG_RADIX_SIZE * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(k[i] >> shift) & (UG_RADIX_SIZE - 1)]++;
        if (cnt[(k[0] >> shift) & (UG_RADIX_SIZE - 1)] == n) continue;
        size_t sum = 0;
        for (size_t d = 0; d < UG_RADIX_SIZE; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t at = cnt[(k[i] >> shift) & (UG_RADIX_SIZE - 1)]++;
            ktmp[at] = k[i];
            itmp[at] = idx[i];
        }
        memcpy(k, ktmp, n * sizeof *k);
        memcpy(idx, itmp, n * sizeof *idx);
    }
    free(cnt);
}

/* Sort x[0..n) (stride `stride`) in place by `order`; desc is exactly asc reversed (equal keys
 * are identical values, so ties cannot be told apart).  tmp: 2n words. */
static void ug_order_f32(float *x, size_t n, size_t stride, ug_order order, uint32_t *tmp)
{
    if (order == UG_ORDER_NONE || n < 2) return;
    bool by_abs = order == UG_ORDER_ABS_ASC || order == UG_ORDER_ABS_DESC;
    bool desc = order == UG_ORDER_DESC || order == UG_ORDER_ABS_DESC;
    uint32_t *k = tmp, *t2 = tmp + n;
    for (size_t i = 0; i < n; i++)
        k[i] = by_abs ? ug_key_abs32(x[i * stride]) : ug_key_val32(x[i * stride]);
    ug_radix32(k, t2, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t key = k[desc ? n - 1 - i : i];
        x[i * stride] = by_abs ? ug_unkey_abs32(key) : ug_unkey_val32(key);
    }
}

/* Dot inputs: the pairs (x_i, y_i) are ordered together by the exact product x_i*y_i (binary64),
 * ties by index; desc is asc reversed.  The dot product's terms are unchanged, only reordered. */
static int ug_order_pairs(float *x, float *y, size_t n, ug_order order)
{
    if (order == UG_ORDER_NONE || n < 2) return 0;
    bool by_abs = order == UG_ORDER_ABS_ASC || order == UG_ORDER_ABS_DESC;
    bool desc = order == UG_ORDER_DESC || order == UG_ORDER_ABS_DESC;
    uint64_t *k = malloc(2 * n * sizeof *k);
    uint32_t *idx = malloc(2 * n * sizeof *idx);
    float *cp = malloc(2 * n * sizeof *cp);
    if (!k || !idx || !cp) goto err;
    for (size_t i = 0; i < n; i++) {
        double p = (double)x[i] * (double)y[i];
        k[i] = by_abs ? ug_key_abs64(p) : ug_key_val64(p);
        idx[i] = (uint32_t)i;
    }
    ug_radix64(k, idx, k + n, idx + n, n);
    memcpy(cp, x, n * sizeof *x);
    memcpy(cp + n, y, n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        uint32_t from = idx[desc ? n - 1 - i : i];
        x[i] = cp[from];
        y[i] = cp[n + from];
    }
    free(k);
    free(idx);
    free(cp);
    return 0;
err:
    free(k);
    free(idx);
    free(cp);
    return -1;
}

/* ---- special values ------------------------------------------------------------------------ */

/* Element i is replaced when u < rate (u: 53 bits of its own block, so rate 1 replaces all and
 * rate 0 none); the kind is uniform among the mask's set bits; zeros and subnormals get a random
 * sign; subnormal significands are uniform in [1, 2^23 - 1]. */
static float ug_special_value(unsigned mask, const uint32_t w[4])
{
    unsigned kinds[5], nk = 0;
    for (unsigned b = 0; b < 5; b++)
        if (mask & (1u << b)) kinds[nk++] = 1u << b;
    unsigned kind = kinds[((uint64_t)w[2] * nk) >> 32];
    uint32_t sign = (w[3] & 1u) << 31;
    switch (kind) {
    case UG_SP_NAN: return ug_bits_f32(0x7fc00000u);
    case UG_SP_POSINF: return INFINITY;
    case UG_SP_NEGINF: return -INFINITY;
    case UG_SP_ZERO: return ug_bits_f32(sign);
    default: {
        uint32_t mant = 1u + (uint32_t)(((uint64_t)(w[3] >> 1) * 0x7ffffeu) >> 31);
        return ug_bits_f32(sign | mant);
    }
    }
}

typedef struct {
    const ug_stream *s;
    unsigned purpose, mask;
    double rate;
    float *x;
} ug_special_job;

static void ug_special_range(void *ctx, size_t lo, size_t hi)
{
    enum { BATCH = 64 };
    const ug_special_job *job = ctx;
    uint32_t w[BATCH][4];
    for (size_t i0 = lo; i0 < hi; i0 += BATCH) {
        size_t cnt = hi - i0 < BATCH ? hi - i0 : BATCH;
        ug_philox_blocks(job->s, (uint64_t)job->purpose << 56 | i0, cnt, w);
        for (size_t l = 0; l < cnt; l++)
            if (ug_unit53(w[l][0], w[l][1]) < job->rate)
                job->x[i0 + l] = ug_special_value(job->mask, w[l]);
    }
}

static void ug_inject_specials(const ug_dist *d, const ug_stream *s, unsigned purpose, float *x,
                               size_t n)
{
    if (!(d->special_rate > 0)) return;
    ug_special_job job = {s, purpose, d->specials, d->special_rate, x};
    ug_par_range(n, 1 << 15, 0, ug_special_range, &job);
}

/* ---- the fill entry points ----------------------------------------------------------------- */

static bool ug_is_gen(const ug_dist *d)
{
    return d->kind == UG_D_GENSUM || d->kind == UG_D_GENDOT;
}

static int ug_fill_check(const ug_dist *d, size_t n, char *err, size_t errlen)
{
    if (ug_dist_validate(d, err, errlen)) return -1;
    if ((uint64_t)n > UG_DIST_MAX_ELEMS) {
        char name[128];
        return ug_dist_fail(err, errlen, "dist %s: %zu elements is more than the %llu supported",
                            ug_dist_describe(d, name, sizeof name), n,
                            (unsigned long long)UG_DIST_MAX_ELEMS);
    }
    return 0;
}

static int ug_gen_fail(const ug_dist *d, size_t n, int rc, char *err, size_t errlen)
{
    char name[128];
    return ug_dist_fail(
        err, errlen, "dist %s, n = %zu: %s", ug_dist_describe(d, name, sizeof name), n,
        rc == UG_GEN_OOM ? "out of memory" : "a generated value overflowed binary32");
}

static int ug_oom(const ug_dist *d, size_t n, char *err, size_t errlen)
{
    char name[128];
    return ug_dist_fail(err, errlen, "dist %s, n = %zu: out of memory",
                        ug_dist_describe(d, name, sizeof name), n);
}

static void ug_alternate_signs(float *x, size_t n, size_t stride)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t b = ug_f32_bits(x[i * stride]) & 0x7fffffffu;
        x[i * stride] = ug_bits_f32(b | (uint32_t)(i & 1) << 31);
    }
}

static void ug_abs_all(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = ug_bits_f32(ug_f32_bits(x[i]) & 0x7fffffffu);
}

/* Sum input: base values, then the transforms: order (by value or magnitude), alternating signs
 * x_i = (-1)^i |x_i|, special values per element. */
int ug_dist_fill_sum(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                     float *x, size_t n, char *err, size_t errlen)
{
    if (ug_fill_check(d, n, err, errlen)) return -1;
    if (d->kind == UG_D_GENDOT) {
        char name[128];
        return ug_dist_fail(err, errlen,
                            "dist %s makes dot/gemm inputs; use gensum for a sum input",
                            ug_dist_describe(d, name, sizeof name));
    }
    ug_stream s = ug_stream_make(seed, stream_id, trial);
    if (d->kind == UG_D_SEED000) {
        ug_fill_seed000(trial, 0, x, n);
    } else if (d->kind == UG_D_GENSUM) {
        float *tmp = malloc((n + 1) * sizeof *tmp);
        if (!tmp) return ug_oom(d, n, err, errlen);
        ug_gen_state gs;
        mpfr_init2(gs.acc, UG_GEN_PREC);
        int rc = n ? ug_gensum_vec(&s, 0, d->p1, x, n, tmp, &gs) : 0;
        mpfr_clear(gs.acc);
        free(tmp);
        if (rc) return ug_gen_fail(d, n, rc, err, errlen);
    } else {
        ug_fill_base(d, &s, UG_P_X, x, n);
    }
    if (d->order != UG_ORDER_NONE && n > 1) {
        uint32_t *tmp = malloc(2 * n * sizeof *tmp);
        if (!tmp) return ug_oom(d, n, err, errlen);
        ug_order_f32(x, n, 1, d->order, tmp);
        free(tmp);
    }
    if (d->alternate) ug_alternate_signs(x, n, 1);
    ug_inject_specials(d, &s, UG_P_SPEC_X, x, n);
    return 0;
}

/* Dot input: x and y from independent sub-streams (GenDot: the pair; GenSum: two independent
 * GenSum vectors; seed000: x then y in one rand() stream).  Order: the pairs by product.
 * Alternate: x_i = (-1)^i |x_i|, y_i = |y_i|, so the products alternate in sign.  Specials: x
 * and y independently. */
int ug_dist_fill_dot(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                     float *x, float *y, size_t n, char *err, size_t errlen)
{
    if (ug_fill_check(d, n, err, errlen)) return -1;
    ug_stream s = ug_stream_make(seed, stream_id, trial);
    if (d->kind == UG_D_SEED000) {
        ug_fill_seed000(trial, 0, x, n);
        ug_fill_seed000(trial, 2 * (uint64_t)n, y, n);
    } else if (ug_is_gen(d)) {
        float *tmp = d->kind == UG_D_GENSUM ? malloc((n + 1) * sizeof *tmp) : NULL;
        if (d->kind == UG_D_GENSUM && !tmp) return ug_oom(d, n, err, errlen);
        ug_gen_state gs;
        mpfr_init2(gs.acc, UG_GEN_PREC);
        int rc = 0;
        if (n && d->kind == UG_D_GENDOT)
            rc = ug_gendot_vec(&s, 0, d->p1, x, y, n, &gs);
        else if (n)
            if (!(rc = ug_gensum_vec(&s, 0, d->p1, x, n, tmp, &gs)))
                rc = ug_gensum_vec(&s, 1, d->p1, y, n, tmp, &gs);
        mpfr_clear(gs.acc);
        free(tmp);
        if (rc) return ug_gen_fail(d, n, rc, err, errlen);
    } else {
        ug_fill_base(d, &s, UG_P_X, x, n);
        ug_fill_base(d, &s, UG_P_Y, y, n);
    }
    if (ug_order_pairs(x, y, n, d->order)) return ug_oom(d, n, err, errlen);
    if (d->alternate) {
        ug_alternate_signs(x, n, 1);
        ug_abs_all(y, n);
    }
    ug_inject_specials(d, &s, UG_P_SPEC_X, x, n);
    ug_inject_specials(d, &s, UG_P_SPEC_Y, y, n);
    return 0;
}

/* GEMM GenSum/GenDot: vector v of the stream for every row of A and column of B, made on
 * worker threads (each with its own MPFR accumulator; MPFR is thread-safe when built with TLS,
 * otherwise one thread is used). */
typedef struct {
    const ug_dist *d;
    const ug_stream *s;
    float *A, *B;
    size_t M, N, K;
    atomic_int failed; /* 0, or a UG_GEN_* code; read after the join */
} ug_gemm_gen_job;

static void ug_gemm_gen_range(void *ctx, size_t lo, size_t hi)
{
    ug_gemm_gen_job *job = ctx;
    size_t K = job->K, M = job->M, N = job->N;
    float *buf = malloc((3 * K + 1) * sizeof *buf);
    if (!buf) {
        atomic_store(&job->failed, UG_GEN_OOM);
        return;
    }
    float *u = buf, *v = buf + K, *tmp = buf + 2 * K;
    ug_gen_state gs;
    mpfr_init2(gs.acc, UG_GEN_PREC);
    for (size_t r = lo; r < hi; r++) {
        int rc;
        bool to_a, to_b;
        if (job->d->kind == UG_D_GENDOT) {
            /* pair r: u is row r of A, v column r of B */
            rc = ug_gendot_vec(job->s, (uint32_t)r, job->d->p1, u, v, K, &gs);
            to_a = r < M;
            to_b = r < N;
        } else {
            /* vectors 0..M-1: rows of A; M..M+N-1: columns of B */
            rc = ug_gensum_vec(job->s, (uint32_t)r, job->d->p1, r < M ? u : v, K, tmp, &gs);
            to_a = r < M;
            to_b = r >= M;
        }
        if (rc) {
            atomic_store(&job->failed, rc);
            break;
        }
        if (to_a) memcpy(job->A + r * K, u, K * sizeof *u);
        if (to_b) {
            size_t c = job->d->kind == UG_D_GENDOT ? r : r - M;
            for (size_t k = 0; k < K; k++) job->B[k * N + c] = v[k];
        }
    }
    mpfr_clear(gs.acc);
    mpfr_free_cache();
    free(buf);
}

/* A (M x K) and B (K x N), row-major.  Elementwise kinds: A from one sub-stream (row-major
 * index), B from another.  Order: each row of A and each column of B by its own values.
 * Alternate: A[r][k] = (-1)^k |A[r][k]|, B = |B|, so every product A[r][k] B[k][c] has sign
 * (-1)^k.  Specials: per element, A and B independently. */
int ug_dist_fill_gemm(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                      float *A, float *B, size_t M, size_t N, size_t K, char *err,
                      size_t errlen)
{
    size_t na = M * K, nb = K * N;
    if (ug_dist_validate(d, err, errlen)) return -1;
    if ((K && (M > UG_DIST_MAX_ELEMS / K || N > UG_DIST_MAX_ELEMS / K)) ||
        (ug_is_gen(d) && M + N >= UG_DIST_MAX_VECS)) {
        char name[128];
        return ug_dist_fail(err, errlen, "dist %s: gemm %zu x %zu x %zu is too large",
                            ug_dist_describe(d, name, sizeof name), M, N, K);
    }
    ug_stream s = ug_stream_make(seed, stream_id, trial);
    if (d->kind == UG_D_SEED000) {
        ug_fill_seed000(trial, 0, A, na);
        ug_fill_seed000(trial, 2 * (uint64_t)na, B, nb);
    } else if (ug_is_gen(d)) {
        ug_gemm_gen_job job = {d, &s, A, B, M, N, K, 0};
        atomic_init(&job.failed, 0);
        size_t vecs = d->kind == UG_D_GENDOT ? (M > N ? M : N) : M + N;
        if (K) ug_par_range(vecs, 1, mpfr_buildopt_tls_p() ? 0 : 1, ug_gemm_gen_range, &job);
        int rc = atomic_load(&job.failed);
        if (rc) return ug_gen_fail(d, K, rc, err, errlen);
    } else {
        ug_fill_base(d, &s, UG_P_X, A, na);
        ug_fill_base(d, &s, UG_P_Y, B, nb);
    }
    if (d->order != UG_ORDER_NONE && K > 1) {
        uint32_t *tmp = malloc(2 * K * sizeof *tmp);
        if (!tmp) return ug_oom(d, K, err, errlen);
        for (size_t r = 0; r < M; r++) ug_order_f32(A + r * K, K, 1, d->order, tmp);
        for (size_t c = 0; c < N; c++) ug_order_f32(B + c, K, N, d->order, tmp);
        free(tmp);
    }
    if (d->alternate) {
        for (size_t r = 0; r < M; r++) ug_alternate_signs(A + r * K, K, 1);
        ug_abs_all(B, nb);
    }
    ug_inject_specials(d, &s, UG_P_SPEC_X, A, na);
    ug_inject_specials(d, &s, UG_P_SPEC_Y, B, nb);
    return 0;
}
