/*
 * fast_avx512.c - the fast oracle's kernels with AVX-512F intrinsics, 2 streams of 8 doubles
 * (fast_kernels.h: what they compute; fast_select.c uses them when the CPU has the
 * instructions).  Compiled only for x86-64 with GCC (target attributes).
 */
#include "oracle/fast_kernels.h"

#if UG_X86_GCC
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

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
    level_tail(src, dst, i, n, sigma, &s, &m);
    *sum = s;
    return m;
}

#define F512(name, kind, levels, want_max)                                                     \
    A512 static void name(const void *a, const float *b, size_t n, const double *sig,         \
                          ug_fused_out *o)                                                     \
    {                                                                                          \
        fused512_body(kind, levels, want_max, a, b, n, sig, o);                                \
    }
F512(x_sum64_2, UG_TERMS_SUM64, 2, 1)
F512(x_dot32_2m, UG_TERMS_DOT32, 2, 1)
F512(x_dot32_2, UG_TERMS_DOT32, 2, 0)
F512(x_dot32_3, UG_TERMS_DOT32, 3, 0)

/* binary32 sums, direct: as g_sum32_direct, 16 values per step (the checks on one vector of
 * binary32 bit patterns, unsigned min of pattern - 1 sending +-0 to UINT32_MAX). */
A512 static void x_sum32_direct(const void *a, const float *b, size_t n, const double *sig,
                                ug_fused_out *o)
{
    (void)b;
    const float *x = a;
    const __m512i absm = _mm512_set1_epi32(INT32_MAX), one = _mm512_set1_epi32(1);
    __m512i mn = _mm512_set1_epi32(-1), mx = _mm512_setzero_si512();
    __m512d acc0 = _mm512_setzero_pd(), acc1 = acc0, sa0 = acc0, sa1 = acc0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 f = _mm512_loadu_ps(x + i);
        __m512i bits = _mm512_and_si512(_mm512_castps_si512(f), absm);
        mn = _mm512_min_epu32(mn, _mm512_sub_epi32(bits, one));
        mx = _mm512_max_epu32(mx, bits);
        __m512d p0 = _mm512_cvtps_pd(_mm256_loadu_ps(x + i));
        __m512d p1 = _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8));
        acc0 = _mm512_add_pd(acc0, p0);
        acc1 = _mm512_add_pd(acc1, p1);
        sa0 = _mm512_add_pd(sa0, abs512(p0));
        sa1 = _mm512_add_pd(sa1, abs512(p1));
    }
    uint32_t kmin = _mm512_reduce_min_epu32(mn), bmax = _mm512_reduce_max_epu32(mx);
    o->level[0] = _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
    o->level[1] = o->level[2] = 0;
    o->sum_abs = _mm512_reduce_add_pd(_mm512_add_pd(sa0, sa1));
    ug_fast_sum32_direct_tail(x, i, n, kmin, bmax, sig, o);
}

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

const ug_fast_kernels ug_fast_avx512_kernels = {
    "avx512",
    {x_sum32_direct, x_sum64_2, x_dot32_2m, x_dot32_2, x_dot32_3},
    {x_terms_sum32, x_terms_sum64, x_terms_dot32},
    level512,
};
#else
typedef int ug_fast_avx512_absent; /* ISO C: a translation unit is not empty */
#endif
