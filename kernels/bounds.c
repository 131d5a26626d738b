/*
 * bounds.c - a-priori error bounds per kernel class (Higham, Accuracy and Stability of Numerical
 * Algorithms, 2nd ed., ch. 3-4).  u = 2^-24 (binary32 unit roundoff), gamma_k = k u / (1 - k u).
 *
 * A tree in which each term passes through at most D rounded additions satisfies
 * |s^ - s| <= gamma_D * sum|x_i| (Higham (4.4)-(4.6): recursive D = n-1, pairwise D = ceil(log2 n)).
 * A dot product adds one rounding per term (the product): gamma_{D+1} sum|x_i y_i| (Higham (3.5)).
 * FMA-contracted updates round product and sum together, so they satisfy the same bound.
 * The bound is evaluated in binary64 from S, an upper bound of sum|terms| (oracle), and rounded
 * up by a factor (1 + 2^-40) so that its own rounding never makes a correct kernel fail.
 */
#include <math.h>

#include "kernel.h"

static const double ug_u32 = 0x1p-24, ug_u64 = 0x1p-53;

static double ug_gamma(double k, double u)
{
    double ku = k * u;
    return ku >= 1 ? INFINITY : ku / (1 - ku);
}

size_t ug_depth_serial(size_t n) { return n ? n - 1 : 0; }

size_t ug_depth_log2(size_t n)
{
    size_t d = 0;
    while (((size_t)1 << d) < n) d++;
    return d;
}

size_t ug_kernel_depth(const ug_kernel *k, size_t n)
{
    /* built with reassociation allowed (-ffast-math), the compiler may evaluate the sum in any
     * order; every order of n terms has depth <= n - 1 */
    if (ug_kernel_props(k) & UG_VP_REASSOC) return ug_depth_serial(n);
    return k->depth ? k->depth(n) : ug_depth_serial(n);
}

double ug_kernel_bound(const ug_kernel *k, size_t n, double S, double s_abs)
{
    if (!isfinite(S)) return INFINITY;
    double D = (double)ug_kernel_depth(k, n), nn = (double)n, b = 0;
    bool dot = k->op != UG_OP_SUM;
    switch (k->bound) {
    case UG_BOUND_NONE: return 0;
    case UG_BOUND_TREE:
        b = ug_gamma(dot ? D + 1 : D, ug_u32) * S;
        break;
    case UG_BOUND_KAHAN:
        /* Higham (4.8): (2u + O(n u^2)) S; the O(n u^2) term taken as 4 n u^2 (Goldberg's
         * Theorem 8 proof gives a smaller constant).  Dot: the products are rounded before the
         * compensated sum sees them, one more u. */
        b = ((dot ? 3 : 2) * ug_u32 + 4 * nn * ug_u32 * ug_u32) * S;
        break;
    case UG_BOUND_NEUMAIER: {
        /* Ogita-Rump-Oishi (SISC 2005) Prop. 4.5 for Sum2 (= Neumaier's algorithm):
         * u|s| + gamma_{n-1}^2 S.  Dot: the rounded products add u S. */
        double g = ug_gamma(nn > 1 ? nn - 1 : 0, ug_u32);
        b = ug_u32 * s_abs + (dot ? ug_u32 + g * g : g * g) * S;
        break;
    }
    case UG_BOUND_WIDE_ACC:
        /* binary64 tree of depth D (gamma64), then one rounding to binary32: u |s^64|, and
         * |s^64| <= |s| + gamma64_D S. */
        b = ug_u32 * s_abs + (1 + ug_u32) * ug_gamma(dot ? D + 1 : D, ug_u64) * S;
        break;
    case UG_BOUND_TF32: {
        /* operands rounded to TF32 (10 fraction bits, nearest or truncated: rel. error <= 2^-10
         * each), their product exact in binary32; binary32 accumulation of depth D allowed to
         * truncate (error < 1 ulp = 2u per addition, since tensor-core adders are not documented
         * to round to nearest). */
        double p = 0x1p-9 + 0x1p-20;
        b = (p + ug_gamma(D, 2 * ug_u32) * (1 + p)) * S;
        break;
    }
    }
    return b * (1 + 0x1p-40);
}

/* Higham & Mary, "A new approach to probabilistic rounding error analysis", SIAM J. Sci.
 * Comput. 41(5), 2019, Thm 3.1 and its corollaries for sums and dot products: with rounding
 * errors modelled as independent random variables of mean zero, a sum or dot of n terms through
 * depth D satisfies |error| <= gamma~_D(lambda) S with probability at least
 * 1 - 2n exp(-lambda^2 (1-u)^2 / 2), where gamma~_D(lambda) = exp(lambda sqrt(D) u + D u^2/(1-u)) - 1.
 * Only rounding to nearest is modelled (TF32's accumulation may truncate: no probabilistic
 * bound there), and only the classes whose worst case can be vacuous need it (tree; wide_acc
 * for completeness). */
static double ug_gamma_prob(double D, double u, double lambda)
{
    return expm1(lambda * sqrt(D) * u + D * u * u / (1 - u));
}

double ug_kernel_bound_prob(const ug_kernel *k, size_t n, double S, double s_abs, double lambda)
{
    if (!isfinite(S) || !(lambda > 0)) return INFINITY;
    double D = (double)ug_kernel_depth(k, n);
    bool dot = k->op != UG_OP_SUM;
    double b;
    switch (k->bound) {
    case UG_BOUND_TREE:
        b = ug_gamma_prob(dot ? D + 1 : D, ug_u32, lambda) * S;
        break;
    case UG_BOUND_WIDE_ACC:
        b = ug_u32 * s_abs + (1 + ug_u32) * ug_gamma_prob(dot ? D + 1 : D, ug_u64, lambda) * S;
        break;
    default:
        return ug_kernel_bound(k, n, S, s_abs);
    }
    return b * (1 + 0x1p-40);
}

double ug_prob_failure(size_t n, double lambda)
{
    double p = 2.0 * (double)n * exp(-lambda * lambda * (1 - ug_u32) * (1 - ug_u32) / 2);
    return p < 1 ? p : 1;
}

const char *ug_bound_class_name(ug_bound_class b)
{
    switch (b) {
    case UG_BOUND_NONE: return "none";
    case UG_BOUND_TREE: return "tree";
    case UG_BOUND_KAHAN: return "kahan";
    case UG_BOUND_NEUMAIER: return "neumaier";
    case UG_BOUND_WIDE_ACC: return "wide_acc";
    case UG_BOUND_TF32: return "tf32";
    }
    return "?";
}

const char *ug_op_name(ug_op op)
{
    return op == UG_OP_SUM ? "sum" : op == UG_OP_DOT ? "dot" : "gemm";
}

const char *ug_fmt_name(ug_fmt f) { return f == UG_F32 ? "f32" : f == UG_F64 ? "f64" : "tf32"; }

const char *ug_backend_name(ug_backend b) { return b == UG_CUDA ? "cuda" : "cpu"; }
