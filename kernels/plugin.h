/*
 * plugin.h - kernels built elsewhere: shared libraries declaring their rows with UG_PLUGIN
 * (include/ulpgate/ulpgate.h), loaded at start-up by `--plugin FILE` and registered after the
 * built-in families.
 */
#ifndef UG_PLUGIN_H
#define UG_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/kernel.h"

/* Load the plugin at path (dlopen), check its API version and rows, register its kernels.
 * Returns 0, or 2 with the reason on stderr naming the file (dlopen's error, no entry point, an
 * API version other than ULPGATE_API_VERSION, a row without name or run function).  Call before
 * anything looks at the registry.  The library stays loaded until exit. */
int ug_plugin_load(const char *path);
/* The corpus folders the loaded plugins declare (UG_PLUGIN_CORPUS, made absolute against the
 * library's folder), NULL past the end. */
const char *ug_plugin_corpus_at(size_t i);
/* Register a plugin's family (kernels/registry.c); --no-builtin: the registry leaves the
 * built-in families out. */
void ug_registry_add_plugin(const ug_family *f);
void ug_registry_no_builtin(void);
/* Whether the built-in families are in the registry (false after ug_registry_no_builtin). */
bool ug_registry_has_builtin(void);
/* Whether k was loaded from a plugin (ug_registry_add_plugin): a kernel under the user's test,
 * whose being measured nowhere is a failure (harness/run/run.c), not the machine's nature. */
struct ug_kernel;
bool ug_kernel_is_plugin(const struct ug_kernel *k);

#endif
