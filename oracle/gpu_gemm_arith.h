/*
 * gpu_gemm_arith.h - the GPU oracle's GEMM arithmetic (Ozaki-style error-free slicing on int8
 * tensor cores), one source for nvcc (oracle/cuda/gemm.cu) and the host model
 * (oracle/gpu_model.c); the rounding is gpu_arith.h's.
 *
 * C = A B, A M x K and B K x N binary32, every element exact.
 *
 * Slicing.  For row i of A let r_i be the least integer with |a_ik| < 2^r_i for all k, and
 * lsb_i the least exponent of a set significand bit of a nonzero a_ik.  With S slices the row
 * is *covered* when r_i - lsb_i <= 7 S: then every A_ik = |a_ik| 2^(7 S - r_i) is an integer
 * below 2^(7 S) (ugg_scaled), with base-2^7 digits D_s (s = 0 most significant), and
 *     a_ik = sign(a_ik) sum_s D_s,ik 2^(7 (S - 1 - s)) 2^(r_i - 7 S),   D_s in [0, 127].
 * Likewise the columns of B with T slices, c_j, E_t.  The signed digits sign D_s fit int8.
 *
 * Products.  P_st = (sign D_s) (sign E_t)^T summed over k is an int8 GEMM with int32
 * accumulation: every partial sum, in any order and split, is at most K 127^2 in magnitude, so
 * with K 127^2 < 2^31 (K <= 133 143) int32 holds it exactly - tensor cores (IMMA) and any
 * split-K of the library compute the exact integer.  Pairs with the same weight (s + t = g)
 * are one product: their slices concatenated along K (A's slices side by side; B's slices
 * stored in reverse order, so the partners of s0..s1 are contiguous too), as long as
 * p K 127^2 < 2^31 for p pairs; otherwise one product per pair and K-piece of <= UGG_KPIECE
 * (ugg_gemm_plan).  The same products of |D| and |E| give sum_k |a_ik b_kj| exactly.
 *
 * Reconstruction.  W_ij = sum_g P_g,ij 2^(7 (S + T - 2 - g)) is an exact integer below
 * 2^(31 + 98 + log2(products)): six 32-bit limbs (ugg_wide_add: each limb receives at most
 * 2 products additions below 2^32), and c_ij = W_ij 2^(r_i + c_j - 7 (S + T)).  One rounding per
 * element (gpu_arith.h's ugg_fill) gives hi, lo, rn, rd; RU64 of the |.| sum gives sum_abs.
 *
 * What slicing does not do (the fallback: the exact dot of gpu_arith.h's bins for that element):
 * rows and columns not covered by UGG_MAX_SLICES slices (dynamic range plus significand wider
 * than 56 bits) or holding NaN or inf, and elements whose every term is zero (W = 0 with a
 * zero |.| sum: the sign of the zero depends on the terms' signs).  An exact cancellation
 * (W = 0, |.| sum > 0) is +0 by oracle.h's rule.
 *
 * S and T are chosen per product (ugg_choose_slices) to minimise tensor work plus fallback work.
 */
#ifndef UG_ORACLE_GPU_GEMM_ARITH_H
#define UG_ORACLE_GPU_GEMM_ARITH_H

#include "oracle/gpu_arith.h"

enum {
    UGG_MAX_SLICES = 8,                    /* 7 x 8 = 56 bits: ugg_scaled fits 64 bits */
    UGG_SLICES_NONE = UGG_MAX_SLICES + 1,  /* a row no slicing covers */
    UGG_KPIECE = 133136,                   /* multiple of 16, 133136 x 127^2 < 2^31 */
    UGG_GEMM_LIMBS = 6,
    UGG_PAD = 16,                          /* M, N, K padded to multiples (cuBLAS IMMA layouts) */
    UGG_SPAN_NONE = 100000,                /* sentinel exponents of a span with no element */
};
/* Cost of one term of the fallback (an exact dot on the GPU's bins) in int8 tensor-core
 * multiply-adds: ~1e15 MAC/s against ~5e11 terms/s on an H100 (estimates, only used to choose S
 * and T; any choice is exact). */
#define UGG_FALLBACK_COST 2048.0

/* ---- spans: what a row (column) needs ------------------------------------------------------ */

typedef struct ugg_span {
    int32_t maxtop;  /* max floor(log2 |x|) over nonzero finite x; -UGG_SPAN_NONE if none */
    int32_t minlsb;  /* min exponent of the lowest set significand bit; UGG_SPAN_NONE if none */
    int32_t special; /* a NaN or inf */
} ugg_span;

UGG_HD void ugg_span_init(ugg_span *s)
{
    s->maxtop = -UGG_SPAN_NONE;
    s->minlsb = UGG_SPAN_NONE;
    s->special = 0;
}

UGG_HD void ugg_span_add(ugg_span *s, uint32_t bits)
{
    if (((bits >> 23) & 0xff) == 0xff) {
        s->special = 1;
        return;
    }
    uint32_t m = ugg_f32_sig(bits);
    if (!m)
        return;
    int e = (int)ugg_f32_exp(bits) - UGG_SUM_BIAS;
    int top = e + 31 - ugg_clz32(m), lsb = e + ugg_ctz32(m);
    s->maxtop = top > s->maxtop ? top : s->maxtop;
    s->minlsb = lsb < s->minlsb ? lsb : s->minlsb;
}

UGG_HD void ugg_span_merge(ugg_span *a, const ugg_span *b)
{
    a->maxtop = b->maxtop > a->maxtop ? b->maxtop : a->maxtop;
    a->minlsb = b->minlsb < a->minlsb ? b->minlsb : a->minlsb;
    a->special |= b->special;
}

/* r: |x| < 2^r for the row (0 for a row of zeros). */
UGG_HD int ugg_span_r(const ugg_span *s)
{
    return s->maxtop == -UGG_SPAN_NONE ? 0 : s->maxtop + 1;
}

/* Slices the row needs: 0 for zeros only, ceil((r - lsb) / 7), UGG_SLICES_NONE when special or
 * beyond UGG_MAX_SLICES. */
UGG_HD int ugg_span_slices(const ugg_span *s)
{
    if (s->special)
        return UGG_SLICES_NONE;
    if (s->maxtop == -UGG_SPAN_NONE)
        return 0;
    int bits = s->maxtop + 1 - s->minlsb;
    int n = (bits + 6) / 7;
    return n > UGG_MAX_SLICES ? UGG_SLICES_NONE : n;
}

/* ---- slices ---------------------------------------------------------------------------------- */

/* |x| 2^(7 S - r) for an x of a covered row: an integer below 2^(7 S) (exact: the bits shifted
 * out are zero when the row is covered). */
UGG_HD uint64_t ugg_scaled(uint32_t bits, int r, int S)
{
    uint32_t m = ugg_f32_sig(bits);
    if (!m)
        return 0;
    int sh = (int)ugg_f32_exp(bits) - UGG_SUM_BIAS + 7 * S - r;
    if (sh >= 0)
        return (uint64_t)m << sh;
    return -sh < 32 ? (uint64_t)(m >> -sh) : 0;
}

/* Digit s (0: most significant) of S; signed: the element's sign applied. */
UGG_HD int ugg_slice_digit(uint64_t v, int S, int s)
{
    return (int)((v >> (7 * (S - 1 - s))) & 127);
}

UGG_HD int8_t ugg_signed_digit(uint32_t bits, int digit)
{
    return (int8_t)((bits >> 31) ? -digit : digit);
}

/* ---- the products ---------------------------------------------------------------------------- */

/* One int8 product C = A_sl[:, acol : acol + klen] (B_sl[:, bcol : bcol + klen])^T, A_sl M x S Kp
 * and B_sl (B's slices, transposed) N x T Kp, row-major; weight 2^shift in W. */
typedef struct ugg_gemm_prod {
    int32_t acol, bcol, klen, shift;
} ugg_gemm_prod;

/* The products for S x T slices of Kp (a multiple of UGG_PAD) terms into out[0..cap) (out may
 * be NULL: counting only); returns how many there are. */
UGG_HD int ugg_gemm_plan(int S, int T, int Kp, ugg_gemm_prod *out, int cap)
{
    int count = 0;
    for (int g = 0; g <= S + T - 2; g++) {
        int s0 = g - (T - 1) > 0 ? g - (T - 1) : 0, s1 = g < S - 1 ? g : S - 1;
        int p = s1 - s0 + 1, shift = 7 * (S + T - 2 - g);
        if ((int64_t)p * Kp * 127 * 127 < ((int64_t)1 << 31)) { /* the diagonal at once */
            if (out && count < cap) {
                ugg_gemm_prod pr = {s0 * Kp, (T - 1 - g + s0) * Kp, p * Kp, shift};
                out[count] = pr;
            }
            count++;
            continue;
        }
        for (int s = s0; s <= s1; s++)
            for (int k0 = 0; k0 < Kp; k0 += UGG_KPIECE) {
                int kl = Kp - k0 < UGG_KPIECE ? Kp - k0 : UGG_KPIECE;
                if (out && count < cap) {
                    ugg_gemm_prod pr = {s * Kp + k0, (T - 1 - (g - s)) * Kp + k0, kl, shift};
                    out[count] = pr;
                }
                count++;
            }
    }
    return count;
}

/* rows_left(S): rows that S slices do not cover, from hist[0..UGG_SLICES_NONE]. */
UGG_HD uint64_t ugg_left(const uint64_t *hist, int S)
{
    uint64_t n = 0;
    for (int b = S + 1; b <= UGG_SLICES_NONE; b++)
        n += hist[b];
    return n;
}

/* S and T (1..UGG_MAX_SLICES) minimising 2 S T M N K (the sum's and the |.|'s products) plus
 * UGG_FALLBACK_COST K (elements left to the fallback); hr/hc: how many rows/columns need b
 * slices.  Ties: the smaller S T. */
UGG_HD void ugg_choose_slices(const uint64_t *hr, const uint64_t *hc, uint64_t M, uint64_t N,
                              uint64_t K, int *S, int *T)
{
    double best = -1;
    for (int s = 1; s <= UGG_MAX_SLICES; s++)
        for (int t = 1; t <= UGG_MAX_SLICES; t++) {
            double lr = (double)ugg_left(hr, s), lc = (double)ugg_left(hc, t);
            double left = lr * (double)N + lc * (double)M - lr * lc;
            double cost = 2.0 * s * t * (double)M * (double)N * (double)K +
                          UGG_FALLBACK_COST * left * (double)K;
            if (best < 0 || cost < best) {
                best = cost;
                *S = s;
                *T = t;
            }
        }
}

/* ---- reconstruction -------------------------------------------------------------------------- */

/* acc += v 2^shift for |v| < 2^31, shift <= 98 (limbs idx, idx + 1 of six). */
UGG_HD void ugg_wide_add(int64_t *acc, int64_t v, int shift)
{
    int idx = shift >> 5, off = shift & 31;
    int64_t t = v * ((int64_t)1 << off);
    acc[idx] += t & 0xffffffff;
    acc[idx + 1] += t >> 32;
}

/* C_ij's record from W (sum) and its |.| sum, worth 2^base per unit.  Returns 0 when every
 * term is zero (the fallback decides the zero's sign), else 1. */
UGG_HD int ugg_gemm_finish(const int64_t *sum, const int64_t *abs, int base, ug_exact *e)
{
    ug_exact r;
    memset(&r, 0, sizeof r); /* the padding too (ugg_store_record) */
    double sa = ugg_mag_up(abs, UGG_GEMM_LIMBS, base);
    if (!ugg_fill(sum, UGG_GEMM_LIMBS, base, &r)) {
        if (sa == 0)
            return 0;
        ugg_exact_zero(&r, 0); /* exact cancellation of nonzero terms: +0 */
    }
    r.sum_abs = sa;
    ugg_store_record(e, &r);
    return 1;
}

/* ---- verification (the bench checks a result on the device) ------------------------------- */

UGG_HD void ugg_two_sum(double a, double b, double *s, double *t)
{
    double x = a + b;
    double bv = x - a;
    *t = (a - (x - bv)) + (b - bv);
    *s = x;
}

/* oracle/error.c's ug_ulp32, bit for bit. */
UGG_HD double ugg_ulp32(float r)
{
    uint32_t b = ugg_bits_of32(r) & 0x7fffffffu;
    if (b > 0x7f800000u)
        return ugg_f64_of(0x7ff8000000000000ULL);
    if (b == 0x7f800000u)
        return 0x1p104;
    if (b < 0x00800000u)
        return 0x1p-149;
    return ugg_dig_scale(1, (int)(b >> 23) - 127 - 23);
}

/* oracle/error.c's ug_error_of(e, got).ulp, bit for bit (the argument is there). */
UGG_HD double ugg_error_ulp(const ug_exact *e, double got)
{
    const double inf = ugg_f64_of(0x7ff0000000000000ULL);
    int got_nan = got != got, got_inf = !got_nan && (got == inf || got == -inf);
    if (e->cls == UG_X_NAN)
        return got_nan ? 0.0 : inf;
    if (e->cls == UG_X_POSINF)
        return got == inf ? 0.0 : inf;
    if (e->cls == UG_X_NEGINF)
        return got == -inf ? 0.0 : inf;
    if (got_nan)
        return inf;
    if (got_inf)
        return got == (double)e->rn ? 0.0 : inf;
    if (!(e->hi <= DBL_MAX && e->hi >= -DBL_MAX))
        return inf;
    double d1, d2, t1, t2, e1, e2;
    ugg_two_sum(got, -e->hi, &d1, &d2);
    if (!(d1 <= DBL_MAX && d1 >= -DBL_MAX))
        return inf;
    ugg_two_sum(d2, -e->lo, &t1, &t2);
    ugg_two_sum(d1, t1, &e1, &e2);
    return fabs(e1 + (e2 + t2)) / ugg_ulp32(e->rn);
}

#endif
