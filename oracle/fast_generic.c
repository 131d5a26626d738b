/*
 * fast_generic.c - the fast oracle's kernels for any CPU: GCC vector extensions, 2 streams of 4
 * doubles (8 lanes: few registers on SSE2), compiled for the baseline ISA.  fast_kernels.h says
 * what the kernels compute and why contraction cannot change it; also here: the scalar tail the
 * x86 sum32_direct kernels share.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/bits.h"
#include "oracle/fast_kernels.h"

typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef long long v4l __attribute__((vector_size(32)));

#define GABS(v) ((v4d)((v4l)(v) & ((v4l){0} + INT64_MAX)))
#define GMAX(m, v) ((v4d)((((v) > (m)) & (v4l)(v)) | (~((v) > (m)) & (v4l)(m))))
#define GLOAD(dst, idx)                                                                        \
    do {                                                                                       \
        if (kind == UG_TERMS_SUM64) {                                                          \
            memcpy(&(dst), (const double *)a + (idx), sizeof(v4d));                            \
        } else {                                                                               \
            v4f fx_;                                                                           \
            memcpy(&fx_, (const float *)a + (idx), sizeof fx_);                                \
            (dst) = __builtin_convertvector(fx_, v4d);                                         \
            if (kind == UG_TERMS_DOT32) {                                                      \
                v4f fy_;                                                                       \
                memcpy(&fy_, b + (idx), sizeof fy_);                                           \
                (dst) = (dst) * __builtin_convertvector(fy_, v4d);                             \
            }                                                                                  \
        }                                                                                      \
    } while (0)

#define G_FUSED_STREAM(u)                                                                      \
    do {                                                                                       \
        v4d p_, q_;                                                                            \
        GLOAD(p_, i + 4 * (u));                                                                \
        v4d ap_ = GABS(p_);                                                                    \
        sa[u] += ap_;                                                                          \
        if (want_max)                                                                          \
            mx[u] = GMAX(mx[u], ap_);                                                          \
        q_ = (p_ + S1) - S1;                                                                   \
        p_ -= q_;                                                                              \
        l1[u] += q_;                                                                           \
        if (levels > 1) {                                                                      \
            q_ = (p_ + S2) - S2;                                                               \
            p_ -= q_;                                                                          \
            l2[u] += q_;                                                                       \
        }                                                                                      \
        if (levels > 2) {                                                                      \
            q_ = (p_ + S3) - S3;                                                               \
            p_ -= q_;                                                                          \
            l3[u] += q_;                                                                       \
        }                                                                                      \
        left |= (v4l)p_;                                                                       \
    } while (0)

UG_INLINE void fused_generic_body(ug_terms_kind kind, int levels, int want_max, const void *a,
                                  const float *b, size_t n, const double *sig, ug_fused_out *o)
{
    const v4d S1 = (v4d){0} + sig[0];
    const v4d S2 = (v4d){0} + (levels > 1 ? sig[1] : 0.0);
    const v4d S3 = (v4d){0} + (levels > 2 ? sig[2] : 0.0);
    v4d l1[2] = {{0}}, l2[2] = {{0}}, l3[2] = {{0}}, sa[2] = {{0}}, mx[2] = {{0}};
    v4l left = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        G_FUSED_STREAM(0);
        G_FUSED_STREAM(1);
    }
    *o = (ug_fused_out){{0, 0, 0}, 0, 0, 0};
    for (int u = 0; u < 2; u++)
        for (int l = 0; l < 4; l++) {
            o->level[0] += l1[u][l];
            o->level[1] += l2[u][l];
            o->level[2] += l3[u][l];
            o->sum_abs += sa[u][l];
            o->max_abs = mx[u][l] > o->max_abs ? mx[u][l] : o->max_abs;
        }
    for (int l = 0; l < 4; l++)
        o->residual |= (left[l] & INT64_MAX) != 0; /* a nonzero bit other than the sign */
    fused_tail(kind, levels, want_max, a, b, i, n, sig, o);
}

#define G_STATS_STREAM(u)                                                                      \
    do {                                                                                       \
        v4d p_;                                                                                \
        GLOAD(p_, i + 4 * (u));                                                                \
        if (buf)                                                                               \
            memcpy(buf + i + 4 * (u), &p_, sizeof p_);                                         \
        p_ = GABS(p_);                                                                         \
        sa[u] += p_;                                                                           \
        mx[u] = GMAX(mx[u], p_);                                                               \
    } while (0)

UG_INLINE void terms_generic_body(ug_terms_kind kind, const void *a, const float *b, size_t n,
                                  double *buf, double st[2])
{
    v4d sa[2] = {{0}}, mx[2] = {{0}};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        G_STATS_STREAM(0);
        G_STATS_STREAM(1);
    }
    st[0] = st[1] = 0;
    for (int u = 0; u < 2; u++)
        for (int l = 0; l < 4; l++) {
            st[0] = mx[u][l] > st[0] ? mx[u][l] : st[0];
            st[1] += sa[u][l];
        }
    stats_tail(kind, a, b, i, n, buf, st);
}

#define G_LEVEL_STREAM(u)                                                                      \
    do {                                                                                       \
        v4d p_, q_;                                                                            \
        memcpy(&p_, src + i + 4 * (u), sizeof p_);                                             \
        q_ = (p_ + S) - S;                                                                     \
        p_ -= q_;                                                                              \
        acc[u] += q_;                                                                          \
        memcpy(dst + i + 4 * (u), &p_, sizeof p_);                                             \
        mx[u] = GMAX(mx[u], GABS(p_));                                                         \
    } while (0)

static double level_generic(const double *src, double *dst, size_t n, double sigma,
                            double *sum)
{
    const v4d S = (v4d){0} + sigma;
    v4d acc[2] = {{0}}, mx[2] = {{0}};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        G_LEVEL_STREAM(0);
        G_LEVEL_STREAM(1);
    }
    double s = 0, m = 0;
    for (int u = 0; u < 2; u++)
        for (int l = 0; l < 4; l++) {
            s += acc[u][l];
            m = mx[u][l] > m ? mx[u][l] : m;
        }
    level_tail(src, dst, i, n, sigma, &s, &m);
    *sum = s;
    return m;
}

/* binary32 sums, direct (exact_fast.c, block_fused): sum x_i in binary64 lanes, sum |x_i|,
 * max |x_i|, and whether some nonzero |x_i| < sig[0] (then a sum term might not be a multiple
 * of the block's quantum and the sum is not trusted).  The two checks run on the binary32 bit
 * patterns of |x| (nonnegative as int32): max of the patterns, and min of (pattern - 1) & INT_MAX,
 * which sends +-0 to INT_MAX, out of the minimum's way. */
typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));

static void g_sum32_direct(const void *a, const float *b, size_t n, const double *sig,
                           ug_fused_out *o)
{
    (void)b;
    const float *x = a;
    v8i mn = (v8i){0} + INT32_MAX, mx = {0};
    v4d acc[2] = {{0}}, sa[2] = {{0}};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v8f f;
        v4f f0, f1;
        memcpy(&f, x + i, sizeof f);
        memcpy(&f0, x + i, sizeof f0);
        memcpy(&f1, x + i + 4, sizeof f1);
        v8i bits = (v8i)f & INT32_MAX;
        v8i key = (bits - 1) & INT32_MAX;
        v8i lt = key < mn, gt = bits > mx;
        mn = (key & lt) | (mn & ~lt);
        mx = (bits & gt) | (mx & ~gt);
        v4d p0 = __builtin_convertvector(f0, v4d), p1 = __builtin_convertvector(f1, v4d);
        acc[0] += p0;
        acc[1] += p1;
        sa[0] += GABS(p0);
        sa[1] += GABS(p1);
    }
    int32_t kmin = INT32_MAX, bmax = 0;
    for (int l = 0; l < 8; l++) {
        kmin = mn[l] < kmin ? mn[l] : kmin;
        bmax = mx[l] > bmax ? mx[l] : bmax;
    }
    *o = (ug_fused_out){{0, 0, 0}, 0, 0, 0};
    for (int u = 0; u < 2; u++)
        for (int l = 0; l < 4; l++) {
            o->level[0] += acc[u][l];
            o->sum_abs += sa[u][l];
        }
    for (; i < n; i++) {
        uint32_t bits = ug_f32_bits(x[i]) & INT32_MAX;
        int32_t key = (int32_t)((bits - 1) & INT32_MAX);
        kmin = key < kmin ? key : kmin;
        bmax = (int32_t)bits > bmax ? (int32_t)bits : bmax;
        o->level[0] += x[i];
        o->sum_abs += fabs((double)x[i]);
    }
    /* smallest nonzero |x|; INT32_MAX + 1 = -0 if none */
    float fmin = ug_bits_f32((uint32_t)kmin + 1);
    o->max_abs = ug_bits_f32((uint32_t)bmax);
    o->residual = kmin != INT32_MAX && (double)fmin < sig[0];
}

/* Specialised instances (constant kind/levels/want_max fold away the branches). */
#define G_FUSED(name, kind, levels, want_max)                                                  \
    static void name(const void *a, const float *b, size_t n, const double *sig,              \
                     ug_fused_out *o)                                                          \
    {                                                                                          \
        fused_generic_body(kind, levels, want_max, a, b, n, sig, o);                           \
    }
G_FUSED(g_sum64_2, UG_TERMS_SUM64, 2, 1)
G_FUSED(g_dot32_2m, UG_TERMS_DOT32, 2, 1)
G_FUSED(g_dot32_2, UG_TERMS_DOT32, 2, 0)
G_FUSED(g_dot32_3, UG_TERMS_DOT32, 3, 0)

static void g_terms_sum32(const void *a, const float *b, size_t n, double *buf,
                          double st[2])
{
    terms_generic_body(UG_TERMS_SUM32, a, b, n, buf, st);
}
static void g_terms_sum64(const void *a, const float *b, size_t n, double *buf,
                          double st[2])
{
    terms_generic_body(UG_TERMS_SUM64, a, b, n, buf, st);
}
static void g_terms_dot32(const void *a, const float *b, size_t n, double *buf,
                          double st[2])
{
    terms_generic_body(UG_TERMS_DOT32, a, b, n, buf, st);
}

const ug_fast_kernels ug_fast_generic_kernels = {
    "generic",
    {g_sum32_direct, g_sum64_2, g_dot32_2m, g_dot32_2, g_dot32_3},
    {g_terms_sum32, g_terms_sum64, g_terms_dot32},
    level_generic,
};

/* ---- shared by the x86 kernels (fast_avx2.c, fast_avx512.c) ---------------------------------- */

void ug_fast_sum32_direct_tail(const float *x, size_t i, size_t n, uint32_t kmin, uint32_t bmax,
                               const double *sig, ug_fused_out *o)
{
    for (; i < n; i++) {
        uint32_t bits = ug_f32_bits(x[i]) & INT32_MAX;
        kmin = bits - 1 < kmin ? bits - 1 : kmin;
        bmax = bits > bmax ? bits : bmax;
        o->level[0] += x[i];
        o->sum_abs += fabs((double)x[i]);
    }
    uint32_t uk = kmin + 1;
    float fmin = ug_bits_f32(uk); /* smallest nonzero |x|; UINT32_MAX + 1 = 0 if none */
    o->max_abs = ug_bits_f32(bmax);
    o->residual = uk != 0 && (double)fmin < sig[0];
}
