/*
 * fmt_dist.c - distributions drawn in a number format: binary64, binary16, bfloat16,
 * fp8 e4m3 and e5m2 inputs whose every value is a value of that format, drawn there -- a
 * bfloat16 normal is RN_bf16 of the binary64 normal draw, not RN_bf16 of a binary32 one (no
 * double rounding) -- stored as doubles (exact: every format is a subset of binary64).
 *
 * Reproducibility: element i of an elementwise kind is a function of (seed, stream id, trial, i)
 * alone (one Philox block per element, at purpose << 56 | i, rng.c), the constructions
 * (GenSum, GenDot, ordering) deterministic functions of the whole vector.  The stream id of a
 * format's distribution differs from its binary32 twin's (its description ends "|in(f)"), so
 * no binary32 input changed when this file came.
 *
 * Base kinds, element i (RN_f: round to nearest-even in f, base/format.h):
 *   uniform(a,b)      RN_f(a + (b-a) u), u 53 random bits, clamped to [RN_f(a), RN_f(b)]
 *   normal(mu,sigma)  RN_f(mu + sigma z), z = sqrt(-2 ln u1) cos(2 pi u2) (Box-Muller, one
 *                     block an element; detmath.h's deterministic log and cos)
 *   lognormal         RN_f(exp(mu + sigma z))
 *   expuniform(lo,hi) +-RN_f(2^e), e uniform in [lo, hi], lo >= emin - p + 1, hi <= emax
 *   constant(c)       RN_f(c)
 * Parameters whose values could leave f's finite range are refused (as the binary32 ones are).
 *
 * Special values (element i replaced with probability rate, the kind uniform among the mask's
 * bits): f's canonical NaN (refused for FP6/FP4, which have none), +-inf (refused for e4m3,
 * FP6/FP4, which have none), +-0, a random subnormal of
 * f (significand uniform in [1, 2^(p-1) - 1]), +-max (e4m3: 448), +-a random value of the
 * smallest normal binade (bfloat16: 2^-126 .. 2^-125, binary32's tiny range).
 *
 * GenSum / GenDot in f (condition number kappa = sum|terms| / |sum|, terms x_i or x_i y_i):
 *   b = log2 kappa; a base exponent e0 chosen so the largest terms 2^(e0+b) and the partial
 *   sums (room for a random walk, sqrt(n) terms, and 8x more) stay below f's max and the
 *   smallest above 2^(emin+1) (dot: each factor);
 *   first half: terms of magnitude [1/2, 1) 2^(e0+e_i), e_i = round(u b), e_0 = b, the last one
 *     0, positive with probability (1 + 1/kappa)/2 (so small kappa is reachable, as gen.c);
 *   second half, exponents descending linearly from b to 0: while |D| > 2A/kappa (D the exact
 *     running sum, A = sum|terms| so far) the term cancels D down to the target
 *     t = sign(D) max(|r| 2^(e0+e_j), A/kappa): x_j = RN_f(t - D) (dot: y_j = RN_f((t-D)/x_j));
 *     otherwise a free term whose sign steers |D| towards A/kappa;
 *   the last term calibrates: final sum F = sign(D) phi with (A + |F - D|) / phi = kappa,
 *     phi = (A + |D|)/(kappa + 1) if that is <= |D|, else (A - |D|)/(kappa - 1); the term is
 *     RN_f(F - D) (dot: y = RN_f((F - D)/x)), so kappa is reached up to that one rounding,
 *     relative ~2^-p (measured in tests/dist_fmt.c);
 *   then a random permutation (of the pairs).  D is exact: an exact accumulator
 *   (oracle/xacc.h) of every term (a binary64 product as TwoProduct's two parts).
 * kappa up to 1e32 in binary64; the 16- and 8-bit formats reach what their exponent range
 * holds (binary16 ~1e5 at n = 4096): a kappa beyond it is refused with the limit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/inputs/detmath.h"
#include "harness/inputs/dist_int.h"
#include "oracle/xacc.h"

enum { UG_P_FMT_SPECVAL = 6 }; /* special values of x (6) and y (7): dist_int.h's purposes end at 5 */
#define UG_FMT_KAPPA_MAX 1e32

static double ug_rn(ug_fmt f, double v) { return ug_fmt_round(f, v, UG_RN); }

/* ---- base kinds ------------------------------------------------------------------------------ */

/* Element i of d's base kind from Philox block w (see the top). */
static double ug_fd_base(const ug_dist *d, const uint32_t w[4])
{
    ug_fmt f = d->fmt;
    double p1 = d->p1, p2 = d->p2, u = ug_unit53(w[0], w[1]);
    switch (d->kind) {
    case UG_D_UNIFORM: {
        double lo = ug_rn(f, p1), hi = ug_rn(f, p2), v = ug_rn(f, p1 + (p2 - p1) * u);
        return v < lo ? lo : v > hi ? hi : v;
    }
    case UG_D_NORMAL:
    case UG_D_LOGNORMAL: {
        double u1 = (double)((((uint64_t)w[1] << 32 | w[0]) >> 11) + 1) * 0x1p-53;
        double c, s;
        ug_fast_sincos2pi(ug_unit53(w[2], w[3]), &c, &s);
        double z = p1 + p2 * (sqrt(-2 * ug_fast_log(u1)) * c);
        return ug_rn(f, d->kind == UG_D_LOGNORMAL ? ug_fast_exp(z) : z);
    }
    case UG_D_EXPUNIFORM: {
        double m = ug_rn(f, ug_fast_exp2(p1 + (p2 - p1) * u));
        return (w[2] & 1) ? -m : m;
    }
    default: return ug_rn(f, p1); /* constant */
    }
}

static void ug_fd_fill_base(const ug_dist *d, const ug_stream *s, unsigned purpose, double *x,
                            size_t n)
{
    uint32_t w[4];
    for (size_t i = 0; i < n; i++) {
        ug_philox_block(s, (uint64_t)purpose << 56 | i, w);
        x[i] = ug_fd_base(d, w);
    }
}

/* The base kind's parameters inside f's range: 0, or -1 with the reason. */
static int ug_fd_check_base(const ug_dist *d, const ug_format *f, const char *name, char *err,
                            size_t errlen)
{
    double top = 0;
    switch (d->kind) {
    case UG_D_UNIFORM: top = fmax(fabs(d->p1), fabs(d->p2)); break;
    case UG_D_NORMAL: top = fabs(d->p1) + UG_NORMAL_ZMAX * d->p2; break;
    case UG_D_LOGNORMAL:
        if (d->p1 + UG_NORMAL_ZMAX * d->p2 >= log(f->max))
            return ug_dist_fail(err, errlen, "dist %s: exp(mu + 8.58 sigma) overflows %s (max %g)",
                              name, f->name, f->max);
        break;
    case UG_D_EXPUNIFORM:
        if (!(d->p1 >= f->emin - f->p + 1 && d->p2 <= f->emax))
            return ug_dist_fail(err, errlen, "dist %s: need %d <= lo and hi <= %d (%s's range)", name,
                              f->emin - f->p + 1, f->emax, f->name);
        break;
    case UG_D_CONSTANT: top = fabs(d->p1); break;
    case UG_D_MSVC_RAND01:
        return ug_dist_fail(err, errlen, "dist %s: msvc_rand01 is a binary32 generator", name);
    default: break;
    }
    if (!(top <= f->max))
        return ug_dist_fail(err, errlen, "dist %s: values up to %g overflow %s (max %g)", name, top,
                          f->name, f->max);
    return 0;
}

/* ---- special values -------------------------------------------------------------------------- */

static double ug_fd_special(const ug_format *f, unsigned mask, const uint32_t w[4],
                            const uint32_t v[4])
{
    unsigned kinds[7], nk = 0;
    for (unsigned b = 0; b < 7; b++)
        if (mask & (1u << b)) kinds[nk++] = 1u << b;
    unsigned kind = kinds[((uint64_t)w[2] * nk) >> 32];
    double sign = (w[3] & 1) ? -1.0 : 1.0, u = ug_unit53(v[0], v[1]);
    double frac = floor(u * ldexp(1, f->p - 1)); /* uniform in [0, 2^(p-1) - 1] */
    switch (kind) {
    case UG_SP_NAN: return NAN; /* stored as fmt's canonical NaN (ug_fmt_store) */
    case UG_SP_POSINF: return INFINITY;
    case UG_SP_NEGINF: return -INFINITY;
    case UG_SP_ZERO: return sign * 0.0;
    case UG_SP_SUBNORMAL:
        return sign * ldexp(frac < 1 ? 1 : frac, f->emin - f->p + 1);
    case UG_SP_MAX: return sign * f->max;
    default: /* UG_SP_TINY */
        return sign * ldexp(1 + ldexp(frac, 1 - f->p), f->emin);
    }
}

static void ug_fd_specials(const ug_dist *d, const ug_stream *s, unsigned purpose, double *x,
                           size_t n)
{
    if (!(d->special_rate > 0)) return;
    const ug_format *f = ug_format_of(d->fmt);
    uint32_t w[4], v[4];
    for (size_t i = 0; i < n; i++) {
        ug_philox_block(s, (uint64_t)purpose << 56 | i, w);
        if (!(ug_unit53(w[0], w[1]) < d->special_rate)) continue;
        ug_philox_block(s, (uint64_t)(UG_P_FMT_SPECVAL + purpose - UG_P_SPEC_X) << 56 | i, v);
        x[i] = ug_fd_special(f, d->specials, w, v);
    }
}

/* ---- ordering -------------------------------------------------------------------------------- */

typedef struct {
    double key, val;
    size_t i;
} ug_fd_key;

static int ug_fd_key_cmp(const void *a, const void *b)
{
    const ug_fd_key *p = a, *q = b;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    if (p->val != q->val) return p->val < q->val ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* Order x (and y alongside) by x's value or magnitude (dot: by the product x_i y_i, rounded to
 * binary64: exact for the 16- and 8-bit formats), ties by value then index; descending is
 * ascending reversed.  -1 when out of memory. */
static int ug_fd_order(double *x, double *y, size_t n, ug_order o)
{
    if (o == UG_ORDER_NONE || n < 2) return 0;
    ug_fd_key *k = malloc(n * sizeof *k);
    double *tmp = malloc(2 * n * sizeof *tmp);
    if (!k || !tmp) {
        free(k);
        free(tmp);
        return -1;
    }
    bool by_abs = o == UG_ORDER_ABS_ASC || o == UG_ORDER_ABS_DESC;
    for (size_t i = 0; i < n; i++) {
        double v = y ? x[i] * y[i] : x[i];
        k[i] = (ug_fd_key){by_abs ? fabs(v) : v, v, i};
    }
    qsort(k, n, sizeof *k, ug_fd_key_cmp);
    bool desc = o == UG_ORDER_DESC || o == UG_ORDER_ABS_DESC;
    for (size_t j = 0; j < n; j++) {
        size_t src = k[desc ? n - 1 - j : j].i;
        tmp[j] = x[src];
        tmp[n + j] = y ? y[src] : 0;
    }
    memcpy(x, tmp, n * sizeof *x);
    if (y) memcpy(y, tmp + n, n * sizeof *y);
    free(k);
    free(tmp);
    return 0;
}

/* ---- GenSum / GenDot in a format ----------------------------------------------------------- */

typedef struct {
    ug_xacc exact, abs; /* D = sum of the terms, and A = sum of their magnitudes, exactly */
} ug_fd_run;

/* D += x*y and A += |x*y| exactly (y = 1 for a sum term: TwoProduct's lo is then 0). */
static void ug_fd_add(ug_fd_run *g, double x, double y)
{
    double hi = x * y, lo = fma(x, y, -hi), sg = hi < 0 ? -1.0 : 1.0;
    ug_xacc_add(&g->exact, hi);
    ug_xacc_add(&g->abs, sg * hi);
    if (lo != 0) {
        ug_xacc_add(&g->exact, lo);
        ug_xacc_add(&g->abs, sg * lo); /* |hi + lo| = sg (hi + lo): |lo| <= ulp(hi)/2 */
    }
}

/* RN64 of an exact accumulator (0 for zero). */
static double ug_fd_rn(const ug_xacc *a)
{
    ug_exact e;
    return ug_xacc_fill(a, &e) ? e.hi : 0.0;
}

static double ug_fd_D(const ug_fd_run *g) { return ug_fd_rn(&g->exact); }
static double ug_fd_A(const ug_fd_run *g) { return ug_fd_rn(&g->abs); }

/* The margin above the largest term that the partial sums of n terms need (binades). */
static int ug_fd_margin(size_t n) { return (int)ceil(log2((double)(n > 1 ? n : 2)) / 2) + 3; }

/* The base exponent e0 for kappa = 2^b in f, n terms, dot or sum; 0 and *e0 set, or -1. */
static int ug_fd_base_exp(const ug_format *f, double b, size_t n, bool dot, int *e0)
{
    int lo = dot ? 2 * (f->emin + 2) : f->emin + 2;
    int hi = f->emax - ug_fd_margin(n) - (int)ceil(b);
    if (lo > hi) return -1;
    int c = -(int)floor(b / 2);
    *e0 = c < lo ? lo : c > hi ? hi : c;
    return 0;
}

/* One term of magnitude ~ m (a power of two times [1/2, 1)): x alone (sum) or the pair with
 * x ~ sqrt(m) (dot); r in [1/2, 1) from the block. */
static void ug_fd_free_term(ug_fmt f, double m, double r, double sign, double *x, double *y)
{
    if (!y) {
        *x = ug_rn(f, sign * r * m);
        return;
    }
    int e = ilogb(m);
    double xm = ldexp(1, e / 2);
    *x = ug_rn(f, sign * r * xm);
    *y = ug_rn(f, ldexp(1, e - e / 2));
}

/* The term that takes the running sum D to target t: x = RN_f(t - D), or for a dot a free
 * x ~ sqrt|t - D| and y = RN_f((t - D) / x). */
static void ug_fd_solve(ug_fmt f, double want, double r, double *x, double *y)
{
    if (!y) {
        *x = ug_rn(f, want);
        return;
    }
    if (want == 0) {
        *x = ug_rn(f, r);
        *y = 0;
        return;
    }
    *x = ug_rn(f, r * ldexp(1, ilogb(want) / 2));
    *y = ug_rn(f, want / *x);
}

/* GenSum (y NULL) or GenDot of n terms of format f into x (and y), vector vec of stream s. */
static int ug_fd_gen(const ug_stream *s, uint32_t vec, double kappa, ug_fmt f, double *x,
                     double *y, size_t n, ug_fd_run *g)
{
    const ug_format *F = ug_format_of(f);
    double b = log2(kappa);
    int e0;
    if (ug_fd_base_exp(F, b, n, y != NULL, &e0)) return UG_GEN_OVERFLOW;
    ug_xacc_reset(&g->exact);
    ug_xacc_reset(&g->abs);
    size_t n2 = n / 2;
    double p_pos = (1 + 1 / kappa) / 2;
    uint32_t w[4];
    for (size_t i = 0; i + 1 < n || (n == 1 && i == 0); i++) {
        ug_philox_block(s, (uint64_t)UG_P_GEN << 56 | (uint64_t)vec << 32 | i, w);
        double r = 0.5 + 0.5 * ug_unit53(w[0], w[1]);
        double *yi = y ? &y[i] : NULL;
        if (i < n2 || n == 1) {
            int ei = i == 0 ? (int)ceil(b) : i + 1 == n2 ? 0 : (int)floor(ug_unit53(w[2], w[3]) * b + 0.5);
            double sign = (double)w[3] * 0x1p-32 < p_pos ? 1.0 : -1.0;
            ug_fd_free_term(f, ldexp(1, e0 + ei), r, sign, &x[i], yi);
        } else {
            size_t j = i - n2, m2 = n - 1 - n2; /* j-th of m2 second-half terms */
            int ej = (int)floor(b * (1 - (double)(j + 1) / (double)(m2 + 1)) + 0.5);
            double D = ug_fd_D(g), target = ug_fd_A(g) / kappa, mag = r * ldexp(1, e0 + ej);
            if (fabs(D) > 2 * target) {
                double t = copysign(fmax(mag, target), D);
                ug_fd_solve(f, t - D, r, &x[i], yi);
            } else {
                /* grow |D| towards the target (kappa = 1: |D| = A, always: one sign) */
                double sign = fabs(D) <= target ? (D < 0 ? -1.0 : 1.0) : (D < 0 ? 1.0 : -1.0);
                ug_fd_free_term(f, ldexp(1, e0 + ej), r, sign, &x[i], yi);
            }
        }
        ug_fd_add(g, x[i], y ? y[i] : 1.0);
    }
    if (n >= 2) { /* the calibrating last term */
        ug_philox_block(s, (uint64_t)UG_P_GEN << 56 | (uint64_t)vec << 32 | (n - 1), w);
        double r = 0.5 + 0.5 * ug_unit53(w[0], w[1]);
        double D = ug_fd_D(g), aD = fabs(D), A = ug_fd_A(g);
        double phi = (A + aD) / (kappa + 1);
        if (phi > aD && kappa > 1) phi = (A - aD) / (kappa - 1);
        double F = D < 0 ? -phi : phi;
        ug_fd_solve(f, F - D, r, &x[n - 1], y ? &y[n - 1] : NULL);
        ug_fd_add(g, x[n - 1], y ? y[n - 1] : 1.0);
    }
    for (size_t i = 0; i < n; i++)
        if (!(fabs(x[i]) <= F->max) || (y && !(fabs(y[i]) <= F->max))) return UG_GEN_OVERFLOW;
    /* Fisher-Yates, the pairs together */
    for (size_t i = n; i > 1; i--) {
        ug_philox_block(s, (uint64_t)UG_P_PERM << 56 | (uint64_t)vec << 32 | i, w);
        size_t j = (size_t)(((uint64_t)w[0] << 32 | w[1]) % i);
        double t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
        if (y) {
            t = y[i - 1];
            y[i - 1] = y[j];
            y[j] = t;
        }
    }
    return 0;
}

/* A layer's parameters (the weight, or LayerNorm's weight then bias: in_len(sh, 1) values) in
 * format f: the operation's fill_params, the same values as the binary32 input's, each checked
 * to be exact in f (ops/norm_params.h's weights are 1 + k/64, |k| <= 16, its biases k/256,
 * |k| <= 64: 7 significant bits, exact in bfloat16 and binary16; fp8 is refused).
 * 0, or -1 with err set.  O(n). */
static int ug_fd_layer_params(const ug_op_desc *op, ug_fmt f, const char *name,
                              uint64_t seed, uint32_t trial, double *y, const ug_shape *sh,
                              char *err, size_t errlen)
{
    size_t n = ug_op_in_len(op, sh, 1);
    float *w = malloc((n ? n : 1) * sizeof *w);
    if (!w) return ug_dist_fail(err, errlen, "dist %s, n = %zu: out of memory", name, n);
    op->fill_params(w, sh, seed, trial);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        y[i] = w[i];
        if (ug_rn(f, y[i]) != y[i])
            rc = ug_dist_fail(err, errlen, "dist %s: %s's parameter %zu (%.9g) is not exact in %s",
                            name, op->shape->name, i, y[i], ug_fmt_name(f));
    }
    free(w);
    return rc;
}

/* ---- the entry point ----------------------------------------------------------------------- */

/* The two operands of a GEMM (A: in_len(sh, 0) = M*K values, B: K*N) drawn in f, elementwise:
 * element i of A is a function of (seed, stream, trial, i) at purpose UG_P_X, of B at UG_P_Y,
 * as a dot's x and y are; then f's special values at the same rates.  The base kinds only: the
 * condition-number constructions and the orderings are vector ones (refused, naming them). */
static int ug_fd_gemm(const ug_dist *d, const ug_format *f, const ug_op_desc *op, uint64_t seed,
                      uint64_t stream_id, uint32_t trial, double *x, double *y,
                      const ug_shape *sh, const char *name, char *err, size_t errlen)
{
    if (d->kind == UG_D_GENSUM || d->kind == UG_D_GENDOT || d->order != UG_ORDER_NONE ||
        d->alternate)
        return ug_dist_fail(err, errlen, "dist %s: %s operands in %s are drawn elementwise only "
                          "(no gensum/gendot, ordering or alternating signs)", name, op->shape->name,
                          f->name);
    if (ug_fd_check_base(d, f, name, err, errlen)) return -1;
    ug_det_init();
    ug_stream s = ug_stream_make(seed, stream_id, trial);
    size_t na = ug_op_in_len(op, sh, 0), nb = ug_op_in_len(op, sh, 1);
    ug_fd_fill_base(d, &s, UG_P_X, x, na);
    ug_fd_fill_base(d, &s, UG_P_Y, y, nb);
    ug_fd_specials(d, &s, UG_P_SPEC_X, x, na);
    ug_fd_specials(d, &s, UG_P_SPEC_Y, y, nb);
    return 0;
}

int ug_dist_fill_fmt(const ug_dist *d, const ug_op_desc *op, uint64_t seed, uint64_t stream_id,
                     uint32_t trial, double *x, double *y, const ug_shape *sh, char *err,
                     size_t errlen)
{
    char name[160];
    ug_dist_describe(d, name, sizeof name);
    if (ug_dist_validate(d, err, errlen)) return -1;
    const ug_format *f = ug_format_of(d->fmt);
    if (op->shape->layout != UG_LAYOUT_VECTORS && op->shape->arity == 2 && ug_opshape_ndims(op->shape) == 3)
        return ug_fd_gemm(d, f, op, seed, stream_id, trial, x, y, sh, name, err, errlen);
    if (op->shape->layout != UG_LAYOUT_VECTORS || op->shape->arity > 2)
        return ug_dist_fail(err, errlen, "dist %s: %s inputs are drawn in binary32 only", name,
                          op->shape->name);
    size_t n = sh->dim[0];
    /* a layer (RMSNorm, LayerNorm: fill_params) draws its data x alone; its parameters y are the
     * operation's own (ug_fd_layer_params), as in binary32 (harness/inputs/dist.c) */
    bool layer = op->shape->arity == 2 && op->fill_params, dot = op->shape->arity == 2 && !layer;
    if (d->kind == UG_D_GENDOT && !dot)
        return ug_dist_fail(err, errlen, "dist %s makes dot inputs; use gensum for a sum", name);
    if (d->kind == UG_D_GENSUM || d->kind == UG_D_GENDOT) {
        int e0;
        if (d->p1 > UG_FMT_KAPPA_MAX)
            return ug_dist_fail(err, errlen, "dist %s: kappa > %g is not supported", name,
                              UG_FMT_KAPPA_MAX);
        if (ug_fd_base_exp(f, log2(d->p1), n, d->kind == UG_D_GENDOT, &e0))
            return ug_dist_fail(err, errlen, "dist %s, n = %zu: kappa %g is beyond %s's exponent "
                              "range (terms over log2 kappa binades, partial sums %d more)",
                              name, n, d->p1, f->name, ug_fd_margin(n));
    } else if (ug_fd_check_base(d, f, name, err, errlen)) {
        return -1;
    }
    ug_det_init();
    ug_stream s = ug_stream_make(seed, stream_id, trial);
    int rc = 0;
    if (d->kind == UG_D_GENSUM || d->kind == UG_D_GENDOT) {
        ug_fd_run *g = malloc(sizeof *g);
        if (!g) return ug_dist_fail(err, errlen, "dist %s, n = %zu: out of memory", name, n);
        ug_xacc_init(&g->exact);
        ug_xacc_init(&g->abs);
        if (d->kind == UG_D_GENDOT) {
            rc = ug_fd_gen(&s, 0, d->p1, d->fmt, x, y, n, g);
        } else {
            rc = ug_fd_gen(&s, 0, d->p1, d->fmt, x, NULL, n, g);
            if (!rc && dot) rc = ug_fd_gen(&s, 1, d->p1, d->fmt, y, NULL, n, g);
        }
        free(g);
        if (rc)
            return ug_dist_fail(err, errlen, "dist %s, n = %zu: a generated value overflowed %s",
                              name, n, f->name);
    } else {
        ug_fd_fill_base(d, &s, UG_P_X, x, n);
        if (dot) ug_fd_fill_base(d, &s, UG_P_Y, y, n);
    }
    if (ug_fd_order(x, dot ? y : NULL, n, d->order))
        return ug_dist_fail(err, errlen, "dist %s, n = %zu: out of memory", name, n);
    if (d->alternate)
        for (size_t i = 0; i < n; i++) {
            x[i] = copysign(x[i], (i & 1) ? -1.0 : 1.0);
            if (dot) y[i] = fabs(y[i]);
        }
    ug_fd_specials(d, &s, UG_P_SPEC_X, x, n);
    if (dot) ug_fd_specials(d, &s, UG_P_SPEC_Y, y, n);
    if (layer) return ug_fd_layer_params(op, d->fmt, name, seed ^ stream_id, trial, y, sh, err, errlen);
    return 0;
}
