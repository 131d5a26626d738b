/*
 * gpu_faults.c - the GPU's failure modes, each met on purpose (the kernels: tests/gpu_faults.cu,
 * registered in this self-test program only).
 *
 *   faults/out_of_bounds_write  a kernel writes to an illegal address: its test point fails
 *                               with the CUDA error's name, and a correct kernel measured after
 *                               it fails fast, saying the context is poisoned.  (A canary: run
 *                               by the `faults` suite, tests/faults_test.sh, which asserts
 *                               exactly that.)
 *   faults/hang                 a kernel never ends: the per-case time limit (--timeout) ends
 *                               the run with a failed point, a plan, "Bail out!" and an
 *                               interrupted report (a canary of the `faults` suite too).
 *   gpu_memory/too_big_refused  every CUDA kernel asked for more than the GPU holds is refused
 *                               at its entry with the bytes needed and the bytes free (or by its
 *                               own max_n), nothing launched; a normal measurement after that
 *                               still passes.  In the default `gpu` suite.
 */
#include <stdio.h>
#include <string.h>

#include "harness/run/ug.h"

UG_CASE_EX(faults, out_of_bounds_write, UG_CASE_GPU | UG_CASE_SHOULD_FAIL)
{
    const ug_kernel *oob = ug_kernel_find("sum_oob_write"), *good = ug_kernel_find("reduce_sequential");
    UG_ASSERT_MSG(oob && good, "sum_oob_write (tests/gpu_faults.cu) or reduce_sequential not registered");
    ug_dist d = ug_uniform(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 1000, 1);
    ug_result *r = ug_measure(t, oob, in); /* fails: cudaErrorIllegalAddress */
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
    ug_result *after = ug_measure(t, good, in); /* fails fast: the context is poisoned */
    UG_EXPECT_BOUND_RATIO_MAX(after, 1.0);
}

UG_CASE_EX(faults, hang, UG_CASE_GPU | UG_CASE_SHOULD_FAIL)
{
    const ug_kernel *spin = ug_kernel_find("sum_spin");
    UG_ASSERT_MSG(spin != NULL, "sum_spin (tests/gpu_faults.cu) not registered");
    ug_dist d = ug_uniform(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 1000, 1);
    ug_result *r = ug_measure(t, spin, in); /* never returns: the watchdog ends the run */
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
}

/* Sizes no GPU holds: 2^36 floats (256 GiB) for a sum; a 2^17 cube (192 GiB) for a GEMM. */
#define UG_HUGE_SUM ((size_t)1 << 36)
#define UG_HUGE_GEMM ((size_t)1 << 17)

UG_CASE_EX(gpu_memory, too_big_refused, UG_CASE_GPU)
{
    static float dummy[4]; /* never read: the entry check refuses before any copy */
    static const ug_op ops[] = {UG_OP_SUM, UG_OP_DOT, UG_OP_GEMM};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        UG_FOR_KERNELS(t, k, ops[o], UG_CUDA, "*") {
            if (strncmp(k->name, "sum_", 4) == 0) continue; /* the fault kernels */
            ug_call c;
            memset(&c, 0, sizeof c);
            c.op = k->op;
            c.shape.dim[0] = ug_opshape_ndims(ug_op_get(k->op)->shape) > 1 ? UG_HUGE_GEMM : UG_HUGE_SUM; /* M of a GEMM */
            c.shape.dim[1] = c.shape.dim[2] = UG_HUGE_GEMM;
            ug_call_set_f32(&c, dummy, dummy, dummy);
            /* in the kernel's own formats (never read: refused before any copy) */
            for (int a = 0; a < UG_MAX_INPUTS; a++) c.in[a].fmt = k->in_store[a];
            c.out[0].fmt = k->out_fmt;
            int rc = ug_kernel_run(k, &c);
            ug_point(t, "%s n=%zu refused", k->id, c.shape.dim[0]);
            bool by_max_n = k->max_n && c.shape.dim[0] > k->max_n;
            UG_EXPECT_MSG(rc != 0, "%s ran n=%zu without an error", k->id, c.shape.dim[0]);
            if (by_max_n)
                UG_EXPECT_MSG(strstr(c.err, "exceeds this kernel's limit max_n") != NULL,
                              "%s: not refused by its max_n: %s", k->id, c.err);
            else
                UG_EXPECT_MSG(strstr(c.err, "bytes of GPU memory") && strstr(c.err, "are free of"),
                              "%s: not refused with the bytes needed and free: %s", k->id, c.err);
            ug_note(t, "%s", c.err);
        }
    }
    /* the refusals launched nothing and poisoned nothing: a normal measurement passes */
    const ug_kernel *good = ug_kernel_find("reduce_sequential");
    UG_ASSERT_MSG(good != NULL, "reduce_sequential not registered");
    ug_dist d = ug_uniform(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 1000, 2);
    ug_result *r = ug_measure(t, good, in);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori tree bound: > 1 is a bug */
}
