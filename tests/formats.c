/*
 * formats.c - unit tests of the format table (base/format.h) and of the exact value rounded to
 * a format (ug_exact_rn/rd, ug_error_fmt: oracle/error.c).
 *
 * References are independent of base/format.c:
 *   - decoding: the table's constants by hand (binary16's 65504, e4m3's 448, ...), binary16
 *     against the compiler's _Float16 where it has one, bfloat16 as the top half of a binary32;
 *   - rounding: MPFR, two ways: (a) the exact value scaled to its quantum 2^q (q from the
 *     value's binade, no lower than emin's) and rounded to an integer by mpfr_rint (nearest-even
 *     or floor), then the format's overflow rule as format.h states it; (b) for the IEEE formats
 *     and plain doubles, MPFR's own emulation of the format (mpfr_set_emin/emax, precision p,
 *     mpfr_subnormalize), overflow included.
 */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/bits.h"
#include "base/format.h"
#include "harness/run/ug.h"

#define NOF(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t fmt_rng(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Bitwise the same double, or both NaN. */
static bool same(double a, double b)
{
    return ug_f64_bits(a) == ug_f64_bits(b) || (isnan(a) && isnan(b));
}

/* ---- the table and the encodings ------------------------------------------------------------ */

UG_CASE(formats, table)
{
    static const struct {
        ug_fmt f;
        uint32_t max_bits, min_sub_bits; /* largest finite, smallest subnormal patterns */
        double max, min_sub;
    } c[] = {
        {UG_F16, 0x7bff, 0x0001, 65504.0, 0x1p-24},
        {UG_BF16, 0x7f7f, 0x0001, 0x1.fep127, 0x1p-133},
        {UG_E4M3, 0x7e, 0x01, 448.0, 0x1p-9},
        {UG_E5M2, 0x7b, 0x01, 57344.0, 0x1p-16},
        {UG_F32, 0x7f7fffff, 0x00000001, 0x1.fffffep127, 0x1p-149},
    };
    for (size_t i = 0; i < NOF(c); i++) {
        const ug_format *F = ug_format_of(c[i].f);
        ug_point(t, "table %s", F->name);
        UG_EXPECT_MSG(F->max == c[i].max, "%s: max %a, want %a", F->name, F->max, c[i].max);
        UG_EXPECT_MSG(ug_fmt_decode(c[i].f, c[i].max_bits) == c[i].max, "%s: decode(%#x) = %a",
                      F->name, c[i].max_bits, ug_fmt_decode(c[i].f, c[i].max_bits));
        UG_EXPECT_MSG(ug_fmt_decode(c[i].f, c[i].min_sub_bits) == c[i].min_sub,
                      "%s: smallest subnormal %a, want %a", F->name,
                      ug_fmt_decode(c[i].f, c[i].min_sub_bits), c[i].min_sub);
        UG_EXPECT_MSG(ug_fmt_ulp(c[i].f, 0.0) == c[i].min_sub, "%s: ulp(0) = %a", F->name,
                      ug_fmt_ulp(c[i].f, 0.0));
        UG_EXPECT_MSG(ug_fmt_parse(F->name) == c[i].f, "%s does not parse back", F->name);
        UG_EXPECT_MSG(ug_fmt_bytes(c[i].f) * 8 == (size_t)F->bits, "%s: %zu bytes", F->name,
                      ug_fmt_bytes(c[i].f));
    }
    ug_point(t, "table ulp");
    /* binary16: ulp(1) = 2^-10; 448 in e4m3's [2^8, 2^9): 2^(8-3) = 32; no inf: last binade */
    UG_EXPECT(ug_fmt_ulp(UG_F16, 1.0) == 0x1p-10 && ug_fmt_ulp(UG_F16, -1.5) == 0x1p-10);
    UG_EXPECT(ug_fmt_ulp(UG_F16, INFINITY) == 0x1p5 && ug_fmt_ulp(UG_E4M3, 448.0) == 32.0);
    UG_EXPECT(ug_fmt_ulp(UG_BF16, 1.0) == 0x1p-7 && ug_fmt_ulp(UG_TF32, 1.0) == 0x1p-10);
    UG_EXPECT(isnan(ug_fmt_ulp(UG_F16, NAN)) && ug_fmt_bytes(UG_TF32) == 0);
    UG_EXPECT(ug_fmt_parse("f8") == UG_FMT_COUNT && ug_format_of(UG_FMT_COUNT) == NULL);
    static const float r32[] = {1.0f, 0x1.fffffep0f, -3.0f, 0x1p-126f, 0x1.fffffcp-127f,
                                0x1p-149f, 0.0f, 0x1.fffffep127f, INFINITY, 16777216.0f};
    for (size_t i = 0; i < NOF(r32); i++)
        UG_EXPECT_MSG(ug_fmt_ulp(UG_F32, r32[i]) == ug_ulp32(r32[i]), "ulp f32 of %a: %a vs %a",
                      (double)r32[i], ug_fmt_ulp(UG_F32, r32[i]), ug_ulp32(r32[i]));
}

/* The expected number of NaN patterns of a 4..16-bit format: IEEE 2 (2^(p-1) - 1); e4m3 2;
 * the OCP MX FP6/FP4 elements none. */
static size_t nan_patterns(const ug_format *F)
{
    return F->nan == UG_NAN_IEEE ? 2 * (((size_t)1 << (F->p - 1)) - 1)
           : F->nan == UG_NAN_NONE ? 0
                                   : 2;
}

/* Every pattern of f: decode then encode gives the pattern back (a NaN: the canonical NaN of its
 * sign); positive finite patterns decode in increasing order; a pattern with the sign bit
 * decodes to the negation; binary16 and bfloat16 agree with independent decoders. */
static void roundtrip(ug_t *t, ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    uint32_t all = 1u << F->bits, signbit = all >> 1;
    size_t bad = 0, nans = 0, order = 0, ref = 0;
    uint32_t first = 0;
    double prev = -1;
    ug_point(t, "roundtrip %s (all %u patterns)", F->name, all);
    for (uint32_t b = 0; b < all; b++) {
        double v = ug_fmt_decode(f, b);
        uint64_t back = ug_fmt_encode(f, v);
        bool ok = isnan(v) ? back == ((b & signbit) | F->qnan) : back == b;
        if (isnan(v)) nans++;
        if (!ok && !bad++) first = b;
        if (b < signbit && !isnan(v)) {
            if (!(v > prev) && b > 0) order++;
            prev = v;
        }
        if (b >= signbit && !isnan(v) && !same(v, -ug_fmt_decode(f, b - signbit))) order++;
        double want = v;
        if (f == UG_BF16) want = ug_bits_f32(b << 16);
#ifdef __FLT16_MANT_DIG__
        if (f == UG_F16) {
            uint16_t h = (uint16_t)b;
            _Float16 x;
            memcpy(&x, &h, 2);
            want = (double)x;
        }
#endif
        if (!same(v, want)) ref++;
    }
    UG_EXPECT_MSG(bad == 0, "%s: %zu patterns do not round-trip (first %#x -> %a -> %#llx)",
                  F->name, bad, first, ug_fmt_decode(f, first),
                  (unsigned long long)ug_fmt_encode(f, ug_fmt_decode(f, first)));
    UG_EXPECT_MSG(nans == nan_patterns(F), "%s: %zu NaN patterns, want %zu", F->name, nans,
                  nan_patterns(F));
    UG_EXPECT_MSG(order == 0, "%s: %zu patterns out of order or not the negation", F->name, order);
    UG_EXPECT_MSG(ref == 0, "%s: %zu patterns differ from the independent decoder", F->name, ref);
}

UG_CASE(formats, roundtrip)
{
    roundtrip(t, UG_F16);
    roundtrip(t, UG_BF16);
    roundtrip(t, UG_E4M3);
    roundtrip(t, UG_E5M2);
    roundtrip(t, UG_E3M2);
    roundtrip(t, UG_E2M3);
    roundtrip(t, UG_E2M1);
    /* load/store through a buffer: a value that needs rounding is stored rounded */
    ug_point(t, "load/store");
    unsigned char buf[16];
    ug_fmt fs[] = {UG_F16, UG_BF16, UG_E4M3, UG_E5M2, UG_E3M2, UG_E2M3, UG_E2M1, UG_F32, UG_F64};
    for (size_t i = 0; i < NOF(fs); i++) {
        ug_fmt_store(fs[i], buf, 1, 1.0 + 0x1p-30);
        ug_fmt_store(fs[i], buf, 0, -3.0);
        double want = fs[i] == UG_F64 ? 1.0 + 0x1p-30 : 1.0;
        UG_EXPECT_MSG(ug_fmt_load(fs[i], buf, 1) == want && ug_fmt_load(fs[i], buf, 0) == -3.0,
                      "%s: stored 1+2^-30, -3; loaded %a, %a", ug_fmt_name(fs[i]),
                      ug_fmt_load(fs[i], buf, 1), ug_fmt_load(fs[i], buf, 0));
    }
}

/* ---- rounding against MPFR ------------------------------------------------------------------ */

/* Reference (a): x rounded to F in mode m, x exact in MPFR (default exponent range). */
static double ref_round(const ug_format *F, mpfr_srcptr x, ug_rmode m)
{
    if (mpfr_nan_p(x)) return NAN;
    if (mpfr_zero_p(x)) return mpfr_signbit(x) ? -0.0 : 0.0;
    bool neg = mpfr_signbit(x) != 0;
    double r;
    if (mpfr_inf_p(x)) {
        r = neg ? -INFINITY : INFINITY;
    } else {
        long e = (long)mpfr_get_exp(x) - 1; /* x in [2^e, 2^(e+1)) */
        if (e < F->emin) e = F->emin;
        long q = e - F->p + 1;
        mpfr_t s, i;
        mpfr_init2(s, mpfr_get_prec(x));
        mpfr_init2(i, 64);
        mpfr_mul_2si(s, x, -q, MPFR_RNDN); /* exact */
        mpfr_rint(i, s, m == UG_RN ? MPFR_RNDN : MPFR_RNDD);
        mpfr_mul_2si(i, i, q, MPFR_RNDN);
        r = mpfr_get_d(i, MPFR_RNDN); /* exact, or beyond binary64: inf */
        mpfr_clear(s);
        mpfr_clear(i);
        if (r == 0) return neg ? -0.0 : 0.0;
    }
    if (fabs(r) <= F->max) return r;
    /* format.h's overflow rule: no inf and no NaN (OCP MX FP6/FP4) saturates in both modes */
    if (F->nan == UG_NAN_NONE) return copysign(F->max, r);
    if (m == UG_RN) return F->inf ? copysign(INFINITY, r) : NAN;
    return r > 0 ? F->max : F->inf ? -INFINITY : NAN;
}

/* Reference (b): MPFR's emulation of an IEEE format, for a plain double. */
static double ref_emulated(const ug_format *F, double v, ug_rmode m)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(F->emin - F->p + 2);
    mpfr_set_emax(F->emax + 1);
    mpfr_rnd_t rnd = m == UG_RN ? MPFR_RNDN : MPFR_RNDD;
    mpfr_t x;
    mpfr_init2(x, F->p);
    int i = mpfr_set_d(x, v, rnd);
    mpfr_subnormalize(x, i, rnd);
    double r = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clear(x);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return r;
}

/* A random double in and around F's range: random sign, exponent emin - p - 3 .. emax + 2. */
static double random_in(const ug_format *F, uint64_t *s)
{
    uint64_t u = fmt_rng(s);
    int lo = F->emin - F->p - 3, hi = F->emax + 2;
    if (lo < -1074) lo = -1074;
    if (hi > 1023) hi = 1023;
    int e = lo + (int)(fmt_rng(s) % (uint64_t)(hi - lo + 1));
    double m = 1.0 + (double)(u >> 12) * 0x1p-52;
    double v = ldexp(m, e);
    return u & 1 ? -v : v;
}

/* Points where rounding decides: a number a of F (random), its successor b, their midpoint,
 * the binary64 neighbours of each; the binade bottom 2^e and its neighbours; max, the RN
 * overflow threshold max + ulp/2, their neighbours; subnormals.  Writes up to 24 values. */
static size_t adversarial(ug_fmt f, uint64_t *s, double *out)
{
    const ug_format *F = ug_format_of(f);
    double a = ug_fmt_round(f, fabs(random_in(F, s)), UG_RD);
    if (!(a <= F->max)) a = F->max;
    double q = ug_fmt_ulp(f, a), b = a + q, mid = a + q / 2;
    double edge = ldexp(1.0, F->emin + (int)(fmt_rng(s) % (uint64_t)(F->emax - F->emin + 1)));
    double thr = F->max + ug_fmt_ulp(f, F->max) / 2, sub = ug_fmt_ulp(f, 0.0);
    double base[] = {a, b, mid, edge, F->max, thr, sub, sub / 2, 3 * sub / 2, ldexp(1.0, F->emin)};
    size_t n = 0;
    for (size_t i = 0; i < NOF(base) && n + 3 <= 24; i++) {
        out[n++] = base[i];
        out[n++] = nextafter(base[i], INFINITY);
        out[n++] = nextafter(base[i], -INFINITY);
    }
    return n;
}

/* One value (hi + lo) through ug_fmt_round2 and the references; counts mismatches. */
typedef struct {
    size_t tried, bad;
    double hi, lo, got, want; /* the first mismatch */
    int mode;
} fmt_tally;

static void check_round(const ug_format *F, ug_fmt f, double hi, double lo, mpfr_t x,
                        fmt_tally *ta)
{
    mpfr_set_d(x, hi, MPFR_RNDN);
    if (lo != 0) mpfr_add_d(x, x, lo, MPFR_RNDN); /* exact: x has precision 2200 */
    for (int m = 0; m < 2; m++) {
        double got = ug_fmt_round2(f, hi, lo, (ug_rmode)m), want = ref_round(F, x, (ug_rmode)m);
        bool ok = same(got, want);
        if (ok && lo == 0 && isfinite(hi) && F->inf && F->bits) /* IEEE: MPFR's emulation too */
            ok = same(got, want = ref_emulated(F, hi, (ug_rmode)m));
        ta->tried++;
        if (!ok && !ta->bad++) *ta = (fmt_tally){ta->tried, 1, hi, lo, got, want, m};
    }
}

UG_CASE(formats, round_mpfr)
{
    mpfr_t x;
    mpfr_init2(x, 2200);
    for (int f = 0; f < UG_FMT_COUNT; f++) {
        const ug_format *F = ug_format_of((ug_fmt)f);
        ug_point(t, "round %s against MPFR", F->name);
        uint64_t s = 0x5eed0000u + (uint64_t)f;
        fmt_tally ta = {0};
        static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 0x1p-1074,
                                          -0x1p-1074, 0x1.fffffffffffffp1023};
        for (size_t i = 0; i < NOF(specials); i++) check_round(F, (ug_fmt)f, specials[i], 0, x, &ta);
        for (int i = 0; i < 20000; i++) check_round(F, (ug_fmt)f, random_in(F, &s), 0, x, &ta);
        for (int i = 0; i < 2000; i++) {
            double v[24];
            size_t n = adversarial((ug_fmt)f, &s, v);
            for (size_t j = 0; j < n; j++) {
                double hi = fmt_rng(&s) & 1 ? -v[j] : v[j];
                /* lo: 0, or below half an ulp of hi in binary64 (hi = RN64(hi + lo)) */
                double gap = fabs(nextafter(hi, INFINITY) - hi); /* >= the gap below hi */
                double u64 = hi == 0 || !isfinite(gap) ? 0 : ldexp(gap, -2 - (int)(fmt_rng(&s) % 60));
                double lo = fmt_rng(&s) & 1 ? u64 : -u64;
                check_round(F, (ug_fmt)f, hi, 0, x, &ta);
                if (lo != 0) check_round(F, (ug_fmt)f, hi, lo, x, &ta);
            }
        }
        UG_EXPECT_MSG(ta.bad == 0, "%s: %zu of %zu roundings differ from MPFR; first: %s(%a + %a) = "
                      "%a, MPFR %a", F->name, ta.bad, ta.tried, ta.mode ? "RD" : "RN", ta.hi, ta.lo,
                      ta.got, ta.want);
        ug_note(t, "%s: %zu roundings compared", F->name, ta.tried);
    }
    mpfr_clear(x);
}

/* ---- the exact record rounded to a format ---------------------------------------------------- */

/* s = x0 + x1 + x2 (binary64 terms): its record by the MPFR oracle, each format's RN and RD
 * against reference (a) on the exact sum; binary32 also through the generic path vs the cache. */
static void check_record(const double *xs, mpfr_t x, fmt_tally *ta, ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    ug_exact e;
    ug_exact_sum_f64_mpfr(xs, 3, &e);
    mpfr_set_d(x, xs[0], MPFR_RNDN);
    mpfr_add_d(x, x, xs[1], MPFR_RNDN);
    mpfr_add_d(x, x, xs[2], MPFR_RNDN);
    double got[2] = {ug_exact_rn(&e, f), ug_exact_rd(&e, f)};
    bool special = !isfinite(xs[0]) || !isfinite(xs[1]) || !isfinite(xs[2]);
    for (int m = 0; m < 2; m++) {
        /* an infinite or NaN term: s is that special (oracle.h's rules), not an overflow */
        double want = !special || mpfr_nan_p(x) ? ref_round(F, x, (ug_rmode)m)
                      : !F->inf                  ? NAN
                      : mpfr_signbit(x)          ? -INFINITY
                                                 : INFINITY;
        bool ok = same(got[m], want);
        if (ok && f == UG_F32 && e.cls == UG_X_FINITE) /* the cache vs the generic rounding */
            ok = same(want = ug_fmt_round2(f, e.hi, e.lo, (ug_rmode)m), got[m]);
        ta->tried++;
        if (!ok && !ta->bad++) *ta = (fmt_tally){ta->tried, 1, e.hi, e.lo, got[m], want, m};
    }
}

UG_CASE(formats, exact_rn_rd)
{
    mpfr_t x;
    mpfr_init2(x, 2200);
    for (int f = 0; f < UG_FMT_COUNT; f++) {
        const ug_format *F = ug_format_of((ug_fmt)f);
        ug_point(t, "ug_exact_rn/rd %s against MPFR", F->name);
        uint64_t s = 0xe8ac7000u + (uint64_t)f;
        fmt_tally ta = {0};
        for (int i = 0; i < 3000; i++) {
            double v[24];
            size_t n = adversarial((ug_fmt)f, &s, v);
            for (size_t j = 0; j < n; j++) {
                double a = fmt_rng(&s) & 1 ? -v[j] : v[j];
                /* a perturbation far below a's binary64 ulp (lo), and a second term that
                 * makes it exact or not: s = a + d + d2, hi = RN64(s) differs from a or not */
                double d = ldexp(a == 0 ? 1.0 : fabs(a), -60 - (int)(fmt_rng(&s) % 200));
                double d2 = fmt_rng(&s) % 3 == 0 ? -d : ldexp(d, -(int)(fmt_rng(&s) % 40));
                double xs[3] = {a, fmt_rng(&s) & 1 ? d : -d, fmt_rng(&s) & 1 ? d2 : -d2};
                if (fmt_rng(&s) % 4 == 0) xs[1] = xs[2] = 0; /* s a binary64 number */
                check_record(xs, x, &ta, (ug_fmt)f);
            }
        }
        for (int i = 0; i < 5000; i++) { /* random sums of three terms */
            double xs[3] = {random_in(F, &s), random_in(F, &s), random_in(F, &s)};
            check_record(xs, x, &ta, (ug_fmt)f);
        }
        /* specials and binary64 overflow: +inf term; a finite s beyond binary64 */
        double sp[][3] = {{INFINITY, 1, 0}, {-INFINITY, 1, 0}, {0x1.fffffffffffffp1023, 0x1p1023, 0},
                          {-0x1.fffffffffffffp1023, -0x1p1023, 0}, {1, -1, 0}, {0, 0, 0}};
        for (size_t i = 0; i < NOF(sp); i++) check_record(sp[i], x, &ta, (ug_fmt)f);
        UG_EXPECT_MSG(ta.bad == 0, "%s: %zu of %zu exact roundings differ from MPFR; first: "
                      "%s(hi %a, lo %a) = %a, MPFR %a", F->name, ta.bad, ta.tried,
                      ta.mode ? "RD" : "RN", ta.hi, ta.lo, ta.got, ta.want);
        ug_note(t, "%s: %zu exact roundings compared", F->name, ta.tried);
    }
    mpfr_clear(x);
}

/* ---- errors in the output's format ----------------------------------------------------------- */

static ug_exact record_of(double a, double b)
{
    double xs[2] = {a, b};
    ug_exact e;
    ug_exact_sum_f64_mpfr(xs, 2, &e);
    return e;
}

UG_CASE(formats, error_fmt)
{
    ug_point(t, "ULP error in binary16 and e4m3");
    /* s = 1 + 2^-11, the binary16 midpoint of 1 and 1 + 2^-10: RN16 = 1 (even), ulp16(1) = 2^-10;
     * got = 1 + 2^-10 is 2^-11 away: half an ULP; in binary32 units (2^-23) 4096 ULP */
    ug_exact e = record_of(1.0, 0x1p-11);
    ug_error r = ug_error_fmt(&e, UG_F16, 1.0 + 0x1p-10);
    UG_EXPECT_MSG(r.abs == 0x1p-11 && r.ulp == 0.5 && ug_error_of(&e, 1.0 + 0x1p-10).ulp == 4096,
                  "f16: abs %a ulp %a", r.abs, r.ulp);
    UG_EXPECT(ug_exact_rn(&e, UG_F16) == 1.0 && ug_exact_rd(&e, UG_F16) == 1.0);
    /* e4m3: s = 500 rounds beyond 448 (RN to 512 > 448): NaN is the correct result (error 0);
     * 448 is 52 away, in ULPs of the last binade [256, 512): 32 -> 1.625; RD(500) = 448 */
    e = record_of(500.0, 0.0);
    UG_EXPECT(isnan(ug_exact_rn(&e, UG_E4M3)) && ug_exact_rd(&e, UG_E4M3) == 448.0);
    UG_EXPECT(ug_error_fmt(&e, UG_E4M3, NAN).ulp == 0);
    r = ug_error_fmt(&e, UG_E4M3, 448.0);
    UG_EXPECT_MSG(r.abs == 52 && r.ulp == 1.625, "e4m3: abs %a ulp %a", r.abs, r.ulp);
    /* binary16: 65520 is the RN overflow threshold (65504 + 16): s = 65520 -> inf, correct */
    e = record_of(65520.0, 0.0);
    UG_EXPECT(ug_exact_rn(&e, UG_F16) == INFINITY && ug_error_fmt(&e, UG_F16, INFINITY).ulp == 0);
    UG_EXPECT(ug_error_fmt(&e, UG_F16, 65504.0).ulp == 0.5); /* 16 / 2^(15-10) */
    /* binary32 stays ug_error_of: a subnormal s in f32 units */
    e = record_of(0x1p-140, 0x1p-160);
    UG_EXPECT(ug_error_fmt(&e, UG_F32, 0x1p-140).ulp == ug_error_of(&e, 0x1p-140).ulp);
}

/* ---- typed call buffers ---------------------------------------------------------------------- */

/* A kernel that writes a binary16 result (the sum accumulated in binary64, rounded once to
 * binary16), unregistered: the refusals below, not a kernel under test. */
static int fmt_sum_to_f16(const ug_kernel *k, ug_call *c)
{
    (void)k;
    double a = 0;
    for (size_t i = 0; i < c->in[0].count; i++) a += ug_fmt_load(c->in[0].fmt, c->in[0].data, i);
    ug_fmt_store(c->out[0].fmt, c->out[0].data, 0, a);
    return 0;
}

static const ug_kernel fmt_rows[] = {{.name = "sum_to_f16", .op = UG_OP_SUM, .out_fmt = UG_F16,
                                      .doc = "test only: a binary16 output"}};
static const ug_family fmt_family = {"formats", "default", fmt_rows, 1, fmt_sum_to_f16, 0};

UG_CASE(formats, typed_call)
{
    ug_kernel k = fmt_rows[0];
    k.family = &fmt_family;
    k.variant = "default";
    snprintf(k.id, sizeof k.id, "sum_to_f16@default");
    static const float x[] = {1.0f, 0x1p-11f, 0x1p-30f}; /* s just above binary16's midpoint */
    uint16_t h = 0;
    float f = 0;
    ug_point(t, "a call in the row's formats runs");
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = UG_OP_SUM;
    c.shape.dim[0] = 3;
    ug_call_set_f32(&c, x, NULL, &f);
    UG_EXPECT(c.in[0].count == 3 && c.in[1].data == NULL && c.in[1].count == 0 && c.out[0].count == 1);
    c.out[0] = (ug_arg_out){&h, UG_F16, 1};
    UG_ASSERT_MSG(ug_kernel_run(&k, &c) == 0, "refused: %s", c.err);
    ug_exact e;
    ug_exact_sum_f32(x, 3, &e);
    double got = ug_fmt_decode(UG_F16, h);
    /* 1 + 2^-11 + 2^-30 is above the midpoint of 1 and 1 + 2^-10: RN16 = 1 + 2^-10 */
    UG_EXPECT_MSG(got == 1.0 + 0x1p-10 && got == ug_exact_rn(&e, UG_F16), "got %a", got);
    UG_EXPECT(ug_error_fmt(&e, UG_F16, got).ulp < 0.5);
    UG_EXPECT(ug_out_f32(&c) == NULL && ug_in_f32(&c, 0) == x && ug_in_f32(&c, 2) == NULL);

    ug_point(t, "a call in other formats is refused, naming them");
    ug_call_set_f32(&c, x, NULL, &f);
    UG_EXPECT_MSG(ug_kernel_run(&k, &c) != 0 && strstr(c.err, "f32") && strstr(c.err, "f16"),
                  "binary32 output buffer for a binary16 kernel: \"%s\"", c.err);
    const ug_kernel *serial = ug_kernel_find("serial_f32");
    UG_ASSERT_MSG(serial != NULL, "serial_f32 not registered");
    ug_call_set_f32(&c, x, NULL, &f);
    c.in[0].fmt = UG_BF16;
    UG_EXPECT_MSG(ug_kernel_run(serial, &c) != 0 && strstr(c.err, "input 0 is bf16"),
                  "bfloat16 input for a binary32 kernel: \"%s\"", c.err);

    /* the harness stores and grades a binary16 output in binary16 */
    ug_input *in = ug_input_from_data(t, UG_OP_SUM, "three", x, NULL, 3);
    UG_EXPECT(in->fmt[0] == UG_F32 && in->fmt[1] == UG_F32);
    ug_result *r = ug_measure(t, &k, in);
    UG_EXPECT_CORRECTLY_ROUNDED(r); /* RN16 of the exact sum, graded in binary16 */
    ug_point(t, "a binary16 output is measured in binary16");
    UG_EXPECT_MSG(!r->failed_run && r->count == 1 && r->correctly_rounded == 1 &&
                  r->ulp_max < 0.5 && ug_fmt_load(UG_F16, r->out[0], 0) == 1.0 + 0x1p-10,
                  "failed_run %d count %zu correctly_rounded %zu ulp_max %g", r->failed_run,
                  r->count, r->correctly_rounded, r->ulp_max);

    /* a result beyond binary16's range: out of range, a skip, never a pass */
    static const float big[] = {60000.0f, 60000.0f, 1.0f};
    ug_input *ib = ug_input_from_data(t, UG_OP_SUM, "beyond_f16", big, NULL, 3);
    ug_result *rb = ug_measure(t, &k, ib);
    char why_buf[256] = "";
    const char *why = ug_point_skip_reason(t);
    if (why) snprintf(why_buf, sizeof why_buf, "%s", why);
    why = why ? why_buf : NULL;
    ug_point(t, "a binary16 result beyond 65504 is out of range, a skip");
    UG_EXPECT_MSG(rb->count == 0 && !rb->failed_run && why && strstr(why, "out of range") &&
                  strstr(why, "f16") && rb->out_of_range == 1 && strstr(why, "1 of 1 outputs"),
                  "a sum of 120001 into binary16: count %zu, out_of_range %zu, skip: %s",
                  rb->count, rb->out_of_range, why ? why : "(none)");

    /* many outputs: each one beyond the range counted (4 binary16 terms of [0, 40000): the sum
     * passes 65504 in roughly three trials of four) */
    ug_dist d4 = ug_in_format(ug_uniform(0, 40000), UG_F16);
    ug_input *i4 = ug_input_make(t, UG_OP_SUM, &d4, 4, 40);
    size_t want = 0;
    for (int i = 0; i < i4->trials; i++)
        want += !isfinite(ug_exact_rn(&i4->exact[i][0], UG_F16)) ||
                i4->exact[i][0].sum_abs > 65504.0;
    ug_result *r4 = ug_measure(t, &k, i4);
    why = ug_point_skip_reason(t);
    char expect[64];
    snprintf(expect, sizeof expect, "out of range: %zu of %d outputs;", want, i4->trials);
    if (why) snprintf(why_buf, sizeof why_buf, "%s", why);
    why = why ? why_buf : NULL;
    ug_point(t, "40 binary16 sums: every out-of-range output counted, the skip says how many");
    UG_EXPECT_MSG(want > 0 && want < (size_t)i4->trials && r4->out_of_range == want && why &&
                  strstr(why, expect), "want %zu, out_of_range %zu, skip: %s", want,
                  r4->out_of_range, why ? why : "(none)");
}
