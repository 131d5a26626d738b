/* lse_flip.c - attention kernels of tests/contain_test.sh, binary64 inside:
 *   (default)    declared deterministic, its second output (lse) alone one ulp up on every
 *                second call: the determinism rerun compares every output buffer;
 *   -DSTEP=1     declared batch-invariant, O one ulp up in a decode step's call (L = 1 query
 *                over S > 1 keys) alone: the chunked check must run decode steps;
 *   -DSTEP=2     the same in a prefill chunk's call (1 < L < S) alone: it must run chunks. */
#ifndef STEP
#define STEP 0
#endif
#include <math.h>
#include <stdlib.h>
#include <ulpgate/ulpgate.h>
/* lse_flip: attention in binary64 (binary32 Q K V, O and lse), whose lse, its second output,
 * is one ulp up on every second call: O stays the same bits, lse does not */
static int lse_flip(const ug_kernel *k, ug_call *c)
{
    (void)k;
    static unsigned calls;
    size_t L = ug_dim(c, 0), S = ug_dim(c, 1), d = ug_dim(c, 2), dv = ug_dim(c, 3);
    const float *q = ug_in_f32(c, 0), *kk = ug_in_f32(c, 1), *v = ug_in_f32(c, 2);
    float *o = ug_output_f32(c, 0), *lse = ug_output_f32(c, 1);
    size_t B = c->shape.batch ? c->shape.batch : 1, H = c->shape.heads ? c->shape.heads : 1;
    size_t KH = c->shape.kv_heads ? c->shape.kv_heads : H;
    double sc = c->opts.scale > 0 ? (float)c->opts.scale : (float)(1 / sqrt((double)d));
    double *s = malloc((S ? S : 1) * sizeof *s);
    bool flip = STEP == 0 && ++calls % 2 == 0;
    bool nudge = STEP == 1 ? L == 1 && S > 1 : STEP == 2 ? L > 1 && L < S : false;
    for (size_t p = 0; p < B * H; p++) {
        size_t kv = (p / H) * KH + (p % H) / (H / KH);
        for (size_t i = 0; i < L; i++) {
            size_t n = (c->opts.flags & UG_OPT_CAUSAL) ? i + S + 1 - L : S;
            double m = -INFINITY, l = 0;
            for (size_t j = 0; j < n; j++) {
                s[j] = 0;
                for (size_t t = 0; t < d; t++) s[j] += (double)q[(p * L + i) * d + t] * kk[(kv * S + j) * d + t];
                s[j] *= sc;
                if (s[j] > m) m = s[j];
            }
            for (size_t j = 0; j < n; j++) l += exp(s[j] - m);
            for (size_t t = 0; t < dv; t++) {
                double a = 0;
                for (size_t j = 0; j < n; j++) a += exp(s[j] - m) * v[(kv * S + j) * dv + t];
                o[(p * L + i) * dv + t] = (float)(a / l);
                if (nudge) o[(p * L + i) * dv + t] = nextafterf(o[(p * L + i) * dv + t], INFINITY);
            }
            float e = (float)(m + log(l));
            lse[p * L + i] = flip ? nextafterf(e, INFINITY) : e;
        }
    }
    free(s);
    return 0;
}
UG_PLUGIN({.name = "lse_flip", .op = UG_OP_ATTENTION, .batch_invariant = STEP != 0,
           .bound = UG_BOUND_ATTN_NAIVE, .run = lse_flip,
           .doc = "binary64 attention, wrong on purpose (see the top of the file)"},)
