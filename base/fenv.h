/*
 * fenv.h - the floating-point environment a process computes under, saved, set and compared.
 *
 * The state that changes what an IEEE operation returns: the C rounding mode (fegetround), and
 * on x86-64 the SSE control register MXCSR (its rounding field, FTZ "flush to zero" and DAZ
 * "denormals are zero") and the x87 control word (precision and rounding).  Exception flags are
 * not part of it: a kernel that raises "inexact" computes nothing differently afterwards.
 * A shared object built with -ffast-math sets FTZ and DAZ when it is loaded (gcc links
 * crtfastmath.o into it), and a kernel may leave the rounding mode changed: either would
 * change every later result, the oracle's too.  ulpgate sets the known state (round to nearest,
 * no flushing: the state a C program starts in) at start-up, around each plugin's loading and
 * around every kernel call (kernels/registry.c, kernels/plugin.c), and in every worker thread of
 * base/par.c, so that the exact values are computed under it.
 */
#ifndef UG_FENV_H
#define UG_FENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ug_fenv {
    int round;          /* fegetround() */
    uint32_t mxcsr;     /* x86: MXCSR less its exception flags (bits 0-5); 0 elsewhere */
    uint16_t x87_cw;    /* x86: the x87 control word; 0 elsewhere */
} ug_fenv;

/* The calling thread's environment now. */
void ug_fenv_get(ug_fenv *e);
/* Set the calling thread's environment to e (its exception flags are left as they are). */
void ug_fenv_set(const ug_fenv *e);
/* The known state: round to nearest, MXCSR 0x1f80 (exceptions masked, no FTZ/DAZ), x87 0x037f. */
const ug_fenv *ug_fenv_known(void);
/* Set the known state in the calling thread. */
void ug_fenv_set_known(void);
/* Whether a and b compute the same. */
bool ug_fenv_equal(const ug_fenv *a, const ug_fenv *b);
/* What differs from `was` to `now`, in words ("rounding mode upward (was to nearest); MXCSR
 * 0x9f80: FTZ and DAZ set (was 0x1f80)"), into buf; returns buf. */
const char *ug_fenv_describe(const ug_fenv *now, const ug_fenv *was, char *buf, size_t len);

#endif
