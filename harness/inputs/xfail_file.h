/*
 * xfail_file.h - `ulpgate run --xfail FILE`: the expected failures of the user's own kernels, in
 * the user's repository (docs/your-own-kernel.md).  One entry a line:
 *
 *   CASE_GLOB  KERNEL_GLOB  REASON...
 *
 * CASE_GLOB is matched (fnmatch) against the case's name ("corpus/cancel_1e8_plus_1",
 * "reduce/finding_*"), KERNEL_GLOB as --kernel is (against name@variant when it has '@', else the
 * name); '#' starts a comment line; blank lines are ignored.  A test point that both select is
 * a strict expected failure: it must fail (TAP "# TODO"), and one that passes fails the run as
 * stale ("remove it"), as a corpus file's own "# xfail:" lines do.
 */
#ifndef UG_XFAIL_FILE_H
#define UG_XFAIL_FILE_H

#include "kernels/kernel.h"

/* Read FILE; 0, or 2 with "FILE:LINE: what is wrong" on stderr. */
int ug_xfail_file_load(const char *path);
/* The reason the loaded entries give for (case, kernel), or NULL (kernel may be NULL: a point
 * of no one kernel, which only KERNEL_GLOB "*" selects). */
const char *ug_xfail_file_match(const char *case_name, const ug_kernel *k);

#endif
