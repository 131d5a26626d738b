/*
 * fast_kernels.c - the vector inner loops of the fast exact oracle (exact_fast.c explains why
 * the extraction they perform is exact; nothing here rounds anything that matters).
 *
 * Three implementations of the same kernels, the best the CPU runs chosen once at run time:
 *   avx512  - AVX-512F intrinsics, 2 streams of 8 doubles;
 *   avx2    - AVX2 intrinsics, 4 streams of 4 doubles;
 *   generic - GCC vector extensions, 2 streams of 4 doubles, for the baseline ISA (SSE2 on
 *             x86-64; any GCC target).  (GCC 12 lowers vector-extension float -> double
 *             conversions poorly on AVX2, hence the intrinsics.)
 * avx512 and avx2 keep 16 lanes per accumulator, generic 8: exact_fast.c's sum_abs error bound
 * allows either.
 * Contraction of a multiply and an add into an FMA (-ffp-contract) cannot change a result: the
 * only multiplications form binary32 x binary32 products, which are exact in binary64, so
 * fma(x, y, c) = RN(x*y + c) = fl(fl(x*y) + c).  -ffast-math would break everything (it may
 * rewrite (p + sigma) - sigma as p); the build never uses it.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_int.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define UG_X86_GCC 1
#else
#define UG_X86_GCC 0
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

/* ---- generic: vector extensions, 2 streams of 4 doubles (8 lanes: few registers on SSE2) ----- */

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
        uint32_t bits;
        memcpy(&bits, x + i, sizeof bits);
        bits &= INT32_MAX;
        int32_t key = (int32_t)((bits - 1) & INT32_MAX);
        kmin = key < kmin ? key : kmin;
        bmax = (int32_t)bits > bmax ? (int32_t)bits : bmax;
        o->level[0] += x[i];
        o->sum_abs += fabs((double)x[i]);
    }
    uint32_t ub = (uint32_t)bmax, uk = (uint32_t)kmin + 1;
    float fmax, fmin;
    memcpy(&fmax, &ub, sizeof fmax);
    memcpy(&fmin, &uk, sizeof fmin); /* smallest nonzero |x|; INT32_MAX + 1 = -0 if none */
    o->max_abs = fmax;
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

#if UG_X86_GCC
/* The vector sum32_direct kernels' scalar tail and finish: elements i..n-1, then max |x|, and
 * whether the smallest nonzero |x| lies below the first extraction boundary.  kmin holds the
 * unsigned minimum of (|x| bit pattern - 1), so +-0 maps to UINT32_MAX and never wins. */
static void sum32_direct_tail(const float *x, size_t i, size_t n, uint32_t kmin, uint32_t bmax,
                              const double *sig, ug_fused_out *o)
{
    for (; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, x + i, sizeof bits);
        bits &= INT32_MAX;
        kmin = bits - 1 < kmin ? bits - 1 : kmin;
        bmax = bits > bmax ? bits : bmax;
        o->level[0] += x[i];
        o->sum_abs += fabs((double)x[i]);
    }
    uint32_t uk = kmin + 1;
    float fmax, fmin;
    memcpy(&fmax, &bmax, sizeof fmax);
    memcpy(&fmin, &uk, sizeof fmin); /* smallest nonzero |x|; UINT32_MAX + 1 = 0 if none */
    o->max_abs = fmax;
    o->residual = uk != 0 && (double)fmin < sig[0];
}

/* ---- avx512: intrinsics ---------------------------------------------------------------------- */
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
    sum32_direct_tail(x, i, n, kmin, bmax, sig, o);
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

/* ---- avx2: intrinsics ------------------------------------------------------------------------ */

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
    sum32_direct_tail(x, i, n, kmin, bmax, sig, o);
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

static const ug_fast_kernels avx2_kernels = {
    "avx2",
    {x2_sum32_direct, y_sum64_2, y_dot32_2m, y_dot32_2, y_dot32_3},
    {y_terms_sum32, y_terms_sum64, y_terms_dot32},
    level256,
};

static const ug_fast_kernels avx512_kernels = {
    "avx512",
    {x_sum32_direct, x_sum64_2, x_dot32_2m, x_dot32_2, x_dot32_3},
    {x_terms_sum32, x_terms_sum64, x_terms_dot32},
    level512,
};
#endif

static const ug_fast_kernels generic_kernels = {
    "generic",
    {g_sum32_direct, g_sum64_2, g_dot32_2m, g_dot32_2, g_dot32_3},
    {g_terms_sum32, g_terms_sum64, g_terms_dot32},
    level_generic,
};

/* ---- selection ------------------------------------------------------------------------------- */

static const ug_fast_kernels *_Atomic chosen;

/* The best kernels this CPU runs; UG_ORACLE_KERNELS=avx2|generic in the environment asks for
 * lesser ones (to measure or test them on a better machine). */
static const ug_fast_kernels *best_kernels(void)
{
    const char *env = getenv("UG_ORACLE_KERNELS");
    const ug_fast_kernels *k = &generic_kernels;
#if UG_X86_GCC
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        k = &avx2_kernels;
    if (__builtin_cpu_supports("avx512f"))
        k = &avx512_kernels;
    if (env && !strcmp(env, "avx2") && __builtin_cpu_supports("avx2"))
        k = &avx2_kernels;
#endif
    if (env && !strcmp(env, "generic"))
        k = &generic_kernels;
    return k;
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
    __builtin_cpu_init();
    if (!strcmp(name, "avx2") && __builtin_cpu_supports("avx2")) {
        chosen = &avx2_kernels;
        return 0;
    }
    if (!strcmp(name, "avx512") && __builtin_cpu_supports("avx512f")) {
        chosen = &avx512_kernels;
        return 0;
    }
#endif
    return -1;
}
