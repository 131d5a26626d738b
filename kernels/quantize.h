/*
 * quantize.h - quantizers: binary32 in, a block-scaled array out (base/blockfmt.h: the elements
 * one a byte, the scales one per block in the scale format's storage, the tensor scale).  A
 * quantizer declares its block format and the scale rule it claims; ops/quantize.h grades it
 * exactly against that rule.  The rows: kernels/cpu/quantize.c (the CPU references, one per
 * rule, the wrong ones kept as canaries, and the CUDA row, which launches through
 * ug_quantize_cuda: kernels/cuda/quantize.cu, or kernels/quantize_none.c without CUDA).
 */
#ifndef UG_QUANTIZE_H
#define UG_QUANTIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/blockfmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call: x (rows x cols, row-major) in; elems (rows x cols bytes), scales (one per block of
 * the grid ceil(rows / block_rows) x ceil(cols / block_cols), ug_scale_bytes each) and tensor
 * (the binary32 tensor scale; 1 where the format has none) out.  err: why a call failed. */
typedef struct ug_quantize_call {
    const float *x;
    size_t rows, cols;
    uint8_t *elems;
    uint8_t *scales;
    float tensor;
    char err[256];
} ug_quantize_call;

typedef struct ug_quantizer ug_quantizer;
struct ug_quantizer {
    const char *name;     /* "mxfp4_ocp_cpu", ... */
    const char *blockfmt; /* its block format's name (base/blockfmt.h) */
    ug_scale_rule rule;   /* the rule it claims to follow: what it is graded against */
    bool cuda;            /* runs on a CUDA device (skips without one) */
    bool should_fail;     /* a canary: wrong on purpose, its case must fail */
    int version;          /* which code path of its launcher */
    const char *doc;
    /* 0, or nonzero with c->err set (-2: no device, the case skips). */
    int (*run)(const ug_quantizer *q, const ug_blockfmt *B, ug_quantize_call *c);
};

/* The rows: the built-in ones, then the registered ones.  O(1). */
size_t ug_quantizer_count(void);
const ug_quantizer *ug_quantizer_at(size_t i); /* NULL past the end */

/* A quantizer defined outside the tree (a test's: tests/toy_fmt/) registers its row, from a
 * constructor: the row is copied (its strings must stay valid).  Refused -- -1, and why in err
 * -- for a row with no name or run function, a name taken, a block format not in the table
 * (base/blockfmt.h: register it first), a rule that does not fit its scale format, or a full
 * table.  Returns its index.  O(rows). */
enum { UG_QUANTIZER_REGISTERED_MAX = 8 };
int ug_quantizer_register(const ug_quantizer *row, char *err, size_t errlen);

/* Blocks of the grid of B over rows x cols. */
size_t ug_quantize_blocks(const ug_blockfmt *B, size_t rows, size_t cols);

/* The CUDA quantizer (OCP rule on an MX format): copies x to the device, quantizes, copies the
 * elements and scales back.  -2 with err set without a CUDA build or device. */
int ug_quantize_cuda(const ug_quantizer *q, const ug_blockfmt *B, ug_quantize_call *c);

#ifdef __cplusplus
}
#endif
#endif
