/*
 * measure.h - what a measurement is, the half of the case API (harness/run/ug.h) below the run
 * loop: an input with its exact results, a kernel measured on it (every output against the
 * exact result, the figures of a test point), a kernel run on data of the caller's own, the GPU.
 *
 * A measurement knows nothing of cases, shards or reports: it belongs to a context, ug_t, of
 * which it reads its own part (harness/measure/mctx.h: the seed, the oracle, the trial, the
 * name that seeds its inputs) and to which it reports through hooks (a point opened, a failure,
 * a skip); harness/run's running case is that context.
 */
#ifndef UG_MEASURE_H
#define UG_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/measure/input.h"
#include "harness/measure/result.h"

/* ---- measurements ------------------------------------------------------------------------ */

/* The ulp_hist bucket of an ULP error: 0 for exact, b in 1..14 for (2^(b-4), 2^(b-3)], 15 beyond
 * 2048 (and NaN). */
int ug_ulp_bucket(double ulp);

/* Run kernel k on every trial of in, measure every output against the exact result, time it
 * (GPU kernels always; CPU kernels once), and open a test point.  A kernel failure (launch
 * error, fault, size limit) becomes a failed assertion on that test point. */
ug_result *ug_measure(ug_t *t, const ug_kernel *k, const ug_input *in);
/* Run k `repeats` times on trial 0 and count the distinct bitwise outputs (r->distinct_results);
 * also measures the first run like ug_measure. */
ug_result *ug_measure_repeat(ug_t *t, const ug_kernel *k, const ug_input *in, int repeats);
void ug_result_extra(ug_result *r, const char *name, double value);
/* Output e of trial i of r (counted from first_trial) as a double, and the format of its
 * buffer: out_fmt for output 0's elements, out_more_fmt[j - 1] for output j's (an operation of
 * several outputs: attention's O, then its row log-sum-exp). */
double ug_result_output(const ug_result *r, int i, size_t e);
ug_fmt ug_result_out_fmt(const ug_result *r, size_t e);
/* Flush-to-zero (harness/measure/ftz.c): whether got is a signed zero where the exact value of nterms
 * terms is nonzero and subnormal, or a sum of terms at the subnormal scale (gradual underflow
 * would give a nonzero result), and how many of r's outputs (first run of each trial) are. */
bool ug_is_flush_to_zero(double got, const ug_exact *x, size_t nterms);
size_t ug_result_flushed_to_zero(const ug_result *r);
/* All outputs correctly rounded (r->correctly_rounded == r->count). */
bool ug_result_correctly_rounded(const ug_result *r);

/* ---- the GPU, and kernels run directly ------------------------------------------------------ */

bool ug_gpu_available(void);
/* A kernel run on data of the case's own (not via ug_measure): returns 0, or records the
 * kernel's error as a failure and returns nonzero.  A CPU kernel runs on fenced copies of the
 * call's buffers (kernels/kernel.h ug_kernel_run_fenced): one element past either end faults. */
int ug_run_kernel(ug_t *t, const ug_kernel *k, ug_call *c, const char *file, int line);

#endif
