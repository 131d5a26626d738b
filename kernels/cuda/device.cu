/*
 * device.cu - the CUDA device as the harness sees it (kernels/device.h: probe, info, count,
 * selection), and what every family's launcher shares: error recording with poisoned-context
 * detection, the entry checks, the median of timings.
 *
 * Compile (meson does it): nvcc -arch=sm_90 -lineinfo -Xcompiler=-Wall,-Wextra -c device.cu
 *
 * Not thread-safe: the harness calls CUDA kernels from one thread, one GPU process at a time.
 */
#include "kernels/cuda/ug_cuda.cuh"
#include "base/opshape.h"

#include <cublas_v2.h>
#include <cuda/version>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// state

static int g_device;              /* the device in use (ug_device_select) */
static int g_probed = -1;        /* -1 not yet, 0 no usable device, 1 usable */
static char g_probe_why[256];
static int g_poisoned;           /* a sticky error happened: the context is gone */
static char g_poison_why[400];
static ug_gpu_info g_info;       /* the device's description, read once (ug_device_info) */
static int g_info_state = -1;    /* -1 not yet, 0 read, 1 unreadable */

static int ug_device_info_read(ug_gpu_info *info);

// ----------------------------------------------------------------------------
// probe and info

/* Contract in device.h; `why` gets the detail only (the harness prints "no CUDA device
 * (why)").  The first call selects the device and creates its context (cudaFree(0)), so later
 * calls and the first kernel's timing do not pay for it. */
extern "C" int ug_device_probe(char *why, size_t len)
{
    if (g_probed < 0) {
        int count = 0;
        cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess || count == 0) {
            snprintf(g_probe_why, sizeof g_probe_why, "cudaGetDeviceCount: %s",
                     e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
            (void)cudaGetLastError();
            g_probed = 0;
        } else if (g_device >= count) {
            snprintf(g_probe_why, sizeof g_probe_why, "device %d requested, %d present", g_device,
                     count);
            g_probed = 0;
        } else if ((e = cudaSetDevice(g_device)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess) {
            snprintf(g_probe_why, sizeof g_probe_why, "device %d unusable: %s: %s", g_device,
                     cudaGetErrorName(e), cudaGetErrorString(e));
            (void)cudaGetLastError();
            g_probed = 0;
        } else {
            snprintf(g_probe_why, sizeof g_probe_why, "CUDA device %d ready", g_device);
            g_probed = 1;
            /* read now, while the device is healthy: a report written by the watchdog
             * (harness/run/guard.c) must not call into a context a hung kernel holds */
            g_info_state = ug_device_info_read(&g_info);
        }
    }
    if (why && len) snprintf(why, len, "%s", g_probe_why);
    return g_probed;
}

/* The device's description from CUDA and cuBLAS; 0, or 1 when CUDA cannot say. */
static int ug_device_info_read(ug_gpu_info *info)
{
    cudaDeviceProp p;
    int major = 0, minor = 0, patch = 0;
    memset(info, 0, sizeof *info);
    if (cudaGetDeviceProperties(&p, g_device) != cudaSuccess) return 1;
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    info->mem_gib = (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    if (cudaDriverGetVersion(&info->driver_version) != cudaSuccess) return 1;
    if (cudaRuntimeGetVersion(&info->runtime_version) != cudaSuccess) return 1;
    if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
        info->cublas_version = major * 10000 + minor * 100 + patch;
    info->cccl_version = CCCL_VERSION;
    return 0;
}

/* Contract in device.h.  Read once, when the probe finds the device: no CUDA call after. */
extern "C" int ug_device_info(ug_gpu_info *info)
{
    memset(info, 0, sizeof *info);
    if (!ug_device_probe(NULL, 0)) return 1;
    if (g_info_state < 0) g_info_state = ug_device_info_read(&g_info);
    if (g_info_state != 0) return 1;
    *info = g_info;
    return 0;
}

extern "C" int ug_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

extern "C" int ug_device_select(int index, char *why, size_t len)
{
    int count = ug_device_count();
    if (index < 0 || index >= count) {
        if (why && len) snprintf(why, len, "device %d: %d CUDA device(s) present", index, count);
        return 1;
    }
    if (g_probed >= 0 && index != g_device) {
        if (why && len) snprintf(why, len, "device %d: device %d is already in use", index, g_device);
        return 1;
    }
    g_device = index;
    return 0;
}

// ----------------------------------------------------------------------------
// errors

/* A sticky error (illegal address, misaligned access, trap, ...) is returned again by every
 * later call: clear the error state once (which does clear the non-sticky kinds, such as a
 * bad launch configuration or cudaErrorMemoryAllocation) and ask the device again. */
static void ug_cuda_check_poison(cudaError_t e)
{
    (void)cudaGetLastError();
    cudaError_t again = cudaDeviceSynchronize();
    if (again == cudaSuccess) return;
    g_poisoned = 1;
    snprintf(g_poison_why, sizeof g_poison_why, "%s: %s (then %s)", cudaGetErrorName(e),
             cudaGetErrorString(e), cudaGetErrorName(again));
}

void ug_cuda_fail(ug_call *c, cudaError_t e, const char *expr, const char *file, int line)
{
    const char *base = strrchr(file, '/');
    snprintf(c->err, sizeof c->err, "%s:%d: %s: %s: %s", base ? base + 1 : file, line, expr,
             cudaGetErrorName(e), cudaGetErrorString(e));
    ug_cuda_check_poison(e);
    if (g_poisoned) {
        size_t used = strlen(c->err);
        snprintf(c->err + used, sizeof c->err - used,
                 " [sticky: the CUDA context is unusable for the rest of this process]");
    }
}

void ug_cuda_failf(ug_call *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
}

int ug_cuda_enter(const ug_kernel *k, ug_call *c)
{
    char why[256];
    c->err[0] = 0;
    c->time_ms = 0;
    if (!ug_device_probe(why, sizeof why)) {
        ug_cuda_failf(c, "%s: no CUDA device (%s)", k->name, why);
        return 1;
    }
    if (g_poisoned) {
        ug_cuda_failf(c, "%s: not run: an earlier CUDA error poisoned the context (%s); "
                      "restart the process", k->name, g_poison_why);
        return 1;
    }
    if (c->op != k->op) {
        ug_cuda_failf(c, "%s: called for op %s, but it computes %s", k->name, ug_opshape_name(c->op),
                      ug_opshape_name(k->op));
        return 1;
    }
    /* Every input of the operation's arity is there (base/opshape.c's row: a dot's y, a GEMM's
     * B, a layer's weight), and every named dimension is at least 1. */
    const ug_opshape *sh = ug_opshape_of(c->op);
    bool missing = !c->in[0].data || !c->out[0].data;
    for (int i = 1; sh && i < sh->arity; i++) missing |= !c->in[i].data;
    if (missing) {
        ug_cuda_failf(c, "%s: missing input or output buffer", k->name);
        return 1;
    }
    bool empty = c->shape.dim[0] < 1;
    for (int i = 1; sh && i < ug_opshape_ndims(sh); i++) empty |= c->shape.dim[i] < 1;
    if (empty) {
        char dims[64], sizes[64];
        ug_cuda_failf(c, "%s: empty problem (%s=%s); sizes must be >= 1", k->name,
                      sh ? ug_opshape_dims_text(sh, dims, sizeof dims) : "n",
                      sh ? ug_opshape_text(sh, &c->shape, false, sizes, sizeof sizes) : "0");
        return 1;
    }
    if (k->max_n && c->shape.dim[0] > k->max_n) {
        ug_cuda_failf(c, "%s: n = %zu exceeds this kernel's limit max_n = %zu (%s)", k->name,
                      c->shape.dim[0], k->max_n, k->doc);
        return 1;
    }
    return ug_cuda_fits(k, c);
}

/* The device memory a launcher may take for c, an upper bound from the op and sizes alone:
 * the inputs, a working copy of a sum's input (the kernels that reorder in place work on one),
 * the outputs, the partial sums of a multi-pass tree (under 1/512 of the input), and
 * UG_CUDA_SCRATCH_BYTES for the rest (CUB's temporary storage, cuBLAS's workspace, per-block
 * states).  In double: sizes whose product overflows size_t still compare right. */
#define UG_CUDA_SCRATCH_BYTES (64.0 * 1024 * 1024)

static double ug_cuda_bytes_needed(const ug_call *c)
{
    const ug_opshape *sh = ug_opshape_of(c->op);
    double values = sh ? ug_opshape_device_elements(sh, &c->shape) : 4.0 * (double)c->shape.dim[0];
    return sizeof(float) * values + UG_CUDA_SCRATCH_BYTES;
}

int ug_cuda_fits(const ug_kernel *k, ug_call *c)
{
    size_t free_b = 0, total_b = 0;
    double need = ug_cuda_bytes_needed(c);
    if (need < 0.5 * 1024 * 1024 * 1024) return 0; /* under 0.5 GiB: not worth the query */
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess) {
        ug_cuda_fail(c, e, "cudaMemGetInfo(&free_b, &total_b)", __FILE__, __LINE__);
        return 1;
    }
    if (need <= (double)free_b) return 0;
    char size[96];
    const ug_opshape *sh = ug_opshape_of(c->op);
    char dims[64], sizes[64];
    if (sh)
        snprintf(size, sizeof size, "%s=%s", ug_opshape_dims_text(sh, dims, sizeof dims),
                 ug_opshape_text(sh, &c->shape, false, sizes, sizeof sizes));
    else
        snprintf(size, sizeof size, "n=%zu", c->shape.dim[0]);
    ug_cuda_failf(c, "%s: %s needs %.0f bytes of GPU memory (%.3g GiB: inputs, outputs, working "
                  "copies, %.0f MiB of scratch); %zu bytes (%.3g GiB) are free of %zu: not run",
                  k->name, size, need, need / 1073741824.0, UG_CUDA_SCRATCH_BYTES / 1048576.0,
                  free_b, (double)free_b / 1073741824.0, total_b);
    return 1;
}

// ----------------------------------------------------------------------------
// timing

static int ug_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

double ug_median_ms(float *ms, int count)
{
    if (count <= 0) return 0;
    qsort(ms, (size_t)count, sizeof *ms, ug_cmp_float);
    return count % 2 ? ms[count / 2] : 0.5 * ((double)ms[count / 2 - 1] + ms[count / 2]);
}

// ----------------------------------------------------------------------------
// inputs shared by the kernels measured on them

typedef struct {
    unsigned long long id;
    const float *host;
    size_t n;
    float *dev;
} ug_input_slot;

static ug_input_slot g_inputs[2];

cudaError_t ug_cuda_input(const ug_call *c, int slot, const float *h, size_t n, const float **d)
{
    ug_input_slot *s = &g_inputs[slot & 1];
    if (c->input_id && s->dev && s->id == c->input_id && s->host == h && s->n == n) {
        *d = s->dev;
        return cudaSuccess;
    }
    cudaFree(s->dev);
    memset(s, 0, sizeof *s);
    cudaError_t e = cudaMalloc((void **)&s->dev, (n ? n : 1) * sizeof(float));
    if (e == cudaSuccess) e = cudaMemcpy(s->dev, h, n * sizeof(float), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        cudaFree(s->dev);
        s->dev = NULL;
        *d = NULL;
        return e;
    }
    s->id = c->input_id;
    s->host = h;
    s->n = n;
    *d = s->dev;
    return cudaSuccess;
}
