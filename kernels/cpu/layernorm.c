/*
 * layernorm.c - CPU RMSNorm and LayerNorm kernels, binary32 in, accumulation and out
 * (kernels/bounds_rows.c has each class's bound and derivation).  Inputs: x (rows x n) and
 * the parameters: RMSNorm's weight w (n); LayerNorm's weight then bias, [w | b] (2n:
 * ops/layernorm.c); eps = 1e-5 (oracle/rows/transcend.h's UG_NORM_EPS, PyTorch's default).
 *
 *   rmsnorm_cpu            r = 1 / sqrt(sum x^2 / n + eps); y = (x r) w             rmsnorm
 *   layernorm_twopass_cpu  mean, then var = sum (x - mean)^2 / n; every LayerNorm ends
 *                          y = ((x - mean) r) w + b, r = 1 / sqrt(var + eps)          layernorm_twopass
 *   layernorm_onepass_cpu  var = sum x^2 / n - mean^2 (clamped at 0): cancels catastrophically
 *                          when mean/std is large (bound ~ (mean/std)^2 u)        layernorm_onepass
 *   layernorm_welford_cpu  Welford's update (mean += d / k; M2 += d (x - mean))     layernorm_welford
 *   rmsnorm_split_cpu      rmsnorm_cpu with the sum of squares in 4 slices below 64 rows, 1 from
 *                          64: another order in another batch (not batch-invariant)  rmsnorm
 *   rmsnorm_bf16_cpu       bfloat16 x and w, binary32 accumulation, bfloat16 y: the reference
 *   layernorm_bf16_cpu     form of PyTorch's and Apex's fused layers for bf16 activations (each
 *                          value widened exactly, the binary32 kernel above, y rounded once to
 *                          bf16)                                 rmsnorm / layernorm_twopass + bf16 out
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/kernel.h"

static const float ug_eps = 1e-5f;

static void ug_rmsnorm(const float *x, const float *w, size_t n, float *y)
{
    float q = 0.0f;
    for (size_t j = 0; j < n; j++) q += x[j] * x[j];
    float r = 1.0f / sqrtf(q / (float)n + ug_eps);
    for (size_t j = 0; j < n; j++) y[j] = (x[j] * r) * w[j];
}

/* RMSNorm with the sum of squares in `parts` contiguous slices, each summed serially, then the
 * slices' sums in order (depth <= n - 1: the class's model).  parts follows the batch: 4
 * below 64 rows, 1 from 64 (a library gives a row more blocks when the batch leaves SMs idle):
 * the same row takes another summation order in another batch, so it is not batch-invariant
 * (the expected failure of cases/invariance.c). */
static void ug_rmsnorm_split(const float *x, const float *w, size_t n, size_t parts, float *y)
{
    float q = 0.0f;
    size_t len = (n + parts - 1) / parts;
    for (size_t p0 = 0; p0 < n; p0 += len) {
        float s = 0.0f;
        for (size_t j = p0; j < n && j < p0 + len; j++) s += x[j] * x[j];
        q += s;
    }
    float r = 1.0f / sqrtf(q / (float)n + ug_eps);
    for (size_t j = 0; j < n; j++) y[j] = (x[j] * r) * w[j];
}

/* The affine tail every LayerNorm shares: y = ((x - mean) r) w + b (the bias added last, in
 * binary32: one rounding more, kernels/bounds_rows.c). */
static void ug_ln_out(const float *x, const float *w, const float *b, size_t n, float mean,
                      float var, float *y)
{
    float r = 1.0f / sqrtf(var + ug_eps);
    for (size_t j = 0; j < n; j++) y[j] = ((x[j] - mean) * r) * w[j] + b[j];
}

static void ug_ln_twopass(const float *x, const float *w, const float *b, size_t n, float *y)
{
    float s = 0.0f, q = 0.0f;
    for (size_t j = 0; j < n; j++) s += x[j];
    float mean = s / (float)n;
    for (size_t j = 0; j < n; j++) {
        float d = x[j] - mean;
        q += d * d;
    }
    ug_ln_out(x, w, b, n, mean, q / (float)n, y);
}

static void ug_ln_onepass(const float *x, const float *w, const float *b, size_t n, float *y)
{
    float s = 0.0f, q = 0.0f;
    for (size_t j = 0; j < n; j++) {
        s += x[j];
        q += x[j] * x[j];
    }
    float mean = s / (float)n, var = q / (float)n - mean * mean;
    ug_ln_out(x, w, b, n, mean, var > 0.0f ? var : 0.0f, y);
}

static void ug_ln_welford(const float *x, const float *w, const float *b, size_t n, float *y)
{
    float mean = 0.0f, m2 = 0.0f;
    for (size_t j = 0; j < n; j++) {
        float d = x[j] - mean;
        mean += d / (float)(j + 1);
        m2 += d * (x[j] - mean);
    }
    ug_ln_out(x, w, b, n, mean, m2 / (float)n, y);
}

/* ---- the family: registry rows and the launcher ------------------------------------------------ */

enum { RMSNORM, LN_TWOPASS, LN_ONEPASS, LN_WELFORD, RMS_BF16, LN_BF16, RMS_SPLIT };

/* Each row is computed alone by the same loop, whatever the number of rows: batch-invariant. */
static const ug_kernel ug_cpu_layernorm_kernels[] = {
    {.name = "rmsnorm_cpu", .op = UG_OP_RMSNORM, .batch_invariant = true, .bound = UG_BOUND_RMSNORM, .version = RMSNORM,
     .doc = "RMSNorm: y = x / sqrt(mean(x^2) + eps) * w, binary32 throughout"},
    {.name = "layernorm_twopass_cpu", .op = UG_OP_LAYERNORM, .batch_invariant = true, .bound = UG_BOUND_LAYERNORM_TWOPASS,
     .version = LN_TWOPASS, .doc = "LayerNorm, two passes: the mean, then sum (x - mean)^2"},
    {.name = "layernorm_onepass_cpu", .op = UG_OP_LAYERNORM, .batch_invariant = true, .bound = UG_BOUND_LAYERNORM_ONEPASS,
     .version = LN_ONEPASS, .doc = "LayerNorm, one pass: var = E[x^2] - E[x]^2 (cancels when mean/std is large)"},
    {.name = "layernorm_welford_cpu", .op = UG_OP_LAYERNORM, .batch_invariant = true, .bound = UG_BOUND_LAYERNORM_WELFORD,
     .version = LN_WELFORD, .doc = "LayerNorm, Welford's one-pass update of mean and M2"},
    {.name = "rmsnorm_bf16_cpu", .op = UG_OP_RMSNORM, .in_store = {UG_BF16, UG_BF16},
     .out_fmt = UG_BF16, .batch_invariant = true, .bound = UG_BOUND_RMSNORM, .version = RMS_BF16,
     .doc = "RMSNorm, bf16 x and w, binary32 accumulation, bf16 out (PyTorch/Apex reference)"},
    {.name = "layernorm_bf16_cpu", .op = UG_OP_LAYERNORM, .in_store = {UG_BF16, UG_BF16},
     .out_fmt = UG_BF16, .batch_invariant = true, .bound = UG_BOUND_LAYERNORM_TWOPASS, .version = LN_BF16,
     .doc = "LayerNorm, two passes, bf16 x, w and b, binary32 accumulation, bf16 out"},
    {.name = "rmsnorm_split_cpu", .op = UG_OP_RMSNORM, .bound = UG_BOUND_RMSNORM, .version = RMS_SPLIT,
     .doc = "RMSNorm, sum of squares in 4 slices below 64 rows, 1 from 64: not batch-invariant"},
};

/* The bfloat16 kernels: every value widened to binary32 (exact), the binary32 kernel, each
 * output rounded once to bfloat16 (ug_fmt_store: nearest-even).  The parameters: w (n), or
 * LayerNorm's [w | b] (2n: c->in[1].count).  O(n) scratch a call. */
static int ug_cpu_layernorm_bf16(const ug_kernel *k, ug_call *c)
{
    size_t n = c->shape.dim[0], count = c->in[0].count, rows = n ? count / n : 0, np = c->in[1].count;
    float *x = malloc((count ? count : 1) * sizeof *x), *w = malloc((np ? np : 1) * sizeof *w);
    float *y = malloc((n ? n : 1) * sizeof *y);
    int rc = 0;
    if (!x || !w || !y) {
        snprintf(c->err, sizeof c->err, "%s: out of memory (%zu values)", k->name, count);
        rc = -1;
        goto cleanup;
    }
    for (size_t i = 0; i < count; i++) x[i] = (float)ug_fmt_load(UG_BF16, c->in[0].data, i);
    for (size_t i = 0; i < np; i++) w[i] = (float)ug_fmt_load(UG_BF16, c->in[1].data, i);
    for (size_t r = 0; r < rows; r++) {
        if (k->version == RMS_BF16) ug_rmsnorm(x + r * n, w, n, y);
        else ug_ln_twopass(x + r * n, w, w + n, n, y);
        for (size_t j = 0; j < n; j++) ug_fmt_store(UG_BF16, c->out[0].data, r * n + j, y[j]);
    }
cleanup:
    free(x);
    free(w);
    free(y);
    return rc;
}

static int ug_cpu_layernorm_run(const ug_kernel *k, ug_call *c)
{
    if (k->version == RMS_BF16 || k->version == LN_BF16) return ug_cpu_layernorm_bf16(k, c);
    const float *x = ug_in_f32(c, 0), *w = ug_in_f32(c, 1);
    float *y = ug_out_f32(c);
    size_t n = c->shape.dim[0], rows = n ? c->in[0].count / n : 0;
    const float *b = w + n; /* layernorm: [w | b] (read by the LayerNorm versions only) */
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        switch (k->version) {
        case RMSNORM: ug_rmsnorm(xr, w, n, yr); break;
        case RMS_SPLIT: ug_rmsnorm_split(xr, w, n, rows < 64 ? 4 : 1, yr); break;
        case LN_TWOPASS: ug_ln_twopass(xr, w, b, n, yr); break;
        case LN_ONEPASS: ug_ln_onepass(xr, w, b, n, yr); break;
        case LN_WELFORD: ug_ln_welford(xr, w, b, n, yr); break;
        default:
            snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
            return -1;
        }
    }
    return 0;
}

UG_FAMILY(cpu_layernorm, ug_cpu_layernorm_kernels, ug_cpu_layernorm_run)
