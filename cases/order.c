/*
 * order.c - every deterministic CPU summation kernel of a known order (the seven-methods post's
 * methods, pairwise with blocks of 8) gives exactly what its order, simulated independently
 * (cases/order_sim.c), gives: bit for bit, on random data of both signs, at sizes around the
 * recursion and block boundaries.  A split off by one, a block size rounded the wrong way or a
 * fold that skips the middle element changes the bits here even where the error stays small.
 */
#include "cases/order_sim.h"
#include "harness/run/ug.h"

static const size_t ug_order_sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 99,
                                        100, 101, 1000, 1023, 1024, 1025, 4097, 10007};

static const ug_param ug_order_dists[] = {
    {"normal", UG_NORMAL(0, 1)},
    {"uniform01", UG_UNIFORM(0, 1)},
    {"expuniform", UG_EXPUNIFORM(-20, 20)},
};

UG_CASE_OVER(order, ug_order_dists, 0)
{
    ug_order_check(t, UG_CPU, &ug_param_of(t)->dist, ug_order_sizes,
                   sizeof ug_order_sizes / sizeof ug_order_sizes[0], 3);
}
