/*
 * tcmodel.cu - the integer tensor-core model (oracle/tc/tcmodel_int.h) on the device: one
 * thread an output of D = A B, the same source as the host's run (tcmodel_gpu.h), so that the
 * GPU model is the CPU model bit for bit (asserted by tests/tcmodel_gpu_test.c against
 * oracle/tc/tcmodel.c).  No floating-point operation of the model rounds (integers, exact
 * power-of-two scalings): --fmad and the device's arithmetic cannot change its bits.
 */
#include "oracle/cuda/gpu_oracle.cuh"
#include "oracle/tc/tcmodel_gpu.h"

#include <stdint.h>

/* D[i N + j] = the model's dot of row i of A and column j of B (grid: x over N, y over M). */
__global__ void ugg_tcmodel_kernel(ug_tci_params q, const float *A, const float *B, float *D,
                                   size_t M, size_t N, size_t K)
{
    size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x, i = blockIdx.y;
    if (i >= M || j >= N) return;
    D[i * N + j] = tci_dot(&q, A + i * K, 1, B + j, (long)N, (long)K);
}

#define UGG_TC_TRY(expr)                                                                      \
    do {                                                                                       \
        cudaError_t e_ = (expr);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            ugg_fail(err, errlen, __FILE__, __LINE__, #expr, e_);                              \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

extern "C" int ug_tc_gemm_device(const ug_tci_params *q, const float *A, const float *B, float *D,
                                 size_t M, size_t N, size_t K, char *err, size_t errlen)
{
    float *dA = NULL, *dB = NULL, *dD = NULL;
    int rc = 1;
    char why[300] = "";
    if (!ugg_available(why, sizeof why)) {
        snprintf(err, errlen, "unavailable: %s", why);
        return 1;
    }
    if (M > 65535) { /* gridDim.y */
        snprintf(err, errlen, "tensor-core model on the GPU: M = %zu > 65535", M);
        return 1;
    }
    UGG_TC_TRY(cudaMalloc(&dA, (M * K + 1) * sizeof(float)));
    UGG_TC_TRY(cudaMalloc(&dB, (K * N + 1) * sizeof(float)));
    UGG_TC_TRY(cudaMalloc(&dD, (M * N + 1) * sizeof(float)));
    UGG_TC_TRY(cudaMemcpy(dA, A, M * K * sizeof(float), cudaMemcpyHostToDevice));
    UGG_TC_TRY(cudaMemcpy(dB, B, K * N * sizeof(float), cudaMemcpyHostToDevice));
    if (M && N) {
        dim3 grid((unsigned)((N + 127) / 128), (unsigned)M);
        ugg_tcmodel_kernel<<<grid, 128>>>(*q, dA, dB, dD, M, N, K);
        UGG_TC_TRY(cudaGetLastError());
        UGG_TC_TRY(cudaDeviceSynchronize());
    }
    UGG_TC_TRY(cudaMemcpy(D, dD, M * N * sizeof(float), cudaMemcpyDeviceToHost));
    rc = 0;
done:
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dD);
    return rc;
}
