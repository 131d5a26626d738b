/*
 * measure.c - a measurement: a kernel run on every trial of an input, every output compared
 * with the oracle's exact result, the figures of a test point (errors, bound ratio, histogram,
 * worst elements, time, distinct results over repeats).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/par.h"
#include "base/sys.h"
#include "harness/measure/mctx.h"
#include "harness/measure/kernel_call.h"
#include "harness/measure/prof.h"
#include "harness/measure/run_limits.h"

/* GPU kernels time themselves (events, median of reps after a warm-up) on inputs of at least
 * UG_GPU_TIMED_OPS operations (terms of a sum or dot, M N K of a GEMM): below that a launch
 * measures launch latency, not the kernel, and the reps would be most of the suite's GPU time.
 * CPU kernels are timed here, one wall-clock run per trial, median over trials. */
enum { UG_GPU_TIMING_REPS = 10 };
#define UG_GPU_TIMED_OPS ((double)(1 << 20))
/* Runs of a nondeterministic kernel on each trial (the merge gate compares the worst of them):
 * UG_NONDET_REPEATS, or as many as fit UG_NONDET_BUDGET_MS of kernel time per trial when one run
 * is long, at least UG_NONDET_MIN_REPEATS (a 118 ms atomic sum of 2^26 terms: 3).  Each repeat
 * is a new arrival order checked against the same bound; a kernel that breaks its bound for a
 * reason other than the luck of one order breaks it on every repeat. */
enum { UG_NONDET_REPEATS = 9, UG_NONDET_MIN_REPEATS = 3 };
#define UG_NONDET_BUDGET_MS 300.0

/* The repeats of a nondeterministic kernel one of whose runs took ms milliseconds. */
static int ug_nondet_repeats(double ms)
{
    if (!(ms * UG_NONDET_REPEATS > UG_NONDET_BUDGET_MS)) return UG_NONDET_REPEATS;
    int fit = (int)(UG_NONDET_BUDGET_MS / ms);
    return fit > UG_NONDET_MIN_REPEATS ? fit : UG_NONDET_MIN_REPEATS;
}

/* Operations of one trial of the input (its descriptor's work: terms of a sum or dot, M N K
 * of a GEMM). */
static double ug_input_ops(const ug_input *in)
{
    ug_shape s = ug_input_shape(in);
    return ug_op_work(ug_input_op(in), &s);
}

void ug_result_free(ug_result *r)
{
    if (!r) return;
    if (r->out)
        for (int i = 0; i < r->trials; i++) free(r->out[i]);
    free(r->out);
    free(r);
}

bool ug_result_correctly_rounded(const ug_result *r) { return r->correctly_rounded == r->count; }

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

/* The largest |operand| over every trial of in (NaN counts as +inf). */
static double ug_input_operand_max(const ug_input *in)
{
    const ug_op_desc *d = ug_input_op(in);
    ug_shape s = ug_input_shape(in);
    size_t len[2] = {ug_op_in_len(d, &s, 0), d->shape->arity > 1 ? ug_op_in_len(d, &s, 1) : 0};
    double m = 0;
    for (int i = 0; i < in->trials; i++)
        for (int a = 0; a < d->shape->arity; a++) {
            const float *f = a ? in->y[i] : in->x[i]; /* NULL for binary64 data */
            for (size_t e = 0; e < len[a]; e++) {
                double v = f ? f[e] : ug_fmt_load(in->fmt[a], in->data[a][i], e);
                if (!(fabs(v) <= m)) m = isnan(v) ? INFINITY : fabs(v);
            }
        }
    return m;
}

/* ---- one output into the figures ------------------------------------------------------------- */

int ug_ulp_bucket(double ulp)
{
    /* [0] exact, then (0,1/4], (1/4,1/2], (1/2,1], (1,2], ..., (2^10,2^11] in [14], and
     * (2^11, inf] (NaN too) in [15] */
    if (ulp == 0) return 0;
    if (!(ulp <= 2048)) return 15;
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
static double ug_output_ratio(ug_result *r, size_t nterms, const ug_exact *records, size_t e,
                              const ug_error *err, double lambda, double *bound)
{
    const ug_kernel *k = r->kernel;
    const ug_exact *x = &records[e];
    *bound = 0;
    if (x->cls != UG_X_FINITE) return err->abs == 0 ? 0 : INFINITY;
    if (k->bound == UG_BOUND_NONE) {
        r->bound_unchecked++;
        return 0;
    }
    const ug_op_desc *d = r->in ? ug_input_op(r->in) : NULL;
    if (d && d->bound_at) { /* the operation's own bound of output e (attention: per output,
                               from the row's records); no probabilistic one */
        ug_shape sh = ug_input_shape(r->in);
        double ab = d->bound_at(k, &sh, &r->in->opts, records, e);
        *bound = ab;
        if (!isfinite(err->abs)) return INFINITY; /* inf or NaN for a finite value: no bound
                                                     covers it (the unshifted exp overflow) */
        if (!isfinite(ab)) {
            *bound = 0;
            r->bound_unchecked++;
            return 0;
        }
        double ratio = ug_ratio(err->abs, ab);
        if (!(ratio <= r->apriori_ratio_max)) r->apriori_ratio_max = ratio;
        *bound = ab;
        return ratio;
    }
    double ab = ug_kernel_bound(k, nterms, x->sum_abs, fabs(x->hi));
    if (isfinite(ab)) ab += ug_kernel_bound_underflow(k, nterms, r->operand_max);
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
                       size_t e, double got, const ug_exact *records, ug_fmt fmt)
{
    /* fmt: output e's buffer's format (errors in its ULPs) */
    const ug_exact *x = &records[e];
    ug_shape sh = r->in ? ug_input_shape(r->in) : (ug_shape){{0}}; /* output e's own terms (scan) */
    if (r->in && ug_input_op(r->in)->shape->terms_at) nterms = ug_op_terms_at(ug_input_op(r->in), &sh, e);
    ug_error err = ug_error_fmt(x, fmt, got);
    double bound, ratio = ug_output_ratio(r, nterms, records, e, &err, lambda, &bound);
    if (ug_same_f64(got, ug_exact_rn(x, fmt))) r->correctly_rounded++;
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
    /* the seven-methods post's own metric: against RD(s) in the output's format, its
     * MPFR_RNDD reference */
    if (x->cls == UG_X_FINITE) {
        double rd = ug_exact_rd(x, fmt), d = fabs(got - rd);
        r->abs_err_sum_rd += d;
        r->rel_err_sum_rd += rd != 0 ? d / fabs(rd) : d == 0 ? 0 : INFINITY;
    }
    r->ulp_hist[ug_ulp_bucket(err.ulp)]++;
    r->count++;
}

/* Accounting a trial's outputs in chunks of UG_CHUNK, on the threads of base/par.h, each chunk
 * into a partial result of its own, the partials then folded into r in chunk order: the figures
 * are the same for any thread count (sums in a fixed order, the first worst element on ties).
 * A GEMM of 2048^2 outputs takes ~0.4 s serially. */
enum { UG_CHUNK = 4096 };

typedef struct {
    ug_result part;
    ug_sums sums;
} ug_chunk;

typedef struct {
    const ug_result *r;
    ug_chunk *chunks;
    size_t nterms;
    double lambda;
    int trial;
    const void *out; /* the kernel's output buffers (ug_outs) */
    const ug_outs *outs;
    const ug_exact *exact;
    size_t elements;
} ug_account_job;

static void ug_account_chunks(void *ctx, size_t lo, size_t hi)
{
    const ug_account_job *j = ctx;
    for (size_t c = lo; c < hi; c++) {
        ug_chunk *ch = &j->chunks[c];
        memset(ch, 0, sizeof *ch);
        ch->part.kernel = j->r->kernel, ch->part.in = j->r->in;
        size_t end = (c + 1) * UG_CHUNK < j->elements ? (c + 1) * UG_CHUNK : j->elements;
        for (size_t e = c * UG_CHUNK; e < end; e++)
            ug_account(&ch->part, &ch->sums, j->nterms, j->lambda, j->trial, e,
                       ug_outs_load(j->outs, j->out, e), j->exact,
                       j->outs->fmt[ug_outs_buf(j->outs, e)]);
    }
}

static void ug_worst_merge(ug_worst *dst, double cur, const ug_worst *src, double key)
{
    if (src->set && (!dst->set || key > cur)) *dst = *src;
}

static void ug_max_merge(double *dst, double src)
{
    if (!(src <= *dst)) *dst = src;
}

/* Fold partial p into r (the order of the calls is the order of the sums). */
static void ug_result_merge(ug_result *r, ug_sums *sums, const ug_result *p, const ug_sums *ps)
{
    ug_worst_merge(&r->worst_ulp, r->ulp_max, &p->worst_ulp, p->worst_ulp.err.ulp);
    ug_worst_merge(&r->worst_rel, r->rel_max, &p->worst_rel, p->worst_rel.err.rel);
    ug_worst_merge(&r->worst_abs, r->abs_max, &p->worst_abs, p->worst_abs.err.abs);
    ug_worst_merge(&r->worst_ratio, r->bound_ratio_max, &p->worst_ratio, p->worst_ratio.ratio);
    ug_max_merge(&r->ulp_max, p->ulp_max);
    ug_max_merge(&r->rel_max, p->rel_max);
    ug_max_merge(&r->abs_max, p->abs_max);
    ug_max_merge(&r->bound_ratio_max, p->bound_ratio_max);
    ug_max_merge(&r->apriori_ratio_max, p->apriori_ratio_max);
    ug_max_merge(&r->prob_ratio_max, p->prob_ratio_max);
    if (p->prob_failure > r->prob_failure) r->prob_failure = p->prob_failure;
    sums->ulp += ps->ulp;
    sums->rel += ps->rel;
    sums->ratio += ps->ratio;
    r->abs_err_sum += p->abs_err_sum;
    r->rel_err_sum += p->rel_err_sum;
    r->abs_err_sum_rd += p->abs_err_sum_rd;
    r->rel_err_sum_rd += p->rel_err_sum_rd;
    for (int b = 0; b < 16; b++) r->ulp_hist[b] += p->ulp_hist[b];
    r->count += p->count;
    r->correctly_rounded += p->correctly_rounded;
    r->bound_vacuous += p->bound_vacuous;
    r->bound_unchecked += p->bound_unchecked;
}

/* Every output of one run of trial i (out) into r's figures. */
static void ug_account_trial(ug_result *r, ug_sums *sums, size_t nterms, double lambda, int trial,
                             const void *out, const ug_exact *exact)
{
    ug_outs o = ug_outs_of(r->kernel, r->in);
    if (r->elements <= UG_CHUNK) { /* one chunk: inline, no threads */
        for (size_t e = 0; e < r->elements; e++)
            ug_account(r, sums, nterms, lambda, trial, e, ug_outs_load(&o, out, e), exact,
                       o.fmt[ug_outs_buf(&o, e)]);
        return;
    }
    size_t nchunks = (r->elements + UG_CHUNK - 1) / UG_CHUNK;
    ug_account_job job = {r, ug_xmalloc(nchunks * sizeof(ug_chunk)), nterms, lambda, trial, out,
                          &o, exact, r->elements};
    ug_par_range(nchunks, 1, 0, ug_account_chunks, &job);
    for (size_t c = 0; c < nchunks; c++) ug_result_merge(r, sums, &job.chunks[c].part, &job.chunks[c].sums);
    free(job.chunks);
}

/* ---- the phases of a measurement ------------------------------------------------------------- */

static ug_result *ug_result_new(ug_t *t, const ug_kernel *k, const ug_input *in)
{
    ug_result *r = ug_xcalloc(1, sizeof *r);
    ug_mctx *m = ug_mctx_of(t);
    if (m->n_results == m->cap_results) {
        m->cap_results = m->cap_results ? 2 * m->cap_results : 16;
        m->results = ug_xrealloc(m->results, m->cap_results * sizeof *m->results);
    }
    m->results[m->n_results++] = r;
    r->kernel = k;
    r->in = in;
    r->shape = in->shape;
    snprintf(r->dist, sizeof r->dist, "%s", in->label);
    r->trials = in->trials;
    r->first_trial = in->first_trial;
    r->elements = ug_input_elements(in);
    return r;
}

/* The test point's name: "case kernel@variant n=N" (n=MxNxK for a rectangular GEMM). */
static void ug_measure_open(ug_t *t, ug_result *r)
{
    char name[256], size[80];
    const ug_input *in = r->in;
    ug_shape s = ug_input_shape(in);
    snprintf(name, sizeof name, "%s %s n=%s", ug_mctx_of(t)->name, r->kernel->id,
             ug_op_shape_text(ug_input_op(in), &s, true, size, sizeof size));
    ug_m_open(t, name, r);
}

/* An output still holding the poison pattern (every byte 0xff: a NaN in every format of
 * base/format.h) was never written: a kernel bug, whatever the metrics say (GPU launchers
 * poison their device buffers the same way before every launch). */
static bool ug_is_poison(const void *out, size_t size, size_t e)
{
    const unsigned char *b = (const unsigned char *)out + e * size;
    for (size_t j = 0; j < size; j++)
        if (b[j] != UG_POISON_BYTE) return false;
    return true;
}

static void ug_check_written(ug_t *t, ug_result *r, int i, const void *out)
{
    size_t first = 0, count = 0;
    ug_outs o = ug_outs_of(r->kernel, r->in);
    for (size_t e = 0; e < r->elements; e++) {
        int j = ug_outs_buf(&o, e);
        size_t size = ug_fmt_bytes(o.fmt[j]);
        if (ug_is_poison((const char *)out + o.off[j], size, e - o.first[j])) {
            if (!count) first = e;
            count++;
        }
    }
    if (!count) return;
    r->unwritten += count;
    ug_m_fail(t, __FILE__, __LINE__, "every output written",
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

static int ug_run_trial(ug_t *t, ug_result *r, int i, void *out, int reps, double *ms)
{
    return ug_run_trial_fenced(t, r, i, out, reps, ms, UG_FENCE_END);
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
    ug_shape shape = ug_input_shape(in);
    size_t nterms = ug_op_terms(ug_input_op(in), &shape);
    int repeats = k->nondeterministic ? UG_NONDET_REPEATS : 1, repeats_max = 0;
    size_t bytes = ug_outs_of(k, in).bytes;
    double *times = ug_xcalloc((size_t)r->trials, sizeof(double));
    float **seen = ug_xcalloc((size_t)repeats, sizeof(float *));
    /* repeats that gave the first run's bits again: accounted at the end, unless every repeat
     * of every trial did (the kernel, declared nondeterministic, measured deterministic) */
    int *again = ug_xcalloc((size_t)r->trials, sizeof(int));
    ug_sums sums = {0, 0, 0};
    int rc = 0;
    if (!ug_limits_outputs(t, r)) rc = -1;
    else r->out = ug_xcalloc((size_t)r->trials, sizeof(float *));
    for (int i = 0; i < r->trials && rc == 0; i++) {
        int trial = in->first_trial + i, distinct = 0;
        if (ug_m_stopping(t)) { /* a signal: the point is skipped, the case left */
            ug_m_skip_point(t, "interrupted by %s after %d of %d trials", ug_m_stop_reason(t), i,
                            r->trials);
            rc = -2;
            break;
        }
        r->out[i] = ug_xmalloc(bytes);
        for (int rep = 0; rep < repeats && rc == 0; rep++) {
            float *out = rep == 0 ? r->out[i] : ug_xmalloc(bytes);
            double ms = 0, t_run = ug_now_s();
            bool timed = k->backend == UG_CUDA && i == 0 && rep == 0 &&
                         ug_input_ops(in) >= UG_GPU_TIMED_OPS;
            int reps = timed ? ug_limits_timing_reps(UG_GPU_TIMING_REPS) : 0;
            if (ug_run_trial(t, r, i, out, reps, &ms) != 0) {
                rc = -1;
                if (rep) free(out);
                break;
            }
            if (rep == 0) times[i] = ms;
            /* one run's time: the kernel's own when it timed itself, else this call's wall time */
            if (rep == 0 && k->nondeterministic)
                repeats = ug_nondet_repeats(ms > 0 ? ms : 1e3 * (ug_now_s() - t_run));
            if (rep > 0 && memcmp(seen[0], out, bytes) == 0) {
                again[i]++;
                free(out);
                continue;
            }
            double t0 = ug_prof_now();
            ug_check_written(t, r, i, out);
            ug_account_trial(r, &sums, nterms, ug_mctx_of(t)->lambda, trial, out, in->exact[i]);
            ug_prof_add(UG_PH_ACCOUNT, t0, NULL);
            bool found = false;
            for (int s = 0; s < distinct && !found; s++) found = memcmp(seen[s], out, bytes) == 0;
            if (!found)
                seen[distinct++] = out;
            else if (rep)
                free(out);
        }
        for (int s = 1; s < distinct; s++) free(seen[s]);
        if (repeats > repeats_max) repeats_max = repeats;
        if (distinct > r->distinct_results) r->distinct_results = distinct;
        if (in->kappa[i] > r->kappa_max || isnan(in->kappa[i])) r->kappa_max = in->kappa[i];
    }
    free(seen);
    if (k->nondeterministic) r->repeats = repeats_max;
    r->measured_deterministic = k->nondeterministic && rc == 0 && repeats_max > 1 &&
                                r->distinct_results == 1;
    for (int i = 0; i < r->trials && !r->measured_deterministic; i++)
        for (int a = 0; a < again[i]; a++) { /* each repeat accounted, as it ran */
            ug_check_written(t, r, i, r->out[i]);
            ug_account_trial(r, &sums, nterms, ug_mctx_of(t)->lambda, in->first_trial + i, r->out[i],
                             in->exact[i]);
        }
    free(again);
    if (rc == 0) { /* a difference fails the point, the figures kept */
        double longest = 0;
        for (int i = 0; i < r->trials; i++)
            if (times[i] > longest) longest = times[i];
        ug_measure_determinism(t, r, longest);
    }
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
    /* to the nanosecond, what the clocks resolve (CLOCK_MONOTONIC's unit; CUDA events ~0.5 us):
     * the digits below it are noise from the difference of two doubles, and cost a results.json
     * ~20 bytes a row */
    r->time_ms = round(r->time_ms * 1e6) / 1e6;
    if (r->time_ms > 0) {
        double s = r->time_ms * 1e-3;
        const ug_op_desc *d = ug_input_op(in);
        ug_shape sh = ug_input_shape(in);
        if (d->shape->rate == UG_RATE_GFLOPS)
            r->gflops = ug_opshape_flops(d->shape, &sh) / s / 1e9;
        else
            r->gbps = ug_opshape_bytes(d->shape, &sh) / s / 1e9;
    }
}

/* Determinism: trial 0 `repeats` more times, distinct bitwise outputs counted. */
static void ug_measure_repeats(ug_t *t, ug_result *r, int repeats)
{
    float **seen = ug_xcalloc((size_t)repeats + 1, sizeof(float *));
    size_t bytes = ug_outs_of(r->kernel, r->in).bytes;
    int distinct = 1;
    seen[0] = r->out[0];
    float *buf = ug_xmalloc(bytes);
    for (int rep = 0; rep < repeats; rep++) {
        ug_call c;
        ug_call_setup(&c, r->kernel, r->in, 0, buf);
        double t0 = ug_prof_now();
        int rc = ug_run_kernel(t, r->kernel, &c, __FILE__, __LINE__);
        ug_prof_add(UG_PH_KERNEL, t0, r->kernel->id);
        if (rc != 0) {
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
    ug_m_check_stop(t);
    ug_result *r = ug_result_new(t, k, in);
    r->prob_lambda = ug_mctx_of(t)->lambda;
    ug_measure_open(t, r);
    if (k->op != in->op) {
        ug_m_fail(t, __FILE__, __LINE__, "ug_measure", "kernel %s computes %s, input is %s",
                  k->id, ug_op_name(k->op), ug_op_name(in->op));
        r->failed_run = true;
        return r;
    }
    if (!ug_measure_formats_ok(t, k, in)) {
        r->failed_run = true;
        return r;
    }
    if (k->backend == UG_CUDA && !ug_gpu_available()) {
        ug_m_skip_point(t, "no CUDA device");
        return r;
    }
    if (ug_measure_out_of_range(t, r)) return r;
    if (ug_kernel_bound_underflow(k, 1, 1.0) > 0) { /* operands rounded to a narrower format */
        r->operand_max = ug_input_operand_max(in);
        if (r->operand_max > ug_kernel_operand_limit(k)) {
            ug_m_skip_point(t,
                     "operands up to %.4g exceed the %s class's range (%.6g): they may overflow, "
                     "no a-priori bound", r->operand_max, ug_bound_class_name(k->bound),
                     ug_kernel_operand_limit(k));
            return r;
        }
    }
    int rc = ug_measure_trials(t, r);
    if (rc == -2) ug_m_leave(t); /* interrupted: the case sees no partial outputs */
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
