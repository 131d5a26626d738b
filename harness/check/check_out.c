/*
 * check_out.c - a check's figures (harness/check/check.h): the error of every output, the tree
 * bound, the tolerance for torch.testing.assert_close, and the table or JSON that shows them.
 */
#include <math.h>
#include <stdint.h>
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
 *   |got - s| <= gamma_K(u) S + [products] n (qmin_F / 2) (1 + gamma_D(u)),
 * K = D for a sum, D + 1 for products (each product rounds once), S = sum |terms| (the oracle's
 * upper bound e->sum_abs).  The second term is the underflow of the n products (fl(ab) =
 * ab(1 + d) + eta, |eta| <= qmin/2; additions of subnormals are exact, so sums need none).
 * A kernel that accumulates in a wider format and rounds once to F meets it too:
 * u_F |s| + (1 + u_F) gamma_D(u_wide) S <= gamma_K(u_F) S for D >= 1. */
static size_t check_depth_value; /* the depth of check's stand-in kernel (one check a process) */
static size_t check_depth(size_t n) { (void)n; return check_depth_value; }

double ug_check_bound(const ug_check_result *r, const ug_exact *e)
{
    if (r->op->bound) { /* the operation's own (nrm2: through the root), a tree of depth D */
        const ug_kernel k = {.name = "check", .op = r->op->id, .bound = UG_BOUND_TREE,
                             .depth = check_depth};
        check_depth_value = r->depth;
        return ug_kernel_bound(&k, r->n, e->sum_abs, fabs(e->hi));
    }
    double b = r->gamma * e->sum_abs;
    if (r->op->terms_kind == UG_TERMS_PRODUCTS)
        b += (double)r->n * check_qmin(r->out_fmt) / 2 * (1 + r->gamma);
    return b;
}

void ug_check_add(ug_check_result *r, size_t i, const ug_exact *e, double got)
{
    ug_error er = ug_error_fmt(e, r->out_fmt, got);
    double ratio;
    if (e->cls != UG_X_FINITE) {
        r->specials++;
        ratio = er.abs == 0 ? 0 : INFINITY;
    } else {
        double b = ug_check_bound(r, e);
        ratio = er.abs == 0 ? 0 : b > 0 ? er.abs / b : INFINITY;
        /* S - |s| from above: |s| >= |hi| (1 - 2^-53) */
        double slack = e->sum_abs - fabs(e->hi) * (1 - 0x1p-53);
        double part = r->gamma * (slack > 0 ? slack : 0) + (b - r->gamma * e->sum_abs);
        if (!(part <= r->atol_part)) r->atol_part = part;
    }
    double want = ug_exact_rn(e, r->out_fmt);
    if (ug_same_f64(got, want)) r->correctly_rounded++;
    r->ulp_sum += er.ulp;
    if (er.rel > r->rel_max || isnan(er.rel)) r->rel_max = er.rel;
    if (ratio > r->ratio_max) r->ratio_max = ratio;
    if (i == 0 || er.ulp > r->ulp_max) {
        r->ulp_max = er.ulp;
        r->worst = i;
        r->worst_e = *e;
        r->worst_got = got;
        r->worst_want = want;
        r->worst_got_bits = ug_fmt_encode(r->out_fmt, got);
        r->worst_want_bits = ug_fmt_encode(r->out_fmt, want);
        r->worst_ulp = er.ulp;
        r->worst_rel = er.rel;
        r->worst_ratio = ratio;
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
void ug_check_tolerance(ug_check_result *r)
{
    const ug_format *F = ug_format_of(r->out_fmt);
    double u = ldexp(1.0, -F->p), q = check_qmin(r->out_fmt);
    if (!isfinite(r->gamma) || !isfinite(r->atol_part)) {
        r->rtol = r->atol = INFINITY;
        return;
    }
    r->rtol = (r->gamma * (1 + u) + u) * (1 + 0x1p-50);
    r->atol = (r->atol_part + (1 + r->gamma) * q / 2) * (1 + 0x1p-50);
}

/* ---- output ------------------------------------------------------------------------------------ */

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

/* A value that %.3e prints no smaller than x (x (1 + 10^-3) survives the decimal rounding). */
static double up4(double x)
{
    return isfinite(x) ? x * (1 + 1e-3) : x;
}

void ug_check_json(ug_buf *b, const ug_check_result *r)
{
    ug_buf_printf(b, "{\"op\":\"%s\",\"batch\":%zu,\"outputs\":%zu,\"n\":%zu,\"in_fmt\":[",
                  r->op->name, r->batch, r->outputs, r->n);
    for (int i = 0; i < r->inputs; i++)
        ug_buf_printf(b, "%s\"%s\"", i ? "," : "", ug_fmt_name(r->in_fmt[i]));
    ug_buf_printf(b, "],\"out_fmt\":\"%s\",\"oracle\":\"%s\",\"ulp_max\":",
                  ug_fmt_name(r->out_fmt), r->oracle);
    put_num(b, r->ulp_max);
    ug_buf_printf(b, ",\"ulp_mean\":");
    put_num(b, r->ulp_mean);
    ug_buf_printf(b, ",\"rel_max\":");
    put_num(b, r->rel_max);
    ug_buf_printf(b, ",\"specials\":%zu,\"bound\":{\"class\":\"tree\",\"depth\":%zu,\"gamma\":",
                  r->specials, r->depth);
    put_num(b, r->gamma);
    ug_buf_printf(b, ",\"ratio_max\":");
    put_num(b, r->ratio_max);
    ug_buf_printf(b, "},\"worst\":{\"index\":%zu,\"got\":\"", r->worst);
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
    ug_buf_printf(b, "},\"tolerance\":{\"rtol\":");
    put_num(b, r->rtol);
    ug_buf_printf(b, ",\"atol\":");
    put_num(b, r->atol);
    ug_buf_printf(b, ",\"expected\":\"want\"},\"pass\":%s,\"verdict\":\"%s\"}\n",
                  r->ok ? "true" : "false", r->verdict);
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
                  r->op->name, r->outputs, r->outputs == 1 ? "" : "s", r->batch, r->per, r->n,
                  r->op->term_noun, ug_fmt_name(r->in_fmt[0]));
    for (int i = 1; i < r->inputs; i++) ug_buf_printf(b, " %s", ug_fmt_name(r->in_fmt[i]));
    ug_buf_printf(b, ", got %s; oracle %s\n", F, r->oracle);
    ug_buf_printf(b, "ulp        max %.6g  mean %.6g  (ULP of %s)\n", r->ulp_max, r->ulp_mean, F);
    ug_buf_printf(b, "rel        max %.6g\n", r->rel_max);
    if (r->op->exact_is_sum)
        ug_buf_printf(b, "bound      tree, depth %zu, u = 2^-%d: gamma %.6g; max error/bound %.6g\n",
                      r->depth, ug_format_of(r->out_fmt)->p, r->gamma, r->ratio_max);
    else /* a row operation: its bounds belong to kernel classes, not to data */
        ug_buf_printf(b, "bound      none for a row operation: grade with --ulp-max or --rel-max\n");
    worst_line(b, r);
    if (r->specials)
        ug_buf_printf(b, "specials   %zu outputs with a NaN or infinite exact value\n", r->specials);
    if (!r->op->exact_is_sum)
        ; /* a row operation: no tree bound, so no tolerance derived from one */
    else if (isfinite(r->rtol))
        ug_buf_printf(b, "tolerance  torch.testing.assert_close(got, want, rtol=%.3e, atol=%.3e)\n",
                      up4(r->rtol), up4(r->atol));
    else
        ug_buf_printf(b, "tolerance  none: the tree bound is vacuous here\n");
    ug_buf_printf(b, "checked    %zu outputs\n", r->outputs);
    ug_buf_printf(b, "result     %s\n", r->verdict);
}
