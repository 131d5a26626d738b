/*
 * scan_norm_checks.c - the references of scan, exscan, nrm2 and asum (ops/scan.c, ops/norm.c):
 * correct on crafted inputs, and their two paths (superaccumulator, MPFR) identical.
 *
 *   - every prefix of the fast and the MPFR scan equals ug_exact_sum_f32_mpfr of that prefix
 *     (the oracle's own ground truth), bit for bit, inclusive and exclusive, on GenSum,
 *     wide-ranged, signed-zero and special inputs;
 *   - nrm2 against MPFR at 8000 bits (RN64 of the root as hi, RN64 of the rest as lo, RN32 and
 *     RD32): exact roots, binary32 ties (sqrt(S) = 2^24 + 1, the midpoint of 2^24 and 2^24 + 2)
 *     and the near-ties S = m^2 +- 1 on both sides, a binary64 tie (2^53 + 1) and its near-tie,
 *     elements near sqrt(FLT_MAX) and in the subnormal range, random vectors; no rounding
 *     undecided; the fast path equal to the MPFR one;
 *   - nrm2's bound (ops/norm.c) is the derivation's value: Ds (1 + u) + u t at a serial depth;
 *   - asum: the exact sum of |x_i|, both paths;
 *   - each scan output's terms (terms_at): output i of scan has i + 1, of exscan i;
 *   - each CPU scan row's declared depth against the additions its terms really pass through,
 *     found from the kernel's own runs (FPRev's M, -M, ones probe).
 */
#include <math.h>
#include <stdio.h> /* before mpfr.h */
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "harness/inputs/dist.h"
#include "harness/run/ug.h"

/* ---- scans --------------------------------------------------------------------------------- */

static void ug_check_prefixes(ug_t *t, const float *x, size_t n, const char *what)
{
    ug_exact *f = malloc(n * sizeof *f), *m = malloc(n * sizeof *m), r;
    for (int ex = 0; ex < 2; ex++) {
        ug_exact_prefix_f32_fast(x, n, ex, f);
        ug_exact_prefix_f32_mpfr(x, n, ex, m);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n; i++) {
            ug_exact_sum_f32_mpfr(x, ex ? i : i + 1, &r);
            bool ok = ug_exact_equal(&f[i], &r) && ug_exact_equal(&m[i], &r) &&
                      ug_same_f64(f[i].hi, r.hi) && ug_same_f64(m[i].hi, r.hi);
            if (!ok && !bad++) first = i;
        }
        UG_EXPECT_MSG(bad == 0, "%s %s: %zu of %zu prefixes differ from the MPFR sum, first %zu",
                      what, ex ? "exclusive" : "inclusive", bad, n, first);
    }
    free(f);
    free(m);
}

UG_CASE(scan_norm_ref, prefixes)
{
    static const struct {
        const char *name;
        ug_dist d;
        size_t n;
    } ins[] = {
        {"gensum_1e16", UG_GENSUM(1e16), 1000},
        {"gensum_1e30", UG_GENSUM(1e30), 257},
        {"expuniform", UG_EXPUNIFORM(-126, 127), 500},
        {"lognormal_alt", UG_LOGNORMAL(0, 3, .alternate = 1), 300},
        {"specials", UG_NORMAL(0, 1, .special_rate = 0.05, .specials = UG_SP_ALL), 200},
    };
    for (size_t k = 0; k < sizeof ins / sizeof ins[0]; k++) {
        float *x = malloc(ins[k].n * sizeof *x);
        char err[256];
        for (uint32_t trial = 0; trial < 3; trial++) {
            UG_ASSERT_MSG(ug_dist_fill_sum(&ins[k].d, 7, 11, trial, x, ins[k].n, err, sizeof err) == 0,
                          "%s", err);
            ug_check_prefixes(t, x, ins[k].n, ins[k].name);
        }
        free(x);
    }
    /* signed zeros (a prefix of -0 is -0), cancellation to exact zero, one +inf then -inf */
    const float z[] = {-0.0f, -0.0f, 1.0f, -1.0f, -0.0f, 0x1p-149f, -0x1p-149f, 3e38f, 3e38f,
                       -3e38f, INFINITY, 1.0f, -INFINITY, 2.0f, NAN};
    ug_check_prefixes(t, z, sizeof z / sizeof z[0], "crafted");
    ug_exact e[2];
    ug_exact_prefix_f32_fast(z, 2, false, e);
    UG_EXPECT(e[1].hi == 0 && signbit(e[1].hi) && signbit(e[1].rn)); /* -0 + -0 = -0 */
    ug_exact_prefix_f32_fast(z, 1, true, e);
    UG_EXPECT(e[0].hi == 0 && !signbit(e[0].hi) && e[0].cls == UG_X_FINITE); /* empty: +0 */
}

UG_CASE(scan_norm_ref, terms_at)
{
    const ug_op_desc *scan = ug_op_get(UG_OP_SCAN), *ex = ug_op_get(UG_OP_EXSCAN);
    ug_shape s = ug_shape_square(1000);
    UG_ASSERT(scan && ex && scan->shape->terms_at && ex->shape->terms_at);
    UG_EXPECT(ug_op_outputs(scan, &s) == 1000 && ug_op_outputs(ex, &s) == 1000);
    UG_EXPECT(ug_op_terms_at(scan, &s, 0) == 1 && ug_op_terms_at(scan, &s, 999) == 1000);
    UG_EXPECT(ug_op_terms_at(ex, &s, 0) == 0 && ug_op_terms_at(ex, &s, 999) == 999);
    UG_EXPECT(ug_op_terms_at(ug_op_get(UG_OP_SUM), &s, 5) == 1000);
}

/* ---- each scan kernel's depth against an instrumented run ------------------------ */

/* The additions a term really passes through on its way to output i, found from the kernel's
 * own runs (FPRev's probe: Xie et al., "Revealing the order of floating-point summation"):
 * x_j = M, x_l = -M, every other term 1, with M so large that a partial sum holding M absorbs
 * any count of ones (ulp(M) > 2n) and M - M = 0 exactly.  Output i then holds the ones outside
 * the subtree where j and l meet, so that subtree's size is (terms of output i) - out[i].  The
 * ancestors of j are the meeting points of j with the other terms, each of another size: the
 * number of distinct sizes over l is the number of additions j passes through (an addition of
 * an exact zero, as Blelloch's padding, is exact and not one of them).  One run per pair:
 * O(n^2) runs of an O(n log n) kernel, O(n^3) memory (2 bytes each: 35 MB at n = 260). */
static void ug_scan_depth_probe(ug_t *t, const ug_kernel *k, size_t n, bool *tight, size_t *slack)
{
    bool ex = k->op == UG_OP_EXSCAN;
    float *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *out);
    /* sizes[(i * n + j) * n + l]: the size of the subtree where j and l meet in output i */
    unsigned short *sizes = calloc(n * n * n, sizeof *sizes);
    UG_ASSERT(x && out && sizes);
    float M = ldexpf(1.0f, 26 + (int)ug_depth_log2(n + 1));
    for (size_t j = 0; j < n; j++)
        for (size_t l = j + 1; l < n; l++) {
            for (size_t e = 0; e < n; e++) x[e] = 1.0f;
            x[j] = M, x[l] = -M;
            ug_call c;
            memset(&c, 0, sizeof c);
            c.op = k->op;
            c.shape.dim[0] = n;
            ug_call_set_f32(&c, x, NULL, out);
            UG_ASSERT_MSG(ug_kernel_run(k, &c) == 0, "%s: %s", k->id, c.err);
            for (size_t i = ex ? l + 1 : l; i < n; i++) {
                size_t m = ex ? i : i + 1; /* the terms of output i */
                UG_ASSERT_MSG(out[i] == floorf(out[i]) && out[i] >= 0 && out[i] <= (float)m,
                              "%s n=%zu: output %zu of the probe (M at %zu, -M at %zu) is %a, "
                              "not a count of ones", k->id, n, i, j, l, (double)out[i]);
                sizes[(i * n + j) * n + l] = sizes[(i * n + l) * n + j] = (unsigned short)(m - (size_t)out[i]);
            }
        }
    size_t *stamp = calloc(n + 2, sizeof *stamp), mark = 0; /* stamp[size] == mark: seen */
    UG_ASSERT(stamp);
    for (size_t i = 0; i < n; i++) {
        size_t m = ex ? i : i + 1, measured = 0;
        for (size_t j = 0; j < m; j++) {
            size_t distinct = 0;
            mark++;
            for (size_t l = 0; l < m; l++) {
                unsigned short sz = sizes[(i * n + j) * n + l];
                if (l == j || stamp[sz] == mark) continue;
                stamp[sz] = mark;
                distinct++;
            }
            if (distinct > measured) measured = distinct;
        }
        size_t declared = m ? ug_kernel_depth(k, m) : 0;
        UG_EXPECT_MSG(measured <= declared, "%s n=%zu: output %zu: a term passes through %zu "
                      "additions, the row declares a depth of %zu for its %zu terms", k->id, n,
                      i, measured, declared, m);
        if (measured == declared && measured > 0) *tight = true;
        if (measured <= declared && declared - measured > *slack) *slack = declared - measured;
    }
    free(stamp);
    free(sizes);
    free(out);
    free(x);
}

UG_CASE(scan_norm_ref, scan_depth_matches_an_instrumented_run)
{
    /* every CPU scan row: its declared depth D(m) holds every output's real depth; where the
     * derivation (kernels/cpu/scan.c) is exact, some output reaches it, so a depth one short of
     * the truth fails.  Blelloch's 2 ceil(log2 m) (+1) is an upper bound, not exact: its slack
     * is said. */
    static const char *const exact[] = {"scan_serial", "exscan_serial", "scan_hillis_steele",
                                        "scan_tiled_lookback"};
    /* 260: past the look-back's first tile of 256 */
    static const size_t ns[] = {1, 2, 3, 5, 8, 17, 33, 64, 100, 260};
    int rows = 0, exact_rows = 0;
    for (size_t r = 0; r < ug_kernel_count(); r++) {
        const ug_kernel *k = ug_kernel_at(r);
        if ((k->op != UG_OP_SCAN && k->op != UG_OP_EXSCAN) || k->backend != UG_CPU ||
            strcmp(k->variant, "default") != 0)
            continue;
        bool tight = false, is_exact = false;
        size_t slack = 0;
        for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
            ug_scan_depth_probe(t, k, ns[a], &tight, &slack);
        for (size_t e = 0; e < sizeof exact / sizeof exact[0]; e++)
            is_exact |= strcmp(k->name, exact[e]) == 0;
        if (is_exact) {
            UG_EXPECT_MSG(tight, "%s: no output reaches its declared depth at n <= 260, which "
                          "kernels/cpu/scan.c derives as exact", k->id);
            exact_rows++;
        } else {
            ug_note(t, "%s: declared depth within the measured one everywhere, above it by up to "
                    "%zu (an upper bound)", k->id, slack);
        }
        rows++;
    }
    UG_EXPECT_MSG(rows >= 6 && exact_rows == 4, "%d CPU scan rows, %d of them of exact depth",
                  rows, exact_rows);
}

/* ---- nrm2 ---------------------------------------------------------------------------------- */

/* The reference's record against MPFR at 8000 bits: RN64(t) = hi, RN64(t - hi) = lo, RN32,
 * RD32 (binary32's range by mpfr_subnormalize).  8000 bits: the separation argument of
 * ops/norm.c gives 2472 bits; no 8000-bit result lands on a breakpoint unless exact. */
static bool ug_nrm2_matches_mpfr(ug_t *t, const float *x, size_t n, const char *what)
{
    ug_exact f, m;
    int pf = ug_exact_nrm2_f32_fast(x, n, &f), pm = ug_exact_nrm2_f32_mpfr(x, n, &m);
    mpfr_t S, r, d, q;
    mpfr_inits2(8000, S, r, d, (mpfr_ptr)0);
    mpfr_init2(q, 24);
    mpfr_set_zero(S, 1);
    for (size_t i = 0; i < n; i++) {
        mpfr_set_flt(d, x[i], MPFR_RNDN);
        mpfr_fma(S, d, d, S, MPFR_RNDN); /* exact at 8000 bits */
    }
    mpfr_sqrt(r, S, MPFR_RNDN);
    double hi = mpfr_get_d(r, MPFR_RNDN);
    mpfr_sub_d(d, r, hi, MPFR_RNDN);
    double lo = mpfr_get_d(d, MPFR_RNDN) + 0.0;
    float rn, rd;
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    for (int k = 0; k < 2; k++) { /* MPFR's idiom: round to 24 bits, then binary32's range */
        mpfr_rnd_t mode = k ? MPFR_RNDD : MPFR_RNDN;
        int inex = mpfr_set(q, r, mode);
        mpfr_set_emin(-148), mpfr_set_emax(128);
        inex = mpfr_check_range(q, inex, mode);
        mpfr_subnormalize(q, inex, mode);
        *(k ? &rd : &rn) = mpfr_get_flt(q, MPFR_RNDN);
        mpfr_set_emin(emin), mpfr_set_emax(emax);
    }
    mpfr_clears(S, r, d, q, (mpfr_ptr)0);
    bool ok = pf >= 0 && pm >= 0 && f.cls == UG_X_FINITE && ug_exact_equal(&f, &m) &&
              ug_same_f64(f.hi, hi) && ug_same_f64(f.lo, lo) && ug_same_f64(f.rn, rn) &&
              ug_same_f64(f.rd, rd) && f.sum_abs >= fabs(hi);
    UG_EXPECT_MSG(ok, "%s: got hi %a lo %a rn %a rd %a (precision %d/%d), MPFR 8000 bits: hi %a "
                      "lo %a rn %a rd %a", what, f.hi, f.lo, f.rn, f.rd, pf, pm, hi, lo, rn, rd);
    return ok;
}

UG_CASE(scan_norm_ref, nrm2_crafted)
{
    /* sqrt(S) = 5 exactly */
    const float p345[] = {3, 4};
    /* S = (2^24 + 1)^2: 2^48 + 2^25 + 1 = (2^24)^2 + 5792^2 + 84^2 + 10^2 + 3^2 + 2^2: the root
     * is 2^24 + 1, binary32's midpoint of 2^24 and 2^24 + 2 (a tie: RN32 = 2^24, even) */
    const float tie[] = {0x1p24f, 5792, 84, 10, 3, 2};
    /* S = m^2 + 1: just above the midpoint (RN32 = 2^24 + 2) */
    const float above[] = {0x1p24f, 5792, 84, 10, 3, 2, 1};
    /* S = m^2 - 1 = 2^48 + 2^25 = (2^24)^2 + 2 (2^12)^2: just below (RN32 = 2^24) */
    const float below[] = {0x1p24f, 0x1p12f, 0x1p12f};
    /* S = (2^53 + 1)^2 = (2^53)^2 + (2^27)^2 + 1: the root is binary64's midpoint 2^53 + 1:
     * hi = 2^53 (even), lo = 1 exactly; then the same plus 2^-60: hi rounds up */
    const float tie64[] = {0x1p53f, 0x1p27f, 1};
    const float near64[] = {0x1p53f, 0x1p27f, 1, 0x1p-30f};
    /* the ranges: squares that overflow binary32 and binary64-exact ones that underflow it */
    const float big[] = {1.8e19f, 1.7e19f, 3.4e38f, 3.4e38f};
    const float tiny[] = {0x1p-149f, 0x1p-149f, 3e-45f, 1e-40f};
    const float one[] = {-0x1.fffffep127f};
    struct {
        const char *name;
        const float *x;
        size_t n;
        float rn;
    } c[] = {
        {"3,4", p345, 2, 5.0f},           {"tie32", tie, 6, 0x1p24f},
        {"above32", above, 7, 0x1.000002p24f}, {"below32", below, 3, 0x1p24f},
        {"tie64", tie64, 3, 0x1p53f},      {"near64", near64, 4, 0x1p53f},
        {"big", big, 4, NAN},              {"tiny", tiny, 4, NAN},
        {"one", one, 1, 0x1.fffffep127f},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        ug_nrm2_matches_mpfr(t, c[i].x, c[i].n, c[i].name);
        ug_exact e;
        ug_exact_nrm2_f32_fast(c[i].x, c[i].n, &e);
        UG_EXPECT_MSG(isnan(c[i].rn) || e.rn == c[i].rn, "%s: rn %a, want %a", c[i].name, e.rn,
                      c[i].rn);
    }
    ug_exact e;
    ug_exact_nrm2_f32_mpfr(tie64, 3, &e);
    UG_EXPECT_MSG(e.hi == 0x1p53 && e.lo == 1.0, "tie64: hi %a lo %a", e.hi, e.lo);
    ug_exact_nrm2_f32_mpfr(tie, 6, &e);
    UG_EXPECT_MSG(e.hi == 0x1p24 + 1 && e.lo == 0 && e.rd == 0x1p24f, "tie32: hi %a rd %a", e.hi, e.rd);
    /* specials and zero */
    const float sp_nan[] = {1, NAN, INFINITY}, sp_inf[] = {1, -INFINITY, INFINITY}, zero[] = {0, -0.0f};
    ug_exact_nrm2_f32_fast(sp_nan, 3, &e);
    UG_EXPECT(e.cls == UG_X_NAN);
    ug_exact_nrm2_f32_mpfr(sp_inf, 3, &e);
    UG_EXPECT(e.cls == UG_X_POSINF && e.hi == INFINITY);
    ug_exact_nrm2_f32_fast(zero, 2, &e);
    UG_EXPECT(e.cls == UG_X_FINITE && e.hi == 0 && !signbit(e.rn));
}

UG_CASE(scan_norm_ref, nrm2_random)
{
    static const struct {
        const char *name;
        ug_dist d;
    } ins[] = {
        {"normal", UG_NORMAL(0, 1)},
        {"expuniform_wide", UG_EXPUNIFORM(-149, 127)},
        {"lognormal", UG_LOGNORMAL(0, 10)},
        {"near_max", UG_UNIFORM(1e37, 3.4e38)},
    };
    static const size_t ns[] = {1, 2, 7, 100, 1000};
    size_t failed = 0;
    for (size_t k = 0; k < sizeof ins / sizeof ins[0]; k++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
            float *x = malloc(ns[j] * sizeof *x);
            char err[256], what[96];
            for (uint32_t trial = 0; trial < 20; trial++) {
                UG_ASSERT_MSG(ug_dist_fill_sum(&ins[k].d, 3, 5, trial, x, ns[j], err, sizeof err) == 0,
                              "%s", err);
                snprintf(what, sizeof what, "%s n=%zu trial %u", ins[k].name, ns[j], trial);
                failed += !ug_nrm2_matches_mpfr(t, x, ns[j], what);
            }
            free(x);
        }
    ug_note(t, "nrm2: 400 random vectors against MPFR at 8000 bits, %zu differ", failed);
}

/* The bound of a serial nrm2 (depth n - 1: B = gamma_n t^2, Ds = gamma_n t) is
 * (gamma_n (1 + u) + u) t: at n = 1 about 2u t, the root's own rounding half of it. */
UG_CASE(scan_norm_ref, nrm2_bound)
{
    const ug_kernel *k = ug_kernel_find("nrm2_naive");
    UG_ASSERT(k != NULL);
    const double u = 0x1p-24;
    static const size_t ns[] = {1, 1000};
    for (size_t i = 0; i < 2; i++) {
        double n = (double)ns[i], g = n * u / (1 - n * u), norm = 3.0;
        double want = (g * (1 + u) + u) * norm, got = ug_kernel_bound(k, ns[i], norm, norm);
        UG_EXPECT_MSG(fabs(got / want - 1) < 1e-9, "n=%zu: bound %.17g, derivation %.17g", ns[i],
                      got, want);
    }
}

/* ---- asum ---------------------------------------------------------------------------------- */

UG_CASE(scan_norm_ref, asum)
{
    const ug_op_desc *d = ug_op_get(UG_OP_ASUM);
    ug_dist g = ug_gensum(1e16);
    float x[500], a[500];
    char err[256];
    UG_ASSERT(d && ug_dist_fill_sum(&g, 1, 2, 0, x, 500, err, sizeof err) == 0);
    for (int i = 0; i < 500; i++) a[i] = fabsf(x[i]);
    ug_shape s = ug_shape_square(500);
    ug_exact e, f, r;
    ug_oracle_kind was = ug_oracle_selected();
    ug_oracle_select(UG_ORACLE_MPFR);
    d->exact(x, NULL, &s, &e);
    ug_oracle_select(was);
    d->exact_fast(x, NULL, &s, &f);
    ug_exact_sum_f32_mpfr(a, 500, &r);
    UG_EXPECT(ug_exact_equal(&e, &r) && ug_exact_equal(&f, &r) && r.hi > 0 && r.sum_abs >= r.hi);
    const float sp[] = {1, -INFINITY, -2};
    s = ug_shape_square(3);
    d->exact_fast(sp, NULL, &s, &e);
    UG_EXPECT(e.cls == UG_X_POSINF);
}
