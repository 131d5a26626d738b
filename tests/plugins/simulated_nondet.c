/*
 * simulated_nondet.c - a nondeterministic sum as a GPU's atomics make one, on the CPU and
 * seeded, for measuring the gate's rule for nondeterministic rows (tests/gate_history_test.sh):
 * the input is cut into blocks of 256 summed in order (a warp's share), and the block sums are
 * added in a random order (their arrival at an atomicAdd).  The order comes from
 * ULPGATE_SIM_SEED and a count of calls, so a run with --threads 1 is reproducible from its
 * seed and two seeds are two honest runs.  ULPGATE_SIM_WORSE=w plants a regression: the output
 * is the binary64 sum of the same blocks plus w times this kernel's own rounding error (w = 2:
 * its mean error twice as large; w < 1: a lucky run), where there are two blocks or more.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ulpgate/ulpgate.h>

enum { BLOCK = 256, MAX_BLOCKS = 1 << 16 };

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double env_num(const char *name, double dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtod(v, NULL) : dflt;
}

static _Atomic uint64_t calls;

static int atomic_order_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    size_t n = ug_dim(c, 0), nb = (n + BLOCK - 1) / BLOCK;
    if (nb > MAX_BLOCKS) {
        snprintf(c->err, sizeof c->err, "n = %zu: at most %d blocks of %d", n, MAX_BLOCKS, BLOCK);
        return -1;
    }
    static _Thread_local float part[MAX_BLOCKS];
    static _Thread_local uint32_t order[MAX_BLOCKS];
    double exact_ish = 0;
    for (size_t b = 0; b < nb; b++) {
        float s = -0.0f;
        for (size_t i = b * BLOCK; i < n && i < (b + 1) * BLOCK; i++) s += x[i];
        part[b] = s;
        order[b] = (uint32_t)b;
        exact_ish += s;
    }
    uint64_t st = (uint64_t)env_num("ULPGATE_SIM_SEED", 1) * 0x100000001b3ull + atomic_fetch_add(&calls, 1);
    for (size_t b = nb; b > 1; b--) { /* Fisher-Yates: the arrival order */
        size_t j = (size_t)(splitmix64(&st) % b);
        uint32_t t = order[b - 1];
        order[b - 1] = order[j];
        order[j] = t;
    }
    float s = -0.0f;
    for (size_t b = 0; b < nb; b++) s += part[order[b]];
    double w = env_num("ULPGATE_SIM_WORSE", 1);
    /* one block has one order: nothing arrives out of turn, nothing to plant */
    ug_out_f32(c)[0] = w == 1 || nb < 2 || !isfinite(s) ? s
                                                        : (float)(exact_ish + w * ((double)s - exact_ish));
    return 0;
}

UG_PLUGIN(
    {.name = "sim_atomic_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = atomic_order_sum,
     .nondeterministic = true,
     .doc = "blocks of 256 summed in order, the block sums added in a seeded random order"})
