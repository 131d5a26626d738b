/*
 * scan.c - prefix sums of a binary32 vector, every output graded: `scan` (inclusive,
 * out[i] = x_0 + ... + x_i) and `exscan` (exclusive, out[i] = x_0 + ... + x_{i-1}, out[0] = +0).
 *
 * Output i is the exact sum of its own prefix, rounded once; its a-priori bound is that of a sum
 * of its own terms (i + 1, or i for exscan) at the kernel's depth for that many terms
 * (descriptor field terms_at): a serial scan's output i has depth i, Hillis-Steele's
 * ceil(log2(i + 1)), so the outputs early in the prefix are held to their own, tighter bound.
 *
 * The exact results.  One pass keeps the running exact sum of the prefix and reads it at every
 * output (O(n) for all n outputs, not O(n^2)):
 *   fast: Neal's superaccumulator (oracle/xacc.h): ug_xacc_add of each x_i (exact: binary32 is
 *         binary64), ug_xacc_fill at each output (RN64 hi, RN64(s - hi) lo, RN32, RD32), a second
 *         accumulator of |x_i| read up (RU64) for sum_abs: ~0.3 us an output;
 *   mpfr: an exact MPFR running sum at the precision that holds any sum of n binary32 values
 *         (oracle/exact_mpfr.c's argument: 128 + 149 + bits(n) + 1 bits, every mpfr_add exact),
 *         read with mpfr_get_d (hi), the exact difference s - hi (lo), and binary32's RN/RD from
 *         (hi, lo) (base/format.c's proof: hi and lo's sign decide every binary32 rounding).
 * Both give the same records bit for bit (tests/scan_norm_checks.c checks them against each
 * other and against ug_exact_sum_f32_mpfr of every prefix).  Specials and zeros per prefix, by
 * the sum's rules (oracle.h): any NaN or +inf with -inf so far: NaN; a prefix of -0 terms: -0.
 */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>

#include "base/sys.h"
#include "oracle/special.h"
#include "oracle/xacc.h"
#include "ops/op.h"

/* read n, write n */

/* What a prefix's special-value and zero rules need. */
typedef struct {
    size_t nan, pinf, ninf, terms;
    int all_negzero;
} ug_prefix_state;

static void ug_prefix_note(ug_prefix_state *p, float v)
{
    p->terms++;
    if (isnan(v)) p->nan++;
    else if (isinf(v) && v > 0) p->pinf++;
    else if (isinf(v)) p->ninf++;
    if (!(v == 0 && signbit(v))) p->all_negzero = 0;
}

/* The special or zero record of a prefix, if it is one; 1 when e is filled. */
static int ug_prefix_special(const ug_prefix_state *p, ug_exact *e)
{
    ug_xclass cls = ug_special_class(p->nan, p->pinf, p->ninf);
    if (cls == UG_X_FINITE) return 0;
    ug_exact_set_special(e, cls);
    return 1;
}

/* Every prefix of x[0..n) into out[0..n) (out[i]: x_0..x_i), or with exclusive, out[i]:
 * x_0..x_{i-1}.  The superaccumulator path. */
static void ug_prefix_fast(const float *x, size_t n, bool exclusive, ug_exact *out)
{
    ug_xacc *s = ug_xmalloc(sizeof *s), *a = ug_xmalloc(sizeof *a);
    ug_xacc_init(s);
    ug_xacc_init(a);
    ug_prefix_state p = {0, 0, 0, 0, 1};
    for (size_t i = 0; i < n; i++) {
        if (!exclusive || i > 0) {
            float v = x[exclusive ? i - 1 : i];
            ug_prefix_note(&p, v);
            if (isfinite(v)) {
                ug_xacc_add(s, v);
                ug_xacc_add(a, fabs((double)v));
            }
        }
        ug_exact *e = &out[i];
        if (ug_prefix_special(&p, e)) continue;
        if (!ug_xacc_fill(s, e)) ug_exact_set_zero(e, p.terms > 0 && p.all_negzero);
        e->cls = UG_X_FINITE;
        e->sum_abs = ug_xacc_mag_up(a);
    }
    free(s);
    free(a);
}

/* The record of an exact MPFR value s (finite, nonzero, a multiple of 2^-149 below 2^(128+64)),
 * with sum_abs = RU64(sabs). */
static void ug_prefix_from_mpfr(mpfr_t s, mpfr_t sabs, mpfr_t tmp, ug_exact *e)
{
    e->cls = UG_X_FINITE;
    e->hi = mpfr_get_d(s, MPFR_RNDN);                /* exact in the subnormal range: see above */
    mpfr_sub_d(tmp, s, e->hi, MPFR_RNDN);             /* exact: a multiple of 2^-149 below |s| */
    e->lo = mpfr_get_d(tmp, MPFR_RNDN) + 0.0;         /* +0 for an exact zero */
    e->rn = (float)ug_fmt_round2(UG_F32, e->hi, e->lo, UG_RN);
    e->rd = (float)ug_fmt_round2(UG_F32, e->hi, e->lo, UG_RD);
    e->sum_abs = mpfr_get_d(sabs, MPFR_RNDU);
}

/* The same prefixes with an exact MPFR running sum. */
static void ug_prefix_mpfr(const float *x, size_t n, bool exclusive, ug_exact *out)
{
    mpfr_prec_t prec = 128 + 149 + 1 + 1;
    for (size_t m = n; m; m >>= 1) prec++;
    mpfr_t s, sabs, tmp;
    mpfr_inits2(prec, s, sabs, tmp, (mpfr_ptr)0);
    mpfr_set_zero(s, 1);
    mpfr_set_zero(sabs, 1);
    ug_prefix_state p = {0, 0, 0, 0, 1};
    for (size_t i = 0; i < n; i++) {
        if (!exclusive || i > 0) {
            float v = x[exclusive ? i - 1 : i];
            ug_prefix_note(&p, v);
            if (isfinite(v)) {
                mpfr_add_d(s, s, v, MPFR_RNDN); /* exact: prec holds every partial sum */
                mpfr_add_d(sabs, sabs, fabs((double)v), MPFR_RNDN);
            }
        }
        ug_exact *e = &out[i];
        if (ug_prefix_special(&p, e)) continue;
        if (mpfr_zero_p(s)) {
            ug_exact_set_zero(e, p.terms > 0 && p.all_negzero);
            e->sum_abs = mpfr_get_d(sabs, MPFR_RNDU);
        } else {
            ug_prefix_from_mpfr(s, sabs, tmp, e);
        }
    }
    mpfr_clears(s, sabs, tmp, (mpfr_ptr)0);
}

void ug_exact_prefix_f32_fast(const float *x, size_t n, bool exclusive, ug_exact *out)
{
    ug_prefix_fast(x, n, exclusive, out);
}
void ug_exact_prefix_f32_mpfr(const float *x, size_t n, bool exclusive, ug_exact *out)
{
    ug_prefix_mpfr(x, n, exclusive, out);
}

/* The selected oracle: MPFR when selected, else the superaccumulator (the GPU oracle computes
 * no scans: the fast path answers, as it does for binary64 sums). */
static void ug_prefix(const float *x, size_t n, bool exclusive, ug_exact *out)
{
    (ug_oracle_selected() == UG_ORACLE_MPFR ? ug_prefix_mpfr : ug_prefix_fast)(x, n, exclusive, out);
}

static void ug_scan_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_prefix(x, s->dim[0], false, out);
}
static void ug_exscan_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_prefix(x, s->dim[0], true, out);
}
static void ug_scan_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_prefix_fast(x, s->dim[0], false, out);
}
static void ug_exscan_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    (void)y;
    ug_prefix_fast(x, s->dim[0], true, out);
}

/* Output e alone: the sum of its prefix. */
static void ug_scan_exact_one_fast(const float *x, const float *y, const ug_shape *s, size_t e,
                                   ug_exact *out)
{
    (void)y, (void)s;
    ug_exact_sum_f32_fast(x, e + 1, out);
}
static void ug_exscan_exact_one_fast(const float *x, const float *y, const ug_shape *s, size_t e,
                                     ug_exact *out)
{
    (void)y, (void)s;
    ug_exact_sum_f32_fast(x, e, out);
}

#define UG_SCAN_COMMON                                                                          \
    .exact_is_sum = true, .specials = "per output, as sum over its prefix",                     \
    .hunt_max_size = (size_t)1 << 20

static const ug_bound_class ug_scan_classes[] = {UG_BOUND_TREE, UG_BOUND_KAHAN, UG_BOUND_NEUMAIER,
    UG_BOUND_WIDE_ACC, UG_BOUND_BF16_OUT, UG_BOUND_NONE};

const ug_op_desc ug_op_scan_desc = {
    .shape = UG_OPSHAPE(UG_OP_SCAN),
    .doc = "inclusive prefix sums out_i = x_0 + ... + x_i of n binary32 values (n outputs)",
    UG_SCAN_COMMON,
    .exact = ug_scan_exact,
    .exact_fast = ug_scan_exact_fast,
    .exact_one_fast = ug_scan_exact_one_fast,
    .classes = ug_scan_classes,
};

static const ug_bound_class ug_exscan_classes[] = {UG_BOUND_TREE, UG_BOUND_KAHAN,
    UG_BOUND_NEUMAIER, UG_BOUND_WIDE_ACC, UG_BOUND_BF16_OUT, UG_BOUND_NONE};

const ug_op_desc ug_op_exscan_desc = {
    .shape = UG_OPSHAPE(UG_OP_EXSCAN),
    .doc = "exclusive prefix sums out_i = x_0 + ... + x_(i-1), out_0 = +0 (n outputs)",
    UG_SCAN_COMMON,
    .exact = ug_exscan_exact,
    .exact_fast = ug_exscan_exact_fast,
    .exact_one_fast = ug_exscan_exact_one_fast,
    .classes = ug_exscan_classes,
};
