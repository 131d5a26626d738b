/*
 * gpu_arith.h - the arithmetic of the GPU oracle (oracle/gpu.h), one source compiled twice: by
 * nvcc for the kernels (oracle/cuda/) and by the C compiler for the host model
 * (oracle/gpu_model.c), which the self-test runs against the CPU oracle on the differential
 * corpus.  Everything here is integer arithmetic plus the final roundings; the kernels add only
 * a parallel decomposition whose merges are integer additions (exact, order-free).
 *
 * Terms.  A finite binary32 x is +-m 2^(E - 150) with E = max(biased exponent, 1) in [1, 254]
 * and m < 2^24 (the implicit bit included).  A product x y of two is +-(mx my) 2^(Ex + Ey - 300)
 * with mx my < 2^48: exact, no rounding anywhere.
 *
 * Bins.  The exponent E is split as E = 8 w + s (s < 8): the term is (m << s) 2^(8 w - bias),
 * an integer piece below 2^31 (sums) in window w.  A product's 48-bit significand shifted by s
 * (< 2^55) is cut into a low piece (its 32 low bits, window w) and a high piece (below 2^23,
 * window w + 4, i.e. 32 bits up).  Each thread keeps one unsigned 64-bit bin per (window, sign):
 * every piece is below 2^32, so a bin stays below 2^61 (what ugg_bins_to_limbs needs) for 2^29
 * pieces.  The dot kernel gives each thread its own bins and at most UGG_CHUNK_DOT / UGG_TPB_DOT
 * = 2^9 terms (bins below 2^42); the sum kernel gives each warp one set of bins, fed by atomic
 * additions, and most terms never reach them (register windows, below): a block takes one chunk
 * of 2^17 terms, so its bins take fewer than 2^18 pieces (below 2^50).  Positive and negative terms go
 * to separate bins, so sum |terms| is exact too: sum = pos - neg, sum_abs = pos + neg, window
 * by window.
 *
 * Limbs.  A thread's bins become a fixed-point integer (ugg_bins_to_limbs): carry propagation
 * through base-2^8 digits (window w is digit w), packed four to a 32-bit limb; limb k is worth
 * 2^(32 k - bias).  Every limb is in [0, 2^32) except the last, which carries the sign
 * ([-2^32, 2^32)).  Limbs of threads, blocks and chunks are then added as int64: a block's sum
 * (<= 128 threads) is below 2^39 in magnitude, and a segment has at most 2^23 chunks (at most
 * UGG_MAX_TERMS = 2^38 terms, chunks of >= 2^15: gpu.c refuses more), so every sum stays below
 * 2^62, what the rounding's carry propagation needs.
 *
 * Rounding (ugg_finish, ugg_fill): the limbs are carry-propagated into 32-bit magnitude digits
 * and a sign, and read exactly as oracle/xacc.c reads its accumulator: round and sticky bits in
 * integer arithmetic give RN64 (hi), RN64 of the exact difference s - hi (lo), RN32 and RD32
 * with binary32's subnormal quantum 2^-149 and overflow rules, and RU64 of sum |terms|
 * (sum_abs: MPFR's value exactly; the fast CPU oracle's is within 2^-42.4 of it).  Specials and
 * the sign of an exact zero follow oracle.h (special.c): counts of NaN, +inf, -inf terms, and
 * whether every term is -0.
 *
 * GEMM (oracle/gpu_gemm_arith.h) builds on the same rounding.
 */
#ifndef UG_ORACLE_GPU_ARITH_H
#define UG_ORACLE_GPU_ARITH_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "oracle/oracle.h"
#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__)
#define UGG_HD static __host__ __device__ inline
#else
#define UGG_HD static inline
#endif

enum {
    UGG_SUM_BIAS = 150,   /* x = m 2^(E - 150) */
    UGG_SUM_WINS = 32,    /* windows E >> 3 for E in [1, 254] */
    UGG_DOT_BIAS = 300,   /* x y = mx my 2^(Ex + Ey - 300) */
    UGG_DOT_WINS = 68,    /* (Ex + Ey) >> 3 <= 63, high pieces 4 windows up */
    UGG_SUM_LIMBS = (UGG_SUM_WINS + 8) / 4, /* 8 more digits absorb a thread's carries */
    UGG_DOT_LIMBS = (UGG_DOT_WINS + 8) / 4,
    UGG_MAX_DIGITS = 24,  /* >= any limb count + 3 (carry extension, negation) */
    /* Block shapes and chunk sizes (terms per block): a thread gets CHUNK / TPB terms. */
    UGG_TPB_SUM = 128, UGG_CHUNK_SUM = 1 << 17,
    UGG_TPB_DOT = 64, UGG_CHUNK_DOT = 1 << 15,
};
/* The most terms a segment may have (1 TiB of binary32): 2^23 chunks of 2^15 dot terms (2^21 of
 * 2^17 sum terms), whose fields (each below 2^39 in magnitude) add up below 2^62. */
#define UGG_MAX_TERMS ((uint64_t)1 << 38)

/* Fields of a chunk's (or a segment's) partial result, all int64: sum limbs, |.| limbs, then
 * the counts of NaN, +inf and -inf terms, and a field that is zero iff every term is -0 (the
 * sum over threads of each thread's OR of ugg_*_not_negzero, each below 2^32). */
#define UGG_FIELDS(nl) (2 * (nl) + 4)

/* ---- bits ------------------------------------------------------------------------------------ */

UGG_HD double ugg_f64_of(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

UGG_HD uint64_t ugg_bits_of64(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

UGG_HD float ugg_f32_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

UGG_HD uint32_t ugg_bits_of32(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

UGG_HD int ugg_clz32(uint32_t v) /* v != 0 */
{
#ifdef __CUDA_ARCH__
    return __clz((int)v);
#else
    return __builtin_clz(v);
#endif
}

UGG_HD int ugg_ctz32(uint32_t v) /* v != 0 */
{
#ifdef __CUDA_ARCH__
    return __ffs((int)v) - 1;
#else
    return __builtin_ctz(v);
#endif
}

/* E = max(biased exponent, 1) (255 for NaN and inf) and the integer significand m. */
UGG_HD uint32_t ugg_f32_exp(uint32_t bits)
{
    uint32_t e = (bits >> 23) & 0xff;
    return e ? e : 1;
}

UGG_HD uint32_t ugg_f32_sig(uint32_t bits)
{
    return (bits & 0x7fffffu) | (((bits >> 23) & 0xff) ? 0x800000u : 0);
}

/* ---- terms ----------------------------------------------------------------------------------- */

enum { UGG_T_FINITE = 0, UGG_T_NAN = 1, UGG_T_POSINF = 2, UGG_T_NEGINF = 3 };

/* The class of a binary32 term (special.c's rules per term). */
UGG_HD int ugg_sum_special(uint32_t bits)
{
    if (((bits >> 23) & 0xff) != 0xff)
        return UGG_T_FINITE;
    if (bits & 0x7fffffu)
        return UGG_T_NAN;
    return (bits >> 31) ? UGG_T_NEGINF : UGG_T_POSINF;
}

/* The class of a product x y: NaN if either is NaN or 0 * inf, else +-inf if either is. */
UGG_HD int ugg_dot_special(uint32_t a, uint32_t b)
{
    int sa = ugg_sum_special(a), sb = ugg_sum_special(b);
    if (sa == UGG_T_FINITE && sb == UGG_T_FINITE)
        return UGG_T_FINITE;
    if (sa == UGG_T_NAN || sb == UGG_T_NAN || !(a & 0x7fffffffu) || !(b & 0x7fffffffu))
        return UGG_T_NAN;
    return ((a ^ b) >> 31) ? UGG_T_NEGINF : UGG_T_POSINF;
}

/* How the sum kernel (and its host model) cuts a chunk of len terms at address x for 16-byte
 * loads that start on a 128-byte boundary: head terms before the first boundary (at most 31),
 * nv 16-byte words, the tail from tail0 (at most 3 terms).  Head and tail go to the bins. */
typedef struct {
    uint32_t head, nv, tail0;
} ugg_sum_cut;

UGG_HD ugg_sum_cut ugg_sum_cut_chunk(const void *x, uint32_t len)
{
    ugg_sum_cut c;
    c.head = (uint32_t)((128 - ((uintptr_t)x & 127)) & 127) / 4;
    c.head = c.head < len ? c.head : len;
    c.nv = (len - c.head) / 4;
    c.tail0 = c.head + 4 * c.nv;
    return c;
}

/* Nonzero unless the (finite) term is -0: what the zero-sign rule needs (one xor; threads OR
 * these, blocks add them: only zero or nonzero matters). */
UGG_HD uint32_t ugg_sum_not_negzero(uint32_t bits)
{
    return bits ^ 0x80000000u;
}

UGG_HD uint32_t ugg_dot_not_negzero(uint32_t a, uint32_t b)
{
    int zero = !(a & 0x7fffffffu) || !(b & 0x7fffffffu);
    return !(zero && ((a ^ b) >> 31));
}

/* A finite binary32 term: its bin (2 w + sign) and piece (m << s) < 2^31. */
UGG_HD void ugg_sum_piece(uint32_t bits, uint32_t *bin, uint32_t *piece)
{
    uint32_t e = ugg_f32_exp(bits);
    *bin = ((e >> 3) << 1) | (bits >> 31);
    *piece = ugg_f32_sig(bits) << (e & 7);
}

/* A finite product: the low piece's bin (2 w + sign; the high piece's is bin + 8) and pieces. */
UGG_HD void ugg_dot_pieces(uint32_t a, uint32_t b, uint32_t *bin, uint32_t *lo, uint32_t *hi)
{
    uint32_t e = ugg_f32_exp(a) + ugg_f32_exp(b);
    uint64_t v = ((uint64_t)ugg_f32_sig(a) * ugg_f32_sig(b)) << (e & 7);
    *bin = ((e >> 3) << 1) | ((a ^ b) >> 31);
    *lo = (uint32_t)v;
    *hi = (uint32_t)(v >> 32);
}

/* ---- register windows (sums) ----------------------------------------------------------------
 * The sum kernel keeps most terms out of memory: each thread has two uint64 registers, pos and
 * neg, worth 2^(lo - 150) a unit, for the terms whose biased exponent lies in its window
 * [lo, lo + SPAN).  Such a term adds m 2^(E - lo) < 2^(24 + SPAN - 1) = 2^51 (one 32 x 32 -> 64
 * multiply-add); a thread takes at most 2^11 terms (UGG_CHUNK_SUM / UGG_TPB_SUM), so
 * pos, neg < 2^62: no overflow.  Every other term (outside the window, NaN, inf) goes to the
 * block's bins, so the window decides the speed, never the value.  At the end the registers go
 * into the bins as two pieces each (ugg_reg_pieces): lo is a multiple of 8, so the low 32 bits
 * are a piece of window lo / 8 and the high bits (< 2^30) one of window lo / 8 + 4, like a
 * product's pieces.  lo >= 8 leaves subnormals and zeros (biased exponent 0, E = 1) out of every
 * window, so a term in it has the implicit bit; lo <= 216 leaves NaN and inf (255) out and keeps
 * lo / 8 + 4 below UGG_SUM_WINS. */
enum { UGG_REG_SPAN = 28, UGG_REG_LO_MIN = 8, UGG_REG_LO_MAX = 216 };
/* The sum kernel's shape (oracle/cuda/sumdot.cu; the model follows it): 16-byte words in flight
 * per thread, and the blocks of UGG_TPB_SUM threads an SM should hold (what caps a thread's
 * registers). */
#ifndef UGG_SUM_VEC
#define UGG_SUM_VEC 1
#endif
#ifndef UGG_SUM_BLOCKS_PER_SM
#define UGG_SUM_BLOCKS_PER_SM 16
#endif

/* The window of a thread whose first terms reach the biased exponent emax: 4 to 11 binades
 * above emax (for the larger terms still to come) and 16 to 23 below. */
UGG_HD uint32_t ugg_reg_window(uint32_t emax)
{
    int lo = ((int)emax - 16) & ~7;
    return lo < UGG_REG_LO_MIN   ? (uint32_t)UGG_REG_LO_MIN
           : lo > UGG_REG_LO_MAX ? (uint32_t)UGG_REG_LO_MAX
                                 : (uint32_t)lo;
}

/* A term into the registers if its biased exponent is in the window: 1 if taken, else 0 and
 * nothing changed.  ~10 integer instructions: the hot loop of `bench oracle --gpu`. */
UGG_HD int ugg_reg_term(uint32_t bits, uint32_t lo, uint64_t *pos, uint64_t *neg)
{
    uint32_t d = ((bits >> 23) & 0xff) - lo; /* wraps below the window: one unsigned compare */
    if (d >= UGG_REG_SPAN)
        return 0;
    uint32_t p = 1u << d, sig = (bits & 0x7fffffu) | 0x800000u;
    uint32_t pn = (bits >> 31) ? p : 0, pp = p - pn;
    *pos += (uint64_t)sig * pp;
    *neg += (uint64_t)sig * pn;
    return 1;
}

/* A register's value v (< 2^62) as pieces: bin (2 (lo / 8) + sign) takes lo32, bin + 8 hi32. */
UGG_HD void ugg_reg_pieces(uint64_t v, uint32_t lo, uint32_t sign, uint32_t *bin, uint32_t *lo32,
                           uint32_t *hi32)
{
    *bin = ((lo >> 3) << 1) | sign;
    *lo32 = (uint32_t)v;
    *hi32 = (uint32_t)(v >> 32);
}

/* ---- bins to limbs --------------------------------------------------------------------------- */

/* One thread's bins (bin i at bins[i * stride], i = 2 w + sign, every bin below 2^61) into
 * nl = (wins + 8) / 4 limbs of sum and of sum |.|.  Digits of 8 bits: v = pos -+ neg + carry
 * stays below 2^63 (|pos -+ neg| < 2^62, |carry| < 2^55), and after the last window 8 more
 * digits bring the carry to 0 or -1 (the sign), which the last limb takes as -2^32.  Cost:
 * wins + 8 steps. */
UGG_HD void ugg_bins_to_limbs(const uint64_t *bins, int stride, int wins, int64_t *sum,
                              int64_t *abs)
{
    int64_t cs = 0, ca = 0;
    uint32_t ds = 0, da = 0;
    int digits = wins + 8;
    for (int w = 0; w < digits; w++) {
        int64_t p = 0, n = 0;
        if (w < wins) {
            p = (int64_t)bins[(2 * w) * stride];
            n = (int64_t)bins[(2 * w + 1) * stride];
        }
        int64_t vs = p - n + cs, va = p + n + ca;
        ds |= (uint32_t)(vs & 0xff) << (8 * (w & 3));
        da |= (uint32_t)(va & 0xff) << (8 * (w & 3));
        cs = vs >> 8;
        ca = va >> 8;
        if ((w & 3) == 3) {
            sum[w >> 2] = ds;
            abs[w >> 2] = da;
            ds = da = 0;
        }
    }
    sum[digits / 4 - 1] += cs * ((int64_t)1 << 32); /* cs is 0 or -1; ca is 0 */
}

/* ---- rounding: magnitude digits ----------------------------------------------------------- */

typedef struct ugg_digits {
    uint32_t d[UGG_MAX_DIGITS]; /* magnitude; digit i worth 2^(32 i + base) */
    int lo, top;                /* lowest and highest nonzero digit; top < lo: zero */
    int neg;
} ugg_digits;

/* trim, negate, at, bits, any_below, msb, scale, round, sub, to_f32: the CPU's too
 * (oracle/digits.h; oracle/xacc.c includes it for its own digits) */
#define UG_DIG_T ugg_digits
#define UG_DIG(name) ugg_dig_##name
#define UG_DIG_HD UGG_HD
#include "oracle/digits.h"

/* Signed int64 limbs (|limb| < 2^62) into magnitude and sign.  Cost: O(nl). */
UGG_HD void ugg_digits_from_limbs(const int64_t *limbs, int nl, ugg_digits *g)
{
    int64_t carry = 0;
    int i;
    for (i = 0; i < nl; i++) {
        int64_t v = limbs[i] + carry;
        g->d[i] = (uint32_t)v;
        carry = v >> 32;
    }
    while (carry != 0 && carry != -1 && i < UGG_MAX_DIGITS - 1) {
        g->d[i++] = (uint32_t)carry;
        carry >>= 32;
    }
    g->lo = 0;
    g->top = i - 1;
    g->neg = 0;
    if (carry == -1) {
        g->neg = 1;
        ugg_dig_negate(g);
    }
    ugg_dig_trim(g);
}

/* ---- the exact record ------------------------------------------------------------------------ */

/* special.c's records, bit for bit: the canonical quiet NaN, or the infinity; sum_abs +inf. */
UGG_HD void ugg_exact_special(ug_exact *e, int term_class)
{
    uint64_t hb = term_class == UGG_T_POSINF   ? 0x7ff0000000000000ULL
                : term_class == UGG_T_NEGINF ? 0xfff0000000000000ULL
                                             : 0x7ff8000000000000ULL;
    uint32_t fb = term_class == UGG_T_POSINF   ? 0x7f800000u
                : term_class == UGG_T_NEGINF ? 0xff800000u
                                             : 0x7fc00000u;
    e->cls = (uint8_t)(term_class == UGG_T_POSINF   ? UG_X_POSINF
                       : term_class == UGG_T_NEGINF ? UG_X_NEGINF
                                                    : UG_X_NAN);
    e->hi = e->lo = ugg_f64_of(hb);
    e->rn = e->rd = ugg_f32_of(fb);
    e->sum_abs = ugg_f64_of(0x7ff0000000000000ULL);
}

/* ug_special_class on counts: NaN if any NaN or both infinities; 0 (finite) if none. */
UGG_HD int ugg_special_class(int64_t nan_terms, int64_t posinf, int64_t neginf)
{
    if (nan_terms || (posinf && neginf))
        return UGG_T_NAN;
    if (posinf)
        return UGG_T_POSINF;
    if (neginf)
        return UGG_T_NEGINF;
    return UGG_T_FINITE;
}

/* hi, lo, rn, rd of the value sum limbs[k] 2^(32 k + base) (cls finite); returns 0 and leaves
 * e alone when the value is zero.  As ug_xacc_fill. */
UGG_HD int ugg_fill(const int64_t *limbs, int nl, int base, ug_exact *e)
{
    ugg_digits g;
    ugg_digits_from_limbs(limbs, nl, &g);
    if (g.top < g.lo)
        return 0;
    uint64_t M;
    int q;
    e->cls = UG_X_FINITE;
    double hmag = ugg_dig_round(&g, base, 53, -1074, UG_DIG_RN, &M, &q);
    e->hi = g.neg ? -hmag : hmag;
    e->lo = 0.0;
    if (hmag <= DBL_MAX) { /* when |s| overflows binary64, lo is defined as 0 */
        ugg_digits diff;
        ugg_dig_sub(&g, M, q, &diff);
        if (diff.top >= diff.lo) {
            double lmag = ugg_dig_round(&diff, base, 53, -1074, UG_DIG_RN, 0, 0);
            e->lo = (diff.neg != g.neg) ? -lmag : lmag;
        }
    }
    e->rn = ugg_dig_to_f32(&g, base, 0);
    e->rd = ugg_dig_to_f32(&g, base, 1);
    return 1;
}

/* RU64 of the magnitude of sum limbs[k] 2^(32 k + base); 0 for zero. */
UGG_HD double ugg_mag_up(const int64_t *limbs, int nl, int base)
{
    ugg_digits g;
    ugg_digits_from_limbs(limbs, nl, &g);
    return g.top < g.lo ? 0.0 : ugg_dig_round(&g, base, 53, -1074, UG_DIG_MAG_UP, 0, 0);
}

/* An exact zero: -0 when negative, in hi, rn and rd; lo = +0 (special.c's ug_exact_set_zero). */
UGG_HD void ugg_exact_zero(ug_exact *e, int negative)
{
    e->cls = UG_X_FINITE;
    e->hi = negative ? -0.0 : 0.0;
    e->lo = 0.0;
    e->rn = e->rd = negative ? -0.0f : 0.0f;
}

/* *e = *r, every byte (the padding too: a record is copied whole, and every byte of what
 * cudaMemcpy reads must be written, compute-sanitizer initcheck).  On the device as 8-byte
 * stores: nvcc lowers a memcpy to global memory into 40 byte stores (the 4096^3 GEMM's 16.7 M
 * records on the H100: 18.3 ms with them, 14.1 ms with 8-byte stores). */
UGG_HD void ugg_store_record(ug_exact *e, const ug_exact *r)
{
#ifdef __CUDA_ARCH__
    static_assert(sizeof(ug_exact) % 8 == 0 && alignof(ug_exact) >= 8, "8-byte words");
    unsigned long long w[sizeof(ug_exact) / 8];
    memcpy(w, r, sizeof w);
    unsigned long long *d = (unsigned long long *)e;
#pragma unroll
    for (int i = 0; i < (int)(sizeof w / sizeof *w); i++)
        d[i] = w[i];
#else
    memcpy(e, r, sizeof *r);
#endif
}

/* The whole record from a segment's fields (UGG_FIELDS(nl)) and its term count n.  Cost: a
 * few hundred integer operations. */
UGG_HD void ugg_finish(const int64_t *f, int nl, int base, uint64_t n, ug_exact *e)
{
    ug_exact r;
    memset(&r, 0, sizeof r); /* the padding too (ugg_store_record) */
    int cls = ugg_special_class(f[2 * nl], f[2 * nl + 1], f[2 * nl + 2]);
    if (cls != UGG_T_FINITE) {
        ugg_exact_special(&r, cls);
    } else {
        if (!ugg_fill(f, nl, base, &r))
            ugg_exact_zero(&r, n >= 1 && f[2 * nl + 3] == 0);
        r.sum_abs = ugg_mag_up(f + nl, nl, base);
    }
    ugg_store_record(e, &r);
}

#endif
