/*
 * bsfp8.c - the block-scaled FP8 layout of the block-scaled GEMM: the scale rule, the
 * quantizer, packing and the value of an element (bsfp8.h).
 */
#include <math.h>
#include <stdio.h>

#include "base/blockfmt.h"
#include "base/bsfp8.h"
#include "base/format.h"

ug_bs_grid ug_bs_grid_a(size_t M, size_t K) { return (ug_bs_grid){M, K, 1, UG_BS_TILE}; }
ug_bs_grid ug_bs_grid_b(size_t K, size_t N) { return (ug_bs_grid){K, N, UG_BS_TILE, UG_BS_TILE}; }
size_t ug_bs_grid_down(const ug_bs_grid *g) { return (g->rows + g->brows - 1) / g->brows; }
size_t ug_bs_grid_across(const ug_bs_grid *g) { return (g->cols + g->bcols - 1) / g->bcols; }
size_t ug_bs_nblocks(const ug_bs_grid *g) { return ug_bs_grid_down(g) * ug_bs_grid_across(g); }

size_t ug_bs_block_of(const ug_bs_grid *g, size_t r, size_t c)
{
    return (r / g->brows) * ug_bs_grid_across(g) + c / g->bcols;
}

int ug_bs_scale_exp(double amax)
{
    ug_scale s = ug_scale_of(UG_SRULE_CEIL, UG_E4M3, UG_SCALE_E8M0, amax, 0);
    return (int)s.code - UG_E8M0_BIAS;
}

/* The largest magnitude of block (bi, bj); NaN when it holds a NaN or an infinity. */
static double ug_bs_amax(const ug_bs_grid *g, const float *v, size_t bi, size_t bj)
{
    double m = 0;
    for (size_t r = bi * g->brows; r < g->rows && r < (bi + 1) * g->brows; r++)
        for (size_t c = bj * g->bcols; c < g->cols && c < (bj + 1) * g->bcols; c++) {
            double a = fabs((double)v[r * g->cols + c]);
            if (!isfinite(a)) return NAN;
            if (a > m) m = a;
        }
    return m;
}

void ug_bs_quantize(const ug_bs_grid *g, float *v)
{
    for (size_t bi = 0; bi < ug_bs_grid_down(g); bi++)
        for (size_t bj = 0; bj < ug_bs_grid_across(g); bj++) {
            double amax = ug_bs_amax(g, v, bi, bj);
            if (isnan(amax)) continue; /* a block with a special value is left as it is */
            int e = ug_bs_scale_exp(amax);
            for (size_t r = bi * g->brows; r < g->rows && r < (bi + 1) * g->brows; r++)
                for (size_t c = bj * g->bcols; c < g->cols && c < (bj + 1) * g->bcols; c++) {
                    float *x = &v[r * g->cols + c];
                    *x = (float)ldexp(ug_blockfmt_elem_of(UG_E4M3, *x, ldexp(1, e)), e);
                }
        }
}

int ug_bs_pack(const ug_bs_grid *g, const float *v, uint8_t *elem, uint8_t *scale, char *err,
               size_t errlen)
{
    for (size_t bi = 0; bi < ug_bs_grid_down(g); bi++)
        for (size_t bj = 0; bj < ug_bs_grid_across(g); bj++) {
            double amax = ug_bs_amax(g, v, bi, bj);
            int e = isnan(amax) ? 0 : ug_bs_scale_exp(amax);
            scale[bi * ug_bs_grid_across(g) + bj] = (uint8_t)(e + 127);
            for (size_t r = bi * g->brows; r < g->rows && r < (bi + 1) * g->brows; r++)
                for (size_t c = bj * g->bcols; c < g->cols && c < (bj + 1) * g->bcols; c++) {
                    double q = ldexp(v[r * g->cols + c], -e);
                    if (isnan(amax) || ug_fmt_round(UG_E4M3, q, UG_RN) != q) {
                        snprintf(err, errlen, "element (%zu, %zu) = %a is not an e4m3 element "
                                 "times its block's scale 2^%d: quantize the input first",
                                 r, c, (double)v[r * g->cols + c], e);
                        return -1;
                    }
                    elem[r * g->cols + c] = (uint8_t)ug_fmt_encode(UG_E4M3, q);
                }
        }
    return 0;
}

double ug_bs_value(const ug_bs_grid *g, const uint8_t *elem, const uint8_t *scale, size_t r,
                   size_t c)
{
    return ug_fmt_decode(UG_E4M3, elem[r * g->cols + c]) *
           ug_e8m0_decode(scale[ug_bs_block_of(g, r, c)]);
}
