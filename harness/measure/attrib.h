/*
 * attrib.h - the input terms behind a failed sum or dot, for the failure report (harness/run/expect.c).
 */
#ifndef UG_ATTRIB_H
#define UG_ATTRIB_H

#include "base/buf.h"
#include "harness/measure/measure.h"

/* Append to d, for the worst output w of measurement r (a sum or dot whose input is still
 * alive), the terms that matter:
 *   - the terms whose removal changes the kernel's absolute error most: each candidate removed,
 *     the kernel rerun on the n - 1 others, the error measured against the exact sum without
 *     it (every term for n <= 1024 on a CPU kernel, n <= 64 on a GPU kernel; else the 32 of
 *     largest magnitude, fewer where 32 n > 2^26), the 4 largest changes shown by index and
 *     value in hex;
 *   - in index order, the first binary32 partial sum that is not its exact prefix correctly
 *     rounded, and the largest single rounding (what a serial kernel does; n <= 2^22);
 *   - where the exact result is NaN or infinite, its first non-finite terms instead.
 * Nothing for GEMM or n < 2.  Cost: O(tries * n) kernel and oracle work, on failures only. */
void ug_attrib_lines(ug_buf *d, const ug_result *r, const ug_worst *w);

#endif
