/*
 * oracle_gpu_model.c - the GPU oracle proven on the host: its arithmetic (oracle/gpu_arith.h,
 * oracle/gpu_gemm_arith.h: the very functions the kernels call) piece by piece against the CPU
 * oracle's accumulator (oracle/xacc.h) and rules (special.c, error.c), then its host model
 * (oracle/gpu_model.c: the kernels' decomposition, the GEMM plan and slice layouts) on the whole
 * differential corpus of tests/oracle_diff.c - the same vectors, the same seeds - and on the
 * GEMM corpus (tests/oracle_gpu_gemm.c), against MPFR, sum_abs included, bit for bit.
 * tests/oracle_diff_gpu.c runs the same corpus on the device.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "oracle/gpu_gemm_arith.h"
#include "tests/oracle_diff.h"
#include "tests/oracle_gpu.h"
#include "oracle/special.h"
#include "oracle/xacc.h"

__extension__ typedef unsigned __int128 u128;

/* a += v 2^e exactly (|v| < 2^63; e >= -1074 and v 2^e within binary64's range). */
static void xacc_add_i64(ug_xacc *a, int64_t v, int e)
{
    int64_t lo = v & 0x7fffffff, hi = v >> 31; /* v = hi 2^31 + lo, both exact doubles */
    if (lo)
        ug_xacc_add(a, ldexp((double)lo, e));
    if (hi)
        ug_xacc_add(a, ldexp((double)hi, e + 31));
}

static int same_record(const ug_exact *a, const ug_exact *b)
{
    return a->cls == b->cls && ug_f64_bits(a->hi) == ug_f64_bits(b->hi) &&
           ug_f64_bits(a->lo) == ug_f64_bits(b->lo) && ug_f32_bits(a->rn) == ug_f32_bits(b->rn) &&
           ug_f32_bits(a->rd) == ug_f32_bits(b->rd);
}

/* ---- rounding: limbs read as xacc reads its chunks ------------------------------------------- */

/* limbs += pattern 2^pos (pattern < 2^60), where it fits. */
static void add_bits(int64_t *l, int nl, uint64_t pattern, int pos)
{
    int idx = pos >> 5;
    if (pos < 0 || idx + 2 >= nl)
        return;
    u128 v = (u128)pattern << (pos & 31);
    l[idx] += (uint32_t)v;
    l[idx + 1] += (uint32_t)(v >> 32);
    l[idx + 2] += (int64_t)(uint64_t)(v >> 64);
}

/* Limbs of kind 0-6 and their base: random signed limbs, normalised ones, sparse ones with a
 * huge limb, binary32 and binary64 ties (sometimes broken far below), ties in binary32's
 * subnormal range, the binary32 overflow threshold, exact cancellation. */
static int make_limbs(drng *r, int64_t *l, int nl, int kind)
{
    int base = -600 + (int)od_rbelow(r, 900);
    memset(l, 0, (size_t)nl * sizeof *l);
    switch (kind) {
    case 0:
        for (int i = 0; i < nl; i++)
            l[i] = (int64_t)(od_r64(r) >> 23) - ((int64_t)1 << 40);
        break;
    case 1:
        for (int i = 0; i < nl; i++)
            l[i] = (int64_t)(uint32_t)od_r64(r);
        l[nl - 1] -= (int64_t)(od_r64(r) & 1) << 32;
        break;
    case 2:
        l[od_rbelow(r, (uint32_t)nl)] = (int64_t)(od_r64(r) >> 3) * ((od_r64(r) & 1) ? 1 : -1);
        l[od_rbelow(r, (uint32_t)nl)] += (int64_t)(od_r64(r) >> 33);
        break;
    case 3:
    case 4: { /* (M, half bit) at 24 or 53 bits, msb at pos */
        int prec = kind == 3 ? 24 : 53;
        int top = 32 * nl - 70;
        int msb = prec + 2 + (int)od_rbelow(r, (uint32_t)(top > prec + 3 ? top - prec - 2 : 1));
        uint64_t M = (1ULL << (prec - 1)) | (od_r64(r) & ((1ULL << (prec - 1)) - 1));
        add_bits(l, nl, (M << 1) | 1, msb - prec);
        if (od_rbelow(r, 3) == 0)
            add_bits(l, nl, 1, (int)od_rbelow(r, (uint32_t)(msb - prec)));
        break;
    }
    case 5: /* binary32's subnormal range and its overflow threshold FLT_MAX + 2^103 */
        if (od_rbelow(r, 2)) {
            base = -150 - (int)od_rbelow(r, 3);
            add_bits(l, nl, od_r64(r) >> (40 + od_rbelow(r, 24)), 0);
        } else {
            base = 103 - 32 * (int)od_rbelow(r, 4) - (int)od_rbelow(r, 32);
            add_bits(l, nl, ((((1ULL << 24) - 1) << 1) | od_rbelow(r, 2)), 103 - base);
            if (od_rbelow(r, 2))
                add_bits(l, nl, 1, (int)od_rbelow(r, (uint32_t)(103 - base)));
        }
        break;
    default: { /* x 2^32 in one limb, -x in the next up: zero, or a small remainder */
        int i = (int)od_rbelow(r, (uint32_t)(nl - 1));
        int64_t x = (int64_t)(od_r64(r) >> 34);
        l[i] = x * ((int64_t)1 << 32);
        l[i + 1] = -x;
        if (od_rbelow(r, 2))
            l[od_rbelow(r, (uint32_t)nl)] += (int64_t)od_rbelow(r, 5) - 2;
        break;
    }
    }
    if (od_rbelow(r, 2))
        for (int i = 0; i < nl; i++)
            l[i] = -l[i];
    return base;
}

UG_CASE(oracle_gpu, rounding_matches_xacc)
{
    drng r = od_drng_make(t, "oracle_gpu/rounding");
    long bad = 0, count = 0;
    ug_xacc *a = malloc(sizeof *a);
    UG_ASSERT_MSG(a != NULL, "out of memory");
    ug_xacc_init(a);
    for (long v = 0; v < 300000; v++) {
        int64_t l[UGG_DOT_LIMBS];
        int nl = 4 + (int)od_rbelow(&r, UGG_DOT_LIMBS - 3);
        int base = make_limbs(&r, l, nl, (int)od_rbelow(&r, 7));
        ug_xacc_reset(a);
        for (int i = 0; i < nl; i++)
            xacc_add_i64(a, l[i], 32 * i + base);
        ug_exact g = {0}, x = {0};
        int rg = ugg_fill(l, nl, base, &g), rx = ug_xacc_fill(a, &x);
        double mg = ugg_mag_up(l, nl, base), mx = ug_xacc_mag_up(a);
        count++;
        if (rg != rx || (rg && !same_record(&g, &x)) || ug_f64_bits(mg) != ug_f64_bits(mx)) {
            if (++bad <= 5)
                UG_EXPECT_MSG(0, "#%ld (nl %d, base %d): gpu %d hi=%a lo=%a rn=%a rd=%a up=%a; "
                                 "xacc %d hi=%a lo=%a rn=%a rd=%a up=%a",
                              v, nl, base, rg, g.hi, g.lo, (double)g.rn, (double)g.rd, mg, rx,
                              x.hi, x.lo, (double)x.rn, (double)x.rd, mx);
        }
    }
    free(a);
    ug_note(t, "%ld values rounded, %ld differ from xacc", count, bad);
    UG_EXPECT_MSG(bad == 0, "%ld of %ld roundings differ from xacc", bad, count);
}

/* ---- bins to limbs ----------------------------------------------------------------------- */

UG_CASE(oracle_gpu, bins_to_limbs_exact)
{
    drng r = od_drng_make(t, "oracle_gpu/bins");
    enum { STRIDE_MAX = 3 };
    uint64_t bins[2 * UGG_DOT_WINS * STRIDE_MAX];
    ug_xacc *as = malloc(sizeof *as), *aa = malloc(sizeof *aa);
    UG_ASSERT_MSG(as && aa, "out of memory");
    ug_xacc_init(as);
    ug_xacc_init(aa);
    long bad = 0;
    for (long v = 0; v < 40000; v++) {
        int dot = (int)(v & 1), stride = 1 + (int)od_rbelow(&r, STRIDE_MAX);
        int wins = dot ? UGG_DOT_WINS : UGG_SUM_WINS, nl = dot ? UGG_DOT_LIMBS : UGG_SUM_LIMBS;
        int base = dot ? -UGG_DOT_BIAS : -UGG_SUM_BIAS, kind = (int)od_rbelow(&r, 4);
        ug_xacc_reset(as);
        ug_xacc_reset(aa);
        for (int b = 0; b < 2 * wins; b++) {
            uint64_t x = kind == 0   ? od_r64(&r) >> 3              /* the largest allowed */
                       : kind == 1 ? od_r64(&r) >> (3 + od_rbelow(&r, 61))
                       : kind == 2 ? (od_rbelow(&r, 8) ? 0 : od_r64(&r) >> 20)
                                   : (b & 1 ? (1ULL << 61) - 1 : 0);  /* all negative */
            bins[b * stride] = x;
            int e = 8 * (b >> 1) + base;
            xacc_add_i64(as, (b & 1) ? -(int64_t)x : (int64_t)x, e);
            xacc_add_i64(aa, (int64_t)x, e);
        }
        int64_t sl[UGG_DOT_LIMBS], al[UGG_DOT_LIMBS];
        ugg_bins_to_limbs(bins, stride, wins, sl, al);
        ug_exact g = {0}, x = {0}, ga = {0}, xa = {0};
        int ok = ugg_fill(sl, nl, base, &g) == ug_xacc_fill(as, &x) && same_record(&g, &x) &&
                 ugg_fill(al, nl, base, &ga) == ug_xacc_fill(aa, &xa) && same_record(&ga, &xa);
        for (int i = 0; i + 1 < nl; i++) /* the representation itself: digits of 32 bits */
            ok = ok && sl[i] >= 0 && sl[i] < ((int64_t)1 << 32) && al[i] >= 0 &&
                 al[i] < ((int64_t)1 << 32);
        if (!ok && ++bad <= 5)
            UG_EXPECT_MSG(0, "#%ld (%s, kind %d): limbs give hi=%a abs %a, xacc hi=%a abs %a", v,
                          dot ? "dot" : "sum", kind, g.hi, ga.hi, x.hi, xa.hi);
    }
    free(as);
    free(aa);
    UG_EXPECT_MSG(bad == 0, "%ld bin sets convert wrongly", bad);
}

/* ---- terms ----------------------------------------------------------------------------------- */

/* Every exponent field, several significands, both signs: the sum piece is the value; the
 * product pieces of random pairs are the exact product; the classes follow the CPU's rules. */
UG_CASE(oracle_gpu, terms_are_exact)
{
    drng r = od_drng_make(t, "oracle_gpu/terms");
    long bad = 0;
    for (uint32_t e = 0; e < 256; e++)
        for (int k = 0; k < 64; k++) {
            uint32_t m = k == 0   ? 0
                       : k == 1 ? 0x7fffff
                       : k == 2 ? 1
                                : (uint32_t)od_r64(&r) & 0x7fffff;
            uint32_t bits = (uint32_t)(k & 1) << 31 | e << 23 | m;
            float x = ug_bits_f32(bits);
            int cls = ugg_sum_special(bits);
            int want = isnan(x) ? UGG_T_NAN : x == INFINITY ? UGG_T_POSINF
                     : x == -INFINITY ? UGG_T_NEGINF : UGG_T_FINITE;
            int ok = cls == want;
            if (cls == UGG_T_FINITE) {
                ok = ok && (ugg_sum_not_negzero(bits) != 0) == !(x == 0 && signbit(x));
                uint32_t bin, piece;
                ugg_sum_piece(bits, &bin, &piece);
                ok = ok && (bin >> 1) < UGG_SUM_WINS && piece < (1u << 31) &&
                     ldexp((double)piece, 8 * (int)(bin >> 1) - UGG_SUM_BIAS) == fabs((double)x) &&
                     (bin & 1) == (bits >> 31);
            }
            if (!ok && ++bad <= 5)
                UG_EXPECT_MSG(0, "binary32 %a (0x%08x): wrong class or piece", (double)x, bits);
        }
    for (long v = 0; v < 400000; v++) {
        gen g = od_gen_pick(&r, -160, 127);
        float x = od_gen_f32(&r, &g), y = od_gen_f32(&r, &g);
        if (v % 50 == 0) /* specials and zeros */
            x = v % 200 == 0 ? INFINITY : v % 200 == 50 ? NAN : v % 200 == 100 ? -0.0f : 0.0f;
        if (v % 70 == 0)
            y = v % 140 == 0 ? -INFINITY : 0.0f;
        uint32_t a = ug_f32_bits(x), b = ug_f32_bits(y);
        double p = (double)x * (double)y; /* exact, as the CPU oracle forms it */
        int cls = ugg_dot_special(a, b);
        int want = isnan(p) ? UGG_T_NAN : p == INFINITY ? UGG_T_POSINF
                 : p == -INFINITY ? UGG_T_NEGINF : UGG_T_FINITE;
        int ok = cls == want;
        if (cls == UGG_T_FINITE) { /* (the zero-sign flag matters for finite terms only) */
            uint32_t bin, lo, hi;
            ok = ok && ugg_dot_not_negzero(a, b) == !(p == 0 && signbit(p));
            ugg_dot_pieces(a, b, &bin, &lo, &hi);
            double mag = ldexp((double)lo, 8 * (int)(bin >> 1) - UGG_DOT_BIAS) +
                         ldexp((double)hi, 8 * (int)(bin >> 1) + 32 - UGG_DOT_BIAS);
            ok = ok && (bin >> 1) + 4 < UGG_DOT_WINS && hi < (1u << 23) && mag == fabs(p) &&
                 (p == 0 || (int)(bin & 1) == (p < 0));
        }
        if (!ok && ++bad <= 5)
            UG_EXPECT_MSG(0, "product %a * %a: wrong class or pieces", (double)x, (double)y);
    }
    UG_EXPECT_MSG(bad == 0, "%ld terms decomposed wrongly", bad);
}

/* The special and zero records and the device-side ULP error, against special.c and error.c. */
UG_CASE(oracle_gpu, records_and_errors_match_cpu)
{
    static const int classes[] = {UGG_T_NAN, UGG_T_POSINF, UGG_T_NEGINF};
    static const ug_xclass xcls[] = {UG_X_NAN, UG_X_POSINF, UG_X_NEGINF};
    for (int i = 0; i < 3; i++) {
        ug_exact g, c;
        memset(&g, 0, sizeof g);
        memset(&c, 0, sizeof c);
        ugg_exact_special(&g, classes[i]);
        ug_exact_set_special(&c, xcls[i]);
        UG_EXPECT_MSG(same_record(&g, &c) && ug_f64_bits(g.sum_abs) == ug_f64_bits(c.sum_abs),
                      "special record %d differs from special.c's", i);
    }
    for (int neg = 0; neg < 2; neg++) {
        ug_exact g = {0}, c = {0};
        ugg_exact_zero(&g, neg);
        ug_exact_set_zero(&c, neg);
        UG_EXPECT_MSG(same_record(&g, &c), "zero record (negative %d) differs", neg);
    }
    drng r = od_drng_make(t, "oracle_gpu/errors");
    long bad = 0;
    for (long v = 0; v < 200000; v++) {
        int64_t l[UGG_SUM_LIMBS];
        int base = make_limbs(&r, l, UGG_SUM_LIMBS, (int)od_rbelow(&r, 7));
        ug_exact e;
        memset(&e, 0, sizeof e);
        if (v % 97 == 0)
            ugg_exact_special(&e, classes[v % 3]);
        else if (!ugg_fill(l, UGG_SUM_LIMBS, base, &e))
            ugg_exact_zero(&e, (int)(v & 1));
        double got = (double)e.rn;
        switch (v % 6) {
        case 1: got = nextafterf(e.rn, INFINITY); break;
        case 2: got = e.hi; break;
        case 3: got = v % 12 == 3 ? NAN : INFINITY; break;
        case 4: got = (double)ug_bits_f32((uint32_t)od_r64(&r)); break;
        case 5: got = e.hi + e.lo * 3; break;
        default: break;
        }
        double a = ugg_error_ulp(&e, got), b = ug_error_of(&e, got).ulp;
        if (ug_f64_bits(a) != ug_f64_bits(b) && !(isnan(a) && isnan(b)) && ++bad <= 5)
            UG_EXPECT_MSG(0, "error of %a against hi=%a: device %a, error.c %a", got, e.hi, a, b);
    }
    UG_EXPECT_MSG(bad == 0, "%ld ULP errors differ from error.c's", bad);
}

/* ---- the GEMM plan and the choice of slices -------------------------------------------------- */

/* Every slice pair (s, t) and every k in [0, Kp) is multiplied exactly once, at the weight
 * 2^(7 (S + T - 2 - s - t)), by products within the int32 bound and cuBLAS's alignment. */
UG_CASE(oracle_gpu, gemm_plan_covers_every_pair_once)
{
    static const int kps[] = {16, 4096, 16640, 17008, 140000, 266272};
    long bad = 0;
    for (size_t ki = 0; ki < sizeof kps / sizeof kps[0]; ki++)
        for (int S = 1; S <= UGG_MAX_SLICES; S++)
            for (int T = 1; T <= UGG_MAX_SLICES; T += (kps[ki] > 20000 ? 7 : 1)) {
                int Kp = kps[ki];
                int np = ugg_gemm_plan(S, T, Kp, NULL, 0);
                ugg_gemm_prod *pr = malloc((size_t)np * sizeof *pr);
                uint8_t *seen = calloc((size_t)S * T * Kp, 1);
                UG_ASSERT_MSG(pr && seen, "out of memory");
                int ok = ugg_gemm_plan(S, T, Kp, pr, np) == np;
                for (int p = 0; p < np && ok; p++) {
                    ok = pr[p].acol % UGG_PAD == 0 && pr[p].bcol % UGG_PAD == 0 &&
                         pr[p].klen % UGG_PAD == 0 && pr[p].klen > 0 &&
                         (int64_t)pr[p].klen * 127 * 127 < ((int64_t)1 << 31) &&
                         pr[p].acol + pr[p].klen <= S * Kp && pr[p].bcol + pr[p].klen <= T * Kp;
                    for (int k = 0; k < pr[p].klen && ok; k++) {
                        int s = (pr[p].acol + k) / Kp, ka = (pr[p].acol + k) % Kp;
                        int tt = T - 1 - (pr[p].bcol + k) / Kp, kb = (pr[p].bcol + k) % Kp;
                        ok = ka == kb && pr[p].shift == 7 * (S + T - 2 - s - tt);
                        if (ok)
                            seen[((size_t)s * T + tt) * Kp + ka]++;
                    }
                }
                for (size_t i = 0; i < (size_t)S * T * Kp && ok; i++)
                    ok = seen[i] == 1;
                if (!ok && ++bad <= 5)
                    UG_EXPECT_MSG(0, "plan S=%d T=%d Kp=%d: a pair or k is missed, repeated or "
                                     "misweighted", S, T, Kp);
                free(pr);
                free(seen);
            }
    UG_EXPECT_MSG(bad == 0, "%ld plans wrong", bad);
}

UG_CASE(oracle_gpu, slices_chosen_by_cost)
{
    uint64_t hr[UGG_SLICES_NONE + 1] = {0}, hc[UGG_SLICES_NONE + 1] = {0};
    int S = 0, T = 0;
    hr[5] = 1000; /* every row needs 5, every column 4: exactly that */
    hc[4] = 1000;
    ugg_choose_slices(hr, hc, 1000, 1000, 1000, &S, &T);
    UG_EXPECT_MSG(S == 5 && T == 4, "S=%d T=%d, want 5 and 4", S, T);
    hr[8] = 3; /* three rows need 8 of 4096: left to the fallback, not 8 slices for all */
    hr[5] = 4093;
    hc[4] = 4096;
    ugg_choose_slices(hr, hc, 4096, 4096, 4096, &S, &T);
    UG_EXPECT_MSG(S == 5 && T == 4, "S=%d T=%d, want 5 and 4 (3 rows by the fallback)", S, T);
    memset(hr, 0, sizeof hr); /* a 2 x 2 product needing 8: the slices are cheaper */
    memset(hc, 0, sizeof hc);
    hr[8] = hc[8] = 2;
    ugg_choose_slices(hr, hc, 2, 2, 100, &S, &T);
    UG_EXPECT_MSG(S == 8 && T == 8, "S=%d T=%d, want 8 and 8", S, T);
    hr[8] = 0; /* nothing coverable: one slice, everything by the fallback */
    hr[UGG_SLICES_NONE] = 2;
    ugg_choose_slices(hr, hc, 2, 2, 100, &S, &T);
    UG_EXPECT_MSG(S == 1, "S=%d, want 1 when no row can be covered", S);
}

/* ---- the model on the corpora ---------------------------------------------------------------- */

/* The same streams and counts as tests/oracle_diff.c: the same 750 000 short vectors and 40
 * long ones, through the model, against MPFR. */
UG_CASE(oracle_gpu, model_on_the_differential_corpus)
{
    od_use_gpu(&ug_gpu_oracle_model);
    od_run_short_sum32(t, 400000, "oracle_diff/short_sum_f32");
    od_run_short_dot32(t, 350000, "oracle_diff/short_dot_f32");
    od_run_long(t, "oracle_diff/long_vectors", 40);
    od_use_gpu(NULL);
}

UG_CASE(oracle_gpu, model_edges)
{
    og_run_edges(t, &ug_gpu_oracle_model);
}

UG_CASE(oracle_gpu, model_gemm_corpus)
{
    og_gemm_paths paths;
    og_run_gemm_corpus(t, &ug_gpu_oracle_model, "oracle_gpu/gemm", 90, 1, &paths);
    od_use_gpu(NULL);
    /* every path taken: slices, the fallback, 8 slices, per-pair K pieces */
    UG_EXPECT_MSG(paths.fallback > 0 && paths.fallback < paths.elements,
                  "fallback %zu of %zu elements: one path untested", paths.fallback,
                  paths.elements);
    UG_EXPECT_MSG(paths.max_slices == UGG_MAX_SLICES, "largest slicing %d, want %d",
                  paths.max_slices, UGG_MAX_SLICES);
    UG_EXPECT_MSG(paths.pieces >= 1, "no plan with K pieces");
}
