/*
 * input.c - a case's inputs: every trial of one size generated once (a pure function of seed,
 * case, distribution, trial and element), with the exact results and condition numbers the
 * oracle gives for them (computed once, shared by every kernel measured on them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "context.h"
#include "guard.h"
#include "run_limits.h"
#include "rng.h"

static void ug_track_input(ug_t *t, ug_input *in)
{
    if (t->n_inputs == t->cap_inputs) {
        t->cap_inputs = t->cap_inputs ? 2 * t->cap_inputs : 8;
        t->inputs = ug_xrealloc(t->inputs, t->cap_inputs * sizeof *t->inputs);
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
    if (t->pt.result && t->pt.result->in == in) ug_point_close(t);
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

size_t ug_input_elements(const ug_input *in)
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
    in->trials = trials = ug_limits_trials(trials);
    if (t->opt->trial >= trials) {
        char why[160];
        snprintf(why, sizeof why, "--trial %ld: this input has %d trial(s)", t->opt->trial, trials);
        free(in);
        ug_skip(t, why);
    }
    if (t->opt->trial >= 0) {
        in->first_trial = (int)t->opt->trial;
        in->trials = 1;
    }
    in->x = ug_xcalloc((size_t)in->trials, sizeof(float *));
    in->y = ug_xcalloc((size_t)in->trials, sizeof(float *));
    in->exact = ug_xcalloc((size_t)in->trials, sizeof(ug_exact *));
    in->kappa = ug_xcalloc((size_t)in->trials, sizeof(double));
    in->stream_id = ug_hash64(label, ug_hash64(t->unit->name, UG_HASH64_INIT));
    ug_track_input(t, in);
    return in;
}

static ug_input *ug_input_generate(ug_t *t, ug_op op, const ug_dist *d, size_t M, size_t N,
                                   size_t K, int trials)
{
    char label[160], err[256];
    ug_dist_describe(d, label, sizeof label);
    if (trials < 1) trials = 1;
    ug_guard_check(t);
    ug_limits_input(t, op, label, M, N, K, ug_trials(t, trials)); /* before it is allocated */
    ug_input *in = ug_input_alloc(t, op, label, M, ug_trials(t, trials));
    in->dist = *d;
    in->gemm_m = M;
    in->gemm_n = N;
    in->gemm_k = K;
    for (int i = 0; i < in->trials; i++) {
        uint32_t trial = (uint32_t)(in->first_trial + i);
        int rc;
        ug_guard_check(t); /* a signal: the input is released with the case */
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
    size_t count = op == UG_OP_GEMM ? n * n : n; /* a GEMM's A and B are n x n */
    in->x[0] = ug_xmalloc(count * sizeof(float));
    memcpy(in->x[0], x, count * sizeof(float));
    if (op != UG_OP_SUM) {
        in->y[0] = ug_xmalloc(count * sizeof(float));
        memcpy(in->y[0], y, count * sizeof(float));
    }
    ug_input_exact(in, 0);
    return in;
}
