/*
 * invariance.c - batch invariance of the CPU kernels ("Defeating Nondeterminism in LLM
 * Inference", He and Thinking Machines Lab, 2025): the same rows computed in batches of 1, 3, 64
 * and 1000 must give the same bits, and causal attention computed as one prefill must give the
 * bits of chunks of 64 query rows and decode steps.  Every GEMM, row operation (RMSNorm,
 * LayerNorm, softmax) and attention kernel runs the checks of harness/invariance/invariance.h:
 * a kernel that declares .batch_invariant and differs fails, naming the first differing row,
 * both configurations and both values in hex; a kernel known not to be invariant
 * (invariance_known.h) is an expected failure naming the cause; any other kernel's finding is a
 * result, in the report's "Batch invariance" table.  The GPU kernels: cases/gpu/gpu_invariance.c.
 *
 * Cost (2 cores): ~1 s; every configuration of every kernel is a handful of calls.
 */
#include "cases/invariance_known.h"
#include "harness/invariance/invariance.h"
#include "harness/run/ug.h"

UG_CASE(invariance, batch)
{
    ug_invariance_all(t, UG_CPU, ug_inv_known_kernels,
                      sizeof ug_inv_known_kernels / sizeof ug_inv_known_kernels[0], NULL);
}
