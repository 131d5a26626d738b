/*
 * oracle_diff_gpu.c - the GPU oracle on the device against MPFR: the whole differential corpus
 * of tests/oracle_diff.c (the same vectors as the fast oracle's and the host model's test) and
 * the GEMM corpus, bit for bit (sum_abs included), then larger products against the fast
 * oracle.  Skipped without a CUDA device (1..0 # SKIP no CUDA device).
 */
#include <stdlib.h>

#include "base/bits.h"
#include "base/parse.h"
#include "tests/oracle_diff.h"
#include "tests/oracle_gpu.h"

/* n, or n / ULPGATE_ORACLE_DIFF_DIVISOR (at least 1) where the environment sets it: the racecheck
 * setup (tests/meson.build) runs a sample of the corpora, the other setups all of it.  A value
 * that is not a count >= 1 fails the case, naming it. */
static size_t od_sample(ug_t *t, size_t n)
{
    const char *s = getenv("ULPGATE_ORACLE_DIFF_DIVISOR");
    size_t d = 1;
    UG_ASSERT_MSG(!s || !*s || (ug_parse_size(s, &d) && d >= 1),
                  "ULPGATE_ORACLE_DIFF_DIVISOR='%s' is not a count >= 1", s);
    return n / d ? n / d : 1;
}

UG_CASE_EX(oracle_diff_gpu, corpus, UG_CASE_GPU)
{
    char why[300];
    UG_ASSERT_MSG(ug_gpu_oracle_cuda.available(why, sizeof why), "GPU oracle: %s", why);
    od_use_gpu(&ug_gpu_oracle_cuda);
    od_run_short_sum32(t, od_sample(t, 400000), "oracle_diff/short_sum_f32");
    od_run_short_dot32(t, od_sample(t, 350000), "oracle_diff/short_dot_f32");
    od_run_long(t, "oracle_diff/long_vectors", (int)od_sample(t, 40));
    od_use_gpu(NULL);
}

UG_CASE_EX(oracle_diff_gpu, edges, UG_CASE_GPU)
{
    og_run_edges(t, &ug_gpu_oracle_cuda);
}

UG_CASE_EX(oracle_diff_gpu, gemm_corpus, UG_CASE_GPU)
{
    og_gemm_paths paths;
    og_run_gemm_corpus(t, &ug_gpu_oracle_cuda, "oracle_gpu/gemm", (int)od_sample(t, 90), 1, &paths);
    od_use_gpu(NULL);
}
