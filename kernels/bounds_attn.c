/*
 * bounds_attn.c - a-priori error bounds of the attention kernel classes (bounds_attn.h;
 * kernels/cpu/attention.h lists the kernels).
 *
 * Model (Higham ch. 2-3; kernels/bounds_rows.c's): u = 2^-24; +, -, *, / round to nearest
 * (relative u, or 2^-150 absolute in binary32's subnormal range); expf, exp2f and logf within
 * c_e = c_l = 8u relative (or 2^-147 absolute below 2^-126); a sum of m terms in any order has
 * relative error gamma_{m-1} on each term, a dot of d products gamma_d.  One row i, n keys,
 * exact scores s_k = c q.k, A = max_k c sum_t |q_t k_kt| (the reference's lse sum_abs), X_j =
 * sum_k p_k |V_kj| >= |O_j|, Z_j = sum_k |V_kj|, W_j = X_j + 2^-100 Z_j (the O sum_abs).
 *
 * 1. Scores.  fl(c fl(q.k)) = s + delta, |delta| <= gamma_{d+1} A + (d + 2) 2^-149 =: Delta
 *    (the dot's gamma_d sum |q k|, one more rounding for c; underflow per operation).  The
 *    FlashAttention-2 form keeps raw fl(q.k) (bfloat16 products exact) and applies c later:
 *    the same Delta in natural units (gamma_d <= gamma_{d+1}; its subnormal part times c).
 * 2. Exponent arguments.  Take M = the exact score of the key whose computed score the kernel
 *    takes as its (final) max; then l_M = sum_k e^(s_k - M) >= 1 and <= n e^(2 Delta), and the
 *    kernel's term k is e^(s_k - M) e^(a_k), |a_k| <= Delta_arg:
 *      naive:      fl(s^_k - m^): 2 Delta + u |s^_k - m^| <= 2 Delta + 2u (A + Delta)
 *      online:     the same, and the rescales exp(fl(m_old - m_new)) whose arguments' roundings
 *                  telescope: u (m_last - m_first) <= 2u (A + Delta) more
 *      fa2_bf16:   exp2f(fma(s, fl(c log2 e), -fl(m fl(c log2 e)))): c log2 e rounded (u |s - m|),
 *                  m's product (u |m|), the fma (u |arg|): <= 5.1u (A + Delta) beside 2 Delta;
 *                  its rescales exp2f(fl(fl(m_old - m_new) sl2)): 3.01u each, telescoping:
 *                  6.1u (A + Delta); in all 2 Delta + 12u (A + Delta)
 *      unshifted:  exp(s^_k): Delta, and nothing holds once e^s overflows (s >= 88.7): the
 *                  bound is that of a row with no overflow, the textbook failure is inf/inf.
 *    With each exp's c_e and each of R rescales' exp and product (R = ceil(n / block) - 1):
 *      rho_e = e^(Delta_arg) (1 + c_e)^(1 + R) (1 + u)^R - 1.
 * 3. The sums.  N^_j = sum_k e_k V_kj (1 + phi_k) and l^ = l_M (1 + psi), all terms of l
 *    positive, |phi_k| <= phi = (1 + rho_e)(1 + gamma_N)(1 + b) - 1 and |psi| <= psi^ =
 *    (1 + rho_e)(1 + gamma_{n-1}) - 1 + n 2^-146 (underflowed terms, against l >= 1):
 *      naive: gamma_N = gamma_n (the product P V and n - 1 additions), b = 0, r = 1 rounding of
 *             P = e / l per term; online: gamma_n, b = 0, r = 2 (fl(1/l) and the product);
 *      fa2_bf16: P to bfloat16 before P V, b = 2^-8, the product exact (8 x 8 bits),
 *             gamma_N = gamma_{n-1}, r = 2;  naive_bf16: the naive form's, b = 2^-8 (P = e / l
 *             rounded to binary32 then bfloat16: both in (1 + u)(1 + b); the bf16 x bf16
 *             product exact, counted in gamma_n anyway).
 *    Then with O^ = N^ / l^ (1 + u)^r and |O| <= X:
 *      |O^ - O| <= X [ (1 + u)^r (1 + phi) / (1 - psi^) - 1 ] + (n + R + 2) 2^-149,
 *    the last term the products' and rescales' subnormal losses over l^ >= 1/2; an underflowed
 *    exp's 2^-147 |V_kj| per key (bfloat16 P's 2^-134) is inside F 2^-100 Z_j since F >= u.
 *    A bfloat16 O adds its rounding: 2^-8 |O| + (1 + 2^-8) bound + 2^-134.
 * 4. lse^ = fl(m^' + fl(log l^)), m^' the kernel's max in natural units, |m^' - M| <= Delta_m
 *    (Delta; fa2: fl(m c), Delta + u (A + Delta)); lambda = -log(1 - psi^) bounds |log(1 + psi)|,
 *    log l^ lies in [-lambda, ln n + 2 Delta + lambda]:
 *      |lse^ - lse| <= (1 + u) [Delta_m + lambda + c_l (ln n + 2 Delta + lambda) + 2^-148] + u |lse|.
 * 5. Split-KV.  Each split (size n_s) is an online pass with bounds F_1 (its O, relative to its
 *    own X_s) and B_s (its lse, |lse_s| <= A + ln n + 1); FlashAttention-2's combine:
 *    a_s = fl(lse^_s - lmax) (error u |a_s| <= 2u (A + ln n + B_s + 1) =: ua), the sum of
 *    ns terms e^(a_s) sigma_c = e^(B_s + ua)(1 + c_e)(1 + gamma_{ns-1}) - 1 + ns 2^-146,
 *    lambda_c = -log(1 - sigma_c), L^ = fl(fl(log S^) + lmax):
 *      B_L = (1 + u)[B_s + lambda_c + c_l (ln ns + B_s + ua + lambda_c) + 2^-148] + u |lse|;
 *    the weights w_s = expf(fl(lse^_s - L^)) of exact e^(lse_s - lse): theta = e^(B_s + B_L +
 *    ua)(1 + c_e) - 1; O = sum_s w_s O_s: |O^ - O| <= X [(1 + F_1)(1 + theta)(1 + gamma_ns) - 1]
 *    (sum_s w_s X_s = X; |O^_s| <= (1 + F_1) X_s) + (n + R + 2 + ns) 2^-149.
 *    split_count cuts either per row (ceil(n / count) keys a split) or over the call's S
 *    (ceil(S / count), Flash-Decoding's: ug_attn_splitkv_cpu, attn_splitkv_count_cuda; a row of n < S
 *    keys then has fewer, larger splits): with m->S given the bound is the larger of the two
 *    geometries', so one class holds for both.
 * 6. Tensor cores (fa2_mma: attn_fa2_bf16_mma).  FA2_BF16's arithmetic, but S = Q K^T and P V
 *    are mma.sync.m16n8k16 bf16 with binary32 accumulators, whose additions are not IEEE
 *    round-to-nearest sum by sum (Hopper aligns a block's addends to the largest and truncates:
 *    docs/tensor-cores.md, oracle/tc/).  kernels/bounds.c's block_fma model: one MMA step s' =
 *    s + (block of products) is within c (|s| + sum |p_i|), the products of bf16 values exact,
 *    c = 2^-23 + 17 2^-22 (1 + 2^-23) (~35 2^-23; its envelope b = 16, t = 0, p = 24, not the
 *    detected GPU's tighter model: the class holds on every GPU), and a term through D such
 *    steps within (1 + c)^D - 1 =: G(D) of the sum of magnitudes (the induction of bounds.c),
 *    D = 4 per instruction (an instruction of 16 products is at least 4 blocks of 4, V100's:
 *    mma_bf16's depth).  Hence:
 *      scores: D_s = 4 ceil(d / 16) steps, raw fl(q.k) within G(D_s) sum |q k|: Delta =
 *              G(D_s) A + (d + D_s + 2) 2^-149 max(c, 1) (each product and step underflowing);
 *      P V:    the keys in order in k16 steps, one accumulator per output across the key
 *              blocks, rescaled by alpha between them (a rounding each, the (1 + u)^R of rho):
 *              D_pv = 4 ceil(n / 16) steps, gamma_N = G(D_pv) in place of gamma_{n-1}; a step
 *              whose products are all zero (keys past a row's n, masked: P = exp2(-inf) = 0) is
 *              exact in the model (the addend s is the largest and has p bits: nothing is cut,
 *              nothing rounds), so rows sharing a tile with longer rows count their own keys;
 *              D_pv 2^-149 more in the absolute part (a step's result underflowing);
 *      l:      ordinary binary32 additions (thread-local, then the quad's two): gamma_{n-1}.
 *    Everything else (the exponent arguments' 2 Delta + 12u (A + Delta), R, bf16 P, r = 2,
 *    bf16 O, Delta_m) is FA2_BF16's.  G(32) ~ 1.3e-4 for d = 128 against gamma_129 ~ 7.7e-6:
 *    the tensor cores' scores carry up to ~17 times the serial dot's worst-case error.
 * Every bound is a worst case: on normal data the measured errors sit ~1e-2 .. 1e-4 of it, and
 * Delta (gamma_{d+1} A, relative d u A on the weights) dominates once scores are large: the
 * exponential's condition number is the score itself (Blanchard, Higham, Mary 2021, sec. 3).
 * The slack factor (1 + 2^-40) covers the binary64 evaluation, as bounds.c does.
 */
#include <math.h>

#include "kernels/bounds_attn.h"
#include "kernels/kernel.h"

static const double u = 0x1p-24, ce = 0x1p-21, cl = 0x1p-21;

static double g(double k)
{
    double ku = k * u;
    return ku >= 1 ? INFINITY : ku / (1 - ku);
}

typedef struct {
    double F;     /* O's relative factor (times X, or W) */
    double abs_o; /* O's absolute part */
    double Bl;    /* lse's bound without u |lse| */
} attn_parts;

/* Steps 1-4 for one pass of n keys (block: rescales), class cls. */
static attn_parts one_pass(ug_attn_class cls, double n, double d, double block, double c,
                           double A)
{
    attn_parts p = {INFINITY, INFINITY, INFINITY};
    double Delta = g(d + 1) * A + (d + 2) * 0x1p-149 * (c > 1 ? c : 1);
    double R = 0, arg, gN = g(n), b = 0, Dm = Delta, tc_steps = 0;
    int r = 1;
    switch (cls) {
    case UG_ATTN_NAIVE: arg = 2 * Delta + 2 * u * (A + Delta); break;
    case UG_ATTN_NAIVE_BF16: /* P = bf16(fl(e / l)): one more relative 2^-8 on the terms */
        arg = 2 * Delta + 2 * u * (A + Delta);
        b = 0x1p-8;
        break;
    case UG_ATTN_UNSHIFTED: arg = Delta; break;
    case UG_ATTN_ONLINE:
        R = ceil(n / block) - 1;
        arg = 2 * Delta + 4 * u * (A + Delta);
        r = 2;
        break;
    case UG_ATTN_FA2_BF16:
        R = ceil(n / block) - 1;
        arg = 2 * Delta + 12 * u * (A + Delta);
        gN = g(n - 1);
        b = 0x1p-8;
        r = 2;
        Dm = Delta + u * (A + Delta);
        break;
    case UG_ATTN_FA2_MMA: { /* step 6: FA2_BF16 with the tensor cores' G(D) */
        double c_tc = ug_block_model_c(&(ug_block_model){UG_BF16, UG_F32, 16, 0, 24});
        double Ds = 4 * ceil(d / 16);
        tc_steps = 4 * ceil(n / 16);
        Delta = expm1(Ds * log1p(c_tc)) * A + (d + Ds + 2) * 0x1p-149 * (c > 1 ? c : 1);
        R = ceil(n / block) - 1;
        arg = 2 * Delta + 12 * u * (A + Delta);
        gN = expm1(tc_steps * log1p(c_tc));
        b = 0x1p-8;
        r = 2;
        Dm = Delta + u * (A + Delta);
        break;
    }
    default: return p;
    }
    double rho = exp(arg + (1 + R) * log1p(ce) + R * log1p(u)) - 1;
    double phi = (1 + rho) * (1 + gN) * (1 + b) - 1;
    /* the unshifted sum l = sum e^(s_k) >= e^-A: its underflow relative to that */
    double under = n * 0x1p-146 * (cls == UG_ATTN_UNSHIFTED ? exp(A) : 1);
    double psi = (1 + rho) * (1 + g(n - 1)) - 1 + under;
    if (!(psi < 1) || !isfinite(rho)) return p;
    p.F = pow(1 + u, r) * (1 + phi) / (1 - psi) - 1;
    p.abs_o = (n + R + 2 + tc_steps) * 0x1p-149;
    double lambda = -log1p(-psi);
    double logn = cls == UG_ATTN_UNSHIFTED ? A + log(n) : log(n); /* |log l| for l = sum e^s */
    p.Bl = (1 + u) * (Dm + lambda + cl * (logn + 2 * Delta + lambda) + 0x1p-148);
    return p;
}

/* The split kernels: keys a split and splits. */
static void split_sizes(const ug_attn_model *m, double *ns_keys, double *nsplits)
{
    double n = (double)m->n, s = (double)(m->split ? m->split : 1);
    if (m->cls == UG_ATTN_SPLIT_COUNT) {
        *ns_keys = ceil(n / s);
        *nsplits = ceil(n / *ns_keys);
    } else {
        *ns_keys = s < n ? s : n;
        *nsplits = ceil(n / *ns_keys);
    }
}

/* Step 5: the combine's lse bound B_L (without u |lse|), its weights' theta, F_1 and B_s. */
static attn_parts split_parts(const ug_attn_model *m, double A, double *theta, double *nsp)
{
    double nk, ns;
    split_sizes(m, &nk, &ns);
    attn_parts s1 = one_pass(UG_ATTN_ONLINE, nk, (double)m->d, 64, m->scale, A);
    double Bs = s1.Bl + u * (A + log((double)m->n) + 1);
    double ua = 2 * u * (A + log((double)m->n) + Bs + 1);
    double sigma = exp(Bs + ua) * (1 + ce) * (1 + g(ns - 1)) - 1 + ns * 0x1p-146;
    attn_parts p = s1;
    *nsp = ns;
    if (!(sigma < 1) || !isfinite(s1.F)) {
        p.F = p.Bl = INFINITY;
        return p;
    }
    double lc = -log1p(-sigma);
    p.Bl = (1 + u) * (Bs + lc + cl * (log(ns) + Bs + ua + lc) + 0x1p-148);
    *theta = exp(Bs + p.Bl + u * (A + log((double)m->n) + 1) + ua) * (1 + ce) - 1;
    p.F = (1 + s1.F) * (1 + *theta) * (1 + g(ns)) - 1;
    p.abs_o = s1.abs_o + ns * 0x1p-149;
    return p;
}

static attn_parts parts(const ug_attn_model *m, double A)
{
    double block = (double)(m->block ? m->block : 64), theta, ns;
    if (m->cls == UG_ATTN_SPLIT_COUNT && m->S && m->split) { /* step 5: either geometry */
        ug_attn_model over_S = *m;
        over_S.cls = UG_ATTN_SPLIT_SIZE;
        over_S.split = (m->S + m->split - 1) / m->split;
        attn_parts a = split_parts(m, A, &theta, &ns), b = split_parts(&over_S, A, &theta, &ns);
        a.F = a.F >= b.F ? a.F : b.F; /* NaN-free: +inf where the model says nothing */
        a.abs_o = a.abs_o >= b.abs_o ? a.abs_o : b.abs_o;
        a.Bl = a.Bl >= b.Bl ? a.Bl : b.Bl;
        return a;
    }
    if (m->cls == UG_ATTN_SPLIT_SIZE || m->cls == UG_ATTN_SPLIT_COUNT)
        return split_parts(m, A, &theta, &ns);
    return one_pass(m->cls, (double)(m->n ? m->n : 1), (double)m->d, block, m->scale, A);
}

double ug_attn_bound_O(const ug_attn_model *m, double A, double W, double s)
{
    if (!isfinite(A) || !isfinite(W)) return INFINITY;
    attn_parts p = parts(m, A);
    double b = p.F * W + p.abs_o;
    if (m->cls == UG_ATTN_FA2_BF16 || m->cls == UG_ATTN_NAIVE_BF16 || m->cls == UG_ATTN_FA2_MMA)
        b = 0x1p-8 * s + (1 + 0x1p-8) * b + 0x1p-134;
    return isfinite(b) ? b * (1 + 0x1p-40) : INFINITY;
}

double ug_attn_bound_lse(const ug_attn_model *m, double A, double s)
{
    if (!isfinite(A)) return INFINITY;
    attn_parts p = parts(m, A);
    double b = p.Bl + u * s;
    return isfinite(b) ? b * (1 + 0x1p-40) : INFINITY;
}
