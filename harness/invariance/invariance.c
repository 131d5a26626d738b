/*
 * invariance.c - batch invariance checks (invariance.h has the contract): build the calls of each
 * configuration, run the kernel, compare each row's output bits with the reference's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "base/opshape.h"
#include "base/sys.h"
#include "harness/inputs/rng.h"
#include "harness/invariance/invariance.h"
#include "kernels/kernel.h"
#include "ops/op.h"

// ----------------------------------------------------------------------------
// sizes

enum {
    INV_ROWS = 3,              /* target rows, each compared */
    INV_GEMM_N = 48, INV_GEMM_K = 256,
    INV_ROW_N = 512,           /* a row operation's row */
    INV_ATT_S = 64, INV_ATT_D = 64,
    INV_T = 320, INV_CHUNK = 64, INV_PREFILL = 256, /* chunked: tokens, chunk, chunked part */
    INV_POOL = 1 << 16,
};
static const size_t inv_batches[] = {1, 3, 64, 1000};
enum { INV_NBATCH = sizeof inv_batches / sizeof inv_batches[0] };

typedef enum { M_GEMM, M_ROWS, M_HEADS } inv_mode;

const char *ug_inv_kind_name(ug_inv_kind kind)
{
    return kind == UG_INV_BATCH ? "batch" : kind == UG_INV_CHUNKED ? "chunked" : "splitk";
}

static bool inv_mode_of(const ug_kernel *k, inv_mode *m)
{
    const ug_op_desc *d = ug_op_get(k->op);
    if (!d || !d->shape) return false;
    if (d->shape->layout == UG_LAYOUT_MATMUL) *m = M_GEMM;
    else if (d->shape->layout == UG_LAYOUT_HEADS) *m = M_HEADS;
    else if (d->over_rows) *m = M_ROWS;
    else return false;
    return true;
}

bool ug_inv_applies(const ug_kernel *k, ug_inv_kind kind)
{
    inv_mode m;
    if (!inv_mode_of(k, &m)) return false;
    if (kind == UG_INV_CHUNKED) return m == M_HEADS;
    if (kind == UG_INV_SPLITK) return m == M_GEMM;
    return true;
}

// ----------------------------------------------------------------------------
// inputs: every value from the (seed, case, trial 0) stream, by region and offset, so a row is
// the same values in every configuration

typedef struct inv_ctx {
    ug_t *t;
    const ug_kernel *k;
    const ug_opshape *sh;
    inv_mode mode;
    ug_stream st;
    float *pool; /* INV_POOL values of the stream: the filler rows' (a million values a batch
                    of 1000 attention problems: a lookup, not a Philox block, each) */
    unsigned char *pool_in[UG_FMT_COUNT]; /* the pool stored in each format, made on first use */
    bool as_heads; /* attention: the b problems as b heads of one batch (same buffers) */
} inv_ctx;

enum { R_SHARED = 7, R_FILL = 8 }; /* regions: 0 .. INV_ROWS - 1 the target rows */

static double inv_value(const inv_ctx *x, uint64_t region, uint64_t off)
{
    if (region >= R_FILL) /* the pool at an odd stride: no two neighbours of a row repeat */
        return x->pool[(off * 40503u + region * 7919u) % INV_POOL];
    return ug_rng_unit(&x->st, (region << 40) + off) * 4.0 - 2.0; /* U[-2, 2) */
}

/* count values of (region, off ...) into buf from element at, in format f.  The filler rows
 * (lo 0, scale 1) copy the pool's stored bytes: no rounding a value. */
static void inv_fill(inv_ctx *x, void *buf, ug_fmt f, size_t at, uint64_t region,
                     uint64_t off, size_t count, double lo, double scale)
{
    size_t by = ug_fmt_bytes(f);
    if (region >= R_FILL && lo == 0 && scale == 1 && (unsigned)f < UG_FMT_COUNT) {
        if (!x->pool_in[f]) {
            x->pool_in[f] = ug_xcalloc(INV_POOL, by);
            for (size_t i = 0; i < INV_POOL; i++) ug_fmt_store(f, x->pool_in[f], i, x->pool[i]);
        }
        for (size_t i = 0; i < count; i++)
            memcpy((unsigned char *)buf + (at + i) * by,
                   x->pool_in[f] + ((off + i) * 40503u + region * 7919u) % INV_POOL * by, by);
        return;
    }
    for (size_t i = 0; i < count; i++)
        ug_fmt_store(f, buf, at + i, lo + scale * inv_value(x, region, off + i));
}

/* Where target j sits in a batch of b (one target alone at batch 1): spread, 0, 1, 2 at 3. */
static size_t inv_pos(size_t j, size_t b) { return b == 1 ? 0 : (2 * j + 1) * b / (2 * INV_ROWS); }

// ----------------------------------------------------------------------------
// one call: buffers in the kernel's formats, the outputs of the target rows copied out

typedef struct inv_call {
    ug_call c;
    void *in[UG_MAX_INPUTS];
    void *out[UG_MAX_OUTPUTS];
} inv_call;

static void inv_call_free(inv_call *v)
{
    for (int i = 0; i < UG_MAX_INPUTS; i++) free(v->in[i]);
    for (int j = 0; j < UG_MAX_OUTPUTS; j++) free(v->out[j]);
    memset(v, 0, sizeof *v);
}

static void *inv_in(inv_call *v, int i, ug_fmt f, size_t count)
{
    v->in[i] = ug_xcalloc(count ? count : 1, ug_fmt_bytes(f));
    v->c.in[i] = (ug_arg){v->in[i], f, count};
    return v->in[i];
}

static void inv_out(inv_call *v, int j, ug_fmt f, size_t count)
{
    v->out[j] = ug_xcalloc(count ? count : 1, ug_fmt_bytes(f));
    v->c.out[j] = (ug_arg_out){v->out[j], f, count};
}

static ug_fmt inv_out_fmt(const ug_kernel *k, int j) { return j == 0 ? k->out_fmt : k->out_more_fmt[j - 1]; }

/* Output elements of one row in output j: a GEMM's N; a row operation's out_len of one row;
 * attention's problem: L x dv of O, L of lse. */
static size_t inv_row_out(const inv_ctx *x, const ug_shape *one, int j)
{
    return ug_opshape_out_len(x->sh, one, j);
}

/* The call of a batch check: b rows, row r target target_of[r] (-1: a filler row); *one the
 * shape of one row (what a row's outputs are). */
static void inv_build_batch(inv_ctx *x, inv_call *v, size_t b, const int *target_of, ug_shape *one)
{
    const ug_kernel *k = x->k;
    memset(&v->c, 0, sizeof v->c);
    v->c.op = k->op;
    if (x->mode == M_GEMM) {
        size_t N = INV_GEMM_N, K = INV_GEMM_K;
        *one = (ug_shape){{1, N, K}, 0, 0, 0};
        v->c.shape = (ug_shape){{b, N, K}, 0, 0, 0};
        void *A = inv_in(v, 0, k->in_store[0], b * K), *B = inv_in(v, 1, k->in_store[1], K * N);
        for (size_t r = 0; r < b; r++) {
            int j = target_of[r];
            inv_fill(x, A, k->in_store[0], r * K, j >= 0 ? (uint64_t)j : R_FILL + b, j >= 0 ? 0 : r * K,
                     K, 0, 1);
        }
        inv_fill(x, B, k->in_store[1], 0, R_SHARED, 0, K * N, 0, 1);
        /* an operation that takes only some matrices (the block-scaled GEMM) quantizes them:
         * A's blocks lie within a row, so each row stays a function of its own values */
        const ug_op_desc *d = ug_op_get(k->op);
        if (d && d->shape_inputs && k->in_store[0] == UG_F32 && k->in_store[1] == UG_F32)
            d->shape_inputs((float *)A, (float *)B, &v->c.shape);
    } else if (x->mode == M_ROWS) {
        size_t n = INV_ROW_N;
        *one = (ug_shape){{n}, 0, 0, 0};
        v->c.shape = *one;
        void *X = inv_in(v, 0, k->in_store[0], b * n);
        for (size_t r = 0; r < b; r++) {
            int j = target_of[r];
            inv_fill(x, X, k->in_store[0], r * n, j >= 0 ? (uint64_t)j : R_FILL + b, j >= 0 ? 0 : r * n,
                     n, 0, 1);
        }
        for (int i = 1; i < x->sh->arity && i < UG_MAX_INPUTS; i++) { /* the shared parameters */
            size_t len = ug_opshape_in_len(x->sh, one, i);
            void *P = inv_in(v, i, k->in_store[i], len);
            inv_fill(x, P, k->in_store[i], 0, R_SHARED, (uint64_t)i << 32, len, 1.0, 0.125);
        }
    } else {
        size_t L = 1, S = INV_ATT_S, d = INV_ATT_D, dv = INV_ATT_D;
        *one = (ug_shape){{L, S, d, dv}, 0, 0, 0};
        v->c.shape = x->as_heads ? (ug_shape){{L, S, d, dv}, 1, b, b} : (ug_shape){{L, S, d, dv}, b, 1, 1};
        v->c.opts.scale = 1.0 / sqrt((double)d);
        size_t len[3] = {L * d, S * d, S * dv};
        for (int i = 0; i < 3; i++) {
            void *P = inv_in(v, i, k->in_store[i], b * len[i]);
            for (size_t r = 0; r < b; r++) {
                int j = target_of[r];
                inv_fill(x, P, k->in_store[i], r * len[i], j >= 0 ? (uint64_t)j : R_FILL + b,
                         ((uint64_t)i << 36) + (j >= 0 ? 0 : r * len[i]), len[i], 0, 1);
            }
        }
    }
    int nout = ug_opshape_noutputs(x->sh);
    for (int j = 0; j < nout; j++) inv_out(v, j, inv_out_fmt(k, j), b * inv_row_out(x, one, j));
}

// ----------------------------------------------------------------------------
// comparing rows

/* A row's outputs: each output buffer's slice, one after the other, as stored. */
typedef struct inv_rows {
    size_t per[UG_MAX_OUTPUTS]; /* elements of a row in output j */
    int nout;
    unsigned char *data;        /* rows x (per[0] bytes0 + per[1] bytes1) */
    size_t row_bytes;
} inv_rows;

static size_t inv_off(const inv_ctx *x, const inv_rows *R, int j)
{
    size_t o = 0;
    for (int i = 0; i < j; i++) o += R->per[i] * ug_fmt_bytes(inv_out_fmt(x->k, i));
    return o;
}

/* Row r of the call's outputs into slot s of R. */
static void inv_take(const inv_ctx *x, inv_rows *R, const ug_call *c, size_t r, size_t s)
{
    for (int j = 0; j < R->nout; j++) {
        size_t by = ug_fmt_bytes(inv_out_fmt(x->k, j)), n = R->per[j];
        memcpy(R->data + s * R->row_bytes + inv_off(x, R, j), (const unsigned char *)c->out[j].data + r * n * by,
               n * by);
    }
}

/* The first element of row s where A and B differ: true and its output j, element e and both
 * values; false when the rows are equal. */
static bool inv_diff(const inv_ctx *x, const inv_rows *A, const inv_rows *B, size_t s, int *jo,
                     size_t *eo, double *va, double *vb)
{
    for (int j = 0; j < A->nout; j++) {
        ug_fmt f = inv_out_fmt(x->k, j);
        size_t by = ug_fmt_bytes(f), off = s * A->row_bytes + inv_off(x, A, j);
        for (size_t e = 0; e < A->per[j]; e++)
            if (memcmp(A->data + off + e * by, B->data + off + e * by, by) != 0) {
                *jo = j;
                *eo = e;
                *va = ug_fmt_load(f, A->data + off, e);
                *vb = ug_fmt_load(f, B->data + off, e);
                return true;
            }
    }
    return false;
}

static void inv_rows_init(const inv_ctx *x, inv_rows *R, const ug_shape *one, size_t slots)
{
    memset(R, 0, sizeof *R);
    R->nout = ug_opshape_noutputs(x->sh);
    for (int j = 0; j < R->nout; j++) R->per[j] = inv_row_out(x, one, j);
    R->row_bytes = inv_off(x, R, R->nout);
    R->data = ug_xcalloc(slots ? slots * R->row_bytes : 1, 1);
}

/* What the check found: the first differing row and both configurations. */
typedef struct inv_found {
    bool ran, differs;
    char ref[96], other[96];
    size_t row;
    int out;
    size_t elem;
    double a, b;
    char equal_text[160];
} inv_found;

static int inv_run(const inv_ctx *x, inv_call *v)
{
    return ug_run_kernel(x->t, x->k, &v->c, __FILE__, __LINE__);
}

// ----------------------------------------------------------------------------
// the batch and split-K checks

/* Targets of batch b computed under launch configuration cfg, into R's slots 0 .. INV_ROWS-1. */
static int inv_batch_rows(inv_ctx *x, size_t b, int cfg, inv_rows *R, ug_shape *one)
{
    size_t calls = b == 1 ? INV_ROWS : 1;
    for (size_t call = 0; call < calls; call++) {
        int *of = ug_xcalloc(b, sizeof *of);
        size_t at[INV_ROWS];
        for (size_t r = 0; r < b; r++) of[r] = -1;
        for (size_t j = 0; j < INV_ROWS; j++) {
            if (b == 1 && j != call) continue;
            at[j] = inv_pos(j, b);
            of[at[j]] = (int)j;
        }
        inv_call v;
        memset(&v, 0, sizeof v);
        inv_build_batch(x, &v, b, of, one);
        v.c.launch_config = cfg;
        int rc = inv_run(x, &v);
        if (rc == 0) {
            if (!R->data) inv_rows_init(x, R, one, INV_ROWS);
            for (size_t j = 0; j < INV_ROWS; j++)
                if (b != 1 || j == call) inv_take(x, R, &v.c, at[j], j);
        }
        inv_call_free(&v);
        free(of);
        if (rc != 0) return rc;
    }
    return 0;
}

static void inv_batch(inv_ctx *x, ug_inv_kind kind, int cfg, inv_found *f)
{
    inv_rows ref = {0};
    ug_shape one;
    if (inv_batch_rows(x, 1, 0, &ref, &one) != 0) return;
    snprintf(f->ref, sizeof f->ref, "batch 1");
    size_t list_split[] = {1, 64};
    const size_t *list = kind == UG_INV_SPLITK ? list_split : inv_batches;
    size_t nl = kind == UG_INV_SPLITK ? 2 : INV_NBATCH;
    int lc = kind == UG_INV_SPLITK ? cfg : 0;
    /* attention: one more configuration, the 64 problems as 64 heads of one batch (a kernel
     * that sizes its grid or splits by batch x heads, as FlashAttention-2's heuristic does) */
    bool heads_too = kind == UG_INV_BATCH && x->mode == M_HEADS;
    for (size_t i = kind == UG_INV_SPLITK ? 0 : 1; i < nl + heads_too && !f->differs; i++) {
        inv_rows o = {0};
        x->as_heads = i == nl;
        size_t b = i == nl ? 64 : list[i];
        int rc = inv_batch_rows(x, b, lc, &o, &one);
        x->as_heads = false;
        if (rc != 0) {
            free(o.data);
            free(ref.data);
            return;
        }
        for (size_t j = 0; j < INV_ROWS && !f->differs; j++)
            if (inv_diff(x, &ref, &o, j, &f->out, &f->elem, &f->a, &f->b)) {
                f->differs = true;
                f->row = j;
                snprintf(f->other, sizeof f->other, "%s %zu%s (the %s at %zu)", i == nl ? "heads" : "batch",
                         b, kind == UG_INV_SPLITK ? ", split-K forced" : "",
                         i == nl ? "head" : "row", inv_pos(j, b));
            }
        free(o.data);
    }
    free(ref.data);
    f->ran = true;
    if (kind == UG_INV_SPLITK)
        snprintf(f->equal_text, sizeof f->equal_text, "equal with split-K forced (launch "
                 "configuration %d) at batches 1 and 64", cfg);
    else
        snprintf(f->equal_text, sizeof f->equal_text, "equal at batches 1, 3, 64, 1000%s (%d rows)",
                 heads_too ? " and as 64 heads" : "", INV_ROWS);
}

// ----------------------------------------------------------------------------
// chunked prefill and decode (causal attention)

/* One causal call over queries q0 .. q1 - 1 and keys 0 .. q1 - 1 of the head, outputs of its
 * rows into R's slots q0 ... */
static int inv_chunk(inv_ctx *x, size_t q0, size_t q1, inv_rows *R, ug_shape *one)
{
    const ug_kernel *k = x->k;
    size_t L = q1 - q0, S = q1, d = INV_ATT_D, dv = INV_ATT_D;
    inv_call v;
    memset(&v, 0, sizeof v);
    v.c.op = k->op;
    v.c.shape = (ug_shape){{L, S, d, dv}, 1, 1, 1};
    v.c.opts.scale = 1.0 / sqrt((double)d);
    v.c.opts.flags = UG_OPT_CAUSAL;
    void *Q = inv_in(&v, 0, k->in_store[0], L * d), *K = inv_in(&v, 1, k->in_store[1], S * d),
         *V = inv_in(&v, 2, k->in_store[2], S * dv);
    inv_fill(x, Q, k->in_store[0], 0, 0, q0 * d, L * d, 0, 1);
    inv_fill(x, K, k->in_store[1], 0, 1, 0, S * d, 0, 1);
    inv_fill(x, V, k->in_store[2], 0, 2, 0, S * dv, 0, 1);
    *one = (ug_shape){{1, S, d, dv}, 0, 0, 0}; /* a query row: dv of O, 1 of lse */
    for (int j = 0; j < ug_opshape_noutputs(x->sh); j++)
        inv_out(&v, j, inv_out_fmt(k, j), L * inv_row_out(x, one, j));
    int rc = inv_run(x, &v);
    if (rc == 0) {
        if (!R->data) inv_rows_init(x, R, one, INV_T);
        for (size_t r = 0; r < L; r++) inv_take(x, R, &v.c, r, q0 + r);
    }
    inv_call_free(&v);
    return rc;
}

static void inv_chunked(inv_ctx *x, inv_found *f)
{
    inv_rows ref = {0}, o = {0};
    ug_shape one;
    if (inv_chunk(x, 0, INV_T, &ref, &one) != 0) goto out;
    for (size_t q0 = 0; q0 < INV_T;) {
        size_t q1 = q0 < INV_PREFILL ? q0 + INV_CHUNK : q0 + 1;
        if (inv_chunk(x, q0, q1, &o, &one) != 0) goto out;
        q0 = q1;
    }
    f->ran = true;
    snprintf(f->ref, sizeof f->ref, "one prefill (L = S = %d)", INV_T);
    snprintf(f->equal_text, sizeof f->equal_text, "equal: one prefill of %d and chunks of %d to "
             "%d, then %d decode steps", INV_T, INV_CHUNK, INV_PREFILL, INV_T - INV_PREFILL);
    for (size_t i = 0; i < INV_T && !f->differs; i++)
        if (inv_diff(x, &ref, &o, i, &f->out, &f->elem, &f->a, &f->b)) {
            f->differs = true;
            f->row = i;
            if (i < INV_PREFILL)
                snprintf(f->other, sizeof f->other, "chunk %zu (queries %zu..%zu over %zu keys)",
                         i / INV_CHUNK, i / INV_CHUNK * INV_CHUNK, i / INV_CHUNK * INV_CHUNK + INV_CHUNK - 1,
                         i / INV_CHUNK * INV_CHUNK + INV_CHUNK);
            else
                snprintf(f->other, sizeof f->other, "decode step (query %zu over %zu keys)", i, i + 1);
        }
out:
    free(ref.data);
    free(o.data);
}

// ----------------------------------------------------------------------------
// the point

static const ug_inv_known *inv_known(const ug_kernel *k, ug_inv_kind kind, const ug_inv_known *known,
                                     size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (known[i].kind == kind && ug_kernel_matches(k, known[i].glob)) return &known[i];
    return NULL;
}

void ug_invariance_check(ug_t *t, const ug_kernel *k, ug_inv_kind kind, int launch_config,
                         const ug_inv_known *known, size_t nknown)
{
    inv_ctx x = {t, k, NULL, M_GEMM, {{0, 0}, 0, 0}, NULL, {NULL}, false};
    if (!inv_mode_of(k, &x.mode) || !ug_inv_applies(k, kind)) return;
    x.sh = ug_op_get(k->op)->shape;
    x.st = ug_stream_make(ug_seed(t), ug_hash64(ug_case_name(t), UG_HASH64_INIT), 0);
    const ug_inv_known *kn = inv_known(k, kind, known, nknown);
    float *pool = ug_xcalloc(INV_POOL, sizeof *pool);
    for (size_t i = 0; i < INV_POOL; i++) pool[i] = (float)(ug_rng_unit(&x.st, ((uint64_t)R_FILL << 40) + i) * 4.0 - 2.0);
    x.pool = pool;
    if (k->backend == UG_CUDA && !ug_gpu_available()) return; /* the GPU case skips, saying so */
    ug_point(t, "%s %s %s", ug_inv_kind_name(kind), k->id, k->batch_invariant ? "declared" : "undeclared");
    inv_found f;
    memset(&f, 0, sizeof f);
    if (kind == UG_INV_CHUNKED) inv_chunked(&x, &f);
    else inv_batch(&x, kind, launch_config, &f);
    free(pool);
    for (int i = 0; i < UG_FMT_COUNT; i++) free(x.pool_in[i]);
    if (!f.ran) return; /* unsupported (the point skips, saying why) or failed (said) */
    char what[400];
    if (f.differs)
        snprintf(what, sizeof what, "row %zu differs, first at %s[%zu]: %s %a vs %s %a", f.row,
                 ug_opshape_noutputs(x.sh) > 1 ? x.sh->outs[f.out] : "out", f.elem, f.ref, f.a,
                 f.other, f.b);
    else
        snprintf(what, sizeof what, "%s", f.equal_text);
    ug_note(t, "%s (%s): %s", k->id, k->batch_invariant ? "declared batch-invariant" : "not declared", what);
    if (k->batch_invariant) {
        ug_point_finding(t, "%s", what);
        UG_EXPECT_MSG(!f.differs, "%s is declared batch-invariant, but %s", k->id, what);
    } else if (kn && kn->asserted) {
        ug_point_finding(t, "%s", what); /* the row's note: the cause, then this */
        ug_xfail(t, kn->cause);
        UG_EXPECT_MSG(!f.differs, "%s: %s (expected: %s)", k->id, what, kn->cause);
    } else if (kn && f.differs) {
        /* a library's choice (a hint: measured, not promised either way): its difference is
         * an expected failure naming the cause; its absence on another GPU is no failure */
        ug_point_finding(t, "%s; cause: %s", what, kn->cause);
        ug_xfail(t, kn->cause);
        UG_EXPECT_MSG(!f.differs, "%s: %s (cause: %s)", k->id, what, kn->cause);
    } else {
        ug_point_finding(t, "%s", what);
    }
}

void ug_invariance_all(ug_t *t, int backend, const ug_inv_known *known, size_t nknown,
                       int (*splitk_config)(const ug_kernel *k))
{
    static const ug_inv_kind kinds[] = {UG_INV_BATCH, UG_INV_CHUNKED, UG_INV_SPLITK};
    for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++)
        for (size_t o = 0; o < ug_op_count(); o++) {
            const ug_op_desc *d = ug_op_at(o);
            if (!d || !d->shape) continue;
            for (int f = 0; f < UG_FMT_COUNT; f++) {
                size_t it = 0;
                for (const ug_kernel *k; (k = ug_next_kernel_in(t, &it, d->shape->id, backend, NULL, (ug_fmt)f));) {
                    /* a kernel that declares invariance is held to it, whatever else it
                     * declares (bits that differ from call to call are not invariant either) */
                    if (!ug_inv_applies(k, kinds[q]) || (k->nondeterministic && !k->batch_invariant))
                        continue;
                    int cfg = kinds[q] == UG_INV_SPLITK && splitk_config ? splitk_config(k) : 0;
                    if (kinds[q] == UG_INV_SPLITK && cfg == 0) continue;
                    ug_invariance_check(t, k, kinds[q], cfg, known, nknown);
                }
            }
        }
}
