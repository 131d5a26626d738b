/*
 * bounds_attn.h - a-priori error bounds of the attention kernel classes (kernels/bounds_attn.c
 * derives each), as functions of what the reference records (oracle/attention/exact_attention.h):
 *   A = the row's lse record's sum_abs, max_k c sum_t |q_t k_kt| (the scores' magnitude);
 *   W = an O record's sum_abs, sum_k p_k |V_kj| + 2^-100 sum_k |V_kj|;
 *   s = |the exact output|.
 */
#ifndef UG_KERNELS_BOUNDS_ATTN_H
#define UG_KERNELS_BOUNDS_ATTN_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    UG_ATTN_NAIVE,       /* three passes, shifted softmax, P = e / l, O = sum P V */
    UG_ATTN_NAIVE_BF16,  /* the naive form on bf16 inputs, P and O rounded to bf16 */
    UG_ATTN_UNSHIFTED,   /* the same without the max: exp(s) overflows from s = 88.7 */
    UG_ATTN_ONLINE,      /* FlashAttention-2's loop, binary32, natural exp */
    UG_ATTN_FA2_BF16,    /* FlashAttention-2's arithmetic: exp2 of c log2 e folded, bf16 P and O */
    UG_ATTN_SPLIT_SIZE,  /* split-KV of `split` keys a split, online inside, combined */
    UG_ATTN_SPLIT_COUNT, /* split-KV of `split` splits */
    UG_ATTN_FA2_MMA,     /* FA2_BF16's arithmetic with S = Q K^T and P V on bf16 tensor cores */
} ug_attn_class;

typedef struct ug_attn_model {
    ug_attn_class cls;
    size_t n;     /* keys the row sees */
    size_t d;     /* head dimension of Q and K */
    size_t block; /* key block of the online loops (FlashAttention-2's kBlockN; 64 if 0) */
    size_t split; /* split kernels: keys a split, or splits */
    double scale; /* c */
    size_t S;     /* split_count: the call's key length; the splits may be cut over it (ceil(S /
                     split) keys, Flash-Decoding's) or over the row's n keys: the bound covers
                     both; 0: over n only */
} ug_attn_model;

/* The bound of |O^_ij - O_ij| and of |lse^_i - lse_i|; +inf where the model says nothing
 * (a score or a sum beyond binary32's range).  O(1). */
double ug_attn_bound_O(const ug_attn_model *m, double A, double W, double s);
double ug_attn_bound_lse(const ug_attn_model *m, double A, double s);

#endif
