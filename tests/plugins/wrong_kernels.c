/*
 * wrong_kernels.c - kernels wrong in the ways real kernels are, against the public
 * header alone; each must fail a run, its point naming it and why (tests/plugins_test.sh):
 *
 *   bad_alternating     sums backwards every second call           -> determinism
 *   bad_reads_past_end  reads x[n] (and ignores it unless NaN)     -> crashed (SIGSEGV), fence
 *   bad_reads_before    reads x[-1]                                -> crashed (SIGSEGV), fence
 *   bad_writes_past_end writes out[1] as scratch                   -> crashed (SIGSEGV), fence
 *   bad_ftz_inputs      flushes subnormal inputs to zero           -> corpus subnormal points
 *   bad_plus_zero_start starts its accumulator at +0               -> corpus negative zeros
 *   bad_minus_zero_end  returns -0 for an exact cancellation       -> the sign of an exact zero
 *   bad_shallow_serial  serial sum claiming depth ceil(log2 n) + 1 -> bound ratio > 1 at small n
 */
#include <math.h>

#include <ulpgate/ulpgate.h>

enum { ALTERNATING, READS_PAST_END, READS_BEFORE, WRITES_PAST_END, FTZ_INPUTS, PLUS_ZERO_START,
       MINUS_ZERO_END, SHALLOW_SERIAL };

static unsigned long calls;

static int wrong(const ug_kernel *k, ug_call *c)
{
    const float *x = ug_in_f32(c, 0);
    float *out = ug_out_f32(c);
    float s = -0.0f;
    size_t n = ug_dim(c, 0);
    switch (k->version) {
    case ALTERNATING:
        /* every second call sums backwards: each order is within the serial bound, only the
         * bits differ from call to call */
        if (++calls % 2 == 0)
            for (size_t i = n; i-- > 0;) s += x[i];
        else
            for (size_t i = 0; i < n; i++) s += x[i];
        break;
    case READS_PAST_END: {
        volatile float past = x[n];
        for (size_t i = 0; i < n; i++) s += x[i];
        if (past != past) s = past;
        break;
    }
    case READS_BEFORE: {
        volatile float before = x[-1];
        for (size_t i = 0; i < n; i++) s += x[i];
        if (before != before) s = before;
        break;
    }
    case WRITES_PAST_END:
        for (size_t i = 0; i < n; i++) s += x[i];
        out[1] = s; /* scratch past the one output */
        break;
    case FTZ_INPUTS:
        for (size_t i = 0; i < n; i++) s += fabsf(x[i]) < 0x1p-126f ? copysignf(0.0f, x[i]) : x[i];
        break;
    case PLUS_ZERO_START:
        s = 0.0f;
        for (size_t i = 0; i < n; i++) s += x[i];
        break;
    case MINUS_ZERO_END:
        for (size_t i = 0; i < n; i++) s += x[i];
        if (s == 0) s = -0.0f;
        break;
    case SHALLOW_SERIAL:
        for (size_t i = 0; i < n; i++) s += x[i];
        break;
    }
    out[0] = s;
    return 0;
}

/* bad_batch_gemm: C = A B by serial dots, k upwards from 64 rows of A, downwards below (a
 * library that picks another kernel for a small M): every order within the serial bound, but it
 * declares .batch_invariant, which the invariance case refutes. */
static int wrong_gemm(const ug_kernel *k, ug_call *c)
{
    const float *A = ug_in_f32(c, 0), *B = ug_in_f32(c, 1);
    float *C = ug_out_f32(c);
    size_t M = ug_dim(c, 0), N = ug_dim(c, 1), K = ug_dim(c, 2);
    (void)k;
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float s = 0.0f;
            if (M >= 64)
                for (size_t t = 0; t < K; t++) s += A[i * K + t] * B[t * N + j];
            else
                for (size_t t = K; t-- > 0;) s += A[i * K + t] * B[t * N + j];
            C[i * N + j] = s;
        }
    return 0;
}

/* what bad_shallow_serial claims: a tree's depth, ceil(log2 n) + 1 */
static size_t shallow_depth(size_t n)
{
    size_t d = 0;
    while (((size_t)1 << d) < n) d++;
    return d + 1;
}

UG_PLUGIN(
    {.name = "bad_alternating", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = wrong,
     .version = ALTERNATING, .doc = "serial sum, backwards every second call"},
    {.name = "bad_reads_past_end", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = wrong,
     .version = READS_PAST_END, .doc = "serial sum that reads x[n]"},
    {.name = "bad_reads_before", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = wrong,
     .version = READS_BEFORE, .doc = "serial sum that reads x[-1]"},
    {.name = "bad_writes_past_end", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = wrong,
     .version = WRITES_PAST_END, .doc = "serial sum that writes out[1]"},
    {.name = "bad_ftz_inputs", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = wrong,
     .version = FTZ_INPUTS, .doc = "serial sum flushing subnormal inputs to zero"},
    {.name = "bad_plus_zero_start", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = wrong,
     .version = PLUS_ZERO_START, .doc = "serial sum from +0"},
    {.name = "bad_minus_zero_end", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = wrong,
     .version = MINUS_ZERO_END, .doc = "serial sum returning -0 for a zero"},
    {.name = "bad_shallow_serial", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = wrong,
     .depth = shallow_depth, .version = SHALLOW_SERIAL, .doc = "serial sum, a tree's depth claimed"},
    {.name = "bad_batch_gemm", .op = UG_OP_GEMM, .batch_invariant = true, .bound = UG_BOUND_TREE,
     .run = wrong_gemm, .doc = "serial GEMM, k downwards below 64 rows, declared batch-invariant"},
)
