/*
 * bounds_rows.c - the row operations' bound classes (kernels/bounds_rows.c) on values worked
 * by hand, and where each must be vacuous or finite.  u = 2^-24, c_e = c_l = 2^-21 (4 ulps).
 */
#include <math.h>
#include <string.h>

#include "harness/run/ug.h"
#include "ops/op.h"

static ug_kernel ug_row_class(ug_bound_class b, ug_op op, ug_fmt out)
{
    ug_kernel k;
    memset(&k, 0, sizeof k);
    k.name = "hand";
    k.op = op;
    k.bound = b;
    k.out_fmt = out;
    return k;
}

static void ug_near(ug_t *t, const char *what, double got, double want)
{
    UG_EXPECT_MSG(got >= want && got <= want * (1 + 0x1p-30), "%s: bound %.17g, by hand %.17g",
                  what, got, want);
}

UG_CASE(bounds, rows)
{
    const double u = 0x1p-24, ce = 0x1p-21;
    /* rmsnorm, n = 1: tau = gamma_3 + 2^-131; the larger side is
     * (1 - tau)^-1/2 (1 + u)^3 / (1 - u) - 1 ~ 1.5 u + 4 u = 5.5 u (to first order) */
    ug_kernel k = ug_row_class(UG_BOUND_RMSNORM, UG_OP_RMSNORM, UG_F32);
    double tau = 3 * u / (1 - 3 * u) + 0x1p-131;
    double want = (pow(1 - tau, -0.5) * pow(1 + u, 3) / (1 - u) - 1) * 2.0 + 0x1p-148;
    ug_near(t, "rmsnorm n = 1, |y| = 2", ug_kernel_bound(&k, 1, 2.0, 2.0), want);
    UG_EXPECT_MSG(fabs(ug_kernel_bound(&k, 1, 1.0, 1.0) / (5.5 * u) - 1) < 1e-3,
                  "rmsnorm n = 1: ~5.5 u relative, got %g u", ug_kernel_bound(&k, 1, 1.0, 1.0) / u);
    /* bf16 output: 2^-8 |y| + (1 + 2^-8) b + 2^-134 */
    ug_kernel kb = ug_row_class(UG_BOUND_RMSNORM, UG_OP_RMSNORM, UG_BF16);
    ug_near(t, "rmsnorm bf16 out", ug_kernel_bound(&kb, 1, 2.0, 2.0),
            0x1p-8 * 2 + (1 + 0x1p-8) * want + 0x1p-134);
    /* naive softmax, n = 1, Sigma = 1, y = 1: sigma = c_e + n 2^-146, bound
     * (1 + c_e)(1 + u)/(1 - sigma) - 1 + 2^-147 (1 + u)/(1 - sigma) + 2^-150 ~ 2 c_e + u */
    k = ug_row_class(UG_BOUND_SOFTMAX_NAIVE, UG_OP_SOFTMAX, UG_F32);
    double sg = ce + 0x1p-146;
    ug_near(t, "softmax_naive n = 1", ug_kernel_bound(&k, 1, 1.0, 1.0),
            (1 + ce) * (1 + u) / (1 - sg) - 1 + 0x1p-147 * (1 + u) / (1 - sg) + 0x1p-150);
    UG_EXPECT_MSG(isinf(ug_kernel_bound(&k, 10, 0.0, 0.5)), "softmax_naive: Sigma underflowed, no bound");
    UG_EXPECT_MSG(isfinite(ug_kernel_bound(&k, 10, INFINITY, 0.5)),
                  "softmax_naive: an overflowing Sigma keeps a finite bound (the kernel's inf fails it)");
    /* shifted and online grow with n; online >= shifted */
    ug_kernel ks = ug_row_class(UG_BOUND_SOFTMAX_SHIFTED, UG_OP_SOFTMAX, UG_F32);
    ug_kernel ko = ug_row_class(UG_BOUND_SOFTMAX_ONLINE, UG_OP_SOFTMAX, UG_F32);
    double b1 = ug_kernel_bound(&ks, 1000, 1, 0.01), b2 = ug_kernel_bound(&ks, 2000, 1, 0.01);
    double bo = ug_kernel_bound(&ko, 1000, 1, 0.01);
    UG_EXPECT_MSG(b2 > b1 && bo > b1 && isfinite(bo), "shifted %g < %g, online %g", b1, b2, bo);
    /* a tiny output: y^(1-u) rather than y (the shift's amplified error), still tiny */
    double bt = ug_kernel_bound(&ks, 10, 1, 1e-30);
    UG_EXPECT_MSG(bt > 1e-30 * (2 * ce) && bt < 1e-36 + 1e-30 * 1e-4, "tiny output: %g", bt);
    /* one-pass layernorm: vacuous at K = 1e4 for n = 1000 (gamma_{1001} K^2 ~ 6e3), finite at
     * K = 3; two-pass finite at both */
    ug_kernel k1 = ug_row_class(UG_BOUND_LAYERNORM_ONEPASS, UG_OP_LAYERNORM, UG_F32);
    ug_kernel k2 = ug_row_class(UG_BOUND_LAYERNORM_TWOPASS, UG_OP_LAYERNORM, UG_F32);
    UG_EXPECT(isinf(ug_kernel_bound(&k1, 1000, 1e4, 1.0)) && isfinite(ug_kernel_bound(&k1, 1000, 3, 1.0)));
    UG_EXPECT(isfinite(ug_kernel_bound(&k2, 1000, 1e4, 1.0)) && isfinite(ug_kernel_bound(&k2, 1000, 3, 1.0)));
    UG_EXPECT(ug_kernel_bound(&k1, 1000, 3, 1.0) >= ug_kernel_bound(&k2, 1000, 3, 1.0) * 0.5);
    UG_EXPECT_MSG(isinf(ug_kernel_bound(&k2, 10, INFINITY, 1.0)), "a weight beyond 2: no bound");
    /* Welford: tau grows with zeta_W K (linear in K, one-pass's in K^2).  n = 16, K = 1e4:
     * zeta_W = 16 (c (1 + H) + u H) ~ 213 u, eps ~ 0.13, tau ~ 2 sqrt(2) eps ~ 0.37: finite
     * where the one-pass bound is vacuous (gamma_17 1e8 >> 1); n = 1000, K = 1e4: eps ~ 20,
     * vacuous; K = 3: finite and within 20x the two-pass one (zeta_W ~ 25000 u vs ~1000 u) */
    ug_kernel kw = ug_row_class(UG_BOUND_LAYERNORM_WELFORD, UG_OP_LAYERNORM, UG_F32);
    UG_EXPECT(isfinite(ug_kernel_bound(&kw, 16, 1e4, 1.0)) && isinf(ug_kernel_bound(&k1, 16, 1e4, 1.0)));
    UG_EXPECT(isinf(ug_kernel_bound(&kw, 1000, 1e4, 1.0)));
    double bw = ug_kernel_bound(&kw, 1000, 3, 1.0), b2p = ug_kernel_bound(&k2, 1000, 3, 1.0);
    UG_EXPECT_MSG(isfinite(bw) && bw > b2p && bw < 40 * b2p, "welford %g, two-pass %g", bw, b2p);
    /* n = 1: the update is exact (zeta_W = 0): tau = u + (1 + u)(u + (1 + u) gamma_3 + 2^-130) */
    UG_EXPECT_MSG(ug_kernel_bound(&kw, 1, 1, 1.0) < 30 * u, "welford n = 1: %g u",
                  ug_kernel_bound(&kw, 1, 1, 1.0) / u);
    /* shifted log-sum-exp, n = 1: u|y| + (1 + u)(c_l (0 + lambda) + lambda + 2^-148) */
    k = ug_row_class(UG_BOUND_LSE_SHIFTED, UG_OP_LOGSUMEXP, UG_F32);
    UG_EXPECT(ug_kernel_bound(&k, 1, 1, 5.0) >= 5.0 * u);
    /* online log-sum-exp: the shifted formula with the online sum's sigma (n - 1 rescales):
     * the same at n = 1 (no rescale), larger from n = 2 on, finite at n = 4096 */
    ug_kernel klo = ug_row_class(UG_BOUND_LSE_ONLINE, UG_OP_LOGSUMEXP, UG_F32);
    ug_near(t, "lse_online n = 1", ug_kernel_bound(&klo, 1, 1, 5.0), ug_kernel_bound(&k, 1, 1, 5.0));
    double lo2 = ug_kernel_bound(&klo, 100, 1, 5.0), ls2 = ug_kernel_bound(&k, 100, 1, 5.0);
    UG_EXPECT_MSG(lo2 > ls2 && isfinite(ug_kernel_bound(&klo, 4096, 1, 5.0)), "online %g, shifted %g",
                  lo2, ls2);
}
