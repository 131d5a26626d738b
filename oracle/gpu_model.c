/*
 * gpu_model.c - the GPU oracle's kernels run on the host, step for step (gpu.h,
 * ug_gpu_oracle_model): the same chunks and block shapes, each simulated thread with its own
 * bins (dots) or registers and its warp's bins (sums), the kernels' loop order (unrolled loads
 * padded with -0 terms), the same functions
 * for every piece of arithmetic (gpu_arith.h, gpu_gemm_arith.h), the same GEMM plan with the
 * int8 products computed by integer loops over the same slice layouts and column offsets that
 * oracle/cuda/gemm.cu passes to cuBLAS, the same fallback decisions.  What it cannot check is
 * the CUDA execution itself (indexing in the kernels, cuBLAS's reading of its arguments): the
 * comments in oracle/cuda/ argue those, and the GPU run of tests/oracle_diff_gpu.c checks them.
 *
 * Not fast (~10 ns a term, int8 products at ~1 ns a multiply-add): for tests, and for runs with
 * UG_GPU_ORACLE=model on machines without a GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/gpu.h"
#include "oracle/gpu_gemm_arith.h"

enum { OP_SUM = 0, OP_DOT = 1, UNROLL_DOT = 8 };

typedef struct op_shape {
    int tpb, wins, nl, bins, unroll, bias;
    uint32_t chunk;
} op_shape;

static const op_shape shapes[2] = {
    {UGG_TPB_SUM, UGG_SUM_WINS, UGG_SUM_LIMBS, 2 * UGG_SUM_WINS, 0, UGG_SUM_BIAS,
     UGG_CHUNK_SUM},
    {UGG_TPB_DOT, UGG_DOT_WINS, UGG_DOT_LIMBS, 2 * UGG_DOT_WINS, UNROLL_DOT, UGG_DOT_BIAS,
     UGG_CHUNK_DOT},
};

static void set_err(char *err, size_t len, const char *msg)
{
    if (err && len)
        snprintf(err, len, "%s", msg);
}

static uint32_t bits_at(const float *v, size_t i)
{
    uint32_t b;
    memcpy(&b, v + i, sizeof b);
    return b;
}

/* One block of the dot kernel on one chunk of len terms (x, y: the chunk's first terms):
 * fields[UGG_FIELDS(nl)] += the chunk's limbs and counts.  Thread t takes terms t, t + TPB, ...
 * in groups of UNROLL_DOT (the kernel's loads, padded past the end with the identity term
 * -0 * +0), each into its own bins.  Threads beyond the chunk keep zero bins; they are
 * skipped. */
static void model_dot_chunk(const float *x, const float *y, uint32_t len, uint64_t *bins,
                            int64_t *fields)
{
    const op_shape *sh = &shapes[OP_DOT];
    int active = len < (uint32_t)sh->tpb ? (int)len : sh->tpb;
    for (int t = 0; t < active; t++) {
        uint64_t *mine = bins + t;
        for (int b = 0; b < sh->bins; b++)
            mine[b * sh->tpb] = 0;
        uint32_t nan_terms = 0, posinf = 0, neginf = 0, notneg = 0;
        for (uint32_t i = (uint32_t)t; i < len; i += (uint32_t)(sh->tpb * sh->unroll))
            for (int u = 0; u < sh->unroll; u++) {
                uint32_t k = i + (uint32_t)(u * sh->tpb);
                uint32_t a = k < len ? bits_at(x, k) : 0x80000000u;
                uint32_t b = k < len ? bits_at(y, k) : 0u;
                int cls = ugg_dot_special(a, b);
                if (cls) {
                    nan_terms += cls == UGG_T_NAN;
                    posinf += cls == UGG_T_POSINF;
                    neginf += cls == UGG_T_NEGINF;
                } else {
                    uint32_t bin, lo, hi;
                    ugg_dot_pieces(a, b, &bin, &lo, &hi);
                    mine[bin * sh->tpb] += lo;
                    mine[(bin + 8) * sh->tpb] += hi;
                }
                notneg |= ugg_dot_not_negzero(a, b);
            }
        int64_t sl[UGG_DOT_LIMBS], al[UGG_DOT_LIMBS];
        ugg_bins_to_limbs(mine, sh->tpb, sh->wins, sl, al);
        for (int l = 0; l < sh->nl; l++) {
            fields[l] += sl[l];
            fields[sh->nl + l] += al[l];
        }
        fields[2 * sh->nl] += nan_terms;
        fields[2 * sh->nl + 1] += posinf;
        fields[2 * sh->nl + 2] += neginf;
        fields[2 * sh->nl + 3] += notneg;
    }
}

/* A sum term the registers do not take: special counts, or its piece into the warp's bins
 * (the kernel's sum_term_to_bins). */
static void model_sum_to_bins(uint32_t w, uint64_t *bins, int64_t *counts)
{
    int cls = ugg_sum_special(w);
    counts[0] += cls == UGG_T_NAN;
    counts[1] += cls == UGG_T_POSINF;
    counts[2] += cls == UGG_T_NEGINF;
    uint32_t bin, piece;
    ugg_sum_piece(w, &bin, &piece);
    if (!cls)
        bins[bin] += piece;
}

/* One block of the sum kernel on one chunk of len terms (sum_chunk_kernel): the head (up to
 * the first 128-byte boundary) and tail terms to the warps' bins, the body's 16-byte words
 * i, i + TPB, ... to thread i mod TPB in groups of UGG_SUM_VEC (padded with -0), each thread
 * with its register window chosen from its first group, its registers into its warp's bins at
 * the end.  The boundaries come from the host address of x, the kernel's from the device
 * address: which thread takes which term may differ, the arithmetic does not (every merge is
 * an integer addition). */
static void model_sum_chunk(const float *x, uint32_t len, int64_t *fields)
{
    enum { TPB = UGG_TPB_SUM, WARPS = UGG_TPB_SUM / 32, NB = 2 * UGG_SUM_WINS, VEC = UGG_SUM_VEC };
    const int nl = UGG_SUM_LIMBS;
    uint64_t bins[WARPS][NB];
    int64_t counts[3] = {0, 0, 0};
    uint32_t notneg = 0;
    memset(bins, 0, sizeof bins);
    const ugg_sum_cut cut = ugg_sum_cut_chunk(x, len);
    const uint32_t head = cut.head, nv = cut.nv, tail0 = cut.tail0;
    for (uint32_t t = 0; t < TPB; t++) {
        if (t < head) {
            model_sum_to_bins(bits_at(x, t), bins[t / 32], counts);
            notneg |= ugg_sum_not_negzero(bits_at(x, t));
        }
        if (t + tail0 < len) {
            model_sum_to_bins(bits_at(x, tail0 + t), bins[t / 32], counts);
            notneg |= ugg_sum_not_negzero(bits_at(x, tail0 + t));
        }
    }
    for (uint32_t t = 0; t < TPB; t++) {
        uint32_t emax = 0;
        for (uint32_t k = t; k < t + VEC * TPB; k += TPB)
            for (uint32_t j = 0; j < 4; j++) {
                uint32_t e = ugg_f32_exp(k < nv ? bits_at(x, head + 4 * k + j) : 0x80000000u);
                emax = e > emax ? e : emax;
            }
        const uint32_t lo = ugg_reg_window(emax);
        uint64_t pos = 0, neg = 0;
        for (uint32_t i = t; i < nv; i += VEC * TPB)
            for (uint32_t k = i; k < i + VEC * TPB; k += TPB)
                for (uint32_t j = 0; j < 4; j++) {
                    uint32_t w = k < nv ? bits_at(x, head + 4 * k + j) : 0x80000000u;
                    if (!ugg_reg_term(w, lo, &pos, &neg))
                        model_sum_to_bins(w, bins[t / 32], counts);
                    notneg |= ugg_sum_not_negzero(w);
                }
        uint32_t bin, p32, h32;
        ugg_reg_pieces(pos, lo, 0, &bin, &p32, &h32);
        bins[t / 32][bin] += p32;
        bins[t / 32][bin + 8] += h32;
        ugg_reg_pieces(neg, lo, 1, &bin, &p32, &h32);
        bins[t / 32][bin] += p32;
        bins[t / 32][bin + 8] += h32;
    }
    for (int w = 1; w < WARPS; w++)
        for (int b = 0; b < NB; b++)
            bins[0][b] += bins[w][b];
    int64_t sl[UGG_SUM_LIMBS], al[UGG_SUM_LIMBS];
    ugg_bins_to_limbs(bins[0], 1, UGG_SUM_WINS, sl, al);
    for (int l = 0; l < nl; l++) {
        fields[l] += sl[l];
        fields[nl + l] += al[l];
    }
    for (int k = 0; k < 3; k++)
        fields[2 * nl + k] += counts[k];
    fields[2 * nl + 3] += notneg != 0;
}

/* One segment: its chunks (the kernel's ugg_chunk list), their fields added (the merge
 * kernels' integer additions), then ugg_finish.  bins: the dot kernel's scratch, bins x tpb. */
static void model_segment(int op, const float *x, const float *y, size_t n, uint64_t *bins,
                          ug_exact *out)
{
    const op_shape *sh = &shapes[op];
    int64_t f[UGG_FIELDS(UGG_DOT_LIMBS)];
    memset(f, 0, sizeof f);
    for (size_t c0 = 0; c0 < n; c0 += sh->chunk) {
        uint32_t len = n - c0 < sh->chunk ? (uint32_t)(n - c0) : sh->chunk;
        if (op == OP_SUM)
            model_sum_chunk(x + c0, len, f);
        else
            model_dot_chunk(x + c0, y + c0, len, bins, f);
    }
    ugg_finish(f, sh->nl, -sh->bias, n, out);
}

static int model_batch(int op, const float *const *x, const float *const *y, const size_t *n,
                       size_t count, ug_exact *out, char *err, size_t len)
{
    const op_shape *sh = &shapes[op];
    for (size_t i = 0; i < count; i++)
        if (n[i] > UGG_MAX_TERMS) {
            set_err(err, len, "GPU oracle: more than 2^38 terms in one sum");
            return 1;
        }
    uint64_t *bins = malloc((size_t)sh->bins * (size_t)sh->tpb * sizeof *bins);
    if (!bins) {
        set_err(err, len, "GPU oracle model: out of memory");
        return 1;
    }
    for (size_t i = 0; i < count; i++)
        model_segment(op, x[i], y ? y[i] : NULL, n[i], bins, &out[i]);
    free(bins);
    return 0;
}

static int model_available(char *err, size_t len)
{
    (void)err;
    (void)len;
    return 1;
}

static int model_sums(const float *const *x, const size_t *n, size_t count, ug_exact *out,
                      char *err, size_t len)
{
    return model_batch(OP_SUM, x, NULL, n, count, out, err, len);
}

static int model_dots(const float *const *x, const float *const *y, const size_t *n,
                      size_t count, ug_exact *out, char *err, size_t len)
{
    return model_batch(OP_DOT, x, y, n, count, out, err, len);
}

/* ---- GEMM ------------------------------------------------------------------------------------ */

static size_t pad16(size_t v)
{
    return (v + UGG_PAD - 1) / UGG_PAD * UGG_PAD;
}

/* Spans of the rows of X (rows x cols), the kernel's ugg_span_add per element. */
static void model_spans(const float *X, size_t rows, size_t cols, ugg_span *sp)
{
    for (size_t i = 0; i < rows; i++) {
        ugg_span_init(&sp[i]);
        for (size_t k = 0; k < cols; k++)
            ugg_span_add(&sp[i], bits_at(X, i * cols + k));
    }
}

/* The slicing kernel: row i's digits at sl[i * S Kp + slot(s) Kp + k], slot(s) = s, or S-1-s
 * when reverse (B's slices); zero for padding and for rows the S slices do not cover. */
static void model_slice(const float *X, size_t rows, size_t cols, size_t rows_p, size_t Kp,
                        const ugg_span *sp, int S, int reverse, int8_t *sl, int8_t *abs_sl)
{
    size_t ld = (size_t)S * Kp;
    memset(sl, 0, rows_p * ld);
    memset(abs_sl, 0, rows_p * ld);
    for (size_t i = 0; i < rows; i++) {
        if (ugg_span_slices(&sp[i]) > S)
            continue;
        int r = ugg_span_r(&sp[i]);
        for (size_t k = 0; k < cols; k++) {
            uint32_t b = bits_at(X, i * cols + k);
            uint64_t v = ugg_scaled(b, r, S);
            for (int s = 0; s < S; s++) {
                int d = ugg_slice_digit(v, S, s);
                size_t at = i * ld + (size_t)(reverse ? S - 1 - s : s) * Kp + k;
                sl[at] = ugg_signed_digit(b, d);
                abs_sl[at] = (int8_t)d;
            }
        }
    }
}

/* What cublasGemmEx(T, N, m = Np, n = Mp, k = klen, B_sl + bcol (ld T Kp), A_sl + acol
 * (ld S Kp), C (ld Np)) computes: C[i Np + j] = sum_k A_sl[i][acol + k] B_sl[j][bcol + k], in
 * int32 (the plan keeps klen 127^2 < 2^31, so no partial sum overflows). */
static void model_product(const int8_t *A_sl, size_t lda, const int8_t *B_sl, size_t ldb,
                          size_t Mp, size_t Np, const ugg_gemm_prod *p, int32_t *C)
{
    for (size_t i = 0; i < Mp; i++)
        for (size_t j = 0; j < Np; j++) {
            const int8_t *a = A_sl + i * lda + p->acol, *b = B_sl + j * ldb + p->bcol;
            int32_t s = 0;
            for (int k = 0; k < p->klen; k++)
                s += (int32_t)a[k] * (int32_t)b[k];
            C[i * Np + j] = s;
        }
}

typedef struct model_gemm_mem {
    ugg_span *spa, *spb;
    float *Bt;
    int8_t *as, *aa, *bs, *ba;
    int32_t *cs, *ca;
    ugg_gemm_prod *prods;
    uint64_t *bins;
} model_gemm_mem;

static void model_gemm_free(model_gemm_mem *m)
{
    free(m->spa);
    free(m->spb);
    free(m->Bt);
    free(m->as);
    free(m->aa);
    free(m->bs);
    free(m->ba);
    free(m->cs);
    free(m->ca);
    free(m->prods);
    free(m->bins);
}

/* gemm.cu's pipeline: B transposed, spans, S and T, slices, the planned products, per element
 * reconstruction or the exact dot (fallback).  Cost: 2 S T Mp Np Kp multiply-adds. */
static int model_gemm(const float *A, const float *B, size_t M, size_t N, size_t K, ug_exact *C,
                      ug_gpu_gemm_info *info, char *err, size_t len)
{
    model_gemm_mem m = {0};
    size_t Mp = pad16(M), Np = pad16(N), Kp = pad16(K);
    ug_gpu_gemm_info inf = {0, 0, 0, 0, 0};
    int rc = 1;
    if (M == 0 || N == 0)
        goto ok;
    m.spa = malloc(M * sizeof *m.spa);
    m.spb = malloc(N * sizeof *m.spb);
    m.Bt = malloc((N * K > 0 ? N * K : 1) * sizeof *m.Bt);
    m.bins = malloc((size_t)shapes[OP_DOT].bins * (size_t)shapes[OP_DOT].tpb * sizeof *m.bins);
    if (!m.spa || !m.spb || !m.Bt || !m.bins)
        goto oom;
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++)
            m.Bt[j * K + k] = B[k * N + j];
    model_spans(A, M, K, m.spa);
    model_spans(m.Bt, N, K, m.spb);
    uint64_t hr[UGG_SLICES_NONE + 1] = {0}, hc[UGG_SLICES_NONE + 1] = {0};
    for (size_t i = 0; i < M; i++)
        hr[ugg_span_slices(&m.spa[i])]++;
    for (size_t j = 0; j < N; j++)
        hc[ugg_span_slices(&m.spb[j])]++;
    int S = 1, T = 1;
    ugg_choose_slices(hr, hc, M, N, K, &S, &T);
    inf.S = S;
    inf.T = T;
    if (K > 0) {
        m.as = malloc(Mp * S * Kp);
        m.aa = malloc(Mp * S * Kp);
        m.bs = malloc(Np * T * Kp);
        m.ba = malloc(Np * T * Kp);
        int np = ugg_gemm_plan(S, T, (int)Kp, NULL, 0);
        m.prods = malloc((size_t)np * sizeof *m.prods);
        m.cs = malloc((size_t)np * Mp * Np * sizeof *m.cs);
        m.ca = malloc((size_t)np * Mp * Np * sizeof *m.ca);
        if (!m.as || !m.aa || !m.bs || !m.ba || !m.prods || !m.cs || !m.ca)
            goto oom;
        ugg_gemm_plan(S, T, (int)Kp, m.prods, np);
        inf.products = np;
        model_slice(A, M, K, Mp, Kp, m.spa, S, 0, m.as, m.aa);
        model_slice(m.Bt, N, K, Np, Kp, m.spb, T, 1, m.bs, m.ba);
        for (int p = 0; p < np; p++) {
            if ((int64_t)m.prods[p].klen * 127 * 127 >= ((int64_t)1 << 31)) {
                set_err(err, len, "GPU oracle model: a planned product could overflow int32");
                goto out;
            }
            model_product(m.as, (size_t)S * Kp, m.bs, (size_t)T * Kp, Mp, Np, &m.prods[p],
                          m.cs + (size_t)p * Mp * Np);
            model_product(m.aa, (size_t)S * Kp, m.ba, (size_t)T * Kp, Mp, Np, &m.prods[p],
                          m.ca + (size_t)p * Mp * Np);
        }
    }
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            ug_exact *e = &C[i * N + j];
            int done = 0;
            if (K > 0 && ugg_span_slices(&m.spa[i]) <= S && ugg_span_slices(&m.spb[j]) <= T) {
                int64_t ws[UGG_GEMM_LIMBS] = {0}, wa[UGG_GEMM_LIMBS] = {0};
                for (int p = 0; p < inf.products; p++) {
                    size_t at = (size_t)p * Mp * Np + i * Np + j;
                    ugg_wide_add(ws, m.cs[at], m.prods[p].shift);
                    ugg_wide_add(wa, m.ca[at], m.prods[p].shift);
                }
                int base = ugg_span_r(&m.spa[i]) + ugg_span_r(&m.spb[j]) - 7 * (S + T);
                done = ugg_gemm_finish(ws, wa, base, e);
            }
            if (!done) { /* the exact dot of row i and column j */
                inf.fallback++;
                model_segment(OP_DOT, A + i * K, m.Bt + j * K, K, m.bins, e);
            }
        }
ok:
    if (info)
        *info = inf;
    rc = 0;
    goto out;
oom:
    set_err(err, len, "GPU oracle model: out of memory");
out:
    model_gemm_free(&m);
    return rc;
}

const ug_gpu_oracle_ops ug_gpu_oracle_model = {
    "model", model_available, model_sums, model_dots, model_gemm, NULL, NULL,
};

/* ---- the faulty model: every finite result's hi one ulp up (cross-checks must catch it) ---- */

static void spoil(ug_exact *e, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (e[i].cls == UG_X_FINITE)
            e[i].hi = nextafter(e[i].hi, INFINITY);
}

static int faulty_sums(const float *const *x, const size_t *n, size_t count, ug_exact *out,
                       char *err, size_t len)
{
    int rc = model_sums(x, n, count, out, err, len);
    spoil(out, rc ? 0 : count);
    return rc;
}

static int faulty_dots(const float *const *x, const float *const *y, const size_t *n,
                       size_t count, ug_exact *out, char *err, size_t len)
{
    int rc = model_dots(x, y, n, count, out, err, len);
    spoil(out, rc ? 0 : count);
    return rc;
}

static int faulty_gemm(const float *A, const float *B, size_t M, size_t N, size_t K, ug_exact *C,
                       ug_gpu_gemm_info *info, char *err, size_t len)
{
    int rc = model_gemm(A, B, M, N, K, C, info, err, len);
    spoil(C, rc ? 0 : M * N);
    return rc;
}

const ug_gpu_oracle_ops ug_gpu_oracle_model_faulty = {
    "model-faulty", model_available, faulty_sums, faulty_dots, faulty_gemm, NULL, NULL,
};
