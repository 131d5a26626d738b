/*
 * oracle_diff_rows.c - the differential test of the row operations' fast path
 * (oracle/rows/transcend_fast.c): every softmax and log-sum-exp record it gives equals the MPFR
 * enclosures' (transcend.c) bit for bit (ug_exact_equal), on > 100,000 outputs: random rows of
 * the cases' distributions (n = 1 .. 1000) and crafted ones: one logit, all-equal rows (exact
 * outputs 1/n), -inf entries, huge (1e30, 3e38) and tiny (1e-40) logits, subnormal and
 * binary64-subnormal outputs (logits 0 and -104 .. -760), log-sum-exps that cancel (m = -ln n),
 * and the 2^14 rows softmax([0, k 2^-20]) / logsumexp([0, k 2^-20]) among which sit outputs
 * within 2^-12 ulp of a binary32 rounding boundary (tests/oracle_rows.c's scan).  The fast
 * path must decide most random outputs itself (else the test would compare MPFR with MPFR).
 * The mutant: the decision bound narrowed from the proven 2^-160 to 2^-230 (below the
 * approximation's own error) must make some record differ: the exact outputs give it away.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/sys.h"
#include "tests/oracle_diff.h"
#include "oracle/rows/transcend.h"

typedef struct {
    long rows, outputs, bad;
} rtally;

/* One row through both paths (softmax: n outputs; logsumexp: one); mismatches reported. */
static void diff_row(ug_t *t, rtally *ty, bool lse, const float *x, size_t n, const char *what)
{
    size_t outs = lse ? 1 : n;
    ug_exact *f = ug_xcalloc(outs, sizeof *f), *m = ug_xcalloc(outs, sizeof *m);
    if (lse) {
        ug_exact_logsumexp_row_fast(x, n, f);
        ug_exact_logsumexp_row_mpfr(x, n, m);
    } else {
        ug_exact_softmax_row_fast(x, n, f);
        ug_exact_softmax_row_mpfr(x, n, m);
    }
    ty->rows++;
    for (size_t i = 0; i < outs; i++) {
        ty->outputs++;
        if (ug_exact_equal(&f[i], &m[i])) continue;
        if (++ty->bad <= 5)
            ug_note(t, "%s %s (n %zu, x[0] %a, x[1] %a) output %zu: fast hi %a lo %a rn %a rd %a "
                       "sum_abs %a; MPFR %a %a %a %a %a",
                    lse ? "logsumexp" : "softmax", what, n, (double)x[0], n > 1 ? (double)x[1] : 0.0,
                    i, f[i].hi, f[i].lo, (double)f[i].rn, (double)f[i].rd, f[i].sum_abs, m[i].hi,
                    m[i].lo, (double)m[i].rn, (double)m[i].rd, m[i].sum_abs);
    }
    free(f);
    free(m);
}

static double unif(drng *r) { return (double)(od_r64(r) >> 11) * 0x1p-53; }

static double normal(drng *r)
{
    double u = unif(r), v = unif(r);
    return sqrt(-2 * log(u + 0x1p-60)) * cos(2 * M_PI * v);
}

/* A random logit row of distribution d (0 .. 6) into x[0 .. n). */
static void random_row(drng *r, int d, float *x, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        switch (d) {
        case 0: x[j] = (float)normal(r); break;
        case 1: x[j] = (float)(unif(r) * 40 - 20); break;
        case 2: x[j] = (float)(12 * normal(r)); break;
        case 3: x[j] = (float)(89 + 11 * unif(r)); break;
        case 4: x[j] = (float)(-120 + 16 * unif(r)); break;
        case 5: x[j] = (float)(1e4 * normal(r)); break; /* most terms far below the max */
        default: x[j] = (float)(ldexp(normal(r), (int)od_rbelow(r, 60)) * 1e-20); break;
        }
    }
}

static const size_t sizes[] = {1, 2, 3, 5, 16, 100, 1000};

/* Random rows: both operations, every distribution and size. */
UG_CASE(oracle_diff_rows, random)
{
    drng r = od_drng_make(t, "oracle_diff_rows/random");
    float *x = ug_xmalloc(1000 * sizeof *x);
    rtally ty = {0, 0, 0};
    ug_ziv_stats zs = {0};
    for (int d = 0; d < 7; d++) {
        if (d == 0) ug_ziv_stats_reset();
        if (d == 5) zs = ug_ziv_stats_get(); /* the cases' distributions (cases/rows.c) */
        for (int lse = 0; lse < 2; lse++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                /* ~3,000 softmax outputs per distribution and size class, fewer rows of LSE */
                long reps = lse ? (sizes[s] >= 100 ? 20 : 400) : (long)(3000 / sizes[s]) + 1;
                for (long k = 0; k < reps; k++) {
                    random_row(&r, d, x, sizes[s]);
                    diff_row(t, &ty, lse, x, sizes[s], "random");
                }
            }
    }
    ug_ziv_stats all = ug_ziv_stats_get();
    ug_note(t, "%ld rows, %ld outputs compared, %ld differ; the fast path decided %zu of "
               "%ld outputs (%zu rows went to MPFR); of the cases' distributions, %zu of %zu",
            ty.rows, ty.outputs, ty.bad, all.fast, ty.outputs, all.fallback_rows,
            zs.fast, zs.outputs - zs.fast);
    UG_EXPECT_MSG(ty.bad == 0, "%ld of %ld records differ from MPFR's", ty.bad, ty.outputs);
    /* every output passes through both paths, so outputs - fast are the MPFR path's own; the
     * fast path must answer for nearly all of the cases' distributions */
    UG_EXPECT_MSG(zs.fast * 100 >= (zs.outputs - zs.fast) * 99,
                  "the fast path decided only %zu of %zu outputs", zs.fast, zs.outputs - zs.fast);
    free(x);
}

/* The crafted rows (the header); returns the outputs compared. */
static void crafted(ug_t *t, rtally *ty)
{
    static const float one[] = {42.5f}, zero1[] = {0}, nzero1[] = {-0.0f, -INFINITY}, neg1[] = {-3e38f};
    static const float ninf[] = {-INFINITY, 0, 1, -INFINITY}, pm1e30[] = {1e30f, -1e30f};
    static const float huge[] = {88.7f, 89, -50, 1000}, big[] = {3e38f, 3e38f}, big2[] = {3e38f, 1e38f};
    static const float mixed[] = {0.1f, -2.5f, 17, 16.999998f, -0.0f, 1e-30f, 3.5f, -40};
    static const float tinyl[] = {1e-40f, -1e-40f, 0, 1e-45f};
    struct {
        const char *what;
        const float *x;
        size_t n;
    } rows[] = {
        {"one logit", one, 1},           {"one zero logit", zero1, 1},
        {"-0 and -inf", nzero1, 2},
        {"one logit -3e38", neg1, 1},    {"-inf entries", ninf, 4},
        {"1e30 and -1e30", pm1e30, 2},   {"huge logits", huge, 4},
        {"logits near FLT_MAX", big, 2}, {"3e38 and 1e38", big2, 2},
        {"mixed", mixed, 8},
        {"tiny logits", tinyl, 4},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (int lse = 0; lse < 2; lse++) diff_row(t, ty, lse, rows[i].x, rows[i].n, rows[i].what);
    float x[1024];
    /* all-equal rows: softmax 1/n (exact for powers of two), logsumexp c + ln n */
    static const size_t eqn[] = {2, 3, 4, 5, 7, 8, 64, 1000, 1024};
    static const float eqv[] = {0, 1, -7, 88.5f, -104, 1e30f};
    for (size_t a = 0; a < sizeof eqn / sizeof eqn[0]; a++)
        for (size_t b = 0; b < sizeof eqv / sizeof eqv[0]; b++) {
            for (size_t j = 0; j < eqn[a]; j++) x[j] = eqv[b];
            for (int lse = 0; lse < 2; lse++) diff_row(t, ty, lse, x, eqn[a], "all equal");
        }
    /* log-sum-exps that cancel: n logits -ln n (rounded), the result near 0 */
    for (size_t n = 2; n <= 1024; n *= 2) {
        for (size_t j = 0; j < n; j++) x[j] = -(float)log((double)n);
        diff_row(t, ty, true, x, n, "cancelling");
        x[0] = nextafterf(x[0], 0);
        diff_row(t, ty, true, x, n, "cancelling, one logit up");
    }
    /* subnormal binary32 outputs and tiny binary64 ones: [0, -d] for d = 100 .. 760 */
    for (int d = 100; d <= 760; d++) {
        float y[3] = {0, -(float)d, -(float)d - 0.375f};
        for (int lse = 0; lse < 2; lse++) diff_row(t, ty, lse, y, 3, "subnormal outputs");
    }
    /* near-ties: [0, k 2^-20] */
    for (int k = 1; k <= 1 << 14; k++) {
        float y[2] = {0, (float)k * 0x1p-20f};
        for (int lse = 0; lse < 2; lse++) diff_row(t, ty, lse, y, 2, "near ties");
    }
}

UG_CASE(oracle_diff_rows, crafted)
{
    rtally ty = {0, 0, 0};
    ug_ziv_stats_reset();
    crafted(t, &ty);
    ug_ziv_stats zs = ug_ziv_stats_get();
    ug_note(t, "%ld rows, %ld outputs compared, %ld differ; the fast path decided %zu outputs, "
               "%zu rows went to MPFR", ty.rows, ty.outputs, ty.bad, zs.fast, zs.fallback_rows);
    UG_EXPECT_MSG(ty.bad == 0, "%ld of %ld records differ from MPFR's", ty.bad, ty.outputs);
    UG_EXPECT_MSG(zs.fallback_rows > 0, "no crafted row reached the MPFR path");
}

/* The mutant: a decision bound below the approximation's error gives wrong records. */
UG_CASE(oracle_diff_rows, mutant_bound)
{
    rtally ty = {0, 0, 0};
    ug_transcend_fast_set_eps_testing(-230);
    crafted(t, &ty);
    ug_transcend_fast_set_eps_testing(0);
    ug_note(t, "decided at 2^-230: %ld of %ld records differ from MPFR's", ty.bad, ty.outputs);
    UG_EXPECT_MSG(ty.bad > 0, "a bound of 2^-230 went unnoticed on %ld outputs", ty.outputs);
}
