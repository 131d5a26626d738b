/*
 * input.c - a case's inputs: every trial of one size generated once (a pure function of seed,
 * case, distribution, trial and element), with the exact results and condition numbers the
 * oracle gives for them (computed once, shared by every kernel measured on them).
 *
 * Which oracle: the one --oracle names; without it, the GPU oracle (oracle/gpu.h) for the
 * inputs of GPU cases when it can answer, the fast CPU oracle otherwise.  The GPU oracle's
 * results are cross-checked on a random sample (ug_input_cross_check) against the fast oracle;
 * a difference, or a GPU oracle error, fails the case there, naming the element.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/run/context.h"
#include "oracle/gpu.h"
#include "harness/run/guard.h"
#include "harness/run/prof.h"
#include "harness/run/run_limits.h"
#include "harness/inputs/rng.h"

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

/* The condition number of trial i: max over its elements of sum_abs / |s|. */
static void ug_input_kappa(ug_input *in, int i)
{
    size_t m = ug_input_elements(in);
    double kappa = 0;
    for (size_t e = 0; e < m; e++) {
        const ug_exact *x = &in->exact[i][e];
        double k = x->cls != UG_X_FINITE ? NAN : x->hi != 0 ? x->sum_abs / fabs(x->hi)
                                              : x->sum_abs > 0 ? INFINITY : 1;
        if (k > kappa) kappa = k;
    }
    in->kappa[i] = kappa;
}

/* ---- the GPU oracle ------------------------------------------------------------------------- */

/* Sampled per input: this many sum or dot trials (all when fewer), this many elements of every
 * GEMM trial. */
enum { UG_XCHECK_TRIALS = 8, UG_XCHECK_ELEMENTS = 64 };

static ug_gpu_oracle_tally ug_gpu_tally;

ug_gpu_oracle_tally ug_gpu_oracle_counts(void) { return ug_gpu_tally; }

/* With no --oracle, the inputs the GPU oracle answers sooner than the fast CPU oracle.
 * Measured on the H100 (16 cores): every input of the default GPU suite timed on both oracles
 * inside the suite, whose tests share the GPU, and `ulpgate bench oracle --gpu` (one process
 * alone on the device):
 *   - a GEMM whose trials have M N K >= 2^27 multiply-adds.  Alone, the GPU oracle wins from
 *     64^3 (0.28 ms against 0.45; 1024^3: 4.0 ms against 63); inside the suite, its launches,
 *     copies and syncs wait behind the other tests' kernels, 2-30 ms a call, and the CPU oracle
 *     costs ~2 ns per multiply-add per core (1000^3: 0.10-0.24 s against 10-45 ms; 255^3: 5 ms
 *     against 10-80).  2^27 is where the CPU's time on 16 cores reaches ~17 ms, the suite's
 *     typical GPU call: below it the GPU saves at most ~5 ms alone and loses up to ~30 ms in the
 *     suite;
 *   - sums and dots never: a GPU answer is cross-checked by recomputing up to 8 of its trials on
 *     the CPU, the whole CPU cost when an input has 8 trials or fewer, and every term crosses
 *     PCIe (8 sums of 2^24 terms, alone: CPU 16 ms, GPU 63 ms before the cross-check).
 * The rule depends on the input only, not on the machine (its cores): the oracles' records
 * agree bit for bit except sum_abs (the fast oracle's is an upper bound within 2^-42 of the GPU
 * oracle's RU64), which moves bound ratios in their last bits, so the same input must meet the
 * same oracle wherever a baseline is compared.  --oracle gpu sends every input to the GPU. */
bool ug_gpu_oracle_pays(ug_op op, size_t M, size_t N, size_t K)
{
    return op == UG_OP_GEMM && (double)M * (double)N * (double)K >= 0x1p27;
}

/* --oracle gpu; or no --oracle, a GPU case, a GPU oracle that can answer, and an input where it
 * pays (above). */
static bool ug_input_uses_gpu(const ug_t *t, const ug_input *in)
{
    static int usable = -1;
    if (t->opt->oracle == UG_ORACLE_GPU) return true;
    if (t->opt->oracle_set || !(t->c->flags & UG_CASE_GPU)) return false;
    if (!ug_gpu_oracle_pays(in->op, in->gemm_m, in->gemm_n, in->gemm_k)) return false;
    if (!ug_gpu_available()) return false;
    if (usable < 0) usable = ug_gpu_oracle_available(NULL, 0);
    return usable == 1;
}

/* A GPU result against the fast oracle's: a difference fails the case here. */
static void ug_cross_compare(ug_t *t, const ug_input *in, int i, size_t e, const ug_exact *g,
                             const ug_exact *f)
{
    ug_gpu_tally.checked++;
    if (ug_exact_equal(g, f)) return;
    ug_gpu_tally.differ++;
    bool gemm = in->op == UG_OP_GEMM;
    size_t row = gemm ? e / in->gemm_n : 0, col = gemm ? e % in->gemm_n : 0;
    ug_fail_header(t, __FILE__, __LINE__, "GPU oracle cross-check",
                   "%s %s n=%zu trial %d element %zu (row %zu, column %zu): %s oracle hi=%a lo=%a "
                   "rn=%a rd=%a cls=%d sum_abs=%a, fast oracle hi=%a lo=%a rn=%a rd=%a cls=%d "
                   "sum_abs=%a", ug_op_name(in->op), in->label, in->n, in->first_trial + i, e, row,
                   col, ug_gpu_oracle()->name, g->hi, g->lo, (double)g->rn, (double)g->rd, g->cls,
                   g->sum_abs, f->hi, f->lo, (double)f->rn, (double)f->rd, f->cls, f->sum_abs);
    ug_rerun_line(t, NULL, in->first_trial + i);
    ug_abort_case(t);
}

/* A random sample of the GPU oracle's results recomputed by the fast CPU oracle (the sample is
 * a function of the seed and the input's stream: reruns check the same elements), or every
 * result with --oracle-check all. */
static void ug_input_cross_check(ug_t *t, ug_input *in)
{
    ug_stream s = ug_stream_make(t->opt->seed, in->stream_id ^ 0x6a09e667f3bcc909ull, 0);
    uint64_t draw = 0;
    bool all = t->opt->oracle_check_all;
    ug_exact f;
    if (in->op != UG_OP_GEMM) {
        bool every = all || in->trials <= UG_XCHECK_TRIALS;
        int checks = every ? in->trials : UG_XCHECK_TRIALS;
        for (int c = 0; c < checks; c++) {
            int i = every ? c : (int)(ug_rng_u64(&s, draw++) % (uint64_t)in->trials);
            if (in->op == UG_OP_SUM) ug_exact_sum_f32_fast(in->x[i], in->n, &f);
            else ug_exact_dot_f32_fast(in->x[i], 1, in->y[i], 1, in->n, &f);
            ug_cross_compare(t, in, i, 0, &in->exact[i][0], &f);
        }
        return;
    }
    size_t M = in->gemm_m, N = in->gemm_n, K = in->gemm_k, m = M * N;
    if (all) { /* the fast oracle's whole product (multithreaded), every element compared */
        ug_exact *F = ug_xmalloc((m ? m : 1) * sizeof *F);
        for (int i = 0; i < in->trials; i++) {
            ug_exact_gemm_f32_fast(in->x[i], in->y[i], M, N, K, F);
            for (size_t e = 0; e < m; e++)
                if (!ug_exact_equal(&in->exact[i][e], &F[e])) {
                    ug_exact fe = F[e];
                    free(F);
                    ug_cross_compare(t, in, i, e, &in->exact[i][e], &fe);
                }
            ug_gpu_tally.checked += m;
        }
        free(F);
        return;
    }
    for (int i = 0; i < in->trials; i++)
        for (size_t c = 0; c < (m < UG_XCHECK_ELEMENTS ? m : UG_XCHECK_ELEMENTS); c++) {
            size_t e = m <= UG_XCHECK_ELEMENTS ? c : (size_t)(ug_rng_u64(&s, draw++) % m);
            ug_exact_dot_f32_fast(in->x[i] + (e / N) * K, 1, in->y[i] + e % N, N, K, &f);
            ug_cross_compare(t, in, i, e, &in->exact[i][e], &f);
        }
}

/* Every trial's exact results from the GPU oracle: one batched call for sums and dots, one call
 * per GEMM trial.  An error fails the case. */
static void ug_input_exact_gpu(ug_t *t, ug_input *in)
{
    size_t m = ug_input_elements(in), nt = (size_t)in->trials;
    char err[400] = "";
    int rc = 0;
    if (in->op == UG_OP_GEMM) {
        for (size_t i = 0; i < nt && rc == 0; i++)
            rc = ug_exact_gemm_f32_gpu(in->x[i], in->y[i], in->gemm_m, in->gemm_n, in->gemm_k,
                                       in->exact[i], NULL, err, sizeof err);
    } else {
        size_t *ns = ug_xmalloc(nt * sizeof *ns);
        ug_exact *out = ug_xmalloc(nt * sizeof *out);
        for (size_t i = 0; i < nt; i++) ns[i] = in->n;
        rc = in->op == UG_OP_SUM
                 ? ug_exact_sums_f32_gpu((const float *const *)in->x, ns, nt, out, err, sizeof err)
                 : ug_exact_dots_f32_gpu((const float *const *)in->x, (const float *const *)in->y,
                                         ns, nt, out, err, sizeof err);
        for (size_t i = 0; i < nt && rc == 0; i++) in->exact[i][0] = out[i];
        free(ns);
        free(out);
    }
    if (rc != 0) {
        ug_fail_header(t, __FILE__, __LINE__, "ug_input_make", "%s, n=%zu: %s", in->label, in->n,
                       err);
        ug_abort_case(t);
    }
    ug_gpu_tally.results += nt * m;
    ug_gpu_tally.impl = ug_gpu_oracle()->name;
    ug_input_cross_check(t, in);
}

/* Exact results and condition numbers of every trial (the oracle's cost lives here, once). */
static void ug_input_exact(ug_t *t, ug_input *in)
{
    size_t m = ug_input_elements(in);
    double t0 = ug_prof_now();
    for (int i = 0; i < in->trials; i++) in->exact[i] = ug_xmalloc(m * sizeof(ug_exact));
    if (ug_input_uses_gpu(t, in)) {
        ug_input_exact_gpu(t, in);
    } else {
        for (int i = 0; i < in->trials; i++) switch (in->op) {
            case UG_OP_SUM: ug_exact_sum_f32(in->x[i], in->n, in->exact[i]); break;
            case UG_OP_DOT: ug_exact_dot_f32(in->x[i], 1, in->y[i], 1, in->n, in->exact[i]); break;
            case UG_OP_GEMM:
                ug_exact_gemm_f32(in->x[i], in->y[i], in->gemm_m, in->gemm_n, in->gemm_k,
                                  in->exact[i]);
                break;
            }
    }
    for (int i = 0; i < in->trials; i++) ug_input_kappa(in, i);
    ug_prof_add(UG_PH_ORACLE, t0, NULL);
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
    for (int a = 0; a < UG_MAX_INPUTS; a++) in->fmt[a] = UG_F32; /* the generators write floats */
    in->exact = ug_xcalloc((size_t)in->trials, sizeof(ug_exact *));
    in->kappa = ug_xcalloc((size_t)in->trials, sizeof(double));
    in->stream_id = ug_hash64(label, ug_hash64(t->unit->name, UG_HASH64_INIT));
    static uint64_t serial;
    in->serial = ++serial; /* the run loop is one thread */
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
    double t0 = ug_prof_now();
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
    }
    ug_prof_add(UG_PH_INPUT, t0, NULL);
    ug_input_exact(t, in);
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

ug_input *ug_input_from_gemm(ug_t *t, const char *label, const float *A, const float *B,
                             size_t M, size_t N, size_t K)
{
    ug_input *in = ug_input_alloc(t, UG_OP_GEMM, label, M, 1);
    in->first_trial = 0;
    in->trials = 1;
    in->gemm_m = M;
    in->gemm_n = N;
    in->gemm_k = K;
    in->x[0] = ug_xmalloc(M * K * sizeof(float));
    memcpy(in->x[0], A, M * K * sizeof(float));
    in->y[0] = ug_xmalloc(K * N * sizeof(float));
    memcpy(in->y[0], B, K * N * sizeof(float));
    ug_input_exact(t, in);
    return in;
}

ug_input *ug_input_from_data(ug_t *t, ug_op op, const char *label, const float *x, const float *y,
                             size_t n)
{
    if (op == UG_OP_GEMM) return ug_input_from_gemm(t, label, x, y, n, n, n);
    ug_input *in = ug_input_alloc(t, op, label, n, 1);
    in->first_trial = 0;
    in->trials = 1;
    in->gemm_m = in->gemm_n = in->gemm_k = n;
    in->x[0] = ug_xmalloc((n ? n : 1) * sizeof(float));
    memcpy(in->x[0], x, n * sizeof(float));
    if (op != UG_OP_SUM) {
        in->y[0] = ug_xmalloc((n ? n : 1) * sizeof(float));
        memcpy(in->y[0], y, n * sizeof(float));
    }
    ug_input_exact(t, in);
    return in;
}
