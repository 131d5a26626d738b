/* cub_determinism_probe.cu - compiled by kernels/meson.build at configure time with
 * -DUG_CUB_DETERMINISM=1: when it compiles, the installed CCCL offers what
 * cub_determinism.cuh uses, and vendor.cu is built with it. */
#include "kernels/cuda/cub_determinism.cuh"

int ug_cub_determinism_probe(const ug_kernel *k, ug_call *c)
{
    return ug_run_cub_reduce_det(k, c, UG_DET_NOT_GUARANTEED) +
           ug_run_cub_reduce_det(k, c, UG_DET_RUN_TO_RUN) + ug_run_cub_reduce_det(k, c, UG_DET_GPU_TO_GPU);
}
