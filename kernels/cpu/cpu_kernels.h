/* cpu_kernels.h - CPU kernels under test (kernels/cpu/) and their depth functions. */
#ifndef UG_CPU_KERNELS_H
#define UG_CPU_KERNELS_H

#include "../kernel.h"

/* reduce.c: seed 004's seven methods, then compensated and library-style summation */
int ug_cpu_serial_f32(const ug_kernel *k, ug_call *c);
int ug_cpu_serial_f64acc(const ug_kernel *k, ug_call *c);
int ug_cpu_sorted_abs_serial(const ug_kernel *k, ug_call *c);
int ug_cpu_sqrt_blocks(const ug_kernel *k, ug_call *c);
int ug_cpu_pairwise_halves(const ug_kernel *k, ug_call *c);
int ug_cpu_fold(const ug_kernel *k, ug_call *c);
int ug_cpu_sorted_fold(const ug_kernel *k, ug_call *c);
int ug_cpu_kahan_f32(const ug_kernel *k, ug_call *c);
int ug_cpu_neumaier_f32(const ug_kernel *k, ug_call *c);
int ug_cpu_pairwise_block8(const ug_kernel *k, ug_call *c);
size_t ug_depth_sqrt_blocks(size_t n);
size_t ug_depth_pairwise_block8(size_t n);

/* dot.c */
int ug_cpu_dot_serial_f32(const ug_kernel *k, ug_call *c);
int ug_cpu_dot_kahan_f32(const ug_kernel *k, ug_call *c);
int ug_cpu_gemm_naive(const ug_kernel *k, ug_call *c);

#endif
