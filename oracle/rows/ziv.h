/*
 * ziv.h - the decision of a record from an MPFR enclosure (oracle/rows/transcend.c), for other
 * references that enclose their outputs the same way (oracle/attention/attention_mpfr.c), and
 * the statistics they share (transcend.h's ug_ziv_stats).  Internal to oracle/.
 */
#ifndef UG_ORACLE_ZIV_H
#define UG_ORACLE_ZIV_H

#include <mpfr.h>
#include <stdbool.h>

#include "oracle/oracle.h"

/* Whether [l, u] (l <= u, the real value inside) decides every rounding of the record: hi =
 * RN64, lo = RN64(s - hi) and its sign, RN32, RD32 the same at both ends; fills e (sum_abs =
 * S) if so.  lb / ub (NaN: none): values the real one lies strictly above / below (transcend.c
 * explains how an end sitting on one is decided). */
bool ug_ziv_decide(mpfr_srcptr l, mpfr_srcptr u, double S, double lb, double ub, ug_exact *e);
/* The statistics (this thread): an output decided at p bits (exact: width zero), one not
 * decided at the cap; and the precisions a Ziv loop starts at and stops at
 * (ug_ziv_set_precisions). */
void ug_ziv_count_decided(long p, bool exact);
void ug_ziv_count_undecided(void);
void ug_ziv_precisions(long *prec0, long *cap);

#endif
