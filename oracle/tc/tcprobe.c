/*
 * tcprobe.c - the accumulator probe (tcprobe.h): one function per figure, each a crafted dot
 * product whose result under each hypothesis is a different binary32 number.
 *
 * Notation: p the input format's precision, E0 a scale per input format that keeps every term
 * a product of two normal inputs (bf16, tf32: 0; f16, e5m2: 8; e4m3: 16, its normal products
 * spanning 2^-12 .. 2^17 only), P = acc_p - 1 the
 * fraction bits of a block's result, g = 2^(E0 - 23 - neab) the alignment grid when the
 * largest term is 2^E0 (tcmodel.h, step 4).  Products are placed at indices 0, 1, 2 (one
 * block: the block holds at least 3 products; the block test itself uses 0, 1 and j), the
 * rest of the K = 128 terms are zero.  Each figure's vectors, expected results and range
 * condition are in the comment of its function; a figure whose condition fails, or whose
 * result matches no hypothesis, is reported unmeasured with the values seen.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opshape.h"
#include "oracle/tc/tcprobe.h"

enum { UG_TC_PK = 128, UG_TC_PMN = 16 };

typedef struct {
    ug_tc_dot_fn dot;
    void *ctx;
    ug_fmt fi, fo;
    int p, E0;
    ug_tc_measured *m;
    char *err;
    size_t errlen;
} ug_tc_probe_ctx;

typedef struct {
    int pos;
    double sa, sb; /* significands (signed sa), each a number of the input format */
    int e;         /* the product is sa sb 2^e */
} ug_tc_term;

/* a = sa 2^x, b = sb 2^(e - x), both normal numbers of f, x as balanced as f allows; false if
 * no x works. */
static bool ug_tc_pair(ug_fmt f, double sa, double sb, int e, double *a, double *b)
{
    const ug_format *F = ug_format_of(f);
    bool found = false;
    int best = 0;
    for (int x = F->emin - 1; x <= F->emax + 1; x++) {
        double u = ldexp(sa, x), v = ldexp(sb, e - x);
        bool ok = u != 0 && v != 0 && ug_fmt_round(f, u, UG_RN) == u &&
                  ug_fmt_round(f, v, UG_RN) == v && fabs(u) >= ldexp(1.0, F->emin) &&
                  fabs(v) >= ldexp(1.0, F->emin) && fabs(u) <= F->max && fabs(v) <= F->max;
        if (ok && (!found || abs(2 * x - e) < abs(2 * best - e))) best = x, found = true;
    }
    if (found) *a = ldexp(sa, best), *b = ldexp(sb, e - best);
    return found;
}

/* Run the terms; 0 with *d, 1 when a term is not a product of two normal inputs (the figure
 * cannot be measured), -1 when the black box failed (err set). */
static int ug_tc_try(ug_tc_probe_ctx *P, const ug_tc_term *t, int n, double *d)
{
    double a[UG_TC_PK] = {0}, b[UG_TC_PK] = {0};
    for (int i = 0; i < n; i++)
        if (!ug_tc_pair(P->fi, t[i].sa, t[i].sb, t[i].e, &a[t[i].pos], &b[t[i].pos])) return 1;
    P->m->runs++;
    return P->dot(P->ctx, a, b, UG_TC_PK, d, P->err, P->errlen) ? -1 : 0;
}

#define UG_NOTE(f, ...) snprintf(P->m->note[f], sizeof P->m->note[f], __VA_ARGS__)

/* acc_p: 2^E0 + 2^(E0-j), j = 1, 2, ...: exact while j <= P (and the alignment keeps bit j:
 * 23 + neab >= j), else rounded away (RZ, or RNE's tie to even at j = P + 1).  acc_p = 1 + the
 * largest j returned exactly. */
static int ug_tc_fig_acc(ug_tc_probe_ctx *P)
{
    int last = 0;
    for (int j = 1; j <= 40; j++) {
        ug_tc_term t[] = {{0, 1, 1, P->E0}, {1, 1, 1, P->E0 - j}};
        double d, want = ldexp(1.0, P->E0) + ldexp(1.0, P->E0 - j);
        int rc = ug_tc_try(P, t, 2, &d);
        if (rc < 0) return -1;
        if (rc > 0 || d != want) {
            if (rc > 0 || last == 0) {
                UG_NOTE(UG_TCF_ACC_P, "%s at j = %d", rc > 0 ? "2^(E0-j) not representable" :
                        "2^E0 + 2^(E0-1) not returned exactly", j);
                return 0;
            }
            P->m->acc_p = last + 1, P->m->has[UG_TCF_ACC_P] = true;
            UG_NOTE(UG_TCF_ACC_P, "1 + 2^-%d kept, 1 + 2^-%d returned as %a", last, j,
                    ldexp(d, -P->E0));
            return 0;
        }
        last = j;
    }
    UG_NOTE(UG_TCF_ACC_P, "1 + 2^-40 still exact: wider than the model");
    return 0;
}

/* neab: 2^E0 - (1 - 2^-p) 2^E0 + 2^(E0-23-j) = 2^(E0-p) + 2^(E0-23-j): the cancellation
 * leaves the result far below the aligned terms, so its precision does not hide the third
 * term's bit, which survives the alignment exactly when j <= neab (either alignment rounding:
 * a lone bit one place below the grid is a tie, and ties go to the even 0).  Scanned from
 * j = p - 22 (the third term below the result's leading bit) while 2^(E0-p) + 2^(E0-23-j) is
 * representable at acc_p bits: j <= acc_p + p - 24. */
static int ug_tc_fig_neab(ug_tc_probe_ctx *P)
{
    if (!P->m->has[UG_TCF_ACC_P]) return UG_NOTE(UG_TCF_NEAB, "needs the accumulator's precision"), 0;
    int lo = P->p - 22, hi = P->m->acc_p + P->p - 24, last = lo - 1;
    for (int j = lo; j <= hi; j++) {
        ug_tc_term t[] = {{0, 1, 1, P->E0}, {1, -(2 - ldexp(1.0, 1 - P->p)), 1, P->E0 - 1},
                          {2, 1, 1, P->E0 - 23 - j}};
        double d, base = ldexp(1.0, P->E0 - P->p), want = base + ldexp(1.0, P->E0 - 23 - j);
        int rc = ug_tc_try(P, t, 3, &d);
        if (rc < 0) return -1;
        if (rc > 0) return UG_NOTE(UG_TCF_NEAB, "term 2^(E0-23-%d) not representable", j), 0;
        if (d == want) {
            last = j;
            continue;
        }
        if (d != base)
            return UG_NOTE(UG_TCF_NEAB, "j = %d: got %a, neither %a (kept) nor %a (cut)", j, d,
                           want, base), 0;
        if (last < lo) return UG_NOTE(UG_TCF_NEAB, "below %d (bit %d already cut)", lo, j), 0;
        P->m->p.neab = last, P->m->has[UG_TCF_NEAB] = true;
        return UG_NOTE(UG_TCF_NEAB, "leading term 2^E0: the term 2^(E0-%d) kept, 2^(E0-%d) cut",
                       23 + last, 23 + j), 0;
    }
    return UG_NOTE(UG_TCF_NEAB, "at least %d: the output's precision ends the test", hi), 0;
}

/* The range condition of the carry and alignment tests: their results, 1.5 2^(E0-p+1) or
 * 2^(E0-p) plus or minus about g, representable at acc_p bits: neab <= p + acc_p - 25. */
static bool ug_tc_fits(ug_tc_probe_ctx *P, ug_tc_figure f)
{
    if (!P->m->has[UG_TCF_NEAB]) return UG_NOTE(f, "needs neab"), false;
    if (P->m->p.neab > P->p + P->m->acc_p - 25)
        return UG_NOTE(f, "neab %d too wide for a %d-bit result", P->m->p.neab, P->m->acc_p), false;
    return true;
}

/* carry: 1.5*1.5 2^E0 - 1.5 (1.5 - 2^(1-p)) 2^E0 + 2^(E0-23-neab): the leading product's
 * significand is 2.25 (>= 2), so with the carry bit the grid is 2^(E0+1-23-neab-1) and the
 * third term (exactly that) survives: result 1.5 2^(E0-p+1) + 2^(E0-23-neab); without, the
 * grid is twice as coarse and it is cut: 1.5 2^(E0-p+1). */
static int ug_tc_fig_carry(ug_tc_probe_ctx *P)
{
    if (!ug_tc_fits(P, UG_TCF_CARRY)) return 0;
    int n = P->m->p.neab;
    ug_tc_term t[] = {{0, 1.5, 1.5, P->E0}, {1, -1.5, 1.5 - ldexp(1.0, 1 - P->p), P->E0},
                      {2, 1, 1, P->E0 - 23 - n}};
    double d, base = ldexp(1.5, P->E0 - P->p + 1), with = base + ldexp(1.0, P->E0 - 23 - n);
    int rc = ug_tc_try(P, t, 3, &d);
    if (rc < 0) return -1;
    if (rc > 0) return UG_NOTE(UG_TCF_CARRY, "terms not representable"), 0;
    if (d != with && d != base)
        return UG_NOTE(UG_TCF_CARRY, "got %a, neither %a (carry bit) nor %a", d, with, base), 0;
    P->m->p.carry_bit = d == with, P->m->has[UG_TCF_CARRY] = true;
    return UG_NOTE(UG_TCF_CARRY, "leading product 2.25 2^E0: the term 2^(E0-%d) %s", 23 + n,
                   d == with ? "kept" : "cut"), 0;
}

/* align: 2^E0 - (1 - 2^-p) 2^E0 +- 0.75 g, the last term between two grid points: truncation
 * cuts it (2^(E0-p) both signs), nearest rounds its magnitude up (2^(E0-p) +- g), rounding
 * toward -inf would give 2^(E0-p) and 2^(E0-p) - g (not a mode of the model: reported). */
static int ug_tc_fig_align(ug_tc_probe_ctx *P)
{
    if (!ug_tc_fits(P, UG_TCF_ALIGN)) return 0;
    int n = P->m->p.neab;
    double base = ldexp(1.0, P->E0 - P->p), g = ldexp(1.0, P->E0 - 23 - n), d[2];
    for (int s = 0; s < 2; s++) {
        ug_tc_term t[] = {{0, 1, 1, P->E0}, {1, -(2 - ldexp(1.0, 1 - P->p)), 1, P->E0 - 1},
                          {2, s ? -1.5 : 1.5, 1, P->E0 - 24 - n}};
        int rc = ug_tc_try(P, t, 3, &d[s]);
        if (rc < 0) return -1;
        if (rc > 0) return UG_NOTE(UG_TCF_ALIGN, "terms not representable"), 0;
    }
    if (d[0] == base && d[1] == base) P->m->p.align = UG_TC_RZ, P->m->has[UG_TCF_ALIGN] = true;
    else if (d[0] == base + g && d[1] == base - g)
        P->m->p.align = UG_TC_RNE, P->m->has[UG_TCF_ALIGN] = true;
    return UG_NOTE(UG_TCF_ALIGN, "+0.75 grid: %s, -0.75 grid: %s%s",
                   d[0] == base ? "cut" : d[0] == base + g ? "up" : "other",
                   d[1] == base ? "cut" : d[1] == base - g ? "away from zero" : "other",
                   P->m->has[UG_TCF_ALIGN] ? "" : " (no mode of the model)"), 0;
}

/* final: 2^E0 + 2^E0 + 1.5 q, q = 2^(E0+1-P) the result's last place: RZ gives 2^(E0+1) + q,
 * RNE 2^(E0+1) + 2q.  The third term's last bit, 2^(E0-P), must survive the alignment:
 * P <= 23 + neab. */
static int ug_tc_fig_final(ug_tc_probe_ctx *P)
{
    if (!P->m->has[UG_TCF_ACC_P] || !P->m->has[UG_TCF_NEAB])
        return UG_NOTE(UG_TCF_FINAL, "needs acc_p and neab"), 0;
    int Pf = P->m->acc_p - 1;
    if (Pf > 23 + P->m->p.neab) return UG_NOTE(UG_TCF_FINAL, "alignment narrower than the output"), 0;
    ug_tc_term t[] = {{0, 1, 1, P->E0}, {1, 1, 1, P->E0}, {2, 1.5, 1, P->E0 + 1 - Pf}};
    double d, q = ldexp(1.0, P->E0 + 1 - Pf), two = ldexp(1.0, P->E0 + 1);
    int rc = ug_tc_try(P, t, 3, &d);
    if (rc < 0) return -1;
    if (rc > 0) return UG_NOTE(UG_TCF_FINAL, "terms not representable"), 0;
    if (d == two + q) P->m->p.final = UG_TC_RZ, P->m->has[UG_TCF_FINAL] = true;
    else if (d == two + 2 * q) P->m->p.final = UG_TC_RNE, P->m->has[UG_TCF_FINAL] = true;
    return UG_NOTE(UG_TCF_FINAL, "2 + 1.5 ulp returned as 2 + %g ulp", (d - two) / q), 0;
}

/* block: 2^E0 at 0, -2^E0 at 1, s = 2^(E0-25-neab) (two places below the grid) at j: in the
 * first block s is cut and the block is 0; in a later block (c = 0, s alone) it is returned
 * exactly.  block = the first j returning s; every later j must return s too. */
static int ug_tc_fig_block(ug_tc_probe_ctx *P)
{
    if (!P->m->has[UG_TCF_NEAB]) return UG_NOTE(UG_TCF_BLOCK, "needs neab"), 0;
    double s = ldexp(1.0, P->E0 - 25 - P->m->p.neab);
    int first = 0;
    for (int j = 2; j < UG_TC_PK; j++) {
        ug_tc_term t[] = {{0, 1, 1, P->E0}, {1, -1, 1, P->E0}, {j, 1, 1, P->E0 - 25 - P->m->p.neab}};
        double d;
        int rc = ug_tc_try(P, t, 3, &d);
        if (rc < 0) return -1;
        if (rc > 0) return UG_NOTE(UG_TCF_BLOCK, "terms not representable"), 0;
        if (d != s && d != 0) return UG_NOTE(UG_TCF_BLOCK, "j = %d: got %a, neither 0 nor %a", j, d, s), 0;
        if (d == s && !first) first = j;
        if (d == 0 && first)
            return UG_NOTE(UG_TCF_BLOCK, "not contiguous: j = %d fused with 0 again after %d", j, first), 0;
    }
    if (!first) return UG_NOTE(UG_TCF_BLOCK, "more than %d products fused", UG_TC_PK - 1), 0;
    P->m->p.block = first, P->m->has[UG_TCF_BLOCK] = true;
    return UG_NOTE(UG_TCF_BLOCK, "index %d is the first not aligned with index 0", first), 0;
}

/* in_subn: the smallest subnormal input times 2^k (normal), k lifting the product to the
 * output's normal range: the product, or 0 when subnormal inputs are flushed. */
static int ug_tc_fig_in_subn(ug_tc_probe_ctx *P)
{
    const ug_format *Fi = ug_format_of(P->fi), *Fo = ug_format_of(P->fo);
    int es = Fi->emin - Fi->p + 1, k = Fo->emin - es > 0 ? Fo->emin - es : 0;
    double a[UG_TC_PK] = {0}, b[UG_TC_PK] = {0}, d, want = ldexp(1.0, es + k);
    a[0] = ldexp(1.0, es), b[0] = ldexp(1.0, k);
    if (ug_fmt_round(P->fi, b[0], UG_RN) != b[0] || b[0] > Fi->max)
        return UG_NOTE(UG_TCF_IN_SUBN, "2^%d not an input", k), 0;
    P->m->runs++;
    if (P->dot(P->ctx, a, b, UG_TC_PK, &d, P->err, P->errlen)) return -1;
    if (d == want || d == 0) P->m->p.in_subnormals = d == want, P->m->has[UG_TCF_IN_SUBN] = true;
    return UG_NOTE(UG_TCF_IN_SUBN, "2^%d * 2^%d returned as %a", es, k, d), 0;
}

/* out_subn: a product of two normal inputs equal to 2^(emin_out - 1), the output's largest
 * subnormal power of two: itself, or 0 when subnormal results are flushed.  Not measurable
 * when the input format's products cannot reach it (f16, fp8 into binary32). */
static int ug_tc_fig_out_subn(ug_tc_probe_ctx *P)
{
    const ug_format *Fo = ug_format_of(P->fo);
    ug_tc_term t[] = {{0, 1, 1, Fo->emin - 1}};
    double d, want = ldexp(1.0, Fo->emin - 1);
    int rc = ug_tc_try(P, t, 1, &d);
    if (rc < 0) return -1;
    if (rc > 0)
        return P->m->na[UG_TCF_OUT_SUBN] = true, UG_NOTE(UG_TCF_OUT_SUBN, "no product of two %s inputs is a %s subnormal",
                       ug_fmt_name(P->fi), ug_fmt_name(P->fo)), 0;
    if (d == want || d == 0) P->m->p.out_subnormals = d == want, P->m->has[UG_TCF_OUT_SUBN] = true;
    return UG_NOTE(UG_TCF_OUT_SUBN, "2^%d returned as %a", Fo->emin - 1, d), 0;
}

int ug_tc_probe(ug_tc_dot_fn dot, void *ctx, ug_fmt in_fmt, ug_fmt out_fmt, ug_tc_measured *m,
                char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->p.in_fmt = in_fmt, m->p.out_fmt = out_fmt;
    const ug_format *Fi = ug_format_of(in_fmt);
    if (!Fi || !ug_format_of(out_fmt) || (out_fmt != UG_F32 && out_fmt != UG_F16) ||
        (in_fmt != UG_F16 && in_fmt != UG_BF16 && in_fmt != UG_TF32 && in_fmt != UG_E4M3 &&
         in_fmt != UG_E5M2)) {
        snprintf(err, errlen, "cannot probe %s -> %s: inputs f16, bf16, tf32, e4m3 or e5m2, "
                 "output f32 or f16", ug_fmt_name(in_fmt), ug_fmt_name(out_fmt));
        return 1;
    }
    ug_tc_probe_ctx P = {dot, ctx, in_fmt, out_fmt, Fi->p,
                         in_fmt == UG_F16 || in_fmt == UG_E5M2 ? 8 : in_fmt == UG_E4M3 ? 16 : 0,
                         m, err, errlen};
    int (*const fig[])(ug_tc_probe_ctx *) = {ug_tc_fig_acc, ug_tc_fig_neab, ug_tc_fig_carry,
                                             ug_tc_fig_align, ug_tc_fig_final, ug_tc_fig_block,
                                             ug_tc_fig_in_subn, ug_tc_fig_out_subn};
    for (size_t i = 0; i < sizeof fig / sizeof fig[0]; i++)
        if (fig[i](&P) < 0) return 1;
    return 0;
}

const char *ug_tc_figure_name(ug_tc_figure f)
{
    static const char *const names[UG_TCF_COUNT] = {
        "accumulator precision (bits)", "extra alignment bits (neab)", "carry bit for a leading product >= 2",
        "alignment rounding", "final rounding", "block (products fused)", "subnormal inputs",
        "subnormal outputs"};
    return (unsigned)f < UG_TCF_COUNT ? names[f] : "?";
}

void ug_tc_figure_text(ug_tc_figure f, const ug_tc_params *p, int acc_p, char *out, size_t len)
{
    switch (f) {
    case UG_TCF_ACC_P: snprintf(out, len, "%d", acc_p); break;
    case UG_TCF_NEAB: snprintf(out, len, "%d", p->neab); break;
    case UG_TCF_CARRY: snprintf(out, len, "%s", p->carry_bit ? "yes" : "no"); break;
    case UG_TCF_ALIGN: snprintf(out, len, "%s", ug_tc_rmode_name(p->align)); break;
    case UG_TCF_FINAL: snprintf(out, len, "%s", ug_tc_rmode_name(p->final)); break;
    case UG_TCF_BLOCK: snprintf(out, len, "%d", p->block); break;
    case UG_TCF_IN_SUBN: snprintf(out, len, "%s", p->in_subnormals ? "yes" : "no"); break;
    case UG_TCF_OUT_SUBN: snprintf(out, len, "%s", p->out_subnormals ? "yes" : "no"); break;
    default: snprintf(out, len, "?");
    }
}

bool ug_tc_figure_equal(ug_tc_figure f, const ug_tc_measured *m, const ug_tc_params *p)
{
    if (!m->has[f]) return false;
    char a[32], b[32];
    ug_tc_figure_text(f, &m->p, m->acc_p, a, sizeof a);
    ug_tc_figure_text(f, p, ug_tc_acc_precision(p), b, sizeof b);
    return strcmp(a, b) == 0;
}

bool ug_tc_figure_line(ug_tc_figure f, const ug_tc_measured *m, const ug_tc_params *pub,
                       char *out, size_t len)
{
    char got[32] = "?", want[32] = "-";
    if (m->has[f]) ug_tc_figure_text(f, &m->p, m->acc_p, got, sizeof got);
    if (pub) ug_tc_figure_text(f, pub, ug_tc_acc_precision(pub), want, sizeof want);
    bool eq = pub && ug_tc_figure_equal(f, m, pub);
    if (m->na[f]) snprintf(got, sizeof got, "n/a");
    snprintf(out, len, "%-38s %-9s %-9s %-12s %s", ug_tc_figure_name(f), got, want,
             !pub ? "-" : m->na[f] ? "n/a" : !m->has[f] ? "not measured" : eq ? "=" : "DIFFERS",
             m->note[f]);
    return eq || (pub && m->na[f]);
}

int ug_tc_params_measured(const ug_tc_params *pub, const ug_tc_measured *m, ug_tc_params *out,
                          char *why, size_t whylen)
{
    ug_tc_params q = *pub;
    if (m->has[UG_TCF_NEAB]) {
        q.neab = m->p.neab;
    } else if (m->has[UG_TCF_ACC_P] && m->acc_p != ug_tc_acc_precision(&q)) {
        ug_tc_params full = q;
        full.neab = 0;
        int p_out = ug_tc_acc_precision(&full);
        if (m->acc_p >= p_out) {
            snprintf(why, whylen, "the probe measured a %d-bit accumulator where the published "
                     "model has %d bits, and not the extra alignment bits: no model follows",
                     m->acc_p, ug_tc_acc_precision(pub));
            return 1;
        }
        q.neab = m->acc_p - p_out;
    }
    if (m->has[UG_TCF_CARRY]) q.carry_bit = m->p.carry_bit;
    if (m->has[UG_TCF_ALIGN]) q.align = m->p.align;
    if (m->has[UG_TCF_FINAL]) q.final = m->p.final;
    if (m->has[UG_TCF_BLOCK]) q.block = m->p.block;
    if (m->has[UG_TCF_IN_SUBN]) q.in_subnormals = m->p.in_subnormals;
    if (m->has[UG_TCF_OUT_SUBN]) q.out_subnormals = m->p.out_subnormals;
    const char *bad = ug_tc_params_invalid(&q);
    if (bad) {
        snprintf(why, whylen, "the measured figures make no model: %s", bad);
        return 1;
    }
    *out = q;
    return 0;
}

/* ---- black boxes ------------------------------------------------------------------------- */

bool ug_tc_kernel_probeable(const ug_kernel *k)
{
    /* bf16x9 (cuBLAS's fp32 emulation) rounds nothing to bfloat16: its op_fmt names the parts */
    const ug_opshape *sh = ug_opshape_of(k->op); /* a matrix product, by its shape row */
    return sh && sh->layout == UG_LAYOUT_MATMUL && k->bound != UG_BOUND_BF16X9 &&
           (k->out_fmt == UG_F32 || k->out_fmt == ug_tc_kernel_acc(k)) &&
           (k->op_fmt == UG_F16 || k->op_fmt == UG_BF16 || k->op_fmt == UG_TF32 ||
            k->op_fmt == UG_E4M3 || k->op_fmt == UG_E5M2);
}

ug_fmt ug_tc_kernel_acc(const ug_kernel *k) { return k->acc_fmt == UG_F16 ? UG_F16 : UG_F32; }

int ug_tc_dot_kernel(void *kernel, const double *a, const double *b, size_t k, double *d,
                     char *err, size_t errlen)
{
    const ug_kernel *K = kernel;
    size_t M = UG_TC_PMN, N = UG_TC_PMN, ba = ug_fmt_bytes(K->in_store[0]),
           bb = ug_fmt_bytes(K->in_store[1]), bo = ug_fmt_bytes(K->out_fmt);
    void *A = calloc(M * k, ba ? ba : 1), *B = calloc(k * N, bb ? bb : 1), *D = calloc(M * N, bo ? bo : 1);
    int rc = 1;
    ug_call c;
    memset(&c, 0, sizeof c);
    if (!A || !B || !D || !ba || !bb || !bo) {
        snprintf(err, errlen, "%s: out of memory, or a buffer format with no storage", K->id);
        goto done;
    }
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < k; j++) ug_fmt_store(K->in_store[0], A, i * k + j, a[j]);
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < N; i++) ug_fmt_store(K->in_store[1], B, j * N + i, b[j]);
    c.op = UG_OP_GEMM, c.shape.dim[0] = M, c.shape.dim[1] = N, c.shape.dim[2] = k;
    c.in[0] = (ug_arg){A, K->in_store[0], M * k};
    c.in[1] = (ug_arg){B, K->in_store[1], k * N};
    c.out[0] = (ug_arg_out){D, K->out_fmt, M * N};
    if (ug_kernel_run_fenced(K, &c, UG_FENCE_END) != 0) {
        snprintf(err, errlen, "%s%s: %s", c.unsupported ? "unsupported: " : "", K->id,
                 c.err[0] ? c.err : "failed");
        goto done;
    }
    *d = ug_fmt_load(K->out_fmt, D, 0);
    for (size_t i = 1; i < M * N; i++) {
        double v = ug_fmt_load(K->out_fmt, D, i);
        if (v != *d && !(isnan(v) && isnan(*d))) {
            snprintf(err, errlen, "%s: the %zu x %zu GEMM of equal rows and columns gave %a at "
                     "(0, 0) but %a at (%zu, %zu)", K->id, M, N, *d, v, i / N, i % N);
            goto done;
        }
    }
    rc = 0;
done:
    free(A), free(B), free(D);
    return rc;
}

static ug_tc_params ug_tc_model_setting;

/* The model kernel's run: binary32 buffers in, the model's GEMM (beta = 0) out. */
static int ug_tc_model_run(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *a = ug_in_f32(c, 0), *b = ug_in_f32(c, 1);
    float *out = ug_out_f32(c);
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    double *A = malloc((M * K + K * N + M * N + 1) * sizeof *A);
    if (!A) return snprintf(c->err, sizeof c->err, "tc_model: out of memory"), 1;
    double *B = A + M * K, *D = B + K * N;
    for (size_t i = 0; i < M * K; i++) A[i] = a[i];
    for (size_t i = 0; i < K * N; i++) B[i] = b[i];
    ug_tc_gemm(&ug_tc_model_setting, A, B, D, M, N, K);
    for (size_t i = 0; i < M * N; i++) out[i] = (float)D[i]; /* exact: results are binary32 */
    free(A);
    return 0;
}

const ug_kernel *ug_tc_model_kernel(const ug_tc_params *p)
{
    static ug_kernel k = {.name = "tc_model", .op = UG_OP_GEMM, .backend = UG_CPU,
                          .bound = UG_BOUND_NONE, .run = ug_tc_model_run,
                          .doc = "the tensor-core model (oracle/tc/tcmodel.h) as a GEMM",
                          .variant = "model", .id = "tc_model@model"};
    ug_tc_model_setting = *p;
    k.op_fmt = p->in_fmt;
    return &k;
}
