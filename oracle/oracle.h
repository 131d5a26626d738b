/*
 * oracle.h - ground truth for sums and dot products of binary32/binary64 values.
 *
 * Every function here yields a ug_exact: a compact, *exact-enough* summary of the real
 * value s = sum x_i (or sum x_i*y_i) from which the correctly rounded binary32 results and the
 * error of any computed value follow without going back to the inputs.
 *
 * Two implementations produce identical ug_exact values (the test suite cross-checks them):
 *   - UG_ORACLE_MPFR: MPFR, the ground truth (oracle/exact_mpfr.c).
 *   - UG_ORACLE_FAST: error-free extraction into an exact accumulator, vectorised and
 *     multithreaded, the default (oracle/exact_fast.c: sums and dots; oracle/exact_gemm.c;
 *     oracle/xacc.h); it does not use MPFR (oracle/meson.build builds it without).
 *   - UG_ORACLE_GPU: the same records computed on the GPU (oracle/gpu.h: binary32 sums, dots
 *     and GEMM; binary64 sums go to the fast oracle).
 * ug_oracle_select() switches between them for the whole process (`--oracle gpu|fast|mpfr`).
 * Their multithreaded paths (GEMM, long sums) use ug_par_threads() threads (base/par.h,
 * `--threads`); results never depend on the count.
 */
#ifndef UG_ORACLE_H
#define UG_ORACLE_H

/* The fast path's error-free transformations and the double-double error of oracle/error.c are
 * exactly what -ffast-math (-fassociative-math) is allowed to fold away: an oracle built so
 * would be silently wrong.  Refuse the build instead (the kernels under test may be built with
 * it: tests/fastmath_main.c). */
#if defined(__FAST_MATH__)
#error "the oracle must not be compiled with -ffast-math (it relies on exact IEEE rounding)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/format.h"

typedef enum { UG_X_FINITE = 0, UG_X_NAN, UG_X_POSINF, UG_X_NEGINF } ug_xclass;

/* The exact value s, summarised.  For cls == UG_X_FINITE:
 *   hi = RN64(s)            (round-to-nearest-even to binary64; +-inf if |s| overflows binary64)
 *   lo = RN64(s - hi)       (0 when s is a binary64 number)
 *   rn = RN32(s)            (binary32, nearest-even, subnormals, overflow to +-inf)
 *   rd = RD32(s)            (binary32 rounded toward -inf: the seven-methods post's oracle)
 * hi and the sign of lo decide s's rounding to every format of base/format.h exactly (the proof:
 * base/format.c): ug_exact_rn / ug_exact_rd below give it for any format.  rn and rd are the
 * binary32 cache of those two: every oracle writes them (the GPU oracle in its 8-byte-word
 * records, oracle/cuda), and ug_exact_rn/rd(e, UG_F32) return them without rounding again.
 * For the special classes hi, lo, rn, rd hold NaN or the matching infinity.
 * sum_abs is an upper bound on sum |x_i| (or sum |x_i*y_i|) within a factor (1 + 2^-40) of the
 * true value; +inf when any term is not finite.  It feeds the a-priori error bounds.
 * Rules for specials: any NaN term, inf - inf, or 0 * inf (dot) -> NaN; otherwise any +inf term
 * -> +inf, any -inf term -> -inf. */
typedef struct ug_exact {
    double hi, lo;
    double sum_abs;
    float rn, rd;
    uint8_t cls;
} ug_exact;

/* Error of a computed value, a result in format F, against the exact one (all three are >= 0,
 * or +inf).
 *   abs = |got - s|             (rounded to binary64; exact to ~2^-100 relative, oracle/error.c)
 *   rel = abs / |s|             (0 if both are 0; +inf if s == 0 and got != 0)
 *   ulp = abs / ulp_F(RN_F(s))  (fractional ULP in the binade of the exact value rounded to F:
 *                                ug_fmt_ulp; where RN_F(s) overflows, F's last finite binade)
 * abs and rel do not depend on F.
 * Specials: if s is NaN, only a NaN got is right (0) and anything else is +inf; if s is +-inf
 * only the same infinity is right; if s is finite a NaN or inf got is +inf error, except the
 * correct overflow, got equal to RN_F(s) (an infinity; fp8 e4m3's NaN), which is 0. */
typedef struct ug_error {
    double abs, rel, ulp;
} ug_error;

typedef enum { UG_ORACLE_FAST = 0, UG_ORACLE_MPFR = 1, UG_ORACLE_GPU = 2 } ug_oracle_kind;

void ug_oracle_select(ug_oracle_kind kind);
ug_oracle_kind ug_oracle_selected(void);
const char *ug_oracle_name(ug_oracle_kind kind);

/* Exact sum of n binary32 / binary64 values.  n == 0 gives +0. */
void ug_exact_sum_f32(const float *x, size_t n, ug_exact *out);
void ug_exact_sum_f64(const double *x, size_t n, ug_exact *out);
/* Exact dot product sum x[i*incx] * y[i*incy], binary32 inputs (products exact in binary64). */
void ug_exact_dot_f32(const float *x, size_t incx, const float *y, size_t incy, size_t n,
                      ug_exact *out);
/* Exact dot product of binary64 inputs (products up to 106 bits, 2^-2148 .. 2^2048): the fast
 * path (ug_exact_dot_f64_fast) when every product lies in its range, else MPFR; the GPU
 * oracle, if selected, does not take binary64 (the fast path answers). */
void ug_exact_dot_f64(const double *x, size_t incx, const double *y, size_t incy, size_t n,
                      ug_exact *out);
/* Exact C = A*B, A M x K and B K x N row-major binary32, C[i*N + j] for every element.
 * Multithreaded over output elements. */
void ug_exact_gemm_f32(const float *A, const float *B, size_t M, size_t N, size_t K, ug_exact *C);

/* Same, forcing one implementation regardless of ug_oracle_select (for cross-checks, benches). */
void ug_exact_sum_f32_mpfr(const float *x, size_t n, ug_exact *out);
void ug_exact_sum_f64_mpfr(const double *x, size_t n, ug_exact *out);
void ug_exact_dot_f32_mpfr(const float *x, size_t incx, const float *y, size_t incy, size_t n,
                           ug_exact *out);
void ug_exact_sum_f32_fast(const float *x, size_t n, ug_exact *out);
void ug_exact_sum_f64_fast(const double *x, size_t n, ug_exact *out);
void ug_exact_dot_f32_fast(const float *x, size_t incx, const float *y, size_t incy, size_t n,
                           ug_exact *out);
void ug_exact_dot_f64_mpfr(const double *x, size_t incx, const double *y, size_t incy,
                           size_t n, ug_exact *out);
/* The binary64 dot's fast path (oracle/exact_dot64.c): 0 and out filled, or -1 and out
 * untouched when a finite nonzero product lies outside 2^-970 .. 2^1021 in exponent (its
 * rounding error would not be a binary64 number, or it would overflow): then ask MPFR.
 * Limitation of ug_exact itself: a nonzero s below 2^-1075 in magnitude has hi = lo = 0, so
 * only rn and rd (binary32) keep its sign for directed rounding. */
int ug_exact_dot_f64_fast(const double *x, size_t incx, const double *y, size_t incy, size_t n,
                          ug_exact *out);
void ug_exact_gemm_f32_mpfr(const float *A, const float *B, size_t M, size_t N, size_t K,
                            ug_exact *C);
void ug_exact_gemm_f32_fast(const float *A, const float *B, size_t M, size_t N, size_t K,
                            ug_exact *C);

/* Error of got, a number of format f (decoded to a double), against e, rules above. */
ug_error ug_error_fmt(const ug_exact *e, ug_fmt f, double got);
/* The same for a binary32 result: ug_error_fmt(e, UG_F32, got). */
ug_error ug_error_of(const ug_exact *e, double got);
/* RN_f(s) and RD_f(s) of the exact value e summarises, exact for every format (hi and the sign
 * of lo decide them: base/format.c), with f's overflow rule; a special class gives NaN or the
 * matching infinity (NaN where f has none).  UG_F32: the cached rn, rd.  O(1). */
double ug_exact_rn(const ug_exact *e, ug_fmt f);
double ug_exact_rd(const ug_exact *e, ug_fmt f);
/* ulp32(r): the quantum of r's binade in binary32: 2^(e-23) for normal |r| in [2^e, 2^(e+1)),
 * 2^-149 for subnormals and zero, 2^104 for +-inf (the last finite binade). */
double ug_ulp32(float r);
/* 1 if the two summaries are identical (bitwise on hi, lo, rn, rd, cls; sum_abs within 1e-12). */
int ug_exact_equal(const ug_exact *a, const ug_exact *b);

/* The MPFR side (exact_mpfr.c; not in the fast oracle's library).  GMP's allocations (every
 * MPFR number's limbs, MPFR's scratch) through ug_xmalloc/ug_xrealloc, so that under a trap
 * (base/sys.h) memory refused inside MPFR jumps to it (Python's MemoryError) rather than ending
 * the process in GMP's abort, and ug_oom_inject_testing reaches them.  Installed only over
 * GMP's own default functions: another library of the process that set its own (gmpy2
 * allocates through Python's) keeps them, and its numbers are never freed by the wrong
 * allocator.  Outside a trap a refusal ends the process as ug_x* do (exit 2, the
 * bytes named).  Call once, before the first MPFR number exists; returns whether installed.
 * Not for `ulpgate` itself: a CLI run has no caller to answer. */
bool ug_oracle_trap_allocations(void);

/* After a jump out of MPFR (a trapped refusal) on this thread: MPFR's caches and its pool of
 * integers freed (a constant half computed when the jump came is computed again, never read
 * half done) and the exponent range set back to the one at ug_oracle_trap_allocations (a jump
 * out of ug_mpfr_round_f32 leaves binary32's).  The numbers the jump left behind are leaked,
 * never cleared: their fields may be half set. */
void ug_oracle_after_refusal(void);
/* Tests only: this thread's MPFR caches freed, so that the next call computes its constants
 * again (where a refusal can land inside one). */
void ug_oracle_free_caches_testing(void);

#endif
