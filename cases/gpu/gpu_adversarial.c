/*
 * gpu_adversarial.c - generated adversarial inputs for the GPU kernels: condition numbers swept
 * to 1e30, sizes on every warp, block and grid boundary and past one pass of the grid, and GEMM
 * with each of M, N, K equal to 1 or next to a 16-wide tile or a 256-thread block.
 *
 * What is asserted, and why: bound ratio <= 1 for every kernel, input and size (the a-priori
 * class and depth of its registry row, kernels/bounds.c and kernels/cuda; the probabilistic
 * bound at lambda = 9 only where the worst case is vacuous, which these sizes, all below 2^24,
 * never are).  The bounds are in S = sum |terms|, so they hold at any condition number: a breach
 * is a bug in the kernel or its declared depth.  Atomics too (any order satisfies the tree bound
 * of depth n - 1).  None of these inputs holds a subnormal, so the atomics' flush-to-zero does
 * not enter (cases/corpus/special_subnormal_inputs.txt is where it does).
 */
#include "harness/run/ug.h"

/* Warps of 32, blocks of 256 and 1024, the grid's 1024 x 256 = 262144 threads: 262145 is the
 * first size that gives a thread a second term; 1000003 is prime. */
static const size_t ug_gadv_shapes[] = {1,    2,    3,    15,   16,   17,     31,     32,     33,
                                        255,  256,  257,  1023, 1024, 1025,   2047,   2049,   4095,
                                        4097, 262143, 262144, 262145, 524289, 1000003};
static const size_t ug_gadv_gen_sizes[] = {64, 255, 257, 1023, 1025, 4097, 262145, 1000003};

static int ug_gadv_trials(ug_t *t, size_t n) { return ug_trials(t, n <= 4097 ? 5 : 2); }

static const ug_param ug_gadv_sums[] = {
    {"gensum_1e4", UG_GENSUM(1e4), UG_SIZES(ug_gadv_gen_sizes)},
    {"gensum_1e12", UG_GENSUM(1e12), UG_SIZES(ug_gadv_gen_sizes)},
    {"gensum_1e20", UG_GENSUM(1e20), UG_SIZES(ug_gadv_gen_sizes)},
    {"gensum_1e24", UG_GENSUM(1e24), UG_SIZES(ug_gadv_gen_sizes)},
    {"gensum_1e30", UG_GENSUM(1e30), UG_SIZES(ug_gadv_gen_sizes)},
    {"gensum_1e8_abs_asc", UG_GENSUM(1e8, .order = UG_ORDER_ABS_ASC), UG_SIZES(ug_gadv_gen_sizes)},
    {"gensum_1e8_abs_desc", UG_GENSUM(1e8, .order = UG_ORDER_ABS_DESC),
     UG_SIZES(ug_gadv_gen_sizes)},
    {"lognormal_alternating", UG_LOGNORMAL(0, 3, .alternate = 1)},
    {"normal_shapes", UG_NORMAL(0, 1)},
};

UG_CASE_OVER(gpu_adversarial, ug_gadv_sums, UG_CASE_GPU)
{
    const ug_param *p = ug_param_of(t);
    ug_prob_lambda(t, 9.0);
    UG_FOR_SIZES(t, n, ug_gadv_shapes) {
        if (!ug_any_kernel_fmt(t, UG_OP_SUM, UG_CUDA, "*", UG_F32)) continue; /* none selected */
        ug_input *in = ug_input_make(t, UG_OP_SUM, &p->dist, n, ug_gadv_trials(t, n));
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CUDA, "*") {
            if (k->max_n && n > k->max_n) continue; /* gpu_reduce/max_exceeded checks the refusal */
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c, kernels/cuda */
        }
        ug_input_free(t, in);
    }
}

/* GEMM shapes: each dimension 1, a tile of 16 +- 1, 33; and M*N next to 256 (the 1-D grid of
 * 256-thread blocks of the Kahan-matmul post's kernels). */
static void ug_gadv_gemm(ug_t *t, const ug_dist *d, size_t M, size_t N, size_t K)
{
    if (!ug_n_selected(t, M)) return;
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, d, &(ug_shape){{M, N, K}}, ug_trials(t, 1));
    UG_FOR_KERNELS(t, k, UG_OP_GEMM, UG_CUDA, "*") {
        ug_result *r = ug_measure(t, k, in);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: gamma_K S, Kahan, TF32 classes */
    }
    ug_input_free(t, in);
}

static const ug_param ug_gadv_gemms[] = {
    {"gemm_gendot_1e12", UG_GENDOT(1e12)},
    {"gemm_gendot_1e30", UG_GENDOT(1e30)},
    {"gemm_normal", UG_NORMAL(0, 1)},
};

UG_CASE_OVER(gpu_adversarial, ug_gadv_gemms, UG_CASE_GPU)
{
    static const size_t dims[] = {1, 15, 16, 17, 33};
    static const size_t blocks[][3] = {{1, 255, 7}, {1, 256, 7}, {1, 257, 7}, {255, 1, 9},
                                       {257, 1, 9}, {17, 15, 257}};
    const ug_dist *d = &ug_param_of(t)->dist;
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 5; b++)
            for (size_t c = 0; c < 5; c++) ug_gadv_gemm(t, d, dims[a], dims[b], dims[c]);
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        ug_gadv_gemm(t, d, blocks[i][0], blocks[i][1], blocks[i][2]);
}
