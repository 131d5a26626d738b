/*
 * crossgpu.c - fingerprints of every deterministic GPU kernel's outputs on fixed inputs, for the
 * cross-GPU check of `ulpgate run --gpus` (harness/scale/workers.c): each GPU runs these cases, and
 * the fingerprints must be the same bits on every GPU (the grid-wide kernels fix their launch
 * shape by n alone, so their summation trees do not depend on the GPU; cuBLAS promises the same
 * bits only on the same architecture and SM count: a difference there names the GPUs).  On one
 * GPU the cases still check every output's a-priori bound and record the fingerprint
 * (results.json, extra out_hash_hi / out_hash_lo: a 64-bit FNV-1a of the output bits, in two
 * exact halves).
 */
#include <string.h>

#include "harness/inputs/rng.h"
#include "harness/run/ug.h"

static void ug_fingerprint(ug_result *r)
{
    /* a kernel that did not run (refused, not built here) has no outputs to fingerprint */
    if (r->failed_run || !r->out) return;
    for (int tr = 0; tr < r->trials; tr++)
        if (!r->out[tr]) return;
    uint64_t h = UG_HASH64_INIT;
    for (int tr = 0; tr < r->trials; tr++)
        for (size_t e = 0; e < r->elements; e++) {
            uint32_t bits;
            memcpy(&bits, &r->out[tr][e], sizeof bits);
            for (int b = 0; b < 4; b++) h = (h ^ ((bits >> (8 * b)) & 0xff)) * 0x100000001b3ull;
        }
    ug_result_extra(r, "out_hash_hi", (double)(h >> 32));
    ug_result_extra(r, "out_hash_lo", (double)(h & 0xffffffffu));
}

static void ug_crossgpu(ug_t *t, ug_op op, const ug_input *in)
{
    UG_FOR_KERNELS(t, k, op, UG_CUDA, "*") {
        if (k->nondeterministic) continue;
        if (k->max_n && in->shape.dim[0] > k->max_n) continue;
        ug_result *r = ug_measure(t, k, in);
        UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
        ug_fingerprint(r);
    }
}

UG_CASE_EX(crossgpu, sum, UG_CASE_GPU)
{
    /* past one grid pass (1024 blocks of 256 threads: 262144), not a power of two */
    ug_dist d = ug_normal(0, 1);
    ug_input *in = ug_input_make(t, UG_OP_SUM, &d, 1000003, 2);
    ug_crossgpu(t, UG_OP_SUM, in);
}

UG_CASE_EX(crossgpu, gemm, UG_CASE_GPU)
{
    ug_dist d = ug_normal(0, 1);
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d, &(ug_shape){{257, 255, 1000}}, 1);
    ug_crossgpu(t, UG_OP_GEMM, in);
}
