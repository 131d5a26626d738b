/*
 * exact_gemm.c - the fast oracle's GEMM (ug_exact_gemm_f32_fast): every element of C = A B
 * exact, the same ug_exact as per-element MPFR dots, bit for bit.
 *
 * Per element one fused pass over the two K-vectors (a row of A, a row of B transposed), in
 * chunks of up to 4096 terms, with sigmas from row max times column max (2 levels, or 3 when
 * recent elements of the thread needed them; exact_fast.c proves one extraction level exact,
 * gemm_element below picks the levels), no buffer; the partial sums go into an exact
 * accumulator (xacc.h).  The general path (ug_exact_dot_f32_fast) takes the leftovers, the
 * specials and the exact zeros (whose sign needs the terms).  sum_abs: the chunks' sums of
 * |a_k b_k| (at most 4096/8 + 8 = 520 additions on a term's path in 8 lanes) added with
 * Neumaier's summation, times UG_FAST_SABS_UP (exact_fast.c, sum_abs).
 * Threads: ug_par_threads() workers take tiles of 16 x 64 output elements from an atomic
 * counter; B is transposed once so that both K-vectors are contiguous.  Which worker computes an
 * element does not change its value.
 * Measured on 2 GHz AVX-512 cores (bench oracle): ~0.7-0.8 ns per multiply-add including
 * ~150 ns to finish each element.
 */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/par.h"
#include "base/sys.h"
#include "oracle/fast.h"
#include "oracle/xacc.h"

typedef struct gemm_job {
    const float *A, *B, *Bt; /* Bt: B transposed (N x K), or NULL: strided columns of B */
    size_t M, N, K;
    ug_exact *C;
    const float *rowmax, *colmax; /* max |.| of A's rows and B's columns; NaN if non-finite */
    size_t tiles_i, tiles_j;
    atomic_size_t next;
    const ug_fast_kernels *k;
} gemm_job;

enum {
    TILE_I = 16, TILE_J = 64, /* output elements per tile */
    GEMM_CHUNK = 4096,        /* K-terms per fused pass */
};

/* One thread's state: its accumulator, and how often two fused levels were not enough lately
 * (when often, it starts with three: a wasted two-level pass costs more than a third level). */
typedef struct gemm_worker_state {
    ug_xacc x;
    unsigned tried2, failed2;
} gemm_worker_state;

/* One element C[i][j] with the general path (specials, zeros, what the fused levels missed). */
static void gemm_element_general(const gemm_job *g, size_t i, size_t j, ug_exact *e)
{
    const float *a = g->A + i * g->K;
    if (g->Bt)
        ug_exact_dot_f32_fast(a, 1, g->Bt + j * g->K, 1, g->K, e);
    else
        ug_exact_dot_f32_fast(a, 1, g->B + j, g->N, g->K, e);
}

/* One element with the fused path.  The bound T = rowmax * colmax >= |a_k b_k| (exact product of
 * two binary32 values) gives level exponents s1 = ilogb(T) + 2 + L, s2 = s1 - 52 + L,
 * s3 = s2 - 52 + L for chunks of 2^L terms: level j+1's bound 2^(s_{j+1} - 1 - L) equals level
 * j's residual bound 2^(s_j - 53).  T >= 2^-298, so s3 >= -298 - 1 + 2 - 104 > -1022;
 * T < 2^256, so s1 < 256 + 2 + 12 < 1022.  Two levels cover the 2 (52 - L) bits below T (80 for
 * K = 4096): all of a product's 48 bits unless it is below ~2^-32 T, rare for most data. */
static void gemm_element(const gemm_job *g, gemm_worker_state *w, size_t i, size_t j,
                         ug_exact *e)
{
    double T = (double)g->rowmax[i] * (double)g->colmax[j];
    if (!(T > 0) || !g->Bt) { /* NaN/inf somewhere, an all-zero row or column, or no Bt */
        gemm_element_general(g, i, j, e);
        return;
    }
    const float *a = g->A + i * g->K, *b = g->Bt + j * g->K;
    double sh = 0, sl = 0; /* Neumaier sum of the chunks' sum |a_k b_k| */
    ug_xacc_reset(&w->x);
    for (size_t k = 0; k < g->K; k += GEMM_CHUNK) {
        size_t n = g->K - k < GEMM_CHUNK ? g->K - k : GEMM_CHUNK;
        int L = ug_fast_ceil_log2(n);
        int s1 = ilogb(T) + 2 + L, s2 = s1 - 52 + L, s3 = s2 - 52 + L;
        double sig[3] = {1.5 * ug_fast_pow2(s1), 1.5 * ug_fast_pow2(s2), 1.5 * ug_fast_pow2(s3)};
        ug_fused_out o;
        /* three levels first when more than 1 in 8 recent elements needed them; each element
         * counts as a try, so two levels get probed again about every 8th element */
        int three = w->failed2 * 8 > w->tried2;
        w->tried2++;
        if (!three) {
            g->k->fused[UG_F_DOT32_2](a + k, b + k, n, sig, &o);
            if (o.residual) {
                w->failed2++;
                three = 1;
            }
        }
        if (w->tried2 >= 1024) { /* forget slowly */
            w->tried2 /= 2;
            w->failed2 /= 2;
        }
        if (three)
            g->k->fused[UG_F_DOT32_3](a + k, b + k, n, sig, &o);
        if (o.residual) {
            gemm_element_general(g, i, j, e);
            return;
        }
        ug_xacc_add(&w->x, o.level[0]);
        ug_xacc_add(&w->x, o.level[1]);
        ug_xacc_add(&w->x, o.level[2]);
        double t = sh + o.sum_abs;
        sl += fabs(sh) >= o.sum_abs ? (sh - t) + o.sum_abs : (o.sum_abs - t) + sh;
        sh = t;
    }
    if (!ug_xacc_fill(&w->x, e)) { /* exact zero: the sign rule needs the terms */
        gemm_element_general(g, i, j, e);
        return;
    }
    e->sum_abs = (sh + sl) * UG_FAST_SABS_UP;
}

/* Takes tiles until none is left. */
static void gemm_tiles(gemm_job *g, gemm_worker_state *w)
{
    size_t tiles = g->tiles_i * g->tiles_j;
    for (;;) {
        size_t t = atomic_fetch_add(&g->next, 1);
        if (t >= tiles)
            break;
        size_t i0 = (t / g->tiles_j) * TILE_I, j0 = (t % g->tiles_j) * TILE_J;
        size_t i1 = i0 + TILE_I < g->M ? i0 + TILE_I : g->M;
        size_t j1 = j0 + TILE_J < g->N ? j0 + TILE_J : g->N;
        for (size_t j = j0; j < j1; j++) /* Bt row j stays in L1 over the tile's rows */
            for (size_t i = i0; i < i1; i++)
                gemm_element(g, w, i, j, &g->C[i * g->N + j]);
    }
}

static void gemm_worker_init(gemm_worker_state *w)
{
    ug_xacc_init(&w->x);
    w->tried2 = w->failed2 = 0;
}

/* One ug_par_run worker: its own state (on its stack), tiles until none is left. */
static void gemm_worker(void *ctx, int w, int workers)
{
    (void)w;
    (void)workers;
    gemm_worker_state st;
    gemm_worker_init(&st);
    gemm_tiles(ctx, &st);
}

/* max |v_k| over n values with stride inc; NaN when any is NaN or infinite. */
static float abs_max_f32(const float *v, size_t inc, size_t n)
{
    float m = 0;
    for (size_t k = 0; k < n; k++) {
        float a = fabsf(v[k * inc]);
        if (!(a <= FLT_MAX))
            return NAN;
        m = a > m ? a : m;
    }
    return m;
}

/* Runs g's tiles on ug_par_threads() workers (at most one per tile), the calling thread
 * included. */
static void gemm_run(gemm_job *g)
{
    size_t tiles = g->tiles_i * g->tiles_j;
    int workers = ug_par_threads();
    if ((size_t)workers > tiles)
        workers = tiles ? (int)tiles : 1;
    ug_par_run(workers, gemm_worker, g);
}

/* Cost: the transpose of B (N K), the row/column maxima, then M N K fused multiply-extracts of
 * ~20 vector-lane operations each, spread over the threads; ~0.5 ns per multiply-add per core
 * with AVX2. */
void ug_exact_gemm_f32_fast(const float *A, const float *B, size_t M, size_t N, size_t K,
                            ug_exact *C)
{
    float *rowmax = ug_xmalloc(M * sizeof *rowmax);
    float *colmax = ug_xmalloc(N * sizeof *colmax);
    /* B transposed: without the memory for it, every element takes the general path (strided
     * columns of B), still exact */
    float *Bt = malloc((N * K > 0 ? N * K : 1) * sizeof *Bt);
    for (size_t i = 0; i < M; i++)
        rowmax[i] = abs_max_f32(A + i * K, 1, K);
    for (size_t j = 0; j < N; j++)
        colmax[j] = abs_max_f32(B + j, N, K);
    if (Bt) /* blocked: B's rows are read 64 columns at a time */
        for (size_t j0 = 0; j0 < N; j0 += 64)
            for (size_t k = 0; k < K; k++)
                for (size_t j = j0; j < j0 + 64 && j < N; j++)
                    Bt[j * K + k] = B[k * N + j];
    gemm_job g = {A, B, Bt, M, N, K, C, rowmax, colmax, (M + TILE_I - 1) / TILE_I,
                  (N + TILE_J - 1) / TILE_J, 0, ug_fast_kernels_get()};
    gemm_run(&g);
    free(Bt);
    free(colmax);
    free(rowmax);
}
