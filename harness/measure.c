/*
 * measure.c - a measurement: a kernel run on every trial of an input, every output compared
 * with the oracle's exact result, the figures of a test point (errors, bound ratio, histogram,
 * worst elements, time, distinct results over repeats).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/sys.h"
#include "context.h"
#include "guard.h"
#include "run_limits.h"

/* The poison pattern of unwritten outputs: a negative quiet NaN with every payload bit set, which
 * no arithmetic produces (hardware NaNs are 0x7fffffff on GPUs, 0xffc00000 on x86). */
#define UG_POISON_BITS 0xffffffffu

/* GPU kernels time themselves (events, median of reps after a warm-up); CPU kernels are timed
 * here, one wall-clock run per trial, median over trials. */
enum { UG_GPU_TIMING_REPS = 10 };
/* Runs of a nondeterministic kernel on each trial (the merge gate compares the worst of them). */
enum { UG_NONDET_REPEATS = 9 };

void ug_result_free(ug_result *r)
{
    if (!r) return;
    if (r->out)
        for (int i = 0; i < r->trials; i++) free(r->out[i]);
    free(r->out);
    free(r);
}

void ug_result_extra(ug_result *r, const char *name, double value)
{
    for (int i = 0; i < r->n_extra; i++)
        if (strcmp(r->extra[i].name, name) == 0) {
            r->extra[i].value = value;
            return;
        }
    if (r->n_extra == (int)(sizeof r->extra / sizeof r->extra[0])) return;
    snprintf(r->extra[r->n_extra].name, sizeof r->extra[0].name, "%s", name);
    r->extra[r->n_extra++].value = value;
}

int ug_run_kernel(ug_t *t, const ug_kernel *k, ug_call *c, const char *file, int line)
{
    int rc = ug_kernel_run(k, c);
    if (rc != 0)
        ug_fail_header(t, file, line, k->id, "kernel failed: %s", c->err[0] ? c->err : "(no message)");
    return rc;
}

/* ---- one output into the figures ------------------------------------------------------------- */

static int ug_hist_bucket(double ulp)
{
    /* [0] exact, then (0,1/4], (1/4,1/2], (1/2,1], (1,2], ... (2^10, inf] in [15] */
    if (ulp == 0) return 0;
    if (!(ulp <= 1024)) return 15;
    int b = 1;
    for (double edge = 0.25; ulp > edge && b < 15; edge *= 2) b++;
    return b;
}

static void ug_worst_update(ug_worst *w, double key, double cur, int trial, size_t idx, double got,
                            const ug_exact *e, const ug_error *err, double bound, double ratio)
{
    if (w->set && !(key > cur)) return;
    *w = (ug_worst){trial, idx, got, *e, *err, bound, ratio, true};
}

/* Running sums of a measurement (the means are taken at the end). */
typedef struct {
    double ulp, rel, ratio;
} ug_sums;

static double ug_ratio(double err, double bound)
{
    return err == 0 ? 0 : bound > 0 ? err / bound : INFINITY;
}

/* The bound and ratio of one output: the a-priori bound where it is finite, else the
 * probabilistic one at lambda; where the exact value is NaN or infinite, only that special is
 * right (ratio 0) and anything else is an infinite error. */
static double ug_output_ratio(ug_result *r, size_t nterms, const ug_exact *x, const ug_error *err,
                              double lambda, double *bound)
{
    const ug_kernel *k = r->kernel;
    *bound = 0;
    if (x->cls != UG_X_FINITE) return err->abs == 0 ? 0 : INFINITY;
    if (k->bound == UG_BOUND_NONE) {
        r->bound_unchecked++;
        return 0;
    }
    double ab = ug_kernel_bound(k, nterms, x->sum_abs, fabs(x->hi));
    double pb = lambda > 0 ? ug_kernel_bound_prob(k, nterms, x->sum_abs, fabs(x->hi), lambda) : INFINITY;
    double pratio = isfinite(pb) ? ug_ratio(err->abs, pb) : 0;
    if (!(pratio <= r->prob_ratio_max)) r->prob_ratio_max = pratio;
    if (isfinite(ab)) {
        double ratio = ug_ratio(err->abs, ab);
        if (!(ratio <= r->apriori_ratio_max)) r->apriori_ratio_max = ratio;
        *bound = ab;
        return ratio;
    }
    if (isfinite(pb)) {
        double pf = ug_prob_failure(nterms, lambda);
        r->bound_vacuous++;
        if (pf > r->prob_failure) r->prob_failure = pf;
        *bound = pb;
        return pratio;
    }
    r->bound_unchecked++;
    return 0;
}

/* Compare one output with its exact value and fold it into r's figures.  nterms: terms per
 * output (the bound's n). */
static void ug_account(ug_result *r, ug_sums *sums, size_t nterms, double lambda, int trial,
                       size_t e, float got, const ug_exact *x)
{
    ug_error err = ug_error_of(x, got);
    double bound, ratio = ug_output_ratio(r, nterms, x, &err, lambda, &bound);
    if (ug_same_f32(got, x->rn)) r->correctly_rounded++;
    ug_worst_update(&r->worst_ulp, err.ulp, r->ulp_max, trial, e, got, x, &err, bound, ratio);
    ug_worst_update(&r->worst_rel, err.rel, r->rel_max, trial, e, got, x, &err, bound, ratio);
    ug_worst_update(&r->worst_abs, err.abs, r->abs_max, trial, e, got, x, &err, bound, ratio);
    ug_worst_update(&r->worst_ratio, ratio, r->bound_ratio_max, trial, e, got, x, &err, bound, ratio);
    if (!(err.ulp <= r->ulp_max)) r->ulp_max = err.ulp;
    if (!(err.rel <= r->rel_max)) r->rel_max = err.rel;
    if (!(err.abs <= r->abs_max)) r->abs_max = err.abs;
    if (!(ratio <= r->bound_ratio_max)) r->bound_ratio_max = ratio;
    sums->ulp += err.ulp;
    sums->rel += err.rel;
    sums->ratio += ratio;
    r->abs_err_sum += err.abs;
    r->rel_err_sum += err.rel;
    /* the seven-methods post's own metric: against RD32(s), its MPFR_RNDD reference */
    if (x->cls == UG_X_FINITE) {
        double d = fabs((double)got - (double)x->rd);
        r->abs_err_sum_rd += d;
        r->rel_err_sum_rd += x->rd != 0 ? d / fabs((double)x->rd) : d == 0 ? 0 : INFINITY;
    }
    r->ulp_hist[ug_hist_bucket(err.ulp)]++;
    r->count++;
}

/* ---- the phases of a measurement ------------------------------------------------------------- */

static ug_result *ug_result_new(ug_t *t, const ug_kernel *k, const ug_input *in)
{
    ug_result *r = ug_xcalloc(1, sizeof *r);
    if (t->n_results == t->cap_results) {
        t->cap_results = t->cap_results ? 2 * t->cap_results : 16;
        t->results = ug_xrealloc(t->results, t->cap_results * sizeof *t->results);
    }
    t->results[t->n_results++] = r;
    r->kernel = k;
    r->in = in;
    r->n = in->n;
    r->gemm_m = in->gemm_m;
    r->gemm_n = in->gemm_n;
    r->gemm_k = in->gemm_k;
    snprintf(r->dist, sizeof r->dist, "%s", in->label);
    r->trials = in->trials;
    r->first_trial = in->first_trial;
    r->elements = ug_input_elements(in);
    return r;
}

/* The test point's name: "case kernel@variant n=N" (n=MxNxK for a rectangular GEMM). */
static void ug_measure_open(ug_t *t, ug_result *r)
{
    char name[256];
    const ug_input *in = r->in;
    if (in->op == UG_OP_GEMM && !(in->gemm_m == in->gemm_n && in->gemm_n == in->gemm_k))
        snprintf(name, sizeof name, "%s %s n=%zux%zux%zu", t->unit->name, r->kernel->id,
                 in->gemm_m, in->gemm_n, in->gemm_k);
    else
        snprintf(name, sizeof name, "%s %s n=%zu", t->unit->name, r->kernel->id, in->n);
    ug_point_open(t, name, r);
}

static void ug_call_setup(ug_call *c, const ug_input *in, int i, float *out)
{
    memset(c, 0, sizeof *c);
    c->op = in->op;
    c->n = in->op == UG_OP_GEMM ? in->gemm_m : in->n;
    c->gemm_n = in->gemm_n;
    c->gemm_k = in->gemm_k;
    c->x = in->x[i];
    c->y = in->y[i];
    c->out = out;
}

/* An output still holding the poison pattern was never written: a kernel bug, whatever the
 * metrics say (GPU launchers poison their device buffers the same way before every launch). */
static void ug_check_written(ug_t *t, ug_result *r, int i, const float *out)
{
    size_t first = 0, count = 0;
    for (size_t e = 0; e < r->elements; e++)
        if (ug_f32_bits(out[e]) == UG_POISON_BITS) {
            if (!count) first = e;
            count++;
        }
    if (!count) return;
    r->unwritten += count;
    ug_fail_header(t, __FILE__, __LINE__, "every output written",
                   "%s left %zu of %zu outputs unwritten in trial %d (first: element %zu)",
                   r->kernel->id, count, r->elements, r->in->first_trial + i, first);
}

static int ug_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Run the kernel on every trial and account every output.  Returns 0, or -1 after recording
 * the kernel's failure on the test point. */
static void ug_measure_time(ug_result *r, double *times);

/* One run of the kernel on trial i into out (poisoned first); 0, or -1 after recording the
 * kernel's failure.  *ms: its time (GPU: the median of its timed reps when reps > 0). */
static int ug_run_trial(ug_t *t, ug_result *r, int i, float *out, int reps, double *ms)
{
    for (size_t e = 0; e < r->elements; e++) out[e] = ug_bits_f32(UG_POISON_BITS);
    ug_call c;
    ug_call_setup(&c, r->in, i, out);
    c.reps = reps;
    double t0 = ug_now_s();
    if (ug_run_kernel(t, r->kernel, &c, __FILE__, __LINE__) != 0) {
        snprintf(r->run_error, sizeof r->run_error, "%s", c.err);
        r->failed_run = true;
        ug_rerun_line(t, r, r->in->first_trial + i);
        return -1;
    }
    *ms = r->kernel->backend == UG_CUDA ? c.time_ms : 1e3 * (ug_now_s() - t0);
    return 0;
}

/* Run the kernel on every trial and account every output.  A nondeterministic kernel runs
 * UG_NONDET_REPEATS times on each trial: every repeat's outputs are accounted (the figures are
 * the worst over the repeats, which is what the merge gate compares) and the distinct bitwise
 * results counted (the most of any trial).  Returns 0, -1 after recording the kernel's
 * failure on the test point, or -2 when the run is stopping (the point marked skipped). */
static int ug_measure_trials(ug_t *t, ug_result *r)
{
    const ug_kernel *k = r->kernel;
    const ug_input *in = r->in;
    size_t nterms = in->op == UG_OP_GEMM ? in->gemm_k : in->n;
    int repeats = k->nondeterministic ? UG_NONDET_REPEATS : 1;
    size_t bytes = r->elements * sizeof(float);
    double *times = ug_xcalloc((size_t)r->trials, sizeof(double));
    float **seen = ug_xcalloc((size_t)repeats, sizeof(float *));
    ug_sums sums = {0, 0, 0};
    int rc = 0;
    if (!ug_limits_outputs(t, r)) rc = -1;
    else r->out = ug_xcalloc((size_t)r->trials, sizeof(float *));
    for (int i = 0; i < r->trials && rc == 0; i++) {
        int trial = in->first_trial + i, distinct = 0;
        if (ug_guard_stopping()) { /* a signal: the point is skipped, the case left */
            t->pt.skipped = true;
            snprintf(t->pt.skip_reason, sizeof t->pt.skip_reason, "interrupted by %s after %d of "
                     "%d trials", ug_guard_reason(), i, r->trials);
            rc = -2;
            break;
        }
        r->out[i] = ug_xmalloc(bytes);
        for (int rep = 0; rep < repeats && rc == 0; rep++) {
            float *out = rep == 0 ? r->out[i] : ug_xmalloc(bytes);
            double ms = 0;
            int reps = k->backend == UG_CUDA && i == 0 && rep == 0 ? ug_limits_timing_reps(UG_GPU_TIMING_REPS) : 0;
            if (ug_run_trial(t, r, i, out, reps, &ms) != 0) {
                rc = -1;
                if (rep) free(out);
                break;
            }
            if (rep == 0) times[i] = ms;
            ug_check_written(t, r, i, out);
            for (size_t e = 0; e < r->elements; e++)
                ug_account(r, &sums, nterms, t->lambda, trial, e, out[e], &in->exact[i][e]);
            bool found = false;
            for (int s = 0; s < distinct && !found; s++) found = memcmp(seen[s], out, bytes) == 0;
            if (!found)
                seen[distinct++] = out;
            else if (rep)
                free(out);
        }
        for (int s = 1; s < distinct; s++) free(seen[s]);
        if (distinct > r->distinct_results) r->distinct_results = distinct;
        if (in->kappa[i] > r->kappa_max || isnan(in->kappa[i])) r->kappa_max = in->kappa[i];
    }
    free(seen);
    if (repeats > 1) r->repeats = repeats;
    r->ulp_mean = r->count ? sums.ulp / (double)r->count : 0;
    r->rel_mean = r->count ? sums.rel / (double)r->count : 0;
    r->bound_ratio_mean = r->count ? sums.ratio / (double)r->count : 0;
    if (rc == 0) ug_measure_time(r, times);
    free(times);
    return rc;
}

/* time: GPU = trial 0's median over its timed reps; CPU = median over trials */
static void ug_measure_time(ug_result *r, double *times)
{
    const ug_input *in = r->in;
    if (r->kernel->backend == UG_CUDA) {
        r->time_ms = times[0];
    } else {
        qsort(times, (size_t)r->trials, sizeof *times, ug_dcmp);
        r->time_ms = times[r->trials / 2];
    }
    if (r->time_ms > 0) {
        double s = r->time_ms * 1e-3;
        if (in->op == UG_OP_GEMM)
            r->gflops = 2.0 * (double)in->gemm_m * (double)in->gemm_n * (double)in->gemm_k / s / 1e9;
        else
            r->gbps = (double)in->n * (in->op == UG_OP_DOT ? 8.0 : 4.0) / s / 1e9;
    }
}

/* Determinism: trial 0 `repeats` more times, distinct bitwise outputs counted. */
static void ug_measure_repeats(ug_t *t, ug_result *r, int repeats)
{
    float **seen = ug_xcalloc((size_t)repeats + 1, sizeof(float *));
    size_t bytes = r->elements * sizeof(float);
    int distinct = 1;
    seen[0] = r->out[0];
    float *buf = ug_xmalloc(bytes);
    for (int rep = 0; rep < repeats; rep++) {
        ug_call c;
        ug_call_setup(&c, r->in, 0, buf);
        if (ug_run_kernel(t, r->kernel, &c, __FILE__, __LINE__) != 0) {
            r->failed_run = true;
            snprintf(r->run_error, sizeof r->run_error, "%s", c.err);
            break;
        }
        bool found = false;
        for (int s = 0; s < distinct && !found; s++) found = memcmp(seen[s], buf, bytes) == 0;
        if (!found) {
            seen[distinct++] = buf;
            buf = ug_xmalloc(bytes);
        }
    }
    r->repeats = repeats + 1;
    r->distinct_results = distinct;
    for (int s = 1; s < distinct; s++) free(seen[s]);
    free(seen);
    free(buf);
}

static ug_result *ug_measure_impl(ug_t *t, const ug_kernel *k, const ug_input *in, int repeats)
{
    ug_guard_check(t);
    ug_result *r = ug_result_new(t, k, in);
    r->prob_lambda = t->lambda;
    ug_measure_open(t, r);
    if (k->op != in->op) {
        ug_fail_header(t, __FILE__, __LINE__, "ug_measure", "kernel %s computes %s, input is %s",
                       k->id, ug_op_name(k->op), ug_op_name(in->op));
        r->failed_run = true;
        return r;
    }
    if (k->backend == UG_CUDA && !ug_gpu_available()) {
        t->pt.skipped = true;
        snprintf(t->pt.skip_reason, sizeof t->pt.skip_reason, "no CUDA device");
        return r;
    }
    int rc = ug_measure_trials(t, r);
    if (rc == -2) ug_abort_case(t); /* interrupted: the case sees no partial outputs */
    if (rc == 0 && repeats > 0) ug_measure_repeats(t, r, repeats);
    return r;
}

ug_result *ug_measure(ug_t *t, const ug_kernel *k, const ug_input *in)
{
    return ug_measure_impl(t, k, in, 0);
}

ug_result *ug_measure_repeat(ug_t *t, const ug_kernel *k, const ug_input *in, int repeats)
{
    return ug_measure_impl(t, k, in, repeats);
}
