/*
 * dist_int.h - what the parts of the input distributions (dist.c, elementwise.c, gen.c,
 * order.c) share; not for use outside them (dist.h is the public header).
 *
 * Every random number comes from Philox4x32-10 (rng.c) at a counter that names what it is for:
 * block index = purpose << 56 | vector << 32 | element (or element pair), so the uses never
 * overlap.
 */
#ifndef UG_DIST_INT_H
#define UG_DIST_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/inputs/dist.h"
#include "harness/inputs/rng.h"

enum {
    UG_P_X = 0,      /* x / A base values (element pairs: block = i/2) */
    UG_P_Y = 1,      /* y / B base values */
    UG_P_SPEC_X = 2, /* special-value decisions for x / A (block = i) */
    UG_P_SPEC_Y = 3,
    UG_P_PERM = 4,   /* GenSum/GenDot final permutation, per vector */
    UG_P_GEN = 5,    /* GenSum/GenDot terms, per vector (block = pair index) */
};

/* "why" into err (when given), for a distribution refused; returns -1.  dist.c. */
int ug_dist_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Largest |z| the normal generator can produce: u1 >= 2^-53, r = sqrt(106 ln 2) = 8.57158. */
#define UG_NORMAL_ZMAX 8.5717

#define UG_DIST_MAX_ELEMS 0xffffffffull /* element index must fit the 32-bit block field */
#define UG_DIST_MAX_VECS (1u << 24)     /* vector index field */

static inline double ug_unit53(uint32_t lo, uint32_t hi)
{
    return (double)(((uint64_t)hi << 32 | lo) >> 11) * 0x1p-53;
}


/* ---- elementwise.c: the elementwise base distributions ---------------------------------- */

/* x[0..n) of an elementwise base kind (uniform, normal, lognormal, expuniform, constant) from
 * the blocks of `purpose` (UG_P_X or UG_P_Y): element i depends on (stream, purpose, i) only. */
void ug_fill_base(const ug_dist *d, const ug_stream *s, unsigned purpose, float *x, size_t n);
/* True when every value of d's base kind is +0 or -0 (the transforms aside). */
bool ug_base_all_zero(const ug_dist *d);
/* x[0..n) of msvc_rand01 after srand(trial), x[0] starting at rand() call first_call. */
void ug_fill_msvc_rand01(uint32_t trial, uint64_t first_call, float *x, size_t n);

/* ---- gen.c: Ogita-Rump-Oishi GenSum / GenDot ------------------------------------------ */

/* The constructions return 0 or one of these. */
enum { UG_GEN_OVERFLOW = -1, UG_GEN_OOM = -2 };

/* GenSum of n terms, condition number kappa, into x (vector 0 of the stream). */
int ug_gen_fill_sum(const ug_stream *s, double kappa, float *x, size_t n);
/* Dot input of kind UG_D_GENDOT (one GenDot pair, vector 0) or UG_D_GENSUM (x and y independent
 * GenSum vectors 0 and 1). */
int ug_gen_fill_dot(const ug_stream *s, ug_dist_kind kind, double kappa, float *x, float *y,
                    size_t n);
/* GEMM input (see ug_dist_fill_gemm) of kind UG_D_GENDOT or UG_D_GENSUM, on worker threads. */
int ug_gen_fill_gemm(const ug_stream *s, ug_dist_kind kind, double kappa, float *A, float *B,
                     size_t M, size_t N, size_t K);

/* ---- order.c: the ordering transforms -------------------------------------------------- */

/* Sort x[0..n) (stride `stride`) in place by `order`; desc is exactly asc reversed.  tmp: 2n
 * words. */
void ug_order_f32(float *x, size_t n, size_t stride, ug_order order, uint32_t *tmp);
/* Dot inputs: the pairs (x_i, y_i) ordered together by the exact product x_i*y_i, ties by index.
 * Returns 0, or -1 when out of memory. */
int ug_order_pairs(float *x, float *y, size_t n, ug_order order);

#endif
