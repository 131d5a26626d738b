/*
 * measure.c - inputs (generated once per size, with their exact results) and measurements
 * (a kernel run on every trial, every output compared with the oracle).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "runner.h"

/* ---- inputs ------------------------------------------------------------------------------------ */

static void ug_track_input(ug_t *t, ug_input *in)
{
    if (t->n_inputs == t->cap_inputs) {
        t->cap_inputs = t->cap_inputs ? 2 * t->cap_inputs : 8;
        ug_input **v = realloc(t->inputs, t->cap_inputs * sizeof *v);
        if (!v) {
            fprintf(stderr, "ulpgate: out of memory\n");
            exit(2);
        }
        t->inputs = v;
    }
    t->inputs[t->n_inputs++] = in;
}

void ug_input_release(ug_input *in)
{
    if (!in) return;
    int made = in->trials;
    for (int i = 0; i < made; i++) {
        if (in->x) free(in->x[i]);
        if (in->y) free(in->y[i]);
        if (in->exact) free(in->exact[i]);
    }
    free(in->x);
    free(in->y);
    free(in->exact);
    free(in->kappa);
    free(in);
}

void ug_input_free(ug_t *t, ug_input *in)
{
    if (t->tp_result && t->tp_result->in == in) ug_tp_close(t);
    for (size_t i = 0; i < t->n_inputs; i++)
        if (t->inputs[i] == in) {
            t->inputs[i] = t->inputs[--t->n_inputs];
            break;
        }
    /* results measured on it keep a pointer: detach them */
    for (size_t i = 0; i < t->n_results; i++)
        if (t->results[i]->in == in) t->results[i]->in = NULL;
    ug_input_release(in);
}

static size_t ug_input_elements(const ug_input *in)
{
    return in->op == UG_OP_GEMM ? in->gemm_m * in->gemm_n : 1;
}

/* Exact results and condition numbers of every trial (the oracle's cost lives here, once). */
static void ug_input_exact(ug_input *in, int i)
{
    size_t m = ug_input_elements(in);
    in->exact[i] = ug_xmalloc(m * sizeof(ug_exact));
    switch (in->op) {
    case UG_OP_SUM: ug_exact_sum_f32(in->x[i], in->n, in->exact[i]); break;
    case UG_OP_DOT: ug_exact_dot_f32(in->x[i], 1, in->y[i], 1, in->n, in->exact[i]); break;
    case UG_OP_GEMM:
        ug_exact_gemm_f32(in->x[i], in->y[i], in->gemm_m, in->gemm_n, in->gemm_k, in->exact[i]);
        break;
    }
    double kappa = 0;
    for (size_t e = 0; e < m; e++) {
        const ug_exact *x = &in->exact[i][e];
        double k = x->cls != UG_X_FINITE ? NAN : x->hi != 0 ? x->sum_abs / fabs(x->hi)
                                              : x->sum_abs > 0 ? INFINITY : 1;
        if (k > kappa) kappa = k;
    }
    in->kappa[i] = kappa;
}

static ug_input *ug_input_alloc(ug_t *t, ug_op op, const char *label, size_t n, int trials)
{
    ug_input *in = ug_xcalloc(1, sizeof *in);
    in->op = op;
    in->n = n;
    snprintf(in->label, sizeof in->label, "%s", label);
    in->first_trial = 0;
    in->trials = trials;
    if (t->opt->trial >= 0) {
        in->first_trial = (int)t->opt->trial;
        in->trials = 1;
    }
    in->x = ug_xcalloc((size_t)in->trials, sizeof(float *));
    in->y = ug_xcalloc((size_t)in->trials, sizeof(float *));
    in->exact = ug_xcalloc((size_t)in->trials, sizeof(ug_exact *));
    in->kappa = ug_xcalloc((size_t)in->trials, sizeof(double));
    in->stream_id = ug_hash64(label, ug_hash64(t->c->name, UG_HASH64_INIT));
    ug_track_input(t, in);
    return in;
}

static ug_input *ug_input_generate(ug_t *t, ug_op op, const ug_dist *d, size_t M, size_t N,
                                   size_t K, int trials)
{
    char label[96], err[256];
    ug_dist_describe(d, label, sizeof label);
    if (trials < 1) trials = 1;
    ug_input *in = ug_input_alloc(t, op, label, M, ug_trials(t, trials));
    in->dist = *d;
    in->gemm_m = M;
    in->gemm_n = N;
    in->gemm_k = K;
    for (int i = 0; i < in->trials; i++) {
        uint32_t trial = (uint32_t)(in->first_trial + i);
        int rc;
        err[0] = 0;
        if (op == UG_OP_GEMM) {
            in->x[i] = ug_xmalloc(M * K * sizeof(float));
            in->y[i] = ug_xmalloc(K * N * sizeof(float));
            rc = ug_dist_fill_gemm(d, t->opt->seed, in->stream_id, trial, in->x[i], in->y[i], M,
                                   N, K, err, sizeof err);
        } else if (op == UG_OP_DOT) {
            in->x[i] = ug_xmalloc(M * sizeof(float));
            in->y[i] = ug_xmalloc(M * sizeof(float));
            rc = ug_dist_fill_dot(d, t->opt->seed, in->stream_id, trial, in->x[i], in->y[i], M,
                                  err, sizeof err);
        } else {
            in->x[i] = ug_xmalloc(M * sizeof(float));
            rc = ug_dist_fill_sum(d, t->opt->seed, in->stream_id, trial, in->x[i], M, err,
                                  sizeof err);
        }
        if (rc != 0) {
            ug_fail_header(t, __FILE__, __LINE__, "ug_input_make", "%s, n=%zu: %s", label, M, err);
            ug_abort_case(t);
        }
        ug_input_exact(in, i);
    }
    return in;
}

ug_input *ug_input_make(ug_t *t, ug_op op, const ug_dist *d, size_t n, int trials)
{
    return ug_input_generate(t, op, d, n, n, n, trials);
}

ug_input *ug_input_make_gemm(ug_t *t, const ug_dist *d, size_t M, size_t N, size_t K, int trials)
{
    return ug_input_generate(t, UG_OP_GEMM, d, M, N, K, trials);
}

ug_input *ug_input_from_data(ug_t *t, ug_op op, const char *label, const float *x, const float *y,
                             size_t n)
{
    ug_input *in = ug_input_alloc(t, op, label, n, 1);
    in->first_trial = 0;
    in->trials = 1;
    in->gemm_m = in->gemm_n = in->gemm_k = n;
    in->x[0] = ug_xmalloc(n * sizeof(float));
    memcpy(in->x[0], x, n * sizeof(float));
    if (op == UG_OP_DOT) {
        in->y[0] = ug_xmalloc(n * sizeof(float));
        memcpy(in->y[0], y, n * sizeof(float));
    }
    ug_input_exact(in, 0);
    return in;
}

/* ---- measurements ---------------------------------------------------------------------------------- */

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

static void ug_track_result(ug_t *t, ug_result *r)
{
    if (t->n_results == t->cap_results) {
        t->cap_results = t->cap_results ? 2 * t->cap_results : 16;
        ug_result **v = realloc(t->results, t->cap_results * sizeof *v);
        if (!v) {
            fprintf(stderr, "ulpgate: out of memory\n");
            exit(2);
        }
        t->results = v;
    }
    t->results[t->n_results++] = r;
}

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
    w->set = true;
    w->trial = trial;
    w->index = idx;
    w->got = got;
    w->exact = *e;
    w->err = *err;
    w->bound = bound;
    w->ratio = ratio;
}

int ug_run_kernel(ug_t *t, const ug_kernel *k, ug_call *c, const char *file, int line)
{
    c->err[0] = 0;
    int rc = ug_kernel_run(k, c);
    if (rc != 0) {
        ug_fail_header(t, file, line, k->name, "kernel failed: %s",
                       c->err[0] ? c->err : "(no message)");
        return rc;
    }
    return 0;
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

static int ug_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* GPU kernels time themselves (events, median of reps after a warm-up); CPU kernels are timed
 * here, one wall-clock run per trial, median over trials. */
enum { UG_GPU_TIMING_REPS = 10 };

static ug_result *ug_measure_impl(ug_t *t, const ug_kernel *k, const ug_input *in, int repeats)
{
    ug_result *r = ug_xcalloc(1, sizeof *r);
    ug_track_result(t, r);
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
    r->seed_method = k->method;
    r->correctly_rounded = true;
    char name[256];
    if (in->op == UG_OP_GEMM && !(in->gemm_m == in->gemm_n && in->gemm_n == in->gemm_k))
        snprintf(name, sizeof name, "%s %s n=%zux%zux%zu", t->c->name, k->name, in->gemm_m,
                 in->gemm_n, in->gemm_k);
    else
        snprintf(name, sizeof name, "%s %s n=%zu", t->c->name, k->name, in->n);
    ug_tp_open(t, name, r);
    if (k->op != in->op) {
        ug_fail_header(t, __FILE__, __LINE__, "ug_measure", "kernel %s computes %s, input is %s",
                       k->name, ug_op_name(k->op), ug_op_name(in->op));
        r->failed_run = true;
        return r;
    }
    if (k->backend == UG_CUDA && !ug_gpu_available()) {
        t->tp_skipped = true;
        snprintf(t->tp_skip_reason, sizeof t->tp_skip_reason, "no CUDA device");
        return r;
    }

    r->out = ug_xcalloc((size_t)r->trials, sizeof(float *));
    double *times = ug_xcalloc((size_t)r->trials, sizeof(double));
    size_t nterms = in->op == UG_OP_GEMM ? in->gemm_k : in->n;
    double ulp_sum = 0, rel_sum = 0, ratio_sum = 0;
    for (int i = 0; i < r->trials; i++) {
        int trial = in->first_trial + i;
        r->out[i] = ug_xmalloc(r->elements * sizeof(float));
        /* poison: an output the kernel never writes shows up as NaN, not as a stale value */
        for (size_t e = 0; e < r->elements; e++) r->out[i][e] = NAN;
        ug_call c;
        ug_call_setup(&c, in, i, r->out[i]);
        if (k->backend == UG_CUDA && i == 0) c.reps = UG_GPU_TIMING_REPS;
        double t0 = ug_now_s();
        if (ug_run_kernel(t, k, &c, __FILE__, __LINE__) != 0) {
            snprintf(r->run_error, sizeof r->run_error, "%s", c.err);
            r->failed_run = true;
            ug_rerun_line(t, r, trial);
            free(times);
            return r;
        }
        times[i] = k->backend == UG_CUDA ? c.time_ms : 1e3 * (ug_now_s() - t0);
        for (size_t e = 0; e < r->elements; e++) {
            const ug_exact *x = &in->exact[i][e];
            float got = r->out[i][e];
            ug_error err = ug_error_of(x, got);
            double bound = 0, ratio = 0;
            if (x->cls == UG_X_FINITE && k->bound != UG_BOUND_NONE) {
                bound = ug_kernel_bound(k, nterms, x->sum_abs, fabs(x->hi));
                if (isinf(bound)) r->bound_vacuous++;
                ratio = err.abs == 0 ? 0 : bound > 0 ? err.abs / bound : INFINITY;
            }
            if (!ug_same_f32(got, x->rn)) r->correctly_rounded = false;
            ug_worst_update(&r->worst_ulp, err.ulp, r->ulp_max, trial, e, got, x, &err, bound, ratio);
            ug_worst_update(&r->worst_rel, err.rel, r->rel_max, trial, e, got, x, &err, bound, ratio);
            ug_worst_update(&r->worst_abs, err.abs, r->abs_max, trial, e, got, x, &err, bound, ratio);
            ug_worst_update(&r->worst_ratio, ratio, r->bound_ratio_max, trial, e, got, x, &err,
                            bound, ratio);
            if (!(err.ulp <= r->ulp_max)) r->ulp_max = err.ulp;
            if (!(err.rel <= r->rel_max)) r->rel_max = err.rel;
            if (!(err.abs <= r->abs_max)) r->abs_max = err.abs;
            if (!(ratio <= r->bound_ratio_max)) r->bound_ratio_max = ratio;
            ulp_sum += err.ulp;
            rel_sum += err.rel;
            ratio_sum += ratio;
            r->abs_err_sum += err.abs;
            r->rel_err_sum += err.rel;
            /* seed 004's own metric: against RD32(s), the seed's MPFR_RNDD oracle */
            if (x->cls == UG_X_FINITE) {
                double d = fabs((double)got - (double)x->rd);
                r->abs_err_sum_seedref += d;
                r->rel_err_sum_seedref += x->rd != 0 ? d / fabs((double)x->rd) : d == 0 ? 0 : INFINITY;
            }
            r->ulp_hist[ug_hist_bucket(err.ulp)]++;
            r->count++;
        }
        if (in->kappa[i] > r->kappa_max || isnan(in->kappa[i])) r->kappa_max = in->kappa[i];
    }
    r->ulp_mean = r->count ? ulp_sum / (double)r->count : 0;
    r->rel_mean = r->count ? rel_sum / (double)r->count : 0;
    r->bound_ratio_mean = r->count ? ratio_sum / (double)r->count : 0;

    /* time: GPU = trial 0's median over reps; CPU = median over trials */
    if (k->backend == UG_CUDA) {
        r->time_ms = times[0];
    } else {
        qsort(times, (size_t)r->trials, sizeof *times, ug_dcmp);
        r->time_ms = times[r->trials / 2];
    }
    free(times);
    if (r->time_ms > 0) {
        double s = r->time_ms * 1e-3;
        if (in->op == UG_OP_GEMM)
            r->gflops = 2.0 * (double)in->gemm_m * (double)in->gemm_n * (double)in->gemm_k / s / 1e9;
        else
            r->gbps = (double)in->n * (in->op == UG_OP_DOT ? 8.0 : 4.0) / s / 1e9;
    }

    /* determinism: the same input `repeats` more times, distinct bitwise outputs counted */
    if (repeats > 0) {
        float **seen = ug_xcalloc((size_t)repeats + 1, sizeof(float *));
        size_t bytes = r->elements * sizeof(float);
        int distinct = 1;
        seen[0] = r->out[0];
        float *buf = ug_xmalloc(bytes);
        for (int rep = 0; rep < repeats; rep++) {
            ug_call c;
            ug_call_setup(&c, in, 0, buf);
            if (ug_run_kernel(t, k, &c, __FILE__, __LINE__) != 0) {
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
    return r;
}

ug_result *ug_measure(ug_t *t, const ug_kernel *k, const ug_input *in)
{
    return ug_measure_impl(t, k, in, 0);
}

ug_result *ug_measure_repeat(ug_t *t, const ug_kernel *k, const ug_input *in, int repeats)
{
    return ug_measure_impl(t, k, in, repeats < 1 ? 1 : repeats - 1);
}
