/*
 * attention.c - scaled dot-product attention: Q (L x d), K (S x d), V (S x dv) a
 * head, the heads after the batch, grouped-query heads (query head h reads key/value head
 * h / (heads / kv_heads)); outputs O (L x dv) and the row log-sum-exp, each correctly rounded
 * (oracle/attention/exact_attention.h: exact scores on the binary32 scale, MPFR enclosures and a
 * fast path).  Its shape row is base/opshape.c's; three inputs and per-call options, so its
 * exact results come through exact_in (ops/op.h), and its bound, which needs the row's score
 * magnitude beside each output's weighted |V| sum, through ug_attention_bound.
 */
#include <math.h>
#include <stdlib.h>

#include "base/sys.h"
#include "kernels/bounds_attn.h"
#include "ops/op.h"
#include "oracle/attention/exact_attention.h"

float ug_attention_scale(const ug_shape *s, const ug_opts *o) { return ug_attn_scale(s, o); }

/* The call's options with the scale resolved once (the default's MPFR evaluation not per row). */
static ug_opts attn_head_opts(const ug_shape *s, const ug_opts *o)
{
    return (ug_opts){ug_attn_scale(s, o), o ? o->flags : 0u};
}

/* Every head of one trial: O's records (problems x L x dv), then lse's (problems x L). */
static void attn_exact_in(const float *const *in, const ug_shape *s, const ug_opts *o,
                          ug_exact *out)
{
    ug_opts ho = attn_head_opts(s, o);
    size_t L = s->dim[0], S = s->dim[1], d = s->dim[2], dv = s->dim[3];
    size_t P = ug_shape_problems(s, false), per = L * dv;
    for (size_t p = 0; p < P; p++) {
        size_t kv = ug_shape_kv_problem(s, p);
        ug_exact_attention(in[0] + p * L * d, in[1] + kv * S * d, in[2] + kv * S * dv, s, &ho,
                           out + p * per, out + P * per + p * L);
    }
}

double ug_attention_bound(const ug_kernel *k, const ug_shape *s, const ug_opts *o,
                          const ug_exact *records, size_t e)
{
    static const struct {
        ug_bound_class b;
        ug_attn_class c;
        size_t split;
    } map[] = {
        {UG_BOUND_ATTN_NAIVE, UG_ATTN_NAIVE, 0},           {UG_BOUND_ATTN_NAIVE_BF16, UG_ATTN_NAIVE_BF16, 0},
        {UG_BOUND_ATTN_UNSHIFTED, UG_ATTN_UNSHIFTED, 0},   {UG_BOUND_ATTN_ONLINE, UG_ATTN_ONLINE, 0},
        {UG_BOUND_ATTN_FA2_BF16, UG_ATTN_FA2_BF16, 0},     {UG_BOUND_ATTN_SPLIT_SIZE, UG_ATTN_SPLIT_SIZE, 256},
        {UG_BOUND_ATTN_SPLIT_COUNT, UG_ATTN_SPLIT_COUNT, 8}, {UG_BOUND_ATTN_FA2_MMA, UG_ATTN_FA2_MMA, 0},
    };
    ug_opts ho = attn_head_opts(s, o);
    size_t L = s->dim[0], dv = s->dim[3];
    size_t P = ug_shape_problems(s, false), per = L * dv, row;
    bool is_o = e < P * per;
    row = is_o ? e / dv : e - P * per; /* problem x L + i */
    const ug_exact *x = &records[e], *l = &records[P * per + row];
    for (size_t m = 0; m < sizeof map / sizeof map[0]; m++) {
        if (map[m].b != k->bound) continue;
        size_t block = 64;
        ug_attn_model md = {map[m].c, ug_attn_keys(s, &ho, row % L), s->dim[2], block,
                            map[m].split, (double)ho.scale, s->dim[1]};
        return is_o ? ug_attn_bound_O(&md, l->sum_abs, x->sum_abs, fabs(x->hi))
                    : ug_attn_bound_lse(&md, l->sum_abs, fabs(x->hi));
    }
    return INFINITY;
}

static const ug_bound_class ug_attention_classes[] = {UG_BOUND_ATTN_NAIVE,
    UG_BOUND_ATTN_NAIVE_BF16, UG_BOUND_ATTN_UNSHIFTED, UG_BOUND_ATTN_ONLINE,
    UG_BOUND_ATTN_FA2_BF16, UG_BOUND_ATTN_SPLIT_SIZE, UG_BOUND_ATTN_SPLIT_COUNT,
    UG_BOUND_ATTN_FA2_MMA, UG_BOUND_NONE};

const ug_op_desc ug_op_attention_desc = {
    .shape = UG_OPSHAPE(UG_OP_ATTENTION),
    .doc = "O = softmax(c Q K^T) V and the row log-sum-exp, a head of Q (L x d), K (S x d), "
           "V (S x dv); causal bottom-right",
    .specials = "a NaN or infinity in q_i or a K row it sees: row i's O and lse NaN; a "
                "non-finite V_kj of a key row i sees: O_ij alone, NaN (or +-inf for infinities "
                "of one sign); a row that sees no key (causal, L > S): O NaN, lse -inf",
    .hunt_exp = 6,
    .exact_in = attn_exact_in,
    .bound_at = ug_attention_bound,
    .classes = ug_attention_classes,
};
