/*
 * gpu_tensorcore.c - the tensor-core GEMMs (kernels/cuda/tensorcore.cu: cuBLASLt bf16, fp16,
 * fp16-accumulating, bf16 and fp16 D under a binary32 accumulator (graded in ULPs of their
 * 16-bit output), and fp8 with and without fast accumulation; mma.sync bf16; mma.sync fp8 with
 * and without promotion every 128 terms) and the reduced-precision cuBLAS SGEMM paths
 * (vendor.cu: TF32, FAST_16F, FAST_16BF, BF16x9), error against the exact product of the
 * binary32 inputs for K = 64 ... 65536 (M = N = 32: every output of the exact oracle stays
 * cheap at K = 65536, 6.7e7 products).
 *
 * What is asserted, and why:
 *  - every kernel and K: bound ratio <= 1 against its a-priori class (kernels/bounds.c:
 *    block_fma, block_fma_promoted, tf32, f16, bf16, bf16x9); a ratio above 1 is a kernel bug or
 *    a published model the class's envelope does not cover (b > the MMA's k, fewer than 13
 *    accumulator bits for fp8): either is a finding;
 *  - where the class gives no finite bound (the fp8 envelope in an unknown order, depth K - 1,
 *    overflows binary64 at K = 65536) the point is an expected failure that says so: the
 *    measured error is still in the table.
 * Printed per K: each kernel's largest ULP and relative error, the largest error over S =
 * sum |a_ik b_kj| beside the bound's own figure over S (bound/S at |s| = S), and the time.
 * The block_fma classes' b, t and p are those of the detected GPU's published row of
 * reports/tensorcore/params.tsv (harness/measure/gpu.c sets them when it finds the device; a GPU
 * the table does not name gets the most pessimistic published row of each format pair): the
 * table's first note says which.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/run/ug.h"
#include "ops/op.h"

static const size_t ug_tc_ks[] = {64, 256, 1024, 4096, 16384, 65536};
enum { UG_TC_MN = 32, UG_TC_ROWS = 32 };

/* The kernels of this case: the tensor-core family, and the cuBLAS rows that round operands. */
static bool ug_tc_kernel(const ug_kernel *k)
{
    return (k->family && strcmp(k->family->name, "tensorcore") == 0) || k->op_fmt != UG_F32;
}

typedef struct {
    const char *id;
    double ulp, rel, err_s, bound_s, ratio, ms;
    bool skipped;
} ug_tc_row;

static void ug_tc_table(ug_t *t, const ug_dist *d, size_t K, const ug_tc_row *rows, int count)
{
    char label[160];
    ug_point(t, "table K=%zu %s", K, ug_dist_describe(d, label, sizeof label));
    ug_note(t, "block_fma bounds from %s (kernels/bounds.c)", ug_block_models_source());
    ug_note(t, "%-34s %10s %10s %10s %10s %8s %8s", "kernel (M=N=32)", "ulp_max", "rel_max",
            "max err/S", "bound/S", "ratio", "ms");
    for (int i = 0; i < count; i++) {
        if (rows[i].skipped) {
            ug_note(t, "%-34s %10s", rows[i].id, "skipped");
            continue;
        }
        ug_note(t, "%-34s %10.3g %10.3g %10.3g %10.3g %8.3g %8.4g", rows[i].id, rows[i].ulp,
                rows[i].rel, rows[i].err_s, rows[i].bound_s, rows[i].ratio, rows[i].ms);
    }
}

static void ug_tc_all(ug_t *t)
{
    const ug_dist d = ug_param_of(t)->dist;
    UG_FOR_N(t, K, ug_tc_ks) {
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d,
                                           &(ug_shape){{UG_TC_MN, UG_TC_MN, K}}, 1);
        ug_tc_row rows[UG_TC_ROWS];
        int count = 0;
        UG_FOR_IN_KERNELS(t, k, UG_OP_GEMM, UG_CUDA, "*", UG_F32) { /* any output format */
            if (!ug_tc_kernel(k)) continue;
            ug_result *r = ug_measure(t, k, in);
            double bound_s = ug_kernel_bound(k, K, 1.0, 1.0);
            if (!isfinite(bound_s))
                ug_xfail(t, "the class gives no finite bound at this K (kernels/bounds.c): the "
                            "error is measured, not checked");
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
            if (count >= UG_TC_ROWS) continue;
            ug_tc_row *row = &rows[count++];
            memset(row, 0, sizeof *row);
            row->id = k->id;
            row->skipped = r->failed_run || r->count == 0;
            row->ulp = r->ulp_max;
            row->rel = r->rel_max;
            row->ratio = r->bound_ratio_max;
            row->ms = r->time_ms;
            row->bound_s = bound_s;
            const ug_worst *w = &r->worst_abs;
            row->err_s = w->set && w->exact.sum_abs > 0 ? w->err.abs / w->exact.sum_abs : 0;
        }
        if (count) ug_tc_table(t, &d, K, rows, count);
        ug_input_free(t, in);
    }
}

/* normal_bf16: the operands drawn in bfloat16 (fmt_dist.c; each a bfloat16 value, the binary32
 * kernels read them exactly), so the bf16 tensor-core rows round no operand: what is left is
 * their accumulation, still under the same a-priori bound (operand rounding of 0 fits it). */
static const ug_param ug_tc_dists[] = {
    {"uniform01", UG_UNIFORM(0, 1)},
    {"normal", UG_NORMAL(0, 1)},
    {"normal_bf16", UG_NORMAL(0, 1, .fmt = UG_BF16)},
};

UG_CASE_OVER(gpu_tensorcore, ug_tc_dists, UG_CASE_GPU) { ug_tc_all(t); }
