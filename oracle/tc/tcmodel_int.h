/*
 * tcmodel_int.h - the tensor-core inner-product model of tcmodel.h in integer arithmetic alone,
 * one source for the host and the device (nvcc: __host__ __device__): the GPU model
 * (oracle/cuda/tcmodel.cu) runs it on the device, and the CPU tests run it on the host against
 * tcmodel.c, the reference written independently with doubles (tests/tcmodel_int_test.c).
 *
 * Inputs are binary32 values that are numbers of in_fmt already (every tensor-core input
 * format embeds in binary32: the caller rounds with ug_fmt_round first); block results are
 * binary32 values too (f32 or f16 accumulators), carried as floats.  The steps are tcmodel.h's,
 * each as an integer operation:
 *   a number x of in_fmt is s 2^(e - 23), s an integer < 2^24 and e = max(ilogb x, in_emin)
 *   (tci_split: a value below in_emin has an in_fmt subnormal's significand, a multiple of
 *   2^(24 - p_in): the right shift that makes it is exact);
 *   a product is s_a s_b 2^(e_a + e_b - 46): the significands' product has at most 2 (p_in - 1)
 *   <= 20 fraction bits of its 46, so >> 23 (or >> 24 after the renormalisation of a product in
 *   [2, 4)) is exact and gives tcmodel.c's s 2^23;
 *   alignment, the exact fixed-point sum (|S| < 2^41 in int64) and the one rounding of the
 *   block (tci_round: prec bits at the format's emin, RZ or RNE, overflow to infinity) are
 *   shifts and compares; the result t 2^q (t <= 2^prec) is made exactly in binary64 from a
 *   power of two built from its bits, then narrowed to binary32 exactly (it is a number of f32,
 *   f16 or bf16).
 * No floating-point operation rounds here: the model's bits cannot depend on the compiler's
 * contraction or the device's arithmetic.  Cost: O(K) per output, two passes per block (the
 * products recomputed rather than stored: no per-thread arrays on the device).
 */
#ifndef UG_TCMODEL_INT_H
#define UG_TCMODEL_INT_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define UG_TCI_HD __host__ __device__ static inline
#else
#define UG_TCI_HD static inline
#endif

/* The model's parameters as plain integers (tci_params_of in tcmodel_gpu.c fills it from a
 * ug_tc_params and the format table). */
typedef struct ug_tci_params {
    int block, neab, carry_bit, align_rne, final_rne, in_subn, out_subn;
    int in_emin;                    /* in_fmt's emin */
    int prec, out_emin, out_emax;   /* the accumulator: p_out + min(neab, 0) bits, out_fmt's range */
    int store, store_p, store_emin, store_emax; /* store: round to the storage format (step 7) */
} ug_tci_params;

UG_TCI_HD uint32_t tci_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

UG_TCI_HD float tci_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* 2^q exactly, -1022 <= q <= 1023 (a binary64 normal power of two, built from its bits). */
UG_TCI_HD double tci_pow2(int q)
{
    uint64_t u = (uint64_t)(q + 1023) << 52;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Position of the highest set bit of v > 0. */
UG_TCI_HD int tci_msb(uint64_t v)
{
    int b = 0;
    while (v >> 1) v >>= 1, b++;
    return b;
}

/* v (< 2^63) cut to a multiple of 2^sh, sh > 0, as the integer v / 2^sh: truncated, or to
 * nearest with ties to even. */
UG_TCI_HD uint64_t tci_shift(uint64_t v, int sh, int rne)
{
    if (sh >= 64) return 0; /* v < 2^63 <= half of 2^sh: nothing survives either way */
    uint64_t q = v >> sh, rem = v & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
    if (rne && (rem > half || (rem == half && (q & 1)))) q++;
    return q;
}

/* Finite nonzero binary32 x as s 2^(e - 23) with e = max(ilogb x, emin) (emin >= -126). */
UG_TCI_HD void tci_split(float x, int emin, uint64_t *s, int *e)
{
    uint32_t u = tci_bits(x), E = (u >> 23) & 0xff, f = u & 0x7fffff;
    if (E == 0) { /* binary32 subnormal: f 2^-149 = (f >> (126 + emin)) 2^(emin - 23) */
        *s = f >> (126 + emin), *e = emin;
        return;
    }
    int e32 = (int)E - 127;
    uint64_t s24 = (uint64_t)(f | 0x800000u);
    if (e32 >= emin) *s = s24, *e = e32;
    else *s = s24 >> (emin - e32), *e = emin; /* exact: x is a number of the format */
}

/* (-1)^neg m 2^q0 (m < 2^63, exact) rounded to prec bits, exponents emin..emax, nearest-even or
 * toward zero; beyond the range infinity; below 2^emin zero when subn is 0.  As tcmodel.c's
 * ug_tc_round_out. */
UG_TCI_HD float tci_round(int neg, uint64_t m, int q0, int prec, int emin, int emax, int rne, int subn)
{
    if (m == 0) return neg ? -0.0f : 0.0f;
    int e = tci_msb(m) + q0, q = (e < emin ? emin : e) - prec + 1;
    uint64_t t = q <= q0 ? m << (q0 - q) : tci_shift(m, q - q0, rne);
    double r = (double)t * tci_pow2(q); /* t <= 2^prec <= 2^24: exact */
    if (r >= tci_pow2(emax + 1)) return tci_float(neg ? 0xff800000u : 0x7f800000u);
    if (!subn && r < tci_pow2(emin)) r = 0;
    return (float)(neg ? -r : r); /* exact: a number of an f32, f16 or bf16 accumulator */
}

/* The product x y as a significand s (46 fraction bits) and exponent e: 0 when it is no term
 * (a zero, or a subnormal input the model reads as zero).  Both passes of tci_block read the
 * terms through it: the second recomputes them rather than keep arrays (a GPU thread's
 * registers). */
UG_TCI_HD int tci_term(const ug_tci_params *p, float x, float y, uint64_t *s, int *e)
{
    uint64_t s1, s2;
    int e1, e2;
    if (x == 0 || y == 0) return 0;
    tci_split(x, p->in_emin, &s1, &e1);
    tci_split(y, p->in_emin, &s2, &e2);
    if (!p->in_subn && (s1 < (UINT64_C(1) << 23) || s2 < (UINT64_C(1) << 23))) return 0;
    *s = s1 * s2, *e = e1 + e2;
    return 1;
}

/* One block: c + sum_{i<n} a[i sa] b[i sb] (n <= block; inputs numbers of in_fmt, finite;
 * c finite, a number of the accumulator).  tcmodel.c's ug_tc_block. */
UG_TCI_HD float tci_block(const ug_tci_params *p, const float *a, long sa, const float *b, long sb,
                          int n, float c)
{
    const uint64_t two = UINT64_C(2) << 46; /* a product's significand 2, 46 fraction bits */
    int terms = 0, lead_pre = -100000, m = -100000, ec = 0;
    uint64_t lead_sig = 0, sc = 0;
    /* pass 1: the largest exponents, before and after renormalisation, and the leading product */
    for (int i = 0; i < n; i++) {
        float x = a[i * sa], y = b[i * sb];
        uint64_t s;
        int e;
        if (!tci_term(p, x, y, &s, &e)) continue;
        if (e > lead_pre) lead_pre = e, lead_sig = s;
        else if (e == lead_pre && s > lead_sig) lead_sig = s;
        if (s >= two) e++;
        if (e > m) m = e;
        terms++;
    }
    if (c != 0) {
        tci_split(c, -126, &sc, &ec);
        if (ec > m) m = ec;
    }
    if (terms == 0 && c == 0) return 0.0f;
    int carry = p->carry_bit && terms > 0 && lead_sig >= two && (c == 0 || lead_pre >= ec);
    int E = p->neab + carry;
    /* pass 2: align to 2^(m - 23 - E), add exactly */
    int64_t S = 0;
    for (int i = 0; i < n; i++) {
        float x = a[i * sa], y = b[i * sb];
        uint64_t s;
        int e;
        if (!tci_term(p, x, y, &s, &e)) continue;
        if (s >= two) s >>= 24, e++;
        else s >>= 23;
        int sh = m - e - E;
        int64_t v = (int64_t)(sh <= 0 ? s << -sh : tci_shift(s, sh, p->align_rne));
        S += ((tci_bits(x) ^ tci_bits(y)) >> 31) ? -v : v;
    }
    if (c != 0) {
        int sh = m - ec - E;
        int64_t v = (int64_t)(sh <= 0 ? sc << -sh : tci_shift(sc, sh, p->align_rne));
        S += (tci_bits(c) >> 31) ? -v : v;
    }
    if (S == 0) return 0.0f;
    return tci_round(S < 0, (uint64_t)(S < 0 ? -S : S), m - 23 - E, p->prec, p->out_emin,
                     p->out_emax, p->final_rne, p->out_subn);
}

/* Whether x is NaN (1), an infinity (2), or finite (0). */
UG_TCI_HD int tci_kind(float x)
{
    uint32_t u = tci_bits(x) & 0x7fffffffu;
    return u > 0x7f800000u ? 1 : u == 0x7f800000u ? 2 : 0;
}

/* c = 0 + sum_{i<k} a[i sa] b[i sb] in blocks, then stored (step 7).  tcmodel.c's ug_tc_dot
 * on inputs rounded to in_fmt already. */
UG_TCI_HD float tci_dot(const ug_tci_params *p, const float *a, long sa, const float *b, long sb,
                        long k)
{
    int nan = 0, pinf = 0, ninf = 0;
    for (long i = 0; i < k; i++) {
        float x = a[i * sa], y = b[i * sb];
        int kx = tci_kind(x), ky = tci_kind(y);
        if (kx == 1 || ky == 1 || (kx == 2 && y == 0) || (ky == 2 && x == 0)) nan = 1;
        else if (kx == 2 || ky == 2) {
            if ((tci_bits(x) ^ tci_bits(y)) >> 31) ninf = 1;
            else pinf = 1;
        }
    }
    float d = 0.0f;
    if (nan || (pinf && ninf)) return tci_float(0x7fc00000u);
    if (pinf || ninf) return tci_float(pinf ? 0x7f800000u : 0xff800000u);
    for (long i0 = 0; i0 < k; i0 += p->block) {
        int n = (int)(k - i0 < p->block ? k - i0 : p->block);
        d = tci_block(p, a + i0 * sa, sa, b + i0 * sb, sb, n, d);
        if (tci_kind(d) == 2) break; /* an overflowed block: the rest cannot bring it back */
    }
    if (p->store && tci_kind(d) == 0 && d != 0) { /* step 7: nearest-even to the storage format */
        uint64_t s;
        int e;
        tci_split(d, -126, &s, &e);
        d = tci_round((int)(tci_bits(d) >> 31), s, e - 23, p->store_p, p->store_emin,
                      p->store_emax, 1, 1);
    }
    return d;
}

#endif
