/*
 * fast_select.c - which kernel set the fast oracle runs: the best the CPU has (AVX-512F, AVX2,
 * else the generic vector-extension kernels), chosen once, or the one a test asks for.
 */
#include <stdlib.h>
#include <string.h>

#include "oracle/fast_kernels.h"

static const ug_fast_kernels *_Atomic chosen;

/* The best kernels this CPU runs; UG_ORACLE_KERNELS=avx2|generic in the environment asks for
 * lesser ones (to measure or test them on a better machine). */
static const ug_fast_kernels *best_kernels(void)
{
    const char *env = getenv("UG_ORACLE_KERNELS");
    const ug_fast_kernels *k = &ug_fast_generic_kernels;
#if UG_X86_GCC
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        k = &ug_fast_avx2_kernels;
    if (__builtin_cpu_supports("avx512f"))
        k = &ug_fast_avx512_kernels;
    if (env && !strcmp(env, "avx2") && __builtin_cpu_supports("avx2"))
        k = &ug_fast_avx2_kernels;
#endif
    if (env && !strcmp(env, "generic"))
        k = &ug_fast_generic_kernels;
    return k;
}

const ug_fast_kernels *ug_fast_kernels_get(void)
{
    const ug_fast_kernels *k = chosen;
    if (!k) {
        k = best_kernels();
        chosen = k;
    }
    return k;
}

int ug_fast_kernels_select(const char *name)
{
    if (!name || !strcmp(name, "auto")) {
        chosen = best_kernels();
        return 0;
    }
    if (!strcmp(name, "generic")) {
        chosen = &ug_fast_generic_kernels;
        return 0;
    }
#if UG_X86_GCC
    __builtin_cpu_init();
    if (!strcmp(name, "avx2") && __builtin_cpu_supports("avx2")) {
        chosen = &ug_fast_avx2_kernels;
        return 0;
    }
    if (!strcmp(name, "avx512") && __builtin_cpu_supports("avx512f")) {
        chosen = &ug_fast_avx512_kernels;
        return 0;
    }
#endif
    return -1;
}
