/*
 * prof.h - where a run's time goes: wall seconds per phase (inputs, oracle, kernel runs,
 * accounting) and per kernel, accumulated by the run loop (one thread) and printed at the end
 * of a run as TAP comments, so that a slow suite says what to shard or make cheaper.
 */
#ifndef UG_PROF_H
#define UG_PROF_H

#include <stdio.h>

typedef enum {
    UG_PH_INPUT,   /* generating inputs (harness/dist*, gen.c) */
    UG_PH_ORACLE,  /* exact results and their cross-checks (oracle/) */
    UG_PH_KERNEL,  /* kernel runs: launches, copies, timing reps, nondeterministic repeats */
    UG_PH_ACCOUNT, /* errors of every output against the exact results */
    UG_PH_COUNT
} ug_phase;

/* Seconds since an arbitrary origin (base/sys.h's clock). */
double ug_prof_now(void);
/* Add the seconds since t0 to phase ph (and, for UG_PH_KERNEL, to kernel id). */
void ug_prof_add(ug_phase ph, double t0, const char *kernel_id);
/* Two comment lines: the phases against total seconds, and the `top` slowest kernels. */
void ug_prof_print(FILE *out, double total, int top);

#endif
