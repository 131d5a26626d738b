/*
 * bsfp8.h - the block-scaled FP8 layout of the block-scaled GEMM (ops/gemm_bs.c): E4M3
 * elements, one power-of-two scale (an E8M0 byte: 2^(code - 127)) per block, DeepSeek-V3's block
 * shapes: a 1 x 128 tile of a row of A (M x K), a 128 x 128 block of B (K x N), the last tile or
 * block of a row or column cut short.  The scale rule is DeepSeek-V3.1's UE8M0 one, the
 * block-format table's UG_SRULE_CEIL on e4m3 elements (base/blockfmt.h): the smallest power of
 * two X with amax / X <= 448 (no element saturates).  The table's fp8_1x128 and fp8_128x128
 * rows take DeepSeek-V3's binary32 scales (amax / 448), whose products with an element are not
 * binary32 numbers; this is their power-of-two variant.  Why powers of two: an element times its scale then has at most 4 significant bits and an
 * exponent within binary32's range, so the value of a block-scaled array is exact in binary32,
 * and the GEMM oracle of binary32 inputs grades its product exactly with nothing new.
 *
 * Storage (the agreed one): elements one byte each (the E4M3 code), row-major; scales one byte
 * each (the E8M0 code), row-major over the grid of blocks.  Cost: O(rows x cols) each.
 */
#ifndef UG_BSFP8_H
#define UG_BSFP8_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { UG_BS_TILE = 128 };

/* A matrix of rows x cols cut into blocks of brows x bcols. */
typedef struct ug_bs_grid {
    size_t rows, cols, brows, bcols;
} ug_bs_grid;

/* A (M x K): 1 x 128 tiles along K; B (K x N): 128 x 128 blocks. */
ug_bs_grid ug_bs_grid_a(size_t M, size_t K);
ug_bs_grid ug_bs_grid_b(size_t K, size_t N);
/* Blocks down and across, and in all. */
size_t ug_bs_grid_down(const ug_bs_grid *g);
size_t ug_bs_grid_across(const ug_bs_grid *g);
size_t ug_bs_nblocks(const ug_bs_grid *g);
/* The block of element (r, c): its index in the grid, row-major. */
size_t ug_bs_block_of(const ug_bs_grid *g, size_t r, size_t c);

/* The rule: the exponent e of the scale 2^e for a block whose largest magnitude is amax: the
 * smallest e with amax <= 448 2^e (ug_scale_of's UG_SRULE_CEIL), clamped at -127 (E8M0's least
 * code: the tiniest elements round to zero; an all-zero block gets it too).  amax finite. */
int ug_bs_scale_exp(double amax);

/* Quantize v (rows x cols, row-major, binary32, finite) in place with the rule: per block the
 * scale from its amax, each element RN_e4m3(v / 2^e), v replaced by element x 2^e (exact in
 * binary32).  Idempotent on its own output's values (pack reproduces them exactly). */
void ug_bs_quantize(const ug_bs_grid *g, float *v);

/* Pack v into the storage: the rule's scale per block from v's own amax, the elements v / 2^e.
 * 0, or -1 with err naming the first element that is not exactly an E4M3 element times its
 * block's scale (a value that was not quantized, a NaN or an infinity). */
int ug_bs_pack(const ug_bs_grid *g, const float *v, uint8_t *elem, uint8_t *scale, char *err,
               size_t errlen);

/* The value of element (r, c) of packed storage: decode(elem) x 2^(scale code - 127), exact. */
double ug_bs_value(const ug_bs_grid *g, const uint8_t *elem, const uint8_t *scale, size_t r,
                   size_t c);

#ifdef __cplusplus
}
#endif
#endif
