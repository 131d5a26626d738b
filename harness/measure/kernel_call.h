/*
 * kernel_call.h - one call of a kernel under measurement (harness/measure/kernel_call.c): the
 * call's typed buffers from an input, the kernel run (tallied: ran, or declined as
 * unsupported), its buffers fenced against overruns, and a deterministic kernel's reruns.
 * measure.c builds a measurement from these calls.
 */
#ifndef UG_KERNEL_CALL_H
#define UG_KERNEL_CALL_H

#include "base/fence.h"
#include "harness/measure/mctx.h"

/* The poison byte of unwritten outputs: every byte of an element 0xff, in binary32 a negative
 * quiet NaN with every payload bit set, which no arithmetic produces (hardware NaNs are
 * 0x7fffffff on GPUs, 0xffc00000 on x86); a NaN in every format of base/format.h. */
#define UG_POISON_BYTE 0xff

/* The call of kernel k on trial i of in: every buffer typed with its format and count (the
 * output: k's out_fmt, r->elements of them). */
void ug_call_setup(ug_call *c, const ug_kernel *k, const ug_input *in, int i, void *out);
/* One run of the kernel on trial i into out (poisoned first); 0, or -1 after recording the
 * kernel's failure.  *ms: its time (GPU: the median of its timed reps when reps > 0).  A CPU
 * kernel reads and writes fenced copies of the buffers (fence.h) against side: one element
 * outside either end faults, a failed point naming the kernel and the signal (guard.c). */
int ug_run_trial_fenced(ug_t *t, ug_result *r, int i, void *out, int reps, double *ms,
                        ug_fence_side side);
/* A CPU kernel that declares itself deterministic runs a sample of its trials again, fenced
 * on the other side: the output must be the first run's, bit for bit (kernel_call.c says
 * which trials).  0, or -1 after recording the failure on the point. */
int ug_measure_determinism(ug_t *t, ug_result *r, double run_ms);

#endif
