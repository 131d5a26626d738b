/*
 * measure_fmt.c - the number formats in a measurement: which input buffers a kernel
 * can be handed, and the range check that reports a point whose exact result or partial sums
 * leave a format's range as out of range (a skip), never as a pass; and where each output of a
 * call lies in its format (ug_outs, context.h: attention's O and lse).  measure.c
 * calls all three.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/measure/mctx.h"
#include "ops/op.h"

// ---- the output buffers of a call ----------------------------------------------------------

ug_outs ug_outs_of(const ug_kernel *k, const ug_input *in)
{
    ug_outs o = {0};
    const ug_opshape *sh = ug_input_op(in)->shape;
    ug_shape s = ug_input_shape(in);
    o.n = ug_opshape_noutputs(sh);
    size_t e = 0;
    for (int j = 0; j < o.n; j++) {
        o.fmt[j] = j == 0 ? k->out_fmt : k->out_more_fmt[j - 1];
        o.count[j] = o.n == 1 ? ug_input_elements(in) : ug_opshape_out_len(sh, &s, j);
        o.first[j] = e, o.off[j] = o.bytes;
        e += o.count[j];
        o.bytes += o.count[j] * ug_fmt_bytes(o.fmt[j]);
    }
    return o;
}

/* Which buffer holds element e. */
int ug_outs_buf(const ug_outs *o, size_t e)
{
    int j = 0;
    while (j + 1 < o->n && e >= o->first[j + 1]) j++;
    return j;
}

double ug_outs_load(const ug_outs *o, const void *out, size_t e)
{
    int j = ug_outs_buf(o, e);
    return ug_fmt_load(o->fmt[j], (const char *)out + o->off[j], e - o->first[j]);
}

ug_fmt ug_result_out_fmt(const ug_result *r, size_t e)
{
    if (!r->in) return r->kernel->out_fmt;
    ug_outs o = ug_outs_of(r->kernel, r->in);
    return o.fmt[ug_outs_buf(&o, e)];
}

double ug_result_output(const ug_result *r, int trial, size_t e)
{
    if (!r->in) return ug_fmt_load(r->kernel->out_fmt, r->out[trial], e);
    ug_outs o = ug_outs_of(r->kernel, r->in);
    return ug_outs_load(&o, r->out[trial], e);
}

// ---- input formats and range ----------------------------------------------------------------

/* Whether the harness can hand k the buffers it reads: input storage as in's, or binary32
 * for data of a format that embeds in it (16- and 8-bit: the floats beside the encoded copy).
 * Every output format is stored and graded (ug_result.out holds out_fmt's elements).  Else a
 * failure on the test point that says which format. */
bool ug_measure_formats_ok(ug_t *t, const ug_kernel *k, const ug_input *in)
{
    const ug_op_desc *d = ug_op_get(in->op);
    for (int a = 0; a < UG_MAX_INPUTS; a++) {
        bool as_f32 = k->in_store[a] == UG_F32 && in->fmt[a] != UG_F64;
        if (k->in_store[a] != in->fmt[a] && !as_f32 && a < d->shape->arity) {
            ug_m_fail(t, __FILE__, __LINE__, "ug_measure", "kernel %s reads input %d as %s, "
                      "the input holds %s", k->id, a, ug_fmt_name(k->in_store[a]),
                      ug_fmt_name(in->fmt[a]));
            return false;
        }
    }
    return true;
}

/* The range of the formats: an output whose exact value rounds beyond the output
 * format's largest finite value (RN_out(s) infinite, e4m3's NaN), or whose terms' magnitude
 * S = sum |terms| -- the bound on every partial sum in any order -- exceeds the accumulator
 * format's, is outside what the a-priori bounds assume (no overflow anywhere): the point is
 * reported as out of range, a skip that says how many outputs of how many left the range and
 * names the first and the format, never a pass; r->out_of_range keeps the count (the row's
 * out_of_range).  Applies to the format kernels (inputs or output not binary32), and to the
 * summation operations (sums, dots, GEMMs, scans) of binary32 buffers where the partial sums leave the accumulator's range
 * while RN(s) is finite (one outcome for built-in and plugin kernels alike, whatever
 * their order does with it); a binary32 result that rightly overflows (RN(s) = inf) keeps its
 * grading, as every order must return that infinity.  O(outputs). */
bool ug_measure_out_of_range(ug_t *t, ug_result *r)
{
    const ug_kernel *k = r->kernel;
    const ug_input *in = r->in;
    bool f32 = ug_kernel_is_f32(k);
    /* binary32 buffers: only where sum |terms| bounds every partial sum, the operations
     * whose exact records are sums of their terms (exact_is_sum: sum, dot, gemm, scan, asum) */
    const ug_op_desc *d = ug_op_get(k->op);
    if (f32 && (!d || !d->exact_is_sum)) return false;
    const ug_format *acc = ug_format_of(k->acc_fmt);
    size_t count = 0;
    char first[300] = "";
    for (int i = 0; i < in->trials; i++)
        for (size_t e = 0; e < r->elements; e++) {
            const ug_exact *x = &in->exact[i][e];
            if (x->cls != UG_X_FINITE) continue;
            ug_fmt of = ug_result_out_fmt(r, e); /* O's, or lse's binary32 */
            double rn = ug_exact_rn(x, of);
            if (f32 && !isfinite(rn)) continue;
            const char *what = !isfinite(rn) ? "exact result" : x->sum_abs > acc->max ? "partial "
                               "sums (sum |terms|)" : NULL;
            if (!what) continue;
            if (count++ > 0) continue; /* the first one is named */
            snprintf(first, sizeof first, "trial %d element %zu: %s %.6g leaves %s's range (max "
                     "%.6g)", in->first_trial + i, e, what, !isfinite(rn) ? x->hi : x->sum_abs,
                     !isfinite(rn) ? ug_format_of(of)->name : acc->name,
                     !isfinite(rn) ? ug_format_of(of)->max : acc->max);
        }
    r->out_of_range = count;
    if (!count) return false;
    ug_m_skip_point(t, "out of range%s: %zu of %zu outputs; first: %s: no a-priori bound holds",
                    strstr(first, "partial sums") ? " (partial-sum overflow)" : "", count,
                    (size_t)in->trials * r->elements, first);
    return true;
}
