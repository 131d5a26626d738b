/*
 * invariance.h - batch invariance: the same rows computed beside other rows must give
 * the same bits.  A kernel declares it (ug_kernel.batch_invariant); these checks run any kernel
 * of an operation with rows and say whether it held:
 *
 *   UG_INV_BATCH    the same 3 rows embedded in batches of 1, 3, 64 and 1000 (the other rows
 *                   drawn from the (seed, case, trial 0) stream): a GEMM's rows of A and C
 *                   (batch = M; B shared), a row operation's rows (rmsnorm, layernorm, softmax:
 *                   the parameters shared), attention's problems (batch x L x d; a decode
 *                   shape, L = 1, S = 64, d = dv = 64), and for attention also the 64
 *                   problems as 64 heads of one batch (the same buffers, another shape)
 *   UG_INV_CHUNKED  causal attention, one head of T = 320 tokens (d = dv = 64): one prefill
 *                   (L = S = T) against chunks of 64 query rows over the growing keys (L = 64,
 *                   S = 64, 128, ..., 256, bottom-right causal) and then decode steps (L = 1,
 *                   S = 257 ... 320)
 *   UG_INV_SPLITK   a GEMM that offers launch configurations (c->launch_config): batch 1
 *                   against batches 1 and 64 under the configuration given (the tensor-core
 *                   family's 5: cuBLASLt's split-K forced to 4)
 *
 * Every row's output bits (each output buffer, in the kernel's storage formats) are compared
 * with the reference configuration's (batch 1, one prefill); the first differing row is named
 * with both configurations and both values in hex.  Each check is one test point,
 * "<kind> <kernel id> declared|undeclared", whose results.json note is the finding:
 *   - a declared kernel that differs fails;
 *   - a kernel the caller lists in `known` with .asserted (one of ours built not to be
 *     invariant: a split count that follows the batch or S) is an expected failure naming the
 *     cause, and a stale one (it held) fails;
 *   - a kernel listed without .asserted (a library that picks its algorithm by M: a hint) is,
 *     where it differs, an expected failure naming the cause; where it does not, a pass;
 *   - any other kernel's finding is a result (the report's "Batch invariance" table).
 * Cost: GEMM N = 48, K = 256: 1000 x 48 x 256 multiply-adds at batch 1000; rows n = 512;
 * attention ~200 calls of at most 320 x 320 x 64.
 */
#ifndef UG_INVARIANCE_H
#define UG_INVARIANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/run/ug.h"

typedef enum { UG_INV_BATCH, UG_INV_CHUNKED, UG_INV_SPLITK } ug_inv_kind;

/* A kernel known not to be invariant, by glob (ug_kernel_matches), for one kind of check. */
typedef struct ug_inv_known {
    const char *glob;
    ug_inv_kind kind;
    bool asserted;     /* the difference is asserted (an expected failure, stale if it holds);
                          else a hint: an expected failure where it differs, a pass where not */
    const char *cause; /* what changes with the batch */
} ug_inv_known;

/* "batch", "chunked", "splitk". */
const char *ug_inv_kind_name(ug_inv_kind kind);

/* Whether check `kind` applies to k's operation (batch: GEMM, row operations, attention;
 * chunked: attention; splitk: GEMM). */
bool ug_inv_applies(const ug_kernel *k, ug_inv_kind kind);

/* Run check `kind` on k as its own test point (the header's rules).  launch_config: the
 * configuration UG_INV_SPLITK compares with 0 (ignored by the others).  A kernel that declines
 * a call as unsupported skips the point, saying why. */
void ug_invariance_check(ug_t *t, const ug_kernel *k, ug_inv_kind kind, int launch_config,
                         const ug_inv_known *known, size_t nknown);

/* Every check on every kernel of `backend` the run selects (--kernel, --format), by kind, then
 * operation, then input format: batch and chunked where they apply; split-K where
 * splitk_config(k) gives a launch configuration (NULL or 0: none). */
void ug_invariance_all(ug_t *t, int backend, const ug_inv_known *known, size_t nknown,
                       int (*splitk_config)(const ug_kernel *k));

#endif
