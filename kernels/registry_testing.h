/*
 * registry_testing.h - the registry's hooks for the harness's own self-tests (kernels built to
 * be wrong, a toy operation's kernels): not part of the public API, never installed.
 */
#ifndef UG_REGISTRY_TESTING_H
#define UG_REGISTRY_TESTING_H

#include "kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A family of a test program's own: call from a constructor, before anything looks at the
 * registry. */
void ug_registry_add_family(const ug_family *f);
/* Whether k comes from such a family: a self-test fixture, not a kernel under test (the
 * every-kernel-measured coverage check leaves it out). */
bool ug_kernel_is_fixture(const ug_kernel *k);

#ifdef __cplusplus
}
#endif
#endif
