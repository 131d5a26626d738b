/*
 * blockfmt_rules.c - the block-scaled format table (base/blockfmt.h) against references computed
 * apart from it, with MPFR:
 *
 *   formats/e8m0_mpfr        every E8M0 code decodes to MPFR's 2^(c-127), 0xFF to NaN.
 *   formats/scale_rules      every scale rule at the block maxima that decide it, for every
 *                            element format: each power of two of binary32's range, its binary32
 *                            neighbours, the element format's max times each power of two and its
 *                            neighbours, subnormal maxima, zero, NaN, +inf; and random binary32
 *                            maxima.  The references: OCP's exponent floor(log2(amax)) - emax_elem
 *                            is MPFR's exponent of amax; CEIL's is the least e with amax <=
 *                            max_elem 2^e, from MPFR's quotient amax / max_elem; NVFP4's and
 *                            DeepSeek's quotients rounded by mp_round_div below.
 *   formats/blockfmt_table   the rows (names, shapes, the rule each recipe names), the element of a
 *                            given scale (ug_blockfmt_elem_of) against mp_round_div on random
 *                            inputs, the exact value of a stored element, and the hook's refusals.
 *
 * mp_round_div: x / d (two binary64 numbers) rounded to nearest-even at precision p with
 * exponents no lower than emin: the quotient to 300 bits (RN), scaled to its quantum and rounded
 * to an integer by mpfr_rint.  Rigorous: a quotient of two 53-bit numbers is either dyadic (then
 * exact in 300 bits) or at least 2^-(53+p+1) relative away from every midpoint at precision p, far
 * beyond the 300-bit rounding.
 */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>

#include "base/blockfmt.h"
#include "base/format.h"
#include "harness/run/ug.h"

static uint64_t br_rng(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* RN (ties to even) of x / d at precision p, quantum no lower than 2^(emin-p+1); d != 0. */
static double mp_round_div(int p, int emin, double x, double d)
{
    if (x == 0) return 0.0;
    mpfr_t q;
    mpfr_init2(q, 300);
    mpfr_set_d(q, x, MPFR_RNDN);
    mpfr_div_d(q, q, d, MPFR_RNDN);
    long e = mpfr_get_exp(q) - 1; /* |q| in [2^e, 2^(e+1)) */
    long k = (e > emin ? e : emin) - p + 1;
    mpfr_mul_2si(q, q, -k, MPFR_RNDN); /* exact */
    mpfr_rint(q, q, MPFR_RNDN);        /* nearest integer, ties to even */
    mpfr_mul_2si(q, q, k, MPFR_RNDN);
    double r = mpfr_get_d(q, MPFR_RNDN); /* exact: p + 1 bits */
    mpfr_clear(q);
    return r;
}

/* The exponent e of 2^e <= a < 2^(e+1), from MPFR. */
static long mp_floor_log2(double a)
{
    mpfr_t m;
    mpfr_init2(m, 64);
    mpfr_set_d(m, a, MPFR_RNDN);
    long e = mpfr_get_exp(m) - 1;
    mpfr_clear(m);
    return e;
}

/* The least e with a <= mx 2^e: ceil(log2(a / mx)), from MPFR's 300-bit quotient. */
static long mp_ceil_log2_ratio(double a, double mx)
{
    mpfr_t q;
    mpfr_init2(q, 300);
    mpfr_set_d(q, a, MPFR_RNDN);
    mpfr_div_d(q, q, mx, MPFR_RNDN);
    long e = mpfr_get_exp(q) - 1;
    int pow2 = mpfr_cmp_si_2exp(q, 1, e) == 0;
    mpfr_clear(q);
    return pow2 ? e : e + 1;
}

static long clamp_e8m0(long e) { return e < -127 ? -127 : e; }

static const ug_fmt br_elems[] = {UG_E4M3, UG_E5M2, UG_E3M2, UG_E2M3, UG_E2M1};

UG_CASE(formats, e8m0_mpfr)
{
    ug_point(t, "e8m0: all 256 codes against MPFR");
    int bad = 0;
    mpfr_t m;
    mpfr_init2(m, 8);
    for (unsigned c = 0; c < 255; c++) {
        mpfr_set_ui_2exp(m, 1, (long)c - 127, MPFR_RNDN);
        double want = mpfr_get_d(m, MPFR_RNDN), got = ug_e8m0_decode((uint8_t)c);
        if (got != want && bad++ < 4) UG_EXPECT_MSG(0, "e8m0 0x%02x: %a, MPFR %a", c, got, want);
        if (ug_scale_decode(UG_SCALE_E8M0, c) != want && bad++ < 4)
            UG_EXPECT_MSG(0, "ug_scale_decode(e8m0, 0x%02x) != %a", c, want);
    }
    mpfr_clear(m);
    UG_EXPECT_MSG(isnan(ug_e8m0_decode(0xff)), "0xFF is not NaN");
    UG_EXPECT_MSG(bad == 0, "%d E8M0 codes differ from MPFR", bad);
    UG_EXPECT(ug_e8m0_decode(0) == 0x1p-127 && ug_e8m0_decode(127) == 1.0 &&
              ug_e8m0_decode(254) == 0x1p127);
}

typedef struct br_tally {
    long tried, bad;
} br_tally;

/* Every rule's scale for block maximum a, against the references. */
static void br_check_amax(ug_t *t, ug_fmt elem, double a, br_tally *ta)
{
    const ug_format *E = ug_format_of(elem);
    bool special = isnan(a) || isinf(a);
    /* OCP */
    ug_scale s = ug_scale_of(UG_SRULE_OCP, elem, UG_SCALE_E8M0, a, 0);
    long want = special ? -1 : a == 0 ? 0 : clamp_e8m0(mp_floor_log2(a) - E->emax) + 127;
    ta->tried++;
    if ((want < 0 ? s.code != 0xff : s.code != (uint32_t)want) && ta->bad++ < 6)
        UG_EXPECT_MSG(0, "ocp %s amax %a: scale 0x%02x, want 0x%02lx", E->name, a, s.code,
                      want < 0 ? 0xffl : want);
    /* CEIL */
    s = ug_scale_of(UG_SRULE_CEIL, elem, UG_SCALE_E8M0, a, 0);
    want = special ? -1 : a == 0 ? 0 : clamp_e8m0(mp_ceil_log2_ratio(a, E->max)) + 127;
    ta->tried++;
    if ((want < 0 ? s.code != 0xff : s.code != (uint32_t)want) && ta->bad++ < 6)
        UG_EXPECT_MSG(0, "ceil %s amax %a: scale 0x%02x, want 0x%02lx", E->name, a, s.code,
                      want < 0 ? 0xffl : want);
    if (elem != UG_E4M3) return;
    /* DeepSeek: RN_f32(amax / 448), binary32's precision and subnormals */
    s = ug_scale_of(UG_SRULE_AMAX, elem, UG_SCALE_F32, a, 0);
    double w = special ? NAN : mp_round_div(24, -126, a, 448.0);
    ta->tried++;
    if (!(s.value == w || (isnan(w) && isnan(s.value) && s.code == 0x7fc00000u)) && ta->bad++ < 6)
        UG_EXPECT_MSG(0, "amax rule: amax %a: scale %a (0x%08x), want %a", a, s.value, s.code, w);
    /* NVFP4, two tensor maxima: the block's own (its blocks reach 448) and 4x it */
    for (int m = 1; m <= 4; m *= 4) {
        double at = a * m, T = ug_nvfp4_tensor_scale(at);
        double wt = special ? NAN : mp_round_div(24, -126, at, 2688.0);
        ta->tried++;
        if (!(T == wt || (isnan(T) && isnan(wt))) && ta->bad++ < 6)
            UG_EXPECT_MSG(0, "nvfp4 tensor scale of %a: %a, want %a", at, T, wt);
        s = ug_scale_of(UG_SRULE_NVFP4, UG_E2M1, UG_SCALE_E4M3, a, T);
        double wb = special || isnan(wt) ? NAN : wt == 0 || a == 0 ? 0.0
                                                 : mp_round_div(4, -6, a, 6.0 * wt);
        if (wb > 448.0) wb = 448.0; /* the block scale saturates */
        ta->tried++;
        if (!(s.value == wb || (isnan(wb) && s.code == 0x7f)) && ta->bad++ < 6)
            UG_EXPECT_MSG(0, "nvfp4 block scale: amax %a, tensor %a: %a (0x%02x), want %a", a, T,
                          s.value, s.code, wb);
    }
}

UG_CASE(formats, scale_rules)
{
    br_tally ta = {0, 0};
    for (size_t i = 0; i < sizeof br_elems / sizeof br_elems[0]; i++) {
        ug_fmt elem = br_elems[i];
        const ug_format *E = ug_format_of(elem);
        ug_point(t, "%s: every power of two, the element max's multiples, neighbours", E->name);
        for (int e = -149; e <= 127; e++) {
            float p2 = ldexpf(1.0f, e), mx = (float)ldexp(E->max, e - E->emax);
            float pts[] = {p2, nextafterf(p2, 0), nextafterf(p2, INFINITY), mx,
                           nextafterf(mx, 0), nextafterf(mx, INFINITY), 1.5f * p2};
            for (size_t j = 0; j < sizeof pts / sizeof pts[0]; j++)
                if (pts[j] > 0 && isfinite(pts[j])) br_check_amax(t, elem, pts[j], &ta);
        }
        double specials[] = {0.0, NAN, INFINITY, 0x1p-149, 0x1.fffffcp-127, 0x1.fffffep127};
        for (size_t j = 0; j < sizeof specials / sizeof specials[0]; j++)
            br_check_amax(t, elem, specials[j], &ta);
        uint64_t seed = 0x5eedb10c + i;
        for (int j = 0; j < 20000; j++) { /* random binary32 maxima over the whole range */
            uint32_t u = (uint32_t)br_rng(&seed) & 0x7fffffffu;
            float a;
            memcpy(&a, &u, sizeof a);
            if (isfinite(a)) br_check_amax(t, elem, a, &ta);
        }
    }
    UG_EXPECT_MSG(ta.bad == 0, "%ld of %ld scales differ from the references", ta.bad, ta.tried);
    ug_note(t, "%ld scales compared", ta.tried);
    /* the documented cases by hand: e4m3's emax is 8, e2m1's 2 */
    ug_point(t, "by hand: OCP and CEIL at 448 and 449, NVFP4 and DeepSeek at 448");
    UG_EXPECT(ug_scale_of(UG_SRULE_OCP, UG_E4M3, UG_SCALE_E8M0, 448, 0).code == 127);
    UG_EXPECT(ug_scale_of(UG_SRULE_CEIL, UG_E4M3, UG_SCALE_E8M0, 448, 0).code == 127);
    UG_EXPECT(ug_scale_of(UG_SRULE_CEIL, UG_E4M3, UG_SCALE_E8M0, 449, 0).code == 128);
    UG_EXPECT(ug_scale_of(UG_SRULE_OCP, UG_E4M3, UG_SCALE_E8M0, 511, 0).code == 127);
    UG_EXPECT(ug_scale_of(UG_SRULE_OCP, UG_E2M1, UG_SCALE_E8M0, 6, 0).code == 127);
    UG_EXPECT(ug_scale_of(UG_SRULE_CEIL, UG_E2M1, UG_SCALE_E8M0, 6.5, 0).code == 128);
    UG_EXPECT(ug_scale_of(UG_SRULE_AMAX, UG_E4M3, UG_SCALE_F32, 448, 0).code == 0x3f800000u);
    UG_EXPECT(ug_nvfp4_tensor_scale(2688) == 1.0 && ug_nvfp4_tensor_scale(0) == 0);
    UG_EXPECT(ug_scale_of(UG_SRULE_NVFP4, UG_E2M1, UG_SCALE_E4M3, 2688, 1.0).code == 0x7e);
    UG_EXPECT(ug_scale_of(UG_SRULE_NVFP4, UG_E2M1, UG_SCALE_E4M3, 0, 1.0).code == 0);
}

UG_CASE(formats, blockfmt_table)
{
    ug_point(t, "the built-in rows");
    static const struct {
        const char *name;
        ug_fmt elem;
        ug_scale_kind scale;
        int rows, cols;
        ug_scale_rule rule;
    } want[] = {
        {"mxfp8_e4m3", UG_E4M3, UG_SCALE_E8M0, 1, 32, UG_SRULE_OCP},
        {"mxfp8_e5m2", UG_E5M2, UG_SCALE_E8M0, 1, 32, UG_SRULE_OCP},
        {"mxfp6_e3m2", UG_E3M2, UG_SCALE_E8M0, 1, 32, UG_SRULE_OCP},
        {"mxfp6_e2m3", UG_E2M3, UG_SCALE_E8M0, 1, 32, UG_SRULE_OCP},
        {"mxfp4", UG_E2M1, UG_SCALE_E8M0, 1, 32, UG_SRULE_OCP},
        {"nvfp4", UG_E2M1, UG_SCALE_E4M3, 1, 16, UG_SRULE_NVFP4},
        {"fp8_1x128", UG_E4M3, UG_SCALE_F32, 1, 128, UG_SRULE_AMAX},
        {"fp8_128x128", UG_E4M3, UG_SCALE_F32, 128, 128, UG_SRULE_AMAX},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const ug_blockfmt *B = ug_blockfmt_by_name(want[i].name);
        UG_EXPECT_MSG(B && B->elem == want[i].elem && B->scale == want[i].scale &&
                          B->block_rows == want[i].rows && B->block_cols == want[i].cols &&
                          B->rule == want[i].rule &&
                          B->tensor_scale == (want[i].rule == UG_SRULE_NVFP4),
                      "row %s", want[i].name);
    }
    UG_EXPECT(ug_blockfmt_count() >= 8 && ug_blockfmt_by_name("mxfp9") == NULL);
    UG_EXPECT(ug_scale_rule_parse("ceil") == UG_SRULE_CEIL &&
              ug_scale_rule_parse("floor") == UG_SRULE_COUNT);

    ug_point(t, "elements given a scale against MPFR, random inputs");
    uint64_t seed = 0xe1e3;
    long bad = 0, tried = 0;
    for (size_t i = 0; i < sizeof br_elems / sizeof br_elems[0]; i++) {
        const ug_format *E = ug_format_of(br_elems[i]);
        for (int j = 0; j < 20000; j++) {
            double x = ldexp((double)(br_rng(&seed) >> 40) - (1 << 23), -(int)(br_rng(&seed) % 40));
            double s = j & 1 ? ldexp(1.0, (int)(br_rng(&seed) % 40) - 30) /* E8M0 */
                             : (double)(float)ldexp((double)(br_rng(&seed) >> 40), -30);
            if (s == 0) continue;
            double w = mp_round_div(E->p, E->emin, x, s);
            if (fabs(w) > E->max) w = copysign(E->max, w);
            double got = ug_blockfmt_elem_of(br_elems[i], x, s);
            tried++;
            if (got != w && bad++ < 4)
                UG_EXPECT_MSG(0, "%s: x %a, scale %a: %a, MPFR %a", E->name, x, s, got, w);
        }
    }
    UG_EXPECT_MSG(bad == 0, "%ld of %ld elements differ from MPFR", bad, tried);
    /* quotients whose binary64 rounding lands on a binary32 midpoint m while the exact one does
     * not: only the remainder's sign says which side it is on (x = RN64(m d), d of 53 bits) */
    long ties = 0, tie_bad = 0;
    for (int j = 0; j < 4000; j++) {
        double m = 1 + (double)(2 * (br_rng(&seed) >> 41) + 1) * 0x1p-24;
        double d = 1 + (double)(br_rng(&seed) >> 12) * 0x1p-52, x = m * d;
        if (x / d != m || fma(-m, d, x) == 0) continue;
        ties++;
        double w = mp_round_div(24, -126, x, d), got = ug_div_round(UG_F32, x, d, false);
        if (got != w && tie_bad++ < 4)
            UG_EXPECT_MSG(0, "%a / %a to binary32: %a, MPFR %a", x, d, got, w);
    }
    UG_EXPECT_MSG(tie_bad == 0 && ties >= 500, "%ld of %ld near-midpoint quotients differ (want "
                  ">= 500 tried)", tie_bad, ties);
    UG_EXPECT(ug_blockfmt_elem_of(UG_E2M1, 1.0, 0.0) == 0 && isnan(ug_blockfmt_elem_of(UG_E2M1, 1, NAN)));

    ug_point(t, "the exact value of a stored element");
    const ug_blockfmt *nv = ug_blockfmt_by_name("nvfp4"), *mx = ug_blockfmt_by_name("mxfp4");
    /* e2m1 0x7 = 6, e4m3 0x7e = 448, tensor 0x1.000002p-3: 6 * 448 * (1 + 2^-23) / 8 exactly */
    UG_EXPECT(nv && ug_blockfmt_value(nv, 0x7, 0x7e, 0x1.000002p-3) == 336.0 * (1 + 0x1p-23));
    UG_EXPECT(mx && ug_blockfmt_value(mx, 0xf, 0, 0) == -6.0 * 0x1p-127);
    UG_EXPECT(mx && isnan(ug_blockfmt_value(mx, 0x1, 0xff, 0)));

    ug_point(t, "the registration hook's refusals");
    char err[200] = "";
    ug_blockfmt row = *ug_blockfmt_by_name("mxfp4");
    UG_EXPECT_MSG(ug_blockfmt_register(&row, err, sizeof err) < 0 && strstr(err, "taken"),
                  "a second mxfp4: %s", err);
    row.name = "br_bad_rule";
    row.rule = UG_SRULE_AMAX;
    UG_EXPECT_MSG(ug_blockfmt_register(&row, err, sizeof err) < 0 && strstr(err, "rule"),
                  "an AMAX rule on an E8M0 scale: %s", err);
    row.rule = UG_SRULE_OCP;
    row.elem = UG_F16;
    UG_EXPECT_MSG(ug_blockfmt_register(&row, err, sizeof err) < 0 && strstr(err, "element"),
                  "f16 elements: %s", err);
    UG_EXPECT(ug_blockfmt_by_name("br_bad_rule") == NULL);
}
