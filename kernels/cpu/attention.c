/*
 * attention.c - CPU attention kernels (kernels/cpu/attention.h has the list and what each
 * computes; kernels/bounds_attn.c bounds each class).  C as written, binary32 arithmetic in
 * the order written (-ffp-contract=off: the one FMA is FlashAttention-2's, written out).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "kernels/cpu/attention.h"
#include "kernels/kernel.h"

/* The scale of a call: opt->scale in binary32, or RN(1/sqrt(d)) through binary64 for 0. */
static float ug_attn_kscale(const ug_shape *shp, const ug_opts *opt)
{
    return opt && opt->scale > 0 ? (float)opt->scale : (float)(1.0 / sqrt((double)shp->dim[2]));
}

size_t ug_attn_kkeys(const ug_shape *shp, const ug_opts *opt, size_t i)
{
    if (!(opt && (opt->flags & UG_OPT_CAUSAL))) return shp->dim[1];
    if (i + shp->dim[1] + 1 <= shp->dim[0]) return 0;
    size_t n = i + shp->dim[1] + 1 - shp->dim[0];
    return n < shp->dim[1] ? n : shp->dim[1];
}

/* RN-even to bfloat16, the value in binary32 (NaN kept quiet). */
static float bf16(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    if ((b & 0x7f800000u) == 0x7f800000u) return (b & 0x7fffffu) ? x + x : x;
    b = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u;
    memcpy(&x, &b, 4);
    return x;
}

/* q . k in binary32, serial, each product and sum rounded. */
static float dot_serial(const float *q, const float *k, size_t d)
{
    float acc = 0.0f;
    for (size_t t = 0; t < d; t++) acc += q[t] * k[t];
    return acc;
}

static void no_key(size_t dv, float *O, float *lse)
{
    for (size_t j = 0; j < dv; j++) O[j] = NAN;
    *lse = -INFINITY;
}

/* ---- naive three-pass ------------------------------------------------------------------------- */

/* The naive form's weights of one query row q over its n keys: sc[k] = exp(s_k - m) with
 * s_k = c fl(q . k_k) and m their max (*m), in key order; returns their binary32 sum, in key
 * order.  Both naive kernels' rows. */
static float naive_weights(const float *q, const float *K, size_t n, size_t d, float cs,
                           float *sc, float *m)
{
    float mx = -INFINITY, l = 0.0f;
    for (size_t k = 0; k < n; k++) {
        sc[k] = cs * dot_serial(q, K + k * d, d);
        mx = sc[k] > mx ? sc[k] : mx;
    }
    for (size_t k = 0; k < n; k++) {
        sc[k] = expf(sc[k] - mx);
        l += sc[k];
    }
    *m = mx;
    return l;
}

void ug_attn_naive_cpu(const float *Q, const float *K, const float *V, const ug_shape *shp,
                       const ug_opts *opt, float *O, float *lse)
{
    const float cs = ug_attn_kscale(shp, opt);
    size_t d = shp->dim[2], dv = shp->dim[3];
    float *sc = malloc((shp->dim[1] ? shp->dim[1] : 1) * sizeof *sc);
    for (size_t i = 0; i < shp->dim[0]; i++) {
        size_t n = ug_attn_kkeys(shp, opt, i);
        float *o = O + i * dv;
        if (!n || !sc) {
            no_key(dv, o, &lse[i]);
            continue;
        }
        float m = -INFINITY, l = 0.0f;
        l = naive_weights(Q + i * d, K, n, d, cs, sc, &m);
        for (size_t j = 0; j < dv; j++) o[j] = 0.0f;
        for (size_t k = 0; k < n; k++) {
            float p = sc[k] / l;
            for (size_t j = 0; j < dv; j++) o[j] += p * V[k * dv + j];
        }
        lse[i] = m + logf(l);
    }
    free(sc);
}

/* PyTorch's math attention in bfloat16 (the baseline of Golden et al. 2024): S = fl(q . k)
 * in binary32 times c, the softmax in binary32 rounded to bfloat16 (softmax's output dtype),
 * P V with binary32 sums of the exact bf16 products, O rounded to bfloat16. */
void ug_attn_naive_bf16_cpu(const float *Q, const float *K, const float *V,
                            const ug_shape *shp, const ug_opts *opt, float *O, float *lse)
{
    const float cs = ug_attn_kscale(shp, opt);
    size_t d = shp->dim[2], dv = shp->dim[3];
    float *sc = malloc((shp->dim[1] ? shp->dim[1] : 1) * sizeof *sc);
    for (size_t i = 0; i < shp->dim[0]; i++) {
        size_t n = ug_attn_kkeys(shp, opt, i);
        float *o = O + i * dv, m = -INFINITY, l = 0.0f;
        if (!n || !sc) {
            no_key(dv, o, &lse[i]);
            continue;
        }
        l = naive_weights(Q + i * d, K, n, d, cs, sc, &m);
        for (size_t j = 0; j < dv; j++) o[j] = 0.0f;
        for (size_t k = 0; k < n; k++) {
            float p = bf16(sc[k] / l);
            for (size_t j = 0; j < dv; j++) o[j] += p * V[k * dv + j];
        }
        for (size_t j = 0; j < dv; j++) o[j] = bf16(o[j]);
        lse[i] = m + logf(l);
    }
    free(sc);
}

/* The textbook form without the max: e_k = exp(s_k) overflows from s = 88.7 (inf / inf). */
__attribute__((no_sanitize("float-divide-by-zero")))
void ug_attn_unshifted_cpu(const float *Q, const float *K, const float *V,
                           const ug_shape *shp, const ug_opts *opt, float *O, float *lse)
{
    const float cs = ug_attn_kscale(shp, opt);
    size_t d = shp->dim[2], dv = shp->dim[3];
    float *sc = malloc((shp->dim[1] ? shp->dim[1] : 1) * sizeof *sc);
    for (size_t i = 0; i < shp->dim[0]; i++) {
        size_t n = ug_attn_kkeys(shp, opt, i);
        float *o = O + i * dv, l = 0.0f;
        if (!n || !sc) {
            no_key(dv, o, &lse[i]);
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            sc[k] = expf(cs * dot_serial(Q + i * d, K + k * d, d));
            l += sc[k];
        }
        for (size_t j = 0; j < dv; j++) o[j] = 0.0f;
        for (size_t k = 0; k < n; k++) {
            float p = sc[k] / l;
            for (size_t j = 0; j < dv; j++) o[j] += p * V[k * dv + j];
        }
        lse[i] = logf(l);
    }
    free(sc);
}

/* ---- FlashAttention-2's loop in binary32 ---------------------------------------------------- */

/* One online pass over keys [k0, k1) of query q: the unnormalised acc (dv), the running max
 * *m and sum *l (FlashAttention-2, Algorithm 1, natural exp). */
static void online_pass(const float *q, const float *K, const float *V, const ug_shape *shp,
                        const ug_opts *opt,
                        size_t k0, size_t k1, size_t block, float *sc, float *acc, float *m_out,
                        float *l_out)
{
    const float cs = ug_attn_kscale(shp, opt);
    size_t d = shp->dim[2], dv = shp->dim[3];
    float m = -INFINITY, l = 0.0f;
    for (size_t j = 0; j < dv; j++) acc[j] = 0.0f;
    for (size_t b0 = k0; b0 < k1; b0 += block) {
        size_t b1 = b0 + block < k1 ? b0 + block : k1;
        float mb = m;
        for (size_t k = b0; k < b1; k++) {
            sc[k - b0] = cs * dot_serial(q, K + k * d, d);
            mb = sc[k - b0] > mb ? sc[k - b0] : mb;
        }
        float alpha = m == -INFINITY ? 0.0f : expf(m - mb);
        l *= alpha;
        for (size_t j = 0; j < dv; j++) acc[j] *= alpha;
        for (size_t k = b0; k < b1; k++) {
            float p = expf(sc[k - b0] - mb);
            l += p;
            for (size_t j = 0; j < dv; j++) acc[j] += p * V[k * dv + j];
        }
        m = mb;
    }
    *m_out = m;
    *l_out = l;
}

void ug_attn_online_cpu(const float *Q, const float *K, const float *V, const ug_shape *shp,
                        const ug_opts *opt,
                        size_t block, float *O, float *lse)
{
    size_t dv = shp->dim[3];
    block = block ? block : 64;
    float *sc = malloc(block * sizeof *sc);
    for (size_t i = 0; i < shp->dim[0]; i++) {
        size_t n = ug_attn_kkeys(shp, opt, i);
        float *o = O + i * dv, m, l;
        if (!n || !sc) {
            no_key(dv, o, &lse[i]);
            continue;
        }
        online_pass(Q + i * shp->dim[2], K, V, shp, opt, 0, n, block, sc, o, &m, &l);
        float inv = 1.0f / l;
        for (size_t j = 0; j < dv; j++) o[j] *= inv;
        lse[i] = m + logf(l);
    }
    free(sc);
}

/* ---- FlashAttention-2's own arithmetic, bfloat16 -------------------------------------------- */

void ug_attn_fa2_bf16_cpu(const float *Q, const float *K, const float *V,
                          const ug_shape *shp, const ug_opts *opt, size_t block, float *O, float *lse)
{
    const float cs = ug_attn_kscale(shp, opt);
    size_t d = shp->dim[2], dv = shp->dim[3];
    block = block ? block : 64;
    /* params.scale_softmax_log2 = softmax_scale * M_LOG2E, stored as float */
    float sl2 = (float)((double)cs * 1.4426950408889634);
    float *sc = malloc(block * sizeof *sc);
    for (size_t i = 0; i < shp->dim[0]; i++) {
        size_t n = ug_attn_kkeys(shp, opt, i);
        float *o = O + i * dv;
        if (!n || !sc) {
            no_key(dv, o, &lse[i]);
            continue;
        }
        float m = -INFINITY, l = 0.0f;
        for (size_t j = 0; j < dv; j++) o[j] = 0.0f;
        for (size_t b0 = 0; b0 < n; b0 += block) {
            size_t b1 = b0 + block < n ? b0 + block : n;
            float mb = m;
            for (size_t k = b0; k < b1; k++) { /* raw scores: bf16 products exact, fp32 sums */
                sc[k - b0] = dot_serial(Q + i * d, K + k * d, d);
                mb = sc[k - b0] > mb ? sc[k - b0] : mb;
            }
            float alpha = m == -INFINITY ? 0.0f : exp2f((m - mb) * sl2);
            float ms = mb * sl2, rs = 0.0f;
            l *= alpha;
            for (size_t j = 0; j < dv; j++) o[j] *= alpha;
            for (size_t k = b0; k < b1; k++) {
                float p = exp2f(fmaf(sc[k - b0], sl2, -ms));
                rs += p;             /* the row sum of the fp32 P */
                float pb = bf16(p);  /* P converted to bf16 for the P V product */
                for (size_t j = 0; j < dv; j++) o[j] += pb * V[k * dv + j];
            }
            l += rs;
            m = mb;
        }
        float inv = 1.0f / l;
        for (size_t j = 0; j < dv; j++) o[j] = bf16(o[j] * inv);
        lse[i] = m * cs + logf(l);
    }
    free(sc);
}

/* ---- split-KV decoding ---------------------------------------------------------------------- */

void ug_attn_splitkv_cpu(const float *Q, const float *K, const float *V, const ug_shape *shp,
                         const ug_opts *opt,
                         size_t split, bool nsplits, float *O, float *lse)
{
    size_t dv = shp->dim[3], maxs = nsplits ? split : (shp->dim[1] + split - 1) / split;
    maxs = maxs ? maxs : 1;
    float *sc = malloc(64 * sizeof *sc), *os = malloc(maxs * dv * sizeof *os);
    float *ls = malloc(maxs * sizeof *ls);
    for (size_t i = 0; i < shp->dim[0]; i++) {
        size_t n = ug_attn_kkeys(shp, opt, i);
        float *o = O + i * dv;
        if (!n || !sc || !os || !ls) {
            no_key(dv, o, &lse[i]);
            continue;
        }
        /* Flash-Decoding's splits cut the call's keys, 0 .. S - 1, not the row's: a fixed size
         * puts the boundaries at multiples of it from key 0 (the same for every S), a fixed
         * count makes them ceil(S / count) apart (they move with S: with the cache's length in
         * a decode step).  A causal row sees keys 0 .. n - 1 and takes the splits that hold
         * them (FlashAttention-2's flash_fwd_split: n_blocks_per_split from seqlen_k, the
         * causal limit applied inside each split). */
        size_t size = nsplits ? (shp->dim[1] + split - 1) / split : split;
        size_t ns = (n + size - 1) / size;
        for (size_t p = 0; p < ns; p++) { /* each split: its normalised O_s and lse_s */
            size_t k0 = p * size, k1 = k0 + size < n ? k0 + size : n;
            float m, l, *op = os + p * dv;
            online_pass(Q + i * shp->dim[2], K, V, shp, opt, k0, k1, 64, sc, op, &m, &l);
            float inv = 1.0f / l;
            for (size_t j = 0; j < dv; j++) op[j] *= inv;
            ls[p] = m + logf(l);
        }
        /* FlashAttention-2's combine: lse_max, sum of exp(lse_s - lse_max), the scales */
        float lmax = -INFINITY, sum = 0.0f;
        for (size_t p = 0; p < ns; p++) lmax = ls[p] > lmax ? ls[p] : lmax;
        for (size_t p = 0; p < ns; p++) sum += expf(ls[p] - lmax);
        float L = logf(sum) + lmax;
        for (size_t j = 0; j < dv; j++) o[j] = 0.0f;
        for (size_t p = 0; p < ns; p++) {
            float w = expf(ls[p] - L);
            for (size_t j = 0; j < dv; j++) o[j] += w * os[p * dv + j];
        }
        lse[i] = L;
    }
    free(sc);
    free(os);
    free(ls);
}

/* ---- FlashAttention-2's split count ----------------------------------------------------------- */

/* flash_api.cpp's num_splits_heuristic: 1 split once batch x heads x query blocks nearly fill
 * the SMs, else the fewest splits whose wave efficiency is within 85% of the best. */
static int fa2_num_splits(int bhm, int sms, int nblocks, int max_splits)
{
    if (bhm >= 0.8f * (float)sms) return 1;
    max_splits = max_splits < sms ? max_splits : sms;
    max_splits = max_splits < nblocks ? max_splits : nblocks;
    float eff[128] = {0}, best = 0;
    for (int ns = 1; ns <= max_splits && ns <= 128; ns++) {
        bool ok = ns == 1 || (nblocks + ns - 1) / ns != (nblocks + ns - 2) / (ns - 1);
        if (!ok) continue;
        float waves = (float)(bhm * ns) / (float)sms;
        eff[ns - 1] = waves / ceilf(waves);
        best = eff[ns - 1] > best ? eff[ns - 1] : best;
    }
    for (int ns = 1; ns <= max_splits && ns <= 128; ns++)
        if (eff[ns - 1] > 0 && eff[ns - 1] >= 0.85f * best) return ns;
    return 1;
}

size_t ug_attn_fa2_splits(size_t batch_heads, size_t L, size_t S, size_t d)
{
    int block_n = d <= 64 ? 256 : d <= 128 ? 128 : 64;
    int nblocks = (int)((S + (size_t)block_n - 1) / (size_t)block_n);
    int mblocks = (int)((L + 63) / 64);
    return (size_t)fa2_num_splits((int)batch_heads * mblocks, 132 * 2, nblocks, 128);
}

/* ---- the family: registry rows and the launcher ---------------------------------------------- */

enum { A_NAIVE, A_NAIVE_BF16, A_UNSHIFTED, A_ONLINE, A_FA2_BF16, A_SPLIT_SIZE, A_SPLIT_COUNT };

#define UG_ATTN_BF16_IO .in_store = {UG_BF16, UG_BF16, UG_BF16}, .out_fmt = UG_BF16

/* Batch-invariant, all but the split count: each head alone; a row's keys in blocks of 64 (or
 * splits of 256) counted from key 0, so the same blocks whether the row is computed in one
 * prefill or in a chunk or a decode step.  The split count divides the call's S: the split
 * size follows the call, the bits with it (declared not invariant; cases/invariance.c). */
static const ug_kernel ug_cpu_attention_kernels[] = {
    {.name = "attn_naive_cpu", .op = UG_OP_ATTENTION, .batch_invariant = true, .bound = UG_BOUND_ATTN_NAIVE,
     .version = A_NAIVE, .doc = "three passes: S = fl(c q.k), P = exp(s - max) / l, O = sum P V"},
    {.name = "attn_naive_bf16_cpu", .op = UG_OP_ATTENTION, .batch_invariant = true, .bound = UG_BOUND_ATTN_NAIVE_BF16,
     .version = A_NAIVE_BF16, UG_ATTN_BF16_IO,
     .doc = "PyTorch's bf16 math attention: the naive form, P and O rounded to bf16"},
    {.name = "attn_unshifted_cpu", .op = UG_OP_ATTENTION, .batch_invariant = true, .bound = UG_BOUND_ATTN_UNSHIFTED,
     .version = A_UNSHIFTED, .doc = "exp(s) / sum exp(s) without the max: overflows from s = 88.7"},
    {.name = "attn_online_cpu", .op = UG_OP_ATTENTION, .batch_invariant = true, .bound = UG_BOUND_ATTN_ONLINE,
     .version = A_ONLINE, .doc = "FlashAttention-2's loop in binary32: blocks of 64 keys, O rescaled"},
    {.name = "attn_fa2_bf16_cpu", .op = UG_OP_ATTENTION, .batch_invariant = true, .bound = UG_BOUND_ATTN_FA2_BF16,
     .version = A_FA2_BF16, UG_ATTN_BF16_IO,
     .doc = "FlashAttention-2's arithmetic: exp2 with c log2 e folded, bf16 P before P V, bf16 O"},
    {.name = "attn_splitkv_size_cpu", .op = UG_OP_ATTENTION, .batch_invariant = true, .bound = UG_BOUND_ATTN_SPLIT_SIZE,
     .version = A_SPLIT_SIZE, .doc = "split-KV decoding, 256 keys a split, FA2's combine"},
    {.name = "attn_splitkv_count_cpu", .op = UG_OP_ATTENTION, .bound = UG_BOUND_ATTN_SPLIT_COUNT,
     .version = A_SPLIT_COUNT, .doc = "split-KV decoding, 8 splits, FA2's combine"},
};

/* n values of a buffer (binary32, or bfloat16 bit patterns) from element `at`, as binary32. */
static void widen(const ug_arg *a, size_t at, size_t n, float *dst)
{
    if (a->fmt == UG_F32) {
        memcpy(dst, (const float *)a->data + at, n * sizeof *dst);
        return;
    }
    const unsigned short *b = (const unsigned short *)a->data + at;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)b[i] << 16;
        memcpy(&dst[i], &u, 4);
    }
}

/* One head through kernel version v. */
static void attn_head(int v, const float *Q, const float *K, const float *V,
                      const ug_shape *shp, const ug_opts *opt, float *O, float *lse)
{
    switch (v) {
    case A_NAIVE: ug_attn_naive_cpu(Q, K, V, shp, opt, O, lse); break;
    case A_NAIVE_BF16: ug_attn_naive_bf16_cpu(Q, K, V, shp, opt, O, lse); break;
    case A_UNSHIFTED: ug_attn_unshifted_cpu(Q, K, V, shp, opt, O, lse); break;
    case A_ONLINE: ug_attn_online_cpu(Q, K, V, shp, opt, 64, O, lse); break;
    case A_FA2_BF16: ug_attn_fa2_bf16_cpu(Q, K, V, shp, opt, 64, O, lse); break;
    case A_SPLIT_SIZE: ug_attn_splitkv_cpu(Q, K, V, shp, opt, 256, false, O, lse); break;
    default: ug_attn_splitkv_cpu(Q, K, V, shp, opt, 8, true, O, lse); break;
    }
}

/* The call's heads (batch x heads; query head h reads key/value head h / (heads / kv_heads)),
 * each widened to binary32, computed, and O stored in the row's format (a bf16 kernel's O
 * holds bf16 values: its bits are the top half).  The scale: ug_attn_kscale. */
static int ug_cpu_attention_run(const ug_kernel *k, ug_call *c)
{
    size_t L = ug_dim(c, 0), S = ug_dim(c, 1), d = ug_dim(c, 2), dv = ug_dim(c, 3);
    size_t H = c->shape.heads ? c->shape.heads : 1, Hkv = c->shape.kv_heads ? c->shape.kv_heads : H;
    float *lse = ug_output_f32(c, 1);
    if (!L || !S || !d || !dv || H % Hkv || !lse || !c->out[0].data) {
        snprintf(c->err, sizeof c->err, "%s: sizes L %zu S %zu d %zu dv %zu, heads %zu / %zu, "
                 "or the lse buffer, not usable", k->name, L, S, d, dv, H, Hkv);
        return -1;
    }
    float *Q = malloc(L * d * sizeof *Q), *K = malloc(S * d * sizeof *K),
          *V = malloc(S * dv * sizeof *V), *O = malloc(L * dv * sizeof *O);
    int rc = 0;
    if (!Q || !K || !V || !O) {
        snprintf(c->err, sizeof c->err, "%s: out of memory", k->name);
        rc = -1;
        goto out;
    }
    for (size_t p = 0, P = ug_shape_problems(&c->shape, false); p < P; p++) {
        size_t kv = ug_shape_kv_problem(&c->shape, p);
        widen(&c->in[0], p * L * d, L * d, Q);
        widen(&c->in[1], kv * S * d, S * d, K);
        widen(&c->in[2], kv * S * dv, S * dv, V);
        attn_head(k->version, Q, K, V, &c->shape, &c->opts, O, lse + p * L);
        if (c->out[0].fmt == UG_F32) {
            memcpy((float *)c->out[0].data + p * L * dv, O, L * dv * sizeof *O);
        } else {
            unsigned short *ob = (unsigned short *)c->out[0].data + p * L * dv;
            for (size_t i = 0; i < L * dv; i++) {
                uint32_t u;
                memcpy(&u, &O[i], 4);
                ob[i] = (unsigned short)(u >> 16);
            }
        }
    }
out:
    free(Q);
    free(K);
    free(V);
    free(O);
    return rc;
}

UG_FAMILY(cpu_attention, ug_cpu_attention_kernels, ug_cpu_attention_run)

