/*
 * oracle_attention.c - the attention reference (oracle/attention/exact_attention.h) proved correctly
 * rounded and its two paths equal:
 *   independent   every record of small heads against an independent MPFR evaluation at 4000
 *                 bits (round-to-nearest at each step, the textbook formula, no intervals, no
 *                 shift: its error is below 2^-3900 relative), rounded by the tests' own RN32 /
 *                 RD32 (tests/mpfr_round.h); the enclosures checked to contain that value at
 *                 24 .. 256 bits;
 *   rows          attention with d = 1, q = 1, scale 1, V = the identity is the softmax of the
 *                 logits K (O_ij = p_j) and lse their log-sum-exp: every record equals the row
 *                 references' (oracle/rows/transcend.c, proven in tests/oracle_rows.c), on
 *                 random rows and on the hard-to-round and near-tie rows of those tests;
 *   crafted       exact results (one key: O = V, lse = the score; equal scores whose V average
 *                 is a binary32 midpoint: a tie of exp, rounded to even), signed zeros in V
 *                 (one key: -0 stays -0), causal rows that see no key (O NaN, lse -inf),
 *                 special values, scores that need 150 bits;
 *   diff          the fast path against MPFR on random heads of normal, uniform, bfloat16,
 *                 large-logit (outlier channels, scores >= 80) and near-uniform inputs, causal
 *                 and not, every record bit for bit (ug_exact_equal): the fast path must decide
 *                 nearly all rows itself;
 *   undecided     a cap of 64 bits (the residual needs ~110): reported, recorded NaN; a cap of
 *                 128 bits: decided at the cap itself, the default's records;
 *   mutant_bound  the fast path deciding at 2^-80 times its proven bound: records must differ.
 */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "base/sys.h"
#include "harness/run/ug.h"
#include "oracle/attention/exact_attention.h"
#include "oracle/rows/transcend.h"
#include "tests/mpfr_round.h"
#include "tests/oracle_diff.h"

enum { REF_PREC = 4000 };

/* ---- the independent evaluation --------------------------------------------------------------- */

/* O_ij (j < dv) or lse_i (j == dv) at 4000 bits: scores by straight MPFR multiply-adds (exact
 * at this precision for binary32 inputs whose products lie within 2^3900 of each other). */
static void ref_output(const float *Q, const float *K, const float *V, const ug_shape *shp,
                       const ug_opts *opt,
                       size_t i, size_t j, mpfr_t y)
{
    size_t keys = ug_attn_keys(shp, opt, i);
    mpfr_t s, e, S, N, t;
    mpfr_inits2(REF_PREC, s, e, S, N, t, (mpfr_ptr)0);
    mpfr_set_zero(S, 1);
    mpfr_set_zero(N, 1);
    for (size_t k = 0; k < keys; k++) {
        mpfr_set_zero(s, 1);
        for (size_t u = 0; u < shp->dim[2]; u++) {
            mpfr_set_flt(t, Q[i * shp->dim[2] + u], MPFR_RNDN);
            mpfr_mul_d(t, t, K[k * shp->dim[2] + u], MPFR_RNDN);
            mpfr_add(s, s, t, MPFR_RNDN);
        }
        mpfr_mul_d(s, s, ug_attn_scale(shp, opt), MPFR_RNDN);
        mpfr_exp(e, s, MPFR_RNDN);
        mpfr_add(S, S, e, MPFR_RNDN);
        if (j < shp->dim[3]) {
            mpfr_mul_d(t, e, V[k * shp->dim[3] + j], MPFR_RNDN);
            mpfr_add(N, N, t, MPFR_RNDN);
        }
    }
    if (j < shp->dim[3]) mpfr_div(y, N, S, MPFR_RNDN);
    else mpfr_log(y, S, MPFR_RNDN);
    mpfr_clears(s, e, S, N, t, (mpfr_ptr)0);
}

static bool rec_matches(const ug_exact *e, mpfr_srcptr y, char *why, size_t len)
{
    mpfr_t d;
    mpfr_init2(d, REF_PREC);
    double h = mpfr_get_d(y, MPFR_RNDN);
    mpfr_sub_d(d, y, h, MPFR_RNDN);
    double l = mpfr_get_d(d, MPFR_RNDN);
    mpfr_clear(d);
    float rn = round32(y, MPFR_RNDN), rd = round32(y, MPFR_RNDD);
    snprintf(why, len, "record hi %a lo %a rn %a rd %a, reference %a %a %a %a", e->hi, e->lo,
             (double)e->rn, (double)e->rd, h, l, (double)rn, (double)rd);
    return e->cls == UG_X_FINITE && e->hi == h && e->lo == l && e->rn == rn && e->rd == rd;
}

/* Every record of the head (both paths) against the reference, and the enclosures. */
static long check_head(ug_t *t, const char *what, const float *Q, const float *K, const float *V,
                       const ug_shape *shp, const ug_opts *opt)
{
    size_t L = shp->dim[0], dv = shp->dim[3];
    ug_exact *O = ug_xcalloc(L * dv, sizeof *O), *lse = ug_xcalloc(L, sizeof *lse);
    ug_exact *Of = ug_xcalloc(L * dv, sizeof *Of), *lf = ug_xcalloc(L, sizeof *lf);
    double *lo = ug_xcalloc(dv + 1, sizeof *lo), *hi = ug_xcalloc(dv + 1, sizeof *hi);
    ug_exact_attention_mpfr(Q, K, V, shp, opt, O, lse);
    ug_exact_attention_fast(Q, K, V, shp, opt, Of, lf);
    mpfr_t y;
    mpfr_init2(y, REF_PREC);
    long bad = 0, checked = 0;
    char why[300];
    for (size_t i = 0; i < L; i++) {
        if (!ug_attn_keys(shp, opt, i)) continue;
        for (size_t j = 0; j <= dv; j++) {
            ref_output(Q, K, V, shp, opt, i, j, y);
            const ug_exact *m = j < dv ? &O[i * dv + j] : &lse[i], *f = j < dv ? &Of[i * dv + j] : &lf[i];
            checked++;
            if (!rec_matches(m, y, why, sizeof why) && ++bad <= 5)
                ug_note(t, "%s row %zu %s%zu: MPFR %s", what, i, j < dv ? "O " : "lse", j, why);
            if (!rec_matches(f, y, why, sizeof why) && ++bad <= 5)
                ug_note(t, "%s row %zu %s%zu: fast %s", what, i, j < dv ? "O " : "lse", j, why);
        }
        for (long p = 24; p <= 256; p *= 2) {
            ug_attn_enclose_testing(Q, K, V, shp, opt, i, p, lo, hi);
            for (size_t j = 0; j <= dv; j++) {
                ref_output(Q, K, V, shp, opt, i, j, y);
                if (!(mpfr_cmp_d(y, lo[j]) >= 0 && mpfr_cmp_d(y, hi[j]) <= 0) && ++bad <= 5)
                    ug_note(t, "%s row %zu output %zu at %ld bits: [%a, %a] misses %a", what, i,
                            j, p, lo[j], hi[j], mpfr_get_d(y, MPFR_RNDN));
            }
        }
    }
    UG_EXPECT_MSG(bad == 0, "%s: %ld of %ld records (or enclosures) wrong", what, bad, checked);
    mpfr_clear(y);
    free(O);
    free(lse);
    free(Of);
    free(lf);
    free(lo);
    free(hi);
    return checked;
}

static double unif(drng *r) { return (double)(od_r64(r) >> 11) * 0x1p-53; }
static double normal(drng *r)
{
    double u = unif(r), v = unif(r);
    return sqrt(-2 * log(u + 0x1p-60)) * cos(2 * M_PI * v);
}
static float to_bf16(float x) /* round to nearest even, the bfloat16 value as binary32 */
{
    uint32_t b;
    memcpy(&b, &x, 4);
    b = (b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000u;
    memcpy(&x, &b, 4);
    return x;
}

/* Input kinds of the random heads. */
enum { D_NORMAL, D_UNIFORM, D_BF16, D_OUTLIER, D_FLAT, D_WIDE, D_NKINDS };
static const char *dname[] = {"normal", "uniform", "bf16 normal", "outlier channels (scores >= 80)",
                              "near-uniform", "wide exponents"};

static void fill(drng *r, int kind, float *x, size_t n, size_t d, bool is_k)
{
    for (size_t a = 0; a < n; a++) {
        float v;
        switch (kind) {
        case D_UNIFORM: v = (float)(2 * unif(r) - 1); break;
        case D_BF16: v = to_bf16((float)normal(r)); break;
        case D_OUTLIER: /* channel 0 large in q and k: every score >= 80 before the spread */
            v = (float)normal(r);
            if (d && a % d == 0) v = (float)((is_k ? 9.5 : 9.5) * sqrt((double)d) + normal(r));
            break;
        case D_FLAT: v = (float)(1e-3 * normal(r)); break;
        case D_WIDE: v = (float)ldexp(normal(r), (int)od_rbelow(r, 50) - 45); break;
        default: v = (float)normal(r); break;
        }
        x[a] = v;
    }
}

UG_CASE(oracle_attention, independent)
{
    drng r = od_drng_make(t, "oracle_attention/independent");
    float Q[6 * 16], K[24 * 16], V[24 * 5];
    long n = 0;
    for (int kind = 0; kind < D_NKINDS; kind++)
        for (int rep = 0; rep < 3; rep++) {
            ug_shape shp = {{1 + od_rbelow(&r, 6), 1 + od_rbelow(&r, 24), 1 + od_rbelow(&r,
                                           16), 1 + od_rbelow(&r, 5)}, 1, 1, 1};
            ug_opts opt = {0, (rep == 1) ? UG_OPT_CAUSAL : 0u};
            opt.scale = ug_attn_scale_default(shp.dim[2]);
            fill(&r, kind, Q, shp.dim[0] * shp.dim[2], shp.dim[2], false);
            fill(&r, kind, K, shp.dim[1] * shp.dim[2], shp.dim[2], true);
            fill(&r, kind == D_OUTLIER ? D_NORMAL : kind, V, shp.dim[1] * shp.dim[3], 0, false);
            n += check_head(t, dname[kind], Q, K, V, &shp, &opt);
        }
    ug_note(t, "%ld records of 18 random heads equal the 4000-bit evaluation", n);
}

/* d = 1, q = 1, scale 1, V = I: O_ij = softmax(K)_j, lse = logsumexp(K). */
static long check_as_rows(ug_t *t, const char *what, const float *x, size_t n, bool fast)
{
    ug_shape shp = {{1, n, 1, n}, 1, 1, 1};
    ug_opts opt = {1.0f, 0u};
    float q = 1, *V = ug_xcalloc(n * n, sizeof *V);
    for (size_t k = 0; k < n; k++) V[k * n + k] = 1;
    ug_exact *O = ug_xcalloc(n, sizeof *O), *rs = ug_xcalloc(n, sizeof *rs), lse, rl;
    if (fast) ug_exact_attention_fast(&q, x, V, &shp, &opt, O, &lse);
    else ug_exact_attention_mpfr(&q, x, V, &shp, &opt, O, &lse);
    ug_exact_softmax_row_mpfr(x, n, rs);
    ug_exact_logsumexp_row_mpfr(x, n, &rl);
    long bad = 0;
    for (size_t j = 0; j <= n; j++) {
        const ug_exact *a = j < n ? &O[j] : &lse, *b = j < n ? &rs[j] : &rl;
        bool same = a->cls == b->cls && (a->cls != UG_X_FINITE ||
                                         (a->hi == b->hi && a->lo == b->lo && a->rn == b->rn &&
                                          a->rd == b->rd));
        if (!same && ++bad <= 3)
            ug_note(t, "%s (%s, n %zu) output %zu: attention hi %a lo %a rn %a rd %a, row %a %a %a %a",
                    what, fast ? "fast" : "MPFR", n, j, a->hi, a->lo, (double)a->rn,
                    (double)a->rd, b->hi, b->lo, (double)b->rn, (double)b->rd);
    }
    UG_EXPECT_MSG(bad == 0, "%s: %ld records differ from the row references'", what, bad);
    free(V);
    free(O);
    free(rs);
    return (long)n + 1;
}

UG_CASE(oracle_attention, rows)
{
    drng r = od_drng_make(t, "oracle_attention/rows");
    float x[64];
    long n = 0;
    for (int rep = 0; rep < 60; rep++) {
        size_t len = 1 + od_rbelow(&r, 40);
        double sc = rep % 3 == 0 ? 1 : rep % 3 == 1 ? 12 : 100;
        for (size_t j = 0; j < len; j++) x[j] = (float)(sc * normal(&r));
        for (int fast = 0; fast < 2; fast++) n += check_as_rows(t, "random logits", x, len, fast);
    }
    /* tests/oracle_hardround.c's negative binary32 exp arguments h: rows [0, h] */
    static const float hard[] = {-0x1.c1c4b8p-10f, -0x1.e1dbe2p-8f, -0x1.d2259ap+3f, -0x1.6d7b18p+5f};
    for (size_t a = 0; a < sizeof hard / sizeof hard[0]; a++) {
        float y[2] = {0, hard[a]};
        for (int fast = 0; fast < 2; fast++) n += check_as_rows(t, "hard-to-round exp", y, 2, fast);
    }
    /* near ties [0, k 2^-20] (tests/oracle_rows.c's scan region) */
    for (int k = 1; k <= 2048; k++) {
        float y[2] = {0, (float)k * 0x1p-20f};
        n += check_as_rows(t, "near ties", y, 2, true);
    }
    ug_note(t, "%ld records equal the softmax and log-sum-exp row references'", n);
}

/* Both paths' records equal (heads with exact outputs, which a 4000-bit evaluation of the
 * textbook formula cannot give exactly: e / e is 1 - 2^-4000 there). */
static void same_paths(ug_t *t, const char *what, const float *Q, const float *K, const float *V,
                       const ug_shape *shp, const ug_opts *opt)
{
    size_t n = shp->dim[0] * shp->dim[3];
    ug_exact *Of = ug_xcalloc(n + shp->dim[0], sizeof *Of), *Om = ug_xcalloc(n + shp->dim[0],
                              sizeof *Om);
    ug_exact_attention_fast(Q, K, V, shp, opt, Of, Of + n);
    ug_exact_attention_mpfr(Q, K, V, shp, opt, Om, Om + n);
    long bad = 0;
    for (size_t e = 0; e < n + shp->dim[0]; e++) bad += !ug_exact_equal(&Of[e], &Om[e]);
    UG_EXPECT_MSG(bad == 0, "%s: %ld records differ between the paths", what, bad);
    free(Of);
    free(Om);
}

UG_CASE(oracle_attention, crafted)
{
    /* one key: O = V exactly, lse = the score */
    {
        float q[2] = {1.5f, -2}, k[2] = {0.25f, 3}, v[3] = {0.1f, -7, 3e-40f};
        ug_shape shp = {{1, 1, 2, 3}, 1, 1, 1};
        ug_opts opt = {0.5f, 0u};
        same_paths(t, "one key", q, k, v, &shp, &opt);
        ug_exact O[3], l;
        ug_exact_attention_fast(q, k, v, &shp, &opt, O, &l);
        UG_EXPECT_MSG(O[0].rn == 0.1f && O[1].rn == -7 && O[2].rn == 3e-40f && O[0].lo == 0 &&
                          l.hi == -2.8125,
                      "one key: O %a %a %a lse %a", (double)O[0].rn, (double)O[1].rn,
                      (double)O[2].rn, l.hi);
    }
    /* a tie of exp: two equal scores, V = 1 and 1 + 2^-23: O = 1 + 2^-24, a binary32 midpoint
     * (RN32 to even: 1; RD32 1; hi exact), and bfloat16's: 1 + 2^-9 over 1, 1 + 2^-8 */
    {
        float q[1] = {3}, k[2] = {0.5f, 0.5f}, v[2] = {1, 1 + 0x1p-23f};
        ug_shape shp = {{1, 2, 1, 1}, 1, 1, 1};
        ug_opts opt = {1, 0u};
        ug_exact O, l;
        for (int fast = 0; fast < 2; fast++) {
            if (fast) ug_exact_attention_fast(q, k, v, &shp, &opt, &O, &l);
            else ug_exact_attention_mpfr(q, k, v, &shp, &opt, &O, &l);
            UG_EXPECT_MSG(O.hi == 1 + 0x1p-24 && O.lo == 0 && O.rn == 1 && O.rd == 1,
                          "tie (%s): hi %a lo %a rn %a rd %a", fast ? "fast" : "MPFR", O.hi, O.lo,
                          (double)O.rn, (double)O.rd);
        }
        same_paths(t, "a tie of exp", q, k, v, &shp, &opt);
    }
    /* exact outputs of keys of different scores (Lindemann-Weierstrass: attention_mpfr.c's
     * attn_exact_column): column 0 equal V (seed 8's causal row, V = 0x1.02p+0), column 1
     * the two keys of equal score averaging 1 + 2^-23 beside a third key with exactly that
     * value (a binary32 value), column 2 not exact (1 and 3 average 2, the third key 2.5) */
    {
        float q[1] = {1}, k[3] = {0.5f, 0.5f, -0.25f};
        float v[9] = {0x1.02p+0f, 1, 1,      0x1.02p+0f, 1 + 0x1p-22f, 3,
                      0x1.02p+0f, 1 + 0x1p-23f, 2.5f};
        ug_shape shp = {{1, 3, 1, 3}, 1, 1, 1};
        ug_opts opt = {1, 0u};
        ug_exact O[3], l;
        for (int fast = 0; fast < 2; fast++) {
            ug_ziv_stats_reset();
            if (fast) ug_exact_attention_fast(q, k, v, &shp, &opt, O, &l);
            else ug_exact_attention_mpfr(q, k, v, &shp, &opt, O, &l);
            ug_ziv_stats zs = ug_ziv_stats_get();
            UG_EXPECT_MSG(O[0].hi == 0x1.02p+0 && O[0].lo == 0 && O[1].hi == 1 + 0x1p-23 &&
                              O[1].lo == 0 && O[2].cls == UG_X_FINITE && O[2].lo != 0 &&
                              zs.undecided == 0,
                          "exact outputs (%s): O0 %a%+a O1 %a%+a O2 class %d lo %a, %zu undecided",
                          fast ? "fast" : "MPFR", O[0].hi, O[0].lo, O[1].hi, O[1].lo, O[2].cls,
                          O[2].lo, zs.undecided);
        }
        same_paths(t, "exact outputs of different scores", q, k, v, &shp, &opt);
    }
    /* signed zeros in V: one key gives O = V with the zero's sign (causal row 0 here, and S = 1);
     * with more keys a column of -0 alone is -0, one +0 among them +0 (IEEE 754, as sums) */
    {
        float q[2] = {0.5f, -1}, k[2] = {2, 0.75f};
        float v[6] = {-0.0f, 0.0f, -0.0f, /* key 0 */
                      -0.0f, -0.0f, 5};  /* key 1 */
        static const int want_neg[2][3] = {{1, 0, 1}, {1, 0, -1}}; /* -1: not a zero */
        for (int causal = 0; causal < 2; causal++) {
            ug_shape shp = {{2, causal ? 2 : 1, 1, 3}, 1, 1, 1};
            ug_opts opt = {1, causal ? UG_OPT_CAUSAL : 0u};
            for (int fast = 0; fast < 2; fast++) {
                ug_exact O[6], l[2];
                if (fast) ug_exact_attention_fast(q, k, v, &shp, &opt, O, l);
                else ug_exact_attention_mpfr(q, k, v, &shp, &opt, O, l);
                for (size_t i = 0; i < 2; i++)
                    for (size_t j = 0; j < 3; j++) {
                        int w = causal ? want_neg[i][j] : (j == 1 ? 0 : 1); /* S = 1: key 0 */
                        const ug_exact *e = &O[i * 3 + j];
                        if (w < 0) continue;
                        UG_EXPECT_MSG(e->cls == UG_X_FINITE && e->hi == 0 && e->rn == 0 &&
                                          !!signbit(e->hi) == w && !!signbit(e->rn) == w &&
                                          !!signbit(e->rd) == w,
                                      "signed zeros (%s, %s): O[%zu][%zu] hi %a rn %a rd %a, want %s0",
                                      fast ? "fast" : "MPFR", causal ? "causal" : "one key", i, j,
                                      e->hi, (double)e->rn, (double)e->rd, w ? "-" : "+");
                    }
            }
            same_paths(t, causal ? "signed zeros in V, causal" : "signed zeros in V, one key", q, k,
                       v, &shp, &opt);
        }
    }
    /* causal, L > S: the first rows see no key */
    {
        float q[3] = {1, 2, 3}, k[2] = {1, -1}, v[2] = {5, 6};
        ug_shape shp = {{3, 2, 1, 1}, 1, 1, 1};
        ug_opts opt = {1, UG_OPT_CAUSAL};
        ug_exact O[3], l[3];
        ug_exact_attention_fast(q, k, v, &shp, &opt, O, l);
        UG_EXPECT_MSG(O[0].cls == UG_X_NAN && l[0].cls == UG_X_NEGINF && O[1].rn == 5 &&
                          O[2].cls == UG_X_FINITE,
                      "causal L > S: row 0 O class %d lse class %d, row 1 O %a", O[0].cls,
                      l[0].cls, (double)O[1].rn);
        same_paths(t, "causal L > S", q, k, v, &shp, &opt);
    }
    /* a non-finite V_kj changes O_ij alone (exact_attention.h): causal row 0 does not see key 1 */
    {
        float q[2] = {1, 2}, k[2] = {1, -1}, v[2] = {5, NAN};
        ug_shape shp = {{2, 2, 1, 1}, 1, 1, 1};
        ug_opts opt = {1, UG_OPT_CAUSAL};
        ug_exact O[2], l[2];
        ug_exact_attention_fast(q, k, v, &shp, &opt, O, l);
        UG_EXPECT_MSG(O[0].rn == 5 && O[1].cls == UG_X_NAN && l[1].cls == UG_X_FINITE,
                      "NaN in V: row 0 %a, row 1 classes %d %d", (double)O[0].rn, O[1].cls, l[1].cls);
    }
    /* scores of 150 significant bits (products 2^60 apart): exact, not aligned: MPFR rows */
    {
        float q[3] = {0x1p30f, 1, 0x1p-30f}, k[6] = {0x1.000002p-28f, 3, 0x1.fffffep-5f, -0x1p-29f, 1, 1};
        float v[4] = {1, 2, -3, 0.5f};
        ug_shape shp = {{1, 2, 3, 2}, 1, 1, 1};
        ug_opts opt = {1, 0u};
        check_head(t, "wide scores", q, k, v, &shp, &opt);
    }
}

/* ---- the differential test ------------------------------------------------------------------ */

UG_CASE(oracle_attention, diff)
{
    drng r = od_drng_make(t, "oracle_attention/diff");
    long outs = 0, bad = 0;
    size_t f0, m0, f1, m1, fn = 0, mn = 0;
    ug_attn_stats_reset();
    static const size_t Ls[] = {1, 3, 16}, Ss[] = {1, 7, 64, 300}, ds[] = {1, 8, 64, 128};
    for (int kind = 0; kind < D_NKINDS; kind++)
        for (size_t a = 0; a < 3; a++)
            for (size_t b = 0; b < 4; b++) {
                ug_shape shp = {{Ls[a], Ss[b], ds[(a + b + kind) % 4], 1 + od_rbelow(&r,
                                                   16)}, 1, 1, 1};
                ug_opts opt = {0, ((a + b) % 2 == 1) ? UG_OPT_CAUSAL : 0u};
                opt.scale = ug_attn_scale_default(shp.dim[2]);
                float *Q = ug_xcalloc(shp.dim[0] * shp.dim[2],
                                      4), *K = ug_xcalloc(shp.dim[1] * shp.dim[2], 4),
                      *V = ug_xcalloc(shp.dim[1] * shp.dim[3], 4);
                fill(&r, kind, Q, shp.dim[0] * shp.dim[2], shp.dim[2], false);
                fill(&r, kind, K, shp.dim[1] * shp.dim[2], shp.dim[2], true);
                fill(&r, kind == D_OUTLIER ? D_NORMAL : kind, V, shp.dim[1] * shp.dim[3], 0, false);
                size_t n = shp.dim[0] * shp.dim[3];
                ug_exact *Of = ug_xcalloc(n, sizeof *Of), *Om = ug_xcalloc(n, sizeof *Om),
                         *lf = ug_xcalloc(shp.dim[0], sizeof *lf), *lm = ug_xcalloc(shp.dim[0], sizeof *lm);
                ug_attn_stats(&f0, &m0);
                ug_exact_attention_fast(Q, K, V, &shp, &opt, Of, lf);
                ug_attn_stats(&f1, &m1);
                if (kind != D_WIDE) { /* the cases' kinds: the fast path must answer */
                    fn += f1 - f0;
                    mn += m1 - m0;
                }
                ug_exact_attention_mpfr(Q, K, V, &shp, &opt, Om, lm);
                for (size_t e = 0; e < n + shp.dim[0]; e++) {
                    const ug_exact *x = e < n ? &Of[e] : &lf[e - n], *y = e < n ? &Om[e] : &lm[e - n];
                    outs++;
                    if (ug_exact_equal(x, y)) continue;
                    if (++bad <= 5)
                        ug_note(t, "%s L %zu S %zu d %zu dv %zu%s output %zu: fast hi %a lo %a rn %a "
                                   "rd %a S %a; MPFR %a %a %a %a %a",
                                dname[kind], shp.dim[0], shp.dim[1], shp.dim[2], shp.dim[3], ug_attn_causal(&opt) ? " causal" : "", e,
                                x->hi, x->lo, (double)x->rn, (double)x->rd, x->sum_abs, y->hi,
                                y->lo, (double)y->rn, (double)y->rd, y->sum_abs);
                }
                free(Q);
                free(K);
                free(V);
                free(Of);
                free(Om);
                free(lf);
                free(lm);
            }
    ug_note(t, "%ld records compared, %ld differ; of the cases' kinds the fast path decided %zu "
               "rows, passed %zu to MPFR",
            outs, bad, fn, mn);
    UG_EXPECT_MSG(bad == 0, "%ld of %ld records differ between the fast path and MPFR", bad, outs);
    UG_EXPECT_MSG(fn >= 50 * mn, "the fast path decided only %zu rows (%zu to MPFR)", fn, mn);
}

UG_CASE(oracle_attention, undecided)
{
    float q[2] = {1, 0.5f}, k[4] = {0.3f, 1, -2, 0.7f}, v[2] = {1, -3};
    ug_shape shp = {{1, 2, 2, 1}, 1, 1, 1};
    ug_opts opt = {1, 0u};
    ug_exact O, l;
    ug_ziv_set_precisions(32, 64);
    ug_ziv_stats_reset();
    ug_exact_attention_row_mpfr(q, k, v, &shp, &opt, 0, &O, &l);
    ug_ziv_stats zs = ug_ziv_stats_get();
    ug_ziv_set_precisions(0, 0);
    UG_EXPECT_MSG(O.cls == UG_X_NAN && l.cls == UG_X_NAN && zs.undecided == 2,
                  "cap 64 bits: O class %d, lse class %d, %zu undecided", O.cls, l.cls, zs.undecided);
    /* raised from 32 bits, the same records as the default */
    ug_exact O2, l2, O3, l3;
    ug_ziv_set_precisions(32, 0);
    ug_ziv_stats_reset();
    ug_exact_attention_row_mpfr(q, k, v, &shp, &opt, 0, &O2, &l2);
    zs = ug_ziv_stats_get();
    ug_ziv_set_precisions(0, 0);
    ug_exact_attention_row_mpfr(q, k, v, &shp, &opt, 0, &O3, &l3);
    UG_EXPECT_MSG(ug_exact_equal(&O2, &O3) && ug_exact_equal(&l2, &l3) && zs.raised == 2,
                  "raised from 32 bits: records differ or not raised (%zu)", zs.raised);
    /* the cap at 128 bits, the precision this row needs: decided at the cap itself (the
     * closest honest stand-in for an input that needs the default cap's 16384 bits, which no
     * known attention input does), the default's records */
    ug_exact O4, l4;
    ug_ziv_set_precisions(32, 128);
    ug_ziv_stats_reset();
    ug_exact_attention_row_mpfr(q, k, v, &shp, &opt, 0, &O4, &l4);
    zs = ug_ziv_stats_get();
    ug_ziv_set_precisions(0, 0);
    UG_EXPECT_MSG(ug_exact_equal(&O4, &O3) && ug_exact_equal(&l4, &l3) && zs.undecided == 0 &&
                      zs.prec_max == 128,
                  "cap 128 bits: O class %d, lse class %d, %zu undecided, needed %ld bits (want "
                  "decided at 128, the cap)", O4.cls, l4.cls, zs.undecided, zs.prec_max);
}

UG_CASE(oracle_attention, mutant_bound)
{
    drng r = od_drng_make(t, "oracle_attention/mutant");
    ug_shape shp = {{8, 64, 16, 8}, 1, 1, 1};
    ug_opts opt = {0.25f, 0u};
    float Q[8 * 16], K[64 * 16], V[64 * 8];
    long bad = 0, outs = 0;
    ug_exact Of[64], Om[64], lf[8], lm[8];
    ug_attn_fast_set_slack_testing(-80);
    for (int rep = 0; rep < 20; rep++) {
        fill(&r, D_NORMAL, Q, 8 * 16, 16, false);
        fill(&r, D_NORMAL, K, 64 * 16, 16, true);
        for (size_t a = 0; a < 64 * 8; a++) V[a] = (float)(od_rbelow(&r, 5)) - 2; /* exact sums */
        if (rep % 2) /* equal scores: exact, midpoint-prone outputs */
            for (size_t a = 0; a < 64 * 16; a++) K[a] = K[a % 16];
        ug_exact_attention_fast(Q, K, V, &shp, &opt, Of, lf);
        ug_exact_attention_mpfr(Q, K, V, &shp, &opt, Om, lm);
        for (size_t e = 0; e < 64; e++) bad += !ug_exact_equal(&Of[e], &Om[e]), outs++;
        for (size_t e = 0; e < 8; e++) bad += !ug_exact_equal(&lf[e], &lm[e]), outs++;
    }
    ug_attn_fast_set_slack_testing(0);
    ug_note(t, "decided at 2^-80 times the bound: %ld of %ld records differ from MPFR's", bad, outs);
    UG_EXPECT_MSG(bad > 0, "a bound 2^80 too small went unnoticed on %ld outputs", outs);
}

/* Column j of O is sum_k p_ik V_kj with every p_ik > 0: a NaN in V_kj makes O_ij NaN in the rows
 * that see key k and nothing else; infinities give their sign (NaN for both signs); lse never
 * reads V.  Each finite output is checked against an independent head of that column alone
 * (dv = 1, finite values), from both paths; a whole-row NaN rule fails every one of them. */
UG_CASE(oracle_attention, v_special_per_column)
{
    enum { L = 2, S = 3, DV = 4 };
    float q[L * 2] = {0.75f, -1.5f, 2, 0.25f}, k[S * 2] = {1, -0.5f, -1, 2, 0.5f, 3};
    float v[S * DV] = {1.5f, 2, -3, -INFINITY, /* key 0 */
                       -0.25f, NAN, 4, 1,      /* key 1 */
                       3, 0.5f, INFINITY, INFINITY}; /* key 2 */
    for (int causal = 0; causal < 2; causal++) {
        ug_shape shp = {{L, S, 2, DV}, 1, 1, 1};
        ug_opts opt = {0.625f, causal ? UG_OPT_CAUSAL : 0u};
        /* row 0 sees keys 0, 1 when causal (S - L + 1), all three otherwise */
        static const int want[2][2][DV] = {
            {{UG_X_FINITE, UG_X_NAN, UG_X_POSINF, UG_X_NAN}, {UG_X_FINITE, UG_X_NAN, UG_X_POSINF, UG_X_NAN}},
            {{UG_X_FINITE, UG_X_NAN, UG_X_FINITE, UG_X_NEGINF}, {UG_X_FINITE, UG_X_NAN, UG_X_POSINF, UG_X_NAN}},
        };
        for (int fast = 0; fast < 2; fast++) {
            ug_exact O[L * DV], l[L];
            if (fast) ug_exact_attention_fast(q, k, v, &shp, &opt, O, l);
            else ug_exact_attention_mpfr(q, k, v, &shp, &opt, O, l);
            for (size_t i = 0; i < L; i++) {
                for (size_t j = 0; j < DV; j++) {
                    const ug_exact *e = &O[i * DV + j];
                    UG_EXPECT_MSG(e->cls == want[causal][i][j], "%s, %s: O[%zu][%zu] class %d, want %d",
                                  fast ? "fast" : "MPFR", causal ? "causal" : "full", i, j, e->cls,
                                  want[causal][i][j]);
                    if (want[causal][i][j] != UG_X_FINITE) continue;
                    /* the column alone; a value of a key the row does not see replaced by 7 */
                    float col[S];
                    for (size_t c = 0; c < S; c++)
                        col[c] = isfinite(v[c * DV + j]) ? v[c * DV + j] : 7;
                    ug_shape one = {{L, S, 2, 1}, 1, 1, 1};
                    ug_exact Oc[L], lc[L];
                    ug_exact_attention_mpfr(q, k, col, &one, &opt, Oc, lc);
                    UG_EXPECT_MSG(ug_exact_equal(e, &Oc[i]) && ug_exact_equal(&l[i], &lc[i]),
                                  "%s, %s: row %zu column %zu: O %a (alone %a), lse %a (alone %a)",
                                  fast ? "fast" : "MPFR", causal ? "causal" : "full", i, j, e->hi,
                                  Oc[i].hi, l[i].hi, lc[i].hi);
                }
                UG_EXPECT_MSG(l[i].cls == UG_X_FINITE, "%s: lse[%zu] class %d: V is not read by lse",
                              fast ? "fast" : "MPFR", i, l[i].cls);
            }
        }
        same_paths(t, causal ? "non-finite V, causal" : "non-finite V", q, k, v, &shp, &opt);
    }
    /* a NaN in K still poisons the rows that see its key, lse included */
    {
        float kk[S * 2] = {1, -0.5f, -1, 2, NAN, 3};
        ug_shape shp = {{L, S, 2, DV}, 1, 1, 1};
        ug_opts opt = {0.625f, UG_OPT_CAUSAL};
        ug_exact O[L * DV], l[L];
        for (int fast = 0; fast < 2; fast++) {
            if (fast) ug_exact_attention_fast(q, kk, v, &shp, &opt, O, l);
            else ug_exact_attention_mpfr(q, kk, v, &shp, &opt, O, l);
            UG_EXPECT_MSG(O[0].cls == UG_X_FINITE && l[0].cls == UG_X_FINITE &&
                              O[DV].cls == UG_X_NAN && O[DV + 2].cls == UG_X_NAN &&
                              l[1].cls == UG_X_NAN,
                          "%s: NaN in K row 2: row 0 classes %d %d, row 1 %d %d %d",
                          fast ? "fast" : "MPFR", O[0].cls, l[0].cls, O[DV].cls, O[DV + 2].cls,
                          l[1].cls);
        }
    }
}
