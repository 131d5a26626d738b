/*
 * norm.c - vector norms of a binary32 vector, one output each: `nrm2` (||x||_2, BLAS snrm2) and
 * `asum` (sum |x_i|, BLAS sasum).
 *
 * nrm2's reference: the square root of the exact sum of squares, rounded once.
 *   1. S = sum x_i^2 exactly.  Each x_i^2 is exact in binary64 (48 significant bits, exponent
 *      in [-298, 256]); the fast path adds them to Neal's superaccumulator (oracle/xacc.h) and
 *      reads its chunks into an MPFR number of 2400 bits (exact: the chunks span 2^-1074 ..
 *      2^1262); the MPFR path is the oracle's exact dot x.x (oracle/exact_mpfr.h).  Same S.
 *   2. t = sqrt(S) by Ziv's strategy: at precision p, [a, b] = [RD_p(t), RU_p(t)] (b = a when
 *      MPFR says the root is exact); hi = RN64 and lo = RN64(t - hi) are decided when both
 *      ends give the same hi and the same lo (RN64 is monotone: every point between gives
 *      them too), else p doubles, from 128 to UG_NRM2_PREC_MAX.  It terminates: t is either
 *      exact at some p (a dyadic root, b = a) or irrational or off every binary64 breakpoint,
 *      and [a, b] shrinks to t.  How far p must go: a breakpoint m (a binary64 midpoint for
 *      hi; hi + a midpoint of lo's binade for lo) is a multiple of 2^-1075, so S - m^2 (S a
 *      multiple of 2^-298) is, if not 0, a multiple of 2^-2150 and |t - m| = |S - m^2| /
 *      (t + m) >= 2^-2150 / (3 t) >= 2^-2472 t (t <= 2^160 for n < 2^64), while [a, b] is at
 *      most 2^(1-p) t wide: p = 4096 decides every case.  A case still undecided (none is
 *      known; tests/scan_norm_checks.c counts them on its crafted inputs) is never guessed:
 *      the record is NaN (only a NaN output passes: every kernel fails that point) and a
 *      message names it on stderr.
 *   3. rn, rd: binary32's roundings of (hi, lo) (base/format.c: hi and lo's sign decide them).
 *   sum_abs = RU64(t): the norm is its own condition (kappa 1); the bound (below) squares it.
 * Specials: any NaN element: NaN; else any infinite element: +inf (the dot x.x's rule).  An
 * all-zero x: +0.
 *
 * nrm2's bound (descriptor field .bound), for a kernel that forms a sum of squares s^ and
 * returns fl(c sqrt(s^)): the kernel's row gives the sum of squares' a-priori bound as a dot of
 * x with itself, B = gamma_{D+1} S2 (kernels/bounds.c, UG_TERMS_PRODUCTS; S2 = RU(t)^2 >= the
 * exact sum of squares; the row's depth D counts, in squared units, every rounding a term
 * passes through: the kernel files derive it), so s^ = S2' with |s^ - t^2| <= B, and
 *     |sqrt(s^) - t| = |s^ - t^2| / (sqrt(s^) + t) <= min(B / t, sqrt(B)) =: Ds
 *     |fl(sqrt(s^)) - t| <= Ds + u (t + Ds) = Ds (1 + u) + u t
 * (one rounding of the root, u = 2^-24; a scaling by a power of two is exact).  It assumes no
 * square overflows or underflows: a naive kernel whose x_i^2 overflows returns +inf (an
 * infinite error: the point fails, a range failure), one whose squares underflow returns too
 * small a norm (its ratio shows it).
 *
 * asum's reference: the exact sum of |x_i| (the selected oracle's sum of the absolute values;
 * fabs is exact), so specials: any NaN: NaN; else any infinity: +inf; the bound is the sum's.
 */
#include <math.h>
#include <stdio.h> /* before mpfr.h: mpfr_fprintf */
#include <mpfr.h>
#include <stdlib.h>

#include "base/sys.h"
#include "oracle/exact_mpfr.h"
#include "oracle/special.h"
#include "oracle/xacc.h"
#include "ops/op.h"

enum { UG_NRM2_PREC_START = 128, UG_NRM2_PREC_MAX = 4096, UG_XACC_MPFR_PREC = 2400 };

/* ---- nrm2's reference -------------------------------------------------------------------- */

/* NaN if any element is NaN, else +inf if any is infinite, else finite. */
static ug_xclass ug_nrm2_class(const float *x, size_t n)
{
    size_t nan = 0, inf = 0;
    for (size_t i = 0; i < n; i++) nan += isnan(x[i]) != 0, inf += isinf(x[i]) != 0;
    return ug_special_class(nan, inf, 0);
}

/* t = sqrt(S), S > 0 exact, into e (hi, lo, rn, rd, sum_abs) by Ziv's strategy (above).
 * Returns the deciding precision, or -1 (e is NaN) when UG_NRM2_PREC_MAX does not decide. */
static int ug_sqrt_record(mpfr_t S, ug_exact *e)
{
    for (mpfr_prec_t p = UG_NRM2_PREC_START; p <= UG_NRM2_PREC_MAX; p *= 2) {
        mpfr_t a, b, d;
        mpfr_inits2(p, a, b, d, (mpfr_ptr)0);
        int inexact = mpfr_sqrt(a, S, MPFR_RNDD);
        mpfr_set(b, a, MPFR_RNDN);
        if (inexact) mpfr_nextabove(b);
        double ha = mpfr_get_d(a, MPFR_RNDN), hb = mpfr_get_d(b, MPFR_RNDN), la = 0, lb = 0;
        bool decided = ha == hb;
        if (decided) {
            /* a - hi, b - hi: exact at p bits (multiples of a's quantum, below hi's half ulp) */
            mpfr_sub_d(d, a, ha, MPFR_RNDN), la = mpfr_get_d(d, MPFR_RNDN) + 0.0;
            mpfr_sub_d(d, b, ha, MPFR_RNDN), lb = mpfr_get_d(d, MPFR_RNDN) + 0.0;
            decided = la == lb;
        }
        if (decided) {
            e->cls = UG_X_FINITE;
            e->hi = ha, e->lo = la;
            e->rn = (float)ug_fmt_round2(UG_F32, ha, la, UG_RN);
            e->rd = (float)ug_fmt_round2(UG_F32, ha, la, UG_RD);
            e->sum_abs = mpfr_get_d(b, MPFR_RNDU);
        }
        mpfr_clears(a, b, d, (mpfr_ptr)0);
        if (decided) return (int)p;
    }
    mpfr_fprintf(stderr, "ulpgate: nrm2: the rounding of sqrt(%.40Rg) is undecided at %d bits: "
                         "the output is graded against NaN (reported, never guessed)\n",
                 S, (int)UG_NRM2_PREC_MAX);
    ug_exact_set_special(e, UG_X_NAN);
    return -1;
}

/* The record from the exact sum of squares S (finite, >= 0). */
static int ug_nrm2_from_S(mpfr_t S, ug_exact *out)
{
    if (mpfr_zero_p(S)) {
        ug_exact_set_zero(out, 0);
        out->cls = UG_X_FINITE;
        out->sum_abs = 0;
        return 0;
    }
    return ug_sqrt_record(S, out);
}

int ug_exact_nrm2_f32_mpfr(const float *x, size_t n, ug_exact *out)
{
    ug_xclass cls = ug_nrm2_class(x, n);
    if (cls != UG_X_FINITE) {
        ug_exact_set_special(out, cls);
        return 0;
    }
    mpfr_t S;
    ug_mpfr_exact_value_f32(x, 1, x, 1, n, S); /* initialises S at the exact precision */
    int p = ug_nrm2_from_S(S, out);
    mpfr_clear(S);
    return p;
}

int ug_exact_nrm2_f32_fast(const float *x, size_t n, ug_exact *out)
{
    ug_xclass cls = ug_nrm2_class(x, n);
    if (cls != UG_X_FINITE) {
        ug_exact_set_special(out, cls);
        return 0;
    }
    ug_xacc *acc = ug_xmalloc(sizeof *acc);
    ug_xacc_init(acc);
    for (size_t i = 0; i < n; i++) ug_xacc_add(acc, (double)x[i] * (double)x[i]); /* exact */
    mpfr_t S, c;
    mpfr_init2(S, UG_XACC_MPFR_PREC);
    mpfr_init2(c, 64);
    mpfr_set_zero(S, 1);
    for (int i = 0; i < UG_XACC_N; i++) { /* chunk i worth 2^(32 i + UG_XACC_BASE) */
        if (!acc->c[i]) continue;
        mpfr_set_si_2exp(c, (long)acc->c[i], 32 * i + UG_XACC_BASE, MPFR_RNDN); /* exact */
        mpfr_add(S, S, c, MPFR_RNDN); /* exact: 2400 bits span every chunk */
    }
    free(acc);
    int p = ug_nrm2_from_S(S, out);
    mpfr_clears(S, c, (mpfr_ptr)0);
    return p;
}


static void ug_nrm2_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    if (ug_oracle_selected() == UG_ORACLE_MPFR)
        ug_exact_nrm2_f32_mpfr(x, s->dim[0], out);
    else
        ug_exact_nrm2_f32_fast(x, s->dim[0], out);
}

static void ug_nrm2_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_exact_nrm2_f32_fast(x, s->dim[0], out);
}

static void ug_nrm2_exact_one_fast(const float *x, const float *y, const ug_shape *s, size_t e,
                                   ug_exact *out)
{
    (void)e;
    ug_nrm2_exact_fast(x, y, s, out);
}

/* The bound above: the sum of squares' bound (or its probabilistic one at lambda > 0) through
 * the root, rounded up by (1 + 2^-40) for its own binary64 evaluation. */
static double ug_nrm2_bound(const ug_kernel *k, size_t n, double S, double s_abs, double lambda)
{
    const double u = 0x1p-24;
    double S2 = S * S * (1 + 0x1p-50); /* >= the exact sum of squares (S = RU64(t)) */
    double B = lambda > 0 ? ug_bound_prob_terms(k, UG_TERMS_PRODUCTS, n, S2, S2, lambda)
                          : ug_bound_terms(k, UG_TERMS_PRODUCTS, n, S2, S2);
    if (k->bound == UG_BOUND_NONE) return 0;
    if (!isfinite(B)) return INFINITY;
    double Ds = sqrt(B) * (1 + 0x1p-50);
    if (s_abs > 0 && B / s_abs < Ds) Ds = B / s_abs * (1 + 0x1p-50);
    return (Ds * (1 + u) + u * s_abs) * (1 + 0x1p-40);
}

/* ---- asum's reference --------------------------------------------------------------------- */

/* |x_i| into a scratch copy, then the sum's oracle. */
static void ug_asum_with(void (*sum)(const float *, size_t, ug_exact *), const float *x, size_t n,
                         ug_exact *out)
{
    float *a = ug_xmalloc((n ? n : 1) * sizeof *a);
    for (size_t i = 0; i < n; i++) a[i] = fabsf(x[i]);
    sum(a, n, out);
    free(a);
}

static void ug_asum_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_asum_with(ug_exact_sum_f32, x, s->dim[0], out);
}

static void ug_asum_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_asum_with(ug_exact_sum_f32_fast, x, s->dim[0], out);
}

static void ug_asum_exact_one_fast(const float *x, const float *y, const ug_shape *s, size_t e,
                                   ug_exact *out)
{
    (void)e;
    ug_asum_exact_fast(x, y, s, out);
}

static const ug_bound_class ug_nrm2_classes[] = {UG_BOUND_TREE, UG_BOUND_KAHAN, UG_BOUND_NEUMAIER,
    UG_BOUND_WIDE_ACC, UG_BOUND_NONE};

const ug_op_desc ug_op_nrm2_desc = {
    .shape = UG_OPSHAPE(UG_OP_NRM2),
    .doc = "||x||_2 = sqrt(sum x_i^2) of n binary32 values, correctly rounded",
    .terms_kind = UG_TERMS_PRODUCTS,
    .specials = "any NaN element: NaN; else any infinite element: +inf",
    .hunt_exp = 50, /* n 2^100 <= 2^124: no sum of squares overflows */
    .exact = ug_nrm2_exact,
    .exact_fast = ug_nrm2_exact_fast,
    .exact_one_fast = ug_nrm2_exact_one_fast,
    .bound = ug_nrm2_bound,
    .classes = ug_nrm2_classes,
};

static const ug_bound_class ug_asum_classes[] = {UG_BOUND_TREE, UG_BOUND_KAHAN, UG_BOUND_NEUMAIER,
    UG_BOUND_WIDE_ACC, UG_BOUND_BF16_OUT, UG_BOUND_NONE};

const ug_op_desc ug_op_asum_desc = {
    .shape = UG_OPSHAPE(UG_OP_ASUM),
    .doc = "sum |x_i| of n binary32 values",
    .exact_is_sum = true,
    .specials = "any NaN element: NaN; else any infinite element: +inf",
    .exact = ug_asum_exact,
    .exact_fast = ug_asum_exact_fast,
    .exact_one_fast = ug_asum_exact_one_fast,
    .classes = ug_asum_classes,
};
