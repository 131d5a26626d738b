/*
 * fast_kernels.c - the vector inner loops of the fast exact oracle (exact_fast.c explains why
 * the extraction they perform is exact; nothing here rounds anything that matters).
 *
 * Two implementations of the same three kernels, chosen once at run time:
 *   avx512  - AVX-512F intrinsics, 2 streams of 8 doubles (used where the CPU has AVX-512F);
 *   generic - GCC vector extensions, 4 streams of 4 doubles, compiled by target_clones for
 *             x86-64-v3 (AVX2) and the baseline (SSE2).
 * Both keep 16 lanes per accumulator, which is what exact_fast.c's sum_abs error bound counts.
 * Contraction of a multiply and an add into an FMA (-ffp-contract) cannot change a result: the
 * only multiplications form binary32 x binary32 products, which are exact in binary64, so
 * fma(x, y, c) = RN(x*y + c) = fl(fl(x*y) + c).  -ffast-math would break everything (it may
 * rewrite (p + sigma) - sigma as p); the build never uses it.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "oracle_int.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define UG_X86_GCC 1
#define UG_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define UG_X86_GCC 0
#define UG_CLONES
#endif
#define UG_INLINE __attribute__((always_inline)) static inline

/* term i of a block, in binary64 (exact) */
UG_INLINE double term_at(ug_terms_kind kind, const void *a, const float *b, size_t i)
{
    if (kind == UG_TERMS_SUM64)
        return ((const double *)a)[i];
    double x = ((const float *)a)[i];
    return kind == UG_TERMS_DOT32 ? x * (double)b[i] : x;
}

/* The scalar remainder of a fused pass (terms i..n-1), added to the running values. */
UG_INLINE void fused_tail(ug_terms_kind kind, int levels, int want_max, const void *a,
                          const float *b, size_t i, size_t n, const double *sig,
                          ug_fused_out *o)
{
    for (; i < n; i++) {
        double p = term_at(kind, a, b, i);
        double ap = fabs(p);
        o->sum_abs += ap;
        if (want_max && ap > o->max_abs)
            o->max_abs = ap;
        for (int l = 0; l < levels; l++) {
            double q = (p + sig[l]) - sig[l];
            p -= q;
            o->level[l] += q;
        }
        o->residual |= p != 0;
    }
}

UG_INLINE void stats_tail(ug_terms_kind kind, const void *a, const float *b, size_t i, size_t n,
                          double *buf, double st[2])
{
    for (; i < n; i++) {
        double p = term_at(kind, a, b, i);
        if (buf)
            buf[i] = p;
        double ap = fabs(p);
        st[0] = ap > st[0] ? ap : st[0];
        st[1] += ap;
    }
}

/* ---- generic: vector extensions ---------------------------------------------------------- */

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
    v4d l1[4] = {{0}}, l2[4] = {{0}}, l3[4] = {{0}}, sa[4] = {{0}}, mx[4] = {{0}};
    v4l left = {0};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        G_FUSED_STREAM(0);
        G_FUSED_STREAM(1);
        G_FUSED_STREAM(2);
        G_FUSED_STREAM(3);
    }
    *o = (ug_fused_out){{0, 0, 0}, 0, 0, 0};
    for (int u = 0; u < 4; u++)
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
    v4d sa[4] = {{0}}, mx[4] = {{0}};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        G_STATS_STREAM(0);
        G_STATS_STREAM(1);
        G_STATS_STREAM(2);
        G_STATS_STREAM(3);
    }
    st[0] = st[1] = 0;
    for (int u = 0; u < 4; u++)
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

UG_CLONES static double level_generic(const double *src, double *dst, size_t n, double sigma,
                                      double *sum)
{
    const v4d S = (v4d){0} + sigma;
    v4d acc[4] = {{0}}, mx[4] = {{0}};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        G_LEVEL_STREAM(0);
        G_LEVEL_STREAM(1);
        G_LEVEL_STREAM(2);
        G_LEVEL_STREAM(3);
    }
    double s = 0, m = 0;
    for (int u = 0; u < 4; u++)
        for (int l = 0; l < 4; l++) {
            s += acc[u][l];
            m = mx[u][l] > m ? mx[u][l] : m;
        }
    for (; i < n; i++) {
        double p = src[i];
        double q = (p + sigma) - sigma;
        p -= q;
        s += q;
        dst[i] = p;
        m = fabs(p) > m ? fabs(p) : m;
    }
    *sum = s;
    return m;
}

/* Specialised instances (constant kind/levels/want_max fold away the branches). */
#define G_FUSED(name, kind, levels, want_max)                                                  \
    UG_CLONES static void name(const void *a, const float *b, size_t n, const double *sig,    \
                               ug_fused_out *o)                                                \
    {                                                                                          \
        fused_generic_body(kind, levels, want_max, a, b, n, sig, o);                           \
    }
G_FUSED(g_sum32_1, UG_TERMS_SUM32, 1, 1)
G_FUSED(g_sum32_2, UG_TERMS_SUM32, 2, 1)
G_FUSED(g_sum64_2, UG_TERMS_SUM64, 2, 1)
G_FUSED(g_dot32_2m, UG_TERMS_DOT32, 2, 1)
G_FUSED(g_dot32_2, UG_TERMS_DOT32, 2, 0)
G_FUSED(g_dot32_3, UG_TERMS_DOT32, 3, 0)

UG_CLONES static void g_terms_sum32(const void *a, const float *b, size_t n, double *buf,
                                    double st[2])
{
    terms_generic_body(UG_TERMS_SUM32, a, b, n, buf, st);
}
UG_CLONES static void g_terms_sum64(const void *a, const float *b, size_t n, double *buf,
                                    double st[2])
{
    terms_generic_body(UG_TERMS_SUM64, a, b, n, buf, st);
}
UG_CLONES static void g_terms_dot32(const void *a, const float *b, size_t n, double *buf,
                                    double st[2])
{
    terms_generic_body(UG_TERMS_DOT32, a, b, n, buf, st);
}

/* ---- avx512: intrinsics --------------------------------------------------------------------- */
#if UG_X86_GCC
#include <immintrin.h>

#define A512 __attribute__((target("avx512f")))

A512 UG_INLINE __m512d ld512(ug_terms_kind kind, const void *a, const float *b, size_t i)
{
    if (kind == UG_TERMS_SUM64)
        return _mm512_loadu_pd((const double *)a + i);
    __m512d x = _mm512_cvtps_pd(_mm256_loadu_ps((const float *)a + i));
    if (kind == UG_TERMS_SUM32)
        return x;
    return _mm512_mul_pd(x, _mm512_cvtps_pd(_mm256_loadu_ps(b + i)));
}

A512 UG_INLINE __m512d abs512(__m512d v)
{
    return _mm512_castsi512_pd(
        _mm512_and_si512(_mm512_castpd_si512(v), _mm512_set1_epi64(INT64_MAX)));
}

/* q = p rounded to sigma's quantum; p -= q; acc += q */
#define X512(p, S, acc)                                                                        \
    do {                                                                                       \
        __m512d q_ = _mm512_sub_pd(_mm512_add_pd((p), (S)), (S));                              \
        (p) = _mm512_sub_pd((p), q_);                                                          \
        (acc) = _mm512_add_pd((acc), q_);                                                      \
    } while (0)

A512 UG_INLINE void fused512_body(ug_terms_kind kind, int levels, int want_max, const void *a,
                                  const float *b, size_t n, const double *sig, ug_fused_out *o)
{
    const __m512d S1 = _mm512_set1_pd(sig[0]);
    const __m512d S2 = _mm512_set1_pd(levels > 1 ? sig[1] : 0.0);
    const __m512d S3 = _mm512_set1_pd(levels > 2 ? sig[2] : 0.0);
    const __m512d z = _mm512_setzero_pd();
    __m512d l1a = z, l1b = z, l2a = z, l2b = z, l3a = z, l3b = z, saa = z, sab = z, mxa = z,
            mxb = z;
    __m512i left = _mm512_setzero_si512();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512d p0 = ld512(kind, a, b, i), p1 = ld512(kind, a, b, i + 8);
        __m512d a0 = abs512(p0), a1 = abs512(p1);
        saa = _mm512_add_pd(saa, a0);
        sab = _mm512_add_pd(sab, a1);
        if (want_max) {
            mxa = _mm512_max_pd(mxa, a0);
            mxb = _mm512_max_pd(mxb, a1);
        }
        X512(p0, S1, l1a);
        X512(p1, S1, l1b);
        if (levels > 1) {
            X512(p0, S2, l2a);
            X512(p1, S2, l2b);
        }
        if (levels > 2) {
            X512(p0, S3, l3a);
            X512(p1, S3, l3b);
        }
        left = _mm512_or_si512(left, _mm512_or_si512(_mm512_castpd_si512(p0),
                                                     _mm512_castpd_si512(p1)));
    }
    /* lane sums: exact (exact_fast.c, point 4); the order does not matter */
    o->level[0] = _mm512_reduce_add_pd(_mm512_add_pd(l1a, l1b));
    o->level[1] = _mm512_reduce_add_pd(_mm512_add_pd(l2a, l2b));
    o->level[2] = _mm512_reduce_add_pd(_mm512_add_pd(l3a, l3b));
    o->sum_abs = _mm512_reduce_add_pd(_mm512_add_pd(saa, sab));
    o->max_abs = _mm512_reduce_max_pd(_mm512_max_pd(mxa, mxb));
    o->residual = _mm512_test_epi64_mask(left, _mm512_set1_epi64(INT64_MAX)) != 0;
    fused_tail(kind, levels, want_max, a, b, i, n, sig, o);
}

A512 UG_INLINE void terms512_body(ug_terms_kind kind, const void *a, const float *b, size_t n,
                                  double *buf, double st[2])
{
    __m512d saa = _mm512_setzero_pd(), sab = saa, mxa = saa, mxb = saa;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512d p0 = ld512(kind, a, b, i), p1 = ld512(kind, a, b, i + 8);
        if (buf) {
            _mm512_storeu_pd(buf + i, p0);
            _mm512_storeu_pd(buf + i + 8, p1);
        }
        p0 = abs512(p0);
        p1 = abs512(p1);
        saa = _mm512_add_pd(saa, p0);
        sab = _mm512_add_pd(sab, p1);
        mxa = _mm512_max_pd(mxa, p0);
        mxb = _mm512_max_pd(mxb, p1);
    }
    st[0] = _mm512_reduce_max_pd(_mm512_max_pd(mxa, mxb));
    st[1] = _mm512_reduce_add_pd(_mm512_add_pd(saa, sab));
    stats_tail(kind, a, b, i, n, buf, st);
}

A512 static double level512(const double *src, double *dst, size_t n, double sigma, double *sum)
{
    const __m512d S = _mm512_set1_pd(sigma);
    __m512d acca = _mm512_setzero_pd(), accb = acca, mxa = acca, mxb = acca;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512d p0 = _mm512_loadu_pd(src + i), p1 = _mm512_loadu_pd(src + i + 8);
        X512(p0, S, acca);
        X512(p1, S, accb);
        _mm512_storeu_pd(dst + i, p0);
        _mm512_storeu_pd(dst + i + 8, p1);
        mxa = _mm512_max_pd(mxa, abs512(p0));
        mxb = _mm512_max_pd(mxb, abs512(p1));
    }
    double s = _mm512_reduce_add_pd(_mm512_add_pd(acca, accb));
    double m = _mm512_reduce_max_pd(_mm512_max_pd(mxa, mxb));
    for (; i < n; i++) {
        double p = src[i];
        double q = (p + sigma) - sigma;
        p -= q;
        s += q;
        dst[i] = p;
        m = fabs(p) > m ? fabs(p) : m;
    }
    *sum = s;
    return m;
}

#define F512(name, kind, levels, want_max)                                                     \
    A512 static void name(const void *a, const float *b, size_t n, const double *sig,         \
                          ug_fused_out *o)                                                     \
    {                                                                                          \
        fused512_body(kind, levels, want_max, a, b, n, sig, o);                                \
    }
F512(x_sum32_1, UG_TERMS_SUM32, 1, 1)
F512(x_sum32_2, UG_TERMS_SUM32, 2, 1)
F512(x_sum64_2, UG_TERMS_SUM64, 2, 1)
F512(x_dot32_2m, UG_TERMS_DOT32, 2, 1)
F512(x_dot32_2, UG_TERMS_DOT32, 2, 0)
F512(x_dot32_3, UG_TERMS_DOT32, 3, 0)

A512 static void x_terms_sum32(const void *a, const float *b, size_t n, double *buf,
                               double st[2])
{
    terms512_body(UG_TERMS_SUM32, a, b, n, buf, st);
}
A512 static void x_terms_sum64(const void *a, const float *b, size_t n, double *buf,
                               double st[2])
{
    terms512_body(UG_TERMS_SUM64, a, b, n, buf, st);
}
A512 static void x_terms_dot32(const void *a, const float *b, size_t n, double *buf,
                               double st[2])
{
    terms512_body(UG_TERMS_DOT32, a, b, n, buf, st);
}

static const ug_fast_kernels avx512_kernels = {
    "avx512",
    {x_sum32_1, x_sum32_2, x_sum64_2, x_dot32_2m, x_dot32_2, x_dot32_3},
    {x_terms_sum32, x_terms_sum64, x_terms_dot32},
    level512,
};
#endif

static const ug_fast_kernels generic_kernels = {
    "generic",
    {g_sum32_1, g_sum32_2, g_sum64_2, g_dot32_2m, g_dot32_2, g_dot32_3},
    {g_terms_sum32, g_terms_sum64, g_terms_dot32},
    level_generic,
};

/* ---- selection ------------------------------------------------------------------------------ */

static const ug_fast_kernels *_Atomic chosen;

static const ug_fast_kernels *best_kernels(void)
{
#if UG_X86_GCC
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return &avx512_kernels;
#endif
    return &generic_kernels;
}

const ug_fast_kernels *ug_fast_kernels_get(void)
{
    const ug_fast_kernels *k = chosen;
    if (!k) {
        k = best_kernels();
        chosen = k;
    }
    return k;
}

int ug_fast_kernels_select(const char *name)
{
    if (!name || !strcmp(name, "auto")) {
        chosen = best_kernels();
        return 0;
    }
    if (!strcmp(name, "generic")) {
        chosen = &generic_kernels;
        return 0;
    }
#if UG_X86_GCC
    if (!strcmp(name, "avx512") && best_kernels() == &avx512_kernels) {
        chosen = &avx512_kernels;
        return 0;
    }
#endif
    return -1;
}
