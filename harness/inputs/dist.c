/*
 * dist.c - the input distributions of dist.h: constructors, validation, names, one sign, the
 * fill entry points, and the transforms done here (alternating signs, special values).
 *
 * Reproducibility.  Every random number comes from Philox4x32-10 (rng.c) at a counter that
 * names what it is for (dist_int.h), so element i of any elementwise distribution depends only
 * on (seed, stream id, trial, i) and on nothing else -- not n, not the thread count, not the
 * chunking.  The transcendental functions are our own (detmath.h), not libm's.
 *
 * The parts:
 *   elementwise.c  the base distributions uniform, normal, lognormal, expuniform, constant, and
 *                  msvc_rand01 (the Kahan-matmul post's MSVC rand() sequence);
 *   gen.c          gensum, gendot: Ogita-Rump-Oishi with a calibrated last term;
 *   order.c        the ordering transform;
 *   detmath.c      deterministic log, exp, exp2, sin/cos.
 * Transforms, in this order: ordering, alternating signs, special values (see ug_dist_fill_*).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/par.h"
#include "harness/inputs/dist_int.h"

/* ---- errors ----------------------------------------------------------------------------- */

int ug_dist_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- validation and names ------------------------------------------------------------------ */

#define UG_GEN_KAPPA_MAX 1e30

static int ug_f32_finite(double v)
{
    return isfinite(v) && fabs(v) <= FLT_MAX;
}

int ug_dist_validate(const ug_dist *d, char *err, size_t errlen)
{
    char name[128];
    ug_dist_describe(d, name, sizeof name);
    /* a format's ranges and kappa limits are fmt_dist.c's (ug_dist_fill_fmt) */
    bool f32 = d->fmt == UG_F32;
    switch (d->kind) {
    case UG_D_UNIFORM:
        if (!isfinite(d->p1) || !isfinite(d->p2) ||
            (f32 && (!ug_f32_finite(d->p1) || !ug_f32_finite(d->p2))))
            return ug_dist_fail(err, errlen, "dist %s: a and b must be finite binary32 values",
                                name);
        if (d->p2 < d->p1) return ug_dist_fail(err, errlen, "dist %s: b < a", name);
        break;
    case UG_D_NORMAL:
    case UG_D_LOGNORMAL:
        if (!isfinite(d->p1) || !isfinite(d->p2))
            return ug_dist_fail(err, errlen, "dist %s: mu and sigma must be finite", name);
        if (d->p2 < 0) return ug_dist_fail(err, errlen, "dist %s: sigma < 0", name);
        if (!f32) break;
        if (d->kind == UG_D_NORMAL && !ug_f32_finite(fabs(d->p1) + UG_NORMAL_ZMAX * d->p2))
            return ug_dist_fail(err, errlen,
                                "dist %s: |mu| + 8.58 sigma overflows binary32 (max %g)", name,
                                (double)FLT_MAX);
        if (d->kind == UG_D_LOGNORMAL && d->p1 + UG_NORMAL_ZMAX * d->p2 >= 88.72)
            return ug_dist_fail(err, errlen,
                                "dist %s: exp(mu + 8.58 sigma) overflows binary32: need "
                                "mu + 8.58 sigma < 88.72",
                                name);
        break;
    case UG_D_EXPUNIFORM:
        if (f32 && !(d->p1 >= -149 && d->p2 <= 127))
            return ug_dist_fail(err, errlen,
                                "dist %s: need -149 <= lo and hi <= 127 (binary32 range)", name);
        if (d->p2 < d->p1) return ug_dist_fail(err, errlen, "dist %s: hi < lo", name);
        break;
    case UG_D_CONSTANT:
    case UG_D_MSVC_RAND01:
        break;
    case UG_D_GENSUM:
    case UG_D_GENDOT:
        if (!(d->p1 >= 1))
            return ug_dist_fail(err, errlen, "dist %s: condition number kappa < 1", name);
        if (f32 && !(d->p1 <= UG_GEN_KAPPA_MAX))
            return ug_dist_fail(err, errlen, "dist %s: kappa > %g is not supported", name,
                                UG_GEN_KAPPA_MAX);
        break;
    default:
        return ug_dist_fail(err, errlen, "dist: unknown kind %d", (int)d->kind);
    }
    if ((unsigned)d->order > UG_ORDER_ABS_DESC)
        return ug_dist_fail(err, errlen, "dist %s: unknown order %d", name, (int)d->order);
    if (!(d->special_rate >= 0 && d->special_rate <= 1))
        return ug_dist_fail(err, errlen, "dist %s: special rate %g outside [0,1]", name,
                            d->special_rate);
    unsigned all = d->fmt == UG_F32 ? (unsigned)UG_SP_ALL : (unsigned)UG_SP_FMT_ALL;
    if (d->special_rate > 0 && (d->specials == 0 || (d->specials & ~all)))
        return ug_dist_fail(err, errlen,
                            "dist %s: special mask 0x%x must be a nonzero subset of 0x%x", name,
                            d->specials, all);
    const ug_format *f = ug_format_of(d->fmt);
    if (!f || f->bits == 0)
        return ug_dist_fail(err, errlen, "dist %s: format %d is not a storage format", name,
                            (int)d->fmt);
    if (d->special_rate > 0 && !f->inf && (d->specials & (UG_SP_POSINF | UG_SP_NEGINF)))
        return ug_dist_fail(err, errlen, "dist %s: %s has no infinity (special mask 0x%x)", name,
                            f->name, d->specials);
    if (d->special_rate > 0 && f->nan == UG_NAN_NONE && (d->specials & UG_SP_NAN))
        return ug_dist_fail(err, errlen, "dist %s: %s has no NaN (special mask 0x%x)", name,
                            f->name, d->specials);
    return 0;
}

/* Shortest %g form (6 to 17 digits) that reads back as v: stable and short ("0.1", "1e+08"). */
static void ug_fmt_num(char *buf, size_t len, double v)
{
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, v);
        if (strtod(buf, NULL) == v || isnan(v)) return;
    }
}

const char *ug_dist_describe(const ug_dist *d, char *buf, size_t len)
{
    char a[32], b[32], r[32];
    ug_fmt_num(a, sizeof a, d->p1);
    ug_fmt_num(b, sizeof b, d->p2);
    int used = 0;
    switch (d->kind) {
    case UG_D_UNIFORM: used = snprintf(buf, len, "uniform(%s,%s)", a, b); break;
    case UG_D_NORMAL: used = snprintf(buf, len, "normal(%s,%s)", a, b); break;
    case UG_D_LOGNORMAL: used = snprintf(buf, len, "lognormal(%s,%s)", a, b); break;
    case UG_D_EXPUNIFORM: used = snprintf(buf, len, "expuniform(%s,%s)", a, b); break;
    case UG_D_CONSTANT: used = snprintf(buf, len, "constant(%s)", a); break;
    case UG_D_MSVC_RAND01: used = snprintf(buf, len, "msvc_rand01"); break;
    case UG_D_GENSUM: used = snprintf(buf, len, "gensum(%s)", a); break;
    case UG_D_GENDOT: used = snprintf(buf, len, "gendot(%s)", a); break;
    default: used = snprintf(buf, len, "unknown(%d)", (int)d->kind); break;
    }
    static const char *const order_names[] = {"", "asc", "desc", "abs_asc", "abs_desc"};
    size_t at = used < 0 ? 0 : (size_t)used < len ? (size_t)used : len;
    if (d->order != UG_ORDER_NONE && at < len) {
        unsigned o = (unsigned)d->order;
        used = snprintf(buf + at, len - at, "|sorted(%s)", o <= 4 ? order_names[o] : "?");
        at += used < 0 ? 0 : (size_t)used < len - at ? (size_t)used : len - at;
    }
    if (d->alternate && at < len) {
        used = snprintf(buf + at, len - at, "|alt");
        at += used < 0 ? 0 : (size_t)used < len - at ? (size_t)used : len - at;
    }
    if (d->special_rate > 0 && at < len) {
        ug_fmt_num(r, sizeof r, d->special_rate);
        used = snprintf(buf + at, len - at, "|specials(%s,0x%x)", r, d->specials);
        at += used < 0 ? 0 : (size_t)used < len - at ? (size_t)used : len - at;
    }
    if (d->fmt != UG_F32 && at < len) snprintf(buf + at, len - at, "|in(%s)", ug_fmt_name(d->fmt));
    return buf;
}

/* ---- constructors -------------------------------------------------------------------------- */

static ug_dist ug_dist_base(ug_dist_kind kind, double p1, double p2)
{
    ug_dist d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.p1 = p1;
    d.p2 = p2;
    d.order = UG_ORDER_NONE;
    return d;
}

ug_dist ug_uniform(double a, double b) { return ug_dist_base(UG_D_UNIFORM, a, b); }
ug_dist ug_normal(double mu, double sigma) { return ug_dist_base(UG_D_NORMAL, mu, sigma); }
ug_dist ug_lognormal(double mu, double sigma) { return ug_dist_base(UG_D_LOGNORMAL, mu, sigma); }
ug_dist ug_expuniform(double lo, double hi) { return ug_dist_base(UG_D_EXPUNIFORM, lo, hi); }
ug_dist ug_constant(double c) { return ug_dist_base(UG_D_CONSTANT, c, 0); }
ug_dist ug_msvc_rand01(void) { return ug_dist_base(UG_D_MSVC_RAND01, 0, 0); }
ug_dist ug_gensum(double kappa) { return ug_dist_base(UG_D_GENSUM, kappa, 0); }
ug_dist ug_gendot(double kappa) { return ug_dist_base(UG_D_GENDOT, kappa, 0); }

ug_dist ug_sorted(ug_dist d, ug_order order)
{
    d.order = order;
    return d;
}

ug_dist ug_alternating(ug_dist d)
{
    d.alternate = 1;
    return d;
}

ug_dist ug_in_format(ug_dist d, ug_fmt f)
{
    d.fmt = f;
    return d;
}

ug_dist ug_with_specials(ug_dist d, double rate, unsigned mask)
{
    d.special_rate = rate;
    d.specials = mask;
    return d;
}

/* ---- one sign ------------------------------------------------------------------------------ */

bool ug_dist_one_signed(const ug_dist *d)
{
    bool one;
    switch (d->kind) {
    case UG_D_UNIFORM: /* every value in [RN32(a), RN32(b)] */
        one = (float)d->p1 >= 0 || (float)d->p2 <= 0;
        break;
    case UG_D_NORMAL: /* every value RN32(mu + sigma z), |z| < UG_NORMAL_ZMAX */
        one = fabs(d->p1) >= UG_NORMAL_ZMAX * d->p2;
        break;
    case UG_D_LOGNORMAL:
    case UG_D_CONSTANT:
    case UG_D_MSVC_RAND01: one = true; break;
    default: one = false; break; /* expuniform: random signs; gensum, gendot: cancellation */
    }
    bool all_zero = ug_base_all_zero(d); /* then any signs are zeros' signs */
    if (all_zero) one = true;
    if (d->alternate && !all_zero) one = false;
    if (d->special_rate > 0 && (d->specials & UG_SP_SUBNORMAL)) one = false;
    return one;
}

/* ---- special values ------------------------------------------------------------------------ */

/* Element i is replaced when u < rate (u: 53 bits of its own block, so rate 1 replaces all and
 * rate 0 none); the kind is uniform among the mask's set bits; zeros and subnormals get a random
 * sign; subnormal significands are uniform in [1, 2^23 - 1]. */
static float ug_special_value(unsigned mask, const uint32_t w[4])
{
    unsigned kinds[5], nk = 0;
    for (unsigned b = 0; b < 5; b++)
        if (mask & (1u << b)) kinds[nk++] = 1u << b;
    unsigned kind = kinds[((uint64_t)w[2] * nk) >> 32];
    uint32_t sign = (w[3] & 1u) << 31;
    switch (kind) {
    case UG_SP_NAN: return ug_bits_f32(0x7fc00000u);
    case UG_SP_POSINF: return INFINITY;
    case UG_SP_NEGINF: return -INFINITY;
    case UG_SP_ZERO: return ug_bits_f32(sign);
    default: {
        uint32_t mant = 1u + (uint32_t)(((uint64_t)(w[3] >> 1) * 0x7ffffeu) >> 31);
        return ug_bits_f32(sign | mant);
    }
    }
}

typedef struct {
    const ug_stream *s;
    unsigned purpose, mask;
    double rate;
    float *x;
} ug_special_job;

static void ug_special_range(void *ctx, size_t lo, size_t hi)
{
    enum { BATCH = 64 };
    const ug_special_job *job = ctx;
    uint32_t w[BATCH][4];
    for (size_t i0 = lo; i0 < hi; i0 += BATCH) {
        size_t cnt = hi - i0 < BATCH ? hi - i0 : BATCH;
        ug_philox_blocks(job->s, (uint64_t)job->purpose << 56 | i0, cnt, w);
        for (size_t l = 0; l < cnt; l++)
            if (ug_unit53(w[l][0], w[l][1]) < job->rate)
                job->x[i0 + l] = ug_special_value(job->mask, w[l]);
    }
}

static void ug_inject_specials(const ug_dist *d, const ug_stream *s, unsigned purpose, float *x,
                               size_t n)
{
    if (!(d->special_rate > 0)) return;
    ug_special_job job = {s, purpose, d->specials, d->special_rate, x};
    ug_par_range(n, 1 << 15, 0, ug_special_range, &job);
}

/* ---- the fill entry points ----------------------------------------------------------------- */

static bool ug_is_gen(const ug_dist *d)
{
    return d->kind == UG_D_GENSUM || d->kind == UG_D_GENDOT;
}

/* The binary32 fills take binary32 distributions only (a format's: ug_dist_fill_fmt). */
static int ug_f32_only(const ug_dist *d, char *err, size_t errlen)
{
    if (ug_dist_validate(d, err, errlen)) return -1;
    if (d->fmt == UG_F32) return 0;
    char name[128];
    return ug_dist_fail(err, errlen, "dist %s is drawn in %s: a binary32 buffer cannot take it "
                        "(ug_dist_fill_fmt)", ug_dist_describe(d, name, sizeof name),
                        ug_fmt_name(d->fmt));
}

static int ug_fill_check(const ug_dist *d, size_t n, char *err, size_t errlen)
{
    if (ug_f32_only(d, err, errlen)) return -1;
    if ((uint64_t)n > UG_DIST_MAX_ELEMS) {
        char name[128];
        return ug_dist_fail(err, errlen, "dist %s: %zu elements is more than the %llu supported",
                            ug_dist_describe(d, name, sizeof name), n,
                            (unsigned long long)UG_DIST_MAX_ELEMS);
    }
    return 0;
}

static int ug_gen_fail(const ug_dist *d, size_t n, int rc, char *err, size_t errlen)
{
    char name[128];
    return ug_dist_fail(
        err, errlen, "dist %s, n = %zu: %s", ug_dist_describe(d, name, sizeof name), n,
        rc == UG_GEN_OOM ? "out of memory" : "a generated value overflowed binary32");
}

static int ug_oom(const ug_dist *d, size_t n, char *err, size_t errlen)
{
    char name[128];
    return ug_dist_fail(err, errlen, "dist %s, n = %zu: out of memory",
                        ug_dist_describe(d, name, sizeof name), n);
}

static void ug_alternate_signs(float *x, size_t n, size_t stride)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t b = ug_f32_bits(x[i * stride]) & 0x7fffffffu;
        x[i * stride] = ug_bits_f32(b | (uint32_t)(i & 1) << 31);
    }
}

static void ug_abs_all(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = ug_bits_f32(ug_f32_bits(x[i]) & 0x7fffffffu);
}

/* Sum input: base values, then the transforms: order (by value or magnitude), alternating signs
 * x_i = (-1)^i |x_i|, special values per element. */
int ug_dist_fill_sum(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                     float *x, size_t n, char *err, size_t errlen)
{
    if (ug_fill_check(d, n, err, errlen)) return -1;
    if (d->kind == UG_D_GENDOT) {
        char name[128];
        return ug_dist_fail(err, errlen,
                            "dist %s makes dot/gemm inputs; use gensum for a sum input",
                            ug_dist_describe(d, name, sizeof name));
    }
    ug_stream s = ug_stream_make(seed, stream_id, trial);
    if (d->kind == UG_D_MSVC_RAND01) {
        ug_fill_msvc_rand01(trial, 0, x, n);
    } else if (d->kind == UG_D_GENSUM) {
        int rc = ug_gen_fill_sum(&s, d->p1, x, n);
        if (rc) return ug_gen_fail(d, n, rc, err, errlen);
    } else {
        ug_fill_base(d, &s, UG_P_X, x, n);
    }
    if (d->order != UG_ORDER_NONE && n > 1) {
        uint32_t *tmp = malloc(2 * n * sizeof *tmp);
        if (!tmp) return ug_oom(d, n, err, errlen);
        ug_order_f32(x, n, 1, d->order, tmp);
        free(tmp);
    }
    if (d->alternate) ug_alternate_signs(x, n, 1);
    ug_inject_specials(d, &s, UG_P_SPEC_X, x, n);
    return 0;
}

/* Dot input: x and y from independent sub-streams (GenDot: the pair; GenSum: two independent
 * GenSum vectors; msvc_rand01: x then y in one rand() stream).  Order: the pairs by product.
 * Alternate: x_i = (-1)^i |x_i|, y_i = |y_i|, so the products alternate in sign.  Specials: x
 * and y independently. */
int ug_dist_fill_dot(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                     float *x, float *y, size_t n, char *err, size_t errlen)
{
    if (ug_fill_check(d, n, err, errlen)) return -1;
    ug_stream s = ug_stream_make(seed, stream_id, trial);
    if (d->kind == UG_D_MSVC_RAND01) {
        ug_fill_msvc_rand01(trial, 0, x, n);
        ug_fill_msvc_rand01(trial, 2 * (uint64_t)n, y, n);
    } else if (ug_is_gen(d)) {
        int rc = ug_gen_fill_dot(&s, d->kind, d->p1, x, y, n);
        if (rc) return ug_gen_fail(d, n, rc, err, errlen);
    } else {
        ug_fill_base(d, &s, UG_P_X, x, n);
        ug_fill_base(d, &s, UG_P_Y, y, n);
    }
    if (ug_order_pairs(x, y, n, d->order)) return ug_oom(d, n, err, errlen);
    if (d->alternate) {
        ug_alternate_signs(x, n, 1);
        ug_abs_all(y, n);
    }
    ug_inject_specials(d, &s, UG_P_SPEC_X, x, n);
    ug_inject_specials(d, &s, UG_P_SPEC_Y, y, n);
    return 0;
}


/* A (M x K) and B (K x N), row-major.  Elementwise kinds: A from one sub-stream (row-major
 * index), B from another.  Order: each row of A and each column of B by its own values.
 * Alternate: A[r][k] = (-1)^k |A[r][k]|, B = |B|, so every product A[r][k] B[k][c] has sign
 * (-1)^k.  Specials: per element, A and B independently. */
int ug_dist_fill_gemm(const ug_dist *d, uint64_t seed, uint64_t stream_id, uint32_t trial,
                      float *A, float *B, size_t M, size_t N, size_t K, char *err,
                      size_t errlen)
{
    size_t na = M * K, nb = K * N;
    if (ug_f32_only(d, err, errlen)) return -1;
    if ((K && (M > UG_DIST_MAX_ELEMS / K || N > UG_DIST_MAX_ELEMS / K)) ||
        (ug_is_gen(d) && M + N >= UG_DIST_MAX_VECS)) {
        char name[128];
        return ug_dist_fail(err, errlen, "dist %s: gemm %zu x %zu x %zu is too large",
                            ug_dist_describe(d, name, sizeof name), M, N, K);
    }
    ug_stream s = ug_stream_make(seed, stream_id, trial);
    if (d->kind == UG_D_MSVC_RAND01) {
        ug_fill_msvc_rand01(trial, 0, A, na);
        ug_fill_msvc_rand01(trial, 2 * (uint64_t)na, B, nb);
    } else if (ug_is_gen(d)) {
        int rc = ug_gen_fill_gemm(&s, d->kind, d->p1, A, B, M, N, K);
        if (rc) return ug_gen_fail(d, K, rc, err, errlen);
    } else {
        ug_fill_base(d, &s, UG_P_X, A, na);
        ug_fill_base(d, &s, UG_P_Y, B, nb);
    }
    if (d->order != UG_ORDER_NONE && K > 1) {
        uint32_t *tmp = malloc(2 * K * sizeof *tmp);
        if (!tmp) return ug_oom(d, K, err, errlen);
        for (size_t r = 0; r < M; r++) ug_order_f32(A + r * K, K, 1, d->order, tmp);
        for (size_t c = 0; c < N; c++) ug_order_f32(B + c, K, N, d->order, tmp);
        free(tmp);
    }
    if (d->alternate) {
        for (size_t r = 0; r < M; r++) ug_alternate_signs(A + r * K, K, 1);
        ug_abs_all(B, nb);
    }
    ug_inject_specials(d, &s, UG_P_SPEC_X, A, na);
    ug_inject_specials(d, &s, UG_P_SPEC_Y, B, nb);
    return 0;
}

int ug_dist_fill_op(const ug_dist *d, const ug_op_desc *op, uint64_t seed, uint64_t stream_id,
                    uint32_t trial, float *x, float *y, const ug_shape *s, char *err,
                    size_t errlen)
{
    if (op->shape->layout == UG_LAYOUT_MATMUL) {
        int rc = ug_dist_fill_gemm(d, seed, stream_id, trial, x, y, s->dim[0], s->dim[1],
                                   s->dim[2], err, errlen);
        if (rc == 0 && op->shape_inputs) op->shape_inputs(x, y, s);
        return rc;
    }
    if (op->shape->arity == 2 && op->fill_params) { /* a layer: data from the distribution */
        int rc = ug_dist_fill_sum(d, seed, stream_id, trial, x, s->dim[0], err, errlen);
        if (rc == 0) op->fill_params(y, s, seed ^ stream_id, trial);
        return rc;
    }
    if (op->shape->arity == 2)
        return ug_dist_fill_dot(d, seed, stream_id, trial, x, y, s->dim[0], err, errlen);
    return ug_dist_fill_sum(d, seed, stream_id, trial, x, s->dim[0], err, errlen);
}
