/*
 * format.c - the format table and rounding, ULP, encoding in any of its formats (format.h).
 *
 * Why hi and the sign of lo decide RN_p(s) and RD_p(s) exactly, for s real, hi = RN64(s),
 * lo = RN64(s - hi), a format F of precision p <= 52 (every format here but binary64):
 *   Every number of F, and every midpoint of two neighbours in F, is a binary64 number: p + 1
 *   <= 53 significand bits, and F's range (exponents emin - p .. emax + 1, subnormal quanta
 *   >= 2^-149) lies inside binary64's.  Call these points F-points.  hi is the binary64 number
 *   nearest s, so no binary64 number, hence no F-point, lies strictly between s and hi unless
 *   it is hi itself (it would be nearer to s than hi).  So:
 *   - hi not an F-point: s and hi lie in the same open interval between consecutive F-points:
 *     the same two neighbours a < s, hi < b, and the same side of their midpoint: RN and RD of s
 *     are those of hi.
 *   - hi a number of F: RN_p(s) = hi (|s - hi| is below half of either spacing around hi);
 *     RD_p(s) = hi if s >= hi (lo >= 0), else pred_F(hi) (lo < 0, since lo = RN64(s - hi) has
 *     the sign of s - hi, and is zero only when s = hi).
 *   - hi a midpoint of F: s is above it when lo > 0 (RN = the upper neighbour), below it when
 *     lo < 0 (the lower), equal when lo = 0 (ties to even).
 *   Overflow: at unbounded exponent these are the roundings of s; F's overflow rule applies to
 *   the result (|result| > max).  hi = +-inf (s beyond binary64) is beyond every F's max.
 * For binary64 itself RN64(s) = hi, RD64(s) = hi if lo >= 0, else pred64(hi).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/format.h"

static const ug_format ug_formats[UG_FMT_COUNT] = {
    [UG_F32] = {"f32", 32, 24, -126, 127, true, true, UG_NAN_IEEE, 0x7fc00000u, 0x1.fffffep127},
    [UG_F64] = {"f64", 64, 53, -1022, 1023, true, true, UG_NAN_IEEE, 0, 0x1.fffffffffffffp1023},
    [UG_TF32] = {"tf32", 0, 11, -126, 127, true, true, UG_NAN_IEEE, 0x7fc00000u, 0x1.ffcp127},
    [UG_F16] = {"f16", 16, 11, -14, 15, true, true, UG_NAN_IEEE, 0x7e00u, 65504.0},
    [UG_BF16] = {"bf16", 16, 8, -126, 127, true, true, UG_NAN_IEEE, 0x7fc0u, 0x1.fep127},
    [UG_E4M3] = {"e4m3", 8, 4, -6, 8, true, false, UG_NAN_ALLONES, 0x7fu, 448.0},
    [UG_E5M2] = {"e5m2", 8, 3, -14, 15, true, true, UG_NAN_IEEE, 0x7eu, 57344.0},
    /* OCP MX FP6/FP4 elements: every code a number; a NaN has no code, encode writes +-max */
    [UG_E3M2] = {"e3m2", 6, 3, -2, 4, true, false, UG_NAN_NONE, 0x1fu, 28.0},
    [UG_E2M3] = {"e2m3", 6, 4, 0, 2, true, false, UG_NAN_NONE, 0x1fu, 7.5},
    [UG_E2M1] = {"e2m1", 4, 2, 0, 2, true, false, UG_NAN_NONE, 0x7u, 6.0},
};

/* Rows registered from outside the tree (ug_fmt_register): id UG_FMT_COUNT + 1 + i. */
static ug_format ug_fmt_registered[UG_FMT_REGISTERED_MAX];
static int ug_fmt_nregistered;

const ug_format *ug_format_of(ug_fmt f)
{
    if ((unsigned)f < UG_FMT_COUNT) return &ug_formats[f];
    unsigned i = (unsigned)f - (UG_FMT_COUNT + 1u);
    return (unsigned)f > UG_FMT_COUNT && i < (unsigned)ug_fmt_nregistered ? &ug_fmt_registered[i]
                                                                           : NULL;
}

const char *ug_fmt_name(ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    return F ? F->name : "?";
}

ug_fmt ug_fmt_parse(const char *name)
{
    for (int f = 0; name && f <= UG_FMT_COUNT + ug_fmt_nregistered; f++) {
        const ug_format *F = ug_format_of((ug_fmt)f);
        if (F && strcmp(name, F->name) == 0) return (ug_fmt)f;
    }
    return UG_FMT_COUNT;
}

/* Why R is not a format the encode/decode/round code here handles, or NULL.  The exponent
 * field of w = bits - p bits holds E = 1 .. top (top = 2^w - 1, less one when the all-ones
 * field is inf/NaN), E = 0 the subnormals: emin = 1 - bias, emax = top - bias. */
static const char *ug_fmt_row_invalid(const ug_format *R)
{
    if (!R->name || !R->name[0]) return "no name";
    if (R->bits != 0 && (R->bits < 4 || R->bits > 16)) return "bits not 4..16 (or 0)";
    if (R->p < 2 || R->p > 52) return "p not 2..52";
    if (!R->subnormals) return "no subnormals (every format here has them)";
    if (R->inf && R->nan != UG_NAN_IEEE) return "inf without UG_NAN_IEEE";
    if (R->bits == 0) return R->emax >= R->emin ? NULL : "emax < emin";
    int w = R->bits - R->p;
    if (w < 2) return "fewer than two exponent bits";
    int top = (1 << w) - 1 - (R->nan == UG_NAN_IEEE);
    if (R->emax - R->emin + 1 != top) return "emin..emax not the exponents the field holds";
    /* the largest finite: all-ones significand at emax, one less below a NaN pattern there */
    double lost = R->nan == UG_NAN_ALLONES ? 2.0 : 1.0;
    if (R->max != ldexp(2.0 - lost * ldexp(1.0, 1 - R->p), R->emax)) return "max not the largest finite";
    return NULL;
}

ug_fmt ug_fmt_register(const ug_format *row, char *err, size_t errlen)
{
    const char *why = !row ? "no row" : ug_fmt_row_invalid(row);
    if (!why && ug_fmt_parse(row->name) != UG_FMT_COUNT) why = "name taken";
    if (!why && ug_fmt_nregistered == UG_FMT_REGISTERED_MAX) why = "table full";
    if (why) {
        if (err && errlen)
            snprintf(err, errlen, "ug_fmt_register: format '%s': %s", row && row->name ? row->name
                                                                                       : "?", why);
        return UG_FMT_COUNT;
    }
    ug_fmt_registered[ug_fmt_nregistered] = *row;
    return (ug_fmt)(UG_FMT_COUNT + 1 + ug_fmt_nregistered++);
}

size_t ug_fmt_bytes(ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    return F ? ((size_t)F->bits + 7) / 8 : 0;
}

double ug_fmt_ulp(ug_fmt f, double r)
{
    const ug_format *F = ug_format_of(f);
    if (!F || isnan(r)) return NAN;
    int e = isinf(r) ? F->emax : r == 0 ? F->emin : ilogb(r);
    if (e < F->emin) e = F->emin;
    return ldexp(1.0, e - F->p + 1);
}

/* F's overflow rule for a result beyond max in magnitude (positive: pos). */
static double ug_fmt_overflow(const ug_format *F, bool pos, ug_rmode m)
{
    if (F->nan == UG_NAN_NONE) return pos ? F->max : -F->max; /* nothing else to go to */
    if (pos) return m == UG_RD ? F->max : F->inf ? INFINITY : NAN;
    return F->inf ? -INFINITY : -NAN;
}

double ug_fmt_round2(ug_fmt f, double hi, double lo, ug_rmode m)
{
    const ug_format *F = ug_format_of(f);
    if (!F || isnan(hi)) return NAN;
    if (isinf(hi)) return ug_fmt_overflow(F, hi > 0, m);
    if (F->p >= 53) /* binary64: hi is RN64(s); RD64 is hi or its predecessor */
        return m == UG_RD && lo < 0 ? nextafter(hi, -INFINITY) : hi;
    if (hi == 0) /* s = lo is below binary64's smallest subnormal, far below F's */
        return m == UG_RD && lo < 0 ? -ldexp(1.0, F->emin - F->p + 1) : hi;
    /* on the magnitude: |s| = a + la; toward -inf is toward zero for s > 0, away for s < 0 */
    bool neg = hi < 0, down = m == UG_RD && !neg, up = m == UG_RD && neg;
    double a = fabs(hi), la = neg ? -lo : lo;
    int e = ilogb(a);
    if (e < F->emin) e = F->emin;
    int sh = e - F->p + 1;    /* the quantum of a's binade is 2^sh */
    double t = ldexp(a, -sh); /* exact: t < 2^p, a power-of-two scaling */
    double fl = floor(t), fr = t - fl, r; /* fr: t's fraction bits, exact */
    if (fr == 0) { /* hi is a number of F: only a directed rounding moves off it */
        r = t;
        if (down && la < 0) /* pred: half a quantum below a binade's bottom */
            r = t == ldexp(1.0, F->p - 1) && e > F->emin ? t - 0.5 : t - 1;
        else if (up && la > 0)
            r = t + 1;
    } else if (down || (!up && fr < 0.5)) {
        r = fl;
    } else if (up || fr > 0.5) {
        r = fl + 1;
    } else { /* RN, hi a midpoint: lo says which side s is on; ties to even */
        r = la > 0 ? fl + 1 : la < 0 ? fl : fmod(fl, 2.0) == 0 ? fl : fl + 1;
    }
    if (r == 0) return copysign(0.0, hi);
    double v = ldexp(r, sh);
    if (v > F->max) return ug_fmt_overflow(F, !neg, m);
    return neg ? -v : v;
}

double ug_fmt_decode(ug_fmt f, uint64_t b)
{
    const ug_format *F = ug_format_of(f);
    if (!F || F->bits == 0 || (F->bits < 64 && b >> F->bits)) return NAN;
    if (F->bits == 64) {
        double d;
        memcpy(&d, &b, sizeof d);
        return d;
    }
    if (F->bits == 32) {
        uint32_t u = (uint32_t)b;
        float x;
        memcpy(&x, &u, sizeof x);
        return x;
    }
    int fb = F->p - 1, w = F->bits - F->p;
    uint64_t E = b >> fb & ((1u << w) - 1), M = b & ((1u << fb) - 1), top = (1u << w) - 1;
    double v;
    if (E == top && F->nan == UG_NAN_IEEE)
        v = M ? NAN : INFINITY;
    else if (E == top && M == (1u << fb) - 1 && F->nan == UG_NAN_ALLONES)
        v = NAN;
    else if (E == 0)
        v = ldexp((double)M, F->emin - fb);
    else
        v = ldexp((double)((1u << fb) | M), (int)E - (1 - F->emin) - fb);
    return b >> (F->bits - 1) ? -v : v;
}

uint64_t ug_fmt_encode(ug_fmt f, double v)
{
    const ug_format *F = ug_format_of(f);
    if (!F || F->bits == 0) return 0;
    if (F->bits == 64) {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        return u;
    }
    if (F->bits == 32) {
        float x = (float)v; /* one rounding, nearest-even, overflow to inf: ug_fmt_round's */
        uint32_t u;
        memcpy(&u, &x, sizeof u);
        return u;
    }
    uint64_t sign = (uint64_t)(signbit(v) ? 1 : 0) << (F->bits - 1);
    double r = isnan(v) ? NAN : ug_fmt_round(f, v, UG_RN);
    if (isnan(r)) return sign | F->qnan;
    int fb = F->p - 1, w = F->bits - F->p;
    double a = fabs(r);
    uint64_t E, M;
    if (isinf(a)) {
        E = (1u << w) - 1, M = 0;
    } else if (a < ldexp(1.0, F->emin)) {
        E = 0, M = (uint64_t)ldexp(a, fb - F->emin);
    } else {
        int e = ilogb(a);
        E = (uint64_t)(e + 1 - F->emin), M = (uint64_t)ldexp(a, fb - e) - (1u << fb);
    }
    return sign | E << fb | M;
}

double ug_fmt_round_sat(ug_fmt f, double v)
{
    const ug_format *F = ug_format_of(f);
    if (!F) return NAN;
    if (isnan(v)) return v; /* its sign: a format with no NaN code encodes it as +-max */
    if (fabs(v) > F->max) { /* RN of v is beyond max too, or is max itself: either way +-max */
        double r = isinf(v) ? NAN : ug_fmt_round(f, v, UG_RN);
        return fabs(r) <= F->max ? r : copysign(F->max, v);
    }
    return ug_fmt_round(f, v, UG_RN);
}

uint64_t ug_fmt_encode_sat(ug_fmt f, double v)
{
    return ug_fmt_encode(f, ug_fmt_round_sat(f, v));
}

double ug_fmt_load(ug_fmt f, const void *data, size_t i)
{
    switch (ug_fmt_bytes(f)) {
    case 8: {
        double d;
        memcpy(&d, (const char *)data + 8 * i, 8);
        return d;
    }
    case 4: {
        float x;
        memcpy(&x, (const char *)data + 4 * i, 4);
        return x;
    }
    case 2: {
        uint16_t u;
        memcpy(&u, (const char *)data + 2 * i, 2);
        return ug_fmt_decode(f, u);
    }
    case 1:
        return ug_fmt_decode(f, ((const uint8_t *)data)[i]);
    }
    return NAN;
}

void ug_fmt_store(ug_fmt f, void *data, size_t i, double v)
{
    switch (ug_fmt_bytes(f)) {
    case 8:
        memcpy((char *)data + 8 * i, &v, 8);
        return;
    case 4: {
        float x = (float)v;
        memcpy((char *)data + 4 * i, &x, 4);
        return;
    }
    case 2: {
        uint16_t u = (uint16_t)ug_fmt_encode(f, v);
        memcpy((char *)data + 2 * i, &u, 2);
        return;
    }
    case 1:
        ((uint8_t *)data)[i] = (uint8_t)ug_fmt_encode(f, v);
        return;
    }
}
