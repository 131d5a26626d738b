/*
 * gpu_determinism.c - run-to-run determinism of the GPU kernels.
 *
 * Every kernel whose registry line declares it deterministic must give bitwise-identical output
 * over >= 10 runs on the same input (asserted: a single distinct result).  The atomic
 * reductions are declared nondeterministic: the number of distinct results they gave is
 * reported, not asserted (it depends on scheduling, and 1 is possible).
 */
#include <string.h>

#include "kernels/device.h"
#include "harness/run/ug.h"

enum { UG_REPEATS = 12 };

static void ug_det_all(ug_t *t, ug_op op, const ug_input *in)
{
    UG_FOR_KERNELS(t, k, op, UG_CUDA, "*") {
        ug_result *r = ug_measure_repeat(t, k, in, UG_REPEATS);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c (the first run) */
        if (!k->nondeterministic) {
            UG_EXPECT_DISTINCT_MAX(r, 1); /* declared deterministic: one result, bitwise */
        } else {
            ug_note(t, "%s (nondeterministic): %d distinct results in %d runs", k->name,
                    r->distinct_results, r->repeats);
            ug_result_extra(r, "distinct_results", r->distinct_results);
        }
    }
}

/* Sums: a length that is no power of two and fills the grid-wide kernels' 1024 blocks, on
 * signed data (so that the order of additions changes the bits), and a short one. */
UG_CASE_EX(gpu_determinism, reduce, UG_CASE_GPU)
{
    static const size_t ns[] = {1025, 1000003};
    ug_dist d = ug_normal(0, 1);
    UG_FOR_N(t, n, ns) {
        ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, 1);
        ug_det_all(t, UG_OP_SUM, in);
        ug_input_free(t, in);
    }
}

/* Matmul: a size with partial tiles and one cuBLAS treats as large. */
UG_CASE_EX(gpu_determinism, matmul, UG_CASE_GPU)
{
    static const size_t ns[] = {255, 1000};
    ug_dist d = ug_normal(0, 1);
    UG_FOR_N(t, n, ns) {
        ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d, &(ug_shape){{n, n, n}}, 1);
        ug_det_all(t, UG_OP_GEMM, in);
        ug_input_free(t, in);
    }
}

/* CUB's sum at each determinism level the installed CCCL offers (kernels/cuda/vendor.cu; a
 * level it lacks is skipped, saying so).  Asserted, as CCCL documents them: run_to_run (and the
 * plain two-phase call, documented run-to-run) gives one result over repeats; gpu_to_gpu gives
 * one result over repeats, over launch configurations (the input at other alignments, so other
 * load widths and tiles) and, where the host has a second GPU, on that GPU.  not_guaranteed
 * reports its distinct-result count (never asserted: 1 is possible).  Whether run_to_run keeps
 * its bits across configurations is reported, not asserted (nothing promises it). */
UG_CASE_EX(gpu_determinism, cub_levels, UG_CASE_GPU)
{
    static const char *const levels[] = {"cub_reduce", "cub_reduce_not_guaranteed",
                                         "cub_reduce_run_to_run", "cub_reduce_gpu_to_gpu"};
    static const char *const configs[] = {"", "input 4 bytes off", "input 12 bytes off",
                                          "on a second GPU"};
    ug_dist d = ug_normal(0, 1);
    const size_t n = 1000003;
    if (!ug_n_selected(t, n)) return;
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, 1);
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CUDA, levels[i]) {
            ug_result *r = ug_measure_repeat(t, k, in, UG_REPEATS);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* tree, depth n - 1: any order */
            if (r->failed_run) continue; /* not offered here: the point says why */
            ug_result_extra(r, "distinct_results", r->distinct_results);
            if (k->nondeterministic) {
                ug_note(t, "%s: %d distinct results in %d runs", k->id, r->distinct_results,
                        r->repeats);
                continue;
            }
            UG_EXPECT_DISTINCT_MAX(r, 1);
            bool gpu_to_gpu = strcmp(k->name, "cub_reduce_gpu_to_gpu") == 0;
            for (int cfg = 1; cfg <= 3; cfg++) {
                if (cfg == 3 && !gpu_to_gpu) break;
                ug_point(t, "launch_config %s %s", k->id, configs[cfg]);
                if (cfg == 3 && ug_device_count() < 2) {
                    ug_note(t, "%s: a second GPU is not present (%d CUDA device): not compared "
                               "across GPUs", k->id, ug_device_count());
                    continue;
                }
                float out = 0;
                ug_call c;
                memset(&c, 0, sizeof c);
                c.op = UG_OP_SUM;
                c.shape.dim[0] = n;
                ug_call_set_f32(&c, in->x[0], NULL, &out);
                c.launch_config = cfg;
                if (ug_run_kernel(t, k, &c, __FILE__, __LINE__) != 0) continue;
                bool same = memcmp(&out, &r->out[0][0], sizeof out) == 0;
                ug_note(t, "%s, %s: %a, %s", k->id, configs[cfg], (double)out,
                        same ? "the same bits" : "other bits");
                if (gpu_to_gpu)
                    UG_EXPECT_MSG(same, "%s: %s gave %a, the first launch %a", k->id, configs[cfg],
                                  (double)out, (double)r->out[0][0]);
            }
        }
    }
    ug_input_free(t, in);
}
