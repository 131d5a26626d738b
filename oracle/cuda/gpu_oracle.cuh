/*
 * gpu_oracle.cuh - what the GPU oracle's .cu files share (oracle/gpu.h is the interface):
 * checked CUDA calls that write the reason into err and jump to a cleanup label, grow-only
 * device buffers kept between calls (the oracle runs on every input of a GPU case: no
 * cudaMalloc per call once sizes settle), and the entry points of each file.
 *
 * The oracle uses the current device (the harness's probe, kernels/device.h, selects it) and
 * the default stream, like the kernels under test; all calls come from one thread.  Nothing
 * here rounds: the arithmetic is in oracle/gpu_arith.h and oracle/gpu_gemm_arith.h, shared with
 * the host model that the self-test checks.  Compiled with --fmad=false: no operation of the
 * oracle may be contracted (the verification's two_sum in particular).
 */
#ifndef UG_ORACLE_GPU_ORACLE_CUH
#define UG_ORACLE_GPU_ORACLE_CUH

#include <cuda_runtime.h>

#include <stdio.h>

#include "oracle/gpu.h"
#include "oracle/gpu_gemm_arith.h"

/* Record "GPU oracle: file:line: what: CUDA error name: text" in err. */
void ugg_fail(char *err, size_t len, const char *file, int line, const char *what,
              cudaError_t e);
/* The same with a printf-style message. */
void ugg_failf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A CUDA call or launch that fails records why in err (the caller's parameters err, len) and
 * jumps to the function's `fail:` label. */
#define UGG_TRY(expr)                                                                          \
    do {                                                                                       \
        cudaError_t ugg_e_ = (expr);                                                           \
        if (ugg_e_ != cudaSuccess) {                                                           \
            ugg_fail(err, len, __FILE__, __LINE__, #expr, ugg_e_);                             \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)
#define UGG_LAUNCHED() UGG_TRY(cudaGetLastError())

/* A device buffer that grows (never shrinks) and lives for the process. */
typedef struct ugg_dbuf {
    void *p;
    size_t cap;
} ugg_dbuf;

/* At least bytes (>= 1) in b; contents are lost when it grows. */
cudaError_t ugg_reserve(ugg_dbuf *b, size_t bytes);

/* A chunk of a segment (terms x[x .. x + len), y[y .. y + len)) and a segment: its chunks
 * [first, last), where its record goes (out[dest]) and its term count (the zero-sign rule). */
typedef struct ugg_chunk {
    uint64_t x, y;
    uint32_t len, pad;
} ugg_chunk;

typedef struct ugg_seg {
    uint64_t first, last, dest, n;
} ugg_seg;

/* ---- sumdot.cu ------------------------------------------------------------------------------ */

enum { UGG_OP_SUM = 0, UGG_OP_DOT = 1 };

/* The chunk and merge kernels on descriptors already on the device: records into d_out[dest].
 * d_x, d_y (dot): the terms; all_single: every segment has at most one chunk (one thread per
 * segment merges).  0, or 1 with err. */
int ugg_run_chunks(int op, const float *d_x, const float *d_y, const ugg_chunk *d_chunks,
                   uint64_t nchunks, const ugg_seg *d_segs, uint64_t nseg, int all_single,
                   ug_exact *d_out, char *err, size_t len);

/* Segments i < count of n[i] terms at offsets off[i] of d_x (and d_y): descriptors built,
 * uploaded, run; records into d_out[i]. */
int ugg_segments_run(int op, const float *d_x, const float *d_y, const uint64_t *off,
                     const uint64_t *n, size_t count, ug_exact *d_out, char *err, size_t len);

/* The ops table's sums_f32 and dots_f32 (oracle/gpu.h): host pointers in, records out. */
int ugg_sums_host(const float *const *x, const size_t *n, size_t count, ug_exact *out, char *err,
                  size_t len);
int ugg_dots_host(const float *const *x, const float *const *y, const size_t *n, size_t count,
                  ug_exact *out, char *err, size_t len);

/* ---- gemm.cu -------------------------------------------------------------------------------- */

/* Every element of A B into d_C (all on the device; d_A M x K, d_B K x N, row-major). */
int ugg_gemm_resident(const float *d_A, const float *d_B, size_t M, size_t N, size_t K,
                      ug_exact *d_C, ug_gpu_gemm_info *info, char *err, size_t len);
/* The ops table's gemm_f32: host matrices in, records out. */
int ugg_gemm_host(const float *A, const float *B, size_t M, size_t N, size_t K, ug_exact *C,
                  ug_gpu_gemm_info *info, char *err, size_t len);

/* ---- bench.cu ------------------------------------------------------------------------------- */

/* The ops table's bench_sum and bench_gemm (oracle/gpu.h). */
int ugg_bench_sum(size_t n, float *host_x, ug_gpu_bench_sum *r, char *err, size_t len);
int ugg_bench_gemm(const float *A, const float *B, size_t n, bool bf16, ug_exact *C,
                   ug_gpu_bench_gemm *r, char *err, size_t len);

/* ---- common.cu ------------------------------------------------------------------------------ */

/* The device is there and usable (and cublas loads). */
int ugg_available(char *err, size_t len);

#endif
