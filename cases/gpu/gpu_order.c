/*
 * gpu_order.c - every deterministic GPU reduction of a known order (the CUDA-optimisation post's
 * interleaved and sequential trees, the seven-methods post's shuffle hierarchy, fold and
 * bitonic sort + fold, the grid-wide shuffle and binary64 trees at their launch shapes) gives
 * exactly what its order, simulated on the CPU from its description (cases/order_sim.c), gives:
 * bit for bit, on random data, at sizes around the warp, block, tier and grid boundaries.
 */
#include "cases/order_sim.h"
#include "harness/run/ug.h"

static const size_t ug_gpu_order_sizes[] = {1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 1023,
                                            1024, 1025, 65535, 65536, 65537, 262145, 1048577,
                                            (size_t)1 << 21};

static const ug_param ug_gpu_order_dists[] = {
    {"normal", UG_NORMAL(0, 1)},
    {"expuniform", UG_EXPUNIFORM(-20, 20)},
};

UG_CASE_OVER(gpu_order, ug_gpu_order_dists, UG_CASE_GPU)
{
    ug_order_check(t, UG_CUDA, &ug_param_of(t)->dist, ug_gpu_order_sizes,
                   sizeof ug_gpu_order_sizes / sizeof ug_gpu_order_sizes[0], 2);
}
