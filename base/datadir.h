/*
 * datadir.h - where ulpgate's own data is (the built-in corpus cases/corpus, the unit costs
 * reports/unit_costs.json): found at run time, never through a path compiled in, so that an
 * installed or copied binary finds its data and no source path is in the binary.
 */
#ifndef UG_DATADIR_H
#define UG_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

/* The data folder, first that applies:
 *   1. $ULPGATE_DATA_DIR (what --data-dir DIR sets);
 *   2. the file "ulpgate-data-dir" beside the executable, holding a folder's path (the build
 *      tree's: meson writes the source root there; nothing in the binary names it);
 *   3. <folder of the executable>/../share/ulpgate (an installed or copied prefix).
 * NULL when none is a folder.  Computed once; the result is the same for the whole process. */
const char *ug_data_dir(void);
/* Whether ug_data_dir came from the build tree's file (2): the data is ulpgate's source tree. */
bool ug_data_dir_is_source_tree(void);
/* path = data dir + "/" + rel; false (path empty) when there is no data dir or it does not fit. */
bool ug_data_path(const char *rel, char *path, size_t size);

#endif
