/*
 * kernel.h - the kernel registry: every kernel under test, CPU and GPU, in one table
 * (kernels/registry.c).  A new kernel is one function in its family's file plus one line there.
 *
 * Contract of a kernel's run function:
 *   - inputs are host memory and read-only (a kernel that reorders works on its own copy);
 *   - it writes the result(s) to c->out (1 value for sum/dot, M*N for gemm);
 *   - a GPU kernel with c->reps > 0 also times itself: warm-up, then c->reps timed runs with CUDA
 *     events around the kernel(s) only, median in c->time_ms; the result written is that of a
 *     normal run.  CPU kernels ignore reps: the harness times them with a monotonic clock;
 *   - it returns 0, or nonzero with a message in c->err (CUDA error text, size limit exceeded...);
 *     it never exits or aborts, and frees what it allocated on every path.
 */
#ifndef UG_KERNEL_H
#define UG_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { UG_OP_SUM, UG_OP_DOT, UG_OP_GEMM } ug_op;
typedef enum { UG_CPU, UG_CUDA } ug_backend;
typedef enum { UG_F32, UG_F64, UG_TF32 } ug_fmt;

/* Error-bound classes (Higham, Accuracy and Stability of Numerical Algorithms, ch. 3-4),
 * u = 2^-24, gamma_k = k u / (1 - k u).  S = sum |x_i| (sum) or sum |x_i y_i| (dot, gemm),
 * s the exact result, D = k->depth(n) the most additions any term passes through.
 *   UG_BOUND_TREE      sum: gamma_D S;   dot/gemm: gamma_{D+1} S (one more rounding: the product)
 *   UG_BOUND_KAHAN     sum: (2u + 2n u^2) S;  dot/gemm: (3u + 2n u^2) S (products not compensated)
 *   UG_BOUND_NEUMAIER  sum: u|s| + gamma_{n-1}^2 S;  dot: u|s| + (u + gamma_{n}^2) S
 *   UG_BOUND_WIDE_ACC  binary64 accumulation (tree of depth D), rounded once to binary32:
 *                      u|s| + (1+u) gamma64_D S   (gamma64 with u = 2^-53)
 *   UG_BOUND_TF32      operands rounded to TF32 (10-bit fraction, either rounding: 2^-10 each),
 *                      products exact in binary32, binary32 accumulation of depth D:
 *                      (2^-9 + 2^-20 + gamma_D (1 + 2^-9 + 2^-20)) S
 *   UG_BOUND_NONE      no a-priori bound declared (bound ratio reported as 0).
 */
typedef enum {
    UG_BOUND_NONE = 0,
    UG_BOUND_TREE,
    UG_BOUND_KAHAN,
    UG_BOUND_NEUMAIER,
    UG_BOUND_WIDE_ACC,
    UG_BOUND_TF32,
} ug_bound_class;

typedef struct ug_call {
    ug_op op;
    size_t n;            /* sum/dot: length; gemm: M (rows of A and C) */
    size_t gemm_n;       /* gemm: N (columns of B and C) */
    size_t gemm_k;       /* gemm: K (inner dimension) */
    const float *x;      /* sum: x; dot: x; gemm: A, M x K row-major */
    const float *y;      /* dot: y; gemm: B, K x N row-major */
    float *out;          /* sum/dot: out[0]; gemm: C, M x N row-major */
    int reps;            /* > 0: time the kernel, median of reps runs after a warm-up */
    double time_ms;      /* out: median time of one run (device time for GPU kernels) */
    char err[512];       /* out: what went wrong when run() returns nonzero */
} ug_call;

typedef struct ug_kernel ug_kernel;
struct ug_kernel {
    const char *name;        /* unique, says what it does: "serial_f32", "reduce_warp_shuffle" */
    ug_op op;
    ug_backend backend;
    ug_fmt in_fmt, acc_fmt, out_fmt;
    bool deterministic;      /* same inputs -> bitwise same output, every run */
    ug_bound_class bound;
    size_t (*depth)(size_t n); /* UG_BOUND_TREE / WIDE_ACC / TF32: max additions per term */
    int (*run)(const ug_kernel *k, ug_call *c);
    size_t max_n;            /* 0: no limit; else run() refuses larger n with a clear error */
    int seed_method;         /* seed 004's method number 1..7, 0 if none */
    const char *doc;         /* one line: what it does and where it comes from */
};

/* The registry (kernels/registry.c).  NULL-terminated iteration via ug_kernel_at(). */
const ug_kernel *ug_kernel_at(size_t i);
const ug_kernel *ug_kernel_find(const char *name);
size_t ug_kernel_count(void);

/* The a-priori bound for one output: n terms, S = sum |terms| (upper bound), s = exact value.
 * Returns +inf when S is not finite, 0 for UG_BOUND_NONE. (kernels/bounds.c) */
double ug_kernel_bound(const ug_kernel *k, size_t n, double S, double s_abs);
const char *ug_bound_class_name(ug_bound_class b);
const char *ug_op_name(ug_op op);
const char *ug_fmt_name(ug_fmt f);

/* Common depth functions (kernels/bounds.c). */
size_t ug_depth_serial(size_t n);   /* n - 1 */
size_t ug_depth_log2(size_t n);     /* ceil(log2 n) */

#endif
