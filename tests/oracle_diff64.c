/*
 * oracle_diff64.c - the binary64 dot product's fast path (oracle/exact_dot64.c) against MPFR:
 * random and adversarial vectors, every record compared bitwise (ug_exact_equal), sum_abs an
 * upper bound within 1 + 2^-40 of MPFR's RU64, and a benchmark of both on the same data.
 *
 * Vectors (1-48 terms, the kinds drawn at random):
 *   - random bits (any finite binary64: many products leave the fast range: MPFR answers, the
 *     dispatcher is checked to equal MPFR there too), exponent windows, subnormals times large
 *     values (in the fast range) and times small ones (not), products of normal numbers at the
 *     bottom of the fast range (2^-1030 .. 2^-970);
 *   - GenDot-style ill-conditioned dots (Ogita, Rump, Oishi 2005): the second half of the terms
 *     chosen to cancel the running binary64 dot, so the condition number sum|xy| / |sum xy|
 *     reaches 1e300 and beyond (the largest seen is printed);
 *   - partial sums beyond DBL_MAX that cancel back (products near 2^1021);
 *   - binary64 ties: a product m and a product of ulp64(m)/2, broken or not by a 2^-1074 term;
 *   - specials: NaN, +-inf, 0 * inf, signed zeros (all -0 products: -0).
 * Long binary64 sums (wide_sum_f64): blocks of 2048 terms whose first is spread over +-600 in
 * exponent (so the sum goes to the large accumulator, oracle/xacc.h: ug_xbig), then blocks of
 * any kind: wide, one value repeated (a bin spilled every 2048 additions), subnormals, values
 * near DBL_MAX (partial sums beyond it: the general path), narrow (the retry every 64 blocks),
 * the previous block negated (exact cancellation), a NaN or an infinity.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/par.h"
#include "base/sys.h"
#include "oracle/oracle.h"
#include "tests/oracle_diff.h"

enum { D64_CAP = 128 };

/* A random binary64 of exponent in [e0, e1], random sign and significand. */
static double d64_window(drng *r, int e0, int e1)
{
    double m = 1.0 + (double)(od_r64(r) >> 12) * 0x1p-52;
    double v = ldexp(m, e0 + (int)od_rbelow(r, (uint32_t)(e1 - e0 + 1)));
    return od_r64(r) & 1 ? -v : v;
}

static double d64_any(drng *r)
{
    uint64_t b;
    do
        b = od_r64(r);
    while (((b >> 52) & 0x7ff) == 0x7ff);
    return ug_bits_f64(b);
}

/* GenDot-style: n/2 random terms with exponents spread over +-b/2, then n/2 terms whose y is
 * chosen so that x*y cancels the running binary64 dot d (y = -d / x, rounded), leaving only the
 * rounding residues: the exact dot is tiny against sum |x y|. */
static size_t gen_ill(drng *r, double *x, double *y, size_t n, int b)
{
    if (n < 4)
        n = 4;
    size_t h = n / 2;
    double d = 0;
    for (size_t i = 0; i < h; i++) {
        x[i] = d64_window(r, -b / 4, b / 4);
        y[i] = d64_window(r, -b / 4, b / 4);
        d += x[i] * y[i];
    }
    for (size_t i = h; i < n; i++) {
        x[i] = d64_window(r, -b / 4, b / 4);
        y[i] = -d / x[i];
        if (od_rbelow(r, 3) == 0) /* and a small random push, at a random scale */
            y[i] += ldexp(d64_window(r, 0, 0), -(int)od_rbelow(r, (uint32_t)b + 1)) * y[i];
        d += x[i] * y[i];
    }
    return n;
}

typedef struct d64_tally {
    long vectors, fast, bad, disp_bad;
    double kappa_max; /* the largest condition number met on the fast path */
} d64_tally;

static void d64_report(ug_t *t, d64_tally *ty, long idx, const double *x, const double *y,
                       size_t n, const ug_exact *a, const ug_exact *b, const char *what)
{
    if (++ty->bad > 3)
        return;
    ug_note(t, "%s: vector %ld (n %zu) differs: hi %a/%a lo %a/%a rn %a/%a rd %a/%a sum_abs "
            "%a/%a cls %d/%d", what, idx, n, a->hi, b->hi, a->lo, b->lo, (double)a->rn,
            (double)b->rn, (double)a->rd, (double)b->rd, a->sum_abs, b->sum_abs, a->cls, b->cls);
    for (size_t i = 0; i < n && i < 8; i++)
        ug_note(t, "  x[%zu] = %a, y[%zu] = %a", i, x[i], i, y[i]);
}

static void d64_check(ug_t *t, d64_tally *ty, long idx, const double *x, const double *y,
                      size_t n)
{
    ug_exact a, b, c;
    memset(&a, 0, sizeof a);
    ug_exact_dot_f64_mpfr(x, 1, y, 1, n, &b);
    ty->vectors++;
    if (ug_exact_dot_f64_fast(x, 1, y, 1, n, &a) == 0) {
        ty->fast++;
        /* sum_abs: MPFR's RU64; the fast one an upper bound within 1 + 2^-40 (oracle.h) */
        if (!ug_exact_equal(&a, &b) || a.sum_abs < b.sum_abs || a.sum_abs > b.sum_abs * (1 + 0x1p-40))
            d64_report(t, ty, idx, x, y, n, &a, &b, "fast dot f64");
        double k = b.cls == UG_X_FINITE && b.hi != 0 ? b.sum_abs / fabs(b.hi) : 0;
        if (isfinite(k) && k > ty->kappa_max)
            ty->kappa_max = k;
    }
    ug_exact_dot_f64(x, 1, y, 1, n, &c); /* the dispatcher: fast or MPFR, always = MPFR */
    if (!ug_exact_equal(&c, &b) && ty->disp_bad++ < 3)
        d64_report(t, ty, idx, x, y, n, &c, &b, "ug_exact_dot_f64");
}

UG_CASE(oracle_diff64, short_dot_f64)
{
    drng r = od_drng_make(t, "oracle_diff64/short_dot_f64");
    d64_tally ty = {0};
    double x[D64_CAP], y[D64_CAP];
    long count = 150000;
    for (long v = 0; v < count; v++) {
        size_t n = od_short_len(&r);
        int kind = (int)od_rbelow(&r, 8);
        int w = (int)od_rbelow(&r, 60), e0 = -480 + (int)od_rbelow(&r, 960 - (uint32_t)w);
        for (size_t i = 0; i < n; i++) {
            switch (kind) {
            case 0: /* any finite binary64: off the fast range often */
                x[i] = d64_any(&r), y[i] = d64_any(&r);
                break;
            case 1: /* subnormals times large (fast) or small (MPFR) values */
                x[i] = ug_bits_f64(od_r64(&r) & 0x000fffffffffffffULL);
                y[i] = d64_window(&r, od_rbelow(&r, 4) ? 110 : -60, od_rbelow(&r, 4) ? 900 : 100);
                break;
            case 2: /* products at the bottom of the fast range, 2^-1030 .. 2^-970: those
                     * below 2^-968 (e = xy - p inexact) must go to MPFR */
                x[i] = d64_window(&r, -515, -485);
                y[i] = d64_window(&r, -515, -485);
                break;
            default: /* exponent windows */
                x[i] = d64_window(&r, e0, e0 + w);
                y[i] = d64_window(&r, e0, e0 + w);
                break;
            }
        }
        switch (od_rbelow(&r, 8)) {
        case 1:
        case 2: /* ill-conditioned, kappa up to 1e300 and beyond */
            n = gen_ill(&r, x, y, n, 200 + (int)od_rbelow(&r, 1600));
            break;
        case 3: /* partial sums beyond DBL_MAX, cancelling back: products ~2^1021 */
            if (n + 20 <= D64_CAP) {
                for (int i = 0; i < 10; i++, n++)
                    x[n] = 0x1.fp510, y[n] = 0x1.8p510;
                for (int i = 0; i < 10; i++, n++)
                    x[n] = -0x1.fp510, y[n] = od_rbelow(&r, 4) ? 0x1.8p510 : 0x1.7ffffp510;
            }
            break;
        case 4: /* a binary64 tie: m*1 + (ulp64(m)/2)*(+-1), maybe broken by 2^-1074 */
            if (n + 3 <= D64_CAP) {
                for (size_t i = 0; i + 1 < n; i += 2)
                    x[i + 1] = -x[i], y[i + 1] = y[i];
                if (n % 2)
                    y[n - 1] = 0.0;
                double m = d64_window(&r, -900, 900);
                x[n] = m, y[n++] = 1.0;
                x[n] = ldexp(1.0, ilogb(m) - 53), y[n++] = od_r64(&r) & 1 ? 1.0 : -1.0;
                if (od_rbelow(&r, 2))
                    x[n] = 0x1p-1074, y[n++] = od_r64(&r) & 1 ? 0x1p104 : -0x1p104;
            }
            break;
        case 5: { /* specials and signed zeros */
            static const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0};
            x[od_rbelow(&r, (uint32_t)n)] = sp[od_rbelow(&r, 5)];
            if (od_rbelow(&r, 2))
                y[od_rbelow(&r, (uint32_t)n)] = sp[od_rbelow(&r, 5)];
            if (od_rbelow(&r, 8) == 0) /* every product -0 (or +0) */
                for (size_t i = 0; i < n; i++)
                    x[i] = od_rbelow(&r, 2) ? -0.0 : 0.0, y[i] = od_rbelow(&r, 2) ? 1.0 : -2.0;
            break;
        }
        default:
            break;
        }
        d64_check(t, &ty, v, x, y, n);
    }
    ug_note(t, "dot f64: %ld vectors, %ld on the fast path, %ld differ; dispatcher %ld differ; "
            "largest condition number on the fast path %.3g", ty.vectors, ty.fast, ty.bad,
            ty.disp_bad, ty.kappa_max);
    ug_point(t, "fast dot f64 = MPFR");
    UG_EXPECT_MSG(ty.bad == 0, "%ld of %ld fast-path records differ from MPFR", ty.bad, ty.fast);
    UG_EXPECT_MSG(ty.fast >= 100000, "only %ld vectors took the fast path (want >= 100,000)",
                  ty.fast);
    UG_EXPECT_MSG(ty.kappa_max >= 1e300, "largest condition number %.3g < 1e300", ty.kappa_max);
    ug_point(t, "ug_exact_dot_f64 = MPFR");
    UG_EXPECT_MSG(ty.disp_bad == 0, "%ld of %ld dispatcher records differ from MPFR",
                  ty.disp_bad, ty.vectors);
}

enum { W_BLK = 2048 };

/* Block kind `kind` of a long sum (see the head of the file) into x[0..m); prev: the previous
 * block (m values), for the cancelling kind. */
static void wide_block(drng *r, double *x, const double *prev, size_t m, int kind)
{
    double rep = d64_window(r, -1000, 1000);
    for (size_t i = 0; i < m; i++) {
        switch (kind) {
        case 0:
            x[i] = d64_window(r, -600, 600);
            break;
        case 1:
            x[i] = rep;
            break;
        case 2:
            x[i] = od_rbelow(r, 2) ? ug_bits_f64(od_r64(r) & 0x800fffffffffffffULL)
                                   : d64_window(r, -1022, -900);
            break;
        case 3:
            x[i] = d64_window(r, 1000, 1023);
            break;
        case 4:
            x[i] = d64_window(r, -2, 2);
            break;
        default:
            x[i] = prev ? -prev[i] : 0.0;
            break;
        }
    }
}

UG_CASE(oracle_diff64, wide_sum_f64)
{
    drng r = od_drng_make(t, "oracle_diff64/wide_sum_f64");
    size_t cap = 90 * W_BLK;
    double *x = ug_xmalloc(cap * sizeof *x);
    long bad = 0, specials = 0;
    size_t terms = 0;
    for (int v = 0; v < 24; v++) {
        size_t blocks = 2 + od_rbelow(&r, 88), n = 0;
        for (size_t b = 0; b < blocks; b++) {
            size_t m = b + 1 < blocks ? W_BLK : 1 + od_rbelow(&r, W_BLK);
            int kind = b == 0 ? 0 : (int)od_rbelow(&r, 6);
            if (kind == 3 && v % 4 != 3) /* values near DBL_MAX swamp the rest: a few sums */
                kind = 0;
            wide_block(&r, x + n, b ? x + n - W_BLK : NULL, m, kind);
            n += m;
        }
        if (v % 6 == 5) { /* a NaN or an infinity somewhere */
            static const double sp[] = {NAN, INFINITY, -INFINITY};
            x[od_rbelow(&r, (uint32_t)n)] = sp[od_rbelow(&r, 3)];
            specials++;
        }
        ug_exact a, b;
        ug_exact_sum_f64_fast(x, n, &a);
        ug_exact_sum_f64_mpfr(x, n, &b);
        terms += n;
        if (!ug_exact_equal(&a, &b) && bad++ < 3)
            ug_note(t, "vector %d (n %zu) differs: hi %a/%a lo %a/%a rn %a/%a rd %a/%a sum_abs "
                    "%a/%a cls %d/%d", v, n, a.hi, b.hi, a.lo, b.lo, (double)a.rn,
                    (double)b.rn, (double)a.rd, (double)b.rd, a.sum_abs, b.sum_abs, a.cls, b.cls);
    }
    ug_note(t, "wide sums f64: 24 vectors (%ld with a special), %zu terms, %ld differ", specials,
            terms, bad);
    ug_point(t, "wide sum f64: fast = MPFR");
    UG_EXPECT_MSG(bad == 0, "%ld of 24 long binary64 sums differ from MPFR", bad);
    free(x);
}

/* The fast path beside MPFR on the same data, in one run: n = 2^18 products, one thread, the
 * best of 20 fast runs (~1 ms each, so a preemption spoils several) and of 5 MPFR runs (~100 ms
 * each), on (a) values of exponent in [-2, 2] (a typical dot) and (b) GenDot data of exponents
 * within +-100 (products over 2^400, cancelling: extraction levels would need ~10 passes a
 * block; the large accumulator takes them).  The lines print both timings and the ratio; the
 * assertions are that both records agree (a timing floor would flake on a loaded 2-core CI
 * machine). */
UG_CASE(oracle_diff64, bench_dot_f64)
{
    size_t n = (size_t)1 << 18;
    double *x = ug_xmalloc(n * sizeof *x), *y = ug_xmalloc(n * sizeof *y);
    drng r = od_drng_make(t, "oracle_diff64/bench");
    int threads = ug_par_threads();
    for (int set = 0; set < 2; set++) {
        if (set == 0)
            for (size_t i = 0; i < n; i++)
                x[i] = d64_window(&r, -2, 2), y[i] = d64_window(&r, -2, 2);
        else
            gen_ill(&r, x, y, n, 400);
        ug_exact a, b;
        double tf = INFINITY, tm = INFINITY;
        ug_par_set_threads(1); /* one core each: MPFR is single-threaded */
        for (int k = 0; k < 20; k++) { /* best of 20 (~1 ms each: a preemption spoils a few) */
            double t0 = ug_now_s();
            int rc = ug_exact_dot_f64_fast(x, 1, y, 1, n, &a);
            double t1 = ug_now_s();
            UG_ASSERT_MSG(rc == 0, "the benchmark's data left the fast range");
            tf = fmin(tf, t1 - t0);
            if (k % 4 == 0) { /* best of 5 (~100 ms each) */
                ug_exact_dot_f64_mpfr(x, 1, y, 1, n, &b);
                tm = fmin(tm, ug_now_s() - t1);
            }
        }
        ug_par_set_threads(threads);
        const char *what = set ? "GenDot, exponents +-100" : "exponents -2..2";
        ug_point(t, "bench dot f64 (%s): fast = MPFR", what);
        ug_note(t, "bench dot f64 (%s), n = %zu: fast %.2f ns/term, MPFR %.2f ns/term: %.1fx",
                what, n, tf * 1e9 / (double)n, tm * 1e9 / (double)n, tm / tf);
        UG_EXPECT(ug_exact_equal(&a, &b));
    }
    free(x);
    free(y);
}
