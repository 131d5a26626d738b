/*
 * fast_kernels.h - what the vector kernel files share (fast_generic.c, fast_avx2.c,
 * fast_avx512.c; fast_select.c picks one set).  Internal to the fast oracle: exact_fast.c and
 * exact_gemm.c see only the table in fast.h.
 *
 * Three implementations of the same kernels, the best the CPU runs chosen once at run time:
 *   avx512  - AVX-512F intrinsics, 2 streams of 8 doubles;
 *   avx2    - AVX2 intrinsics, 4 streams of 4 doubles;
 *   generic - GCC vector extensions, 2 streams of 4 doubles, for the baseline ISA (SSE2 on
 *             x86-64; any GCC target).  (GCC 12 lowers vector-extension float -> double
 *             conversions poorly on AVX2, hence the intrinsics.)
 * avx512 and avx2 keep 16 lanes per accumulator, generic 8: exact_fast.c's sum_abs error bound
 * allows either.  exact_fast.c explains why the extraction they perform is exact; nothing here
 * rounds anything that matters.
 * Contraction of a multiply and an add into an FMA (-ffp-contract) cannot change a result: the
 * only multiplications form binary32 x binary32 products, which are exact in binary64, so
 * fma(x, y, c) = RN(x*y + c) = fl(fl(x*y) + c).  -ffast-math would break everything (it may
 * rewrite (p + sigma) - sigma as p); the build never uses it.
 */
#ifndef UG_ORACLE_FAST_KERNELS_H
#define UG_ORACLE_FAST_KERNELS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "oracle/fast.h"

/* The x86 intrinsics kernels need GCC's target attributes and __builtin_cpu_supports. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define UG_X86_GCC 1
#else
#define UG_X86_GCC 0
#endif
#define UG_INLINE __attribute__((always_inline)) static inline

/* The kernel sets (fast_generic.c; fast_avx2.c and fast_avx512.c only when UG_X86_GCC). */
extern const ug_fast_kernels ug_fast_generic_kernels;
extern const ug_fast_kernels ug_fast_avx2_kernels;
extern const ug_fast_kernels ug_fast_avx512_kernels;

/* The x86 sum32_direct kernels' scalar tail and finish (fast_generic.c): elements i..n-1, then
 * max |x|, and whether the smallest nonzero |x| lies below the first extraction boundary.  kmin
 * holds the unsigned minimum of (|x| bit pattern - 1), so +-0 maps to UINT32_MAX and never
 * wins.  Cost: O(n - i), once per block. */
void ug_fast_sum32_direct_tail(const float *x, size_t i, size_t n, uint32_t kmin, uint32_t bmax,
                               const double *sig, ug_fused_out *o);

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

/* The scalar remainder of one extraction level (src i..n-1): the part of each value on sigma's
 * grid added to *s, the rest to dst, the largest |rest| kept in *m. */
UG_INLINE void level_tail(const double *src, double *dst, size_t i, size_t n, double sigma,
                          double *s, double *m)
{
    for (; i < n; i++) {
        double p = src[i];
        double q = (p + sigma) - sigma;
        p -= q;
        *s += q;
        dst[i] = p;
        *m = fabs(p) > *m ? fabs(p) : *m;
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

#endif
