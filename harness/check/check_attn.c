/*
 * check_attn.c - grading an attention output computed elsewhere (check.h: ug_check_attention):
 * PyTorch's scaled_dot_product_attention, FlashAttention, a Triton kernel, through `ulpgate
 * check --op attention` (harness/cli/cli_check_attn.c, the .npy files) and ulpgate.check(
 * "attention", ...) (the Python extension).  The exact records are the operation descriptor's
 * (exact_in: every head's O then lse, as the run loop computes them) and a class's bound its
 * bound_at (as the run loop grades a kernel declaring that class); the figures, the tolerance
 * and the verdict are check's own (check_out.c, check.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/check/check.h"
#include "oracle/oracle.h"
#include "oracle/attention/exact_attention.h"

/* B and H of an array of `inner` trailing dims: its leading axes; false if the rank is not
 * inner, inner + 1 or inner + 2. */
static bool lead_axes(const ug_array *a, int inner, size_t *b, size_t *h)
{
    int lead = a->ndim - inner;
    if (lead < 0 || lead > 2) return false;
    *b = lead == 2 ? a->shape[0] : 1;
    *h = lead >= 1 ? a->shape[lead - 1] : 1;
    return true;
}

/* The whole array as binary32 (every format here embeds in it exactly): in place when it is
 * native binary32, else widened into a malloc'ed copy (*own); NULL when memory is refused. */
static const float *as_f32(const ug_array *a, float **own)
{
    size_t n = ug_array_count(a);
    *own = NULL;
    const float *in_place = ug_array_native(a, UG_F32);
    if (in_place) return in_place;
    if (!(*own = malloc((n ? n : 1) * sizeof(float)))) return NULL;
    for (size_t i = 0; i < n; i++) (*own)[i] = (float)ug_array_load(a, i);
    return *own;
}

/* The shapes into s (dims L, S, d, dv; batch, heads, kv heads); 0, or 2 naming them. */
static int attn_shapes(const ug_array in[3], const ug_array *got,
                       const ug_array *lse, ug_shape *s, char *err, size_t errlen)
{
    const ug_array *q = &in[0], *k = &in[1], *v = &in[2];
    size_t qb, qh, kb, kh, vb, vh, ob, oh;
    char sq[64], sk[64], sv[64], so[64];
    if (!lead_axes(q, 2, &qb, &qh) || !lead_axes(k, 2, &kb, &kh) || !lead_axes(v, 2, &vb, &vh) ||
        !lead_axes(got, 2, &ob, &oh) || q->ndim != k->ndim || q->ndim != v->ndim ||
        q->ndim != got->ndim) {
        snprintf(err, errlen, "Q, K, V and GOT are (L, d), (S, d), (S, dv), (L, dv), all with "
                              "the same leading axes (H, ...) or (B, H, ...): Q %s, K %s, V %s, "
                              "GOT %s", ug_array_shape_text(q, sq, 64),
                 ug_array_shape_text(k, sk, 64), ug_array_shape_text(v, sv, 64),
                 ug_array_shape_text(got, so, 64));
        return 2;
    }
    int r2 = q->ndim - 2;
    *s = (ug_shape){{q->shape[r2], k->shape[r2], q->shape[r2 + 1], v->shape[r2 + 1]}, qb, qh, kh};
    if (k->shape[r2 + 1] != s->dim[2] || v->shape[r2] != s->dim[1] || got->shape[r2] != s->dim[0] ||
        got->shape[r2 + 1] != s->dim[3] || kb != qb || vb != qb || ob != qb || vh != kh ||
        oh != qh || !kh || qh % kh) {
        snprintf(err, errlen, "shapes do not fit: Q %s, K %s, V %s, GOT %s (K's d is Q's, V's "
                              "rows K's, GOT (L, dv), query heads a multiple of key heads)",
                 ug_array_shape_text(q, sq, 64), ug_array_shape_text(k, sk, 64),
                 ug_array_shape_text(v, sv, 64), ug_array_shape_text(got, so, 64));
        return 2;
    }
    /* every axis of the lse is Q's, in Q's order: a transposed (L, H) has the right count
     * and would be graded as a huge error instead of refused */
    bool fits = !lse || lse->ndim == q->ndim - 1;
    for (int d = 0; lse && fits && d < lse->ndim; d++) fits = lse->shape[d] == q->shape[d];
    if (!fits) {
        snprintf(err, errlen, "%s: shape %s: the log-sum-exp is one value a query row: (L), "
                              "(H, L) or (B, H, L) of Q %s", lse->name,
                 ug_array_shape_text(lse, sk, 64), ug_array_shape_text(q, sq, 64));
        return 2;
    }
    return 0;
}

/* r's fields of one graded array. */
static void attn_result(ug_check_result *r, const ug_op_desc *op, const ug_array in[3],
                        ug_fmt out, size_t problems, size_t per, size_t S,
                        ug_bound_class cls, bool mpfr)
{
    memset(r, 0, sizeof *r);
    r->op = op;
    r->inputs = 3;
    for (int i = 0; i < 3; i++) r->in_fmt[i] = in[i].fmt;
    r->out_fmt = out;
    r->batch = problems;
    r->per = per;
    r->outputs = problems * per;
    r->n = S;
    r->depth = S ? S - 1 : 0;
    r->bound_class = cls;
    r->has_bound = cls != UG_BOUND_NONE;
    r->acc_fmt = r->op_fmt = UG_F32;
    r->gamma = cls != UG_BOUND_NONE ? NAN : INFINITY; /* no tree bound: the classes' */
    r->oracle = mpfr ? "mpfr" : "fast";
}

/* op->exact_in under a trap for memory refused (base/sys.h): true when the oracle's own
 * allocation failed (what it had allocated is leaked; rec is the caller's), else false. */
static bool attn_exact(const ug_op_desc *op, const float *const *v, const ug_shape *s,
                       const ug_opts *opts, ug_exact *rec)
{
    ug_oom_trap trap;
    if (setjmp(trap.at)) {
        ug_oracle_after_refusal(); /* a jump out of MPFR: its caches, its exponent range */
        return true;
    }
    ug_oom_trap_push(&trap);
    op->exact_in(v, s, opts, rec);
    ug_oom_trap_pop(&trap);
    return false;
}

int ug_check_attention(const ug_check_opts *o, const ug_array in[3],
                       const ug_array *got, const ug_array *lse,
                       ug_check_result *ro, ug_check_result *rl, char *err, size_t errlen)
{
    const ug_op_desc *op = o->op ? ug_op_find(o->op) : NULL;
    if (!op || !op->exact_in || !op->bound_at || op->shape->layout != UG_LAYOUT_HEADS) {
        snprintf(err, errlen, "--op %s: not an attention operation", o->op ? o->op : "(none)");
        return 2;
    }
    ug_bound_class cls = UG_BOUND_NONE;
    if (o->bound && (cls = ug_check_class(op, o->bound)) == UG_BOUND_NONE) {
        char names[512];
        snprintf(err, errlen, "--bound: '%s' is not a bound class of --op %s (its classes: %s)",
                 o->bound, o->op, ug_check_class_names(op, names, sizeof names));
        return 2;
    }
    if (o->acc_fmt != UG_FMT_COUNT || o->op_fmt != UG_FMT_COUNT || o->depth >= 0 || o->eps != 0 ||
        o->axis != UG_CHECK_AXIS_NONE) {
        snprintf(err, errlen, "--op %s takes no --acc, --op-fmt, --depth, --eps or --axis "
                              "(its classes fix their arithmetic)", o->op);
        return 2;
    }
    const ug_array *arr[5] = {&in[0], &in[1], &in[2], got, lse};
    for (int i = 0; i < 5; i++)
        if (arr[i] && arr[i]->fmt != UG_F32 && arr[i]->fmt != UG_F16 && arr[i]->fmt != UG_BF16) {
            snprintf(err, errlen, "%s: %s: --op %s takes binary32, binary16 and bfloat16 arrays",
                     arr[i]->name, ug_fmt_name(arr[i]->fmt), o->op);
            return 2;
        }
    for (int i = 0; i < 5; i++)
        if (arr[i] && ug_array_require_c_order(arr[i], err, errlen)) return 2;
    ug_shape s;
    if (attn_shapes(in, got, lse, &s, err, errlen)) return 2;
    if (!(o->scale >= 0 && o->scale < 3e38)) {
        snprintf(err, errlen, "--scale: %g is not a positive binary32 number", o->scale);
        return 2;
    }
    if (o->scale > 0 && (float)o->scale == 0) { /* 0 means the default: never a silent swap */
        snprintf(err, errlen, "--scale: %g rounds to 0 in binary32 (the scale a kernel is given; "
                 "the smallest positive is 1.4e-45)", o->scale);
        return 2;
    }
    ug_opts opts = {o->scale, o->causal ? UG_OPT_CAUSAL : 0};
    /* one head's shape and options, as the oracle checks them (the scale it will use) */
    ug_shape head = {{s.dim[0], s.dim[1], s.dim[2], s.dim[3]}, 1, 1, 1};
    ug_opts head_opts = {o->scale > 0 ? (float)o->scale : ug_attn_scale_default(s.dim[2]),
                         opts.flags};
    if (!ug_attn_head_ok(&head, &head_opts, err, errlen)) return 2;
    size_t L = s.dim[0], S = s.dim[1], dv = s.dim[3];
    size_t P = s.batch * s.heads, per = L * dv, outs = P * (per + L);
    attn_result(ro, op, in, got->fmt, P, per, S, cls, o->mpfr);
    attn_result(rl, op, in, lse ? lse->fmt : UG_F32, lse ? P : 0, L, S, cls, o->mpfr);
    float *own[3] = {NULL, NULL, NULL};
    const float *v[3] = {NULL, NULL, NULL};
    ug_exact *rec = NULL;
    int rc = 3;
    if (P) { /* no problems: nothing to compute */
        for (int i = 0; i < 3; i++)
            if (!(v[i] = as_f32(&in[i], &own[i]))) goto out;
        if (!(rec = malloc(outs * sizeof *rec))) goto out;
        /* memory refused is an answer (Python raises MemoryError), never the end of the
         * process: the reference's scratch is tried first, as one block */
        void *probe = malloc(ug_attn_scratch_bytes(&head));
        free(probe);
        if (!probe) goto out;
        if (o->mpfr) ug_oracle_select(UG_ORACLE_MPFR);
        bool oom = attn_exact(op, v, &s, &opts, rec);
        if (o->mpfr) ug_oracle_select(UG_ORACLE_FAST);
        if (oom) {
            snprintf(err, errlen, "out of memory: the oracle of --op %s was refused %zu bytes "
                     "(%zu keys)", o->op, ug_oom_refused(), S);
            rc = 4; /* 3 with this message */
            goto out;
        }
        ug_kernel k = {.name = "check", .op = op->shape->id, .bound = cls};
        for (size_t e = 0; e < outs; e++) {
            bool is_o = e < P * per;
            if (!is_o && !lse) break;
            double b = cls != UG_BOUND_NONE && rec[e].cls == UG_X_FINITE
                           ? op->bound_at(&k, &s, &opts, rec, e) : INFINITY;
            size_t i = is_o ? e : e - P * per;
            ug_check_add_bound(is_o ? ro : rl, i, &rec[e],
                               ug_array_load(is_o ? got : lse, i), b);
        }
        ro->worst_got_bits = ug_array_bits(got, ro->worst);
        if (lse && rl->outputs) rl->worst_got_bits = ug_array_bits(lse, rl->worst);
    }
    for (int part = 0; part < 2; part++) {
        ug_check_result *r = part ? rl : ro;
        r->ulp_mean = r->outputs ? r->ulp_sum / (double)r->outputs : 0;
        ug_check_tolerance(r);
        if (!part || lse) ug_check_verdict(o, r);
    }
    rc = 0;
out:
    if (rc == 4)
        rc = 3;
    else if (rc == 3)
        snprintf(err, errlen, "out of memory: --op %s needs about %.3g MiB for its records, "
                 "binary32 copies and the reference's scratch", o->op,
                 ((double)outs * sizeof *rec + 4.0 * (double)(ug_array_count(&in[0]) +
                  ug_array_count(&in[1]) + ug_array_count(&in[2])) +
                  (double)ug_attn_scratch_bytes(&head)) / 1048576.0);
    for (int i = 0; i < 3; i++) free(own[i]);
    free(rec);
    return rc;
}
