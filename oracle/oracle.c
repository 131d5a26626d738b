/*
 * oracle.c - which oracle answers (fast by default, MPFR or the GPU on request), and the
 * dispatching ug_exact_* functions.  The rules the implementations share are in special.c;
 * the CPU ones' threads follow the program's one setting, ug_par_threads() (base/par.h).
 * A GPU oracle call that fails (no device, a CUDA error) is answered by the fast oracle, with
 * the reason on stderr: callers that must not fall back (the harness's inputs) call gpu.h's
 * functions themselves.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "oracle/gpu.h"
#include "oracle/oracle.h"

/* Process-wide setting, written by option parsing and read by any thread. */
static atomic_int selected_kind = UG_ORACLE_FAST;

void ug_oracle_select(ug_oracle_kind kind)
{
    atomic_store(&selected_kind,
                 kind == UG_ORACLE_MPFR || kind == UG_ORACLE_GPU ? kind : UG_ORACLE_FAST);
}

ug_oracle_kind ug_oracle_selected(void)
{
    return (ug_oracle_kind)atomic_load(&selected_kind);
}

const char *ug_oracle_name(ug_oracle_kind kind)
{
    switch (kind) {
    case UG_ORACLE_FAST:
        return "fast";
    case UG_ORACLE_MPFR:
        return "mpfr";
    case UG_ORACLE_GPU:
        return "gpu";
    }
    return "unknown";
}

/* 0 if the GPU oracle answered; else the reason on stderr, and the caller asks the fast one. */
static int gpu_answered(int rc, const char *err)
{
    if (rc)
        fprintf(stderr, "ulpgate: %s; the fast CPU oracle answers instead\n", err);
    return rc == 0;
}

void ug_exact_sum_f32(const float *x, size_t n, ug_exact *out)
{
    char err[400];
    if (ug_oracle_selected() == UG_ORACLE_GPU &&
        gpu_answered(ug_exact_sums_f32_gpu(&x, &n, 1, out, err, sizeof err), err))
        return;
    if (ug_oracle_selected() == UG_ORACLE_MPFR)
        ug_exact_sum_f32_mpfr(x, n, out);
    else
        ug_exact_sum_f32_fast(x, n, out);
}

void ug_exact_sum_f64(const double *x, size_t n, ug_exact *out)
{
    if (ug_oracle_selected() == UG_ORACLE_MPFR)
        ug_exact_sum_f64_mpfr(x, n, out);
    else
        ug_exact_sum_f64_fast(x, n, out);
}

void ug_exact_dot_f64(const double *x, size_t incx, const double *y, size_t incy, size_t n,
                      ug_exact *out)
{
    if (ug_oracle_selected() == UG_ORACLE_MPFR ||
        ug_exact_dot_f64_fast(x, incx, y, incy, n, out) != 0) /* a product off the fast range */
        ug_exact_dot_f64_mpfr(x, incx, y, incy, n, out);
}

void ug_exact_dot_f32(const float *x, size_t incx, const float *y, size_t incy, size_t n,
                      ug_exact *out)
{
    char err[400];
    if (ug_oracle_selected() == UG_ORACLE_GPU && incx == 1 && incy == 1 &&
        gpu_answered(ug_exact_dots_f32_gpu(&x, &y, &n, 1, out, err, sizeof err), err))
        return;
    if (ug_oracle_selected() == UG_ORACLE_MPFR)
        ug_exact_dot_f32_mpfr(x, incx, y, incy, n, out);
    else
        ug_exact_dot_f32_fast(x, incx, y, incy, n, out);
}

void ug_exact_gemm_f32(const float *A, const float *B, size_t M, size_t N, size_t K, ug_exact *C)
{
    char err[400];
    if (ug_oracle_selected() == UG_ORACLE_GPU &&
        gpu_answered(ug_exact_gemm_f32_gpu(A, B, M, N, K, C, NULL, err, sizeof err), err))
        return;
    if (ug_oracle_selected() == UG_ORACLE_MPFR)
        ug_exact_gemm_f32_mpfr(A, B, M, N, K, C);
    else
        ug_exact_gemm_f32_fast(A, B, M, N, K, C);
}
