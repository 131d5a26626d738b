/* gpu_none.c - the GPU oracle of a build without CUDA (oracle/gpu.h): never available. */
#include <stdio.h>

#include "oracle/gpu.h"

static int none_err(char *err, size_t len)
{
    if (err && len)
        snprintf(err, len, "GPU oracle: built without CUDA");
    return 1;
}

static int none_available(char *err, size_t len)
{
    none_err(err, len);
    return 0;
}

static int none_sums(const float *const *x, const size_t *n, size_t count, ug_exact *out,
                     char *err, size_t len)
{
    (void)x, (void)n, (void)count, (void)out;
    return none_err(err, len);
}

static int none_dots(const float *const *x, const float *const *y, const size_t *n,
                     size_t count, ug_exact *out, char *err, size_t len)
{
    (void)x, (void)y, (void)n, (void)count, (void)out;
    return none_err(err, len);
}

static int none_gemm(const float *A, const float *B, size_t M, size_t N, size_t K, ug_exact *C,
                     ug_gpu_gemm_info *info, char *err, size_t len)
{
    (void)A, (void)B, (void)M, (void)N, (void)K, (void)C, (void)info;
    return none_err(err, len);
}

const ug_gpu_oracle_ops ug_gpu_oracle_cuda = {
    "none", none_available, none_sums, none_dots, none_gemm, NULL, NULL,
};
