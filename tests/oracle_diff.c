/*
 * oracle_diff.c - differential tests: the fast exact oracle against MPFR, bit for bit
 * (ug_exact_equal: hi, lo, rn, rd and class identical, sum_abs within 1e-12).
 *
 * About 1.05 million input vectors in all: short vectors (1-48 terms) of binary32 sums,
 * binary32 dots and binary64 sums drawn from generators that cover the whole exponent range,
 * subnormals, values with few significant bits, small integers, normal values, and adversarial
 * constructions on top: exact cancellation (terms and their negations, shuffled), binary32 and
 * binary64 ties (a value plus half its ulp, hidden among cancelling pairs, optionally broken by
 * a tiny term), sums at binary32's overflow threshold, binary64 sums near DBL_MAX, signed zeros
 * and special values.  Then long vectors (up to 400 000 terms: the fast path's block bounds,
 * its three-level and general fallbacks, the multithreaded split) and GEMM against per-element
 * MPFR dots (tests/oracle_diff_gemm.c), once more with the generic (non-AVX-512) kernels.
 * Everything derives from the run's seed (--seed): a failure message gives the vector's index,
 * and the same seed reproduces it.  The same runs put the GPU oracle (or its host model) under
 * test when od_use_gpu says so (tests/oracle_gpu_model.c, tests/oracle_diff_gpu.c).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "tests/oracle_diff.h"
#include "oracle/xacc.h"

/* ---- random values --------------------------------------------------------------------------- */

drng od_drng_make(ug_t *t, const char *what)
{
    drng r = {ug_stream_make(ug_seed(t), ug_hash64(what, UG_HASH64_INIT), 0), 0};
    return r;
}

uint64_t od_r64(drng *r)
{
    return ug_rng_u64(&r->s, r->i++);
}

/* uniform in [0, n) */
uint32_t od_rbelow(drng *r, uint32_t n)
{
    return (uint32_t)(((od_r64(r) >> 32) * n) >> 32);
}

/* 2^e as binary32 for -149 <= e <= 127 (subnormal powers included) */
static float pow2f(int e)
{
    return e >= -126 ? ug_bits_f32((uint32_t)(e + 127) << 23) : ug_bits_f32(1u << (e + 149));
}

/* binary32 ulp of a finite x (2^-149 in the subnormal range) */
static float ulpf(float x)
{
    x = fabsf(x);
    if (x < 0x1p-126f)
        return 0x1p-149f;
    return pow2f(ilogbf(x) - 23);
}

gen od_gen_pick(drng *r, int emin, int emax)
{
    gen g = {(int)od_rbelow(r, G_NKINDS), 0, 0, 0};
    int w = (int)od_rbelow(r, 4) == 0 ? (int)od_rbelow(r, (uint32_t)(emax - emin))
                                      : (int)od_rbelow(r, 40);
    g.e0 = emin + (int)od_rbelow(r, (uint32_t)(emax - emin - w + 1));
    g.e1 = g.e0 + w;
    g.scale = (int)od_rbelow(r, 60) - 30;
    return g;
}

float od_gen_f32(drng *r, const gen *g)
{
    uint32_t sign = (uint32_t)(od_r64(r) & 1) << 31;
    switch (g->kind) {
    case G_BITS: { /* any finite binary32: uniform over bit patterns */
        uint32_t b;
        do
            b = (uint32_t)od_r64(r);
        while (((b >> 23) & 0xff) == 0xff);
        return ug_bits_f32(b);
    }
    case G_WINDOW: { /* random significand, exponent in the window (subnormal below -126) */
        int e = g->e0 + (int)od_rbelow(r, (uint32_t)(g->e1 - g->e0 + 1));
        if (e < -126) { /* a subnormal with fewer bits the lower e is */
            int shift = -126 - e > 22 ? 22 : -126 - e;
            return ug_bits_f32(sign | (uint32_t)((od_r64(r) & 0x7fffff) >> shift));
        }
        float v = ug_bits_f32(0x3f800000u | ((uint32_t)od_r64(r) & 0x7fffff)) * pow2f(e);
        return sign ? -v : v;
    }
    case G_SUBNORMAL:
        return ug_bits_f32(sign |
                           ((uint32_t)od_r64(r) & (od_rbelow(r, 2) ? 0x7fffffu : 0xffffffu)));
    case G_FEWBITS: { /* 1-4 significant bits: sums full of ties */
        int e = g->e0 + (int)od_rbelow(r, (uint32_t)(g->e1 - g->e0 + 1));
        float m = (float)(1 + od_rbelow(r, 15));
        float v = m * pow2f(e < -149 ? -149 : e > 120 ? 120 : e);
        return sign ? -v : v;
    }
    case G_SMALLINT: {
        float v = (float)(int)(od_rbelow(r, 2001)) - 1000.0f;
        return v * pow2f(g->scale);
    }
    default: { /* normal(0, 1) by Box-Muller */
        double u1 = ((double)(od_r64(r) >> 11) + 0.5) * 0x1p-53;
        double u2 = (double)(od_r64(r) >> 11) * 0x1p-53;
        return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
    }
}

/* Adversarial rewrites of a vector of n values (capacity cap >= 2n + 4); returns the new n.
 * mode: 0 none, 1 cancellation, 2 binary32 tie, 3 binary64 tie, 4 overflow threshold,
 * 5 specials and signed zeros. */
static size_t adversarial_f32(drng *r, float *x, size_t n, size_t cap, int mode)
{
    switch (mode) {
    case 1: { /* append the negations of a prefix, then shuffle: the sum is the rest's */
        size_t k = od_rbelow(r, (uint32_t)n + 1);
        for (size_t i = 0; i < k && n < cap; i++)
            x[n++] = -x[i];
        break;
    }
    case 2:
    case 3: { /* m + half an ulp (binary32 or binary64 ulp), among cancelling pairs */
        float m = x[0];
        if (!(fabsf(m) >= 0x1p-90f && fabsf(m) <= 0x1p120f))
            m = 1.0f + (float)od_rbelow(r, 1000) * 0x1p-10f;
        /* binary64's half ulp of m is 2^(e-53) = ulp32(m) 2^-30 (m normal) */
        float h = mode == 2 ? 0.5f * ulpf(m) : ldexpf(ulpf(m), -30);
        h = (od_r64(r) & 1) ? h : -h;
        for (size_t i = 0; i + 1 < n; i += 2)
            x[i + 1] = -x[i];
        if (n % 2)
            x[n - 1] = 0.0f;
        if (n + 3 <= cap) {
            x[n++] = m;
            x[n++] = h;
            if (od_rbelow(r, 3) == 0) /* break the tie by a tiny term */
                x[n++] = (od_r64(r) & 1 ? 1 : -1) * 0x1p-149f * (float)(1 + od_rbelow(r, 4));
        }
        break;
    }
    case 4: { /* at binary32's overflow threshold FLT_MAX + 2^103, either sign */
        float s = (od_r64(r) & 1) ? 1.0f : -1.0f;
        n = 0;
        x[n++] = s * 0x1.fffffep127f;
        x[n++] = s * (od_rbelow(r, 2) ? 0x1p103f : 0x1p102f);
        if (od_rbelow(r, 2))
            x[n++] = (od_r64(r) & 1 ? 1 : -1) * 0x1p-149f;
        if (od_rbelow(r, 2))
            x[n++] = s * 0x1.fffffep127f;
        break;
    }
    case 5: { /* specials and signed zeros at random places */
        static const float sp[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, -0.0f};
        size_t k = 1 + od_rbelow(r, 3);
        for (size_t i = 0; i < k && n > 0; i++)
            x[od_rbelow(r, (uint32_t)n)] = sp[od_rbelow(r, sizeof sp / sizeof sp[0])];
        if (od_rbelow(r, 3) == 0)
            for (size_t i = 0; i < n; i++)
                x[i] = -0.0f;
        break;
    }
    default:
        break;
    }
    for (size_t i = n; i > 1; i--) { /* shuffle */
        size_t j = od_rbelow(r, (uint32_t)i);
        float tmp = x[i - 1];
        x[i - 1] = x[j];
        x[j] = tmp;
    }
    return n;
}

/* ---- comparison ------------------------------------------------------------------------------ */

static const ug_gpu_oracle_ops *od_gpu; /* od_use_gpu; NULL: the fast oracle */

/* Vectors waiting for one batched GPU call (copies), flushed at od_finish or when large. */
typedef struct od_pending {
    float *x, *y; /* y: dots only */
    size_t n;
    long idx;
} od_pending;

static od_pending *pend[2]; /* [0] sums, [1] dots */
static size_t n_pend[2], cap_pend[2], pend_terms;

void od_use_gpu(const ug_gpu_oracle_ops *ops)
{
    od_gpu = ops;
}

/* One batch of one kind: the GPU oracle's records against MPFR's, sum_abs included. */
static void gpu_flush_kind(ug_t *t, tally *ty, int dot)
{
    size_t m = n_pend[dot];
    if (!m)
        return;
    const float **xs = malloc(m * sizeof *xs), **ys = malloc(m * sizeof *ys);
    size_t *ns = malloc(m * sizeof *ns);
    ug_exact *got = malloc(m * sizeof *got);
    UG_ASSERT_MSG(xs && ys && ns && got, "out of memory");
    for (size_t i = 0; i < m; i++) {
        xs[i] = pend[dot][i].x;
        ys[i] = pend[dot][i].y;
        ns[i] = pend[dot][i].n;
    }
    char err[400] = "";
    int rc = dot ? od_gpu->dots_f32(xs, ys, ns, m, got, err, sizeof err)
                 : od_gpu->sums_f32(xs, ns, m, got, err, sizeof err);
    UG_EXPECT_MSG(rc == 0, "%s oracle failed on %zu vectors: %s", od_gpu->name, m, err);
    for (size_t i = 0; i < m && rc == 0; i++) {
        const od_pending *p = &pend[dot][i];
        ug_exact ref;
        if (dot)
            ug_exact_dot_f32_mpfr(p->x, 1, p->y, 1, p->n, &ref);
        else
            ug_exact_sum_f32_mpfr(p->x, p->n, &ref);
        ty->vectors++;
        if (!ug_exact_equal(&got[i], &ref) || ug_f64_bits(got[i].sum_abs) != ug_f64_bits(ref.sum_abs))
            od_report_mismatch(t, ty, dot ? "gpu dot f32" : "gpu sum f32", p->idx, p->x, p->y,
                               NULL, p->n, &got[i], &ref);
    }
    for (size_t i = 0; i < m; i++) {
        free(pend[dot][i].x);
        free(pend[dot][i].y);
    }
    n_pend[dot] = 0;
    free(xs);
    free(ys);
    free(ns);
    free(got);
}

static void gpu_flush(ug_t *t, tally *ty)
{
    gpu_flush_kind(t, ty, 0);
    gpu_flush_kind(t, ty, 1);
    pend_terms = 0;
}

static void gpu_add(ug_t *t, tally *ty, long idx, const float *x, const float *y, size_t n)
{
    int dot = y != NULL;
    if (n_pend[dot] == cap_pend[dot]) {
        cap_pend[dot] = cap_pend[dot] ? 2 * cap_pend[dot] : 1024;
        pend[dot] = realloc(pend[dot], cap_pend[dot] * sizeof *pend[dot]);
        UG_ASSERT_MSG(pend[dot], "out of memory");
    }
    od_pending *p = &pend[dot][n_pend[dot]++];
    p->n = n;
    p->idx = idx;
    p->x = malloc((n ? n : 1) * sizeof *p->x);
    p->y = dot ? malloc((n ? n : 1) * sizeof *p->y) : NULL;
    UG_ASSERT_MSG(p->x && (!dot || p->y), "out of memory");
    memcpy(p->x, x, n * sizeof *x);
    if (dot)
        memcpy(p->y, y, n * sizeof *y);
    pend_terms += n;
    if (pend_terms > (1u << 22))
        gpu_flush(t, ty);
}

void od_report_mismatch(ug_t *t, tally *ty, const char *what, long index, const float *x,
                        const float *y, const double *xd, size_t n, const ug_exact *a,
                        const ug_exact *b)
{
    ty->bad++;
    if (ty->bad > 5)
        return;
    char vals[400] = "";
    size_t len = 0;
    for (size_t i = 0; i < n && i < 6 && len < sizeof vals - 80; i++)
    {
        len += (size_t)snprintf(vals + len, sizeof vals - len, "%s%a", i ? ", " : "",
                                xd ? xd[i] : (double)x[i]);
        if (y)
            len += (size_t)snprintf(vals + len, sizeof vals - len, "*%a", (double)y[i]);
    }
    UG_EXPECT_MSG(0,
                  "%s #%ld (n=%zu: %s%s): %s hi=%a lo=%a rn=%a rd=%a cls=%d sabs=%a, "
                  "mpfr hi=%a lo=%a rn=%a rd=%a cls=%d sabs=%a",
                  what, index, n, vals, n > 6 ? ", ..." : "", od_gpu ? od_gpu->name : "fast",
                  a->hi, a->lo, (double)a->rn,
                  (double)a->rd, a->cls, a->sum_abs, b->hi, b->lo, (double)b->rn, (double)b->rd,
                  b->cls, b->sum_abs);
}

static void diff_sum32(ug_t *t, tally *ty, long idx, const float *x, size_t n)
{
    if (od_gpu) {
        gpu_add(t, ty, idx, x, NULL, n);
        return;
    }
    ug_exact a, b;
    ug_exact_sum_f32_fast(x, n, &a);
    ug_exact_sum_f32_mpfr(x, n, &b);
    ty->vectors++;
    if (!ug_exact_equal(&a, &b))
        od_report_mismatch(t, ty, "sum f32", idx, x, NULL, NULL, n, &a, &b);
}

static void diff_dot32(ug_t *t, tally *ty, long idx, const float *x, const float *y, size_t n)
{
    if (od_gpu) {
        gpu_add(t, ty, idx, x, y, n);
        return;
    }
    ug_exact a, b;
    ug_exact_dot_f32_fast(x, 1, y, 1, n, &a);
    ug_exact_dot_f32_mpfr(x, 1, y, 1, n, &b);
    ty->vectors++;
    if (!ug_exact_equal(&a, &b))
        od_report_mismatch(t, ty, "dot f32", idx, x, y, NULL, n, &a, &b);
}

static void diff_sum64(ug_t *t, tally *ty, long idx, const double *x, size_t n)
{
    if (od_gpu) /* the GPU oracle takes binary32 only */
        return;
    ug_exact a, b;
    ug_exact_sum_f64_fast(x, n, &a);
    ug_exact_sum_f64_mpfr(x, n, &b);
    ty->vectors++;
    if (!ug_exact_equal(&a, &b))
        od_report_mismatch(t, ty, "sum f64", idx, NULL, NULL, x, n, &a, &b);
}

void od_finish(ug_t *t, const char *what, tally *ty)
{
    if (od_gpu)
        gpu_flush(t, ty);
    ug_note(t, "%s: %ld vectors, %ld differ", what, ty->vectors, ty->bad);
    UG_EXPECT_MSG(ty->bad == 0, "%s: %ld of %ld vectors differ from MPFR (%s oracle)", what,
                  ty->bad, ty->vectors, od_gpu ? od_gpu->name : "fast");
}

/* ---- short vectors --------------------------------------------------------------------------- */

enum { SHORT_CAP = 128 };

size_t od_short_len(drng *r)
{
    return 1 + od_rbelow(r, 1 + od_rbelow(r, 48));
}

void od_run_short_sum32(ug_t *t, long count, const char *stream)
{
    drng r = od_drng_make(t, stream);
    tally ty = {0, 0};
    float x[SHORT_CAP];
    for (long v = 0; v < count; v++) {
        gen g = od_gen_pick(&r, -160, 127);
        size_t n = od_short_len(&r);
        for (size_t i = 0; i < n; i++)
            x[i] = od_gen_f32(&r, &g);
        int m = (int)od_rbelow(&r, 11); /* modes 0-4 twice as often as 5 (specials) */
        n = adversarial_f32(&r, x, n, SHORT_CAP, m < 10 ? m / 2 : 5);
        diff_sum32(t, &ty, v, x, n);
    }
    od_finish(t, "sum f32", &ty);
}

void od_run_short_dot32(ug_t *t, long count, const char *stream)
{
    drng r = od_drng_make(t, stream);
    tally ty = {0, 0};
    float x[SHORT_CAP], y[SHORT_CAP];
    for (long v = 0; v < count; v++) {
        gen gx = od_gen_pick(&r, -160, 127), gy = od_gen_pick(&r, -160, 127);
        size_t n = od_short_len(&r);
        for (size_t i = 0; i < n; i++) {
            x[i] = od_gen_f32(&r, &gx);
            y[i] = od_gen_f32(&r, &gy);
        }
        switch (od_rbelow(&r, 6)) {
        case 1: /* exact cancellation: (x, y) and (-x, y) or (x, -y) pairs */
            for (size_t i = 0; i + 1 < n; i += 2) {
                x[i + 1] = (od_r64(&r) & 1) ? -x[i] : x[i];
                y[i + 1] = x[i + 1] == x[i] ? -y[i] : y[i];
            }
            break;
        case 2: { /* a product tie: m*1 + h*(+-1), h half of m's binary32 ulp, amid pairs */
            float m = x[0];
            if (!(fabsf(m) >= 0x1p-100f && fabsf(m) <= 0x1p100f))
                m = 3.0f;
            size_t n0 = n;
            for (size_t i = 0; i + 1 < n0; i += 2) {
                x[i + 1] = -x[i];
                y[i + 1] = y[i];
            }
            if (n0 % 2) /* the unpaired term vanishes */
                y[n0 - 1] = 0.0f;
            x[n] = m;
            y[n++] = 1.0f;
            x[n] = 0.5f * ulpf(m);
            y[n++] = (od_r64(&r) & 1) ? 1.0f : -1.0f;
            break;
        }
        case 3: { /* specials: 0 * inf, inf * x, NaN, signed zeros */
            static const float sp[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f};
            size_t i = od_rbelow(&r, (uint32_t)n);
            x[i] = sp[od_rbelow(&r, 5)];
            if (od_rbelow(&r, 2))
                y[od_rbelow(&r, (uint32_t)n)] = sp[od_rbelow(&r, 5)];
            break;
        }
        default:
            break;
        }
        diff_dot32(t, &ty, v, x, y, n);
    }
    od_finish(t, "dot f32", &ty);
}

static double gen_f64(drng *r, int kind, int e0, int e1)
{
    double s = (od_r64(r) & 1) ? -1.0 : 1.0;
    switch (kind) {
    case 0: { /* any finite binary64 */
        uint64_t b;
        do
            b = od_r64(r);
        while (((b >> 52) & 0x7ff) == 0x7ff);
        return ug_bits_f64(b);
    }
    case 1: /* exponent window */
        return s * ldexp(1.0 + (double)(od_r64(r) >> 12) * 0x1p-52,
                         e0 + (int)od_rbelow(r, (uint32_t)(e1 - e0 + 1)));
    case 2: /* subnormal binary64 */
        return s * ug_bits_f64(od_r64(r) & 0x000fffffffffffffULL);
    case 3: { /* few bits (e <= 1019: 15 * 2^1019 < DBL_MAX) */
        int e = e0 + (int)od_rbelow(r, (uint32_t)(e1 - e0 + 1));
        return s * ldexp((double)(1 + od_rbelow(r, 15)), e > 1019 ? 1019 : e);
    }
    default: /* binary32 values, as binary64 */
        return (double)(float)(s * (double)(od_r64(r) >> 40) * 0x1p-12);
    }
}

void od_run_short_sum64(ug_t *t, long count, const char *stream)
{
    drng r = od_drng_make(t, stream);
    tally ty = {0, 0};
    double x[SHORT_CAP];
    for (long v = 0; v < count; v++) {
        int kind = (int)od_rbelow(&r, 5);
        int w = od_rbelow(&r, 4) == 0 ? (int)od_rbelow(&r, 2090) : (int)od_rbelow(&r, 60);
        int e0 = -1074 + (int)od_rbelow(&r, (uint32_t)(2098 - w)), e1 = e0 + w;
        if (e1 > 1023)
            e1 = 1023;
        size_t n = od_short_len(&r);
        for (size_t i = 0; i < n; i++)
            x[i] = gen_f64(&r, kind, e0, e1);
        switch (od_rbelow(&r, 6)) {
        case 1: /* cancellation */
            for (size_t i = 0; i + 1 < n; i += 2)
                x[i + 1] = -x[i];
            break;
        case 2: { /* binary64 tie m + ulp64(m)/2 among pairs, maybe broken by 2^-1074 */
            double m = ldexp(1.0 + (double)(od_r64(&r) >> 12) * 0x1p-52,
                             (int)od_rbelow(&r, 1800) - 900);
            for (size_t i = 0; i + 1 < n; i += 2)
                x[i + 1] = -x[i];
            if (n % 2)
                x[n - 1] = 0.0;
            if (n + 3 <= SHORT_CAP) {
                x[n++] = m;
                x[n++] = ldexp(1.0, ilogb(m) - 53);
                if (od_rbelow(&r, 2))
                    x[n++] = (od_r64(&r) & 1 ? 1 : -1) * 0x1p-1074;
            }
            break;
        }
        case 3: /* near DBL_MAX: binary64 overflow of hi, and its threshold */
            x[0] = DBL_MAX;
            if (n > 1)
                x[1] = od_rbelow(&r, 2) ? 0x1p970 : 0x1p969;
            if (n > 2 && od_rbelow(&r, 2))
                x[2] = -0x1p-1074;
            break;
        case 4: { /* specials, signed zeros */
            static const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0};
            x[od_rbelow(&r, (uint32_t)n)] = sp[od_rbelow(&r, 5)];
            break;
        }
        default:
            break;
        }
        diff_sum64(t, &ty, v, x, n);
    }
    od_finish(t, "sum f64", &ty);
}

UG_CASE(oracle_diff, short_sum_f32)
{
    od_run_short_sum32(t, 400000, "oracle_diff/short_sum_f32");
}

UG_CASE(oracle_diff, short_dot_f32)
{
    od_run_short_dot32(t, 350000, "oracle_diff/short_dot_f32");
}

UG_CASE(oracle_diff, short_sum_f64)
{
    od_run_short_sum64(t, 250000, "oracle_diff/short_sum_f64");
}

/* ---- long vectors ---------------------------------------------------------------------------- */

/* Piecewise data: segments of a few thousand terms, each from its own generator, so block bounds
 * go up and down (the fast path's guess from the previous block holds, or not). */
static void fill_long(drng *r, float *x, size_t n)
{
    size_t i = 0;
    while (i < n) {
        gen g = od_gen_pick(r, -150, 120);
        if (od_rbelow(r, 2))
            g.kind = G_NORMAL;
        size_t seg = 1 + od_rbelow(r, 9000);
        float scale = pow2f((int)od_rbelow(r, 40) - 20);
        for (size_t k = 0; k < seg && i < n; k++, i++)
            x[i] = g.kind == G_NORMAL ? od_gen_f32(r, &g) * scale : od_gen_f32(r, &g);
    }
}

void od_run_long(ug_t *t, const char *stream, int vectors)
{
    drng r = od_drng_make(t, stream);
    tally ty = {0, 0};
    size_t cap = 400000;
    float *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
    double *xd = malloc(cap * sizeof *xd);
    UG_ASSERT_MSG(x && y && xd, "out of memory");
    for (int v = 0; v < vectors; v++) {
        /* mostly 2k..70k terms; every 8th beyond 2^18 (the multithreaded split) */
        size_t n = v % 8 == 7 ? 262144 + od_rbelow(&r, 130000) : 2000 + od_rbelow(&r, 68000);
        fill_long(&r, x, n);
        fill_long(&r, y, n);
        if (v % 5 == 4) /* exact cancellation over the whole vector */
            for (size_t i = n / 2; i < n; i++) {
                x[i] = -x[i - n / 2];
                y[i] = y[i - n / 2];
            }
        for (size_t i = 0; i < n; i++)
            xd[i] = (double)x[i] * (v % 3 == 0 ? 0x1p-700 : 0x1p300) + (double)y[i];
        diff_sum32(t, &ty, v, x, n);
        diff_dot32(t, &ty, v, x, y, n);
        diff_sum64(t, &ty, v, xd, n);
    }
    free(x);
    free(y);
    free(xd);
    od_finish(t, "long vectors", &ty);
}

UG_CASE(oracle_diff, long_vectors)
{
    od_run_long(t, "oracle_diff/long_vectors", 40);
}

/* The exact accumulator's carry code on real sums and dots, with a normalisation after every 1,
 * 2 or 5 additions (oracle/xacc on its own: tests/oracle_xacc.c). */
UG_CASE(oracle_diff, normalisation)
{
    static const uint32_t every[] = {1, 2, 5};
    for (size_t i = 0; i < sizeof every / sizeof every[0]; i++) {
        ug_xacc_set_norm_interval(every[i]);
        od_run_short_sum32(t, 10000, "oracle_diff/normalisation/sum32");
        od_run_short_sum64(t, 10000, "oracle_diff/normalisation/sum64");
        od_run_long(t, "oracle_diff/normalisation/long", 3);
    }
    ug_xacc_set_norm_interval(0);
}
