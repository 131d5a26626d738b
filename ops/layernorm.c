/*
 * layernorm.c - LayerNorm of a row of n binary32 values, as torch.nn.LayerNorm(n, bias=False)
 * defines it: y_i = (x_i - mean) / sqrt(var + eps) * w_i, mean = sum x / n,
 * var = sum (x - mean)^2 / n (biased), eps = UG_NORM_EPS.  Inputs: x (n) and w (n, from
 * ug_norm_fill_params); n outputs, each correctly rounded (oracle/rows/transcend.h).
 * No bias input: the vector layout gives an operation at most two inputs of n index-aligned
 * values (the hunt's mutation and shrinking and the corpus files' "x w" lines rely on it); the
 * oracle and the bound classes take a bias (tests/oracle_rows.c checks it).
 */
#include <stdlib.h>

#include "base/sys.h"
#include "ops/norm_params.h"
#include "ops/op.h"
#include "oracle/rows/transcend.h"

static uint64_t ug_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void ug_norm_fill_params(float *y, size_t n, bool bias, uint64_t seed, uint32_t trial)
{
    uint64_t s = seed ^ ((uint64_t)trial * 0xd1b54a32d192ed03ull);
    for (size_t i = 0; i < n; i++) y[i] = 1.0f + (float)((int)(ug_splitmix(&s) % 33) - 16) / 64;
    for (size_t i = 0; bias && i < n; i++) y[n + i] = (float)((int)(ug_splitmix(&s) % 129) - 64) / 256;
}

static size_t ug_ln_in_len(const ug_shape *s, int input)
{
    return input < 2 ? s->dim[0] : 0;
}
static size_t ug_ln_outputs(const ug_shape *s) { return s->dim[0]; }
static size_t ug_ln_terms(const ug_shape *s) { return s->dim[0]; }
static double ug_ln_work(const ug_shape *s) { return (double)s->dim[0]; }
static double ug_ln_bytes(const ug_shape *s) { return 12.0 * (double)s->dim[0]; }

static void ug_ln_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    ug_exact_layernorm_row(x, y, NULL, s->dim[0], UG_NORM_EPS, out);
}

static void ug_ln_exact_one(const float *x, const float *y, const ug_shape *s, size_t e,
                            ug_exact *out)
{
    ug_exact *all = ug_xcalloc(s->dim[0], sizeof *all);
    ug_ln_exact(x, y, s, all);
    *out = all[e];
    free(all);
}

static void ug_ln_fill(float *y, const ug_shape *s, uint64_t seed, uint32_t trial)
{
    ug_norm_fill_params(y, s->dim[0], false, seed, trial);
}

const ug_op_desc ug_op_layernorm_desc = {
    .id = UG_OP_LAYERNORM,
    .name = "layernorm",
    .doc = "(x_i - mean) / sqrt(var + 1e-5) * w_i over a row of n binary32 values",
    .arity = 2,
    .roles = {"x", "w"},
    .term_noun = "values",
    .nsizes = 1,
    .size_names = "n",
    .layout = UG_LAYOUT_VECTORS,
    .out_kind = UG_OUT_VECTOR,
    .summary = UG_SUMMARY_WORST_MEAN,
    .rate = UG_RATE_GBPS,
    .terms_kind = UG_TERMS_VALUES,
    .exact_is_sum = false,
    .term_attribution = false,
    .specials = "any non-finite x or weight in the row: every output NaN",
    .hunt_exp = 20,
    .hunt_products = false,
    .hunt_max_size = (size_t)1 << 16,
    .in_len = ug_ln_in_len,
    .outputs = ug_ln_outputs,
    .terms = ug_ln_terms,
    .work = ug_ln_work,
    .bytes = ug_ln_bytes,
    .exact = ug_ln_exact,
    .exact_fast = ug_ln_exact,
    .exact_one_fast = ug_ln_exact_one,
    .fill_params = ug_ln_fill,
};
