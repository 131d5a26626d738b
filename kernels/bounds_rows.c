/*
 * bounds_rows.c - a-priori error bounds of the row operations' classes: softmax,
 * log-sum-exp, RMSNorm, LayerNorm.  Called by kernels/bounds.c's ug_bound_terms for the classes
 * from UG_BOUND_SOFTMAX_NAIVE on, with n (the row's length), S (the oracle's per-output
 * quantity, oracle/rows/transcend.h) and s = |exact output|.
 *
 * Model (Higham ch. 2-3, u = 2^-24): +, -, *, / and sqrt round to nearest, relative error <= u,
 * plus <= 2^-150 absolute where a result lands in binary32's subnormal range; any order of the
 * additions of a row (serial, pairwise, a warp's tree) has depth <= n - 1, so every class below
 * uses gamma_{n-1}, valid for every summation order.  The library functions are not correctly
 * rounded: exp and log are taken with relative error <= c_e = c_l = 8u (4 ulps: glibc's expf and
 * logf are within 1 ulp, libmvec's vector forms within 4, CUDA's expf 2 and logf 1 (CUDA C
 * Programming Guide, "Mathematical functions")) or 2^-147 absolute below 2^-126.  CUDA's
 * --use_fast_math __expf is outside this model: the CUDA families of these classes are built
 * in the default variant only.
 *
 * Softmax and log-sum-exp follow Blanchard, Higham and Mary, "Accurate computation of the
 * log-sum-exp and softmax functions", IMA J. Numer. Anal. 41 (2021): the shifted algorithm's
 * terms e^(x_j - max) carry the subtraction's error amplified by |x_j - max| (their section 3),
 * and the unshifted one overflows for x >= 88.7 (their section 2); the constants here are this
 * file's own derivation in that model, written out at each function.
 * The slack factor (1 + 2^-40) covers the binary64 evaluation of each bound, as bounds.c does.
 */
#include <math.h>
#include <stdbool.h>

#include "kernels/kernel.h"

static const double ug_u = 0x1p-24, ug_ce = 0x1p-21, ug_cl = 0x1p-21;

static double ug_g(double k)
{
    double ku = k * ug_u;
    return ku >= 1 ? INFINITY : ku / (1 - ku);
}

/* Relative error bound sigma of the computed sum of a shifted softmax row, Sigma^ =
 * Sigma (1 + theta), |theta| <= sigma, Sigma = sum_j e^(x_j - m) >= 1 (the max's term is
 * e^0 = 1 exactly).  Term j: d_j = fl(x_j - m) = (x_j - m)(1 + delta), so
 * fl(exp(d_j)) = e_j e^((x_j - m) delta)(1 + eps), e_j = e^(x_j - m), and after the additions
 * (depth <= n - 1) term j contributes e_j (1 + eps)(1 + theta_j) e^(|x_j - m| u) with
 * |theta_j| <= gamma_{n-1}.  Its error is at most
 *   e_j [(1 + c_e)(1 + gamma) - 1] + (1 + c_e)(1 + gamma) e_j (e^(|d| u) - 1),
 * and e_j (e^(|d| u) - 1) <= u |d| e^-|d| e^(|d| u) <= u e^(104 u) / e for |d| <= 104
 * (|d| e^-|d| <= 1/e): the amplified subtraction error is large only for terms too small to
 * matter.  For |d| > 104 both e_j and the computed term are below 2^-149 (error <= 2^-147,
 * subnormal exp error included).  The online form (rescales = n - 1) multiplies the running sum
 * by fl(exp(fl(m_old - m_new))) at each new max: per rescale one more exp (1 + c_e) and one
 * multiplication (1 + u); the arguments' errors telescope to u (m - x_j) for term j, the same
 * e^(|d| u) as above; a rescale by more than e^-104 loses at most n 2^-147 absolute.  So
 *   sigma = (1 + c_e)^(1+R) (1 + u)^R (1 + gamma_{n-1}) (1 + (n-1) u e^(104u)/e) - 1 + A,
 * A = n 2^-146 (R = 0) or n^2 2^-146 (online), all relative to Sigma >= 1. */
static double ug_softmax_sigma(double n, double R)
{
    double P = exp((1 + R) * log1p(ug_ce) + R * log1p(ug_u)) * (1 + ug_g(n - 1));
    double A = (R > 0 ? n * n : n) * 0x1p-146;
    return P * (1 + (n - 1) * ug_u * exp(104 * ug_u) / M_E) - 1 + A;
}

/* Output y_i = fl(fl(exp(fl(x_i - m))) / Sigma^) of a shifted row: the numerator is
 * e_i (1 + eps) e^(|d_i| u) (+ <= 2^-147), with |d_i| = -ln(e_i) <= -ln(y_i) since
 * e_i = y_i Sigma >= y_i, so e_i e^(|d_i| u) <= e_i y_i^-u; the division rounds once more and
 * Sigma^ is within (1 +- sigma):
 *   y^ <= y^(1-u) (1 + c_e)(1 + u) / (1 - sigma) + 2^-147 (1 + u)/(1 - sigma) + 2^-150
 *   y^ >= y^(1+u) (1 - c_e)(1 - u) / (1 + sigma) - 2^-150,
 * and the bound is the larger deviation. */
static double ug_softmax_out(double n, double y, double sigma)
{
    if (!(sigma < 1)) return INFINITY;
    double yu = pow(y, 1 - ug_u), yl = pow(y, 1 + ug_u);
    double up = yu * (1 + ug_ce) * (1 + ug_u) / (1 - sigma) - y + 0x1p-147 * (1 + ug_u) / (1 - sigma);
    double lo = y - yl * (1 - ug_ce) * (1 - ug_u) / (1 + sigma);
    (void)n;
    return fmax(up, lo) + 0x1p-150;
}

/* Unshifted (naive) softmax: e_j = fl(exp(x_j)), no subtraction, so
 * Sigma^ = Sigma (1 + theta), |theta| <= (1 + c_e)(1 + gamma_{n-1}) - 1 + n 2^-146 / Sigma,
 * Sigma = sum e^(x_j) = S (the oracle's), and y^ as above without the e^(|d| u) factor.  It
 * holds while nothing overflows: from x = 88.7 on exp(x) is +inf in binary32 and the kernel's
 * inf/inf or x/inf is an infinite error against this finite bound (the expected failure of
 * Blanchard-Higham-Mary section 2).  Sigma below binary64's range (S = 0): no bound. */
static double ug_softmax_naive(double n, double S, double y)
{
    if (!(S > 0)) return INFINITY;
    double sigma = (1 + ug_ce) * (1 + ug_g(n - 1)) - 1 + n * 0x1p-146 / S;
    if (!(sigma < 1)) return INFINITY;
    double up = y * ((1 + ug_ce) * (1 + ug_u) / (1 - sigma) - 1) + 0x1p-147 * (1 + ug_u) / ((1 - sigma) * S);
    double lo = y * (1 - (1 - ug_ce) * (1 - ug_u) / (1 + sigma));
    return fmax(up, lo) + 0x1p-150;
}

/* Log-sum-exp.  Naive: y^ = fl(log(Sigma^)), Sigma^ = Sigma (1 + theta) as in the naive
 * softmax: |log Sigma^ - y| <= lambda = -log(1 - sigma) (|log(1 + t)| <= -log(1 - |t|)), and
 * log's own error c_l |log Sigma^| (+ 2^-148 below 2^-126):
 *   |y^ - y| <= c_l (|y| + lambda) + lambda + 2^-148
 * (Blanchard-Higham-Mary's unshifted bound in this model: absolute, so the relative error is
 * large where y is near 0).  Shifted: y^ = fl(m + fl(log(Sigma_s^))), Sigma_s in [1, n], its
 * log l in [0, ln n], sigma the shifted row's (ug_softmax_sigma, R = 0):
 *   |y^ - y| <= u |y| + (1 + u) [c_l (ln n + lambda) + lambda + 2^-148].
 * Online (one pass, the sum rescaled at each new max as the online softmax's; its final max m
 * is the row's, exact, and its sum Sigma_s in [1, n]): the same with the online sum's sigma
 * (ug_softmax_sigma, R = n - 1 rescales). */
static double ug_lse_naive(double n, double S, double y)
{
    if (!(S > 0)) return INFINITY;
    double sigma = (1 + ug_ce) * (1 + ug_g(n - 1)) - 1 + n * 0x1p-146 / S;
    if (!(sigma < 1)) return INFINITY;
    double lambda = -log1p(-sigma);
    return ug_cl * (y + lambda) + lambda + 0x1p-148;
}

static double ug_lse_shifted(double n, double y, double sigma)
{
    if (!(sigma < 1)) return INFINITY;
    double lambda = -log1p(-sigma);
    return ug_u * y + (1 + ug_u) * (ug_cl * (log(n) + lambda) + lambda + 0x1p-148);
}

/* RMSNorm, y_i = fl(fl(x_i r^) w_i), r^ = fl(1 / fl(sqrt(v^))), v^ = fl(fl(q^ / n) + eps),
 * q^ = sum fl(x_j^2) (any order).  Every term of v is >= 0, so v^ = v (1 + theta_v) with
 * |theta_v| <= tau = gamma_{n+2} (square, n - 1 additions, division, + eps) + 2^-131 (the
 * subnormal losses, <= 2^-148 absolute, against v >= eps = 1e-5 > 2^-17).  Then
 * r^ = v^(-1/2) (1 + d1)^-1 (1 + d2) and two multiplications:
 *   y^ / y in [(1 + tau)^(-1/2) (1 - u)^3 / (1 + u), (1 - tau)^(-1/2) (1 + u)^3 / (1 - u)],
 *   |y^ - y| <= max(upper - 1, 1 - lower) |y| + 2^-148 (two products' subnormal losses, w <= 2).
 * |y| = S here. */
static double ug_rmsnorm(double n, double S)
{
    double tau = ug_g(n + 2) + 0x1p-131;
    if (!(tau < 1)) return INFINITY;
    double up = pow(1 - tau, -0.5) * pow(1 + ug_u, 3) / (1 - ug_u) - 1;
    double lo = 1 - pow(1 + tau, -0.5) * pow(1 - ug_u, 3) / (1 + ug_u);
    return fmax(up, lo) * S + 0x1p-148;
}

/* LayerNorm, y_i = z w_i + b_i, z = (x_i - mu)/sigma_eps.  S = K_i = (|x_i - mu| + a + 2^-100)
 * / sigma_eps, a = mean |x|, sigma_eps = sqrt(var + eps), the weights |w_i| <= W = 2 (the
 * oracle gives S = +inf for a larger weight: no bound); s = |y_i|, the exact output with its
 * bias (the oracle adds b_i before its one rounding).
 * The bias (ops/layernorm.c: the last operation of every kernel, y^ = fl(t^ + b_i), t^ the
 * computed z w_i, t = z w_i exact, b_i a binary32 (or bfloat16, widened exactly) input):
 *   y^ = (t^ + b_i)(1 + d), |d| <= u, so
 *   y^ - y = (t^ - t)(1 + d) + d (t + b_i) = (t^ - t)(1 + d) + d y,
 *   |y^ - y| <= u |y| + (1 + u)|t^ - t|:
 * two extra terms against the weight-only form: u |y| (the addition's own rounding, relative
 * to the exact output with its bias, so a bias that cancels t costs nothing here) and the
 * factor (1 + u) on the error carried from t^.  No absolute term: a sum of two binary32 values
 * whose result is subnormal is exact.  nvcc may fuse fl(fl(c w_i) + b_i) into fma(c, w_i, b_i):
 * the product's rounding is then 0, one of the values |d| <= u the psi below admits, and the
 * fused result rounds once (its underflow: <= 2^-150 absolute, the 2^-150 added at the end).
 * The bias does not enter K: b_i is added exactly as given, its only error the rounding above.
 * Common steps, t = z w_i:
 *   mu^ = fl(fl(sum x)/n) = mu + Delta, |Delta| <= u|mu| + (1 + u) gamma_{n-1} A/n + 2^-150
 *        <= zeta (a + 2^-100), zeta = u + (1 + u) gamma_{n-1} + 2^-50;
 *   the normalised output, from v^ = sigma_eps^2 (1 + theta_v) (+ Delta^2 in the two-pass form)
 *   and psi = the four roundings of fl(x_i - mu^), fl(1/fl(sqrt)), two products, in
 *   [(1-u)^4/(1+u), (1+u)^4/(1-u)]:
 *     t^ - t = w_i [z (kappa psi - 1) - (Delta/sigma_eps) kappa psi], kappa = sigma_eps/sqrt(v^);
 *   and y^ = fl(t^ + b_i) (above): |y^ - y| <= u|y| + (1 + u)|t^ - t| + 2^-150.
 * Two-pass: q^ = sum fl(fl(x_j - mu^)^2) = n (var + Delta^2)(1 + theta), |theta| <= gamma_{n+2}
 * (the cross term sum (x_j - mu) is 0), so v^ in [sigma_eps^2 (1 - tau),
 * sigma_eps^2 (1 + tau) + Delta^2 (1 + tau)], tau = gamma_{n+4} + 2^-131.  The Delta^2 part
 * shrinks kappa by at most 1 - (1 + b)^(-1/2) <= sqrt(b), b = (1 + tau) Delta^2 / sigma_eps^2,
 * and |z| <= sqrt(n) (one deviation cannot exceed sqrt(n) standard deviations), so
 *   |t^ - t| <= W K [g + (sqrt(n (1 + tau)) + (1 - tau)^(-1/2) psi_max) zeta],
 *   g = max((1 - tau)^(-1/2) psi_max - 1, 1 - (1 + tau)^(-1/2) psi_min). */
static double ug_ln_common_z(double n, double K, double y, double tau, double extra, double zeta,
                             bool delta2)
{
    if (!(tau < 1) || !isfinite(K)) return INFINITY;
    double pmax = pow(1 + ug_u, 4) / (1 - ug_u), pmin = pow(1 - ug_u, 4) / (1 + ug_u);
    double g = fmax(pow(1 - tau, -0.5) * pmax - 1, 1 - pow(1 + tau, -0.5) * pmin);
    double dn = delta2 ? sqrt(n * (1 + tau)) : 0;
    double et = 2.0 * K * (g + (dn + pow(1 - tau, -0.5) * pmax) * zeta + extra);
    return ug_u * y + (1 + ug_u) * et + 0x1p-150;
}

static double ug_ln_common(double n, double K, double y, double tau, double extra)
{
    double zeta = ug_u + (1 + ug_u) * ug_g(n - 1) + 0x1p-50;
    return ug_ln_common_z(n, K, y, tau, extra, zeta, true);
}

static double ug_ln_twopass(double n, double K, double y)
{
    return ug_ln_common(n, K, y, ug_g(n + 4) + 0x1p-131, 0);
}

/* One-pass: m2^ = fl(fl(sum x^2)/n) = E2 (1 + theta2) (+ 2^-148), |theta2| <= gamma_{n+1},
 * E2 = var + mu^2; p^ = fl(mu^ mu^); var^ = fl(m2^ - p^) (clamped at 0, which only moves it
 * towards var >= 0); v^ = fl(var^ + eps).  With |mu| <= a <= K sigma_eps and
 * |Delta| <= zeta K sigma_eps:
 *   |var^ - var| <= u var + (1 + u)[gamma_{n+1}(var + mu^2) + 2|mu||Delta| + Delta^2
 *                   + u (|mu| + |Delta|)^2 + 2^-147],
 *   tau = u + (1 + u)|var^ - var| / sigma_eps^2
 *       <= u + (1 + u)[u + (1 + u)(gamma_{n+1}(1 + K^2) + 2 zeta K^2 + zeta^2 K^2
 *                                   + u K^2 (1 + zeta)^2 + 2^-130)],
 * which grows with K^2 >= (mu/sigma_eps)^2: the catastrophic cancellation of E[x^2] - E[x]^2.
 * From tau >= 1 on (mean/std ~ 1/sqrt(n u): ~1e2 .. 1e4 for n = 1e4 .. 1) the computed
 * variance may be 0 or of any size: no bound (+inf), and the point fails for want of an
 * effective check (the expected failure).  No Delta^2 term in v^ (the mean's error enters
 * through p^), so the sqrt(n) term goes. */
static double ug_ln_onepass(double n, double K, double y)
{
    double z = ug_u + (1 + ug_u) * ug_g(n - 1) + 0x1p-50, K2 = K * K;
    double tau = ug_u + (1 + ug_u) * (ug_u + (1 + ug_u) * (ug_g(n + 1) * (1 + K2) + 2 * z * K2 +
                                                            z * z * K2 + ug_u * K2 * (1 + z) * (1 + z) +
                                                            0x1p-130));
    return ug_ln_common(n, K, y, tau, 0);
}

/* Welford (Welford 1962, "Note on a method for calculating corrected sums of squares and
 * products"; the "updating" algorithm of Chan, Golub and LeVeque 1983, "Algorithms for
 * computing the sample variance: analysis and recommendations", whose first-order analysis
 * gives a relative error ~ n kappa u, kappa = sqrt(1 + mu^2/var), against n kappa^2 u for the
 * one-pass textbook form).  The kernel, in index order j = 1..n:
 *   t_j = fl(x_j - m_{j-1}); m_j = fl(m_{j-1} + fl(t_j / j)); M2 += fl(t_j fl(x_j - m_j)),
 * m_0 = M2_0 = 0, then var^ = fl(M2^ / n), v^ = fl(var^ + eps).  A rigorous bound in this
 * file's model, in terms of a = mean |x| and sigma_eps (S = K >= (a + 2^-100)/sigma_eps):
 *
 * The mean.  M_j = exact mean of x_1..x_j, e_j = m_j - M_j.  Step 1 is exact (x_1 - 0, / 1,
 * 0 + x_1), so e_1 = 0 and the first increment is exactly 0.  Since m_{j-1} + t/j =
 * (1 - 1/j) m_{j-1} + x_j/j, e_j = (1 - 1/j) e_{j-1} + rho_j, with
 *   |rho_j| <= c |t_j| / j + u |p_j| + 3 2^-150,  c = 2u + u^2,  p_j the sum before rounding,
 * and unrolled e_j = sum_{i<=j} rho_i (i/j): the update never amplifies an earlier error, so
 * E = max_j |e_j| <= sum_i |rho_i|.  With |t_i| <= |x_i| + |M_{i-1}| + E,
 * |p_i| <= |M_i| + E + c|t_i|, sum |x_i| = n a and sum_i |M_i| <= sum_k |x_k| sum_{i>=k} 1/i
 * <= H_n n a (H_n = sum 1/i <= 1 + ln n):
 *   E (1 - n (c (1 + u) + u)) <= n a [c (1 + u)(1 + H_n) + u H_n] + 3 n 2^-150,
 *   so E <= zeta_W (a + 2^-100), zeta_W = n [c (1+u)(1+H_n) + u H_n + 3 2^-50] / (1 - n (c(1+u) + u))
 * (0 for n = 1).  Loose by the factor n against Chan-Golub-LeVeque's first-order figure (the
 * prefix means are bounded through the whole row's a, not their own), but a-priori.
 *
 * M2.  D_j = x_j - M_{j-1}, D'_j = x_j - M_j = D_j (j-1)/j, so the exact increments
 * D_j D'_j >= 0 sum to n var.  The computed one is (D_j - e_{j-1})(D'_j - e_j)(1+d)^2 (the
 * subtractions) times (1+d) (the product; + 2^-150 if subnormal):
 *   |g_j - D_j D'_j| <= gamma_3 D_j D'_j + (1 + u)^3 (2 |D_j| E + E^2) + 2^-150,
 * and the n - 1 additions (depth <= n - 1): M2^ = sum g_j (1 + theta_j), |theta_j| <= gamma_{n-1}.
 * sum_{j>=2} |D_j| <= sqrt(n sum D_j^2), sum D_j^2 = sum j/(j-1) D_j D'_j <= 2 n var, so
 * sum |D_j| <= n sqrt(2) sigma_eps, and
 *   |M2^/n - var| <= gamma_{n+2} var + (1 + gamma_{n+2})(2 sqrt(2) E sigma_eps + E^2) + 2 2^-150.
 * The division by n and + eps round twice more (and 2^-150 each, over sigma_eps^2 >= 1e-5:
 * all the absolute terms together < 2^-130 relative):
 *   tau = u + (1 + u)[u + (1 + u)(gamma_{n+2} + (1 + gamma_{n+2})(2 sqrt(2) eps + eps^2))
 *         + 2^-130],   eps = zeta_W K >= E / sigma_eps.
 * The output then is the common tail (ug_ln_common_z) with the mean's error zeta_W K and no
 * Delta^2 term (the mean's error is inside tau already).  tau grows with K, linearly where
 * the one-pass form's grows with K^2: the bound is vacuous (tau >= 1, +inf) once
 * n H_n u mean/std is near 1/10 (mean/std = 1e4: from n ~ 100 on). */
static double ug_ln_welford(double n, double K, double y)
{
    double c = 2 * ug_u + ug_u * ug_u, H = 1 + log(n), zw = 0;
    if (n > 1) {
        double den = 1 - n * (c * (1 + ug_u) + ug_u);
        if (!(den > 0)) return INFINITY;
        zw = n * (c * (1 + ug_u) * (1 + H) + ug_u * H + 3 * 0x1p-50) / den;
    }
    double e = zw * K, g = ug_g(n + 2);
    double tau = ug_u + (1 + ug_u) * (ug_u + (1 + ug_u) * (g + (1 + g) * (2 * M_SQRT2 * e + e * e)) +
                                      0x1p-130);
    return ug_ln_common_z(n, K, y, tau, 0, zw, false);
}

double ug_bound_rows(const ug_kernel *k, size_t n, double S, double s_abs);
double ug_bound_rows(const ug_kernel *k, size_t n, double S, double s_abs)
{
    double nn = (double)(n ? n : 1), b;
    switch (k->bound) {
    case UG_BOUND_SOFTMAX_NAIVE: b = ug_softmax_naive(nn, S, s_abs); break;
    case UG_BOUND_SOFTMAX_SHIFTED: b = ug_softmax_out(nn, s_abs, ug_softmax_sigma(nn, 0)); break;
    case UG_BOUND_SOFTMAX_ONLINE: b = ug_softmax_out(nn, s_abs, ug_softmax_sigma(nn, nn - 1)); break;
    case UG_BOUND_LSE_NAIVE: b = ug_lse_naive(nn, S, s_abs); break;
    case UG_BOUND_LSE_SHIFTED: b = ug_lse_shifted(nn, s_abs, ug_softmax_sigma(nn, 0)); break;
    case UG_BOUND_LSE_ONLINE: b = ug_lse_shifted(nn, s_abs, ug_softmax_sigma(nn, nn - 1)); break;
    case UG_BOUND_RMSNORM: b = ug_rmsnorm(nn, S); break;
    case UG_BOUND_LAYERNORM_TWOPASS: b = ug_ln_twopass(nn, S, s_abs); break;
    case UG_BOUND_LAYERNORM_ONEPASS: b = ug_ln_onepass(nn, S, s_abs); break;
    case UG_BOUND_LAYERNORM_WELFORD: b = ug_ln_welford(nn, S, s_abs); break;
    default: return INFINITY;
    }
    /* a bfloat16 output: the binary32 result rounded once more (bounds.c's derivation) */
    if (k->out_fmt == UG_BF16) b = 0x1p-8 * s_abs + (1 + 0x1p-8) * b + 0x1p-134;
    /* a binary16 output: the same with u = 2^-11 and half its least subnormal, 2^-25.  No
     * overflow: a softmax output is <= 1, and a binary16 log-sum-exp of binary16 logits is
     * at most 65504 + ln n < 65520 for the n its kernel accepts (kernels/cuda/softmax.cu:
     * max_n = 2^22); an exact value that rounds to inf is out of range (measure_fmt.c) */
    if (k->out_fmt == UG_F16) b = 0x1p-11 * s_abs + (1 + 0x1p-11) * b + 0x1p-25;
    return b * (1 + 0x1p-40);
}
