/*
 * gpu_rows.c - the row operations on the GPU: the CUDA softmax, log-sum-exp,
 * RMSNorm and LayerNorm kernels (kernels/cuda/softmax.cu, layernorm.cu) on the distributions of
 * cases/rows.c, bound ratio <= 1 against the correctly rounded reference (the a-priori classes
 * of kernels/bounds_rows.c; the bf16-out rows add the output's rounding).  The GPU forms are
 * all max-shifted or two-pass: no expected failures but the one-pass-free mean/std rows pass.
 * gpu_rows/speed prints every binary32-input row kernel's speed on 4096 rows of 4096 in one run
 * (a TAP note table, as gpu_reduce's).  Skipped without a CUDA device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"

static const size_t ug_gpu_rows_sizes[] = {1, 2, 31, 32, 33, 1000, 4096};
enum { UG_GPU_ROWS_TRIALS = 4 };

static const ug_param ug_gpu_rows_dists[] = {
    {"normal", UG_NORMAL(0, 1)},
    {"uniform_pm20", UG_UNIFORM(-20, 20)},
    {"logits_ge_89", UG_UNIFORM(89, 100)},
    {"mean_1e4_std_1", UG_NORMAL(1e4, 1)},
};

UG_CASE_OVER(gpu_rows, ug_gpu_rows_dists, UG_CASE_GPU)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_SOFTMAX, UG_OP_LOGSUMEXP, UG_OP_RMSNORM, UG_OP_LAYERNORM};
    UG_FOR_SIZES(t, n, ug_gpu_rows_sizes) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_GPU_ROWS_TRIALS);
            UG_FOR_IN_KERNELS(t, k, ops[o], UG_CUDA, "*", UG_F32) {
                ug_result *r = ug_measure(t, k, in);
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
            }
            ug_input_free(t, in);
        }
    }
}

/* The bfloat16 layers on the GPU: x drawn in bfloat16, the weight and bias the operation's own
 * (exact in bfloat16), binary32 accumulation in a warp, bfloat16 out; the binary32 class of the
 * form plus the output's rounding (kernels/bounds_rows.c), as cases/rows.c's layernorm_bf16. */
static const ug_param ug_gpu_rows_bf16_dists[] = {
    {"normal", UG_NORMAL(0, 1, .fmt = UG_BF16)},
    {"uniform_pm1", UG_UNIFORM(-1, 1, .fmt = UG_BF16)},
    {"mean_100_std_1", UG_NORMAL(100, 1, .fmt = UG_BF16)},
};

UG_CASE_OVER(gpu_rows_bf16, ug_gpu_rows_bf16_dists, UG_CASE_GPU)
{
    const ug_param *p = ug_param_of(t);
    static const ug_op ops[] = {UG_OP_RMSNORM, UG_OP_LAYERNORM};
    UG_FOR_SIZES(t, n, ug_gpu_rows_sizes) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            ug_input *in = ug_input_make(t, ops[o], &p->dist, n, UG_GPU_ROWS_TRIALS);
            UG_FOR_IN_KERNELS(t, k, ops[o], UG_CUDA, "*", UG_BF16) {
                ug_result *r = ug_measure(t, k, in);
                UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
            }
            ug_input_free(t, in);
        }
    }
}

/* The speed table: every binary32-input CUDA kernel of the four operations (the bf16-out rows
 * among them) on R = 4096 rows of n = 4096, normal(0, 1).  The errors are graded on UG_GPU_ROWS_
 * TRIALS rows of that input through ug_measure (bound ratio <= 1, as above: the reference of
 * 2^24 outputs would cost the suite seconds, of RMSNorm's and LayerNorm's MPFR minutes); the
 * speed is one call of all R rows (those rows tiled: the kernels' work does not depend on the
 * values), timed by the kernel as ug_measure times one (the median of c.reps launches, CUDA
 * events around the launch alone).  GB/s counts x read, the weight read once, y written.
 * Cost in the default GPU suite: well under a second (64 MB up and down per kernel). */
enum { UG_GPU_ROWS_R = 4096, UG_GPU_ROWS_N = 4096, UG_GPU_ROWS_REPS = 10 };

typedef struct {
    const char *name;
    double ulp_max, ratio, ms, gbps;
    const char *err; /* the batched call's failure, or NULL */
} ug_gpu_rows_speed;

/* One call of k on R rows tiled from in's trials: the median time (ms) into *ms and the bytes
 * moved into *bytes; 0, or nonzero with the kernel's message in err. */
static int ug_gpu_rows_time(const ug_kernel *k, const ug_input *in, double *ms, double *bytes,
                            char *err, size_t errlen)
{
    const size_t R = UG_GPU_ROWS_R, n = UG_GPU_ROWS_N;
    const ug_op_desc *d = ug_op_get(in->op);
    ug_shape row = ug_shape_square(n); /* one row: its outputs (n, or logsumexp's 1) */
    size_t outs = R * ug_op_outputs(d, &row), osize = ug_fmt_bytes(k->out_fmt);
    float *x = malloc(R * n * sizeof *x);
    void *y = malloc(outs * osize);
    int rc = 1;
    if (!x || !y) {
        snprintf(err, errlen, "out of host memory");
        goto done;
    }
    for (size_t r = 0; r < R; r++) memcpy(x + r * n, in->x[r % (size_t)in->trials], n * sizeof *x);
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = in->op;
    c.shape.dim[0] = n;
    c.in[0] = (ug_arg){x, UG_F32, R * n};
    if (d->shape->arity > 1) c.in[1] = (ug_arg){in->y[0], UG_F32, n}; /* one weight row for all rows */
    c.out[0] = (ug_arg_out){y, k->out_fmt, outs};
    c.reps = UG_GPU_ROWS_REPS;
    rc = ug_kernel_run(k, &c);
    if (rc != 0) {
        snprintf(err, errlen, "%s", c.err);
        goto done;
    }
    *ms = c.time_ms;
    *bytes = (double)(R * n * sizeof(float)) + (d->shape->arity > 1 ? (double)(n * sizeof(float)) : 0) +
             (double)(outs * osize);
done:
    free(x);
    free(y);
    return rc;
}

UG_CASE_EX(gpu_rows, speed, UG_CASE_GPU)
{
    static const ug_op ops[] = {UG_OP_SOFTMAX, UG_OP_LOGSUMEXP, UG_OP_RMSNORM, UG_OP_LAYERNORM};
    static char errs[32][520];
    ug_dist d = ug_normal(0, 1);
    ug_gpu_rows_speed rows[32];
    int count = 0;
    if (!ug_n_selected(t, UG_GPU_ROWS_N)) return;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        ug_input *in = ug_input_make(t, ops[o], &d, UG_GPU_ROWS_N, UG_GPU_ROWS_TRIALS);
        UG_FOR_IN_KERNELS(t, k, ops[o], UG_CUDA, "*", UG_F32) {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds_rows.c */
            if (count >= 32 || r->failed_run) continue;
            ug_gpu_rows_speed *row = &rows[count];
            double bytes = 0;
            *row = (ug_gpu_rows_speed){k->id, r->ulp_max, r->bound_ratio_max, 0, 0, NULL};
            if (ug_gpu_rows_time(k, in, &row->ms, &bytes, errs[count], sizeof errs[count]) != 0)
                row->err = errs[count];
            else if (row->ms > 0)
                row->gbps = bytes / (row->ms * 1e-3) / 1e9;
            UG_EXPECT_MSG(!row->err, "%s on %d rows of %d: %s", k->id, UG_GPU_ROWS_R,
                          UG_GPU_ROWS_N, row->err ? row->err : "");
            count++;
        }
        ug_input_free(t, in);
    }
    ug_point(t, "speed table %d rows x %d normal(0,1)", UG_GPU_ROWS_R, UG_GPU_ROWS_N);
    ug_note(t, "%-34s %10s %10s %10s %9s", "kernel", "ulp_max", "ratio", "ms", "GB/s");
    for (int i = 0; i < count; i++) {
        if (rows[i].err)
            ug_note(t, "%-34s %10.3g %10.3g  (batched call failed)", rows[i].name,
                    rows[i].ulp_max, rows[i].ratio);
        else
            ug_note(t, "%-34s %10.3g %10.3g %10.4g %9.1f", rows[i].name, rows[i].ulp_max,
                    rows[i].ratio, rows[i].ms, rows[i].gbps);
    }
}
