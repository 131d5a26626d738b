/*
 * scan_profile.h - the error of a vector output along its positions, as a row's own figures
 * (cases/scan.c, cases/gpu/gpu_scan.c): along_00 .. along_11, the max ULP error of the outputs in
 * each twelfth of the positions, over every trial.  The HTML report plots them
 * (harness/report/report_along.c: a scan's error along the prefix).  Cost: one ug_error_of
 * per output (the measurement's own cost again).
 */
#ifndef UG_CASES_SCAN_PROFILE_H
#define UG_CASES_SCAN_PROFILE_H

#include <stdio.h>

#include "harness/run/ug.h"

enum { UG_ALONG_SEGMENTS = 12 };

static inline void ug_along_profile(ug_result *r, const ug_input *in)
{
    if (!r || !r->out || !in || !in->exact || r->elements < UG_ALONG_SEGMENTS) return;
    double seg[UG_ALONG_SEGMENTS] = {0};
    for (int i = 0; i < r->trials; i++) {
        if (!r->out[i] || !in->exact[i]) return; /* a kernel that failed: no profile */
        for (size_t e = 0; e < r->elements; e++) {
            double u = ug_error_of(&in->exact[i][e], r->out[i][e]).ulp;
            size_t s = e * UG_ALONG_SEGMENTS / r->elements;
            if (!(u <= seg[s])) seg[s] = u;
        }
    }
    for (int s = 0; s < UG_ALONG_SEGMENTS; s++) {
        char name[16];
        snprintf(name, sizeof name, "along_%02d", s);
        ug_result_extra(r, name, seg[s]);
    }
}

#endif
