/*
 * run_limits.h - what a run may take, checked before it is taken.
 *
 *   - Memory.  Up front, before anything runs: --trials T against the cheapest input any case
 *     can make with T trials (a sum of n = 1, or of --n).  Then each input before it is
 *     generated (its values, exact results and one measurement's outputs, every trial) and
 *     each measurement's outputs before they are allocated.  Whatever would not fit in 90% of
 *     the memory available (base/mem.h: MemAvailable, the cgroup, `ulimit -v`,
 *     ULPGATE_MEM_LIMIT) is refused with the bytes needed and the bytes available: a usage
 *     error (exit 2) up front, a failed test point inside a case, never the OOM killer.
 *   - Reduced runs (the compute-sanitizer setups of tests/meson.build):
 *     ULPGATE_MAX_ELEMENTS=E skips every input with more than E elements per trial (n for a
 *     sum, 2n for a dot, MK + KN for a GEMM), as a TAP skip naming the cap;
 *     ULPGATE_MAX_TRIALS=T cuts every input's trials to at most T; ULPGATE_NO_TIMING=1 leaves
 *     GPU kernels untimed (one run a trial, no timed repetitions).
 */
#ifndef UG_RUN_LIMITS_H
#define UG_RUN_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/kernel.h"
#include "ops/op.h"
#include "harness/measure/measure.h"

/* The share of the available memory one input (or one measurement's outputs) may take. */
#define UG_MEM_SHARE 0.9

/* Up front, for a run of --n n (0: every size), --trial trial (-1: every trial) and --trials
 * trials (0: the cases' own): 0, or 2 after "ulpgate: --trials T: ..." on stderr. */
int ug_limits_check_options(size_t n, long trial, int trials);

/* The heap bytes one input takes: per trial, its values, its exact records and one
 * measurement's outputs. */
double ug_limits_input_bytes(const ug_op_desc *d, const ug_shape *s, int trials);

/* The trials an input gets: trials, cut to ULPGATE_MAX_TRIALS when that is set. */
int ug_limits_trials(int trials);
/* The timed repetitions of a GPU kernel: reps, or 0 under ULPGATE_NO_TIMING=1 (a run under a
 * sanitizer, whose times mean nothing: each kernel then runs once a trial). */
int ug_limits_timing_reps(int reps);
/* Whether a size n can be measured at all under ULPGATE_MAX_ELEMENTS (n > E never can; the
 * exact check is ug_limits_input's).  Says once on stderr that sizes are being skipped. */
bool ug_limits_size_ok(size_t n);
/* The caps in force (0 / false: none), and how many sizes or inputs ULPGATE_MAX_ELEMENTS left
 * out so far: what results.json's meta.limits records (report_write.c). */
size_t ug_limits_max_elements(void);
int ug_limits_max_trials(void);
bool ug_limits_no_timing(void);
size_t ug_limits_sizes_left_out(void);
/* Before an input is generated (input.c): above ULPGATE_MAX_ELEMENTS, a skipped point and the
 * case ends; more memory than there is, a failed point and the case ends.  Returns otherwise. */
void ug_limits_input(ug_t *t, const ug_op_desc *d, const char *label, const ug_shape *s,
                     int trials);
/* Before a measurement's outputs are allocated (measure.c): true when they fit, else false
 * after failing the test point (r->failed_run set, the reason in r->run_error). */
bool ug_limits_outputs(ug_t *t, ug_result *r);

#endif
