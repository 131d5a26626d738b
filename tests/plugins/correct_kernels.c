/*
 * correct_kernels.c - correct kernels of each bound class, as a user writes them against the
 * installed header alone: a serial, a pairwise, a Kahan, a Neumaier and a binary64-
 * accumulated binary32 sum, an fma dot and a naive GEMM.  `ulpgate run --plugin
 * libcorrect_kernels.so --no-builtin`, with no xfail file, must pass (tests/plugins_test.sh):
 * a corpus check stronger than a kernel's class is information for a kernel it does not name,
 * and partial sums that overflow are out of range for every kernel alike.
 *
 * Each sum starts from -0.0 (the identity of IEEE addition: a sum of negative zeros is -0) and
 * Kahan/Neumaier keep a non-finite running sum as it is (their compensation of an infinity is
 * inf - inf, a NaN that is no part of the sum).
 */
#include <math.h>

#include <ulpgate/ulpgate.h>

// ---- sums --------------------------------------------------------------------------------------

static int serial_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    float s = -0.0f;
    for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
    ug_out_f32(c)[0] = s;
    return 0;
}

static float pairwise(const float *x, size_t n)
{
    if (n == 0) return -0.0f;
    if (n == 1) return x[0];
    return pairwise(x, n / 2) + pairwise(x + n / 2, n - n / 2);
}

/* ceil(log2 n): the additions on the longest path of the halving tree */
static size_t pairwise_depth(size_t n)
{
    size_t d = 0;
    while (((size_t)1 << d) < n) d++;
    return d;
}

static int pairwise_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    ug_out_f32(c)[0] = pairwise(ug_in_f32(c, 0), ug_dim(c, 0));
    return 0;
}

static int kahan_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    float s = -0.0f, comp = 0.0f;
    for (size_t i = 0; i < ug_dim(c, 0); i++) {
        float y = x[i] - comp;
        float t = s + y;
        comp = (t - s) - y;
        s = t;
        if (!isfinite(s)) { /* an infinity or NaN: the plain sum of the rest decides */
            for (size_t j = i + 1; j < ug_dim(c, 0); j++) s += x[j];
            break;
        }
    }
    ug_out_f32(c)[0] = s;
    return 0;
}

static int neumaier_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    float s = -0.0f, comp = 0.0f;
    for (size_t i = 0; i < ug_dim(c, 0); i++) {
        float t = s + x[i];
        if (!isfinite(t)) { /* as kahan_sum */
            for (size_t j = i + 1; j < ug_dim(c, 0); j++) t += x[j];
            s = t, comp = 0.0f;
            break;
        }
        comp += fabsf(s) >= fabsf(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
        s = t;
    }
    ug_out_f32(c)[0] = comp != 0 ? s + comp : s; /* -0 + +0 would be +0 */
    return 0;
}

static int wide_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    double s = -0.0;
    for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
    ug_out_f32(c)[0] = (float)s;
    return 0;
}

// ---- dot and GEMM ------------------------------------------------------------------------------

static int fma_dot(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0), *y = ug_in_f32(c, 1);
    float s = -0.0f;
    for (size_t i = 0; i < ug_dim(c, 0); i++) s = fmaf(x[i], y[i], s);
    ug_out_f32(c)[0] = s;
    return 0;
}

static int naive_gemm(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *a = ug_in_f32(c, 0), *b = ug_in_f32(c, 1);
    float *out = ug_out_f32(c);
    size_t m = ug_dim(c, 0), n = ug_dim(c, 1), kk = ug_dim(c, 2);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float s = -0.0f;
            for (size_t l = 0; l < kk; l++) s = fmaf(a[i * kk + l], b[l * n + j], s);
            out[i * n + j] = s;
        }
    return 0;
}

UG_PLUGIN(
    {.name = "ok_serial_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = serial_sum,
     .doc = "serial binary32 sum in index order"},
    {.name = "ok_pairwise_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = pairwise_sum,
     .depth = pairwise_depth, .doc = "recursive halving, depth ceil(log2 n)"},
    {.name = "ok_kahan_sum", .op = UG_OP_SUM, .bound = UG_BOUND_KAHAN, .run = kahan_sum,
     .doc = "Kahan's compensated binary32 sum"},
    {.name = "ok_neumaier_sum", .op = UG_OP_SUM, .bound = UG_BOUND_NEUMAIER, .run = neumaier_sum,
     .doc = "Neumaier's compensated binary32 sum"},
    {.name = "ok_wide_sum", .op = UG_OP_SUM, .acc_fmt = UG_F64, .bound = UG_BOUND_WIDE_ACC,
     .run = wide_sum, .doc = "binary64 accumulator, rounded once to binary32"},
    {.name = "ok_fma_dot", .op = UG_OP_DOT, .bound = UG_BOUND_TREE, .run = fma_dot,
     .doc = "serial dot, one fma a term"},
    {.name = "ok_naive_gemm", .op = UG_OP_GEMM, .bound = UG_BOUND_TREE, .run = naive_gemm,
     .doc = "C = AB, one fma a term in k order"},
)
