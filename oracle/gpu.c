/*
 * gpu.c - which GPU oracle answers (gpu.h): the device's (oracle/cuda/, or oracle/gpu_none.c in a
 * build without CUDA), or the host model that tests and UG_GPU_ORACLE=model choose; and the
 * calls, with the arguments every implementation shares checked once here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/gpu.h"
#include "oracle/gpu_arith.h"

static const ug_gpu_oracle_ops *chosen; /* ug_gpu_oracle_use; NULL: the default */

void ug_gpu_oracle_use(const ug_gpu_oracle_ops *ops)
{
    chosen = ops;
}

/* UG_GPU_ORACLE: unset or empty (the device), "model", "model-faulty"; NULL for anything else
 * (ug_gpu_oracle_available says so). */
static const ug_gpu_oracle_ops *from_env(void)
{
    const char *v = getenv("UG_GPU_ORACLE");
    if (!v || !*v || !strcmp(v, "cuda"))
        return &ug_gpu_oracle_cuda;
    if (!strcmp(v, "model"))
        return &ug_gpu_oracle_model;
    if (!strcmp(v, "model-faulty"))
        return &ug_gpu_oracle_model_faulty;
    return NULL;
}

const ug_gpu_oracle_ops *ug_gpu_oracle(void)
{
    if (chosen)
        return chosen;
    const ug_gpu_oracle_ops *ops = from_env();
    return ops ? ops : &ug_gpu_oracle_cuda;
}

int ug_gpu_oracle_available(char *why, size_t len)
{
    if (!chosen && !from_env()) {
        if (why && len)
            snprintf(why, len, "UG_GPU_ORACLE='%s' is not model, model-faulty or cuda",
                     getenv("UG_GPU_ORACLE"));
        return 0;
    }
    return ug_gpu_oracle()->available(why, len) == 0 ? 0 : 1;
}

static int fail(char *err, size_t len, const char *msg)
{
    if (err && len)
        snprintf(err, len, "GPU oracle: %s", msg);
    return 1;
}

int ug_exact_sums_f32_gpu(const float *const *x, const size_t *n, size_t count, ug_exact *out,
                          char *err, size_t len)
{
    for (size_t i = 0; i < count; i++)
        if ((uint64_t)n[i] > UGG_MAX_TERMS)
            return fail(err, len, "a sum of more than 2^38 terms");
    return count ? ug_gpu_oracle()->sums_f32(x, n, count, out, err, len) : 0;
}

int ug_exact_dots_f32_gpu(const float *const *x, const float *const *y, const size_t *n,
                          size_t count, ug_exact *out, char *err, size_t len)
{
    for (size_t i = 0; i < count; i++)
        if ((uint64_t)n[i] > UGG_MAX_TERMS)
            return fail(err, len, "a dot product of more than 2^38 terms");
    return count ? ug_gpu_oracle()->dots_f32(x, y, n, count, out, err, len) : 0;
}

int ug_exact_gemm_f32_gpu(const float *A, const float *B, size_t M, size_t N, size_t K,
                          ug_exact *C, ug_gpu_gemm_info *info, char *err, size_t len)
{
    /* cuBLAS takes int dimensions: padded sizes and 8 slices of K must fit */
    if (M > (1u << 30) || N > (1u << 30) || K > (1u << 27))
        return fail(err, len, "GEMM dimensions beyond M, N <= 2^30, K <= 2^27");
    return ug_gpu_oracle()->gemm_f32(A, B, M, N, K, C, info, err, len);
}
