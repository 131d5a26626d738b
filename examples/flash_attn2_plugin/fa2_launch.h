/*
 * fa2_launch.h - the C face of fa2_launch.cu: one FlashAttention-2 forward call on host buffers,
 * for fa2_plugin.c's row (no CUDA or C++ type crosses it).
 */
#ifndef UG_FA2_LAUNCH_H
#define UG_FA2_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One problem: batch x heads query heads over kv_heads key/value heads (heads a multiple of
 * kv_heads), Q (L x d), K and V (S x d) each, d = 64 or 128; scale the softmax scale; reps > 0:
 * time reps launches after the first (median into ug_fa2_buffers.time_ms). */
typedef struct {
    size_t batch, heads, kv_heads, L, S, d;
    float scale;
    bool causal;
    int reps;
} ug_fa2_problem;

/* Host buffers: q k v o as bfloat16 bit patterns in ulpgate's layout (batch, heads, rows, d),
 * lse (batch, heads, L) natural-log binary32. */
typedef struct {
    const unsigned short *q, *k, *v;
    unsigned short *o;
    float *lse;
    double time_ms;
} ug_fa2_buffers;

/* Runs FlashAttention-2's forward on pb and io: 0, or 1 with err filled (and *unsupported when
 * the machine cannot run it: no device, below sm_80, no kernel image for this GPU).  Frees what
 * it allocated on every path; never throws, exits or aborts. */
int ug_fa2_run(const ug_fa2_problem *pb, ug_fa2_buffers *io, char *err, size_t errlen,
               bool *unsupported);

#ifdef __cplusplus
}
#endif

#endif
