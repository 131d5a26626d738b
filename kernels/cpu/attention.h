/*
 * attention.h - the CPU attention kernels' arithmetic (kernels/cpu/attention.c), one head at a
 * time: Q (L x d), K (S x d), V (S x dv) row-major binary32 (the bfloat16 kernel reads
 * bfloat16 values held in binary32), scale c, causal bottom-right (row i sees keys
 * k <= i + S - L), O (L x dv) and lse (L) out in binary32 (the bfloat16 kernel's O holds
 * bfloat16 values).  A row that sees no key gets O = NaN and lse = -inf.  Each is a textbook
 * or published form; kernels/bounds_attn.c bounds each class.
 *
 *   ug_attn_naive_cpu      three passes: S = fl(c fl(q . k)) serial binary32, the shifted
 *                          softmax P = fl(exp(s - max) / sum), O = sum fl(P V) serial
 *   ug_attn_naive_bf16_cpu PyTorch's math attention in bfloat16 (Golden et al.'s baseline): the
 *                          naive form on bf16 Q, K, V with P and O rounded to bfloat16
 *   ug_attn_unshifted_cpu  the same without the max shift: exp(s) overflows from s = 88.7, the
 *                          textbook failure (Blanchard, Higham, Mary 2021, sec. 2)
 *   ug_attn_online_cpu     FlashAttention-2's loop in binary32: key blocks of `block`, a running
 *                          max and sum, O rescaled by exp(m_old - m_new) at each block, one
 *                          multiplication by 1/l at the end (Dao 2023, Algorithm 1)
 *   ug_attn_fa2_bf16_cpu   the same with FlashAttention-2's own arithmetic: bfloat16 Q, K, V,
 *                          raw scores fl(q . k), exp2f(fma(s, c log2 e, -m c log2 e)) with
 *                          c log2 e folded into one binary32, P rounded to bfloat16 before
 *                          P V, binary32 accumulators, O rounded to bfloat16, lse = fl(m c) +
 *                          log(l) (csrc/flash_attn/src/softmax.h, flash_fwd_kernel.h)
 *   ug_attn_splitkv_cpu    Flash-Decoding: the keys in splits, each an online pass giving its
 *                          normalised O_s and lse_s, combined as FlashAttention-2's
 *                          combine kernel does: lse = lmax + log sum exp(lse_s - lmax),
 *                          O = sum exp(lse_s - lse) O_s; splits of `split` keys (a fixed
 *                          split size), or `split` splits of ceil(S / split) keys (a fixed
 *                          number: nsplits != 0), both over the call's keys 0 .. S - 1 as
 *                          Flash-Decoding cuts them; a causal row takes the splits holding
 *                          its keys.  The size's boundaries do not depend on S (batch- and
 *                          chunk-invariant); the count's do (a chunked prefill or a decode
 *                          step, S shorter, moves them)
 */
#ifndef UG_KERNELS_CPU_ATTENTION_H
#define UG_KERNELS_CPU_ATTENTION_H

#include <stdbool.h>
#include <stddef.h>

#include "include/ulpgate/ulpgate.h"

/* One head each: its sizes the shape's dims L S d dv (shp->dim[0..3]), its scale c opt->scale
 * in binary32 (0 or opt NULL: RN(1/sqrt(d)) through binary64), causal UG_OPT_CAUSAL. */
void ug_attn_naive_cpu(const float *Q, const float *K, const float *V, const ug_shape *shp,
                       const ug_opts *opt, float *O, float *lse);
void ug_attn_naive_bf16_cpu(const float *Q, const float *K, const float *V,
                            const ug_shape *shp, const ug_opts *opt, float *O, float *lse);
void ug_attn_unshifted_cpu(const float *Q, const float *K, const float *V,
                           const ug_shape *shp, const ug_opts *opt, float *O, float *lse);
void ug_attn_online_cpu(const float *Q, const float *K, const float *V, const ug_shape *shp,
                        const ug_opts *opt, size_t block, float *O, float *lse);
void ug_attn_fa2_bf16_cpu(const float *Q, const float *K, const float *V,
                          const ug_shape *shp, const ug_opts *opt, size_t block, float *O,
                          float *lse);
void ug_attn_splitkv_cpu(const float *Q, const float *K, const float *V, const ug_shape *shp,
                         const ug_opts *opt, size_t split, bool nsplits, float *O, float *lse);
/* FlashAttention-2's split count for a decode of batch_heads (batch x heads) problems of L
 * query rows and S keys on an H100 (132 SMs; flash_api.cpp's num_splits_heuristic with its
 * 2 x SMs and 128 most): a function of the batch, so a split-KV kernel that takes it is not
 * batch-invariant (ug_attn_splitkv_cpu with it as the count, nsplits). */
size_t ug_attn_fa2_splits(size_t batch_heads, size_t L, size_t S, size_t d);
/* The keys row i sees. */
size_t ug_attn_kkeys(const ug_shape *shp, const ug_opts *opt, size_t i);

#endif
