/*
 * tcmodel.c - the tensor-core inner-product model (tcmodel.h has the steps and the sources).
 *
 * Every quantity is an integer or a power of two times one: a significand s with f fraction
 * bits is carried as s 2^23 (exact: f <= 21 for the products of the 11-bit formats, 23 for c,
 * a binary32 number), its exponent apart.  Doubles appear only where they are exact: the
 * decomposition of an input (a power-of-two scaling), the product of two significands of at
 * most 11 bits, and the final sum S 2^k with |S| < 2^41.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "oracle/tc/tcmodel.h"

int ug_tc_acc_precision(const ug_tc_params *p)
{
    const ug_format *F = ug_format_of(p->out_fmt);
    return (F ? F->p : 0) + (p->neab < 0 ? p->neab : 0);
}

const char *ug_tc_params_invalid(const ug_tc_params *p)
{
    if (p->in_fmt != UG_F16 && p->in_fmt != UG_BF16 && p->in_fmt != UG_TF32 &&
        p->in_fmt != UG_E4M3 && p->in_fmt != UG_E5M2)
        return "input format must be f16, bf16, tf32, e4m3 or e5m2";
    if (p->out_fmt != UG_F32 && p->out_fmt != UG_F16) return "output format must be f32 or f16";
    if (p->store_fmt != UG_F32 && p->store_fmt != UG_F16 && p->store_fmt != UG_BF16)
        return "storage format must be f32, f16 or bf16";
    if (p->block < 1 || p->block > UG_TC_MAX_BLOCK) return "block must be 1..64";
    if (p->neab < UG_TC_NEAB_MIN || p->neab > UG_TC_NEAB_MAX) return "neab must be -20..8";
    if (ug_tc_acc_precision(p) < 2) return "neab leaves the accumulator under 2 bits";
    if ((unsigned)p->align > UG_TC_RNE || (unsigned)p->final > UG_TC_RNE) return "bad rounding mode";
    return NULL;
}

const char *ug_tc_rmode_name(ug_tc_rmode m)
{
    return m == UG_TC_RZ ? "rz" : m == UG_TC_RNE ? "rne" : "?";
}

int ug_tc_rmode_parse(const char *s)
{
    if (s && strcmp(s, "rz") == 0) return UG_TC_RZ;
    if (s && strcmp(s, "rne") == 0) return UG_TC_RNE;
    return -1;
}

/* x's exponent in a format of normal range down to emin (clamped: a subnormal's exponent is
 * emin and its significand below 1); x finite, nonzero. */
static int ug_tc_exp(double x, int emin)
{
    int e = ilogb(x);
    return e < emin ? emin : e;
}

/* |v| cut to an integer multiple of 2^sh (sh > 0), as an integer: truncated or nearest-even.
 * v < 2^63. */
static int64_t ug_tc_shift_right(uint64_t v, int sh, ug_tc_rmode m)
{
    if (sh >= 63) return 0; /* v < 2^41 here: below half of 2^sh, nothing survives either way */
    uint64_t q = v >> sh, rem = v & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
    if (m == UG_TC_RNE && (rem > half || (rem == half && (q & 1)))) q++;
    return (int64_t)q;
}

/* v (exact) rounded to `prec` significant bits, the exponent range of F (emin, emax) and its
 * subnormals, in mode m; beyond the range: +-inf; a subnormal with subnormals off: +-0. */
static double ug_tc_round_out(double v, int prec, const ug_format *F, ug_tc_rmode m, bool subn)
{
    if (v == 0) return v;
    double a = fabs(v);
    int e = ilogb(a), q = (e < F->emin ? F->emin : e) - prec + 1;
    double t = ldexp(a, -q); /* exact: a power-of-two scaling */
    t = m == UG_TC_RZ ? floor(t) : nearbyint(t); /* default environment: ties to even */
    double r = ldexp(t, q);
    if (r >= ldexp(1.0, F->emax + 1)) r = INFINITY;
    if (!subn && r < ldexp(1.0, F->emin)) r = 0;
    return v < 0 ? -r : r;
}

double ug_tc_block(const ug_tc_params *p, const double *a, const double *b, int n, double c)
{
    const ug_format *Fi = ug_format_of(p->in_fmt), *Fo = ug_format_of(p->out_fmt);
    int pe[UG_TC_MAX_BLOCK + 1], neg[UG_TC_MAX_BLOCK + 1], m = 0;
    uint64_t sig[UG_TC_MAX_BLOCK + 1];
    double lead_sig = 0;
    int lead_pre = INT32_MIN, terms = 0;
    if (n > UG_TC_MAX_BLOCK) n = UG_TC_MAX_BLOCK;
    /* steps 1-2: the exact products, their exponent before and after renormalisation */
    for (int i = 0; i < n; i++) {
        double x = a[i], y = b[i];
        if (!p->in_subnormals) {
            if (fabs(x) < ldexp(1.0, Fi->emin)) x = 0;
            if (fabs(y) < ldexp(1.0, Fi->emin)) y = 0;
        }
        if (x == 0 || y == 0) continue;
        int ex = ug_tc_exp(x, Fi->emin), ey = ug_tc_exp(y, Fi->emin);
        double s = ldexp(fabs(x), -ex) * ldexp(fabs(y), -ey); /* <= 22 bits: exact */
        int e = ex + ey;
        if (e > lead_pre) lead_pre = e, lead_sig = s;
        else if (e == lead_pre && s > lead_sig) lead_sig = s;
        if (s >= 2) s /= 2, e++;
        sig[terms] = (uint64_t)ldexp(s, 23); /* an integer: s has <= 21 fraction bits */
        pe[terms] = e;
        neg[terms] = (x < 0) != (y < 0);
        terms++;
    }
    int ec = 0;
    if (c != 0) { /* the accumulator: binary32's exponent (clamped at -126), 24-bit significand */
        ec = ug_tc_exp(c, -126);
        sig[terms] = (uint64_t)ldexp(fabs(c), 23 - ec);
        pe[terms] = ec;
        neg[terms] = c < 0;
    }
    if (terms == 0 && c == 0) return 0.0;
    /* step 3: the extra bits */
    bool carry = p->carry_bit && terms > 0 && lead_sig >= 2 && (c == 0 || lead_pre >= ec);
    int E = p->neab + (carry ? 1 : 0);
    int all = terms + (c != 0);
    m = pe[0];
    for (int i = 1; i < all; i++)
        if (pe[i] > m) m = pe[i];
    /* steps 4-5: align to 2^(m - 23 - E), add exactly */
    int64_t S = 0;
    for (int i = 0; i < all; i++) {
        int sh = m - pe[i] - E;
        int64_t v = sh <= 0 ? (int64_t)(sig[i] << -sh) : ug_tc_shift_right(sig[i], sh, p->align);
        S += neg[i] ? -v : v;
    }
    if (S == 0) return 0.0;
    /* step 6: normalise once, round to the accumulator */
    double v = ldexp((double)S, m - 23 - E); /* |S| < 2^41: exact */
    return ug_tc_round_out(v, ug_tc_acc_precision(p), Fo, p->final, p->out_subnormals);
}

/* ug_tc_dot; rounded: a and b hold numbers of in_fmt already (ug_tc_gemm rounds each input
 * once, not once per output). */
static double ug_tc_dot_r(const ug_tc_params *p, const double *a, size_t sa, const double *b,
                          size_t sb, size_t k, double c, bool rounded)
{
    bool nan = isnan(c), pinf = c == INFINITY, ninf = c == -INFINITY;
    for (size_t i = 0; i < k; i++) {
        double x = a[i * sa], y = b[i * sb];
        if (!rounded) x = ug_fmt_round(p->in_fmt, x, UG_RN), y = ug_fmt_round(p->in_fmt, y, UG_RN);
        double t = x * y;
        if (isnan(t)) nan = true; /* NaN operand, or inf * 0 */
        else if (t == INFINITY) pinf = true;
        else if (t == -INFINITY) ninf = true;
    }
    if (nan || (pinf && ninf)) return NAN;
    if (ug_tc_params_invalid(p)) return NAN; /* a block beyond ab[] below: no model */
    if (pinf) return INFINITY;
    if (ninf) return -INFINITY;
    double ab[2][UG_TC_MAX_BLOCK];
    double d = c;
    for (size_t i0 = 0; i0 < k; i0 += (size_t)p->block) {
        int n = (int)(k - i0 < (size_t)p->block ? k - i0 : (size_t)p->block);
        for (int j = 0; j < n; j++) { /* the inputs as GEMM.m takes them: rounded to in_fmt */
            double x = a[(i0 + (size_t)j) * sa], y = b[(i0 + (size_t)j) * sb];
            ab[0][j] = rounded ? x : ug_fmt_round(p->in_fmt, x, UG_RN);
            ab[1][j] = rounded ? y : ug_fmt_round(p->in_fmt, y, UG_RN);
        }
        d = ug_tc_block(p, ab[0], ab[1], n, d);
        if (isinf(d)) break; /* an overflowed block: the rest cannot bring it back */
    }
    if (k == 0) d = ug_tc_block(p, NULL, NULL, 0, c);
    /* step 7: the storage format (a wider one holds d exactly: the rounding is the identity) */
    return p->store_fmt != p->out_fmt ? ug_fmt_round(p->store_fmt, d, UG_RN) : d;
}

double ug_tc_dot(const ug_tc_params *p, const double *a, size_t sa, const double *b, size_t sb,
                 size_t k, double c)
{
    return ug_tc_dot_r(p, a, sa, b, sb, k, c, false);
}

typedef struct {
    const ug_tc_params *p;
    const double *A, *B;
    double *D;
    size_t N, K;
} ug_tc_gemm_job;

static void ug_tc_gemm_rows(void *ctx, size_t lo, size_t hi)
{
    const ug_tc_gemm_job *j = ctx;
    for (size_t i = lo; i < hi; i++)
        for (size_t c = 0; c < j->N; c++)
            j->D[i * j->N + c] = ug_tc_dot_r(j->p, j->A + i * j->K, 1, j->B + c, j->N, j->K, 0.0, true);
}

/* The inputs rounded to in_fmt once (what ug_tc_dot does per output: rounding is a function of
 * the value alone, so the results are the same), then rows split over the project's worker
 * threads (each output is a function of its inputs alone: the result does not depend on the
 * thread count).  Without memory for the rounded copy: ug_tc_dot per output. */
void ug_tc_gemm(const ug_tc_params *p, const double *A, const double *B, double *D, size_t M,
                size_t N, size_t K)
{
    double *R = malloc((M * K + K * N + 1) * sizeof *R);
    if (!R) {
        for (size_t i = 0; i < M; i++)
            for (size_t c = 0; c < N; c++) D[i * N + c] = ug_tc_dot(p, A + i * K, 1, B + c, N, K, 0.0);
        return;
    }
    for (size_t e = 0; e < M * K; e++) R[e] = ug_fmt_round(p->in_fmt, A[e], UG_RN);
    for (size_t e = 0; e < K * N; e++) R[M * K + e] = ug_fmt_round(p->in_fmt, B[e], UG_RN);
    ug_tc_gemm_job j = {p, R, R + M * K, D, N, K};
    ug_par_range(M, 1, 0, ug_tc_gemm_rows, &j);
    free(R);
}
