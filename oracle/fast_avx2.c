/*
 * fast_avx2.c - the fast oracle's kernels with AVX2 intrinsics, 4 streams of 4 doubles
 * (fast_kernels.h: what they compute; fast_select.c uses them when the CPU has the
 * instructions).  Compiled only for x86-64 with GCC (target attributes).
 */
#include "oracle/fast_kernels.h"

#if UG_X86_GCC
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#define A2 __attribute__((target("avx2")))

A2 UG_INLINE __m256d ld256(ug_terms_kind kind, const void *a, const float *b, size_t i)
{
    if (kind == UG_TERMS_SUM64)
        return _mm256_loadu_pd((const double *)a + i);
    __m256d x = _mm256_cvtps_pd(_mm_loadu_ps((const float *)a + i));
    if (kind == UG_TERMS_SUM32)
        return x;
    return _mm256_mul_pd(x, _mm256_cvtps_pd(_mm_loadu_ps(b + i)));
}

A2 UG_INLINE __m256d abs256(__m256d v)
{
    return _mm256_and_pd(v, _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX)));
}

A2 UG_INLINE double hsum256(__m256d v)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(s) + _mm_cvtsd_f64(_mm_unpackhi_pd(s, s));
}

A2 UG_INLINE double hmax256(__m256d v)
{
    __m128d s = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return fmax(_mm_cvtsd_f64(s), _mm_cvtsd_f64(_mm_unpackhi_pd(s, s)));
}

#define X256(p, S, acc)                                                                        \
    do {                                                                                       \
        __m256d q_ = _mm256_sub_pd(_mm256_add_pd((p), (S)), (S));                              \
        (p) = _mm256_sub_pd((p), q_);                                                          \
        (acc) = _mm256_add_pd((acc), q_);                                                      \
    } while (0)

/* 4 streams of 4 lanes: 16 lanes per accumulator, as the other implementations. */
#define F256_STREAM(u)                                                                         \
    do {                                                                                       \
        __m256d p_ = ld256(kind, a, b, i + 4 * (u)), a_ = abs256(p_);                          \
        sa##u = _mm256_add_pd(sa##u, a_);                                                      \
        if (want_max)                                                                          \
            mx##u = _mm256_max_pd(mx##u, a_);                                                  \
        X256(p_, S1, l1##u);                                                                   \
        if (levels > 1)                                                                        \
            X256(p_, S2, l2##u);                                                               \
        if (levels > 2)                                                                        \
            X256(p_, S3, l3##u);                                                               \
        left = _mm256_or_pd(left, p_);                                                         \
    } while (0)

A2 UG_INLINE void fused256_body(ug_terms_kind kind, int levels, int want_max, const void *a,
                                const float *b, size_t n, const double *sig, ug_fused_out *o)
{
    const __m256d S1 = _mm256_set1_pd(sig[0]);
    const __m256d S2 = _mm256_set1_pd(levels > 1 ? sig[1] : 0.0);
    const __m256d S3 = _mm256_set1_pd(levels > 2 ? sig[2] : 0.0);
    const __m256d z = _mm256_setzero_pd();
    __m256d l10 = z, l11 = z, l12 = z, l13 = z, l20 = z, l21 = z, l22 = z, l23 = z, l30 = z,
            l31 = z, l32 = z, l33 = z, sa0 = z, sa1 = z, sa2 = z, sa3 = z, mx0 = z, mx1 = z,
            mx2 = z, mx3 = z, left = z;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        F256_STREAM(0);
        F256_STREAM(1);
        F256_STREAM(2);
        F256_STREAM(3);
    }
    o->level[0] = hsum256(_mm256_add_pd(_mm256_add_pd(l10, l11), _mm256_add_pd(l12, l13)));
    o->level[1] = hsum256(_mm256_add_pd(_mm256_add_pd(l20, l21), _mm256_add_pd(l22, l23)));
    o->level[2] = hsum256(_mm256_add_pd(_mm256_add_pd(l30, l31), _mm256_add_pd(l32, l33)));
    o->sum_abs = hsum256(_mm256_add_pd(_mm256_add_pd(sa0, sa1), _mm256_add_pd(sa2, sa3)));
    o->max_abs = hmax256(_mm256_max_pd(_mm256_max_pd(mx0, mx1), _mm256_max_pd(mx2, mx3)));
    o->residual = !_mm256_testz_si256(_mm256_castpd_si256(left), _mm256_set1_epi64x(INT64_MAX));
    fused_tail(kind, levels, want_max, a, b, i, n, sig, o);
}

#define T256_STREAM(u)                                                                         \
    do {                                                                                       \
        __m256d p_ = ld256(kind, a, b, i + 4 * (u));                                           \
        if (buf)                                                                               \
            _mm256_storeu_pd(buf + i + 4 * (u), p_);                                           \
        p_ = abs256(p_);                                                                       \
        sa##u = _mm256_add_pd(sa##u, p_);                                                      \
        mx##u = _mm256_max_pd(mx##u, p_);                                                      \
    } while (0)

A2 UG_INLINE void terms256_body(ug_terms_kind kind, const void *a, const float *b, size_t n,
                                double *buf, double st[2])
{
    __m256d sa0 = _mm256_setzero_pd(), sa1 = sa0, sa2 = sa0, sa3 = sa0, mx0 = sa0, mx1 = sa0,
            mx2 = sa0, mx3 = sa0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        T256_STREAM(0);
        T256_STREAM(1);
        T256_STREAM(2);
        T256_STREAM(3);
    }
    st[0] = hmax256(_mm256_max_pd(_mm256_max_pd(mx0, mx1), _mm256_max_pd(mx2, mx3)));
    st[1] = hsum256(_mm256_add_pd(_mm256_add_pd(sa0, sa1), _mm256_add_pd(sa2, sa3)));
    stats_tail(kind, a, b, i, n, buf, st);
}

#define L256_STREAM(u)                                                                         \
    do {                                                                                       \
        __m256d p_ = _mm256_loadu_pd(src + i + 4 * (u));                                       \
        X256(p_, S, acc##u);                                                                   \
        _mm256_storeu_pd(dst + i + 4 * (u), p_);                                               \
        mx##u = _mm256_max_pd(mx##u, abs256(p_));                                              \
    } while (0)

A2 static double level256(const double *src, double *dst, size_t n, double sigma, double *sum)
{
    const __m256d S = _mm256_set1_pd(sigma);
    __m256d acc0 = _mm256_setzero_pd(), acc1 = acc0, acc2 = acc0, acc3 = acc0, mx0 = acc0,
            mx1 = acc0, mx2 = acc0, mx3 = acc0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        L256_STREAM(0);
        L256_STREAM(1);
        L256_STREAM(2);
        L256_STREAM(3);
    }
    double s = hsum256(_mm256_add_pd(_mm256_add_pd(acc0, acc1), _mm256_add_pd(acc2, acc3)));
    double m = hmax256(_mm256_max_pd(_mm256_max_pd(mx0, mx1), _mm256_max_pd(mx2, mx3)));
    level_tail(src, dst, i, n, sigma, &s, &m);
    *sum = s;
    return m;
}

/* binary32 sums, direct: as g_sum32_direct (unsigned min of pattern - 1 sends +-0 to
 * UINT32_MAX), 16 values per step in 4 streams of 4 binary64 lanes. */
A2 static void x2_sum32_direct(const void *a, const float *b, size_t n, const double *sig,
                               ug_fused_out *o)
{
    (void)b;
    const float *x = a;
    const __m256i absm = _mm256_set1_epi32(INT32_MAX), one = _mm256_set1_epi32(1);
    __m256i mn = _mm256_set1_epi32(-1), mx = _mm256_setzero_si256();
    __m256d acc0 = _mm256_setzero_pd(), acc1 = acc0, acc2 = acc0, acc3 = acc0, sa0 = acc0,
            sa1 = acc0, sa2 = acc0, sa3 = acc0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i b0 = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i)), absm);
        __m256i b1 = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i + 8)), absm);
        mn = _mm256_min_epu32(mn, _mm256_min_epu32(_mm256_sub_epi32(b0, one),
                                                   _mm256_sub_epi32(b1, one)));
        mx = _mm256_max_epu32(mx, _mm256_max_epu32(b0, b1));
        __m256d p0 = _mm256_cvtps_pd(_mm_loadu_ps(x + i));
        __m256d p1 = _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4));
        __m256d p2 = _mm256_cvtps_pd(_mm_loadu_ps(x + i + 8));
        __m256d p3 = _mm256_cvtps_pd(_mm_loadu_ps(x + i + 12));
        acc0 = _mm256_add_pd(acc0, p0);
        acc1 = _mm256_add_pd(acc1, p1);
        acc2 = _mm256_add_pd(acc2, p2);
        acc3 = _mm256_add_pd(acc3, p3);
        sa0 = _mm256_add_pd(sa0, abs256(p0));
        sa1 = _mm256_add_pd(sa1, abs256(p1));
        sa2 = _mm256_add_pd(sa2, abs256(p2));
        sa3 = _mm256_add_pd(sa3, abs256(p3));
    }
    uint32_t mnv[8], mxv[8];
    _mm256_storeu_si256((__m256i *)mnv, mn);
    _mm256_storeu_si256((__m256i *)mxv, mx);
    uint32_t kmin = UINT32_MAX, bmax = 0;
    for (int l = 0; l < 8; l++) {
        kmin = mnv[l] < kmin ? mnv[l] : kmin;
        bmax = mxv[l] > bmax ? mxv[l] : bmax;
    }
    o->level[0] = hsum256(_mm256_add_pd(_mm256_add_pd(acc0, acc1), _mm256_add_pd(acc2, acc3)));
    o->level[1] = o->level[2] = 0;
    o->sum_abs = hsum256(_mm256_add_pd(_mm256_add_pd(sa0, sa1), _mm256_add_pd(sa2, sa3)));
    ug_fast_sum32_direct_tail(x, i, n, kmin, bmax, sig, o);
}

#define F256(name, kind, levels, want_max)                                                     \
    A2 static void name(const void *a, const float *b, size_t n, const double *sig,           \
                        ug_fused_out *o)                                                       \
    {                                                                                          \
        fused256_body(kind, levels, want_max, a, b, n, sig, o);                                \
    }
F256(y_sum64_2, UG_TERMS_SUM64, 2, 1)
F256(y_dot32_2m, UG_TERMS_DOT32, 2, 1)
F256(y_dot32_2, UG_TERMS_DOT32, 2, 0)
F256(y_dot32_3, UG_TERMS_DOT32, 3, 0)

A2 static void y_terms_sum32(const void *a, const float *b, size_t n, double *buf, double st[2])
{
    terms256_body(UG_TERMS_SUM32, a, b, n, buf, st);
}
A2 static void y_terms_sum64(const void *a, const float *b, size_t n, double *buf, double st[2])
{
    terms256_body(UG_TERMS_SUM64, a, b, n, buf, st);
}
A2 static void y_terms_dot32(const void *a, const float *b, size_t n, double *buf, double st[2])
{
    terms256_body(UG_TERMS_DOT32, a, b, n, buf, st);
}

const ug_fast_kernels ug_fast_avx2_kernels = {
    "avx2",
    {x2_sum32_direct, y_sum64_2, y_dot32_2m, y_dot32_2, y_dot32_3},
    {y_terms_sum32, y_terms_sum64, y_terms_dot32},
    level256,
};
#else
typedef int ug_fast_avx2_absent; /* ISO C: a translation unit is not empty */
#endif
