/*
 * gemm_bs.c - CPU kernels of the block-scaled GEMM (ops/gemm_bs.c): each packs A and B into
 * the block-scaled storage (base/bsfp8.h: e4m3 element bytes, an E8M0 scale byte per 1 x 128
 * tile of A and per 128 x 128 block of B) and computes from it.
 *
 *   gemm_bs_dequant_cpu      elements x scales to binary32 (exact), then C[i][j] = fmaf chain
 *                            over k in order                                     tree: gamma_K S
 *   gemm_bs_fp8_promoted_cpu DeepSeek-V3's recipe: e4m3 element products accumulated as the
 *                            H100/H200 fp8 tensor core does (the block model below), restarted
 *                            every 128 terms; each chunk times s_a s_b added to a binary32 sum
 *                                                                          bs_fp8_promoted
 *   gemm_bs_fp8_unpromoted_cpu  the same tensor-core accumulation over the whole of K (the
 *                            power-of-two scales folded into the products' exponents, exact),
 *                            no promotion: claims bs_fp8_promoted and breaks it on long K (the
 *                            recipe's reason to promote)
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/bsfp8.h"
#include "kernels/kernel.h"

// ---------------------------------------------------------------------------------------------
// the storage

typedef struct {
    ug_bs_grid ga, gb;
    uint8_t *ea, *sa, *eb, *sb; /* elements and scale codes of A and B */
    double elem[256];           /* e4m3 code -> value */
} ug_bs_packed;

static void ug_bs_free(ug_bs_packed *p)
{
    free(p->ea), free(p->sa), free(p->eb), free(p->sb);
}

/* A and B of c packed (ug_bs_pack: 0, or -1 with c->err naming the element); O(MK + KN). */
static int ug_bs_pack_call(ug_call *c, ug_bs_packed *p)
{
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    char why[300];
    p->ga = ug_bs_grid_a(M, K), p->gb = ug_bs_grid_b(K, N);
    p->ea = malloc(M * K + 1), p->eb = malloc(K * N + 1);
    p->sa = malloc(ug_bs_nblocks(&p->ga) + 1), p->sb = malloc(ug_bs_nblocks(&p->gb) + 1);
    if (!p->ea || !p->eb || !p->sa || !p->sb) {
        snprintf(c->err, sizeof c->err, "gemm_bs: out of memory packing %zu x %zu x %zu", M, N, K);
        goto err;
    }
    for (int i = 0; i < 256; i++) p->elem[i] = ug_fmt_decode(UG_E4M3, (uint64_t)i);
    if (ug_bs_pack(&p->ga, ug_in_f32(c, 0), p->ea, p->sa, why, sizeof why)) {
        snprintf(c->err, sizeof c->err, "input A: %s", why);
        goto err;
    }
    if (ug_bs_pack(&p->gb, ug_in_f32(c, 1), p->eb, p->sb, why, sizeof why)) {
        snprintf(c->err, sizeof c->err, "input B: %s", why);
        goto err;
    }
    return 0;
err:
    ug_bs_free(p);
    return -1;
}

/* The scale exponents of the tile of A row i and the block of B column j at chunk q. */
static int ug_bs_exp_a(const ug_bs_packed *p, size_t i, size_t q)
{
    return (int)p->sa[ug_bs_block_of(&p->ga, i, q * UG_BS_TILE)] - 127;
}
static int ug_bs_exp_b(const ug_bs_packed *p, size_t q, size_t j)
{
    return (int)p->sb[ug_bs_block_of(&p->gb, q * UG_BS_TILE, j)] - 127;
}

// ---------------------------------------------------------------------------------------------
// dequantize, then binary32

static int ug_gemm_bs_dequant(ug_call *c)
{
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    ug_bs_packed p;
    float *A = malloc(M * K * sizeof *A + 1), *B = malloc(K * N * sizeof *B + 1);
    int rc = -1;
    if (!A || !B) {
        snprintf(c->err, sizeof c->err, "gemm_bs: out of memory for %zu x %zu x %zu", M, N, K);
        goto err;
    }
    if (ug_bs_pack_call(c, &p)) goto err;
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++) A[i * K + k] = (float)ug_bs_value(&p.ga, p.ea, p.sa, i, k);
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++) B[k * N + j] = (float)ug_bs_value(&p.gb, p.eb, p.sb, k, j);
    ug_bs_free(&p);
    float *C = ug_out_f32(c);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            float a = 0.0f;
            for (size_t k = 0; k < K; k++) a = fmaf(A[i * K + k], B[k * N + j], a);
            C[i * N + j] = a;
        }
    rc = 0;
err:
    free(A), free(B);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// the fp8 tensor core's block (oracle/tc/tcmodel.h's steps with the H100/H200 fp8 parameters of
// reports/tensorcore/params.tsv: block 32, neab -10 (a 14-bit accumulator), the carry bit,
// truncation in alignment and in the final rounding, subnormals kept).  A kernel cannot call the
// oracle (the layers), so the block is written here; tests/gemm_bs.c checks it bit for bit
// against ug_tc_dot.

enum { UG_FP8_BLOCK = 32, UG_FP8_NEAB = -10, UG_FP8_ACC_BITS = 14, UG_E4M3_EMIN = -6 };

/* The exponent of x in a format of minimum exponent emin (subnormals keep emin). */
static int ug_bs_exp(double x, int emin)
{
    int e = ilogb(x);
    return e < emin ? emin : e;
}

/* c + sum_{i<n} x_i y_i 2^shift: x, y e4m3 values (one row of A, one column of B at stride
 * sy), shift the block's scale exponents (0 when the scales wait for promotion), c a 14-bit
 * number; n <= 32.  O(n), exact integer arithmetic but the model's two truncations. */
static double ug_fp8_block(const double *x, const double *y, size_t sy, int n, int shift,
                           double c)
{
    uint64_t sig[UG_FP8_BLOCK + 1];
    int pe[UG_FP8_BLOCK + 1], neg[UG_FP8_BLOCK + 1], terms = 0, lead_pre = INT_MIN;
    double lead_sig = 0;
    for (int i = 0; i < n; i++) {
        double a = x[i], b = y[(size_t)i * sy];
        if (a == 0 || b == 0) continue;
        int ea = ug_bs_exp(a, UG_E4M3_EMIN), eb = ug_bs_exp(b, UG_E4M3_EMIN);
        double s = ldexp(fabs(a), -ea) * ldexp(fabs(b), -eb);
        int e = ea + eb + shift;
        if (e > lead_pre) lead_pre = e, lead_sig = s;
        else if (e == lead_pre && s > lead_sig) lead_sig = s;
        if (s >= 2) s /= 2, e++;
        sig[terms] = (uint64_t)ldexp(s, 23), pe[terms] = e, neg[terms] = (a < 0) != (b < 0);
        terms++;
    }
    int ec = 0, all = terms;
    if (c != 0) {
        ec = ug_bs_exp(c, -126);
        sig[all] = (uint64_t)ldexp(fabs(c), 23 - ec), pe[all] = ec, neg[all] = c < 0;
        all++;
    }
    if (all == 0) return 0.0;
    bool carry = terms > 0 && lead_sig >= 2 && (c == 0 || lead_pre >= ec);
    int E = UG_FP8_NEAB + (carry ? 1 : 0), m = pe[0];
    for (int i = 1; i < all; i++)
        if (pe[i] > m) m = pe[i];
    int64_t S = 0;
    for (int i = 0; i < all; i++) {
        int sh = m - pe[i] - E; /* > 0: E is negative */
        int64_t v = sh >= 64 ? 0 : (int64_t)(sig[i] >> sh);
        S += neg[i] ? -v : v;
    }
    if (S == 0) return 0.0;
    double v = ldexp((double)S, m - 23 - E);
    int q = ug_bs_exp(v, -126) - (UG_FP8_ACC_BITS - 1); /* the accumulator's last bit */
    return ldexp(trunc(ldexp(v, -q)), q);
}

/* Row i of A against column j of B over K, in blocks of 32: promoted, each chunk of 128 from
 * zero, times its scales, added to a binary32 sum; else one tensor-core accumulator for all of
 * K, the scales in the products' exponents. */
static float ug_fp8_dot(const ug_bs_packed *p, size_t i, size_t j, size_t N, size_t K,
                        bool promote, double *xa, double *yb)
{
    for (size_t k = 0; k < K; k++) {
        xa[k] = p->elem[p->ea[i * K + k]];
        yb[k] = p->elem[p->eb[k * N + j]];
    }
    float acc = 0.0f;
    double tc = 0.0;
    for (size_t q = 0; q * UG_BS_TILE < K; q++) {
        int shift = ug_bs_exp_a(p, i, q) + ug_bs_exp_b(p, q, j);
        size_t end = (q + 1) * UG_BS_TILE < K ? (q + 1) * UG_BS_TILE : K;
        if (promote) tc = 0.0;
        for (size_t k0 = q * UG_BS_TILE; k0 < end; k0 += UG_FP8_BLOCK) {
            int n = (int)(end - k0 < UG_FP8_BLOCK ? end - k0 : UG_FP8_BLOCK);
            tc = ug_fp8_block(xa + k0, yb + k0, 1, n, promote ? 0 : shift, tc);
        }
        if (promote) acc += (float)ldexp(tc, shift); /* the product exact unless subnormal */
    }
    return promote ? acc : (float)tc;
}

static int ug_gemm_bs_fp8(ug_call *c, bool promote)
{
    size_t M = c->shape.dim[0], N = c->shape.dim[1], K = c->shape.dim[2];
    ug_bs_packed p;
    double *xa = malloc(K * sizeof *xa + 1), *yb = malloc(K * sizeof *yb + 1);
    int rc = -1;
    if (!xa || !yb) {
        snprintf(c->err, sizeof c->err, "gemm_bs: out of memory for K = %zu", K);
        goto err;
    }
    if (ug_bs_pack_call(c, &p)) goto err;
    float *C = ug_out_f32(c);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) C[i * N + j] = ug_fp8_dot(&p, i, j, N, K, promote, xa, yb);
    ug_bs_free(&p);
    rc = 0;
err:
    free(xa), free(yb);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// the family: registry rows and the launcher

enum { GEMM_BS_DEQUANT, GEMM_BS_FP8_PROMOTED, GEMM_BS_FP8_UNPROMOTED };

/* Block steps a term passes through: one per block of 32 (the whole row for the unpromoted
 * kernel; bs_fp8_promoted takes this depth of a 128-term chunk). */
static size_t ug_depth_blocks32(size_t n) { return (n + UG_FP8_BLOCK - 1) / UG_FP8_BLOCK; }

/* Batch-invariant: C[i][j] is one row of A against one column of B, the same loop whatever M. */
static const ug_kernel ug_cpu_gemm_bs_kernels[] = {
    {.name = "gemm_bs_dequant_cpu", .op = UG_OP_GEMM_BS, .batch_invariant = true,
     .bound = UG_BOUND_TREE, .depth = ug_depth_serial, .version = GEMM_BS_DEQUANT,
     .doc = "block-scaled fp8 dequantized to binary32, then an fmaf chain over k"},
    {.name = "gemm_bs_fp8_promoted_cpu", .op = UG_OP_GEMM_BS, .op_fmt = UG_E4M3,
     .batch_invariant = true, .bound = UG_BOUND_BS_FP8_PROMOTED, .depth = ug_depth_blocks32,
     .version = GEMM_BS_FP8_PROMOTED,
     .doc = "DeepSeek-V3's fp8 recipe: H200 fp8 block model, promoted to binary32 every 128"},
    {.name = "gemm_bs_fp8_unpromoted_cpu", .op = UG_OP_GEMM_BS, .op_fmt = UG_E4M3,
     .batch_invariant = true, .bound = UG_BOUND_BS_FP8_PROMOTED, .depth = ug_depth_blocks32,
     .version = GEMM_BS_FP8_UNPROMOTED,
     .doc = "the same without promotion: K in the 14-bit accumulator (fails on long K)"},
};

static int ug_cpu_gemm_bs_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case GEMM_BS_DEQUANT: return ug_gemm_bs_dequant(c);
    case GEMM_BS_FP8_PROMOTED: return ug_gemm_bs_fp8(c, true);
    case GEMM_BS_FP8_UNPROMOTED: return ug_gemm_bs_fp8(c, false);
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
    return 1;
}

UG_FAMILY(cpu_gemm_bs, ug_cpu_gemm_bs_kernels, ug_cpu_gemm_bs_run)
