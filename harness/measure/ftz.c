/*
 * ftz.c - recognising flush-to-zero: an output that came back as a signed zero where the exact
 * value is nonzero and either itself subnormal (0 < |s| < 2^-126) or a sum of terms at the
 * subnormal scale (sum |terms| < n 2^-126: flushing every subnormal term of a sum of subnormals
 * leaves 0, even where their exact sum is normal).  Gradual underflow (IEEE 754) keeps them; a
 * build with --ftz=true (nvcc --use_fast_math: the @fastmath variant) or an instruction that
 * flushes (PTX atom.add.f32) returns 0.  The failure message of a check names it
 * (harness/run/expect.c), and cases count it (ug_result_flushed_to_zero).
 */
#include <math.h>

#include "harness/measure/mctx.h"

bool ug_is_flush_to_zero(double got, const ug_exact *x, size_t nterms)
{
    double s = x->hi + x->lo;
    return x->cls == UG_X_FINITE && got == 0 && s != 0 &&
           (fabs(s) < 0x1p-126 || x->sum_abs < (double)nterms * 0x1p-126);
}

size_t ug_result_flushed_to_zero(const ug_result *r)
{
    size_t count = 0;
    if (!r->out || !r->in || r->failed_run) return 0;
    ug_shape s = ug_input_shape(r->in);
    size_t nterms = ug_op_terms(ug_input_op(r->in), &s);
    for (int i = 0; i < r->trials; i++)
        for (size_t e = 0; e < r->elements; e++)
            count += ug_is_flush_to_zero(ug_fmt_load(r->kernel->out_fmt, r->out[i], e),
                                           &r->in->exact[i][e], nterms);
    return count;
}
