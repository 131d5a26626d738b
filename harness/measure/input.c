/*
 * input.c - a case's inputs: every trial of one size generated once (a pure function of seed,
 * case, distribution, trial and element), with the exact results and condition numbers the
 * oracle gives for them (computed once, shared by every kernel measured on them).
 *
 * Which oracle: the one --oracle names; without it, the GPU oracle (oracle/gpu.h) for the
 * inputs of GPU cases when it can answer, the fast CPU oracle otherwise.  The GPU oracle's
 * results are cross-checked on a random sample (ug_input_cross_check) against the fast oracle;
 * a difference, or a GPU oracle error, fails the case there, naming the element.
 */
#include "harness/measure/input.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/measure/mctx.h"
#include "oracle/gpu.h"
#include "ops/op.h"
#include "harness/measure/prof.h"
#include "harness/measure/run_limits.h"
#include "harness/inputs/rng.h"

static void ug_track_input(ug_t *t, ug_input *in)
{
    ug_mctx *m = ug_mctx_of(t);
    if (m->n_inputs == m->cap_inputs) {
        m->cap_inputs = m->cap_inputs ? 2 * m->cap_inputs : 8;
        m->inputs = ug_xrealloc(m->inputs, m->cap_inputs * sizeof *m->inputs);
    }
    m->inputs[m->n_inputs++] = in;
}

void ug_input_release(ug_input *in)
{
    if (!in) return;
    int made = in->trials;
    for (int i = 0; i < made; i++) {
        if (in->x) free(in->x[i]);
        if (in->y) free(in->y[i]);
        if (in->exact) free(in->exact[i]);
        for (int a = 0; a < UG_MAX_INPUTS - 2; a++)
            if (in->more[a]) free(in->more[a][i]);
        for (int a = 0; a < UG_MAX_INPUTS; a++)
            if (in->data[a]) free(in->data[a][i]);
    }
    for (int a = 0; a < UG_MAX_INPUTS; a++) free(in->data[a]);
    for (int a = 0; a < UG_MAX_INPUTS - 2; a++) free(in->more[a]);
    free(in->x);
    free(in->y);
    free(in->exact);
    free(in->kappa);
    free(in);
}

void ug_input_free(ug_t *t, ug_input *in)
{
    ug_mctx *m = ug_mctx_of(t);
    if (ug_m_open_result(t) && ug_m_open_result(t)->in == in) ug_m_close(t);
    for (size_t i = 0; i < m->n_inputs; i++)
        if (m->inputs[i] == in) {
            m->inputs[i] = m->inputs[--m->n_inputs];
            break;
        }
    /* results measured on it keep a pointer: detach them */
    for (size_t i = 0; i < m->n_results; i++)
        if (m->results[i]->in == in) m->results[i]->in = NULL;
    ug_input_release(in);
}

const ug_op_desc *ug_input_op(const ug_input *in) { return in->desc; }

ug_shape ug_input_shape(const ug_input *in)
{
    return in->shape;
}

size_t ug_input_elements(const ug_input *in)
{
    ug_shape s = ug_input_shape(in);
    return ug_op_outputs(ug_input_op(in), &s);
}

/* The condition number of trial i: max over its elements of sum_abs / |s|. */
static void ug_input_kappa(ug_input *in, int i)
{
    size_t m = ug_input_elements(in);
    double kappa = 0;
    for (size_t e = 0; e < m; e++) {
        const ug_exact *x = &in->exact[i][e];
        double k = x->cls != UG_X_FINITE ? NAN : x->hi != 0 ? x->sum_abs / fabs(x->hi)
                                              : x->sum_abs > 0 ? INFINITY : 1;
        if (k > kappa) kappa = k;
    }
    in->kappa[i] = kappa;
}

/* ---- the GPU oracle ------------------------------------------------------------------------- */

/* Sampled per input: this many sum or dot trials (all when fewer), this many elements of every
 * GEMM trial. */
enum { UG_XCHECK_TRIALS = 8, UG_XCHECK_ELEMENTS = 64 };

static ug_gpu_oracle_tally ug_gpu_tally;

ug_gpu_oracle_tally ug_gpu_oracle_counts(void) { return ug_gpu_tally; }

/* With no --oracle, the inputs the GPU oracle answers sooner than the fast CPU oracle: the
 * operation's rule (ops/gemm.c: GEMMs of >= 2^27 multiply-adds; sums and dots never). */
bool ug_gpu_oracle_pays(ug_op op, const ug_shape *s)
{
    const ug_op_desc *d = ug_op_get(op);
    return d && d->exact_gpu && d->gpu_oracle_pays && d->gpu_oracle_pays(s);
}

/* An operation the GPU oracle computes, and: --oracle gpu; or no --oracle, a GPU case, a GPU
 * oracle that can answer, and an input where it pays (above). */
static bool ug_input_uses_gpu(const ug_t *t, const ug_input *in)
{
    static int usable = -1;
    if (!ug_input_op(in)->exact_gpu) return false; /* the GPU oracle does not compute it */
    if (in->fmt[0] == UG_F64) return false;        /* nor binary64 data */
    if (ug_mctx_of(t)->oracle == UG_ORACLE_GPU) return true;
    if (ug_mctx_of(t)->oracle_set || !ug_mctx_of(t)->gpu) return false;
    if (!ug_gpu_oracle_pays(in->op, &in->shape)) return false;
    if (!ug_gpu_available()) return false;
    if (usable < 0) usable = ug_gpu_oracle_available(NULL, 0);
    return usable == 1;
}

/* A GPU result against the fast oracle's: a difference fails the case here. */
static void ug_cross_compare(ug_t *t, const ug_input *in, int i, size_t e, const ug_exact *g,
                             const ug_exact *f)
{
    ug_gpu_tally.checked++;
    if (ug_exact_equal(g, f)) return;
    ug_gpu_tally.differ++;
    bool matrix = ug_input_op(in)->shape->out_kind == UG_OUT_MATRIX;
    size_t row = matrix ? e / in->shape.dim[1] : 0, col = matrix ? e % in->shape.dim[1] : 0;
    ug_m_fail(t, __FILE__, __LINE__, "GPU oracle cross-check",
              "%s %s n=%zu trial %d element %zu (row %zu, column %zu): %s oracle hi=%a lo=%a "
              "rn=%a rd=%a cls=%d sum_abs=%a, fast oracle hi=%a lo=%a rn=%a rd=%a cls=%d "
              "sum_abs=%a", ug_op_name(in->op), in->label, in->shape.dim[0], in->first_trial + i, e, row,
              col, ug_gpu_oracle()->name, g->hi, g->lo, (double)g->rn, (double)g->rd, g->cls,
              g->sum_abs, f->hi, f->lo, (double)f->rn, (double)f->rd, f->cls, f->sum_abs);
    ug_m_rerun(t, NULL, in->first_trial + i);
    ug_m_leave(t);
}

/* A random sample of the GPU oracle's results recomputed by the fast CPU oracle (the sample is
 * a function of the seed and the input's stream: reruns check the same elements), or every
 * result with --oracle-check all. */
static void ug_input_cross_check(ug_t *t, ug_input *in)
{
    ug_stream s = ug_stream_make(ug_mctx_of(t)->seed, in->stream_id ^ 0x6a09e667f3bcc909ull, 0);
    uint64_t draw = 0;
    bool all = ug_mctx_of(t)->oracle_check_all;
    ug_exact f;
    const ug_op_desc *d = ug_input_op(in);
    ug_shape sh = ug_input_shape(in);
    if (d->shape->out_kind == UG_OUT_SCALAR) {
        bool every = all || in->trials <= UG_XCHECK_TRIALS;
        int checks = every ? in->trials : UG_XCHECK_TRIALS;
        for (int c = 0; c < checks; c++) {
            int i = every ? c : (int)(ug_rng_u64(&s, draw++) % (uint64_t)in->trials);
            d->exact_fast(in->x[i], in->y[i], &sh, &f);
            ug_cross_compare(t, in, i, 0, &in->exact[i][0], &f);
        }
        return;
    }
    size_t m = ug_op_outputs(d, &sh);
    if (all) { /* the fast oracle's every output (multithreaded), every element compared */
        ug_exact *F = ug_xmalloc((m ? m : 1) * sizeof *F);
        for (int i = 0; i < in->trials; i++) {
            d->exact_fast(in->x[i], in->y[i], &sh, F);
            for (size_t e = 0; e < m; e++)
                if (!ug_exact_equal(&in->exact[i][e], &F[e])) {
                    ug_exact fe = F[e];
                    free(F);
                    ug_cross_compare(t, in, i, e, &in->exact[i][e], &fe);
                }
            ug_gpu_tally.checked += m;
        }
        free(F);
        return;
    }
    for (int i = 0; i < in->trials; i++)
        for (size_t c = 0; c < (m < UG_XCHECK_ELEMENTS ? m : UG_XCHECK_ELEMENTS); c++) {
            size_t e = m <= UG_XCHECK_ELEMENTS ? c : (size_t)(ug_rng_u64(&s, draw++) % m);
            d->exact_one_fast(in->x[i], in->y[i], &sh, e, &f);
            ug_cross_compare(t, in, i, e, &in->exact[i][e], &f);
        }
}

/* Every trial's exact results from the GPU oracle, as the operation calls it (one batched call
 * for sums and dots, one call per GEMM trial).  An error fails the case. */
static void ug_input_exact_gpu(ug_t *t, ug_input *in)
{
    size_t m = ug_input_elements(in), nt = (size_t)in->trials;
    char err[400] = "";
    ug_shape sh = ug_input_shape(in);
    int rc = ug_input_op(in)->exact_gpu(in->x, in->y, nt, &sh, in->exact, err, sizeof err);
    if (rc != 0) {
        ug_m_fail(t, __FILE__, __LINE__, "ug_input_make", "%s, n=%zu: %s", in->label, in->shape.dim[0],
                  err);
        ug_m_leave(t);
    }
    ug_gpu_tally.results += nt * m;
    ug_gpu_tally.impl = ug_gpu_oracle()->name;
    ug_input_cross_check(t, in);
}

/* Exact results and condition numbers of every trial (the oracle's cost lives here, once). */
static void ug_input_exact(ug_t *t, ug_input *in)
{
    size_t m = ug_input_elements(in);
    double t0 = ug_prof_now();
    for (int i = 0; i < in->trials; i++) in->exact[i] = ug_xmalloc(m * sizeof(ug_exact));
    if (ug_input_uses_gpu(t, in)) {
        ug_input_exact_gpu(t, in);
    } else {
        const ug_op_desc *d = ug_input_op(in);
        ug_shape sh = ug_input_shape(in);
        if (d->exact_in) { /* several inputs and the call's options (attention) */
            for (int i = 0; i < in->trials; i++) {
                const float *v[UG_MAX_INPUTS] = {NULL};
                for (int a = 0; a < d->shape->arity; a++) v[a] = ug_input_vals(in, a, i);
                d->exact_in(v, &sh, &in->opts, in->exact[i]);
            }
        } else if (in->fmt[0] == UG_F64) /* ug_input_fmt_check made sure exact64 is there */
            for (int i = 0; i < in->trials; i++)
                d->exact64(in->data[0][i], in->data[1] ? in->data[1][i] : NULL, &sh, in->exact[i]);
        else
            for (int i = 0; i < in->trials; i++) d->exact(in->x[i], in->y[i], &sh, in->exact[i]);
    }
    for (int i = 0; i < in->trials; i++) ug_input_kappa(in, i);
    ug_prof_add(UG_PH_ORACLE, t0, NULL);
}

/* The descriptor of op, looked up once for the input's life (ug_input.desc, passed on from
 * here); an operation no one registered fails the case (a case's or a corpus file's mistake),
 * before anything asks its descriptor. */
static const ug_op_desc *ug_input_check_op(ug_t *t, ug_op op, bool heads)
{
    const ug_op_desc *d = ug_op_get(op);
    if (d && (heads ? d->exact_in != NULL : d->exact != NULL)) return d;
    if (d && heads)
        ug_m_fail(t, __FILE__, __LINE__, "ug_input_make_heads",
                  "operation %s is not one of inputs laid out as heads (ops/op.h: exact_in): "
                  "ug_input_make draws its inputs", d->shape->name);
    else if (d) /* an operation of more inputs than x and y (attention): ops/op.h's exact_in */
        ug_m_fail(t, __FILE__, __LINE__, "ug_input_make",
                  "operation %s has %d inputs laid out as heads, and options: its inputs "
                  "come from ug_input_make_heads (harness/run/ug.h; cases/attention.c)",
                  d->shape->name, d->shape->arity);
    else
        ug_m_fail(t, __FILE__, __LINE__, "ug_input_make",
                  "operation id %d is not registered (ops/op.h: ug_op_register)", op);
    ug_m_leave(t);
    return NULL;
}

static ug_input *ug_input_alloc(ug_t *t, const ug_op_desc *od, const char *label, size_t n,
                                int trials)
{
    ug_input *in = ug_xcalloc(1, sizeof *in);
    in->desc = od;
    in->op = od->shape->id;
    in->shape.dim[0] = n;
    snprintf(in->label, sizeof in->label, "%s", label);
    in->first_trial = 0;
    in->trials = trials = ug_limits_trials(trials);
    if (ug_mctx_of(t)->trial >= trials) {
        char why[160];
        snprintf(why, sizeof why, "--trial %ld: this input has %d trial(s)", ug_mctx_of(t)->trial, trials);
        free(in);
        ug_m_skip(t, why);
    }
    if (ug_mctx_of(t)->trial >= 0) {
        in->first_trial = (int)ug_mctx_of(t)->trial;
        in->trials = 1;
    }
    in->x = ug_xcalloc((size_t)in->trials, sizeof(float *));
    in->y = ug_xcalloc((size_t)in->trials, sizeof(float *));
    for (int a = 0; a < UG_MAX_INPUTS; a++) in->fmt[a] = UG_F32; /* the generators write floats */
    in->exact = ug_xcalloc((size_t)in->trials, sizeof(ug_exact *));
    in->kappa = ug_xcalloc((size_t)in->trials, sizeof(double));
    in->stream_id = ug_hash64(label, ug_hash64(ug_mctx_of(t)->name, UG_HASH64_INIT));
    static uint64_t serial;
    in->serial = ++serial; /* the run loop is one thread */
    ug_track_input(t, in);
    return in;
}

/* A distribution drawn in a format (ug_in_format): the operation must take it (a binary64
 * path, exact64, for binary64 data).  Else the case fails, naming the distribution. */
static void ug_input_fmt_check(ug_t *t, const ug_op_desc *od, const ug_dist *d,
                               const char *label)
{
    if (d->fmt == UG_F64 && !od->exact64) {
        ug_m_fail(t, __FILE__, __LINE__, "ug_input_make", "%s: %s has no binary64 oracle "
                  "(ops/op.h: exact64)", label, od->shape->name);
        ug_m_leave(t);
    }
}

/* Trial i of in drawn in d->fmt (harness/inputs/fmt_dist.c): binary64 kept as drawn (data), a
 * 16- or 8-bit format encoded (data) and as floats (x, y: exact).  0, or -1 with err set. */
static int ug_input_fill_fmt(ug_t *t, ug_input *in, const ug_dist *d, const ug_shape *sh, int i,
                             uint32_t trial, char *err, size_t errlen)
{
    const ug_op_desc *od = ug_input_op(in);
    size_t len[2] = {ug_op_in_len(od, sh, 0), od->shape->arity > 1 ? ug_op_in_len(od, sh, 1) : 0};
    double *v[2] = {ug_xmalloc((len[0] ? len[0] : 1) * sizeof(double)),
                    od->shape->arity > 1 ? ug_xmalloc((len[1] ? len[1] : 1) * sizeof(double)) : NULL};
    int rc = ug_dist_fill_fmt(d, od, ug_mctx_of(t)->seed, in->stream_id, trial, v[0], v[1], sh, err,
                              errlen);
    float **f32[2] = {in->x, in->y};
    for (int a = 0; a < od->shape->arity; a++) {
        size_t n = len[a]; /* a vector's n, a GEMM's M*K or K*N */
        if (d->fmt == UG_F64) {
            in->data[a][i] = v[a];
            continue;
        }
        in->data[a][i] = ug_xmalloc((n ? n : 1) * ug_fmt_bytes(d->fmt));
        f32[a][i] = ug_xmalloc((n ? n : 1) * sizeof(float));
        for (size_t e = 0; e < n && rc == 0; e++) {
            ug_fmt_store(d->fmt, in->data[a][i], e, v[a][e]); /* exact: v[a][e] is in fmt */
            f32[a][i][e] = (float)v[a][e];                     /* exact: fmt embeds in binary32 */
        }
        free(v[a]);
    }
    return rc;
}

static ug_input *ug_input_generate(ug_t *t, ug_op op, const ug_dist *d, const ug_shape *s,
                                   int trials)
{
    char label[160], err[256];
    ug_dist_describe(d, label, sizeof label);
    if (trials < 1) trials = 1;
    ug_m_check_stop(t);
    const ug_op_desc *od = ug_input_check_op(t, op, false);
    ug_limits_input(t, od, label, s, ug_m_trials(t, trials)); /* before it is allocated */
    if (d->fmt != UG_F32) ug_input_fmt_check(t, od, d, label);
    ug_input *in = ug_input_alloc(t, od, label, s->dim[0], ug_m_trials(t, trials));
    double t0 = ug_prof_now();
    in->dist = *d;
    if (d->fmt != UG_F32)
        for (int a = 0; a < od->shape->arity; a++) {
            in->fmt[a] = d->fmt;
            in->data[a] = ug_xcalloc((size_t)in->trials, sizeof(void *));
        }
    in->shape = *s;
    ug_shape sh = *s;
    for (int i = 0; i < in->trials; i++) {
        uint32_t trial = (uint32_t)(in->first_trial + i);
        ug_m_check_stop(t); /* a signal: the input is released with the case */
        err[0] = 0;
        int rc;
        if (d->fmt != UG_F32) {
            rc = ug_input_fill_fmt(t, in, d, &sh, i, trial, err, sizeof err);
        } else {
            in->x[i] = ug_xmalloc(ug_op_in_len(od, &sh, 0) * sizeof(float));
            if (od->shape->arity > 1) in->y[i] = ug_xmalloc(ug_op_in_len(od, &sh, 1) * sizeof(float));
            rc = ug_dist_fill_op(d, od, ug_mctx_of(t)->seed, in->stream_id, trial, in->x[i], in->y[i],
                                 &sh, err, sizeof err);
        }
        if (rc != 0) {
            ug_m_fail(t, __FILE__, __LINE__, "ug_input_make", "%s, n=%zu: %s", label, s->dim[0], err);
            ug_m_leave(t);
        }
    }
    ug_prof_add(UG_PH_INPUT, t0, NULL);
    ug_input_exact(t, in);
    return in;
}

ug_input *ug_input_make(ug_t *t, ug_op op, const ug_dist *d, size_t n, int trials)
{
    return ug_input_generate(t, op, d, &(ug_shape){{n, n, n}}, trials);
}

ug_input *ug_input_make_shape(ug_t *t, ug_op op, const ug_dist *d, const ug_shape *s, int trials)
{
    return ug_input_generate(t, op, d, s, trials);
}

ug_input *ug_input_from_shape(ug_t *t, ug_op op, const char *label, const float *x,
                              const float *y, const ug_shape *s)
{
    const ug_op_desc *d = ug_input_check_op(t, op, false);
    ug_input *in = ug_input_alloc(t, d, label, s->dim[0], 1);
    in->first_trial = 0;
    in->trials = 1;
    in->shape = *s; /* a vector's n in dims 1 and 2 too (ug_shape_square's) */
    for (int i = ug_opshape_ndims(d->shape); i < 3; i++) in->shape.dim[i] = s->dim[0];
    const float *src[2] = {x, y};
    float **dst[2] = {&in->x[0], &in->y[0]};
    for (int i = 0; i < d->shape->arity; i++) {
        size_t len = ug_op_in_len(d, s, i);
        *dst[i] = ug_xmalloc((len ? len : 1) * sizeof(float));
        memcpy(*dst[i], src[i], len * sizeof(float));
    }
    ug_input_exact(t, in);
    return in;
}

/* A binary64 input of one trial from the caller's data (a "# format: f64" corpus file): the
 * vectors copied into data[] as binary64 (fmt UG_F64, no binary32 copies, as a binary64 draw
 * has), the exact results from the operation's binary64 oracle.  The caller made sure the
 * operation has one (exact64) and is a vector one. */
ug_input *ug_input_from_f64(ug_t *t, ug_op op, const char *label, const double *x,
                            const double *y, size_t n)
{
    const ug_op_desc *d = ug_input_check_op(t, op, false);
    ug_input *in = ug_input_alloc(t, d, label, n, 1);
    in->first_trial = 0;
    in->trials = 1;
    in->shape = ug_shape_square(n);
    const double *src[2] = {x, y};
    for (int a = 0; a < d->shape->arity; a++) {
        in->fmt[a] = UG_F64;
        in->data[a] = ug_xcalloc(1, sizeof(void *));
        in->data[a][0] = ug_xmalloc((n ? n : 1) * sizeof(double));
        memcpy(in->data[a][0], src[a], n * sizeof(double));
    }
    ug_input_exact(t, in);
    return in;
}

void ug_input_set_format(ug_input *in, ug_fmt f)
{
    const ug_op_desc *d = ug_input_op(in);
    if (f == UG_F32 || ug_fmt_bytes(f) > sizeof(float)) return; /* binary32: x, y already */
    ug_shape sh = ug_input_shape(in);
    for (int a = 0; a < d->shape->arity; a++) {
        size_t len = ug_op_in_len(d, &sh, a);
        in->fmt[a] = f;
        in->data[a] = ug_xcalloc((size_t)in->trials, sizeof(void *));
        for (int i = 0; i < in->trials; i++) {
            const float *src = ug_input_vals(in, a, i);
            in->data[a][i] = ug_xmalloc((len ? len : 1) * ug_fmt_bytes(f));
            for (size_t e = 0; e < len; e++) ug_fmt_store(f, in->data[a][i], e, src[e]);
        }
    }
}

ug_input *ug_input_from_data(ug_t *t, ug_op op, const char *label, const float *x, const float *y,
                             size_t n)
{
    ug_shape s = ug_shape_square(n);
    return ug_input_from_shape(t, op, label, x, y, &s);
}

// ---- inputs laid out as heads (attention) ------------------------------------------------

/* The label of a heads input: d's description, the tweak's name, the format and options (a
 * scale other than the default as the binary32 value the call carries). */
static void ug_heads_label(char *buf, size_t len, const ug_dist *d, const ug_input_tweak *tw,
                           const ug_opts *o)
{
    char dd[120], sc[40] = "";
    ug_dist_describe(d, dd, sizeof dd);
    ug_fmt f = tw ? tw->round_to : UG_F32;
    if (o && o->scale > 0) snprintf(sc, sizeof sc, " scale %.9g", (double)(float)o->scale);
    snprintf(buf, len, "%s%s%s%s%s%s%s", dd, tw && tw->name ? " " : "", tw && tw->name ? tw->name : "",
             f != UG_F32 && f ? " " : "", f != UG_F32 && f ? ug_fmt_name(f) : "",
             o && (o->flags & UG_OPT_CAUSAL) ? " causal" : "", sc);
}

ug_input *ug_input_make_heads(ug_t *t, ug_op op, const ug_dist *d, const ug_shape *s,
                              const ug_opts *o, int trials, const ug_input_tweak *tw)
{
    char label[160], err[256] = "";
    ug_m_check_stop(t);
    const ug_op_desc *od = ug_input_check_op(t, op, true);
    if (od->shape->layout != UG_LAYOUT_HEADS || od->shape->arity > UG_MAX_INPUTS) {
        ug_m_fail(t, __FILE__, __LINE__, "ug_input_make_heads", "operation %s: its inputs "
                  "are not laid out as heads", od->shape->name);
        ug_m_leave(t);
    }
    /* the values' stream: of the distribution and the tweak, not of the format or the
     * options, so the bfloat16 input of a kind holds the binary32 one's values rounded */
    char base[160];
    ug_heads_label(base, sizeof base, d, &(ug_input_tweak){tw ? tw->name : NULL, NULL, UG_F32}, NULL);
    ug_heads_label(label, sizeof label, d, tw, o);
    ug_input *in = ug_input_alloc(t, od, label, s->dim[0], ug_m_trials(t, trials < 1 ? 1 : trials));
    in->stream_id = ug_hash64(base, ug_hash64(ug_mctx_of(t)->name, UG_HASH64_INIT));
    double t0 = ug_prof_now();
    in->dist = *d;
    in->shape = *s;
    in->opts = o ? *o : (ug_opts){0};
    int arity = od->shape->arity;
    ug_dist d32 = *d; /* drawn in binary32, rounded to round_to below */
    d32.fmt = UG_F32;
    for (int a = 2; a < arity; a++) in->more[a - 2] = ug_xcalloc((size_t)in->trials, sizeof(float *));
    /* a distribution drawn in a 16- or 8-bit format: its binary32 draw rounded to it */
    ug_fmt round_to = tw && tw->round_to ? tw->round_to : d->fmt;
    if (ug_fmt_bytes(round_to) > sizeof(float)) {
        ug_m_fail(t, __FILE__, __LINE__, "ug_input_make_heads", "%s: %s takes binary32 "
                  "data or narrower, not %s", label, od->shape->name, ug_fmt_name(round_to));
        ug_m_leave(t);
    }
    for (int i = 0; i < in->trials; i++) {
        uint32_t trial = (uint32_t)(in->first_trial + i);
        ug_m_check_stop(t);
        for (int a = 0; a < arity; a++) {
            size_t n = ug_op_in_len(od, s, a);
            float *v = ug_xmalloc((n ? n : 1) * sizeof *v);
            float **slot = a == 0 ? &in->x[i] : a == 1 ? &in->y[i] : &in->more[a - 2][i];
            *slot = v;
            /* input a on a stream of its own: Q, K and V independent, and any input of the
             * same (seed, case, label, trial) the same values on every machine */
            if (ug_dist_fill_sum(&d32, ug_mctx_of(t)->seed, in->stream_id ^ (0x9e3779b97f4a7c15ull * (a + 1)),
                                 trial, v, n, err, sizeof err) != 0) {
                ug_m_fail(t, __FILE__, __LINE__, "ug_input_make_heads", "%s, input %s: %s",
                          label, od->shape->roles[a], err);
                ug_m_leave(t);
            }
            if (tw && tw->fn) tw->fn(v, n, a, s, &in->opts);
            if (round_to != UG_F32)
                for (size_t e = 0; e < n; e++) v[e] = (float)ug_fmt_round(round_to, v[e], UG_RN);
        }
    }
    ug_prof_add(UG_PH_INPUT, t0, NULL);
    if (round_to != UG_F32) ug_input_set_format(in, round_to);
    ug_input_exact(t, in);
    return in;
}
