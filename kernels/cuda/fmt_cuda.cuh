/*
 * fmt_cuda.cuh - host helpers of the number-format CUDA families (reduce_f64.cu,
 * reduce_half.cu): their buffers are binary64 or 16-bit, so they upload the typed input as its
 * bytes, and run and time through ug_fmt_cuda_run, ug_cuda_run (ug_cuda.cuh) for an output of
 * any format.  Plus the fixed-shape depth arithmetic they share.
 */
#ifndef UG_FMT_CUDA_CUH
#define UG_FMT_CUDA_CUH

#include "kernels/cuda/ug_cuda.cuh"

namespace {

/* Upload input a of c (its count elements in its format) to a new device buffer *d, with pad
 * zero bytes after it (a packed kernel reading past an odd end).  *d is NULL on failure; the
 * caller's cleanup frees. */
static inline cudaError_t ug_fmt_upload(void **d, const ug_arg *a, size_t pad)
{
    size_t bytes = a->count * ug_fmt_bytes(a->fmt);
    cudaError_t e = cudaMalloc(d, bytes + pad);
    if (e != cudaSuccess) {
        *d = NULL;
        return e;
    }
    if (pad && (e = cudaMemset((char *)*d + bytes, 0, pad)) != cudaSuccess) return e;
    return cudaMemcpy(*d, a->data, bytes, cudaMemcpyHostToDevice);
}

/* ug_cuda_run for an output of c->out[0].count elements of c->out[0].fmt (d_out holds them): one
 * poisoned normal run, copied to c->out[0].data, then the timing when c->reps > 0.  0, or 1 with
 * the error in c->err; frees nothing. */
template <class Prepare, class Launch>
int ug_fmt_cuda_run(ug_call *c, void *d_out, Prepare prepare, Launch launch)
{
    return ug_cuda_run_bytes(c, d_out, c->out[0].count * ug_fmt_bytes(c->out[0].fmt), prepare, launch);
}

/* The two-pass grid reduction of these families: input 0 (and input 1 when dot) uploaded, pad
 * zero bytes after input 0, G = ug_grid_blocks(items) partials of type Part and one output of
 * c->out's format (Part's size) on the device; passes(d_x, d_y, d_part, G, d_out) launches the
 * partials and final kernels and returns the launch error.  Run and timed by ug_fmt_cuda_run;
 * every buffer freed.  0, or 1 with the error in c->err. */
template <class Part, class Passes>
int ug_fmt_grid_run(const ug_kernel *k, ug_call *c, bool dot, size_t items, size_t pad, Passes passes)
{
    void *d_x = NULL, *d_y = NULL;
    Part *d_part = NULL, *d_out = NULL;
    unsigned G = 0;
    if (ug_cuda_enter(k, c)) return 1;
    G = ug_grid_blocks(items);
    UG_CUDA_TRY(c, ug_fmt_upload(&d_x, &c->in[0], pad));
    if (dot) UG_CUDA_TRY(c, ug_fmt_upload(&d_y, &c->in[1], 0));
    UG_CUDA_TRY(c, cudaMalloc(&d_part, G * sizeof(Part)));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(Part)));
    ug_fmt_cuda_run(c, d_out, ug_no_prepare, [&] { return passes(d_x, d_y, d_part, G, d_out); });
cleanup:
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_part);
    cudaFree(d_out);
    return c->err[0] != 0;
}

static inline size_t ug_fmt_ceil_log2(size_t v)
{
    size_t d = 0;
    while (((size_t)1 << d) < v) d++;
    return d;
}

/* The depth of the two-pass grid tree over n elements (reduce_grid.cu's derivation): G =
 * ug_grid_blocks(n) blocks of 256, m = ceil(n / (256 G)) elements a thread summed serially
 * (m - 1 additions: 0 + x is exact), a block tree of log2 256 = 8 levels, a final tree over G
 * zero-padded partials (ceil(log2 G) levels that add two nonzero values); at most n - 1. */
static inline size_t ug_fmt_depth_grid(size_t n)
{
    if (n <= 1) return 0;
    size_t G = ug_grid_blocks(n), m = ug_div_up(n, G * UG_GRID_BLOCK);
    size_t d = (m - 1) + UG_GRID_BLOCK_LOG2 + ug_fmt_ceil_log2(G);
    return d < n - 1 ? d : n - 1;
}

} // namespace

#endif
