/*
 * norm_params.h - the weight and bias of the normalisation layers' trials (ops/rmsnorm.c,
 * ops/layernorm.c): parameters, not data, so they come from here and not from the input's
 * distribution (ug_op_desc.fill_params).  Defined in ops/rows.c.
 */
#ifndef UG_OPS_NORM_PARAMS_H
#define UG_OPS_NORM_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* w_i = 1 + k/64, k uniform in -16 .. 16 (a trained LayerNorm's weights sit near 1), then, with
 * bias, b_i = k/256, k in -64 .. 64: every value exact in binary32 and in bfloat16 (at most 7
 * fraction bits), drawn from seed and trial alone (splitmix64; the callers pass the case's
 * seed ^ stream): y gets w (n), then b (n) with bias.  The weights are the same with or
 * without the bias (w is drawn first). */
void ug_norm_fill_params(float *y, size_t n, bool bias, uint64_t seed, uint32_t trial);

#endif
