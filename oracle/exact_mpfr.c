/*
 * exact_mpfr.c - the ground truth: exact sums and dot products with MPFR.
 *
 * Why the result is exact.  Every term t is an integer multiple of 2^q with |t| < 2^E:
 *   binary32 values                  q = -149,  E = 128
 *   binary64 values                  q = -1074, E = 1024
 *   products x*y of binary32 values  q = -298,  E = 256   (2^-149 * 2^-149; 2^128 * 2^128)
 *   products x*y of binary64 values  q = -2148, E = 2048  (2^-1074 * 2^-1074; 2^1024 * 2^1024)
 * Any partial sum of at most n terms is then a multiple of 2^q with |sum| < n 2^E < 2^(E + b),
 * b = bit length of n, so it has at most E + b - q significant bits.  The accumulator gets that
 * precision (plus one bit of slack), hence every mpfr_add below is exact; the code checks the
 * ternary value anyway.  A product of two binary32 values has at most 48 significant bits and is
 * formed exactly in a 64-bit MPFR number; one of two binary64 values (106 bits) in a 106-bit one.
 *
 * From the exact s (oracle.h's ug_exact):
 *   hi = mpfr_get_d(s, RNDN).  Correct also in binary64's subnormal range: s is a multiple of
 *        2^q >= 2^-1074, so a subnormal-range s is exactly representable (nothing to round).
 *   lo = RN64(s - hi): s - hi is computed exactly (it is a multiple of 2^q no larger than |s|,
 *        or 0 when hi's quantum is below 2^q, which happens only when hi == s), then rounded
 *        as above.  An exact zero difference gives lo = +0.
 *   rn, rd: rounded to 24 bits in the full exponent range, then mpfr_check_range and
 *        mpfr_subnormalize with binary32's range (emin = -148, emax = 128 in MPFR's
 *        [1/2, 1) convention): MPFR's documented idiom for emulating IEEE subnormals and
 *        overflow without double rounding.
 *   sum_abs = RU64(sum |t|), exact accumulation as for s.
 * Zero results: an exact sum of n >= 1 terms that are all -0 is -0; any other exact zero
 * (empty sum, +0 terms, exact cancellation) is +0, in hi, rn and rd alike (IEEE 754's rule for
 * round-to-nearest; rd deliberately uses the same sign, see ug_exact in oracle.h).
 * Specials (oracle.h): any NaN term, +inf and -inf terms together, or 0 * inf -> NaN;
 * otherwise any +inf term -> +inf, any -inf term -> -inf.
 *
 * Cost: one exact MPFR addition per term at E + b - q bits: ~50 ns (binary32) to ~150 ns
 * (binary64, ~2170 bits) per term.
 */
#include <assert.h>
#include <math.h>
#include <mpfr.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/par.h"
#include "base/sys.h"
#include "oracle/exact_mpfr.h"
#include "oracle/special.h"

enum { Q_F32 = -149, E_F32 = 128, Q_F64 = -1074, E_F64 = 1024, Q_DOT = -298, E_DOT = 256,
       Q_DOT64 = -2148, E_DOT64 = 2048 };

static mpfr_prec_t exact_prec(int q, int E, size_t n)
{
    int b = 0;
    while (n >> b)
        b++;
    return (mpfr_prec_t)(E - q + b + 1);
}

/* An exact running sum of terms, with what the special-value and zero-sign rules need. */
typedef struct mp_sum {
    mpfr_t s, sabs, term, fa, fb;
    size_t nan_terms, posinf_terms, neginf_terms;
    size_t n;
    int all_negzero; /* every term so far is -0 */
} mp_sum;

static void mp_sum_init(mp_sum *m, mpfr_prec_t prec)
{
    mpfr_init2(m->s, prec);
    mpfr_init2(m->sabs, prec);
    mpfr_init2(m->term, 64);
    mpfr_init2(m->fa, 24);
    mpfr_init2(m->fb, 24);
    mpfr_set_zero(m->s, 1);
    mpfr_set_zero(m->sabs, 1);
    m->nan_terms = m->posinf_terms = m->neginf_terms = 0;
    m->n = 0;
    m->all_negzero = 1;
}

static void mp_sum_clear(mp_sum *m)
{
    mpfr_clears(m->s, m->sabs, m->term, m->fa, m->fb, (mpfr_ptr)0);
}

/* Adds m->term (finite, exact) to the sums. */
static void mp_sum_add_term(mp_sum *m)
{
    int inexact;
    m->n++;
    if (!(mpfr_zero_p(m->term) && mpfr_signbit(m->term)))
        m->all_negzero = 0;
    inexact = mpfr_add(m->s, m->s, m->term, MPFR_RNDN);
    assert(inexact == 0);
    mpfr_abs(m->term, m->term, MPFR_RNDN);
    inexact = mpfr_add(m->sabs, m->sabs, m->term, MPFR_RNDN);
    assert(inexact == 0);
    (void)inexact;
}

static void mp_sum_add_double(mp_sum *m, double v)
{
    if (isnan(v)) {
        m->nan_terms++;
    } else if (isinf(v)) {
        if (v > 0)
            m->posinf_terms++;
        else
            m->neginf_terms++;
    } else {
        mpfr_set_d(m->term, v, MPFR_RNDN); /* exact: 53 <= 64 bits */
        mp_sum_add_term(m);
        return;
    }
    m->all_negzero = 0;
}

static void mp_sum_add_product(mp_sum *m, float x, float y)
{
    if (isnan(x) || isnan(y)) {
        m->nan_terms++;
        m->all_negzero = 0;
    } else if (isinf(x) || isinf(y)) {
        m->all_negzero = 0;
        if (x == 0 || y == 0)
            m->nan_terms++; /* 0 * inf */
        else if ((signbit(x) != 0) == (signbit(y) != 0))
            m->posinf_terms++;
        else
            m->neginf_terms++;
    } else {
        mpfr_set_flt(m->fa, x, MPFR_RNDN);
        mpfr_set_flt(m->fb, y, MPFR_RNDN);
        int inexact = mpfr_mul(m->term, m->fa, m->fb, MPFR_RNDN); /* 48 bits into 64: exact */
        assert(inexact == 0);
        (void)inexact;
        mp_sum_add_term(m);
    }
}

/* Adds the product x*y of binary64 values; m->term must have 106 bits (exact product). */
static void mp_sum_add_product64(mp_sum *m, double x, double y)
{
    if (isnan(x) || isnan(y)) {
        m->nan_terms++;
        m->all_negzero = 0;
    } else if (isinf(x) || isinf(y)) {
        m->all_negzero = 0;
        if (x == 0 || y == 0)
            m->nan_terms++; /* 0 * inf */
        else if ((signbit(x) != 0) == (signbit(y) != 0))
            m->posinf_terms++;
        else
            m->neginf_terms++;
    } else {
        mpfr_set_d(m->term, x, MPFR_RNDN); /* exact: 53 <= 106 bits */
        int inexact = mpfr_mul_d(m->term, m->term, y, MPFR_RNDN); /* 106 bits: exact */
        assert(inexact == 0);
        (void)inexact;
        mp_sum_add_term(m);
    }
}

/* Sets s to its class's special value, or applies the zero-sign rule; returns the class. */
static ug_xclass mp_sum_finish_value(mp_sum *m)
{
    ug_xclass cls = ug_special_class(m->nan_terms, m->posinf_terms, m->neginf_terms);
    if (cls == UG_X_NAN)
        mpfr_set_nan(m->s);
    else if (cls == UG_X_POSINF)
        mpfr_set_inf(m->s, 1);
    else if (cls == UG_X_NEGINF)
        mpfr_set_inf(m->s, -1);
    else if (mpfr_zero_p(m->s))
        mpfr_set_zero(m->s, (m->n > 0 && m->all_negzero) ? -1 : 1);
    return cls;
}

/* RN32 / RD32 of s with binary32's subnormals and overflow (see the file comment). */
float ug_mpfr_round_f32(mpfr_srcptr s, mpfr_rnd_t rnd)
{
    mpfr_t f;
    mpfr_init2(f, 24);
    int t = mpfr_set(f, s, rnd);
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    t = mpfr_check_range(f, t, rnd);
    mpfr_subnormalize(f, t, rnd);
    float r = mpfr_get_flt(f, rnd); /* exact now */
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clear(f);
    return r;
}

/* ug_exact from a finished mp_sum. */
static void mp_sum_fill(mp_sum *m, ug_exact *e)
{
    ug_xclass cls = mp_sum_finish_value(m);
    if (cls != UG_X_FINITE) {
        ug_exact_set_special(e, cls);
        return;
    }
    e->cls = UG_X_FINITE;
    e->sum_abs = mpfr_get_d(m->sabs, MPFR_RNDU);
    if (mpfr_zero_p(m->s)) {
        ug_exact_set_zero(e, mpfr_signbit(m->s) != 0);
        return;
    }
    e->hi = mpfr_get_d(m->s, MPFR_RNDN);
    e->lo = 0.0;
    if (isfinite(e->hi)) {
        mpfr_t d;
        mpfr_init2(d, mpfr_get_prec(m->s));
        int inexact = mpfr_sub_d(d, m->s, e->hi, MPFR_RNDN);
        assert(inexact == 0);
        (void)inexact;
        if (!mpfr_zero_p(d))
            e->lo = mpfr_get_d(d, MPFR_RNDN);
        mpfr_clear(d);
    }
    e->rn = ug_mpfr_round_f32(m->s, MPFR_RNDN);
    e->rd = ug_mpfr_round_f32(m->s, MPFR_RNDD);
}

void ug_exact_sum_f32_mpfr(const float *x, size_t n, ug_exact *out)
{
    mp_sum m;
    mp_sum_init(&m, exact_prec(Q_F32, E_F32, n));
    for (size_t i = 0; i < n; i++)
        mp_sum_add_double(&m, (double)x[i]);
    mp_sum_fill(&m, out);
    mp_sum_clear(&m);
}

void ug_exact_sum_f64_mpfr(const double *x, size_t n, ug_exact *out)
{
    mp_sum m;
    mp_sum_init(&m, exact_prec(Q_F64, E_F64, n));
    for (size_t i = 0; i < n; i++)
        mp_sum_add_double(&m, x[i]);
    mp_sum_fill(&m, out);
    mp_sum_clear(&m);
}

void ug_exact_dot_f32_mpfr(const float *x, size_t incx, const float *y, size_t incy, size_t n,
                           ug_exact *out)
{
    mp_sum m;
    mp_sum_init(&m, exact_prec(Q_DOT, E_DOT, n));
    for (size_t i = 0; i < n; i++)
        mp_sum_add_product(&m, x[i * incx], y[i * incy]);
    mp_sum_fill(&m, out);
    mp_sum_clear(&m);
}

void ug_exact_dot_f64_mpfr(const double *x, size_t incx, const double *y, size_t incy,
                           size_t n, ug_exact *out)
{
    mp_sum m;
    mp_sum_init(&m, exact_prec(Q_DOT64, E_DOT64, n));
    mpfr_set_prec(m.term, 106);
    for (size_t i = 0; i < n; i++)
        mp_sum_add_product64(&m, x[i * incx], y[i * incy]);
    mp_sum_fill(&m, out);
    mp_sum_clear(&m);
}

ug_xclass ug_mpfr_exact_value_f32(const float *x, size_t incx, const float *y, size_t incy,
                                  size_t n, mpfr_t s)
{
    mp_sum m;
    mp_sum_init(&m, y ? exact_prec(Q_DOT, E_DOT, n) : exact_prec(Q_F32, E_F32, n));
    for (size_t i = 0; i < n; i++) {
        if (y)
            mp_sum_add_product(&m, x[i * incx], y[i * incy]);
        else
            mp_sum_add_double(&m, (double)x[i * incx]);
    }
    ug_xclass cls = mp_sum_finish_value(&m);
    mpfr_init2(s, mpfr_get_prec(m.s));
    mpfr_set(s, m.s, MPFR_RNDN); /* same precision: exact */
    mp_sum_clear(&m);
    return cls;
}

/* ---- GEMM, element by element (ug_exact_gemm_f32 under --oracle mpfr) ------------------------ */

typedef struct gemm_mpfr_job {
    const float *A, *B;
    size_t M, N, K;
    ug_exact *C;
    atomic_size_t next_row;
} gemm_mpfr_job;

static void gemm_mpfr_worker(void *ctx, int w, int workers)
{
    (void)w;
    (void)workers;
    gemm_mpfr_job *job = ctx;
    for (;;) {
        size_t i = atomic_fetch_add(&job->next_row, 1);
        if (i >= job->M)
            break;
        for (size_t j = 0; j < job->N; j++)
            ug_exact_dot_f32_mpfr(job->A + i * job->K, 1, job->B + j, job->N, job->K,
                                  &job->C[i * job->N + j]);
    }
}

/* Rows are handed out one at a time to ug_par_threads() workers (MPFR keeps its state per
 * thread when built with TLS, as Debian's is; without TLS this runs on the calling thread). */
void ug_exact_gemm_f32_mpfr(const float *A, const float *B, size_t M, size_t N, size_t K,
                            ug_exact *C)
{
    gemm_mpfr_job job = {A, B, M, N, K, C, 0};
    int workers = mpfr_buildopt_tls_p() ? ug_par_threads() : 1;
    if ((size_t)workers > M)
        workers = (int)(M ? M : 1);
    ug_par_run(workers, gemm_mpfr_worker, &job);
}

/* ---- GMP's allocations under ulpgate's trap (exact_mpfr.h) ----------------------------------- */

/* GMP's own allocation functions: exported by libgmp, not declared by gmp.h */
extern void *__gmp_default_allocate(size_t);
extern void *__gmp_default_reallocate(void *, size_t, size_t);
extern void __gmp_default_free(void *, size_t);

static void *ug_gmp_alloc(size_t n) { return ug_xmalloc(n); }
static void *ug_gmp_realloc(void *p, size_t old, size_t n)
{
    (void)old;
    return ug_xrealloc(p, n);
}
static void ug_gmp_free(void *p, size_t n)
{
    (void)n;
    free(p);
}

static mpfr_exp_t ug_emin_at_install, ug_emax_at_install;

bool ug_oracle_trap_allocations(void)
{
    void *(*a)(size_t);
    void *(*r)(void *, size_t, size_t);
    void (*f)(void *, size_t);
    mp_get_memory_functions(&a, &r, &f);
    ug_emin_at_install = mpfr_get_emin();
    ug_emax_at_install = mpfr_get_emax();
    if (a == ug_gmp_alloc) return true;
    if (a != __gmp_default_allocate || r != __gmp_default_reallocate || f != __gmp_default_free)
        return false;
    mp_set_memory_functions(ug_gmp_alloc, ug_gmp_realloc, ug_gmp_free);
    return true;
}

void ug_oracle_after_refusal(void)
{
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); /* this thread's: another's may be in use */
    if (ug_emin_at_install || ug_emax_at_install) { /* saved: MPFR's emin is never 0 */
        mpfr_set_emin(ug_emin_at_install);
        mpfr_set_emax(ug_emax_at_install);
    }
    mpfr_clear_flags();
}

void ug_oracle_free_caches_testing(void) { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
