/*
 * fa2_plugin.c - FlashAttention-2's own forward kernel as an ulpgate plugin (libflash_attn2.so):
 * one row, the forward of Dao-AILab/flash-attention's csrc/flash_attn/src for bfloat16 Q, K, V,
 * head dim 64 or 128, causal (bottom-right aligned) or not, grouped-query heads, as mha_fwd runs
 * it with one split (fa2_launch.cu fills its parameters and calls run_mha_fwd_).  Built only when
 * -Dflash_attn_src and -Dcutlass_src name the two source trees (meson.build here; the sources
 * are never committed): docs/operations-attention.md, "FlashAttention-2's own kernel".
 *
 * The bound it claims, UG_BOUND_ATTN_FA2_MMA (kernels/bounds_attn.c, step 6), is the class of
 * FA2's arithmetic on tensor cores: raw scores q.k and P V by mma.sync m16n8k16 (bf16 in, f32
 * accumulate; the block-FMA model of bounds.c: products fused in blocks, aligned to the largest
 * and truncated), exp2 of the score times fl(c log2 e) minus the scaled running max, P rounded
 * to bfloat16 before P V, O scaled by 1/l and rounded to bfloat16, lse = m c + log l: the steps
 * of ulpgate's own attn_fa2_bf16_mma.  --use_fast_math's ex2.approx is within the class's 8u
 * for exp; lg2.approx (__logf) is within 2^-21.4 absolute on [0.5, 2], not 8u relative near
 * l = 1, so the lse part of the class is a model there, not a proof.  The row declares .ftz
 * and the approximations (UG_PLUGIN_PROPS).
 */
#define UG_PLUGIN_PROPS (UG_VP_FMA | UG_VP_FTZ | UG_VP_APPROX)
#include <stdio.h>
#include <string.h>

#include <ulpgate/ulpgate.h>

#include "examples/flash_attn2_plugin/fa2_launch.h"

/* the commits, from meson.build (git rev-parse of the two trees, else "unrecorded") */
#ifndef UG_FA2_COMMIT
#define UG_FA2_COMMIT "unrecorded"
#endif
#ifndef UG_CUTLASS_COMMIT
#define UG_CUTLASS_COMMIT "unrecorded"
#endif

/* The row's launcher (the contract of <ulpgate/ulpgate.h>): checks the call is one FA2's built
 * instantiations compute (else unsupported, saying why), then one forward on the GPU. */
static int fa2_run(const ug_kernel *k, ug_call *c)
{
    (void)k;
    size_t L = ug_dim(c, 0), S = ug_dim(c, 1), d = ug_dim(c, 2), dv = ug_dim(c, 3);
    size_t batch = c->shape.batch ? c->shape.batch : 1, heads = c->shape.heads ? c->shape.heads : 1;
    size_t kvh = c->shape.kv_heads ? c->shape.kv_heads : heads;
    const unsigned short *q = ug_in_bf16(c, 0), *kk = ug_in_bf16(c, 1), *v = ug_in_bf16(c, 2);
    unsigned short *o = (unsigned short *)ug_output_as(c, 0, UG_BF16);
    float *lse = ug_output_f32(c, 1);
    if (c->op != UG_OP_ATTENTION || !q || !kk || !v || !o || !lse) {
        snprintf(c->err, sizeof c->err, "flash_attn2: an attention call on bf16 Q K V, bf16 O "
                                        "and binary32 lse");
        return 1;
    }
    if ((d != 64 && d != 128) || dv != d) {
        c->unsupported = true;
        snprintf(c->err, sizeof c->err, "flash_attn2: built for head dim 64 and 128 with dv = d "
                 "(this call: d %zu, dv %zu)", d, dv);
        return 1;
    }
    if (L == 0 || S == 0 || kvh == 0 || heads % kvh != 0 || L > 0x7fffffff || S > 0x7fffffff ||
        batch * heads > 0x7fffffff) {
        snprintf(c->err, sizeof c->err, "flash_attn2: L %zu, S %zu, %zu heads over %zu kv heads: "
                 "FA2 takes int sizes and heads a multiple of kv heads", L, S, heads, kvh);
        return 1;
    }
    ug_fa2_problem pb = {batch, heads, kvh, L, S, d, 0, (c->opts.flags & UG_OPT_CAUSAL) != 0,
                         c->reps};
    pb.scale = c->opts.scale > 0 ? (float)c->opts.scale : (float)(1.0 / __builtin_sqrt((double)d));
    ug_fa2_buffers io = {q, kk, v, o, lse, 0};
    int rc = ug_fa2_run(&pb, &io, c->err, sizeof c->err, &c->unsupported);
    if (rc == 0 && c->reps > 0) c->time_ms = io.time_ms;
    return rc;
}

UG_PLUGIN(
    {.name = "flash_attn2_fwd_bf16", .op = UG_OP_ATTENTION, .backend = UG_CUDA,
     .acc_fmt = UG_F32, .out_fmt = UG_BF16,
     .in_store = {UG_BF16, UG_BF16, UG_BF16}, .out_more_fmt = {UG_F32}, .ftz = true,
     .bound = UG_BOUND_ATTN_FA2_MMA, .run = fa2_run,
     .doc = "FlashAttention-2's own forward (Dao-AILab/flash-attention " UG_FA2_COMMIT
            ", CUTLASS " UG_CUTLASS_COMMIT "): bf16, head dim 64/128, causal or not, one split"},
)
