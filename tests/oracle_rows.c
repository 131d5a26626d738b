/*
 * oracle_rows.c - the row operations' references (oracle/rows/transcend.h) proved correctly rounded
 * on crafted inputs: an independent MPFR evaluation at 4000 bits (round-to-nearest at every
 * step, the textbook formulas, no intervals: its error is below 2^-3980 relative) gives RN64,
 * the residual's RN64, RN32 and RD32 of every output, and the oracle's records must equal them.
 * The crafted rows: exact results (equal logits, one logit, a row of equal values), huge and tiny
 * logits (88.7 .. 1e30, -1e30), a row whose outputs sit within 2^-40 ulp of a binary32 rounding
 * boundary (found by a scan, below), the Ziv raise forced (starting at 32 bits) and an
 * undecidable cap (64 bits: the binary64 residual needs ~110) reported, never guessed.
 * The enclosures themselves are checked to contain the 4000-bit value at 24 .. 256 bits.
 */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <string.h>

#include "harness/run/ug.h"
#include "ops/norm_params.h"
#include "oracle/rows/transcend.h"
#include "tests/mpfr_round.h"

enum { K_SOFTMAX, K_LSE, K_RMS, K_LAYER, REF_PREC = 4000 };

/* The 4000-bit reference of output i of a row (kind as ug_transcend_enclose_testing). */
static void ref_output(int kind, const float *x, const float *w, const float *b, size_t n,
                       float eps, size_t i, mpfr_t y)
{
    mpfr_t s, t, m;
    mpfr_inits2(REF_PREC, s, t, m, (mpfr_ptr)0);
    mpfr_set_zero(s, 1);
    if (kind == K_SOFTMAX || kind == K_LSE) {
        float mx = -INFINITY;
        for (size_t j = 0; j < n; j++) mx = x[j] > mx ? x[j] : mx;
        mpfr_set_flt(m, mx, MPFR_RNDN);
        for (size_t j = 0; j < n; j++) {
            mpfr_set_flt(t, x[j], MPFR_RNDN);
            mpfr_sub(t, t, m, MPFR_RNDN);
            mpfr_exp(t, t, MPFR_RNDN);
            mpfr_add(s, s, t, MPFR_RNDN);
        }
        if (kind == K_SOFTMAX) {
            mpfr_set_flt(t, x[i], MPFR_RNDN);
            mpfr_sub(t, t, m, MPFR_RNDN);
            mpfr_exp(t, t, MPFR_RNDN);
            mpfr_div(y, t, s, MPFR_RNDN);
        } else {
            mpfr_log(s, s, MPFR_RNDN);
            mpfr_add(y, s, m, MPFR_RNDN);
        }
    } else {
        mpfr_set_zero(m, 1);
        if (kind == K_LAYER) {
            for (size_t j = 0; j < n; j++) mpfr_add_d(m, m, x[j], MPFR_RNDN);
            mpfr_div_ui(m, m, n, MPFR_RNDN);
        }
        for (size_t j = 0; j < n; j++) {
            mpfr_set_flt(t, x[j], MPFR_RNDN);
            mpfr_sub(t, t, m, MPFR_RNDN);
            mpfr_sqr(t, t, MPFR_RNDN);
            mpfr_add(s, s, t, MPFR_RNDN);
        }
        mpfr_div_ui(s, s, n, MPFR_RNDN);
        mpfr_add_d(s, s, eps, MPFR_RNDN);
        mpfr_sqrt(s, s, MPFR_RNDN);
        mpfr_set_flt(t, x[i], MPFR_RNDN);
        mpfr_sub(t, t, m, MPFR_RNDN);
        mpfr_mul_d(t, t, w[i], MPFR_RNDN);
        mpfr_div(y, t, s, MPFR_RNDN);
        if (b) mpfr_add_d(y, y, b[i], MPFR_RNDN);
    }
    mpfr_clears(s, t, m, (mpfr_ptr)0);
}

static void row_exact(int kind, const float *x, const float *w, const float *b, size_t n,
                      ug_exact *e)
{
    if (kind == K_SOFTMAX) ug_exact_softmax_row_mpfr(x, n, e);
    else if (kind == K_LSE) ug_exact_logsumexp_row_mpfr(x, n, e);
    else if (kind == K_RMS) ug_exact_rmsnorm_row(x, w, n, UG_NORM_EPS, e);
    else ug_exact_layernorm_row(x, w, b, n, UG_NORM_EPS, e);
}

/* Every output's record against the reference, and the enclosures' containment. */
static void check_row(ug_t *t, const char *what, int kind, const float *x, const float *w,
                      const float *b, size_t n)
{
    size_t outs = kind == K_LSE ? 1 : n;
    ug_exact e[64];
    double lo[64], hi[64];
    row_exact(kind, x, w, b, n, e);
    mpfr_t y, d;
    mpfr_inits2(REF_PREC, y, d, (mpfr_ptr)0);
    for (size_t i = 0; i < outs; i++) {
        ref_output(kind, x, w, b, n, UG_NORM_EPS, i, y);
        double h = mpfr_get_d(y, MPFR_RNDN);
        mpfr_sub_d(d, y, h, MPFR_RNDN);
        double l = mpfr_get_d(d, MPFR_RNDN);
        float rn = round32(y, MPFR_RNDN), rd = round32(y, MPFR_RNDD);
        UG_EXPECT_MSG(e[i].cls == UG_X_FINITE && e[i].hi == h && e[i].lo == l && e[i].rn == rn &&
                          e[i].rd == rd,
                      "%s, output %zu: record hi %a lo %a rn %a rd %a, reference %a %a %a %a", what,
                      i, e[i].hi, e[i].lo, (double)e[i].rn, (double)e[i].rd, h, l, (double)rn,
                      (double)rd);
    }
    for (long p = 24; p <= 256; p *= 2) {
        ug_transcend_enclose_testing(kind, x, w, b, n, UG_NORM_EPS, p, lo, hi);
        for (size_t i = 0; i < outs; i++) {
            ref_output(kind, x, w, b, n, UG_NORM_EPS, i, y);
            UG_EXPECT_MSG(mpfr_cmp_d(y, lo[i]) >= 0 && mpfr_cmp_d(y, hi[i]) <= 0,
                          "%s, output %zu at %ld bits: [%a, %a] does not contain %.20g", what, i,
                          p, lo[i], hi[i], mpfr_get_d(y, MPFR_RNDN));
        }
    }
    mpfr_clears(y, d, (mpfr_ptr)0);
}

static const float ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
static const float w8[8] = {1.25f, 0.75f, 1, -1.5f, 2, 0.5f, 1.125f, 0.875f};
static const float b8[8] = {0, 0.25f, -0.25f, 0.125f, 0, -0.0625f, 0.5f, 0};

UG_CASE(oracle_rows, crafted)
{
    static const float equal4[] = {3, 3, 3, 3}, equal3[] = {-7, -7, -7}, one[] = {42.5f};
    static const float huge[] = {88.7f, 89, -50, 1000}, tiny[] = {-1e30f, 0, -103, -120};
    static const float pm1e30[] = {1e30f, -1e30f};
    static const float mixed[] = {0.1f, -2.5f, 17, 16.999998f, -0.0f, 1e-30f, 3.5f, -40};
    static const float big_mean[] = {1e4f, 10001, 9999, 10000.5f, 9999.25f, 10002, 9998, 10000};
    static const float zero_row[] = {5, 5, 5, 5};
    struct {
        const char *what;
        int kind;
        const float *x;
        size_t n;
    } rows[] = {
        {"softmax of 4 equal logits (1/4, exact)", K_SOFTMAX, equal4, 4},
        {"softmax of 3 equal logits (1/3)", K_SOFTMAX, equal3, 3},
        {"softmax of one logit (1, exact)", K_SOFTMAX, one, 1},
        {"softmax of huge logits", K_SOFTMAX, huge, 4},
        {"softmax of tiny logits", K_SOFTMAX, tiny, 4},
        {"softmax of mixed logits", K_SOFTMAX, mixed, 8},
        {"logsumexp of one logit (x, exact)", K_LSE, one, 1},
        {"logsumexp of 4 equal logits (3 + ln 4)", K_LSE, equal4, 4},
        {"logsumexp of huge logits", K_LSE, huge, 4},
        {"logsumexp of 1e30 and -1e30 (1e30 + e^-2e30: RN 1e30, lo 0)", K_LSE, pm1e30, 2},
        {"logsumexp of tiny logits", K_LSE, tiny, 4},
        {"logsumexp of mixed logits", K_LSE, mixed, 8},
        {"rmsnorm of mixed values", K_RMS, mixed, 8},
        {"rmsnorm of ones", K_RMS, ones, 8},
        {"layernorm of mixed values", K_LAYER, mixed, 8},
        {"layernorm of mean 1e4", K_LAYER, big_mean, 8},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        check_row(t, rows[r].what, rows[r].kind, rows[r].x, w8, rows[r].kind == K_LAYER ? b8 : NULL,
                  rows[r].n);
    /* softmax([1e30, -1e30]) = (1 - e^-2e30, e^-2e30): beyond any reference precision, so by
     * hand: RN32 1 and RD32 1 - 2^-24 (just below 1), hi 1; the other 0 in every record (below
     * 2^-1075: ug_exact's limitation, oracle.h) with RD32 0 and RN32 0 */
    ug_exact h[2];
    ug_exact_softmax_row(pm1e30, 2, h);
    UG_EXPECT_MSG(h[0].cls == UG_X_FINITE && h[0].hi == 1 && h[0].rn == 1 && h[0].rd == 0x1.fffffep-1f &&
                      h[1].hi == 0 && h[1].rn == 0 && h[1].rd == 0,
                  "softmax([1e30, -1e30]): hi %a rn %a rd %a; hi %a rn %a rd %a", h[0].hi,
                  (double)h[0].rn, (double)h[0].rd, h[1].hi, (double)h[1].rn, (double)h[1].rd);
    /* a row of equal values: every layernorm output is b_i exactly (x_i - mean = 0) */
    ug_exact e[4];
    ug_exact_layernorm_row(zero_row, w8, b8, 4, UG_NORM_EPS, e);
    for (int i = 0; i < 4; i++)
        UG_EXPECT_MSG(e[i].cls == UG_X_FINITE && e[i].hi == b8[i] && e[i].lo == 0 && e[i].rn == b8[i],
                      "layernorm of equal values, output %d: %a, want b = %a", i, e[i].hi, (double)b8[i]);
}

/* The bias is added before the one rounding (y = (x - mean)/sqrt(var + eps) w + b,
 * rounded once).  For each output of a row, t_i = the 4000-bit (x_i - mean)/sqrt(var + eps) w_i
 * and b_i = -RN32(t_i / 2): y_i = t_i + b_i ~ t_i / 2 then lies one
 * binade below t_i, so its rounding grid is half t_i's, and RN32(RN32(t_i) + b_i) (the bias
 * added after rounding) differs from RN32(t_i + b_i) wherever t_i sits in the outer quarters of
 * its own ulp (about half the outputs); RN32(t_i) (the bias ignored) differs from every one.
 * The row must hold outputs of both kinds (the crafted case discriminates, checked here), and
 * the oracle's records must equal the reference's: a reference that dropped b, or rounded
 * before adding it, fails. */
UG_CASE(oracle_rows, layernorm_bias)
{
    static const float x[] = {0.1f, -2.5f, 17, 16.999998f, 3.5f, -40, 0.7f, 9.25f,
                              -1.3f, 5.1f, 12.6f, -0.45f, 2.2f, -7.75f, 0.3f, 30.5f};
    enum { N = sizeof x / sizeof x[0] };
    float w[N], b[N];
    for (size_t i = 0; i < N; i++) w[i] = w8[i % 8];
    mpfr_t tt, y;
    mpfr_inits2(REF_PREC, tt, y, (mpfr_ptr)0);
    size_t after = 0, ignored = 0;
    for (size_t i = 0; i < N; i++) {
        ref_output(K_LAYER, x, w, NULL, N, UG_NORM_EPS, i, tt); /* t_i, no bias */
        mpfr_div_2ui(y, tt, 1, MPFR_RNDN);
        b[i] = -round32(y, MPFR_RNDN);
        float t32 = round32(tt, MPFR_RNDN);
        mpfr_add_d(y, tt, b[i], MPFR_RNDN); /* exact at 4000 bits */
        float once = round32(y, MPFR_RNDN);
        mpfr_set_flt(y, t32, MPFR_RNDN);
        mpfr_add_d(y, y, b[i], MPFR_RNDN);
        float twice = round32(y, MPFR_RNDN);
        after += twice != once;
        ignored += t32 != once;
    }
    ug_note(t, "layernorm with bias, %d outputs: %zu where adding b after rounding t differs, "
            "%zu where ignoring b does", N, after, ignored);
    UG_EXPECT_MSG(after >= 2 && ignored == N, "the crafted biases discriminate too little: %zu "
                  "outputs of %d differ when b is added after rounding, %zu when it is ignored",
                  after, N, ignored);
    check_row(t, "layernorm, biases of -t_i/2", K_LAYER, x, w, b, N);
    mpfr_clears(tt, y, (mpfr_ptr)0);
}

/* Random LayerNorm rows with the operation's own parameters [w | b] (ops/norm_params.h, the
 * draw every case makes): n = 1 .. 48, values normal-ish at means 0, 3 and 1e4 (the one-pass
 * form's adversarial mean) and spreads 1e-3 .. 1e3, every output against the 4000-bit
 * reference with its bias, as the crafted rows. */
UG_CASE(oracle_rows, layernorm_random)
{
    static const size_t sizes[] = {1, 2, 3, 7, 16, 33, 48};
    static const double means[] = {0, 3, 1e4}, spreads[] = {1e-3, 1, 1e3};
    uint64_t st = 0x5eed;
    float x[48], p[96];
    size_t rows = 0;
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t m = 0; m < 3; m++)
            for (size_t sp = 0; sp < 3; sp++) {
                size_t n = sizes[a];
                for (size_t i = 0; i < n; i++) {
                    /* a sum of 4 uniforms in [-1, 1): roughly normal, exactly reproducible */
                    double u = 0;
                    for (int k = 0; k < 4; k++) {
                        st += 0x9e3779b97f4a7c15ull;
                        uint64_t z = st;
                        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
                        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                        u += (double)((z ^ (z >> 31)) >> 11) * 0x1p-52 - 1;
                    }
                    x[i] = (float)(means[m] + spreads[sp] * u);
                }
                ug_norm_fill_params(p, n, true, 0x5eed, (uint32_t)rows);
                char what[96];
                snprintf(what, sizeof what, "layernorm n = %zu, mean %g, spread %g, with bias", n,
                         means[m], spreads[sp]);
                check_row(t, what, K_LAYER, x, p, p + n, n);
                rows++;
            }
    ug_note(t, "%zu random LayerNorm rows with their biases, every output correctly rounded", rows);
}

/* Near-ties: softmax([0, d]) = 1 / (1 + e^d) for d = k 2^-20, k = 1 .. 2^16: the candidates
 * whose 4000-bit value lies closest to a binary32 rounding boundary (a midpoint for RN, a
 * representable number for RD), all within 2^-12 ulp of one, checked like the crafted rows. */
UG_CASE(oracle_rows, near_ties)
{
    mpfr_t y, f, g;
    mpfr_inits2(200, y, f, g, (mpfr_ptr)0);
    float best[4] = {0};
    double dist[4] = {1, 1, 1, 1};
    for (int k = 1; k <= 1 << 16; k++) {
        float x[2] = {0, (float)k * 0x1p-20f};
        mpfr_set_flt(y, x[1], MPFR_RNDN);
        mpfr_exp(y, y, MPFR_RNDN);
        mpfr_add_ui(y, y, 1, MPFR_RNDN);
        mpfr_ui_div(y, 1, y, MPFR_RNDN);
        /* distance to the nearest multiple of half an ulp32, in ulps */
        mpfr_mul_2si(f, y, 25 - (mpfr_get_exp(y) - 1) - 1, MPFR_RNDN); /* y in half-ulp units */
        mpfr_rint(g, f, MPFR_RNDN);
        mpfr_sub(g, f, g, MPFR_RNDN);
        double dd = fabs(mpfr_get_d(g, MPFR_RNDN)) / 2;
        int slot = mpfr_get_si(f, MPFR_RNDN) & 1; /* odd: a midpoint; even: representable */
        int at = slot * 2 + (dd < dist[slot * 2] ? 0 : 1);
        if (dd < dist[at]) {
            dist[at] = dd;
            best[at] = x[1];
        }
    }
    for (int i = 0; i < 4; i++) {
        if (best[i] == 0) continue;
        float x[2] = {0, best[i]};
        char what[96];
        snprintf(what, sizeof what, "softmax([0, %a]), %.2g ulp from a boundary", (double)best[i],
                 dist[i]);
        UG_EXPECT_MSG(dist[i] < 0x1p-12, "%s: the scan found none closer than 2^-12 ulp", what);
        check_row(t, what, K_SOFTMAX, x, NULL, NULL, 2);
    }
    mpfr_clears(y, f, g, (mpfr_ptr)0);
}

/* The Ziv loop: started at 32 bits, every output needs a raise (the binary64 residual alone
 * needs ~110 bits) and is still decided correctly; capped at 64 bits none can be decided, and
 * each is reported and recorded as NaN, never guessed. */
UG_CASE(oracle_rows, ziv)
{
    static const float x[] = {0.1f, -2.5f, 17, 3.5f};
    ug_ziv_stats_reset();
    ug_ziv_set_precisions(32, 0);
    check_row(t, "softmax from 32 bits", K_SOFTMAX, x, NULL, NULL, 4);
    ug_ziv_stats s = ug_ziv_stats_get();
    UG_EXPECT_MSG(s.raised == 4 && s.prec_max >= 128 && s.undecided == 0,
                  "raised %zu of 4, prec_max %ld, undecided %zu", s.raised, s.prec_max, s.undecided);
    ug_ziv_stats_reset();
    ug_ziv_set_precisions(32, 64);
    ug_exact e[4];
    ug_exact_softmax_row_mpfr(x, 4, e);
    s = ug_ziv_stats_get();
    UG_EXPECT_MSG(s.undecided == 4 && e[0].cls == UG_X_NAN && e[3].cls == UG_X_NAN,
                  "capped at 64 bits: undecided %zu, class %d", s.undecided, e[0].cls);
    ug_ziv_set_precisions(0, 0);
    ug_ziv_stats_reset();
    ug_exact_softmax_row_mpfr(x, 4, e);
    s = ug_ziv_stats_get();
    ug_note(t, "default start: %zu outputs, %zu raised, prec_max %ld", s.outputs, s.raised, s.prec_max);
    UG_EXPECT_MSG(s.outputs == 4 && s.prec_max == UG_ZIV_PREC0, "prec_max %ld", s.prec_max);
}

/* Specials (transcend.h's rules). */
UG_CASE(oracle_rows, specials)
{
    const float nan_row[] = {1, NAN, 2}, pinf_row[] = {1, INFINITY}, ninf_row[] = {-INFINITY, 0, 0};
    const float all_ninf[] = {-INFINITY, -INFINITY};
    ug_exact e[3];
    ug_exact_softmax_row(nan_row, 3, e);
    UG_EXPECT(e[0].cls == UG_X_NAN && e[2].cls == UG_X_NAN);
    ug_exact_logsumexp_row(pinf_row, 2, e);
    UG_EXPECT(e[0].cls == UG_X_POSINF);
    ug_exact_softmax_row(ninf_row, 3, e);
    UG_EXPECT(e[0].cls == UG_X_FINITE && e[0].hi == 0 && e[1].rn == 0.5f && e[2].hi == 0.5);
    ug_exact_logsumexp_row(all_ninf, 2, e);
    UG_EXPECT(e[0].cls == UG_X_NEGINF);
    ug_exact_rmsnorm_row(nan_row, ones, 3, UG_NORM_EPS, e);
    UG_EXPECT(e[1].cls == UG_X_NAN);
}
