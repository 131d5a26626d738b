/*
 * tcmodel_gpu.h - the tensor-core model of tcmodel.h as a whole GEMM in integer arithmetic
 * (tcmodel_int.h), on the host and on the device: the GPU model, bit for bit the CPU model
 * (tcmodel.c), fast enough to grade every output of a kernel's GEMM (gpu_tcmodel/bitwise).
 *
 * Both take ug_tc_gemm's arguments and give its results: the inputs rounded to in_fmt on the
 * host (ug_fmt_round, as ug_tc_gemm does), then as binary32 values (exact: every tensor-core
 * input format embeds in binary32) into the integer model, one output a thread on the device.
 * The equality is asserted: tcmodel_int (CPU, the host build against tcmodel.c on every
 * published row and the 7 input families) and tcmodel_gpu (GPU suite: the device against
 * tcmodel.c).
 */
#ifndef UG_TCMODEL_GPU_H
#define UG_TCMODEL_GPU_H

#include <stddef.h>

#include "oracle/tc/tcmodel.h"
#include "oracle/tc/tcmodel_int.h"

#ifdef __cplusplus
extern "C" {
#endif

/* p as the integer model's parameters; NULL, or what is wrong with p (ug_tc_params_invalid). */
const char *ug_tc_int_params(const ug_tc_params *p, ug_tci_params *q);
/* ug_tc_gemm through the integer model on the host (tests; one thread per row chunk).  0, or 1
 * with err set (invalid p, out of memory). */
int ug_tc_gemm_int(const ug_tc_params *p, const double *A, const double *B, double *D, size_t M,
                   size_t N, size_t K, char *err, size_t errlen);
/* ug_tc_gemm on the device.  0, or nonzero with err set: "no CUDA device" / "built without
 * CUDA" (err starts with "unavailable: "), or a CUDA error.  Cost: O(MK + KN) on the host, one
 * thread an output on the device (O(K) each), M N K < 2^62. */
int ug_tc_gemm_gpu(const ug_tc_params *p, const double *A, const double *B, double *D, size_t M,
                   size_t N, size_t K, char *err, size_t errlen);
/* The device side (oracle/cuda/tcmodel.cu; tcmodel_gpu_none.c without CUDA): D = the model's
 * GEMM of binary32 A (M x K) and B (K x N), numbers of the input format already. */
int ug_tc_gemm_device(const ug_tci_params *q, const float *A, const float *B, float *D, size_t M,
                      size_t N, size_t K, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
