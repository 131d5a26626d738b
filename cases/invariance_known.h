/*
 * invariance_known.h - the kernels known not to be batch-invariant, with the cause: read by
 * cases/invariance.c (CPU) and cases/gpu/gpu_invariance.c (GPU).  An asserted entry is one of
 * ours built to show the failure (the point is an expected failure, and fails when the
 * difference vanishes); a hint is a library's choice, measured on each GPU: where it differs the
 * point is an expected failure naming the cause, where it does not (another GPU, another
 * library version) a pass saying so (the report's "Batch invariance" table has both).
 */
#ifndef UG_CASES_INVARIANCE_KNOWN_H
#define UG_CASES_INVARIANCE_KNOWN_H

#include "harness/invariance/invariance.h"

static const ug_inv_known ug_inv_known_kernels[] = {
    /* first match wins: the -ffast-math copy's split is the compiler's to keep or fuse (gcc
     * 12 kept the 4 parts apart: it differs; clang 14 reassociated them into one order: equal) */
    {"rmsnorm_split_*@fastmath", UG_INV_BATCH, false,
     "built with -O3 -ffast-math: the compiler may reassociate the split sums of squares (it "
     "differs where the split survives, as in the default build)"},
    {"rmsnorm_split_*", UG_INV_BATCH, true,
     "its split of each row's sum of squares follows the batch (4 parts below 64 rows, 1 from "
     "64, as libraries add blocks a row for a small batch): another summation order"},
    {"attn_splitkv_count_*", UG_INV_CHUNKED, true,
     "a fixed split count cuts the call's S keys into ceil(S / count)-key splits: a chunk or a "
     "decode step has a shorter S and other split boundaries"},
    {"cublas_*", UG_INV_BATCH, false,
     "cuBLAS picks its algorithm (tiles, split-K) by the problem's M: a heuristic, not a promise"},
    {"dgemm*", UG_INV_BATCH, false,
     "cuBLAS DGEMM picks its algorithm by the problem's M: a heuristic, not a promise"},
    {"lt_*", UG_INV_BATCH, false,
     "cuBLASLt's heuristic picks the algorithm and its split-K by M"},
    {"lt_*", UG_INV_SPLITK, false,
     "split-K sums K/4-slices and then the slices: another order (measured at M = 64 on the "
     "H100: gpu_invariance/configs)"},
};

#endif
