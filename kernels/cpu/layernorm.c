/*
 * layernorm.c - CPU RMSNorm and LayerNorm kernels, binary32 in, accumulation and out
 * (kernels/bounds_rows.c has each class's bound and derivation).  Inputs: x (rows x n) and
 * the weight w (n; no bias: ops/layernorm.c says why); eps = 1e-5 (oracle/rows/transcend.h's
 * UG_NORM_EPS, PyTorch's default).
 *
 *   rmsnorm_cpu            r = 1 / sqrt(sum x^2 / n + eps); y = (x r) w             rmsnorm
 *   layernorm_twopass_cpu  mean, then var = sum (x - mean)^2 / n                   layernorm_twopass
 *   layernorm_onepass_cpu  var = sum x^2 / n - mean^2 (clamped at 0): cancels catastrophically
 *                          when mean/std is large (bound ~ (mean/std)^2 u)        layernorm_onepass
 *   layernorm_welford_cpu  Welford's update (mean += d / k; M2 += d (x - mean))     layernorm_welford
 */
#include <math.h>
#include <stdio.h>

#include "kernels/kernel.h"

static const float ug_eps = 1e-5f;

static void ug_rmsnorm(const float *x, const float *w, size_t n, float *y)
{
    float q = 0.0f;
    for (size_t j = 0; j < n; j++) q += x[j] * x[j];
    float r = 1.0f / sqrtf(q / (float)n + ug_eps);
    for (size_t j = 0; j < n; j++) y[j] = (x[j] * r) * w[j];
}

/* The affine tail every LayerNorm shares: y = ((x - mean) r) w. */
static void ug_ln_out(const float *x, const float *w, size_t n, float mean, float var, float *y)
{
    float r = 1.0f / sqrtf(var + ug_eps);
    for (size_t j = 0; j < n; j++) y[j] = ((x[j] - mean) * r) * w[j];
}

static void ug_ln_twopass(const float *x, const float *w, size_t n, float *y)
{
    float s = 0.0f, q = 0.0f;
    for (size_t j = 0; j < n; j++) s += x[j];
    float mean = s / (float)n;
    for (size_t j = 0; j < n; j++) {
        float d = x[j] - mean;
        q += d * d;
    }
    ug_ln_out(x, w, n, mean, q / (float)n, y);
}

static void ug_ln_onepass(const float *x, const float *w, size_t n, float *y)
{
    float s = 0.0f, q = 0.0f;
    for (size_t j = 0; j < n; j++) {
        s += x[j];
        q += x[j] * x[j];
    }
    float mean = s / (float)n, var = q / (float)n - mean * mean;
    ug_ln_out(x, w, n, mean, var > 0.0f ? var : 0.0f, y);
}

static void ug_ln_welford(const float *x, const float *w, size_t n, float *y)
{
    float mean = 0.0f, m2 = 0.0f;
    for (size_t j = 0; j < n; j++) {
        float d = x[j] - mean;
        mean += d / (float)(j + 1);
        m2 += d * (x[j] - mean);
    }
    ug_ln_out(x, w, n, mean, m2 / (float)n, y);
}

/* ---- the family: registry rows and the launcher ------------------------------------------------ */

enum { RMSNORM, LN_TWOPASS, LN_ONEPASS, LN_WELFORD };

static const ug_kernel ug_cpu_layernorm_kernels[] = {
    {.name = "rmsnorm_cpu", .op = UG_OP_RMSNORM, .bound = UG_BOUND_RMSNORM, .version = RMSNORM,
     .doc = "RMSNorm: y = x / sqrt(mean(x^2) + eps) * w, binary32 throughout"},
    {.name = "layernorm_twopass_cpu", .op = UG_OP_LAYERNORM, .bound = UG_BOUND_LAYERNORM_TWOPASS,
     .version = LN_TWOPASS, .doc = "LayerNorm, two passes: the mean, then sum (x - mean)^2"},
    {.name = "layernorm_onepass_cpu", .op = UG_OP_LAYERNORM, .bound = UG_BOUND_LAYERNORM_ONEPASS,
     .version = LN_ONEPASS, .doc = "LayerNorm, one pass: var = E[x^2] - E[x]^2 (cancels when mean/std is large)"},
    {.name = "layernorm_welford_cpu", .op = UG_OP_LAYERNORM, .bound = UG_BOUND_LAYERNORM_WELFORD,
     .version = LN_WELFORD, .doc = "LayerNorm, Welford's one-pass update of mean and M2"},
};

static int ug_cpu_layernorm_run(const ug_kernel *k, ug_call *c)
{
    const float *x = ug_in_f32(c, 0), *w = ug_in_f32(c, 1);
    float *y = ug_out_f32(c);
    size_t n = c->n, rows = n ? c->in[0].count / n : 0;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        switch (k->version) {
        case RMSNORM: ug_rmsnorm(xr, w, n, yr); break;
        case LN_TWOPASS: ug_ln_twopass(xr, w, n, yr); break;
        case LN_ONEPASS: ug_ln_onepass(xr, w, n, yr); break;
        case LN_WELFORD: ug_ln_welford(xr, w, n, yr); break;
        default:
            snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
            return -1;
        }
    }
    return 0;
}

UG_FAMILY(cpu_layernorm, ug_cpu_layernorm_kernels, ug_cpu_layernorm_run)
