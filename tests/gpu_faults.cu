/*
 * gpu_faults.cu - CUDA kernels that fail on purpose, registered only in the self-test program
 * (ulpgate-selftest), for the `faults` meson suite (tests/gpu_faults.c has their cases,
 * tests/faults_test.sh asserts how they fail).
 *
 *   sum_oob_write  writes its result far past the end of its output allocation (2^36 floats
 *                  on): a real illegal address.  The launch's synchronisation returns
 *                  cudaErrorIllegalAddress, a sticky error: the harness records it as a failed
 *                  assertion naming the error, and every later kernel of the process fails fast
 *                  saying the context is poisoned.  compute-sanitizer --tool memcheck reports
 *                  it as "Invalid __global__ write of size 4 bytes".
 *   sum_spin       spins on a flag in device memory that nothing ever sets: a kernel that never
 *                  ends.  cudaDeviceSynchronize never returns; the per-case time limit (run
 *                  --timeout, the watchdog of harness/run/guard.c) ends the run.
 *
 * Compile (meson does it, with the flags of kernels/meson.build): nvcc -arch=sm_90 -c
 * gpu_faults.cu.  The family registers itself (a static initialiser calls
 * ug_registry_add_family before main).
 */
#include "kernels/cuda/ug_cuda.cuh"
#include "kernels/registry_testing.h"

UG_CUDA_BEGIN

// ----------------------------------------------------------------------------
// kernels

/* How far past the output the faulty kernel writes, in floats: 256 GiB, far outside any
 * allocation this process makes. */
#define UG_OOB_OFFSET ((size_t)1 << 36)

__global__ void sum_oob_write_kernel(const float *in, float *out, size_t n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        float s = 0.0f;
        for (size_t i = 0; i < n; i++) s += in[i];
        out[UG_OOB_OFFSET] = s; /* the fault */
    }
}

__global__ void sum_spin_kernel(const volatile int *flag, float *out)
{
    while (*flag == 0) __nanosleep(1000); /* nothing ever sets it */
    *out = 0.0f;
}

// ----------------------------------------------------------------------------
// launchers

static int ug_run_oob(const ug_kernel *k, ug_call *c)
{
    float *d_x = NULL, *d_out = NULL;
    size_t n = c->shape.dim[0];
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, ug_cuda_upload(&d_x, ug_in_f32(c, 0), n));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    UG_CUDA_TRY(c, cudaMemset(d_out, UG_CUDA_POISON_BYTE, sizeof(float)));
    sum_oob_write_kernel<<<1, 32>>>(d_x, d_out, n);
    UG_CUDA_LAUNCHED(c);
    UG_CUDA_TRY(c, cudaMemcpy(ug_out_f32(c), d_out, sizeof(float), cudaMemcpyDeviceToHost));
cleanup:
    cudaFree(d_x);
    cudaFree(d_out);
    return c->err[0] != 0;
}

static int ug_run_spin(const ug_kernel *k, ug_call *c)
{
    int *d_flag = NULL;
    float *d_out = NULL;
    if (ug_cuda_enter(k, c)) return 1;
    UG_CUDA_TRY(c, cudaMalloc(&d_flag, sizeof(int)));
    UG_CUDA_TRY(c, cudaMemset(d_flag, 0, sizeof(int)));
    UG_CUDA_TRY(c, cudaMalloc(&d_out, sizeof(float)));
    sum_spin_kernel<<<1, 1>>>(d_flag, d_out);
    UG_CUDA_LAUNCHED(c); /* never returns */
    UG_CUDA_TRY(c, cudaMemcpy(ug_out_f32(c), d_out, sizeof(float), cudaMemcpyDeviceToHost));
cleanup:
    cudaFree(d_flag);
    cudaFree(d_out);
    return c->err[0] != 0;
}

enum { SUM_OOB_WRITE, SUM_SPIN };

int ug_gpu_faults_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case SUM_OOB_WRITE: return ug_run_oob(k, c);
    case SUM_SPIN: return ug_run_spin(k, c);
    }
    ug_cuda_failf(c, "%s: unknown version %d", k->name, k->version);
    return 1;
}

const ug_kernel ug_gpu_faults_kernels[] = {
    {.name = "sum_oob_write", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = SUM_OOB_WRITE,
     .doc = "test only: writes its result 2^36 floats past its output (an illegal address)"},
    {.name = "sum_spin", .op = UG_OP_SUM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
     .depth = ug_depth_serial, .version = SUM_SPIN,
     .doc = "test only: spins on a flag nothing sets (a kernel that never ends)"},
};

UG_CUDA_END

UG_FAMILY(gpu_faults, ug_gpu_faults_kernels, ug_gpu_faults_run)

namespace {
/* Registered before main, like tests/faulty_kernels.c's CPU family. */
[[maybe_unused]] const int ug_gpu_faults_registered = (ug_registry_add_family(&UG_FAMILY_SYMBOL(gpu_faults, default)), 0);
}
