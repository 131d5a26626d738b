/*
 * transcend.h - correctly rounded references for the row operations: softmax,
 * log-sum-exp, RMSNorm and LayerNorm (oracle/rows/transcend.c).
 *
 * Their results are not sums: exp, log, sqrt and division make them transcendental or
 * algebraic, so no finite exact record exists.  The oracle encloses each output in an interval
 * [L, U] computed with MPFR in directed rounding (every operation rounded outward, so the real
 * value lies inside by construction, no error analysis needed), and raises the precision
 * (Ziv's strategy: 128, 256, ... bits up to UG_ZIV_PREC_CAP) until every rounding the record
 * holds is the same at both ends:
 *   hi = RN64(s), lo = RN64(s - hi), rn = RN32(s), rd = RD32(s)
 * (rounding is monotone, so RN64(L) == RN64(U) gives RN64(s), and so on).  The record is then
 * exactly what oracle.h's ug_exact promises for a sum, and every format's rounding follows from
 * hi and the sign of lo as it does there.  An enclosure of width zero is an exact result (every
 * MPFR operation exact: softmax of equal logits, a one-element log-sum-exp).  A rounding still
 * undecided at the cap (a result that is, or lies within 2^-cap of, a rounding boundary without
 * being computed exactly) is reported on stderr and recorded as class NaN, never guessed: the
 * kernels' outputs then fail the point, which names it.
 *
 * The precision each output needed is recorded (ug_ziv_stats): the tests print and check it.
 *
 * sum_abs carries what the a-priori bound of the row operations needs (kernels/bounds_rows.c):
 *   softmax, logsumexp: sum_j e^(x_j) (rounded up; +inf where it overflows binary64)
 *   rmsnorm:            |x_i w_i| / sqrt(mean(x^2) + eps)  (rounded up)
 *   layernorm:          |w_i| (|x_i - mean| + mean|x|) / sqrt(var + eps)  (rounded up)
 * Special values: any NaN or +inf logit makes every softmax output NaN and the log-sum-exp NaN
 * (+inf: +inf); a -inf logit has softmax output +0; all logits -inf: softmax NaN, log-sum-exp
 * -inf.  RMSNorm and LayerNorm: any non-finite x, weight or bias of the row: every output NaN.
 */
#ifndef UG_ORACLE_TRANSCEND_H
#define UG_ORACLE_TRANSCEND_H

#include <stdbool.h>
#include <stddef.h>

#include "oracle/oracle.h"

/* The epsilon of the normalisation layers: binary32 1e-5, PyTorch's LayerNorm default. */
#define UG_NORM_EPS 1e-5f

enum { UG_ZIV_PREC0 = 128, UG_ZIV_PREC_CAP = 16384 };

/* What the references needed since the last reset (this thread). */
typedef struct {
    size_t outputs;     /* outputs decided */
    size_t exact;       /* of those, enclosures of width zero (an exact result) */
    size_t undecided;   /* roundings not decided at the cap: reported, recorded as NaN */
    long prec_max;      /* the highest precision any output needed, bits */
    size_t raised;      /* outputs that needed more than UG_ZIV_PREC0 bits */
    size_t fast;        /* of the outputs, those the fast path decided (transcend_fast.c) */
    size_t fallback_rows; /* rows the fast path left to MPFR (an output it could not decide) */
} ug_ziv_stats;

void ug_ziv_stats_reset(void);
ug_ziv_stats ug_ziv_stats_get(void);
/* Start each row at prec0 bits instead of UG_ZIV_PREC0 and stop at cap (tests: force the
 * raise, or a tiny cap to see an undecided rounding reported); 0, 0 restores the defaults. */
void ug_ziv_set_precisions(long prec0, long cap);

/* The fast path's bookkeeping (transcend_fast.c): outputs it decided, rows it passed on. */
void ug_ziv_count_fast(size_t outputs);
void ug_ziv_count_fallback_row(void);

/* One row of n binary32 values each; out gets n records (softmax, rmsnorm, layernorm) or one
 * (logsumexp).  Cost: O(n) MPFR operations at the precision reached (128 bits nearly always).
 * Softmax and log-sum-exp: ug_exact_*_row takes the fast path (transcend_fast.c: 192-bit
 * fixed point with a proven bound, MPFR for a row it cannot decide; the same records) unless
 * the MPFR oracle is selected (--oracle mpfr); _mpfr and _fast force one path. */
void ug_exact_softmax_row(const float *x, size_t n, ug_exact *out);
void ug_exact_logsumexp_row(const float *x, size_t n, ug_exact *out);
void ug_exact_softmax_row_mpfr(const float *x, size_t n, ug_exact *out);
void ug_exact_logsumexp_row_mpfr(const float *x, size_t n, ug_exact *out);
void ug_exact_softmax_row_fast(const float *x, size_t n, ug_exact *out);
void ug_exact_logsumexp_row_fast(const float *x, size_t n, ug_exact *out);
/* Tests only: the fast path decides at relative 2^log2_eps instead of its proven 2^-160 (a
 * broken bound, which the differential test must catch); 0 restores it. */
void ug_transcend_fast_set_eps_testing(int log2_eps);
/* Tests only: the record of e^a or ln a (log != 0) for one binary64 argument, decided as every
 * softmax and log-sum-exp output is: _mpfr by the Ziv loop over MPFR enclosures (transcend.c;
 * |a| <= 700, a > 0 for log, else NaN), _fast by the fast path's own exp (fexp: the e^(x_j - m)
 * of every row) or its own log (the log-sum-exp's ln S with m = 0) and its decision at the same
 * bound (transcend_fast.c), false where it would send the row to MPFR.  The literature's
 * hard-to-round cases are checked through these (tests/oracle_hardround.c). */
void ug_exact_fn_mpfr_testing(int log, double a, ug_exact *out);
bool ug_exact_fn_fast_testing(int log, double a, ug_exact *out);
void ug_exact_rmsnorm_row(const float *x, const float *w, size_t n, float eps, ug_exact *out);
/* b: NULL for no bias (the layernorm operation's; the tests give one). */
void ug_exact_layernorm_row(const float *x, const float *w, const float *b, size_t n, float eps,
                            ug_exact *out);

/* Tests only: the enclosures [lo[i], hi[i]] (rounded outward to binary64) of every output of
 * one row at precision prec bits, kind 0..3 = softmax, logsumexp, rmsnorm, layernorm (w, b as
 * the row functions take them), without deciding anything: the containment the records rest on
 * is checked against an independent MPFR evaluation (tests/oracle_rows.c). */
void ug_transcend_enclose_testing(int kind, const float *x, const float *w, const float *b,
                                  size_t n, float eps, long prec, double *lo, double *hi);

#endif
