/*
 * check_out.c - a check's figures (harness/check/check.h): the error of every output, the tree
 * bound, the tolerance for torch.testing.assert_close, and the table or JSON that shows them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "harness/check/check.h"

/* The smallest subnormal of f: the absolute error one underflowing product may add. */
static double check_qmin(ug_fmt f)
{
    const ug_format *F = ug_format_of(f);
    return ldexp(1.0, F->emin - F->p + 1);
}

/* The tree bound of one output (Higham (3.5), (4.4)-(4.6)), u = u_F = 2^-p of GOT's format:
 *   |got - s| <= gamma_K(u) S + [products] eta,  eta = n (qmin_F / 2) (1 + gamma_K(u)),
 * K = D for a sum, D + 1 for products (each product rounds once), S = sum |terms| (the oracle's
 * upper bound e->sum_abs).  eta is the underflow of every one of the n products behind the
 * output (fl(ab) = ab(1 + d) + e, |e| <= qmin/2, each then carried through at most D
 * additions: (1 + gamma_D) <= (1 + gamma_K)); additions of subnormals are exact, so sums of
 * values need none.  A kernel that accumulates in a wider format and rounds once to F meets it
 * too: u_F |s| + (1 + u_F) gamma_D(u_wide) S <= gamma_K(u_F) S for D >= 1.
 * An operation with a bound of its own (nrm2: the sum of squares' bound through the root,
 * ops/norm.c) gets its squares' underflow here, through the root the same way: the root's
 * error with the squares' error B + eta is at most min(sqrt(B + eta), (B + eta)/|s|) <=
 * min(sqrt B, B/|s|) + max(sqrt eta, eta/|s|), times (1 + u) for the root's own rounding.
 * +inf where the bound is vacuous (K u >= 1) or S is not finite. */
static size_t check_depth_value; /* the depth of check's stand-in kernel (one check a process) */
static size_t check_depth(size_t n) { (void)n; return check_depth_value; }

/* A class's bound of one output: the bound of a kernel of that class (ops/op.h's
 * ug_kernel_bound: kernels/bounds.c, or the descriptor's own) with the class's formats, GOT's
 * format as its output and the depth given, plus its underflow term from the largest operand,
 * as `run` grades a kernel row declaring it (harness/run/measure.c). */
static double check_class_bound_S(const ug_check_result *r, double S, double s_abs)
{
    ug_kernel k = {.name = "check", .op = r->op->shape->id, .bound = r->bound_class,
                   .op_fmt = r->op_fmt, .acc_fmt = r->acc_fmt, .out_fmt = r->out_fmt,
                   .depth = check_depth};
    for (int i = 0; i < r->inputs && i < UG_MAX_INPUTS; i++) k.in_store[i] = r->in_fmt[i];
    check_depth_value = r->depth;
    double b = ug_kernel_bound(&k, r->n, S, s_abs);
    if (isfinite(b)) b += ug_kernel_bound_underflow(&k, r->n, r->operand_max);
    return b;
}

static double check_class_bound(const ug_check_result *r, const ug_exact *e)
{
    return check_class_bound_S(r, e->sum_abs, fabs(e->hi));
}

double ug_check_bound(const ug_check_result *r, const ug_exact *e)
{
    if (r->bound_class > UG_BOUND_TREE) return check_class_bound(r, e);
    if (!isfinite(r->gamma)) return INFINITY;
    double eta = r->op->terms_kind == UG_TERMS_PRODUCTS
                     ? (double)r->n * check_qmin(r->out_fmt) / 2 * (1 + r->gamma)
                     : 0;
    if (r->op->bound) { /* the operation's own (nrm2: through the root), a tree of depth D */
        const ug_kernel k = {.name = "check", .op = r->op->shape->id, .bound = UG_BOUND_TREE,
                             .depth = check_depth};
        check_depth_value = r->depth;
        double b = ug_kernel_bound(&k, r->n, e->sum_abs, fabs(e->hi)), s = fabs(e->hi);
        if (!isfinite(b) || eta == 0) return b;
        double root = sqrt(eta), lin = s > 0 ? eta / s : 0;
        double u = ldexp(1.0, -ug_format_of(r->out_fmt)->p);
        return b + (root > lin ? root : lin) * (1 + u) * (1 + 0x1p-40);
    }
    return r->gamma * e->sum_abs + eta;
}

void ug_check_add(ug_check_result *r, size_t i, const ug_exact *e, double got)
{
    ug_check_add_bound(r, i, e, got, e->cls == UG_X_FINITE ? ug_check_bound(r, e) : NAN);
}

void ug_check_add_bound(ug_check_result *r, size_t i, const ug_exact *e, double got, double b)
{
    ug_error er = ug_error_fmt(e, r->out_fmt, got);
    double ratio;
    if (e->cls != UG_X_FINITE) {
        r->specials++;
        ratio = er.abs == 0 ? 0 : INFINITY;
        b = NAN;
    } else if (!isfinite(b)) {
        r->vacuous++; /* nothing to compare with: no ratio at all, never a ratio of 0 */
        ratio = NAN;
    } else if (r->bound_class > UG_BOUND_TREE) {
        ratio = er.abs == 0 ? 0 : b > 0 ? er.abs / b : INFINITY;
        /* the tolerance's split (check_class_tolerance): rho_i the bound's relative part, its
         * value without cancellation (S = |s|) over |s| for a sum of terms (a row class's S is
         * no sum of magnitudes: its whole bound over |s|); the rest, b - rho_i |s|, absolute */
        double s = fabs(e->hi) * (1 - 0x1p-52), rho = 0, rest = b;
        if (s > 0) {
            double b0 = r->op->exact_is_sum ? check_class_bound_S(r, s, s) : b;
            rho = b0 / s * (1 + 0x1p-50);
            rest = b - rho * s;
            if (!(rho <= r->rho_max)) r->rho_max = rho;
        }
        if (!(rest <= r->zero_bound_max)) r->zero_bound_max = rest > 0 ? rest : 0;
    } else {
        ratio = er.abs == 0 ? 0 : b > 0 ? er.abs / b : INFINITY;
        /* S - |s| from above: |s| >= |hi| (1 - 2^-53) */
        double slack = e->sum_abs - fabs(e->hi) * (1 - 0x1p-53);
        double part = r->gamma * (slack > 0 ? slack : 0) + (b - r->gamma * e->sum_abs);
        if (!(part <= r->atol_part)) r->atol_part = part;
    }
    /* bit for bit RN_F(s): a zero of the other sign has no error in value, but is not it */
    double want = ug_exact_rn(e, r->out_fmt);
    bool cr = ug_same_f64(got, want);
    r->correctly_rounded += cr;
    r->wrong_sign_zeros += !cr && got == 0 && want == 0;
    r->nonfinite += !cr && !isfinite(got) && e->cls == UG_X_FINITE;
    r->ulp_sum += er.ulp;
    if (er.rel > r->rel_max || isnan(er.rel)) r->rel_max = er.rel;
    if (ratio > r->ratio_max) r->ratio_max = ratio;
    /* the worst: the largest ULP error, the first of them; on a tie an output that is not the
     * correctly rounded one (a zero of the wrong sign) before one that is */
    if (i == 0 || er.ulp > r->ulp_max || (er.ulp == r->ulp_max && !cr && r->worst_cr)) {
        r->ulp_max = er.ulp;
        r->worst = i;
        r->worst_cr = cr;
        r->worst_e = *e;
        r->worst_got = got;
        r->worst_want = want;
        r->worst_got_bits = ug_fmt_encode(r->out_fmt, got);
        r->worst_want_bits = ug_fmt_encode(r->out_fmt, want);
        r->worst_ulp = er.ulp;
        r->worst_rel = er.rel;
        r->worst_ratio = ratio;
        r->worst_bound = b;
    }
}

/* The tolerance for torch.testing.assert_close(got, want, rtol, atol), which passes when
 * |got_i - want_i| <= atol + rtol |want_i| for every output.  want = RN_F(s), the exact result
 * rounded to GOT's format F (what `check` prints as want).  Whenever the kernel meets its tree
 * bound (ug_check_bound: |got - s| <= gamma S + eta, eta the products' underflow term):
 *   |s - want| <= u |want| + qmin/2                  (rounding to nearest, subnormals included)
 *   |s| <= (1 + u) |want| + qmin/2
 *   |got - want| <= gamma |s| + gamma (S - |s|) + eta + u |want| + qmin/2
 *               <= [gamma (1 + u) + u] |want| + [gamma (S - |s|) + eta + (1 + gamma) qmin/2]
 * so rtol = gamma (1 + u) + u and atol = max over the outputs of gamma (S_i - |s_i|) + eta_i,
 * plus (1 + gamma) qmin/2.  The first bracket is the bound's relative part; the second is what
 * cancellation (S_i > |s_i|) costs, which only the data can tell: hence a tolerance for the data
 * given, the tightest pair of this form (rtol from the bound alone, atol the least that then
 * covers every output).  Outputs whose exact value is NaN or infinite are not covered
 * (assert_close compares those by equality).  Both are rounded up by 2^-50 relative for the
 * binary64 arithmetic here; a vacuous bound (gamma infinite) gives infinities. */
/* A class's bound b_i split as the tree's is (ug_check_add): b_i = rho_i |s_i| + a_i, rho_i its
 * relative part, a_i >= 0 what cancellation costs.  With rho = max rho_i, A = max a_i
 * (|s_i| <= (1 + u) |want_i| + qmin/2):
 *   |got - want| <= b_i + u |want| + qmin/2 <= [rho (1 + u) + u] |want| + A + (1 + rho) qmin/2,
 * so rtol = rho (1 + u) + u and atol = A + (1 + rho) qmin/2 (rounded up by 2^-50).  A vacuous
 * bound anywhere gives infinities. */
static void check_class_tolerance(ug_check_result *r, double u, double q)
{
    if (r->vacuous || !isfinite(r->rho_max) || !isfinite(r->zero_bound_max)) {
        r->rtol = r->atol = INFINITY;
        return;
    }
    r->rtol = (r->rho_max * (1 + u) + u) * (1 + 0x1p-50);
    r->atol = (r->zero_bound_max + (1 + r->rho_max) * q / 2) * (1 + 0x1p-50);
}

void ug_check_tolerance(ug_check_result *r)
{
    const ug_format *F = ug_format_of(r->out_fmt);
    double u = ldexp(1.0, -F->p), q = check_qmin(r->out_fmt);
    if (r->bound_class > UG_BOUND_TREE) {
        check_class_tolerance(r, u, q);
        return;
    }
    if (!isfinite(r->gamma) || !isfinite(r->atol_part)) {
        r->rtol = r->atol = INFINITY;
        return;
    }
    r->rtol = (r->gamma * (1 + u) + u) * (1 + 0x1p-50);
    r->atol = (r->atol_part + (1 + r->gamma) * q / 2) * (1 + 0x1p-50);
}

/* ---- output ---------------------------------------------------------------------------------- */

static void put_hex(ug_buf *b, double v)
{
    if (isnan(v)) ug_buf_printf(b, "nan");
    else if (isinf(v)) ug_buf_printf(b, v > 0 ? "inf" : "-inf");
    else ug_buf_printf(b, "%a", v);
}

/* bits of a value of format f, as hex digits of its encoding ("0x3f800000"). */
static void put_bits(ug_buf *b, ug_fmt f, uint64_t bits)
{
    ug_buf_printf(b, "0x%0*llx", (int)ug_fmt_bytes(f) * 2, (unsigned long long)bits);
}

static void put_num(ug_buf *b, double v)
{
    if (isfinite(v)) ug_buf_printf(b, "%.17g", v);
    else ug_buf_printf(b, "null");
}

/* x rounded up to 4 significant digits, as %.3e text into buf ("5.973e-05"): the smallest such
 * decimal >= x, so that a tolerance printed is never below the one derived.  Non-finite: "inf". */
static const char *up4(double x, char buf[48])
{
    if (!isfinite(x)) return snprintf(buf, 48, "inf"), buf;
    snprintf(buf, 48, "%.3e", x);
    if (strtod(buf, NULL) >= x) return buf;
    /* rounded down: one unit up in the 4th digit, d.ddd -> d.ddd + 0.001 (9.999 -> 1.000e+1) */
    int e = atoi(strchr(buf, 'e') + 1);
    long m = strtol(buf, NULL, 10) * 1000 + strtol(buf + 2, NULL, 10) + 1;
    if (m == 10000) m = 1000, e++;
    snprintf(buf, 48, "%ld.%03lde%c%02d", m / 1000, m % 1000, e < 0 ? '-' : '+', e < 0 ? -e : e);
    return buf;
}

void ug_check_json(ug_buf *b, const ug_check_result *r)
{
    ug_buf_printf(b, "{\"op\":\"%s\",\"batch\":%zu,\"outputs\":%zu,\"n\":%zu,\"in_fmt\":[",
                  r->op->shape->name, r->batch, r->outputs, r->n);
    for (int i = 0; i < r->inputs; i++)
        ug_buf_printf(b, "%s\"%s\"", i ? "," : "", ug_fmt_name(r->in_fmt[i]));
    ug_buf_printf(b, "],\"out_fmt\":\"%s\",\"oracle\":\"%s\",\"ulp_max\":",
                  ug_fmt_name(r->out_fmt), r->oracle);
    double none = NAN; /* no outputs: no figures (null), never a 0 that was not measured */
    put_num(b, r->outputs ? r->ulp_max : none);
    ug_buf_printf(b, ",\"ulp_mean\":");
    put_num(b, r->outputs ? r->ulp_mean : none);
    ug_buf_printf(b, ",\"rel_max\":");
    put_num(b, r->outputs ? r->rel_max : none);
    ug_buf_printf(b, ",\"specials\":%zu,\"correctly_rounded\":%zu,\"wrong_sign_zeros\":%zu,"
                  "\"nonfinite\":%zu,\"bound\":", r->specials, r->correctly_rounded,
                  r->wrong_sign_zeros, r->nonfinite);
    if (!r->has_bound) {
        ug_buf_printf(b, "null");
    } else {
        ug_buf_printf(b, "{\"class\":\"%s\",\"depth\":%zu,\"gamma\":",
                      ug_bound_class_name(r->bound_class), r->depth);
        put_num(b, r->gamma);
        if (r->bound_class > UG_BOUND_TREE) /* a class's formats and tensor-core model */
            ug_buf_printf(b, ",\"acc_fmt\":\"%s\",\"op_fmt\":\"%s\",\"block_model\":\"%s\"",
                          ug_fmt_name(r->acc_fmt), ug_fmt_name(r->op_fmt), r->block_model);
        ug_buf_printf(b, ",\"vacuous\":%s,\"vacuous_outputs\":%zu,\"ratio_max\":",
                      r->vacuous ? "true" : "false", r->vacuous);
        put_num(b, r->vacuous || !r->outputs ? none : r->ratio_max);
        ug_buf_printf(b, "}");
    }
    ug_buf_printf(b, ",\"worst\":");
    if (!r->outputs) {
        ug_buf_printf(b, "null");
        goto tolerance;
    }
    ug_buf_printf(b, "{\"index\":%zu,\"got\":\"", r->worst);
    put_hex(b, r->worst_got);
    ug_buf_printf(b, "\",\"want\":\"");
    put_hex(b, r->worst_want);
    ug_buf_printf(b, "\",\"got_bits\":\"");
    put_bits(b, r->out_fmt, r->worst_got_bits);
    ug_buf_printf(b, "\",\"want_bits\":\"");
    put_bits(b, r->out_fmt, r->worst_want_bits);
    ug_buf_printf(b, "\",\"exact\":\"");
    put_hex(b, r->worst_e.hi);
    ug_buf_printf(b, "\",\"ulp\":");
    put_num(b, r->worst_ulp);
    ug_buf_printf(b, ",\"rel\":");
    put_num(b, r->worst_rel);
    ug_buf_printf(b, ",\"ratio\":");
    put_num(b, r->worst_ratio);
    ug_buf_printf(b, ",\"bound\":");
    put_num(b, r->worst_bound);
    ug_buf_printf(b, "}");
tolerance:
    ug_buf_printf(b, ",\"tolerance\":");
    if (!r->has_bound || !isfinite(r->rtol) || !r->outputs) {
        ug_buf_printf(b, "null");
    } else {
        ug_buf_printf(b, "{\"rtol\":");
        put_num(b, r->rtol);
        ug_buf_printf(b, ",\"atol\":");
        put_num(b, r->atol);
        ug_buf_printf(b, ",\"expected\":\"want\"}");
    }
    ug_buf_printf(b, ",\"pass\":%s,\"verdict\":\"%s\"}\n", r->ok ? "true" : "false",
                  r->verdict);
}

/* The worst element's line. */
static void worst_line(ug_buf *b, const ug_check_result *r)
{
    if (!r->outputs) return;
    ug_buf_printf(b, "worst      output %zu: got ", r->worst);
    put_bits(b, r->out_fmt, r->worst_got_bits);
    ug_buf_printf(b, " (");
    put_hex(b, r->worst_got);
    ug_buf_printf(b, ")  want ");
    put_bits(b, r->out_fmt, r->worst_want_bits);
    ug_buf_printf(b, " (");
    put_hex(b, r->worst_want);
    ug_buf_printf(b, ")  exact ~");
    put_hex(b, r->worst_e.hi);
    ug_buf_printf(b, "  %.6g ulp", r->worst_ulp);
    if (r->per > 1 && !r->op->exact_is_sum) /* a row operation: where the worst sits */
        ug_buf_printf(b, "  (row %zu, column %zu)", r->worst / r->per, r->worst % r->per);
    ug_buf_printf(b, "\n");
}

void ug_check_failure_text(ug_buf *b, const ug_check_result *r)
{
    worst_line(b, r);
    ug_buf_printf(b, "result     %s\n", r->verdict);
}

void ug_check_table(ug_buf *b, const ug_check_result *r)
{
    const char *F = ug_fmt_name(r->out_fmt);
    ug_buf_printf(b, "check      %s: %zu output%s (batch %zu x %zu) of %zu %s; inputs %s",
                  r->op->shape->name, r->outputs, r->outputs == 1 ? "" : "s", r->batch, r->per, r->n,
                  ug_opshape_term_noun(r->op->shape), ug_fmt_name(r->in_fmt[0]));
    for (int i = 1; i < r->inputs; i++) ug_buf_printf(b, " %s", ug_fmt_name(r->in_fmt[i]));
    ug_buf_printf(b, ", got %s; oracle %s\n", F, r->oracle);
    if (!r->outputs) { /* no figures at all: never a 0 that was not measured */
        ug_buf_printf(b, "ulp        none: no outputs\n");
    } else {
        ug_buf_printf(b, "ulp        max %.6g  mean %.6g  (ULP of %s)\n", r->ulp_max, r->ulp_mean,
                      F);
        ug_buf_printf(b, "rel        max %.6g\n", r->rel_max);
    }
    if (!r->outputs)
        ;
    else if (r->bound_class > UG_BOUND_TREE)
        ug_buf_printf(b, "bound      %s, depth %zu, accumulator %s, operands %s%s%s: %s%.6g\n",
                      ug_bound_class_name(r->bound_class), r->depth, ug_fmt_name(r->acc_fmt),
                      ug_fmt_name(r->op_fmt),
                      r->bound_class >= UG_BOUND_BLOCK_FMA && r->bound_class <=
                      UG_BOUND_BLOCK_FMA_PROMOTED ? ", tensor cores " : "",
                      r->bound_class >= UG_BOUND_BLOCK_FMA && r->bound_class <=
                      UG_BOUND_BLOCK_FMA_PROMOTED ? r->block_model : "",
                      r->vacuous ? "vacuous (+inf) for some outputs: it bounds nothing; "
                                   "outputs vacuous " : "max error/bound ",
                      r->vacuous ? (double)r->vacuous : r->ratio_max);
    else if (r->has_bound && r->vacuous)
        ug_buf_printf(b, "bound      tree, depth %zu, u = 2^-%d: vacuous (K u >= 1) for %zu of %zu "
                      "outputs: it bounds nothing\n", r->depth, ug_format_of(r->out_fmt)->p,
                      r->vacuous, r->outputs);
    else if (r->has_bound)
        ug_buf_printf(b, "bound      tree, depth %zu, u = 2^-%d: gamma %.6g; max error/bound "
                      "%.6g\n", r->depth, ug_format_of(r->out_fmt)->p, r->gamma, r->ratio_max);
    else /* a row operation: its bounds belong to kernel classes, not to data */
        ug_buf_printf(b, "bound      none for a row operation: grade with --ulp-max or "
                         "--rel-max\n");
    worst_line(b, r);
    if (r->specials)
        ug_buf_printf(b, "specials   %zu outputs with a NaN or infinite exact value\n",
                      r->specials);
    if (r->outputs) {
        ug_buf_printf(b, "rounded    %zu of %zu outputs correctly rounded (bit for bit)",
                      r->correctly_rounded, r->outputs);
        if (r->wrong_sign_zeros)
            ug_buf_printf(b, "; %zu a zero of the wrong sign", r->wrong_sign_zeros);
        if (r->nonfinite)
            ug_buf_printf(b, "; %zu NaN or infinite where the exact value is finite", r->nonfinite);
        ug_buf_printf(b, "\n");
    }
    char rt[48], at[48];
    if (!r->has_bound || !r->outputs)
        ; /* a row operation: no tree bound, so no tolerance derived from one */
    else if (isfinite(r->rtol))
        ug_buf_printf(b, "tolerance  torch.testing.assert_close(got, want, rtol=%s, atol=%s)\n",
                      up4(r->rtol, rt), up4(r->atol, at));
    else
        ug_buf_printf(b, "tolerance  none: the %s bound is vacuous here\n",
                      ug_bound_class_name(r->bound_class));
    ug_buf_printf(b, "checked    %zu outputs\n", r->outputs);
    ug_buf_printf(b, "result     %s\n", r->verdict);
}
