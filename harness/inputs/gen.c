/*
 * gen.c - Ogita-Rump-Oishi GenSum / GenDot input generators with an exact running dot.
 *
 * Ogita, Rump, Oishi, "Accurate sum and dot product", SISC 26(6) 2005, Algorithm 6.1 (GenDot),
 * for binary32 data, m pairs, target kappa, b = log2 kappa:
 *   first half (n2 = ceil(m/2) pairs): x_i = r*2^e_i, y_i = r'*2^e_i, e_i = round(u*b/2), with
 *     e_0 = round(b/2)+1 and e_{n2-1} = 0 so both extremes occur;
 *   second half: exponents e_j = round(linspace(b/2, 0)); x_j = r*2^e_j and
 *     y_j = RN32((t_j - D)/x_j), D the exact dot so far, t_j = r''*2^e_j, so that the running
 *     dot cancels down to t_j step by step;
 *   finally a random permutation of the pairs.
 * r, r', r'' are odd multiples of 2^-24 in (-1,1): exact binary32, never 0.
 * Changes from the paper, each needed for binary32 or for the whole range 1 <= kappa <= 1e30:
 *   1. D is exact (MPFR, below), not Dot2: 1e30 ~ 2^100 needs ~100+ bits of cancellation.
 *   2. The last term calibrates: its target T is chosen (same sign as D) so that
 *      sum|x_i y_i| / |sum x_i y_i| equals kappa exactly in real arithmetic; the only deviation
 *      left is the binary32 rounding of y_last, relative 2^-24 |T - D| / |T|.
 *   3. Small kappa: the paper's random targets always cancel to O(1) and so cannot make
 *      kappa < ~sqrt(m).  Here the first-half products are positive with probability
 *      p = (1 + 1/kappa)/2 (exactly 1/2 in the limit of large kappa, as in the paper), and a
 *      second-half step cancels only while |D| > 2 A/kappa (A = sum of |terms| so far), with the
 *      target raised to A/kappa when r''*2^e_j is below it; otherwise the step is a free term
 *      like the first half whose sign steers |D| towards A/kappa.  The last step then only has
 *      about one term's worth to correct, and no term is an outlier (the largest |x_i y_i| is
 *      within a few times the second largest, measured up to m = 2^20).
 * Condition number here: kappa = sum|x_i y_i| / |sum x_i y_i|.  Ogita-Rump-Oishi define
 * cond(x'y) = 2 |x'||y| / |x'y|, twice ours; GenDot(c) in the paper aims at their cond = c, we
 * aim at ours = kappa.
 *
 * Exactness of D: every product of two binary32 values is exact in binary64 and an integer
 * multiple of 2^-298 below 2^256; their sum is kept exactly in the oracle's fixed-point
 * accumulator (oracle/xacc.h), and D is RN64 of it (ug_gen_state below).
 *
 * GenSum (n terms, paper section 6): a GenDot of m = ceil(n/2) pairs, each product split by
 * TwoProduct into h = RN32(x*y) and l = x*y - h (exact in binary32 unless l underflows, which
 * needs |x*y| < 2^-102: never observed, and it would move the sum by < 2^-149); for odd n one
 * first-half pair has y = +-2^e, so its l is 0 and is dropped.  The sum and the condition number
 * are those of the GenDot pair, up to sum|h|+|l| vs |x*y| (relative 2^-24).  The n terms are then
 * permuted at random.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/par.h"
#include "harness/inputs/detmath.h"
#include "harness/inputs/dist_int.h"
#include "oracle/xacc.h"


static inline double ug_odd24(uint32_t w)
{
    /* (2k+1 - 2^24) * 2^-24, k the top 24 bits of w: odd, |.| <= 1 - 2^-24 */
    return ((double)(int32_t)((w >> 8) * 2 + 1) - 16777216.0) * 0x1p-24;
}

static inline double ug_u32unit(uint32_t w)
{
    return (double)w * 0x1p-32;
}

/* Round half away from zero, as MATLAB's round in the paper. */
static inline int ug_round_int(double v)
{
    return (int)(v < 0 ? -floor(-v + 0.5) : floor(v + 0.5));
}

/* Blocks of one vector's sub-stream, made 64 at a time (ug_philox_blocks is ~2x faster per
 * block than one at a time) and handed out by index. */
typedef struct {
    const ug_stream *s;
    uint64_t tag;   /* purpose << 56 | vec << 32 */
    uint64_t limit; /* indices < limit */
    uint64_t base;
    size_t have;
    uint32_t w[64][4];
} ug_blkbuf;

static const uint32_t *ug_blkbuf_get(ug_blkbuf *b, uint64_t i)
{
    if (i < b->base || i >= b->base + b->have) {
        b->base = i;
        b->have = b->limit - i < 64 ? (size_t)(b->limit - i) : 64;
        ug_philox_blocks(b->s, b->tag | i, b->have, b->w);
    }
    return b->w[i - b->base];
}

/* The running dot D, exactly, with a fast path for reading RN64(D).
 *
 * `exact` holds D exactly (oracle/xacc.h).  (hi, lo) is a double-double following it with
 * hi = RN64(hi + lo) and |D - (hi + lo)| <= err: each step adds p by three TwoSums, which
 * drop exactly one part r (the rounding error of e + lo), and err grows by |r| (rounded up).
 * RN64(D) is hi whenever the whole interval hi + lo +- err rounds to hi: |lo| + err below half
 * the gap around hi (a quarter of the gap above, below a power of two); otherwise the value is
 * read from the exact accumulator and the double-double restarts from it.  So D is RN64 of the
 * exact running dot, bit for bit what 600-bit MPFR gave (the generator's values do not depend
 * on this choice), at a few ns a step instead of ~150 ns. */
typedef struct {
    ug_xacc exact;
    double hi, lo, err;
} ug_gen_state;

static void ug_gen_two_sum(double a, double b, double *s, double *e)
{
    double x = a + b, bv = x - a;
    *s = x;
    *e = (a - (x - bv)) + (b - bv);
}

static void ug_gen_reset(ug_gen_state *g)
{
    ug_xacc_reset(&g->exact);
    g->hi = g->lo = g->err = 0;
}

/* D += p: exactly in `exact`; in (hi, lo) with the one part it drops, r, added to err. */
static void ug_gen_add(ug_gen_state *g, double p)
{
    double s, e, t, r;
    ug_xacc_add(&g->exact, p);
    ug_gen_two_sum(g->hi, p, &s, &e);    /* hi + p = s + e */
    ug_gen_two_sum(e, g->lo, &t, &r);    /* e + lo = t + r */
    ug_gen_two_sum(s, t, &g->hi, &g->lo); /* s + t = hi + lo: hi + lo = D_old + p - r */
    if (r != 0) g->err = (g->err + fabs(r)) * (1 + 0x1p-50);
}

/* RN64 of the exact running dot. */
static double ug_gen_value(ug_gen_state *g)
{
    if (g->err == 0) return g->hi; /* (hi, lo) is exact and hi = RN64(hi + lo) */
    if (g->hi != 0 && isfinite(g->hi)) {
        int ex;
        frexp(g->hi, &ex);                     /* |hi| in [2^(ex-1), 2^ex) */
        double gap = ldexp(1.0, ex - 53);      /* the spacing above |hi| */
        bool pow2 = fabs(g->hi) == ldexp(1.0, ex - 1);
        double half = pow2 && (g->lo < 0) == (g->hi > 0) ? gap / 4 : gap / 2;
        if (fabs(g->lo) + g->err < half) return g->hi;
    }
    ug_exact e;
    if (!ug_xacc_fill(&g->exact, &e)) {
        g->hi = g->lo = g->err = 0; /* exactly zero: +0, as MPFR's round of an exact 0 */
        return 0;
    }
    g->hi = e.hi;
    g->lo = e.lo;
    g->err = 0x1p-53 * fabs(e.lo); /* lo is RN64(D - hi) */
    return g->hi;
}

/* Makes one GenDot pair x[0..m), y[0..m) (unpermuted) from vector `vec` of the stream, kappa as
 * above; exact_pair < m: that first-half pair gets y = +-2^e (GenSum of odd length).  Returns 0,
 * or -1 if a y overflows binary32 (not seen for kappa <= 1e30).  Cost: m Philox blocks and m
 * exact additions (ug_gen_state): ~20-30 ns per pair. */
static int ug_gendot_pairs(const ug_stream *s, uint32_t vec, double kappa, float *x, float *y,
                           size_t m, size_t exact_pair, ug_gen_state *gs)
{
    double b = ug_det_log(kappa) * UG_INV_LN2;
    double half_b = b / 2;
    double p_pos = (1 + 1 / kappa) / 2;
    size_t n2 = (m + 1) / 2, m2 = m - n2;
    double A = 0; /* sum |x_i y_i|, binary64: only steers the targets */
    ug_blkbuf bb = {s, (uint64_t)UG_P_GEN << 56 | (uint64_t)vec << 32, m, 0, 0, {{0}}};
    ug_gen_reset(gs);
    for (size_t i = 0; i < n2; i++) {
        const uint32_t *w = ug_blkbuf_get(&bb, i);
        int e = i == 0 ? ug_round_int(half_b) + 1
                : i == n2 - 1 ? 0
                              : ug_round_int(ug_u32unit(w[2]) * half_b);
        double xi = ldexp(ug_odd24(w[0]), e);
        double yi = i == exact_pair ? ldexp(1.0, e) : ldexp(fabs(ug_odd24(w[1])), e);
        bool positive = ug_u32unit(w[3]) < p_pos;
        if ((xi < 0) == positive) yi = -yi;
        x[i] = (float)xi; /* exact */
        y[i] = (float)yi;
        double prod = xi * yi;
        A += fabs(prod);
        ug_gen_add(gs, prod);
    }
    for (size_t j = 0; j < m2; j++) {
        size_t i = n2 + j;
        const uint32_t *w = ug_blkbuf_get(&bb, i);
        int e = m2 == 1 ? 0 : ug_round_int(half_b * (double)(m2 - 1 - j) / (double)(m2 - 1));
        double xi = ldexp(ug_odd24(w[0]), e);
        double D = ug_gen_value(gs);
        double level = A / kappa; /* where the final |sum| must end */
        double yi;
        bool last = j == m2 - 1;
        if (last && kappa > 1) {
            /* T with sign(T) = sign(D) and (A + |T - D|) / |T| = kappa: */
            double aD = fabs(D), T;
            if (aD > 0 && kappa * aD >= A)
                T = (A + aD) / (kappa + 1); /* cancel part of D */
            else
                T = (A - aD) / (kappa - 1); /* kappa below the data's: add to D */
            double sgn = D > 0 ? 1 : D < 0 ? -1 : (w[3] & 1) ? -1 : 1;
            yi = (sgn * T - D) / xi;
        } else if (!last && fabs(D) > 2 * level) {
            double t = ldexp(ug_odd24(w[1]), e);
            if (fabs(t) < level) t = copysign(level, t);
            yi = (t - D) / xi;
        } else {
            /* a free term, its sign steering |D| towards level: the running sum tracks
             * A/kappa within about one term, so the last term has only that much to correct
             * (random signs would leave it ~sqrt(m) terms: one huge outlier at large m) */
            yi = ldexp(fabs(ug_odd24(w[1])), e);
            bool positive;
            if (kappa == 1)
                positive = true;
            else if (D == 0)
                positive = w[3] & 1;
            else
                positive = (D > 0) == (fabs(D) < level);
            if ((xi < 0) == positive) yi = -yi;
        }
        float yf = (float)yi;
        if (!isfinite(yf)) return UG_GEN_OVERFLOW;
        x[i] = (float)xi;
        y[i] = yf;
        double prod = xi * (double)yf;
        A += fabs(prod);
        ug_gen_add(gs, prod);
    }
    return 0;
}

/* Fisher-Yates driven by Philox: step i (from n-1 down to 1) swaps a[i] with a[j],
 * j = (w * (i+1)) >> 32, w word 0 of block i of vector `vec` (bias < n 2^-32: irrelevant, and
 * deterministic).  The blocks come in batches, so the partners of the next steps are known
 * early and prefetched: the random accesses, not the arithmetic, are the cost at n ~ 2^24. */
#define UG_PERMUTE_BODY(T)                                                                     \
    enum { BATCH = 64, AHEAD = 16 };                                                           \
    uint32_t w[BATCH][4];                                                                      \
    size_t j[BATCH];                                                                           \
    for (size_t top = n; top > 1;) {                                                           \
        size_t cnt = top - 1 < BATCH ? top - 1 : BATCH; /* steps top-1 .. top-cnt */           \
        ug_philox_blocks(s, (uint64_t)UG_P_PERM << 56 | (uint64_t)vec << 32 | (top - cnt), cnt, \
                         w);                                                                   \
        for (size_t l = 0; l < cnt; l++) {                                                     \
            size_t i = top - 1 - l;                                                            \
            j[l] = (size_t)(((uint64_t)w[i - (top - cnt)][0] * (uint64_t)(i + 1)) >> 32);      \
        }                                                                                      \
        for (size_t l = 0; l < cnt && l < AHEAD; l++) __builtin_prefetch(&a[j[l]], 1);         \
        for (size_t l = 0; l < cnt; l++) {                                                     \
            if (l + AHEAD < cnt) __builtin_prefetch(&a[j[l + AHEAD]], 1);                      \
            size_t i = top - 1 - l;                                                            \
            T t = a[i];                                                                        \
            a[i] = a[j[l]];                                                                    \
            a[j[l]] = t;                                                                       \
        }                                                                                      \
        top -= cnt;                                                                            \
    }

static void ug_permute_u64(const ug_stream *s, uint32_t vec, uint64_t *a, size_t n)
{
    UG_PERMUTE_BODY(uint64_t)
}

static void ug_permute_f32(const ug_stream *s, uint32_t vec, float *a, size_t n)
{
    UG_PERMUTE_BODY(float)
}

/* The pairs (x_i, y_i) permuted together, packed in one 64-bit word each so that a swap is one
 * cache miss, not two.  Returns -1 when out of memory. */
static int ug_permute_pairs(const ug_stream *s, uint32_t vec, float *x, float *y, size_t n)
{
    uint64_t *a = malloc(n * sizeof *a);
    if (!a) return UG_GEN_OOM;
    for (size_t i = 0; i < n; i++) a[i] = (uint64_t)ug_f32_bits(y[i]) << 32 | ug_f32_bits(x[i]);
    ug_permute_u64(s, vec, a, n);
    for (size_t i = 0; i < n; i++) {
        x[i] = ug_bits_f32((uint32_t)a[i]);
        y[i] = ug_bits_f32((uint32_t)(a[i] >> 32));
    }
    free(a);
    return 0;
}

static int ug_gendot_vec(const ug_stream *s, uint32_t vec, double kappa, float *x, float *y,
                         size_t m, ug_gen_state *gs)
{
    int rc = ug_gendot_pairs(s, vec, kappa, x, y, m, (size_t)-1, gs);
    if (rc) return rc;
    return ug_permute_pairs(s, vec, x, y, m);
}

/* GenSum of n terms into x; tmp holds 2 * ceil(n/2) floats. */
static int ug_gensum_vec(const ug_stream *s, uint32_t vec, double kappa, float *x, size_t n,
                         float *tmp, ug_gen_state *gs)
{
    size_t m = (n + 1) / 2, n2 = (m + 1) / 2;
    float *px = tmp, *py = tmp + m;
    int rc = ug_gendot_pairs(s, vec, kappa, px, py, m, n % 2 ? n2 - 1 : (size_t)-1, gs);
    if (rc) return rc;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        double prod = (double)px[i] * (double)py[i];
        float h = (float)prod;
        float l = (float)(prod - (double)h);
        x[k++] = h;
        if (!(n % 2 && i == n2 - 1)) x[k++] = l;
    }
    ug_permute_f32(s, vec, x, n);
    return 0;
}

/* GEMM GenSum/GenDot: vector v of the stream for every row of A and column of B, made on
 * worker threads (each with its own MPFR accumulator; MPFR is thread-safe when built with TLS,
 * otherwise one thread is used). */
typedef struct {
    ug_dist_kind kind;
    double kappa;
    const ug_stream *s;
    float *A, *B;
    size_t M, N, K;
    atomic_int failed; /* 0, or a UG_GEN_* code; read after the join */
} ug_gemm_gen_job;

static void ug_gemm_gen_range(void *ctx, size_t lo, size_t hi)
{
    ug_gemm_gen_job *job = ctx;
    size_t K = job->K, M = job->M, N = job->N;
    float *buf = malloc((3 * K + 1) * sizeof *buf);
    if (!buf) {
        atomic_store(&job->failed, UG_GEN_OOM);
        return;
    }
    float *u = buf, *v = buf + K, *tmp = buf + 2 * K;
    ug_gen_state gs;
    ug_xacc_init(&gs.exact);
    for (size_t r = lo; r < hi; r++) {
        int rc;
        bool to_a, to_b;
        if (job->kind == UG_D_GENDOT) {
            /* pair r: u is row r of A, v column r of B */
            rc = ug_gendot_vec(job->s, (uint32_t)r, job->kappa, u, v, K, &gs);
            to_a = r < M;
            to_b = r < N;
        } else {
            /* vectors 0..M-1: rows of A; M..M+N-1: columns of B */
            rc = ug_gensum_vec(job->s, (uint32_t)r, job->kappa, r < M ? u : v, K, tmp, &gs);
            to_a = r < M;
            to_b = r >= M;
        }
        if (rc) {
            atomic_store(&job->failed, rc);
            break;
        }
        if (to_a) memcpy(job->A + r * K, u, K * sizeof *u);
        if (to_b) {
            size_t c = job->kind == UG_D_GENDOT ? r : r - M;
            for (size_t k = 0; k < K; k++) job->B[k * N + c] = v[k];
        }
    }
    free(buf);
}

/* ---- the entry points of dist_int.h ------------------------------------------------------ */

int ug_gen_fill_sum(const ug_stream *s, double kappa, float *x, size_t n)
{
    float *tmp = malloc((n + 1) * sizeof *tmp);
    if (!tmp) return UG_GEN_OOM;
    ug_gen_state gs;
    ug_xacc_init(&gs.exact);
    int rc = n ? ug_gensum_vec(s, 0, kappa, x, n, tmp, &gs) : 0;
    free(tmp);
    return rc;
}

int ug_gen_fill_dot(const ug_stream *s, ug_dist_kind kind, double kappa, float *x, float *y,
                    size_t n)
{
    float *tmp = kind == UG_D_GENSUM ? malloc((n + 1) * sizeof *tmp) : NULL;
    if (kind == UG_D_GENSUM && !tmp) return UG_GEN_OOM;
    ug_gen_state gs;
    ug_xacc_init(&gs.exact);
    int rc = 0;
    if (n && kind == UG_D_GENDOT)
        rc = ug_gendot_vec(s, 0, kappa, x, y, n, &gs);
    else if (n)
        if (!(rc = ug_gensum_vec(s, 0, kappa, x, n, tmp, &gs)))
            rc = ug_gensum_vec(s, 1, kappa, y, n, tmp, &gs);
    free(tmp);
    return rc;
}

int ug_gen_fill_gemm(const ug_stream *s, ug_dist_kind kind, double kappa, float *A, float *B,
                     size_t M, size_t N, size_t K)
{
    ug_gemm_gen_job job = {kind, kappa, s, A, B, M, N, K, 0};
    atomic_init(&job.failed, 0);
    size_t vecs = kind == UG_D_GENDOT ? (M > N ? M : N) : M + N;
    if (K) ug_par_range(vecs, 1, 0, ug_gemm_gen_range, &job);
    return atomic_load(&job.failed);
}
