/*
 * hunt_eval.c - the objective of one candidate input (hunt.h): the kernel run through its
 * launcher, every output compared with the exact oracle, the largest bound ratio and ULP error.
 * Batches run CPU kernels on several threads (each candidate on one thread, so the scores do
 * not depend on the count) and GPU kernels one launch per candidate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "base/sys.h"
#include "harness/search/hunt.h"
#include "oracle/oracle.h"

const ug_op_desc *ug_hunt_op(const ug_hunt_problem *p) { return ug_op_get(p->op); }

ug_shape ug_hunt_shape(const ug_hunt_problem *p)
{
    int nd = ug_opshape_ndims(ug_hunt_op(p)->shape);
    if (nd > 3) return (ug_shape){{p->n, p->gn, p->gk, p->gdv}};
    if (nd > 1) return (ug_shape){{p->n, p->gn, p->gk}};
    return ug_shape_square(p->n);
}

void ug_hunt_set_shape(ug_hunt_problem *p, const ug_shape *s)
{
    p->n = s->dim[0];
    int nd = ug_opshape_ndims(ug_hunt_op(p)->shape);
    if (nd > 1) p->gn = s->dim[1], p->gk = s->dim[2];
    if (nd > 3) p->gdv = s->dim[3];
}

static bool ug_hunt_heads(const ug_hunt_problem *p)
{
    return ug_hunt_op(p)->shape->layout == UG_LAYOUT_HEADS;
}

bool ug_hunt_writable(const ug_hunt_problem *p) { return !ug_hunt_heads(p); }

size_t ug_hunt_nx(const ug_hunt_problem *p)
{
    ug_shape s = ug_hunt_shape(p);
    const ug_op_desc *d = ug_hunt_op(p);
    if (!ug_hunt_heads(p)) return ug_op_in_len(d, &s, 0);
    size_t n = 0; /* every input in x */
    for (int a = 0; a < d->shape->arity; a++) n += ug_op_in_len(d, &s, a);
    return n;
}

size_t ug_hunt_ny(const ug_hunt_problem *p)
{
    ug_shape s = ug_hunt_shape(p);
    if (ug_hunt_heads(p)) return 0;
    return ug_hunt_op(p)->shape->arity > 1 ? ug_op_in_len(ug_hunt_op(p), &s, 1) : 0;
}

/* An operation laid out as heads (attention): the inputs Q, K, V one after the other in x,
 * each rounded to the kernel's storage format (bfloat16 kernels: the values they read, which
 * the reference then takes), the outputs in their buffers' formats, every output graded with
 * the descriptor's bound_at.  Cost: one kernel run and the reference (~ L S d). */
static int ug_hunt_eval_heads(const ug_hunt_problem *p, const float *x, ug_hunt_score *s,
                              char *err, size_t errlen)
{
    const ug_op_desc *d = ug_hunt_op(p);
    const ug_kernel *k = p->k;
    ug_shape shape = ug_hunt_shape(p);
    int arity = d->shape->arity, nout = ug_opshape_noutputs(d->shape);
    size_t outs = ug_op_outputs(d, &shape), off = 0, oo = 0, first[UG_MAX_OUTPUTS] = {0};
    float *vals[UG_MAX_INPUTS] = {NULL};
    void *store[UG_MAX_INPUTS] = {NULL}, *obuf[UG_MAX_OUTPUTS] = {NULL};
    ug_exact *ex = ug_xmalloc((outs ? outs : 1) * sizeof *ex);
    int rc = 0;
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = p->op;
    c.shape = shape;
    c.opts = p->opts;
    for (int a = 0; a < arity; a++) {
        size_t n = ug_op_in_len(d, &shape, a);
        ug_fmt f = k->in_store[a];
        vals[a] = ug_xmalloc((n ? n : 1) * sizeof(float));
        store[a] = f == UG_F32 ? (void *)vals[a] : ug_xmalloc((n ? n : 1) * ug_fmt_bytes(f));
        for (size_t e = 0; e < n; e++) {
            vals[a][e] = f == UG_F32 ? x[off + e] : (float)ug_fmt_round(f, x[off + e], UG_RN);
            if (f != UG_F32) ug_fmt_store(f, store[a], e, vals[a][e]);
        }
        off += n;
        c.in[a] = (ug_arg){store[a], f, n};
    }
    for (int j = 0; j < nout; j++) {
        ug_fmt f = j == 0 ? k->out_fmt : k->out_more_fmt[j - 1];
        size_t n = ug_opshape_out_len(d->shape, &shape, j);
        obuf[j] = ug_xmalloc((n ? n : 1) * ug_fmt_bytes(f));
        c.out[j] = (ug_arg_out){obuf[j], f, n};
        first[j] = oo;
        oo += n;
    }
    *s = (ug_hunt_score){false, -1, -1, -1};
    if (ug_kernel_run_fenced(k, &c, UG_FENCE_END) != 0) {
        if (err) snprintf(err, errlen, "%s: %s", k->id, c.err[0] ? c.err : "failed");
        s->failed = true;
        rc = -1;
        goto done;
    }
    d->exact_in((const float *const *)vals, &shape, &p->opts, ex);
    double ratio = 0, ulp = 0;
    size_t unscored = 0;
    for (size_t e = 0; e < outs; e++) {
        int j = 0;
        while (j + 1 < nout && e >= first[j + 1]) j++;
        double got = ug_fmt_load(c.out[j].fmt, obuf[j], e - first[j]);
        /* outside the analysed domain (a row with no key under the mask: an exact NaN): not
         * scored, counted; the other outputs still score the input */
        if (ex[e].cls != UG_X_FINITE) {
            unscored++;
            continue;
        }
        ug_error er = ug_error_fmt(&ex[e], c.out[j].fmt, got);
        double bound = d->bound_at(k, &shape, &p->opts, ex, e);
        double r = !isfinite(got) ? INFINITY : er.abs == 0 ? 0
                   : bound > 0 && isfinite(bound) ? er.abs / bound : 0;
        if (r > ratio) ratio = r;
        if (!(er.ulp <= ulp)) ulp = er.ulp;
    }
    if (unscored < outs)
        *s = (ug_hunt_score){true, p->objective == UG_HUNT_ULP ? ulp : ratio, ratio, ulp};
    s->unscored = unscored;
done:
    for (int a = 0; a < arity; a++) {
        if (store[a] != vals[a]) free(store[a]);
        free(vals[a]);
    }
    for (int j = 0; j < nout; j++) free(obuf[j]);
    free(ex);
    return rc;
}

static size_t ug_hunt_outputs(const ug_hunt_problem *p)
{
    ug_shape s = ug_hunt_shape(p);
    return ug_op_outputs(ug_hunt_op(p), &s);
}

int ug_hunt_eval(const ug_hunt_problem *p, const float *x, const float *y, ug_hunt_score *s,
                 char *err, size_t errlen)
{
    const ug_op_desc *d = ug_hunt_op(p);
    if (ug_hunt_heads(p)) return ug_hunt_eval_heads(p, x, s, err, errlen);
    ug_shape shape = ug_hunt_shape(p);
    size_t outs = ug_hunt_outputs(p), nterms = ug_op_terms(d, &shape);
    float one, *out = outs == 1 ? &one : ug_xmalloc(outs * sizeof *out);
    ug_exact e1, *ex = outs == 1 ? &e1 : ug_xmalloc(outs * sizeof *ex);
    int rc = 0;
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = p->op;
    c.shape.dim[0] = p->n;
    c.shape.dim[1] = p->gn;
    c.shape.dim[2] = p->gk;
    ug_call_set_f32(&c, x, y, out);
    *s = (ug_hunt_score){false, -1, -1, -1};
    if (ug_kernel_run_fenced(p->k, &c, UG_FENCE_END) != 0) {
        if (err) snprintf(err, errlen, "%s: %s", p->k->id, c.err[0] ? c.err : "failed");
        s->failed = true;
        rc = -1;
        goto done;
    }
    d->exact(x, y, &shape, ex);
    double ratio = 0, ulp = 0;
    size_t unscored = 0;
    for (size_t i = 0; i < outs; i++) {
        /* outside the analysed domain (an overflow, a NaN exactly): not scored, counted */
        if (ex[i].cls != UG_X_FINITE || !isfinite(ex[i].rn)) {
            unscored++;
            continue;
        }
        ug_error er = ug_error_of(&ex[i], out[i]);
        double bound = ug_kernel_bound(p->k, nterms, ex[i].sum_abs, fabs(ex[i].hi));
        /* an output not finite where the exact value is: the breach itself */
        double r = !isfinite(out[i]) ? INFINITY : er.abs == 0 ? 0
                   : bound > 0 && isfinite(bound) ? er.abs / bound : 0;
        if (r > ratio) ratio = r;
        if (!(er.ulp <= ulp)) ulp = er.ulp;
    }
    if (unscored < outs)
        *s = (ug_hunt_score){true, p->objective == UG_HUNT_ULP ? ulp : ratio, ratio, ulp};
    s->unscored = unscored;
done:
    if (outs != 1) {
        free(out);
        free(ex);
    }
    return rc;
}

typedef struct {
    const ug_hunt_problem *p;
    float *const *xs, *const *ys;
    ug_hunt_score *scores;
    double deadline;
} ug_hunt_batch;

static void ug_hunt_batch_range(void *ctx, size_t lo, size_t hi)
{
    ug_hunt_batch *b = ctx;
    for (size_t i = lo; i < hi; i++) {
        /* past the deadline nothing more starts: a batch overshoots a time budget by one
         * evaluation a thread at most */
        if (b->deadline > 0 && ug_now_s() >= b->deadline) {
            b->scores[i] = (ug_hunt_score){false, -1, -1, -1, .skipped = true};
            continue;
        }
        /* a mutated candidate projected back onto the operation's inputs, in place (the
         * block-scaled GEMM: quantized with its format's rule), so that the population holds
         * inputs the kernels take */
        const ug_op_desc *d = ug_hunt_op(b->p);
        if (d->shape_inputs && b->ys) {
            ug_shape shape = ug_hunt_shape(b->p);
            d->shape_inputs(b->xs[i], b->ys[i], &shape);
        }
        ug_hunt_eval(b->p, b->xs[i], b->ys ? b->ys[i] : NULL, &b->scores[i], NULL, 0);
    }
}

void ug_hunt_eval_batch(const ug_hunt_problem *p, float *const *xs, float *const *ys,
                        size_t count, ug_hunt_score *scores, double deadline)
{
    ug_hunt_batch b = {p, xs, ys, scores, deadline};
    if (p->k->backend == UG_CUDA)
        ug_hunt_batch_range(&b, 0, count); /* one launch per candidate, in order */
    else
        ug_par_range(count, 1, 0, ug_hunt_batch_range, &b);
}
