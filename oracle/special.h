/*
 * special.h - the rules both oracles share (the MPFR one and the fast one): special values
 * and the sign of an exact zero.  Internal to oracle/; oracle.h states the rules for users.
 * Neither implementation calls back into oracle.c (the dispatcher): they meet only here.
 */
#ifndef UG_ORACLE_SPECIAL_H
#define UG_ORACLE_SPECIAL_H

#include <stddef.h>

#include "oracle/oracle.h"

/* The canonical NaN (positive, quiet) that both implementations store, so that they agree
 * bitwise. */
double ug_oracle_nan(void);

/* Class of a set of terms from the counts of NaN, +inf and -inf terms (oracle.h's rules: any
 * NaN, or +inf with -inf, is NaN; a 0*inf product counts as a NaN term).  O(1). */
ug_xclass ug_special_class(size_t nan_terms, size_t posinf_terms, size_t neginf_terms);

/* Fills e for a special class: hi = lo = rn = rd = NaN or the matching infinity,
 * sum_abs = +inf.  O(1). */
void ug_exact_set_special(ug_exact *e, ug_xclass cls);

/* Fills e for an exact zero: -0 when negative (the sum of n >= 1 terms that are all -0), else
 * +0, in hi, rn and rd alike; lo = +0.  sum_abs is left to the caller.  O(1). */
void ug_exact_set_zero(ug_exact *e, int negative);

#endif
