/*
 * ug_cuda.cuh - what every .cu file of kernels/cuda shares on the host side: checked CUDA
 * calls that write the error into the ug_call and jump to a cleanup label, the
 * poisoned-context guard, argument checks, launch shapes fixed for reproducibility, and the
 * event timer.
 *
 * Error discipline of a launcher (see kernels/kernel.h):
 *   static int ug_x_run(const ug_kernel *k, ug_call *c) {
 *       float *d_x = NULL; ...                       // every resource declared before a check
 *       if (ug_cuda_enter(k, c)) return 1;            // no device / poisoned / bad arguments
 *       UG_CUDA_TRY(c, cudaMalloc(...));              // failure: message in c->err, goto cleanup
 *       kernel<<<...>>>(...); UG_CUDA_LAUNCHED(c);   // launch error or fault -> cleanup
 *     cleanup:
 *       cudaFree(d_x); ...
 *       return c->err[0] != 0;
 *   }
 * A sticky error (illegal address, ...) leaves the CUDA context unusable for the life of the
 * process; ug_cuda_fail() detects it and every later ug_cuda_enter() fails fast saying so.
 */
#ifndef UG_CUDA_CUH
#define UG_CUDA_CUH

#include <cuda_runtime.h>

#include <stddef.h>
#include <stdio.h>

#include "kernels/device.h"
#include "kernels/kernel.h"

/* Everything a family file defines lives in an anonymous namespace (UG_CUDA_BEGIN ... END):
 * the same source is compiled once per build variant and linked into one program, so nothing
 * but the family descriptor (UG_FAMILY) may have external linkage. */
#define UG_CUDA_BEGIN namespace {
#define UG_CUDA_END }

/* ---- shapes ------------------------------------------------------------------------------ */

/* Grid-wide reductions use a launch shape that depends on n alone, never on the device, so the
 * summation tree (hence the result bits and the depth functions below) is the same on every
 * GPU: at most UG_GRID_MAX_BLOCKS blocks of UG_GRID_BLOCK threads (1024 x 256 = 262144
 * threads: 7.75 blocks of 256 on each of an H100's 132 SMs, about one full wave), each thread
 * summing a grid-stride slice serially, then a block tree, then one block of
 * UG_FINAL_BLOCK threads combining the per-block partials. */
#define UG_GRID_BLOCK 256
#define UG_GRID_BLOCK_LOG2 8
#define UG_GRID_MAX_BLOCKS 1024
#define UG_FINAL_BLOCK 1024
/* Loads issued before the first of them is added (per thread, same serial order). */
#define UG_GRID_UNROLL 8

/* The posts' kernels keep their int arithmetic; 2^30 keeps every index expression in them
 * (tid + blockDim.x, j + stride + mid, (size + 1) / 2) below INT_MAX. */
#define UG_SEED_MAX_N ((size_t)1 << 30)

static inline size_t ug_div_up(size_t a, size_t b) { return (a + b - 1) / b; }

/* Blocks of the first pass of a grid-wide reduction of n >= 1 elements. */
static inline unsigned ug_grid_blocks(size_t n)
{
    size_t g = ug_div_up(n, UG_GRID_BLOCK);
    return (unsigned)(g < UG_GRID_MAX_BLOCKS ? g : UG_GRID_MAX_BLOCKS);
}

/* ---- errors ------------------------------------------------------------------------------ */

/* Record a failed CUDA call in c->err ("file:line: expr: cudaErrorX: text") and probe whether
 * the context is now poisoned (then every later run fails fast). */
void ug_cuda_fail(ug_call *c, cudaError_t e, const char *expr, const char *file, int line);
/* (device.cu, like the two below) */
/* Same for errors that are not cudaError_t (cuBLAS status, size limits): printf-style text. */
void ug_cuda_failf(ug_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Entry check of every run function: device present and usable, context not poisoned,
 * c->op == k->op, pointers set, sizes >= 1, n <= k->max_n, and the problem fits in the GPU
 * memory that is free (ug_cuda_fits).  Clears c->err and c->time_ms.  Returns nonzero with
 * the reason in c->err. */
int ug_cuda_enter(const ug_kernel *k, ug_call *c);
/* Whether c fits in the free device memory (cudaMemGetInfo; asked only for problems of 0.5 GiB
 * and more): 0, or 1 with "k: n=... needs B bytes of GPU memory (...); F bytes are free of T:
 * not run" in c->err. */
int ug_cuda_fits(const ug_kernel *k, ug_call *c);

#define UG_CUDA_TRY(c, expr)                                                                  \
    do {                                                                                       \
        cudaError_t ug_e_ = (expr);                                                            \
        if (ug_e_ != cudaSuccess) {                                                            \
            ug_cuda_fail((c), ug_e_, #expr, __FILE__, __LINE__);                               \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)

/* A cuBLASLt call (cublasLt.h included by the caller): a status other than success fails c with
 * "where:line: expr: status text", marks the call unsupported where the library says so (not
 * supported, architecture mismatch: the point is skipped in its words), and jumps to cleanup. */
#define UG_CUBLASLT_TRY(c, where, expr)                                                       \
    do {                                                                                       \
        cublasStatus_t ug_s_ = (expr);                                                         \
        if (ug_s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
            ug_cuda_failf((c), "%s:%d: %s: %s", (where), __LINE__, #expr,                      \
                          cublasGetStatusString(ug_s_));                                       \
            (c)->unsupported = ug_s_ == CUBLAS_STATUS_NOT_SUPPORTED ||                         \
                               ug_s_ == CUBLAS_STATUS_ARCH_MISMATCH;                           \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)

/* After a launch: the launch itself (configuration, resources), then the execution (faults). */
#define UG_CUDA_LAUNCHED(c)                                                                   \
    do {                                                                                       \
        UG_CUDA_TRY((c), cudaGetLastError());                                                  \
        UG_CUDA_TRY((c), cudaDeviceSynchronize());                                             \
    } while (0)

/* ---- timing ------------------------------------------------------------------------------ */

/* The device copy of input x (slot 0) or y (slot 1) of c, n floats, made once per input
 * (c->input_id) and reused by every kernel measured on it: the cache owns it, the launcher never
 * frees it (a call without an id gets a fresh copy, freed by the next call).  Saves one upload
 * of up to 256 MB per kernel at n = 2^26. (device.cu) */
cudaError_t ug_cuda_input(const ug_call *c, int slot, const float *h, size_t n, const float **d);

/* Median of the first count values (sorts them in place). (device.cu) */
double ug_median_ms(float *ms, int count);

namespace {

/* Timing costs at most about this much device time per measurement: a kernel whose first run
 * took t ms is timed min(c->reps, max(1, UG_TIMING_BUDGET_MS / t)) times (a 25 ms single-block
 * sum of 2^26 floats 4 times, a 118 ms atomic one once, not 10: for a kernel that long one warm
 * launch is stable to a fraction of a percent, and the timing is reported, never asserted). */
#define UG_TIMING_BUDGET_MS 100.0f

/* Time `launch` c->reps times with CUDA events around the launch alone and store the median in
 * c->time_ms.  `prepare` runs before each launch, outside the timed interval (restoring an
 * input a kernel sorts in place, zeroing an atomic accumulator).  Both enqueue work on the
 * default stream and return cudaGetLastError() or the error of what they called.  The caller
 * has already made one normal run, which is the warm-up (module load, caches, cuBLAS init).
 * Returns cudaSuccess or the first error (events are released either way). */
template <class Prepare, class Launch>
cudaError_t ug_cuda_time(ug_call *c, Prepare prepare, Launch launch, float first_ms)
{
    enum { UG_MAX_REPS = 1000 };
    static float ms[UG_MAX_REPS];
    cudaEvent_t start = NULL, stop = NULL;
    cudaError_t e = cudaSuccess;
    int reps = c->reps < UG_MAX_REPS ? c->reps : UG_MAX_REPS;
    if (first_ms > 0 && first_ms * (float)reps > UG_TIMING_BUDGET_MS) {
        int fit = (int)(UG_TIMING_BUDGET_MS / first_ms);
        reps = fit > 1 ? fit : 1;
    }
    int done = 0;

    if (reps <= 0) return cudaSuccess;
    if ((e = cudaEventCreate(&start)) != cudaSuccess) goto out;
    if ((e = cudaEventCreate(&stop)) != cudaSuccess) goto out;
    for (; done < reps; done++) {
        if ((e = prepare()) != cudaSuccess) goto out;
        if ((e = cudaEventRecord(start)) != cudaSuccess) goto out;
        if ((e = launch()) != cudaSuccess) goto out;
        if ((e = cudaEventRecord(stop)) != cudaSuccess) goto out;
        if ((e = cudaEventSynchronize(stop)) != cudaSuccess) goto out;
        if ((e = cudaEventElapsedTime(&ms[done], start, stop)) != cudaSuccess) goto out;
    }
    c->time_ms = ug_median_ms(ms, done);
out:
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    return e;
}

/* A prepare step that does nothing. */
static inline cudaError_t ug_no_prepare(void) { return cudaSuccess; }

/* The poison pattern the harness looks for in outputs a kernel never wrote
 * (harness/measure/kernel_call.h): every byte 0xff, a negative quiet NaN with a full payload
 * that no arithmetic produces. */
#define UG_CUDA_POISON_BYTE 0xff

/* The common tail of every launcher once its inputs are on the device: one normal run (poison
 * d_out, prepare, launch, wait, copy bytes from d_out to c->out[0].data), then the timing
 * when c->reps > 0 (the normal run, timed too, also sets how many reps fit the timing budget),
 * every timed launch poisoned too (outside the timed interval).  Returns 0,
 * or 1 with the error in c->err; frees nothing (the caller does). */
template <class Prepare, class Launch>
int ug_cuda_run_bytes(ug_call *c, void *d_out, size_t bytes, Prepare prepare, Launch launch)
{
    auto poisoned = [&]() -> cudaError_t {
        cudaError_t e = cudaMemsetAsync(d_out, UG_CUDA_POISON_BYTE, bytes);
        return e != cudaSuccess ? e : prepare();
    };
    cudaEvent_t t0 = NULL, t1 = NULL;
    float first_ms = 0;
    UG_CUDA_TRY(c, poisoned());
    if (c->reps > 0) {
        UG_CUDA_TRY(c, cudaEventCreate(&t0));
        UG_CUDA_TRY(c, cudaEventCreate(&t1));
        UG_CUDA_TRY(c, cudaEventRecord(t0));
    }
    UG_CUDA_TRY(c, launch());
    if (c->reps > 0) UG_CUDA_TRY(c, cudaEventRecord(t1));
    UG_CUDA_TRY(c, cudaDeviceSynchronize());
    if (c->reps > 0) UG_CUDA_TRY(c, cudaEventElapsedTime(&first_ms, t0, t1));
    UG_CUDA_TRY(c, cudaMemcpy(c->out[0].data, d_out, bytes, cudaMemcpyDeviceToHost));
    UG_CUDA_TRY(c, ug_cuda_time(c, poisoned, launch, first_ms));
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    return 0;
cleanup:
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    return 1;
}

/* ug_cuda_run_bytes for a binary32 output of out_count values (ug_kernel_run has checked that
 * the call's output is binary32). */
template <class Prepare, class Launch>
int ug_cuda_run(ug_call *c, float *d_out, size_t out_count, Prepare prepare, Launch launch)
{
    return ug_cuda_run_bytes(c, d_out, out_count * sizeof(float), prepare, launch);
}

/* Upload n floats to a new device buffer *d (NULL on failure: the caller's cleanup frees). */
static inline cudaError_t ug_cuda_upload(float **d, const float *h, size_t n)
{
    cudaError_t e = cudaMalloc((void **)d, n * sizeof(float));
    if (e != cudaSuccess) {
        *d = NULL;
        return e;
    }
    return cudaMemcpy(*d, h, n * sizeof(float), cudaMemcpyHostToDevice);
}

/* A warp's max and sum by the xor butterfly (offsets 16, 8, 4, 2, 1): every lane ends with the
 * same value, its sum the same 5-level tree in every lane (so every lane may use it).  The row
 * kernels of softmax.cu and attention.cu. */
__device__ __forceinline__ float ug_warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float ug_warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

} // namespace

/* The depth functions of the grid kernels (reduce_grid.cu) and the fixed shapes they describe
 * are needed by no one else: declared there. */

#endif
