/*
 * rows.c - the shared parts of the row operations' descriptors (ops/rows.h), and the weight and
 * bias of the normalisation layers' trials (ops/norm_params.h).
 */
#include <stdlib.h>

#include "base/sys.h"
#include "ops/norm_params.h"
#include "ops/rows.h"

void ug_rows_exact_one(ug_rows_all_fn all, const float *x, const float *y, const ug_shape *s,
                       size_t e, ug_exact *out)
{
    ug_exact *rec = ug_xcalloc(s->dim[0] ? s->dim[0] : 1, sizeof *rec);
    all(x, y, s, rec);
    *out = rec[e];
    free(rec);
}

static uint64_t ug_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void ug_norm_fill_params(float *y, size_t n, bool bias, uint64_t seed, uint32_t trial)
{
    uint64_t s = seed ^ ((uint64_t)trial * 0xd1b54a32d192ed03ull);
    for (size_t i = 0; i < n; i++) y[i] = 1.0f + (float)((int)(ug_splitmix(&s) % 33) - 16) / 64;
    for (size_t i = 0; bias && i < n; i++) y[n + i] = (float)((int)(ug_splitmix(&s) % 129) - 64) / 256;
}
