/*
 * plugin.h - kernels built elsewhere: shared libraries declaring their rows with UG_PLUGIN
 * (include/ulpgate/ulpgate.h), loaded at start-up by `--plugin FILE` and registered after the
 * built-in families.
 */
#ifndef UG_PLUGIN_H
#define UG_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"

/* Load the plugin at path (dlopen), check its table (ug_plugin_check), register its kernels.
 * Returns 0, or 2 with the reason on stderr naming the file (dlopen's error, no entry point or
 * one that is no function, what ug_plugin_check refuses).  The floating-point environment
 * (base/fenv.h) is saved before dlopen and restored after the entry point: a plugin that changed
 * it while loading (-ffast-math: FTZ/DAZ) is loaded, and every call of its kernels fails saying
 * so.  Call before anything looks at the registry.  The library stays loaded until exit. */
int ug_plugin_load(const char *path);
/* A map of the process's memory the table checks look pointers up in (plugin_check.c): ranges
 * [lo, hi) readable, and executable for code. */
enum { UG_MEM_READ = 1, UG_MEM_EXEC = 2 };
typedef struct {
    uintptr_t lo, hi;
    unsigned prot;
} ug_mem_range;
typedef struct {
    const ug_mem_range *r;
    size_t n;
} ug_mem_map;
/* The most rows one plugin may declare. */
#define UG_PLUGIN_MAX_KERNELS 4096
/* Check what a plugin's entry point returned before anything reads it as kernels: p readable,
 * its API version and ug_kernel size this ulpgate's, a table that is non-NULL, aligned and
 * inside readable memory for all `count` rows (<= UG_PLUGIN_MAX_KERNELS), and each row sane: a
 * name of letters, digits and _ - . + (<= 55 bytes, no control byte, ESC or newline: names are
 * printed raw in the TAP stream), a known operation, backend, formats and bound class, bools
 * that are 0 or 1, .run (and .depth) inside executable memory, a .doc string without control
 * bytes; no two rows of one name.  Every pointer is looked up in m before it is followed.
 * Returns 0, or -1 with the reason in why (naming the row), which the caller prefixes with the
 * plugin's path.  Cost: O(count^2) name comparisons. */
int ug_plugin_check(const ug_plugin *p, const ug_mem_map *m, char *why, size_t len);
/* Whether name is a kernel name ulpgate accepts (above); else false with the reason in why. */
bool ug_kernel_name_ok(const char *name, char *why, size_t len);
/* The corpus folders the loaded plugins declare (UG_PLUGIN_CORPUS, made absolute against the
 * library's folder), NULL past the end. */
const char *ug_plugin_corpus_at(size_t i);
/* Register a plugin's family (kernels/registry.c); load_fault: NULL, or why every call of its
 * kernels fails (it changed the floating-point environment when it was loaded; kept).
 * --no-builtin: the registry leaves the built-in families out. */
void ug_registry_add_plugin(const ug_family *f, const char *load_fault);
void ug_registry_no_builtin(void);
/* Whether the built-in families are in the registry (false after ug_registry_no_builtin). */
bool ug_registry_has_builtin(void);
/* Whether k was loaded from a plugin (ug_registry_add_plugin): a kernel under the user's test,
 * whose being measured nowhere is a failure (harness/run/run.c), not the machine's nature. */
struct ug_kernel;
bool ug_kernel_is_plugin(const struct ug_kernel *k);

#endif
