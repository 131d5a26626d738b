/*
 * special.c - the special-value and zero-sign rules shared by both oracles (special.h).
 */
#include <math.h>

#include "oracle/special.h"

double ug_oracle_nan(void)
{
    return NAN; /* positive quiet NaN; both implementations store this one */
}

ug_xclass ug_special_class(size_t nan_terms, size_t posinf_terms, size_t neginf_terms)
{
    if (nan_terms || (posinf_terms && neginf_terms))
        return UG_X_NAN;
    if (posinf_terms)
        return UG_X_POSINF;
    if (neginf_terms)
        return UG_X_NEGINF;
    return UG_X_FINITE;
}

void ug_exact_set_special(ug_exact *e, ug_xclass cls)
{
    double v = cls == UG_X_POSINF ? INFINITY : cls == UG_X_NEGINF ? -INFINITY : ug_oracle_nan();
    e->cls = (uint8_t)cls;
    e->hi = e->lo = v;
    e->rn = e->rd = (float)v;
    e->sum_abs = INFINITY;
}

void ug_exact_set_zero(ug_exact *e, int negative)
{
    double z = negative ? -0.0 : 0.0;
    e->cls = UG_X_FINITE;
    e->hi = z;
    e->lo = 0.0;
    e->rn = e->rd = (float)z;
}
