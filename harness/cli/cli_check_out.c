/*
 * cli_check_out.c - `ulpgate check`'s figures: the error of every output, the tree bound, the
 * tolerance for torch.testing.assert_close, and the table or JSON that shows them.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness/cli/cli_check.h"

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
        const ug_kernel k = {.name = "check", .op = r->op->shape->id, .bound = UG_BOUND_TREE,
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
    r->ulp_sum += er.ulp;
    if (er.rel > r->rel_max || isnan(er.rel)) r->rel_max = er.rel;
    if (ratio > r->ratio_max) r->ratio_max = ratio;
    if (i == 0 || er.ulp > r->ulp_max) {
        r->ulp_max = er.ulp;
        r->worst = i;
        r->worst_e = *e;
        r->worst_got = got;
        r->worst_want = ug_exact_rn(e, r->out_fmt);
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

static void put_hex(FILE *out, double v)
{
    if (isnan(v)) fputs("nan", out);
    else if (isinf(v)) fputs(v > 0 ? "inf" : "-inf", out);
    else fprintf(out, "%a", v);
}

/* v stored in f, as hex digits of its encoding ("0x3f800000"). */
static void put_bits(FILE *out, ug_fmt f, double v)
{
    fprintf(out, "0x%0*llx", (int)ug_fmt_bytes(f) * 2, (unsigned long long)ug_fmt_encode(f, v));
}

static void put_num(FILE *out, double v)
{
    if (isfinite(v)) fprintf(out, "%.17g", v);
    else fputs("null", out);
}

/* A value that %.3e prints no smaller than x (x (1 + 10^-3) survives the decimal rounding). */
static double up4(double x)
{
    return isfinite(x) ? x * (1 + 1e-3) : x;
}

static void print_json(FILE *out, const ug_check_result *r, const char *verdict)
{
    fprintf(out, "{\"op\":\"%s\",\"batch\":%zu,\"outputs\":%zu,\"n\":%zu,\"in_fmt\":[",
            r->op->shape->name, r->batch, r->outputs, r->n);
    for (int i = 0; i < r->inputs; i++)
        fprintf(out, "%s\"%s\"", i ? "," : "", ug_fmt_name(r->in_fmt[i]));
    fprintf(out, "],\"out_fmt\":\"%s\",\"oracle\":\"%s\",\"ulp_max\":", ug_fmt_name(r->out_fmt),
            r->oracle);
    put_num(out, r->ulp_max);
    fputs(",\"ulp_mean\":", out);
    put_num(out, r->outputs ? r->ulp_sum / (double)r->outputs : 0);
    fputs(",\"rel_max\":", out);
    put_num(out, r->rel_max);
    fprintf(out, ",\"specials\":%zu,\"bound\":{\"class\":\"tree\",\"depth\":%zu,\"gamma\":",
            r->specials, r->depth);
    put_num(out, r->gamma);
    fputs(",\"ratio_max\":", out);
    put_num(out, r->ratio_max);
    fprintf(out, "},\"worst\":{\"index\":%zu,\"got\":\"", r->worst);
    put_hex(out, r->worst_got);
    fputs("\",\"want\":\"", out);
    put_hex(out, r->worst_want);
    fputs("\",\"got_bits\":\"", out);
    put_bits(out, r->out_fmt, r->worst_got);
    fputs("\",\"want_bits\":\"", out);
    put_bits(out, r->out_fmt, r->worst_want);
    fputs("\",\"exact\":\"", out);
    put_hex(out, r->worst_e.hi);
    fputs("\",\"ulp\":", out);
    put_num(out, r->worst_ulp);
    fputs(",\"rel\":", out);
    put_num(out, r->worst_rel);
    fputs(",\"ratio\":", out);
    put_num(out, r->worst_ratio);
    fputs("},\"tolerance\":{\"rtol\":", out);
    put_num(out, r->rtol);
    fputs(",\"atol\":", out);
    put_num(out, r->atol);
    fprintf(out, ",\"expected\":\"want\"},\"pass\":%s,\"verdict\":\"%s\"}\n",
            strcmp(verdict, "ok") ? "false" : "true", verdict);
}

void ug_check_print(FILE *out, const ug_check_result *r, bool json, const char *verdict)
{
    if (json) {
        print_json(out, r, verdict);
        return;
    }
    const char *F = ug_fmt_name(r->out_fmt);
    fprintf(out, "check      %s: %zu output%s (batch %zu x %zu) of %zu %s; inputs %s", r->op->shape->name,
            r->outputs, r->outputs == 1 ? "" : "s", r->batch, r->per, r->n, ug_opshape_term_noun(r->op->shape),
            ug_fmt_name(r->in_fmt[0]));
    for (int i = 1; i < r->inputs; i++) fprintf(out, " %s", ug_fmt_name(r->in_fmt[i]));
    fprintf(out, ", got %s; oracle %s\n", F, r->oracle);
    fprintf(out, "ulp        max %.6g  mean %.6g  (ULP of %s)\n", r->ulp_max,
            r->outputs ? r->ulp_sum / (double)r->outputs : 0.0, F);
    fprintf(out, "rel        max %.6g\n", r->rel_max);
    if (r->op->exact_is_sum)
        fprintf(out, "bound      tree, depth %zu, u = 2^-%d: gamma %.6g; max error/bound %.6g\n",
                r->depth, ug_format_of(r->out_fmt)->p, r->gamma, r->ratio_max);
    else /* a row operation: its bounds belong to kernel classes, not to data */
        fputs("bound      none for a row operation: grade with --ulp-max or --rel-max\n", out);
    if (r->outputs) {
        fprintf(out, "worst      output %zu: got ", r->worst);
        put_bits(out, r->out_fmt, r->worst_got);
        fputs(" (", out);
        put_hex(out, r->worst_got);
        fputs(")  want ", out);
        put_bits(out, r->out_fmt, r->worst_want);
        fputs(" (", out);
        put_hex(out, r->worst_want);
        fputs(")  exact ~", out);
        put_hex(out, r->worst_e.hi);
        fprintf(out, "  %.6g ulp", r->worst_ulp);
        if (r->per > 1 && !r->op->exact_is_sum) /* a row operation: where the worst sits */
            fprintf(out, "  (row %zu, column %zu)", r->worst / r->per, r->worst % r->per);
        fputc('\n', out);
    }
    if (r->specials) fprintf(out, "specials   %zu outputs with a NaN or infinite exact value\n",
                             r->specials);
    if (!r->op->exact_is_sum)
        ; /* a row operation: no tree bound, so no tolerance derived from one */
    else if (isfinite(r->rtol))
        fprintf(out, "tolerance  torch.testing.assert_close(got, want, rtol=%.3e, atol=%.3e)\n",
                up4(r->rtol), up4(r->atol));
    else
        fputs("tolerance  none: the tree bound is vacuous here\n", out);
    fprintf(out, "checked    %zu outputs\n", r->outputs);
    fprintf(out, "result     %s\n", verdict);
}
