/*
 * hunt_shrink.c - shrinking a breaching input (hunt.h): delta debugging to fewer elements, then
 * simpler values, every step kept only while the input still breaches.
 *
 * Delta debugging (Zeller & Hildebrandt, "Simplifying and isolating failure-inducing input",
 * TSE 2002, ddmin): split the elements into k chunks; if one chunk alone still breaches keep it
 * (k = 2), else if the input without one chunk still breaches keep that (k = max(k - 1, 2)),
 * else split finer (k = 2k); stop when the chunks are single elements and none can go: the
 * result is 1-minimal (removing any one element loses the breach).  A GEMM shrinks its inner
 * dimension K, then its rows M, then its columns N the same way.
 * Simpler values, as Hypothesis shrinks floats: each value is replaced by the simplest candidate
 * that keeps the breach, simplicity ordered by (significant bits, |binary exponent|, sign):
 * 0, then 1, 2, 0.5, then the value's own significand cut to fewer bits, and so on; passes
 * repeat until nothing changes.  Then elements again, as long as the values changed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/sys.h"
#include "harness/search/hunt.h"

bool ug_hunt_breaches(const ug_hunt_breach *b, const ug_hunt_score *s)
{
    return s->valid && (b->bound ? s->ratio > 1 : s->ulp > b->ulp_limit);
}

typedef struct {
    ug_hunt_problem p;
    float *x, *y;
    const ug_hunt_breach *b;
    uint64_t *evals;
} ug_shrink;

static bool ug_test(ug_shrink *s, const ug_hunt_problem *p, const float *x, const float *y,
                    ug_hunt_score *out)
{
    ug_hunt_score sc;
    ++*s->evals;
    if (ug_hunt_eval(p, x, y, &sc, NULL, 0) != 0) return false;
    if (out) *out = sc;
    return ug_hunt_breaches(s->b, &sc);
}

/* Whether the input is a pair of matrices (A M x K, B K x N: three dimensions to shrink) rather
 * than index-aligned vectors (one). */
static bool ug_matmul(const ug_hunt_problem *p)
{
    return ug_hunt_op(p)->shape->layout == UG_LAYOUT_MATMUL;
}

/* Dimension d of the input: 0 the terms (a vector's length, GEMM K), 1 GEMM M, 2 GEMM N. */
static size_t ug_hunt_dim(const ug_hunt_problem *p, int d)
{
    return d == 0 ? (ug_matmul(p) ? p->gk : p->n) : d == 1 ? p->n : p->gn;
}

/* The sub-input keeping the indices keep[0..count) of dimension d, into (*q, *qx, *qy)
 * (malloc'ed). */
static void ug_sub(const ug_shrink *s, int d, const size_t *keep, size_t count,
                   ug_hunt_problem *q, float **qx, float **qy)
{
    const ug_hunt_problem *p = &s->p;
    *q = *p;
    if (!ug_matmul(p)) {
        /* y: w vectors of n one after the other (a LayerNorm's [w | b]: ops/op.h's
         * ug_op_in_width); index i of each is kept */
        size_t w = (size_t)ug_op_in_width(ug_hunt_op(p), 1);
        q->n = count;
        *qx = ug_xmalloc((count ? count : 1) * sizeof(float));
        *qy = w ? ug_xmalloc((count ? w * count : 1) * sizeof(float)) : NULL;
        for (size_t i = 0; i < count; i++) {
            (*qx)[i] = s->x[keep[i]];
            for (size_t v = 0; v < w; v++) (*qy)[v * count + i] = s->y[v * p->n + keep[i]];
        }
        return;
    }
    size_t M = p->n, N = p->gn, K = p->gk;
    if (d == 0) q->gk = count;
    if (d == 1) q->n = count;
    if (d == 2) q->gn = count;
    *qx = ug_xmalloc(q->n * q->gk * sizeof(float));
    *qy = ug_xmalloc(q->gk * q->gn * sizeof(float));
    for (size_t r = 0; r < q->n; r++)
        for (size_t c = 0; c < q->gk; c++)
            (*qx)[r * q->gk + c] = s->x[(d == 1 ? keep[r] : r) * K + (d == 0 ? keep[c] : c)];
    for (size_t r = 0; r < q->gk; r++)
        for (size_t c = 0; c < q->gn; c++)
            (*qy)[r * q->gn + c] = s->y[(d == 0 ? keep[r] : r) * N + (d == 2 ? keep[c] : c)];
    (void)M;
}

/* Try the sub-input of keep[0..count): adopt it when it breaches. */
static bool ug_try(ug_shrink *s, int d, const size_t *keep, size_t count)
{
    ug_hunt_problem q;
    float *qx, *qy;
    ug_sub(s, d, keep, count, &q, &qx, &qy);
    if (ug_test(s, &q, qx, qy, NULL)) {
        free(s->x);
        free(s->y);
        s->p = q, s->x = qx, s->y = qy;
        return true;
    }
    free(qx);
    free(qy);
    return false;
}

/* ddmin over dimension d. */
static void ug_ddmin(ug_shrink *s, int d)
{
    size_t k = 2;
    size_t *keep = NULL;
    while (ug_hunt_dim(&s->p, d) >= 2) {
        size_t size = ug_hunt_dim(&s->p, d);
        if (k > size) k = size;
        keep = ug_xrealloc(keep, size * sizeof *keep);
        bool reduced = false;
        /* chunk c is [c*size/k, (c+1)*size/k) */
        for (size_t c = 0; c < k && !reduced; c++) { /* a chunk alone */
            size_t lo = c * size / k, hi = (c + 1) * size / k, m = 0;
            for (size_t i = lo; i < hi; i++) keep[m++] = i;
            if (k > 2 && m > 0 && ug_try(s, d, keep, m)) reduced = true, k = 2;
        }
        for (size_t c = 0; c < k && !reduced; c++) { /* the complement of a chunk */
            size_t lo = c * size / k, hi = (c + 1) * size / k, m = 0;
            for (size_t i = 0; i < size; i++)
                if (i < lo || i >= hi) keep[m++] = i;
            if (m > 0 && m < size && ug_try(s, d, keep, m)) reduced = true, k = k > 2 ? k - 1 : 2;
        }
        if (reduced) continue;
        if (k >= size) break;
        k = 2 * k < size ? 2 * k : size;
    }
    free(keep);
}

/* ---- simpler values ------------------------------------------------------------------------ */

/* Significant bits of |v|'s significand (0 for zero). */
static int ug_sig_bits(float v)
{
    if (v == 0) return 0;
    int e;
    float m = frexpf(fabsf(v), &e); /* [0.5, 1) */
    uint32_t b = (uint32_t)ldexpf(m, 24);
    int bits = 24;
    while (bits > 1 && !(b & 1)) b >>= 1, bits--;
    return bits;
}

/* Simplicity: (significant bits, |exponent|, negative), smaller is simpler; 0 the simplest. */
static uint64_t ug_simplicity(float v)
{
    if (v == 0) return 0;
    int e;
    frexpf(fabsf(v), &e);
    return 1 + ((uint64_t)ug_sig_bits(v) << 20 | (uint64_t)abs(e - 1) << 1 | (v < 0));
}

static int ug_cmp_simple(const void *a, const void *b)
{
    uint64_t x = ug_simplicity(*(const float *)a), y = ug_simplicity(*(const float *)b);
    return (x > y) - (x < y);
}

/* Candidates simpler than v, simplest first; returns their count (at most 64). */
static int ug_candidates(float v, float *out)
{
    int n = 0;
    out[n++] = 0.0f;
    float s = v < 0 ? -1.0f : 1.0f;
    static const float small[] = {1, 2, 0.5f, 3, 4, 0.25f, 5, 6, 8, 10, 16, 100};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) out[n++] = s * small[i];
    int e;
    frexpf(fabsf(v), &e);
    for (int bits = 1; bits < 24 && n < 60; bits++) { /* v's significand cut to `bits` bits */
        float q = ldexpf(1.0f, e - bits);
        out[n++] = truncf(v / q) * q;
        out[n++] = nearbyintf(v / q) * q;
    }
    if (v < 0) out[n++] = -v;
    qsort(out, (size_t)n, sizeof *out, ug_cmp_simple);
    uint64_t own = ug_simplicity(v);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (ug_simplicity(out[i]) < own && isfinite(out[i]) && (m == 0 || out[i] != out[m - 1]))
            out[m++] = out[i];
    return m;
}

/* One round of value simplification; returns whether a value changed. */
static bool ug_simplify(ug_shrink *s)
{
    bool any = false;
    size_t nx = ug_hunt_nx(&s->p), ny = ug_hunt_ny(&s->p);
    float cand[64];
    for (int pass = 0; pass < 4; pass++) {
        bool changed = false;
        for (size_t i = 0; i < nx + ny; i++) {
            float *v = i < nx ? &s->x[i] : &s->y[i - nx], old = *v;
            int count = ug_candidates(old, cand);
            for (int c = 0; c < count; c++) {
                *v = cand[c];
                if (ug_test(s, &s->p, s->x, s->y, NULL)) {
                    changed = any = true;
                    break;
                }
                *v = old;
            }
        }
        if (!changed) break;
    }
    return any;
}

bool ug_hunt_shrink(ug_hunt_problem *p, float **x, float **y, const ug_hunt_breach *b,
                    uint64_t *evals, ug_hunt_score *final)
{
    ug_shrink s = {*p, *x, *y, b, evals};
    if (!ug_test(&s, p, *x, *y, final)) return false;
    /* simpler values (zeros above all) can make more elements removable: again until stable */
    for (int round = 0; round < 4; round++) {
        ug_ddmin(&s, 0);
        if (ug_matmul(p)) {
            ug_ddmin(&s, 1);
            ug_ddmin(&s, 2);
        }
        if (!ug_simplify(&s)) break;
    }
    ug_test(&s, &s.p, s.x, s.y, final);
    *p = s.p, *x = s.x, *y = s.y;
    return true;
}
