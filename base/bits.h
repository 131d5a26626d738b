/*
 * bits.h - bit casts between floating-point values and their encodings, and the comparisons
 * that need them.  Header-only (static inline); the one place these are written.
 */
#ifndef UG_BITS_H
#define UG_BITS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t ug_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float ug_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint64_t ug_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double ug_bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Bitwise equal binary32 values, or both NaN (any payload). */
static inline bool ug_same_f32(float a, float b)
{
    return ug_f32_bits(a) == ug_f32_bits(b) || (a != a && b != b);
}

/* Bitwise equal binary64 values, or both NaN (any payload). */
static inline bool ug_same_f64(double a, double b)
{
    return ug_f64_bits(a) == ug_f64_bits(b) || (a != a && b != b);
}

#endif
