/*
 * bench_data.c - the inputs of `ulpgate bench oracle` (cli_bench.c) and of its --gpu part
 * (cli_bench_gpu.c): normal(0,1) binary32 values from a seed, made the same way for both; and
 * the median both report.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness/cli/cli.h"

/* splitmix64: the bench's own inputs need no reproducibility across machines beyond this. */
uint64_t ug_bench_mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ug_bench_fill_normal(float *v, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i += 2) {
        double u1 = ((double)(ug_bench_mix(&seed) >> 11) + 0.5) * 0x1p-53;
        double u2 = (double)(ug_bench_mix(&seed) >> 11) * 0x1p-53;
        double r = sqrt(-2.0 * log(u1));
        v[i] = (float)(r * cos(6.283185307179586 * u2));
        if (i + 1 < n)
            v[i + 1] = (float)(r * sin(6.283185307179586 * u2));
    }
}


static int ug_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ug_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, ug_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
