/*
 * order_sim.h - summation orders written again, independently of the kernels: each function
 * evaluates one kernel's tree in binary32 round-to-nearest (C11, no contraction) from its
 * description (the post it comes from, the launch shape), and at the same time the depth of that
 * tree (the most rounded additions any element passes through; an addition with an operand that
 * is padding or the literal 0 that starts an accumulator is exact).  Cases assert that every
 * deterministic kernel of a known order matches its simulation bitwise (cases/order.c,
 * cases/gpu/gpu_order.c); tests/bounds.c asserts that every declared depth function equals the
 * simulated depth.
 */
#ifndef UG_ORDER_SIM_H
#define UG_ORDER_SIM_H

#include <stdbool.h>
#include <stddef.h>

/* A partial sum: its binary32 value, the depth of its tree, and whether it is a padding zero
 * (no element in it: adding it is exact). */
typedef struct ug_sv {
    float v;
    unsigned depth;
    bool pad;
} ug_sv;

/* Simulate kernel `name` (registry name) on x[0..n): the value it must return bitwise and its
 * depth in *depth.  Returns false when there is no simulation of that kernel (unknown order,
 * nondeterministic, or compensated).  x may be NULL to get the depth alone (every element 1). */
bool ug_sim_sum(const char *name, const float *x, size_t n, float *value, unsigned *depth);
/* Whether ug_sim_sum knows the kernel. */
bool ug_sim_known(const char *name);

/* For a case: every deterministic sum kernel of `backend` with a known order, on `trials`
 * inputs from d at each size, must give its simulated value bitwise (and keep its a-priori
 * bound).  One test point per kernel and size. */
struct ug_t;
struct ug_dist;
void ug_order_check(struct ug_t *t, int backend, const struct ug_dist *d, const size_t *ns,
                    size_t count, int trials);

#endif
