/* tcmodel_gpu_none.c - the device side of the integer tensor-core model in a build without
 * CUDA (tcmodel_gpu.h): never available. */
#include <stdio.h>

#include "oracle/tc/tcmodel_gpu.h"

int ug_tc_gemm_device(const ug_tci_params *q, const float *A, const float *B, float *D, size_t M,
                      size_t N, size_t K, char *err, size_t errlen)
{
    (void)q, (void)A, (void)B, (void)D, (void)M, (void)N, (void)K;
    snprintf(err, errlen, "unavailable: built without CUDA");
    return 1;
}
