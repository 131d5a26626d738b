/*
 * dist_test.h - what the distribution tests (tests/dist.c, tests/dist_gen.c) share.
 */
#ifndef UG_DIST_TEST_H
#define UG_DIST_TEST_H

#include <stdlib.h>

#include "base/bits.h"
#include "harness/inputs/rng.h"
#include "harness/run/ug.h"

#define UG_NSTAT 1000000 /* sample size of the moment checks */

static inline uint64_t ug_d_stream(const char *what)
{
    return ug_hash64(what, UG_HASH64_INIT);
}

static inline float *ug_d_alloc(ug_t *t, size_t n)
{
    float *p = malloc((n ? n : 1) * sizeof *p);
    UG_ASSERT_MSG(p != NULL, "out of memory for %zu floats", n);
    return p;
}

/* Fill a sum input; a failure ends the case with the library's message. */
static inline void ug_d_fill(ug_t *t, ug_dist d, uint64_t stream, uint32_t trial, float *x,
                             size_t n)
{
    char err[256] = "";
    int rc = ug_dist_fill_sum(&d, ug_seed(t), stream, trial, x, n, err, sizeof err);
    UG_ASSERT_MSG(rc == 0, "fill_sum: %s", err);
}

static inline void ug_d_fill_dot(ug_t *t, ug_dist d, uint64_t stream, uint32_t trial, float *x,
                                 float *y, size_t n)
{
    char err[256] = "";
    int rc = ug_dist_fill_dot(&d, ug_seed(t), stream, trial, x, y, n, err, sizeof err);
    UG_ASSERT_MSG(rc == 0, "fill_dot: %s", err);
}

#endif
