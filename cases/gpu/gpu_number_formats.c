/*
 * gpu_number_formats.c - the number formats on the GPU: the CUDA format kernels
 * (kernels/cuda/reduce_f64.cu, reduce_half.cu) on inputs drawn in their format, every output
 * graded in its own format; the binary64 CUB and atomic reductions' determinism.
 *
 * What is asserted, and why:
 *  - every kernel of the input's format, every row and size: bound ratio <= 1 (the a-priori
 *    class and depth of its registry row, or the probabilistic bound at lambda = 9 where the
 *    worst case is vacuous: reduce_f16_hadd2 from D = 2048);
 *  - reduce_f16_hadd2 on uniform(0,1) data from n = 2^17: the exact sum passes 65504, so the
 *    point is reported out of range (a skip that says so), never a pass;
 *  - determinism: reduce_f64_grid, dot_f64_grid and cub_reduce_f64 give one result over 10
 *    repeats (a fixed order: asserted); reduce_f64_atomic's distinct results are reported
 *    (arrival order: nondeterminism is expected but 1 is possible, so never asserted).
 * Without a CUDA device every point skips ("no CUDA device").
 */
#include <string.h>

#include "harness/run/ug.h"

static const size_t ug_gnf_sizes[] = {1, 3, 1000, 1025, 100000, (size_t)1 << 20};
static const size_t ug_gnf_sizes_gen[] = {1000, 100000, (size_t)1 << 20};
/* binary16 data: partial sums stay below 65504 up to n = 2^17 for uniform(0,1) */
static const size_t ug_gnf_sizes_f16[] = {1000, 4096, 65536, (size_t)1 << 17};

enum { UG_GNF_TRIALS = 5, UG_GNF_REPEATS = 10 };
#define UG_GNF_LAMBDA 9.0 /* 2n exp(-81/2) = 5.2e-18 n per output (ug_prob_failure) */

static const ug_param ug_gnf_rows[] = {
    {"sum_f64_normal", UG_NORMAL(0, 1, .fmt = UG_F64)},
    {"sum_f64_uniform01", UG_UNIFORM(0, 1, .fmt = UG_F64)},
    {"sum_f64_gensum_1e16", UG_GENSUM(1e16, .fmt = UG_F64), UG_SIZES(ug_gnf_sizes_gen)},
    {"sum_f64_gensum_1e32", UG_GENSUM(1e32, .fmt = UG_F64), UG_SIZES(ug_gnf_sizes_gen)},
    {"dot_f64_normal", UG_NORMAL(0, 1, .fmt = UG_F64), .op = UG_OP_DOT},
    {"dot_f64_gendot_1e32", UG_GENDOT(1e32, .fmt = UG_F64), UG_SIZES(ug_gnf_sizes_gen),
     .op = UG_OP_DOT},
    {"sum_bf16_normal", UG_NORMAL(0, 1, .fmt = UG_BF16)},
    {"sum_bf16_uniform01", UG_UNIFORM(0, 1, .fmt = UG_BF16)},
    {"sum_bf16_gensum_1e6", UG_GENSUM(1e6, .fmt = UG_BF16), UG_SIZES(ug_gnf_sizes_gen)},
    {"dot_bf16_normal", UG_NORMAL(0, 1, .fmt = UG_BF16), .op = UG_OP_DOT},
    {"sum_f16_normal", UG_NORMAL(0, 1, .fmt = UG_F16), UG_SIZES(ug_gnf_sizes_f16)},
    {"sum_f16_uniform01", UG_UNIFORM(0, 1, .fmt = UG_F16), UG_SIZES(ug_gnf_sizes_f16)},
    {"dot_f16_normal", UG_NORMAL(0, 1, .fmt = UG_F16), UG_SIZES(ug_gnf_sizes_f16), .op = UG_OP_DOT},
};

static void ug_gnf_run(ug_t *t)
{
    const ug_param *p = ug_param_of(t);
    ug_op op = p->op;
    ug_prob_lambda(t, UG_GNF_LAMBDA);
    UG_FOR_SIZES(t, n, ug_gnf_sizes) {
        /* no CUDA kernel of this format and operation in the run: no input drawn for none */
        if (!ug_any_kernel_fmt(t, op, UG_CUDA, "*", p->dist.fmt)) continue;
        ug_input *in = ug_input_make(t, op, &p->dist, n, ug_trials(t, UG_GNF_TRIALS));
        UG_FOR_FMT_KERNELS(t, k, op, UG_CUDA, "*", p->dist.fmt) {
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
        }
        ug_input_free(t, in);
    }
}

UG_CASE_OVER(gpu_number_formats, ug_gnf_rows, UG_CASE_GPU) { ug_gnf_run(t); }

/* The binary64 reductions run 10 more times on one input: distinct bitwise results. */
UG_CASE_EX(gpu_number_formats, f64_determinism, UG_CASE_GPU)
{
    ug_dist d = ug_in_format(ug_normal(0, 1), UG_F64);
    const size_t n = 1000003;
    if (!ug_n_selected(t, n) || !ug_any_kernel_fmt(t, UG_OP_SUM, UG_CUDA, "*", UG_F64)) return;
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, 1);
    UG_FOR_FMT_KERNELS(t, k, UG_OP_SUM, UG_CUDA, "*", UG_F64) {
        ug_result *r = ug_measure_repeat(t, k, in, UG_GNF_REPEATS);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
        if (r->failed_run) continue;
        ug_result_extra(r, "distinct_results", r->distinct_results);
        ug_note(t, "%s: %d distinct results in %d runs", k->id, r->distinct_results, r->repeats);
        if (!k->nondeterministic) UG_EXPECT_DISTINCT_MAX(r, 1);
    }
    ug_input_free(t, in);
}
