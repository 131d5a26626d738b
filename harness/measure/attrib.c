/*
 * attrib.c - which input terms a failure of a sum or dot comes from (attrib.h): the terms whose
 * removal changes the kernel's error most, found exactly (the kernel rerun without the term,
 * the oracle's exact value of the sum without it), and the serial-order view of the partial
 * sums.  Only on failures: its cost never touches a passing run.
 */
#include "harness/measure/attrib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "oracle/xacc.h"

/* Every term is tried when there are at most this many (CPU kernels; each try is one rerun of
 * the kernel, O(n), so O(n^2) in all); beyond, or for a GPU kernel (one launch a try), the
 * UG_ATTRIB_TOP terms of largest magnitude. */
enum { UG_ATTRIB_ALL_CPU = 1024, UG_ATTRIB_ALL_GPU = 64, UG_ATTRIB_TOP = 32, UG_ATTRIB_SHOW = 4 };
/* At most this many terms re-summed in all (tries x n): a failure at n = 2^25 tries 2 terms. */
#define UG_ATTRIB_WORK ((size_t)1 << 26)
/* The serial-order view walks the prefix sums with an exact accumulator: up to this n. */
#define UG_ATTRIB_SERIAL_MAX ((size_t)1 << 22)

typedef struct {
    size_t index;
    double mag;     /* |term| */
    double change;  /* |abs error with it - abs error without it| */
    ug_error without;
} ug_attrib_term;

static double ug_term(const float *x, const float *y, size_t i)
{
    return y ? (double)x[i] * (double)y[i] : (double)x[i]; /* exact in binary64 */
}

static int ug_by_mag(const void *a, const void *b)
{
    const ug_attrib_term *x = a, *y = b;
    if (x->mag != y->mag) return x->mag < y->mag ? 1 : -1;
    return (x->index > y->index) - (x->index < y->index);
}

static int ug_by_change(const void *a, const void *b)
{
    const ug_attrib_term *x = a, *y = b;
    if (x->change != y->change) return x->change < y->change ? 1 : -1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The kernel's result and the exact value without term skip; 0, or -1 when the kernel failed. */
static int ug_without(const ug_kernel *k, const float *x, const float *y, size_t n, size_t skip,
                      float *bx, float *by, ug_error *err)
{
    memcpy(bx, x, skip * sizeof *bx);
    memcpy(bx + skip, x + skip + 1, (n - skip - 1) * sizeof *bx);
    if (y) {
        memcpy(by, y, skip * sizeof *by);
        memcpy(by + skip, y + skip + 1, (n - skip - 1) * sizeof *by);
    }
    float out = 0;
    ug_call c;
    memset(&c, 0, sizeof c);
    c.op = k->op;
    c.shape.dim[0] = n - 1;
    ug_call_set_f32(&c, bx, y ? by : NULL, &out);
    if (ug_kernel_run(k, &c) != 0) return -1;
    ug_exact e;
    if (y) ug_exact_dot_f32(bx, 1, by, 1, n - 1, &e);
    else ug_exact_sum_f32(bx, n - 1, &e);
    *err = ug_error_of(&e, out);
    return 0;
}

static void ug_print_term(ug_buf *d, const float *x, const float *y, size_t i)
{
    char a[64], b[64];
    if (y)
        ug_buf_printf(d, "x[%zu], y[%zu] = %s, %s", i, i, ug_hexf(x[i], a), ug_hexf(y[i], b));
    else
        ug_buf_printf(d, "x[%zu] = %s (%.9g)", i, ug_hexf(x[i], a), (double)x[i]);
}

/* The removal view: candidates tried, the few that change the error most printed. */
static void ug_attrib_removals(ug_buf *d, const ug_kernel *k, const float *x, const float *y,
                               size_t n, const ug_error *err)
{
    size_t all = k->backend == UG_CUDA ? UG_ATTRIB_ALL_GPU : UG_ATTRIB_ALL_CPU;
    ug_attrib_term *terms = ug_xmalloc(n * sizeof *terms);
    for (size_t i = 0; i < n; i++)
        terms[i] = (ug_attrib_term){i, fabs(ug_term(x, y, i)), 0, {0, 0, 0}};
    size_t tries = n;
    if (n > all) {
        qsort(terms, n, sizeof *terms, ug_by_mag);
        tries = UG_ATTRIB_TOP;
        if (tries * n > UG_ATTRIB_WORK) tries = UG_ATTRIB_WORK / n ? UG_ATTRIB_WORK / n : 1;
    }
    float *bx = ug_xmalloc(n * sizeof *bx), *by = y ? ug_xmalloc(n * sizeof *by) : NULL;
    size_t done = 0;
    for (; done < tries; done++) {
        ug_attrib_term *tm = &terms[done];
        if (ug_without(k, x, y, n, tm->index, bx, by, &tm->without) != 0) break;
        double diff = err->abs - tm->without.abs;
        tm->change = isnan(diff) ? INFINITY : fabs(diff);
    }
    qsort(terms, done, sizeof *terms, ug_by_change);
    ug_buf_printf(d, "#   terms that matter (each removed, the kernel rerun; %s%zu of %zu tried):",
                  tries < n ? "the largest " : "", done, n);
    for (size_t i = 0; i < done && i < UG_ATTRIB_SHOW; i++) {
        ug_buf_printf(d, "\n#     ");
        ug_print_term(d, x, y, terms[i].index);
        ug_buf_printf(d, ": without it %.4g ulp (abs %.3g, change %.3g)", terms[i].without.ulp,
                      terms[i].without.abs, terms[i].change);
    }
    ug_buf_printf(d, "%s\n", done < tries ? " (the kernel failed on a rerun: stopped)" : "");
    if (k->nondeterministic)
        ug_buf_printf(d, "#     (%s is nondeterministic: reruns may differ)\n", k->id);
    free(terms);
    free(bx);
    free(by);
}

/* The serial view: in index order, binary32 partial sums p_i = fl(p_{i-1} + t_i) (t_i the
 * term, a product rounded to binary32 for a dot) against the exact prefix sums: the first
 * partial sum that is not its prefix correctly rounded, and the largest single rounding. */
static void ug_attrib_serial(ug_buf *d, const float *x, const float *y, size_t n)
{
    ug_xacc acc;
    ug_xacc_init(&acc);
    float p = 0.0f;
    size_t first = (size_t)-1, worst = 0;
    double worst_loss = 0;
    float first_p = 0, first_rn = 0;
    for (size_t i = 0; i < n; i++) {
        float t = y ? x[i] * y[i] : x[i];
        float q = p + t;
        double loss = fabs((double)q - ((double)p + (double)t));
        if (loss > worst_loss) worst_loss = loss, worst = i;
        p = q;
        ug_xacc_add(&acc, ug_term(x, y, i));
        if (first != (size_t)-1) continue;
        ug_exact e;
        float rn = ug_xacc_fill(&acc, &e) ? e.rn : 0.0f;
        if (p != rn) first = i, first_p = p, first_rn = rn;
    }
    char a[64], b[64];
    ug_buf_printf(d, "#   in index order (a serial binary32 sum): ");
    if (first == (size_t)-1)
        ug_buf_printf(d, "every partial sum is its exact prefix correctly rounded");
    else
        ug_buf_printf(d, "the first partial sum off its exact prefix is after x[%zu]: %s, exact "
                         "prefix rounds to %s", first, ug_hexf(first_p, a), ug_hexf(first_rn, b));
    if (worst_loss > 0)
        ug_buf_printf(d, "; the largest rounding, %.3g, adding x[%zu]", worst_loss, worst);
    ug_buf_printf(d, "\n");
}

void ug_attrib_lines(ug_buf *d, const ug_result *r, const ug_worst *w)
{
    const ug_input *in = r->in;
    const ug_kernel *k = r->kernel;
    if (!in || !w->set || !ug_input_op(in)->term_attribution || in->shape.dim[0] < 2) return;
    int i = w->trial - in->first_trial;
    if (i < 0 || i >= in->trials) return;
    const float *x = in->x[i], *y = ug_input_op(in)->shape->arity > 1 ? in->y[i] : NULL;
    if (!x) return; /* binary64 data: the terms are not binary32 values (no attribution yet) */
    size_t n = in->shape.dim[0];
    if (w->exact.cls != UG_X_FINITE) {
        /* a special exact result comes from its special terms: name the first few */
        ug_buf_printf(d, "#   non-finite terms:");
        int shown = 0;
        for (size_t j = 0; j < n && shown < UG_ATTRIB_SHOW; j++)
            if (!isfinite(ug_term(x, y, j))) {
                ug_buf_printf(d, " ");
                ug_print_term(d, x, y, j);
                shown++;
            }
        ug_buf_printf(d, "\n");
        return;
    }
    ug_attrib_removals(d, k, x, y, n, &w->err);
    if (n <= UG_ATTRIB_SERIAL_MAX) ug_attrib_serial(d, x, y, n);
}
