/*
 * formats_tolerance.c - the bfloat16 tolerance question with data: a dot product of K bfloat16
 * pairs accumulated serially in binary32 and rounded once to bfloat16 (an attention score, a
 * normalisation layer's row), its largest error seen beside the a-priori bound of
 * kernels/bounds.c (tree class, bf16 > f32 > bf16: u_out |s| + (1 + u_out) gamma_K(2^-24) S +
 * 2^-134), K = 64 ... 65536.
 *
 * Data: x_i, y_i drawn N(0, 1) in binary64 and rounded once to bfloat16 (nearest-even,
 * ug_fmt_round: never through binary32, no double rounding), 16 trials per K from a seeded
 * stream.  Exact value: ug_exact_dot_f32 (bfloat16 values are binary32 values; their products
 * exact in binary64).  Error: relative |got - s| / |s| (what torch.testing.assert_close's rtol
 * measures; its bfloat16 default is 1.6e-2) and in bfloat16 ULPs of s (ug_error_fmt).  The
 * kernel is the test's own (a loop here, not a registered kernel: the harness's typed inputs
 * do not feed 16-bit buffers to registered kernels yet).
 * Asserted: every error within the a-priori bound (it must hold); the table is a note.
 */
#include <math.h>
#include <stdlib.h>

#include "base/format.h"
#include "base/sys.h"
#include "harness/inputs/rng.h"
#include "harness/run/ug.h"
#include "kernels/kernel.h"
#include "ops/op.h"
#include "oracle/oracle.h"

/* N(0, 1) by Box-Muller from two uniforms of the stream. */
static double tol_normal(ug_stream *s, uint64_t *i)
{
    double u1 = ((double)(ug_rng_u64(s, (*i)++) >> 11) + 0.5) * 0x1p-53;
    double u2 = (double)(ug_rng_u64(s, (*i)++) >> 11) * 0x1p-53;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

UG_CASE(formats, bf16_tolerance)
{
    static const size_t Ks[] = {64, 256, 1024, 4096, 16384, 65536};
    enum { TRIALS = 16 };
    ug_kernel k = {.name = "bf16_dot_f32acc_serial", .op = UG_OP_DOT, .bound = UG_BOUND_TREE,
                   .in_store = {UG_BF16, UG_BF16}, .acc_fmt = UG_F32, .out_fmt = UG_BF16};
    float *x = ug_xmalloc(65536 * sizeof *x), *y = ug_xmalloc(65536 * sizeof *y);
    ug_stream st = ug_stream_make(ug_seed(t), ug_hash64("formats/bf16_tolerance", UG_HASH64_INIT), 0);
    uint64_t at = 0;
    ug_note(t, "bf16 dot, binary32 serial accumulation, bf16 output; %d trials per K", TRIALS);
    ug_note(t, "%8s  %12s  %12s  %12s  %10s", "K", "max rel err", "bound/|s|", "max ulp16",
            "err/bound");
    for (size_t j = 0; j < sizeof Ks / sizeof Ks[0]; j++) {
        size_t K = Ks[j];
        double rel_max = 0, brel_at = 0, ulp_max = 0, ratio_max = 0;
        for (int tr = 0; tr < TRIALS; tr++) {
            for (size_t i = 0; i < K; i++) {
                x[i] = (float)ug_fmt_round(UG_BF16, tol_normal(&st, &at), UG_RN);
                y[i] = (float)ug_fmt_round(UG_BF16, tol_normal(&st, &at), UG_RN);
            }
            float acc = 0;
            for (size_t i = 0; i < K; i++)
                acc = acc + x[i] * y[i]; /* product exact in binary32 (8 x 8 bits), sum rounded */
            double got = ug_fmt_round(UG_BF16, acc, UG_RN);
            ug_exact e;
            ug_exact_dot_f32(x, 1, y, 1, K, &e);
            ug_error err = ug_error_fmt(&e, UG_BF16, got);
            double b = ug_kernel_bound(&k, K, e.sum_abs, fabs(e.hi));
            double ratio = err.abs == 0 ? 0 : err.abs / b;
            if (err.rel > rel_max)
                rel_max = err.rel, brel_at = b / fabs(e.hi);
            if (err.ulp > ulp_max)
                ulp_max = err.ulp;
            if (ratio > ratio_max)
                ratio_max = ratio;
        }
        ug_point(t, "bf16 tolerance K=%zu: within the a-priori bound", K);
        UG_EXPECT_MSG(ratio_max <= 1, "K = %zu: error %.3g of the bound", K, ratio_max);
        ug_note(t, "%8zu  %12.3g  %12.3g  %12.3g  %10.3g", K, rel_max, brel_at, ulp_max, ratio_max);
    }
    free(x);
    free(y);
}
