/*
 * exact_fast.c - the fast exact oracle's sums and dot products: the same ug_exact as
 * the MPFR ground truth, bit for bit, at well under a nanosecond per term.
 *
 * Method: error-free extraction at fixed exponent boundaries (Rump, Ogita and Oishi's
 * ExtractVector, "Accurate floating-point summation part I", SISC 2008; also Demmel and Nguyen's
 * reproducible binning), cascaded until nothing is left, on binary64 terms: the binary32 inputs
 * themselves, the binary64 inputs, or the products x*y of binary32 pairs, which are exact in
 * binary64 (24 x 24 = 48 significant bits; 2^-298 <= |x*y| < 2^256, far inside binary64's
 * normal range).  The few binary64 partial sums this produces are added into an exact
 * fixed-point integer (xacc.h: Neal's "small superaccumulator", arXiv:1505.05571), from which
 * the roundings of ug_exact are read off with integer arithmetic.
 *
 * Exactness of one extraction level.  Let s be an integer with -1022 <= s <= 1022,
 * sigma = 1.5 * 2^s, u = 2^(s-52), and let at most 2^L terms p, all with |p| <= 2^(s-1-L),
 * be summed (L <= 12 here).  For each p:
 *   1. sigma + p lies in [2^s, 2^(s+1)], where the binary64 numbers are exactly the multiples
 *      of u, so fl(sigma + p) is sigma + p rounded to a multiple of u;
 *   2. q = fl(fl(sigma + p) - sigma) is exact (both operands are multiples of u and the
 *      difference is at most 2^s in magnitude), so q is p rounded to a multiple of u and,
 *      since 2^(s-1-L) is itself a multiple of u, |q| <= 2^(s-1-L);
 *   3. r = fl(p - q) is exact: |p - q| <= u/2, and when q != 0, |p| >= u/2 >= |p - q|; p - q is
 *      a multiple of p's quantum (u is a multiple of it, since |p| < 2^s) no larger than |p|,
 *      hence representable (when q == 0, r = p).  So p = q + r exactly and |r| <= 2^(s-53).
 *   4. Every partial sum of the q's, in any order and grouping (vector lanes included), is a
 *      multiple of u of magnitude <= 2^L 2^(s-1-L) = 2^(s-1) < 2^53 u: it is computed exactly.
 * A level is chosen from a bound B on the |p| (a block's max, or a row max times a column max
 * for GEMM): s = ilogb(B) + 2 + L (raised to -1022 when smaller; then u = 2^-1074 and r = 0,
 * because every binary64 number is a multiple of 2^-1074).  The next level runs on the r's with
 * B' = max |r| <= 2^(s-53) (or B' = 2^(s-53) a priori), i.e. at least 52 - L - 1 >= 39 bits
 * lower, so the cascade ends (r all zero) after at most ~(2098 / 39) levels and in practice after
 * 1-3.  The sum of the inputs is exactly the sum of the levels' sums.  A level needs s <= 1022
 * (sigma and 2^(s+1) finite): terms of magnitude >= 2^(1020-L), which only binary64 inputs can
 * have, are added one by one into xacc instead (exact, ~5 ns each).
 *
 * xacc (xacc.h, which gives the argument): an exact fixed-point accumulator of binary64
 * numbers, read with round and sticky bits into hi, lo, RN32 and RD32.
 *
 * Specials: each block's sum of |terms| is non-finite iff the block holds a NaN or infinite term
 * (or, for binary64 inputs only, the finite sum overflowed); such a block is scanned and the NaN,
 * +inf and -inf terms counted (a 0 * inf product is NaN in binary64 too), giving oracle.h's
 * class.  Zero results: when the exact sum is zero the inputs are scanned once for the sign rule
 * (-0 iff every term is -0).
 *
 * sum_abs: |terms| summed in 8 or 16 vector lanes per block (at most 4096/8 + 8 = 520 additions
 * on any term's path, for a 4096-term GEMM chunk in 8 lanes), blocks added with Neumaier's
 * compensated summation: relative error below 520 u + 2u + O(u^2) < 2^-43.9 for nonnegative
 * terms.  The result is multiplied by 1 + 2^-43: an upper bound (1 + 2^-43 > 1/(1 - 2^-43.9)
 * even after the multiplication's own rounding) within a factor 1 + 2^-42.4 of the true sum
 * (oracle.h asks for 1 + 2^-40; MPFR gives RU64 of it).
 *
 * How the passes are arranged (the vector loops are in fast_generic.c, fast_avx2.c and
 * fast_avx512.c: AVX-512 or AVX2 intrinsics, or GCC vector extensions for other CPUs; GEMM is in
 * exact_gemm.c).  Sums and dots go block by block (2048 terms).
 * Fast path: one fused pass whose sigmas come from the previous block's maximum (binary32 sums:
 * a plain binary64 sum after a check that makes it exact, see block_fused; dots and binary64
 * sums: 2 levels), which also measures the block's own maximum; the block counts only if that
 * maximum is within the assumed bound and nothing was left below the last level.  Otherwise
 * (first block, wide dynamic range, specials) the general path: the terms and their maximum,
 * then levels until nothing is left (2-4 passes).
 * Measured on 2 GHz AVX-512 cores (bench oracle): ~0.25-0.3 ns per binary32 term summed,
 * ~0.5 ns per dot term.
 * Threads: sums/dots of >= 2^18 terms split into chunks (ug_par_run) merged exactly (xacc
 * addition).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/par.h"
#include "base/sys.h"
#include "oracle/fast.h"
#include "oracle/special.h"
#include "oracle/xacc.h"

enum {
    BLK = 2048,        /* terms per block of the general path (a 16 KiB buffer of doubles) */
    PAR_MIN = 1 << 18, /* shorter sums/dots run on the calling thread */
    WIDE_PASSES = 3,   /* block_levels passes beyond which a binary64 block counts as wide */
    WIDE_RETRY = 64,   /* of the wide blocks, one in WIDE_RETRY tries the general path */
};

/* ---- accumulation state of one (part of a) sum ----------------------------------------------- */

typedef struct fast_acc {
    ug_xacc x;
    double sabs_hi, sabs_lo; /* Neumaier sum of the blocks' sums of |terms| */
    size_t nan_terms, posinf_terms, neginf_terms;
    int off_range; /* binary64 dot: a product outside the error-free range (range_sum) */
    int no_sabs;   /* binary64 dot: its terms are p and e, not |xy|, and its caller computes
                      sum_abs from x and y (exact_dot64.c): sabs is not kept */
} fast_acc;

static void fast_acc_init(fast_acc *f, int no_sabs)
{
    ug_xacc_init(&f->x);
    f->sabs_hi = f->sabs_lo = 0;
    f->nan_terms = f->posinf_terms = f->neginf_terms = 0;
    f->off_range = 0;
    f->no_sabs = no_sabs;
}

static void sabs_add(fast_acc *f, double v)
{
    if (f->no_sabs)
        return;
    double s = f->sabs_hi + v;
    if (isfinite(s)) {
        if (fabs(f->sabs_hi) >= fabs(v))
            f->sabs_lo += (f->sabs_hi - s) + v;
        else
            f->sabs_lo += (v - s) + f->sabs_hi;
    }
    f->sabs_hi = s;
}

static void fast_acc_merge(fast_acc *dst, fast_acc *src)
{
    ug_xacc_merge(&dst->x, &src->x);
    sabs_add(dst, src->sabs_hi);
    sabs_add(dst, src->sabs_lo);
    dst->nan_terms += src->nan_terms;
    dst->posinf_terms += src->posinf_terms;
    dst->neginf_terms += src->neginf_terms;
    dst->off_range |= src->off_range;
}

static void count_special(fast_acc *f, double p)
{
    if (isnan(p))
        f->nan_terms++;
    else if (p == INFINITY)
        f->posinf_terms++;
    else if (p == -INFINITY)
        f->neginf_terms++;
}

/* The terms of one sum.  Its kind is said, not inferred from which pointers are NULL: an empty
 * dot may come with NULL vectors and is still a dot. */
typedef struct term_src {
    ug_terms_kind kind;
    const float *xf, *y;
    const double *xd;
    size_t incx, incy, n;
    const double *yd; /* binary64 dot (kind UG_TERMS_SUM64): the y of x*y; n counts products */
} term_src;

/* Term i in binary64 (exact). */
static double term_value(const term_src *t, size_t i)
{
    return t->kind == UG_TERMS_SUM64 ? t->xd[i]
         : t->kind == UG_TERMS_DOT32 ? (double)t->xf[i * t->incx] * (double)t->y[i * t->incy]
                                     : (double)t->xf[i];
}

/* The sign rule for an exact zero: 1 (-0) iff n >= 1 and every term is -0.  One scan; asked
 * only when the exact sum is zero. */
static int zero_negative_terms(const term_src *t)
{
    if (t->n == 0)
        return 0;
    for (size_t i = 0; i < t->n; i++) {
        double v = term_value(t, i);
        if (!(v == 0 && signbit(v)))
            return 0;
    }
    return 1;
}

/* RU64(sum |term|) exactly: for the rare sums whose bound would overflow binary64 (binary64
 * inputs near DBL_MAX), where the bound's slack could cross DBL_MAX.  One xacc pass. */
static double exact_sum_abs(const term_src *t)
{
    ug_xacc x;
    ug_xacc_init(&x);
    for (size_t i = 0; i < t->n; i++)
        ug_xacc_add(&x, fabs(term_value(t, i)));
    return ug_xacc_mag_up(&x);
}

/* The ug_exact of the whole sum from its accumulated state (src: its terms, for the two rare
 * cases that look at them again). */
static void fast_acc_finish(fast_acc *f, const term_src *src, ug_exact *e)
{
    ug_xclass cls = ug_special_class(f->nan_terms, f->posinf_terms, f->neginf_terms);
    if (cls != UG_X_FINITE) {
        ug_exact_set_special(e, cls);
        return;
    }
    if (!ug_xacc_fill(&f->x, e)) /* a binary64 dot's caller decides the sign of its zero */
        ug_exact_set_zero(e, src->yd ? 0 : zero_negative_terms(src));
    if (src->yd) { /* a binary64 dot's caller computes sum_abs (fast_acc: no_sabs) */
        e->sum_abs = NAN;
        return;
    }
    e->sum_abs = (f->sabs_hi + f->sabs_lo) * UG_FAST_SABS_UP;
    if (!isfinite(e->sum_abs))
        e->sum_abs = exact_sum_abs(src);
}

/* ---- blocks ---------------------------------------------------------------------------------- */

/* The level exponent s for terms bounded by B > 0 (finite), 2^L terms: s = ilogb(B) + 2 + L,
 * at least -1022.  Returns INT_MAX when s would exceed 1022. */
static int level_exponent(double B, int L)
{
    int s = ilogb(B) + 2 + L;
    if (s > 1022)
        return INT_MAX;
    return s < -1022 ? -1022 : s;
}

/* Adds the exact sum of the n <= BLK binary64 terms src (buf: scratch, may equal src) to f,
 * given max |term| (finite, > 0): extraction levels until nothing is left.  Returns the number
 * of passes it took (a term-by-term addition counts as many). */
static int block_levels(fast_acc *f, const ug_fast_kernels *k, const double *src, double *buf,
                         size_t n, double maxabs)
{
    int L = ug_fast_ceil_log2(n);
    int s = level_exponent(maxabs, L);
    if (s == INT_MAX) { /* binary64 terms near the top of the range: one by one */
        for (size_t i = 0; i < n; i++)
            ug_xacc_add(&f->x, src[i]);
        return INT_MAX;
    }
    for (int passes = 1;; passes++) {
        double level_sum;
        double rmax = k->level(src, buf, n, 1.5 * ug_fast_pow2(s), &level_sum);
        ug_xacc_add(&f->x, level_sum);
        if (rmax == 0)
            return passes;
        src = buf;
        s = level_exponent(rmax, L);
    }
}

/* Where a block's terms come from. */
typedef struct blk {
    ug_terms_kind kind;
    const void *a;  /* binary32 or binary64 values */
    const float *b; /* dot: the second factors */
    size_t n;       /* <= BLK */
} blk;

/* The general path for one block (any data): the terms in binary64 with their statistics, the
 * specials, sum_abs, then levels until nothing is left (*passes: how many; 0 when none ran).
 * Returns max |term| (not finite when the block holds specials). */
static double block_general(fast_acc *f, const ug_fast_kernels *k, const blk *bk, double *buf,
                            int *passes)
{
    *passes = 0;
    double st[2];
    const double *src = buf;
    if (bk->kind == UG_TERMS_SUM64) { /* read in place */
        k->terms[UG_TERMS_SUM64](bk->a, NULL, bk->n, NULL, st);
        src = bk->a;
    } else {
        k->terms[bk->kind](bk->a, bk->b, bk->n, buf, st);
    }
    if (!isfinite(st[1])) {
        size_t before = f->nan_terms + f->posinf_terms + f->neginf_terms;
        for (size_t i = 0; i < bk->n; i++)
            count_special(f, src[i]);
        if (f->nan_terms + f->posinf_terms + f->neginf_terms != before)
            return st[1]; /* the class is special: the finite part no longer matters */
    }
    sabs_add(f, st[1]);
    if (st[0] > 0)
        *passes = block_levels(f, k, src, buf, bk->n, st[0]);
    return st[0];
}

/* A block of binary64 terms spread over a wide exponent range, into the large accumulator
 * (xacc.h: ug_xbig, exact for any finite terms, one pass at ~1 ns a term, against a pass per
 * ~40 bits of range for block_levels).  The statistics pass first: a non-finite sum of |terms|
 * (a special term, or finite terms whose sum overflows) goes to block_general, which counts the
 * specials.  Returns max |term| as block_general does. */
static double block_big(fast_acc *f, const ug_fast_kernels *k, const blk *bk, ug_xbig *big,
                        double *buf)
{
    double st[2];
    k->terms[UG_TERMS_SUM64](bk->a, NULL, bk->n, NULL, st);
    if (!isfinite(st[1])) {
        int passes;
        return block_general(f, k, bk, buf, &passes);
    }
    sabs_add(f, st[1]);
    ug_xbig_add_n(big, &f->x, bk->a, bk->n);
    return st[0];
}

/* The fast path for one block: one fused pass whose sigmas assume |term| <= 2^e (e: from the
 * previous block's maximum).  The pass also measures max |term|, so the assumption is checked
 * afterwards; the block counts only if it held, no term was special and nothing was left below
 * the last level (dots and binary64 sums: 2 levels, 2 (52 - L) bits below 2^e).  Returns 1 if
 * the block was added; *maxabs: its max.
 * binary32 sums need no extraction at all (UG_F_SUM32_DIRECT): with s = e + 1 + L and
 * u = 2^(s-52), a binary32 x with |x| <= 2^e is a multiple of u when x = 0 or
 * |x| >= t = 2^max(s-29, -126) (a normal x in [2^k, 2^(k+1)) is a multiple of 2^(k-23) >= u for
 * k >= s - 29; subnormals, multiples of 2^-149 only, are excluded) - or always, when
 * u <= 2^-149 (t = 0).  Then every partial sum of the block is a multiple of u no larger than
 * 2^L 2^e = 2^(s-1) < 2^53 u in magnitude (point 4 with q = x): summing x in binary64 lanes is
 * exact.  The kernel reports a nonzero |x| < t as a residual. */
static int block_fused(fast_acc *f, const ug_fast_kernels *k, const blk *bk, int e,
                       double *maxabs)
{
    int L = ug_fast_ceil_log2(bk->n);
    int levels = bk->kind == UG_TERMS_SUM32 ? 1 : 2;
    int which = bk->kind == UG_TERMS_SUM32   ? UG_F_SUM32_DIRECT
              : bk->kind == UG_TERMS_SUM64 ? UG_F_SUM64_2M
                                           : UG_F_DOT32_2M;
    int s = e + 1 + L;
    if (s > 1022)
        return 0;
    double sig[3] = {0, 0, 0};
    if (bk->kind == UG_TERMS_SUM32)
        sig[0] = s - 52 <= -149 ? 0.0 : ldexp(1.0, s - 29 > -126 ? s - 29 : -126);
    else
        for (int l = 0; l < levels; l++, s += L - 52) /* level l+1 bound: level l residual's */
            sig[l] = 1.5 * ug_fast_pow2(s < -1022 ? -1022 : s);
    ug_fused_out o;
    k->fused[which](bk->a, bk->b, bk->n, sig, &o);
    *maxabs = o.max_abs;
    if (!isfinite(o.sum_abs) || o.max_abs > ldexp(1.0, e) || o.residual)
        return 0;
    for (int l = 0; l < levels; l++)
        ug_xacc_add(&f->x, o.level[l]);
    sabs_add(f, o.sum_abs);
    return 1;
}

/* Adds the exact sum of n terms to f, block by block: the fast path when the previous block's
 * bound fits, else the general path.  Binary64 blocks whose general path took more than
 * WIDE_PASSES extraction passes make the next blocks go to the large accumulator (block_big)
 * directly; every WIDE_RETRY-th such block takes the general path again, to notice when the
 * data narrow.
 * A binary64 dot (yd: the y, a: the x, kind UG_TERMS_SUM64, n products): blocks of BLK / 2
 * products, each gathered as its BLK / 2 roundings p = RN64(xy) and their errors
 * e = fma(x, y, -p) (exact_dot64.c says when xy = p + e exactly: |p| >= 2^-968 and finite);
 * a product outside that range sets f->off_range, and the caller discards the result. */
static void range_sum(fast_acc *f, ug_terms_kind kind, const void *a, size_t incx,
                      const float *b, size_t incy, size_t n, const double *yd)
{
    const ug_fast_kernels *k = ug_fast_kernels_get();
    double buf[BLK], gathered[BLK];
    int e = INT_MIN; /* no bound yet */
    int wide = 0;    /* blocks since the last general binary64 block that needed many passes */
    ug_xbig *big = NULL;
    size_t step = yd ? BLK / 2 : BLK;
    for (size_t i = 0; i < n; i += step) {
        size_t m = n - i < step ? n - i : step;
        blk bk;
        if (yd) {
            const double *x = (const double *)a + i, *y = yd + i;
            int off = 0;
            for (size_t t = 0; t < m; t++) {
                double u = x[t], v = y[t], p = u * v, ap = fabs(p);
                gathered[t] = p;
                gathered[m + t] = fma(u, v, -p);
                off |= (!(ap <= DBL_MAX)) | ((ap < 0x1p-968) & (u != 0) & (v != 0));
            }
            f->off_range |= off;
            bk = (blk){UG_TERMS_SUM64, gathered, NULL, 2 * m};
        } else if (kind == UG_TERMS_DOT32 && (incx != 1 || incy != 1)) { /* strided dot */
            const float *x = a;
            for (size_t t = 0; t < m; t++)
                gathered[t] = (double)x[(i + t) * incx] * (double)b[(i + t) * incy];
            bk = (blk){UG_TERMS_SUM64, gathered, NULL, m};
        } else if (kind == UG_TERMS_SUM64) {
            bk = (blk){kind, (const double *)a + i, NULL, m};
        } else {
            bk = (blk){kind, (const float *)a + i, kind == UG_TERMS_DOT32 ? b + i : NULL, m};
        }
        double mx = 0;
        if (wide && wide % WIDE_RETRY) {
            if (!big) {
                big = ug_xmalloc(sizeof *big);
                ug_xbig_init(big);
            }
            mx = block_big(f, k, &bk, big, buf);
            wide++;
        } else {
            int passes = 0;
            if (e == INT_MIN || !block_fused(f, k, &bk, e, &mx))
                mx = block_general(f, k, &bk, buf, &passes);
            wide = bk.kind == UG_TERMS_SUM64 && passes > WIDE_PASSES;
        }
        if (mx > 0 && mx <= DBL_MAX)
            e = ilogb(mx) + 1;
    }
    if (big) {
        ug_xbig_flush(big, &f->x);
        free(big);
    }
}

/* ---- threads --------------------------------------------------------------------------------- */

typedef struct par_job {
    term_src src;
    fast_acc *parts; /* one per worker */
    size_t chunk;    /* terms per part, a multiple of BLK */
} par_job;

/* Worker w sums terms [w chunk, (w + 1) chunk) into parts[w]. */
static void par_worker(void *ctx, int w, int workers)
{
    (void)workers;
    par_job *j = ctx;
    size_t lo = (size_t)w * j->chunk;
    size_t n = lo < j->src.n ? (j->src.n - lo < j->chunk ? j->src.n - lo : j->chunk) : 0;
    fast_acc *f = &j->parts[w];
    fast_acc_init(f, j->src.yd != NULL);
    if (n == 0) /* nothing to add (the vectors of an empty sum may be NULL: no offset from them) */
        return;
    if (j->src.kind == UG_TERMS_SUM64)
        range_sum(f, UG_TERMS_SUM64, j->src.xd + lo, 1, NULL, 1, n,
                  j->src.yd ? j->src.yd + lo : NULL);
    else if (j->src.kind == UG_TERMS_DOT32)
        range_sum(f, UG_TERMS_DOT32, j->src.xf + lo * j->src.incx, j->src.incx,
                  j->src.y + lo * j->src.incy, j->src.incy, n, NULL);
    else
        range_sum(f, UG_TERMS_SUM32, j->src.xf + lo, 1, NULL, 1, n, NULL);
}

/* The whole sum described by src into out: on the calling thread when short, else split into
 * ug_par_threads() chunks (multiples of BLK) summed by ug_par_run's workers and merged exactly,
 * in worker order, into parts[0].  Returns 1 when a binary64 dot met a product off its range
 * (out is then meaningless), else 0. */
static int run_sum(const term_src *src, ug_exact *out)
{
    int workers = src->n >= PAR_MIN ? ug_par_threads() : 1;
    size_t blocks = (src->n + BLK - 1) / BLK;
    fast_acc one;
    fast_acc *parts = workers > 1 ? ug_xmalloc((size_t)workers * sizeof *parts) : &one;
    par_job job = {*src, parts, ((blocks + (size_t)workers - 1) / (size_t)workers) * BLK};
    ug_par_run(workers, par_worker, &job);
    for (int w = 1; w < workers; w++)
        fast_acc_merge(&parts[0], &parts[w]);
    int off = parts[0].off_range;
    if (!off)
        fast_acc_finish(&parts[0], src, out);
    if (parts != &one)
        free(parts);
    return off;
}

void ug_exact_sum_f32_fast(const float *x, size_t n, ug_exact *out)
{
    term_src src = {UG_TERMS_SUM32, x, NULL, NULL, 1, 1, n};
    run_sum(&src, out);
}

void ug_exact_sum_f64_fast(const double *x, size_t n, ug_exact *out)
{
    term_src src = {UG_TERMS_SUM64, NULL, NULL, x, 1, 1, n};
    run_sum(&src, out);
}

void ug_exact_dot_f32_fast(const float *x, size_t incx, const float *y, size_t incy, size_t n,
                           ug_exact *out)
{
    term_src src = {UG_TERMS_DOT32, x, y, NULL, incx, incy, n};
    run_sum(&src, out);
}

int ug_exact_dot64_stream(const double *x, const double *y, size_t n, ug_exact *out)
{
    term_src src = {UG_TERMS_SUM64, NULL, NULL, x, 1, 1, n, y};
    return run_sum(&src, out) ? -1 : 0;
}
