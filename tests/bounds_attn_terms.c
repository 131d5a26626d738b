/*
 * bounds_attn_terms.c - the attention bound classes (kernels/bounds_attn.c) against the formulas
 * of its comment, written again here term by term, at shapes where each term moves the bound
 * by far more than the comparison's tolerance (1e-9 relative): a term dropped or changed in
 * the library fails a check naming the class and the shape.  Three regimes: large scores
 * (A = 6, the relative terms), A = 0 with a tiny O (the absolute parts: n + R + 2 products'
 * underflow), and many keys with small blocks (the rescales R).  Terms below binary64's
 * resolution beside the others (the lse's 2^-148) cannot be seen this way.
 */
#include <math.h>
#include <string.h>

#include "harness/run/ug.h"
#include "kernels/bounds_attn.h"
#include "kernels/kernel.h"

static const double U = 0x1p-24, CE = 0x1p-21, CL = 0x1p-21;

static double gam(double k) { return k * U / (1 - k * U); }

typedef struct {
    double o, lse;
} want_t;

/* The comment's steps 1-4 and 6 for one pass (the classes other than split-KV). */
static want_t by_hand(ug_attn_class cls, double n, double d, double block, double c, double A,
                      double W, double s)
{
    double G_tc = 0, Ds = 0, steps = 0;
    if (cls == UG_ATTN_FA2_MMA) {
        double ctc = ug_block_model_c(&(ug_block_model){UG_BF16, UG_F32, 16, 0, 24});
        Ds = 4 * ceil(d / 16);
        steps = 4 * ceil(n / 16);
        G_tc = ctc;
    }
    /* 1. the scores' error */
    double big_c = c > 1 ? c : 1;
    double Delta = cls == UG_ATTN_FA2_MMA
                       ? (pow(1 + G_tc, Ds) - 1) * A + (d + Ds + 2) * 0x1p-149 * big_c
                       : gam(d + 1) * A + (d + 2) * 0x1p-149 * big_c;
    /* 2. the exponent arguments, the rescales */
    bool online = cls == UG_ATTN_ONLINE || cls == UG_ATTN_FA2_BF16 || cls == UG_ATTN_FA2_MMA;
    double R = online ? ceil(n / block) - 1 : 0;
    double arg = cls == UG_ATTN_UNSHIFTED ? Delta
               : cls == UG_ATTN_ONLINE    ? 2 * Delta + 4 * U * (A + Delta)
               : online                   ? 2 * Delta + 12 * U * (A + Delta)
                                          : 2 * Delta + 2 * U * (A + Delta);
    double rho = exp(arg) * pow(1 + CE, 1 + R) * pow(1 + U, R) - 1;
    /* 3. the sums */
    double gN = cls == UG_ATTN_FA2_MMA ? pow(1 + G_tc, steps) - 1
              : cls == UG_ATTN_FA2_BF16 ? gam(n - 1) : gam(n);
    double b = cls == UG_ATTN_NAIVE_BF16 || cls == UG_ATTN_FA2_BF16 || cls == UG_ATTN_FA2_MMA ? 0x1p-8 : 0;
    int r = online ? 2 : 1;
    double phi = (1 + rho) * (1 + gN) * (1 + b) - 1;
    double psi = (1 + rho) * (1 + gam(n - 1)) - 1 +
                 n * 0x1p-146 * (cls == UG_ATTN_UNSHIFTED ? exp(A) : 1);
    double F = pow(1 + U, r) * (1 + phi) / (1 - psi) - 1;
    double o = F * W + (n + R + 2 + steps) * 0x1p-149;
    if (b > 0) o = 0x1p-8 * s + (1 + 0x1p-8) * o + 0x1p-134; /* a bfloat16 O */
    /* 4. the lse */
    double Dm = online && cls != UG_ATTN_ONLINE ? Delta + U * (A + Delta) : Delta;
    double lambda = -log(1 - psi);
    double logn = cls == UG_ATTN_UNSHIFTED ? A + log(n) : log(n);
    double lse = (1 + U) * (Dm + lambda + CL * (logn + 2 * Delta + lambda) + 0x1p-148) + U * s;
    return (want_t){o * (1 + 0x1p-40), lse * (1 + 0x1p-40)};
}

/* 1e-9 relative: the two evaluations differ by the cancellation of exp(x) - 1 at x ~ 1e-5
 * (~1e-11 relative); the smallest term tested moves a bound by ~1e-3 */
static bool close_to(double got, double want) { return fabs(got - want) <= 1e-9 * want; }

UG_CASE(bounds, attention_terms)
{
    static const struct {
        ug_attn_class cls;
        const char *name;
    } classes[] = {{UG_ATTN_NAIVE, "naive"},           {UG_ATTN_NAIVE_BF16, "naive_bf16"},
                   {UG_ATTN_UNSHIFTED, "unshifted"},   {UG_ATTN_ONLINE, "online"},
                   {UG_ATTN_FA2_BF16, "fa2_bf16"},     {UG_ATTN_FA2_MMA, "fa2_mma"}};
    /* n, d, block, c, A, W, s: large scores; the absolute parts; many rescales, c > 1 */
    static const double shapes[][7] = {{300, 64, 64, 0.125, 6, 2, 1.5},
                                       {300, 64, 64, 0.125, 0, 1e-40, 1e-40},
                                       {1000, 96, 16, 3.0, 2, 0.5, 0.25}};
    for (size_t k = 0; k < sizeof classes / sizeof classes[0]; k++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            const double *p = shapes[i];
            ug_point(t, "%s n=%g d=%g block=%g c=%g A=%g", classes[k].name, p[0], p[1], p[2], p[3], p[4]);
            ug_attn_model m = {classes[k].cls, (size_t)p[0], (size_t)p[1], (size_t)p[2], 0, p[3], 0};
            want_t w = by_hand(classes[k].cls, p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
            double o = ug_attn_bound_O(&m, p[4], p[5], p[6]), lse = ug_attn_bound_lse(&m, p[4], p[6]);
            UG_EXPECT_MSG(close_to(o, w.o), "%s: O bound %.17g, by the comment's formula %.17g",
                          classes[k].name, o, w.o);
            UG_EXPECT_MSG(close_to(lse, w.lse), "%s: lse bound %.17g, by the comment's formula "
                          "%.17g", classes[k].name, lse, w.lse);
        }
    /* and where the model says nothing: a score sum past binary32's range, psi >= 1 */
    ug_point(t, "no bound where the model says nothing");
    ug_attn_model m = {UG_ATTN_ONLINE, 300, 64, 64, 0, 0.125, 0};
    UG_EXPECT(isinf(ug_attn_bound_O(&m, INFINITY, 1, 1)) && isinf(ug_attn_bound_lse(&m, 1e30, 1)));
}
