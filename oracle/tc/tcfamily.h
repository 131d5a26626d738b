/*
 * tcfamily.h - the input families of the tensor-core model's bit-for-bit checks: random
 * (uniform, normal, wide exponents) and adversarial (cancelling pairs, one large term per 16,
 * near-ties at the alignment grid, tiny values), every value a finite number of the input
 * format.  gpu_tcmodel/bitwise grades a kernel against the model on them, tcmodel_int and
 * tcmodel_gpu grade the integer model (host, device) against tcmodel.c on them.
 */
#ifndef UG_TCFAMILY_H
#define UG_TCFAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "base/format.h"

enum { UG_TC_FAMILIES = 7 };

/* "uniform [0,1)", ...; "?" out of range. */
const char *ug_tc_family_name(int f);
/* A (M x K) then B (K x N), row-major, of family f, numbers of fmt, from one splitmix64 stream
 * seeded with seed (the same seed, the same matrices).  O(MK + KN). */
void ug_tc_family_fill(int f, uint64_t seed, ug_fmt fmt, double *A, double *B, size_t M, size_t N,
                       size_t K);

#endif
