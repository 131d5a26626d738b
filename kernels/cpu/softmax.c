/*
 * softmax.c - CPU softmax and log-sum-exp kernels, binary32 in and out, the textbook forms
 * (kernels/bounds_rows.c has each class's bound and derivation).  Each loops over the call's
 * rows (count / n); the harness gives one row per trial.
 *
 *   softmax_naive_cpu     e_j = exp(x_j), y_i = e_i / sum e_j       softmax_naive: overflows
 *                         from x = 88.7 on (exp(x) = inf: inf/inf = NaN)
 *   softmax_shifted_cpu   m = max x; e_j = exp(x_j - m); two passes  softmax_shifted
 *   softmax_online_cpu    one pass of (m, d): d = d exp(m_old - m) + exp(x - m) at each new
 *                         max (Milakov & Gimelshein, "Online normalizer calculation for
 *                         softmax", 2018), then y_i = exp(x_i - m) / d  softmax_online
 *   logsumexp_naive_cpu   log(sum exp(x_j))                          lse_naive: overflows
 *   logsumexp_shifted_cpu m + log(sum exp(x_j - m))                  lse_shifted
 *   logsumexp_online_cpu  m + log(d), (m, d) the online softmax's one pass  lse_online
 * In the formats attention feeds them: bfloat16 or binary16 logits widened exactly,
 * binary32 arithmetic, the output stored in the 16-bit format or in binary32:
 *   softmax_shifted_bf16_cpu      bf16 in, bf16 out   softmax_shifted + the output's rounding
 *   softmax_shifted_bf16f32_cpu   bf16 in, f32 out    softmax_shifted
 *   softmax_shifted_f16_cpu       f16 in, f16 out     softmax_shifted + the output's rounding
 *   logsumexp_shifted_bf16_cpu    bf16 in, f32 out    lse_shifted
 *   logsumexp_shifted_f16_cpu     f16 in, f32 out     lse_shifted
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/kernel.h"

static size_t ug_rows(const ug_call *c) { return c->shape.dim[0] ? c->in[0].count / c->shape.dim[0] : 0; }

static float ug_row_max(const float *x, size_t n)
{
    float m = -INFINITY;
    for (size_t j = 0; j < n; j++) m = x[j] > m ? x[j] : m;
    return m;
}

/* The textbook form under test: its sum underflows to 0 on logits <= -104 and it divides by
 * it (IEEE: inf or NaN, the failure the case declares), so UBSan's float-divide-by-zero, on in
 * CI's sanitizer tree, is off for this function alone. */
__attribute__((no_sanitize("float-divide-by-zero")))
static void ug_softmax_naive(const float *x, size_t n, float *y)
{
    float s = 0.0f;
    for (size_t j = 0; j < n; j++) s += expf(x[j]);
    for (size_t j = 0; j < n; j++) y[j] = expf(x[j]) / s;
}

static void ug_softmax_shifted(const float *x, size_t n, float *y)
{
    float m = ug_row_max(x, n), s = 0.0f;
    for (size_t j = 0; j < n; j++) s += expf(x[j] - m);
    for (size_t j = 0; j < n; j++) y[j] = expf(x[j] - m) / s;
}

/* The running max *m and the running sum of exp(x - m), returned: a new max rescales it once. */
static float ug_online_sum(const float *x, size_t n, float *m_out)
{
    float m = -INFINITY, d = 0.0f;
    for (size_t j = 0; j < n; j++) {
        if (x[j] > m) {
            d = d * expf(m - x[j]) + 1.0f; /* exp(x_j - x_j) = 1; d = 0 at the first */
            m = x[j];
        } else {
            d += expf(x[j] - m);
        }
    }
    *m_out = m;
    return d;
}

static void ug_softmax_online(const float *x, size_t n, float *y)
{
    float m, d = ug_online_sum(x, n, &m);
    for (size_t j = 0; j < n; j++) y[j] = expf(x[j] - m) / d;
}

static float ug_lse_online(const float *x, size_t n)
{
    float m, d = ug_online_sum(x, n, &m);
    return m + logf(d);
}

static float ug_lse_naive(const float *x, size_t n)
{
    float s = 0.0f;
    for (size_t j = 0; j < n; j++) s += expf(x[j]);
    return logf(s);
}

static float ug_lse_shifted(const float *x, size_t n)
{
    float m = ug_row_max(x, n), s = 0.0f;
    for (size_t j = 0; j < n; j++) s += expf(x[j] - m);
    return m + logf(s);
}

/* ---- the family: registry rows and the launcher ------------------------------------------------ */

enum { SOFTMAX_NAIVE, SOFTMAX_SHIFTED, SOFTMAX_ONLINE, LSE_NAIVE, LSE_SHIFTED, LSE_ONLINE,
       SOFTMAX_16, LSE_16 };

/* Every row computed alone by the same loop, whatever the number of rows: batch-invariant. */
static const ug_kernel ug_cpu_softmax_kernels[] = {
    {.name = "softmax_naive_cpu", .op = UG_OP_SOFTMAX, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_NAIVE,
     .version = SOFTMAX_NAIVE, .doc = "exp(x_i) / sum exp(x_j), no max shift: overflows from x = 88.7"},
    {.name = "softmax_shifted_cpu", .op = UG_OP_SOFTMAX, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED,
     .version = SOFTMAX_SHIFTED, .doc = "max-shifted two-pass softmax: exp(x_i - max) / sum exp(x_j - max)"},
    {.name = "softmax_online_cpu", .op = UG_OP_SOFTMAX, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_ONLINE,
     .version = SOFTMAX_ONLINE, .doc = "online softmax (Milakov & Gimelshein 2018): running max, sum rescaled"},
    {.name = "logsumexp_naive_cpu", .op = UG_OP_LOGSUMEXP, .batch_invariant = true, .bound = UG_BOUND_LSE_NAIVE,
     .version = LSE_NAIVE, .doc = "log(sum exp(x_j)), no shift: overflows from x = 88.7"},
    {.name = "logsumexp_shifted_cpu", .op = UG_OP_LOGSUMEXP, .batch_invariant = true, .bound = UG_BOUND_LSE_SHIFTED,
     .version = LSE_SHIFTED, .doc = "max + log(sum exp(x_j - max))"},
    {.name = "logsumexp_online_cpu", .op = UG_OP_LOGSUMEXP, .batch_invariant = true, .bound = UG_BOUND_LSE_ONLINE,
     .version = LSE_ONLINE, .doc = "max + log(sum), one pass: the online softmax's running max and sum"},
    {.name = "softmax_shifted_bf16_cpu", .op = UG_OP_SOFTMAX, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED,
     .in_store = {UG_BF16}, .out_fmt = UG_BF16, .version = SOFTMAX_16,
     .doc = "max-shifted softmax of bf16 logits, binary32 arithmetic, bf16 out"},
    {.name = "softmax_shifted_bf16f32_cpu", .op = UG_OP_SOFTMAX, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED,
     .in_store = {UG_BF16}, .version = SOFTMAX_16,
     .doc = "max-shifted softmax of bf16 logits, binary32 arithmetic and out"},
    {.name = "softmax_shifted_f16_cpu", .op = UG_OP_SOFTMAX, .batch_invariant = true, .bound = UG_BOUND_SOFTMAX_SHIFTED,
     .in_store = {UG_F16}, .out_fmt = UG_F16, .version = SOFTMAX_16,
     .doc = "max-shifted softmax of binary16 logits, binary32 arithmetic, binary16 out"},
    {.name = "logsumexp_shifted_bf16_cpu", .op = UG_OP_LOGSUMEXP, .batch_invariant = true, .bound = UG_BOUND_LSE_SHIFTED,
     .in_store = {UG_BF16}, .version = LSE_16,
     .doc = "max + log(sum exp(x - max)) of bf16 logits, binary32 arithmetic and out"},
    {.name = "logsumexp_shifted_f16_cpu", .op = UG_OP_LOGSUMEXP, .batch_invariant = true, .bound = UG_BOUND_LSE_SHIFTED,
     .in_store = {UG_F16}, .version = LSE_16,
     .doc = "max + log(sum exp(x - max)) of binary16 logits, binary32 arithmetic and out"},
};

/* The 16-bit rows: x widened exactly, the binary32 form, y stored in the row's out_fmt (one
 * rounding: bounds_rows.c adds it for a bf16 output). */
static int ug_cpu_softmax_16(const ug_kernel *k, ug_call *c)
{
    size_t n = ug_dim(c, 0), count = c->in[0].count, rows = n ? count / n : 0;
    float *x = malloc((count ? count : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        snprintf(c->err, sizeof c->err, "%s: out of memory", k->name);
        return -1;
    }
    for (size_t i = 0; i < count; i++) x[i] = (float)ug_fmt_load(c->in[0].fmt, c->in[0].data, i);
    for (size_t r = 0; r < rows; r++) {
        if (k->version == LSE_16) {
            ug_fmt_store(c->out[0].fmt, c->out[0].data, r, ug_lse_shifted(x + r * n, n));
            continue;
        }
        ug_softmax_shifted(x + r * n, n, y);
        for (size_t j = 0; j < n; j++) ug_fmt_store(c->out[0].fmt, c->out[0].data, r * n + j, y[j]);
    }
    free(x);
    free(y);
    return 0;
}

static int ug_cpu_softmax_run(const ug_kernel *k, ug_call *c)
{
    if (k->version == SOFTMAX_16 || k->version == LSE_16) return ug_cpu_softmax_16(k, c);
    const float *x = ug_in_f32(c, 0);
    float *y = ug_out_f32(c);
    size_t n = c->shape.dim[0], rows = ug_rows(c);
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        switch (k->version) {
        case SOFTMAX_NAIVE: ug_softmax_naive(xr, n, y + r * n); break;
        case SOFTMAX_SHIFTED: ug_softmax_shifted(xr, n, y + r * n); break;
        case SOFTMAX_ONLINE: ug_softmax_online(xr, n, y + r * n); break;
        case LSE_NAIVE: y[r] = ug_lse_naive(xr, n); break;
        case LSE_SHIFTED: y[r] = ug_lse_shifted(xr, n); break;
        case LSE_ONLINE: y[r] = ug_lse_online(xr, n); break;
        default:
            snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
            return -1;
        }
    }
    return 0;
}

UG_FAMILY(cpu_softmax, ug_cpu_softmax_kernels, ug_cpu_softmax_run)
