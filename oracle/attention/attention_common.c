/*
 * attention_common.c - what both paths of the attention reference share (attention.h): the
 * shape rules, the special values, the bound quantities.  Calls nothing of its folder.
 */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>

#include "base/par.h"
#include "base/sys.h"
#include "oracle/attention/exact_attention.h"
#include "oracle/special.h"

float ug_attn_scale_default(size_t d)
{
    mpfr_t t;
    mpfr_init2(t, 200);
    mpfr_set_ui(t, (unsigned long)d, MPFR_RNDN);
    mpfr_rec_sqrt(t, t, MPFR_RNDN); /* 200 bits, then one rounding to binary32: no double rounding
                                       (1/sqrt(d) is a binary32 midpoint only if exact) */
    float c = mpfr_get_flt(t, MPFR_RNDN);
    mpfr_clear(t);
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
    return c;
}

float ug_attn_scale(const ug_shape *shp, const ug_opts *opt)
{
    return opt && opt->scale > 0 ? (float)opt->scale : ug_attn_scale_default(shp->dim[2]);
}

size_t ug_attn_keys(const ug_shape *shp, const ug_opts *opt, size_t i)
{
    if (!ug_attn_causal(opt)) return shp->dim[1];
    /* keys k <= i + S - L: i + S - L + 1 of them, none while i + S + 1 <= L */
    if (i + shp->dim[1] + 1 <= shp->dim[0]) return 0;
    size_t n = i + shp->dim[1] + 1 - shp->dim[0];
    return n < shp->dim[1] ? n : shp->dim[1];
}

bool ug_attn_head_ok(const ug_shape *shp, const ug_opts *opt, char *err, size_t errlen)
{
    const char *why = NULL;
    if (!shp->dim[0] || !shp->dim[1] || !shp->dim[2] || !shp->dim[3])
        why = "every size (L, S, d, dv) must be >= 1";
    else if (shp->dim[2] > 65536) why = "d must be <= 65536";
    else if (!(isfinite(ug_attn_scale(shp, opt)) && ug_attn_scale(shp, opt) > 0))
        why = "the scale must be finite and > 0";
    if (why && err) snprintf(err, errlen, "attention: %s", why);
    return !why;
}

bool ug_attn_row_special(const float *Q, const float *K, const ug_shape *shp, const ug_opts *opt,
                         size_t i)
{
    size_t keys = ug_attn_keys(shp, opt, i);
    for (size_t t = 0; t < shp->dim[2]; t++)
        if (!isfinite(Q[i * shp->dim[2] + t])) return true;
    for (size_t k = 0; k < keys; k++)
        for (size_t t = 0; t < shp->dim[2]; t++)
            if (!isfinite(K[k * shp->dim[2] + t])) return true;
    return false;
}

float *ug_attn_v_finite(const float *V, size_t n)
{
    size_t first = 0;
    while (first < n && isfinite(V[first])) first++;
    if (first == n) return NULL;
    float *f = ug_xmalloc((n ? n : 1) * sizeof *f);
    for (size_t e = 0; e < n; e++) f[e] = isfinite(V[e]) ? V[e] : 0.0f;
    return f;
}

/* Every weight p_ik of a key the row sees is > 0 (e^s of a finite score), so column j of O is
 * sum_k p_ik V_kj in the extended reals: a NaN term, or +inf beside -inf, is NaN; otherwise an
 * infinite term gives its sign's infinity. */
void ug_attn_v_special(const float *V, const ug_shape *shp, size_t keys, ug_exact *O)
{
    size_t dv = shp->dim[3];
    for (size_t j = 0; j < dv; j++) {
        bool nan = false, pinf = false, ninf = false;
        for (size_t k = 0; k < keys; k++) {
            float v = V[k * dv + j];
            nan |= isnan(v);
            pinf |= v == INFINITY;
            ninf |= v == -INFINITY;
        }
        if (nan || (pinf && ninf)) ug_exact_set_special(&O[j], UG_X_NAN);
        else if (pinf || ninf) ug_exact_set_special(&O[j], pinf ? UG_X_POSINF : UG_X_NEGINF);
    }
}

/* The fast path's head arrays (per key: K aligned, 8 d; V's magnitudes, signs and prefix sums
 * and a finite copy, 21 dv; exponents and flags, 16) and each worker's row scratch (97 bytes a
 * key) with room for an MPFR row (the scores at a few hundred bits: 256 bytes a key), plus
 * 1 MiB; in binary64, so a huge shape gives SIZE_MAX rather than a wrapped count. */
size_t ug_attn_scratch_bytes(const ug_shape *shp)
{
    double S = (double)shp->dim[1], d = (double)shp->dim[2], dv = (double)shp->dim[3];
    double b = S * (8 * d + 21 * dv + 16) + (double)ug_par_threads() * S * (97 + 256) + 1048576;
    return b < 0x1p62 ? (size_t)b : SIZE_MAX;
}

/* IEEE 754's sign of an exact zero, as the sums' reference gives it (oracle/special.c): each
 * product p_ik V_kj of a -0 is -0 (p_ik > 0), a sum of -0 terms alone is -0, and -0 / l is -0;
 * any +0 or nonzero term makes the zero (if any) +0, which both paths record already. */
void ug_attn_v_negzero(const float *V, const ug_shape *shp, size_t keys, ug_exact *O)
{
    size_t dv = shp->dim[3];
    for (size_t j = 0; keys && j < dv; j++) {
        bool all = true;
        for (size_t k = 0; all && k < keys; k++) all = V[k * dv + j] == 0 && signbit(V[k * dv + j]);
        if (all) {
            double sum_abs = O[j].sum_abs;
            ug_exact_set_zero(&O[j], 1);
            O[j].sum_abs = sum_abs;
        }
    }
}

/* A_i: the products' magnitudes summed in binary64, each sum and product rounding relative
 * <= 2^-53 (no underflow matters: a bound), then times (1 + 2^-40) for d <= 65536 (gamma_d <
 * 2^-36... rounded generously: (d + 2) 2^-53 <= 2^-36.9 for d <= 2^16) and c. */
double ug_attn_score_abs(const float *Q, const float *K, const ug_shape *shp, const ug_opts *opt,
                         size_t i)
{
    size_t keys = ug_attn_keys(shp, opt, i);
    double amax = 0;
    for (size_t k = 0; k < keys; k++) {
        double a = 0;
        for (size_t t = 0; t < shp->dim[2]; t++)
            a += fabs((double)Q[i * shp->dim[2] + t] * (double)K[k * shp->dim[2] + t]);
        amax = a > amax ? a : amax;
    }
    return amax * (double)ug_attn_scale(shp, opt) * (1 + 0x1p-35);
}

void ug_attn_v_abs(const float *V, const ug_shape *shp, size_t keys, double *Z)
{
    for (size_t j = 0; j < shp->dim[3]; j++) Z[j] = 0;
    for (size_t k = 0; k < keys; k++)
        for (size_t j = 0; j < shp->dim[3]; j++) Z[j] += fabs((double)V[k * shp->dim[3] + j]);
    for (size_t j = 0; j < shp->dim[3]; j++) Z[j] *= 1 + 0x1p-30; /* keys <= 2^22: gamma < 2^-31 */
}

