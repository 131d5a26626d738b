/*
 * merge.h - the results.json files of the shards (or parts) of one run into one (merge.c says
 * what is refused).  `ulpgate merge` (harness/cli/cli_merge.c) and the workers of `run --gpus`
 * (workers.c) both call it.
 */
#ifndef UG_MERGE_H
#define UG_MERGE_H

#include <stdbool.h>

/* Merge paths[0..count) into out, and JUnit XML into junit (NULL: junit.xml beside out).
 * parts: the inputs are parts of one default run (--parts), else shards of one plan.
 * cut: NULL, or why the run was cut short (`run --gpus` stopped by a signal): shards missing
 * and units not run are then allowed, and the merged report is marked interrupted with cut
 * as the first stop reason.  Returns the merged run's verdict (0 pass, 1 a failure), or 2 after a message on stderr
 * naming the file or what is wrong. */
int ug_merge(const char *out, const char *junit, const char *const *paths, int count, bool parts,
             const char *cut);

#endif
