/*
 * quantize.c - a quantizer's output graded exactly against its scale rule (ops/quantize.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/quantize.h"

// --- codes ------------------------------------------------------------------------------------

static uint32_t q_code_at(const ug_blockfmt *B, const uint8_t *scales, size_t b)
{
    if (ug_scale_bytes(B->scale) == 4) {
        uint32_t u;
        memcpy(&u, scales + 4 * b, 4);
        return u;
    }
    return scales[b];
}

/* The same scale: the same code, or both NaN (E4M3 has one NaN a sign, binary32 many). */
static bool q_same_scale(ug_scale_kind k, uint32_t a, uint32_t b)
{
    double va = ug_scale_decode(k, a), vb = ug_scale_decode(k, b);
    return a == b || (isnan(va) && isnan(vb));
}

/* The largest magnitude of block b; NaN if one is NaN. */
static double q_amax(const ug_blockfmt *B, const ug_quantize_call *c, size_t b, size_t *r0,
                     size_t *r1, size_t *c0, size_t *c1)
{
    size_t br = (size_t)B->block_rows, bc = (size_t)B->block_cols, gc = (c->cols + bc - 1) / bc;
    *r0 = b / gc * br, *c0 = b % gc * bc;
    *r1 = *r0 + br < c->rows ? *r0 + br : c->rows;
    *c1 = *c0 + bc < c->cols ? *c0 + bc : c->cols;
    double m = 0;
    for (size_t r = *r0; r < *r1; r++)
        for (size_t j = *c0; j < *c1; j++) {
            double a = fabs((double)c->x[r * c->cols + j]);
            if (isnan(a)) return NAN;
            m = a > m ? a : m;
        }
    return m;
}

/* Which rule other than the claimed one gives code for this block, or NULL. */
static const char *q_other_rule(const ug_blockfmt *B, ug_scale_rule rule, double amax,
                                double tensor, uint32_t code)
{
    if (B->scale == UG_SCALE_E8M0) {
        static const ug_scale_rule pow2[] = {UG_SRULE_OCP, UG_SRULE_CEIL};
        for (size_t i = 0; i < 2; i++)
            if (pow2[i] != rule &&
                q_same_scale(B->scale, ug_scale_of(pow2[i], B->elem, B->scale, amax, 0).code, code))
                return ug_scale_rule_name(pow2[i]);
    }
    ug_scale untensored = ug_scale_of(UG_SRULE_NVFP4, B->elem, B->scale, amax, 1.0);
    if (B->scale == UG_SCALE_E4M3 && tensor != 1.0 && q_same_scale(B->scale, untensored.code, code))
        return "nvfp4 without its tensor scale";
    return NULL;
}

/* The block's largest |x - RN_sat(x / s) s| (s = 0: |x|). */
static double q_block_err(const ug_blockfmt *B, const ug_quantize_call *c, size_t r0, size_t r1,
                          size_t c0, size_t c1, double s)
{
    double e = 0;
    for (size_t r = r0; r < r1; r++)
        for (size_t j = c0; j < c1; j++) {
            double x = c->x[r * c->cols + j], d = fabs(x - ug_blockfmt_elem_of(B->elem, x, s) * s);
            e = d > e ? d : e;
        }
    return e;
}

// --- the grade --------------------------------------------------------------------------------

int ug_quantize_grade(const ug_blockfmt *B, ug_scale_rule rule, const ug_quantize_call *c,
                      ug_qgrade *g, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    if (!B || !c->x || !c->elems || !c->scales ||
        !ug_scale_rule_fits(rule, B->scale, B->tensor_scale)) {
        snprintf(err, errlen, "quantize: %s and rule %s do not fit the call", B ? B->name : "?",
                 ug_scale_rule_name(rule));
        return 1;
    }
    size_t n = c->rows * c->cols;
    g->blocks = ug_quantize_blocks(B, c->rows, c->cols);
    g->elems = n;
    double T = 1.0; /* the rule's tensor scale; the quantizer's grades its elements */
    if (B->tensor_scale) {
        double amax_t = 0;
        for (size_t i = 0; i < n; i++) {
            double a = fabs((double)c->x[i]);
            amax_t = isnan(a) || isnan(amax_t) ? NAN : a > amax_t ? a : amax_t;
        }
        T = ug_nvfp4_tensor_scale(amax_t);
        g->tensor_want = (float)T, g->tensor_got = c->tensor;
        g->tensor_differs = !(g->tensor_got == g->tensor_want ||
                              (isnan(g->tensor_got) && isnan(g->tensor_want)));
    }
    double T_got = B->tensor_scale ? (double)c->tensor : 1.0;
    for (size_t b = 0; b < g->blocks; b++) {
        size_t r0, r1, c0, c1;
        double amax = q_amax(B, c, b, &r0, &r1, &c0, &c1);
        ug_scale want = ug_scale_of(rule, B->elem, B->scale, amax, T);
        uint32_t got = q_code_at(B, c->scales, b);
        if (!q_same_scale(B->scale, got, want.code) && g->scale_differ++ == 0) {
            g->scale_block = b, g->scale_got = got, g->scale_want = want.code;
            g->scale_matches = q_other_rule(B, rule, amax, T, got);
        }
        double s = ug_scale_decode(B->scale, got) * T_got;
        if (isnan(s)) continue; /* every element NaN, whatever its code */
        double e_got = 0;
        for (size_t r = r0; r < r1; r++)
            for (size_t j = c0; j < c1; j++) {
                size_t i = r * c->cols + j;
                double x = c->x[i], v = ug_fmt_decode(B->elem, c->elems[i]);
                double w = ug_blockfmt_elem_of(B->elem, x, s);
                bool same = v == w || (isnan(v) && isnan(w));
                double d = fabs(x - v * s);
                e_got = isnan(d) ? INFINITY : d > e_got ? d : e_got;
                if (!same && g->elem_wrong++ == 0) {
                    g->elem_index = i, g->elem_block = b, g->elem_x = c->x[i];
                    g->elem_got = c->elems[i];
                    g->elem_want = (uint32_t)ug_fmt_encode(B->elem, w);
                    g->elem_scale_got = got, g->elem_scale_want = want.code;
                }
            }
        if (!(amax < INFINITY) || isnan(want.value)) continue; /* no error to compare */
        double sw = want.value * T, best = q_block_err(B, c, r0, r1, c0, c1, sw);
        if (B->scale == UG_SCALE_E8M0) /* a power-of-two scale's neighbours may do better */
            for (int k = -1; k <= 1; k += 2) {
                double sk = ldexp(sw, k), e;
                if (sk < 0x1p-127 || sk > 0x1p127) continue; /* not an E8M0 value */
                e = q_block_err(B, c, r0, r1, c0, c1, sk);
                best = e < best ? e : best;
            }
        if (e_got > best) {
            g->err_worse_blocks++;
            double ex = best > 0 ? (e_got - best) / best : INFINITY;
            g->err_excess_max = ex > g->err_excess_max ? ex : g->err_excess_max;
        }
    }
    return 0;
}

void ug_qgrade_text(const ug_blockfmt *B, ug_scale_rule rule, const ug_qgrade *g, char *buf,
                    size_t len)
{
    int w = ug_scale_bytes(B->scale) == 4 ? 8 : 2;
    buf[0] = 0;
    if (g->scale_differ) {
        snprintf(buf, len, "%zu of %zu block scales differ from the rule; first: block %zu: "
                 "scale 0x%0*x, the rule (%s) says 0x%0*x (%s%s)",
                 g->scale_differ, g->blocks, g->scale_block, w, g->scale_got,
                 ug_scale_rule_name(rule), w, g->scale_want,
                 g->scale_matches ? "matches " : "matches no other rule",
                 g->scale_matches ? g->scale_matches : "");
    } else if (g->elem_wrong) {
        snprintf(buf, len, "%zu of %zu elements not RN of x / scale; first: block %zu (scale "
                 "0x%0*x, the rule's 0x%0*x): element %zu (x = %a): 0x%02x (%g), want 0x%02x (%g)",
                 g->elem_wrong, g->elems, g->elem_block, w, g->elem_scale_got, w,
                 g->elem_scale_want, g->elem_index, (double)g->elem_x, g->elem_got,
                 ug_fmt_decode(B->elem, g->elem_got), g->elem_want,
                 ug_fmt_decode(B->elem, g->elem_want));
    } else if (g->tensor_differs) {
        snprintf(buf, len, "tensor scale %a, the rule says %a", (double)g->tensor_got,
                 (double)g->tensor_want);
    }
}
