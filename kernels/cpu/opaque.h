/*
 * opaque.h - UG_OPAQUE(v): keep the compiler from reassociating across v.
 *
 * Compensated summation relies on (t - s) - y not being simplified to 0.  Under -ffast-math
 * (-fassociative-math) a compiler may do exactly that.  UG_OPAQUE hides a value behind an empty
 * asm statement that "modifies" it: the compiler must materialise the rounded binary32 value
 * and cannot reassociate across it.  It costs no instruction.
 */
#ifndef UG_OPAQUE_H
#define UG_OPAQUE_H

#if defined(__x86_64__) || defined(__i386__)
#define UG_OPAQUE(v) __asm__("" : "+x"(v))
#elif defined(__aarch64__)
#define UG_OPAQUE(v) __asm__("" : "+w"(v))
#else
#define UG_OPAQUE(v)                                                                           \
    do {                                                                                       \
        volatile float ug_opaque_ = (v);                                                       \
        (v) = ug_opaque_;                                                                      \
    } while (0)
#endif

/* Whether v is finite, by its exponent bits: -ffinite-math-only (implied by -ffast-math) lets
 * a compiler fold isfinite() to true, but not an integer test. */
#include <stdint.h>
#include <string.h>
static inline int ug_finite_f32(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return (u & 0x7f800000u) != 0x7f800000u;
}

#endif
