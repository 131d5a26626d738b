/*
 * selection.h - what a run's selection selected (harness/run/selection.c): the sizes the cases
 * offered (ug_n_selected records them), and the usage errors of a selection that selects
 * nothing, each naming the nearest names.  Each returns the exit status 2, a message on stderr.
 */
#ifndef UG_SELECTION_H
#define UG_SELECTION_H

#include "harness/run/context.h"

/* Before the run: --kernel or the plugins select no kernel at all. */
int ug_no_kernel_error(const ug_options *opt);
/* Before the run: --filter selects none of units[count]. */
int ug_no_case_error(const ug_options *opt, const ug_unit *units, size_t count);
/* After the run: a --n, --trial, --kernel or --format that selected no measurement, or a run
 * that measured and checked nothing (units[count]: every unit, for the --kernel message); 0
 * when the run measured something. */
int ug_selection_error(const ug_options *opt, const ug_results *res, const ug_unit *units,
                       size_t count);

#endif
