/*
 * gemm.c - the binary32 matrix product C = A B: A M x K, B K x N, C M x N, all row-major; each
 * output C[i][j] the dot product of row i of A and column j of B (K terms).  Binary64 inputs
 * (a distribution drawn in UG_F64: the DGEMM family) take the binary64 oracle (exact64).
 */
#include "base/par.h"
#include "oracle/gpu.h"
#include "ops/op.h"

#define M_(s) ((s)->dim[0])
#define N_(s) ((s)->dim[1])
#define K_(s) ((s)->dim[2])


void ug_gemm_exact(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    ug_exact_gemm_f32(x, y, M_(s), N_(s), K_(s), out);
}

void ug_gemm_exact_fast(const float *x, const float *y, const ug_shape *s, ug_exact *out)
{
    ug_exact_gemm_f32_fast(x, y, M_(s), N_(s), K_(s), out);
}

/* Binary64 A and B (the DGEMM family): element e, row e / N of A against column e % N
 * of B, by the binary64 dot oracle (oracle/exact_dot64.c: exact, its fast path or MPFR), the
 * elements split over ug_par_range's workers (each a function of its index alone).  Cost: K
 * exact binary64 products per element, ~100 ns each on one core (128^3: 0.2 s). */
typedef struct {
    const double *A, *B;
    size_t N, K;
    ug_exact *out;
} ug_gemm64_job;

static void ug_gemm64_range(void *ctx, size_t lo, size_t hi)
{
    const ug_gemm64_job *j = ctx;
    for (size_t e = lo; e < hi; e++)
        ug_exact_dot_f64(j->A + (e / j->N) * j->K, 1, j->B + e % j->N, j->N, j->K, &j->out[e]);
}

static void ug_gemm_exact64(const double *x, const double *y, const ug_shape *s, ug_exact *out)
{
    ug_gemm64_job j = {x, y, N_(s), K_(s), out};
    ug_par_range(M_(s) * N_(s), 16, 0, ug_gemm64_range, &j);
}

/* Element e = (row e / N, column e % N): row of A against column of B (stride N). */
void ug_gemm_exact_one_fast(const float *x, const float *y, const ug_shape *s, size_t e,
                                   ug_exact *out)
{
    ug_exact_dot_f32_fast(x + (e / N_(s)) * K_(s), 1, y + e % N_(s), N_(s), K_(s), out);
}

/* One call of the GPU oracle per trial. */
int ug_gemm_exact_gpu(float *const *x, float *const *y, size_t count, const ug_shape *s,
                             ug_exact *const *out, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++)
        rc = ug_exact_gemm_f32_gpu(x[i], y[i], M_(s), N_(s), K_(s), out[i], NULL, err, errlen);
    return rc;
}

/* With no --oracle, the inputs the GPU oracle answers sooner than the fast CPU oracle.
 * Measured on the H100 (16 cores): every input of the default GPU suite timed on both oracles
 * inside the suite, whose tests share the GPU, and `ulpgate bench oracle --gpu` (one process
 * alone on the device):
 *   - a GEMM whose trials have M N K >= 2^27 multiply-adds.  Alone, the GPU oracle wins from
 *     64^3 (0.28 ms against 0.45; 1024^3: 4.0 ms against 63); inside the suite, its launches,
 *     copies and syncs wait behind the other tests' kernels, 2-30 ms a call, and the CPU oracle
 *     costs ~2 ns per multiply-add per core (1000^3: 0.10-0.24 s against 10-45 ms; 255^3: 5 ms
 *     against 10-80).  2^27 is where the CPU's time on 16 cores reaches ~17 ms, the suite's
 *     typical GPU call: below it the GPU saves at most ~5 ms alone and loses up to ~30 ms in the
 *     suite;
 *   - sums and dots never (ops/sum.c, ops/dot.c: no rule): a GPU answer is cross-checked by
 *     recomputing up to 8 of its trials on the CPU, the whole CPU cost when an input has 8
 *     trials or fewer, and every term crosses PCIe (8 sums of 2^24 terms, alone: CPU 16 ms,
 *     GPU 63 ms before the cross-check).
 * The rule depends on the input only, not on the machine (its cores): the oracles' records
 * agree bit for bit except sum_abs (the fast oracle's is an upper bound within 2^-42 of the GPU
 * oracle's RU64), which moves bound ratios in their last bits, so the same input must meet the
 * same oracle wherever a baseline is compared.  --oracle gpu sends every input to the GPU. */
bool ug_gemm_gpu_oracle_pays(const ug_shape *s)
{
    return (double)M_(s) * (double)N_(s) * (double)K_(s) >= 0x1p27;
}

static const ug_bound_class ug_gemm_classes[] = {UG_BOUND_TREE, UG_BOUND_KAHAN, UG_BOUND_NEUMAIER,
    UG_BOUND_WIDE_ACC, UG_BOUND_TF32, UG_BOUND_F16, UG_BOUND_BF16, UG_BOUND_BF16X9,
    UG_BOUND_F64_TREE, UG_BOUND_F64_KAHAN, UG_BOUND_BF16_OUT, UG_BOUND_BLOCK_FMA,
    UG_BOUND_BLOCK_FMA_PROMOTED, UG_BOUND_NONE};

const ug_op_desc ug_op_gemm_desc = {
    .shape = UG_OPSHAPE(UG_OP_GEMM),
    .doc = "C = A B of binary32 matrices, A M x K, B K x N, row-major",
    .terms_kind = UG_TERMS_PRODUCTS,
    .exact_is_sum = true,
    .specials = "per element, as dot",
    .hunt_exp = 50,
    .hunt_products = true,
    .hunt_max_size = 4096,
    .exact = ug_gemm_exact,
    .exact_fast = ug_gemm_exact_fast,
    .exact_one_fast = ug_gemm_exact_one_fast,
    .exact64 = ug_gemm_exact64,
    .exact_gpu = ug_gemm_exact_gpu,
    .gpu_oracle_pays = ug_gemm_gpu_oracle_pays,
    .classes = ug_gemm_classes,
};
