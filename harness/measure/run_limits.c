/* run_limits.c - memory and size limits of a run (run_limits.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/parse.h"
#include "harness/measure/mctx.h"
#include "harness/measure/run_limits.h"

/* Per trial, besides the values: the pointers of x, y, exact and kappa, and of the outputs and
 * their time (measure.c). */
#define UG_TRIAL_POINTERS (6 * 8.0)

/* An environment cap, or 0 when unset (a malformed one is ignored, said once). */
static size_t ug_env_cap(const char *name)
{
    const char *s = getenv(name);
    size_t v = 0;
    if (!s || !*s) return 0;
    if (!ug_parse_size(s, &v) || v == 0) {
        static int told;
        if (!told++) fprintf(stderr, "ulpgate: %s='%s' is not a count >= 1: ignored\n", name, s);
        return 0;
    }
    return v;
}

double ug_limits_input_bytes(const ug_op_desc *d, const ug_shape *s, int trials)
{
    /* the sizes first, from the shape table; then the allocator's chunks of each */
    double outputs = (double)ug_opshape_outputs(d->shape, s), len[UG_MAX_INPUTS], values = 0;
    for (int i = 0; i < d->shape->arity; i++) len[i] = (double)ug_opshape_in_len(d->shape, s, i);
    for (int i = 0; i < d->shape->arity; i++) values += ug_mem_chunk(4.0 * len[i]);
    double per_trial = values + ug_mem_chunk(outputs * (double)sizeof(ug_exact)) +
                       ug_mem_chunk(4.0 * outputs) + UG_TRIAL_POINTERS;
    return per_trial * (double)trials;
}

/* Below this, an input or an output set is not checked (the check reads /proc). */
#define UG_MEM_CHECK_FROM (16.0 * 1024 * 1024)

/* The memory one allocation may take, and where the figure comes from; -1 when unknown. */
static double ug_mem_budget(const char **source, double *avail)
{
    *avail = ug_mem_available(source);
    return *avail < 0 ? -1 : UG_MEM_SHARE * *avail;
}

int ug_limits_check_options(size_t n_opt, long trial, int trials_opt)
{
    char err[200];
    if (ug_mem_env_check(err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: %s\n", err);
        return 2;
    }
    if (trials_opt <= 0 || trial >= 0) return 0; /* the cases' own counts, or one trial */
    int trials = ug_limits_trials(trials_opt);
    size_t n = n_opt ? n_opt : 1;
    double need = ug_limits_input_bytes(ug_op_get(UG_OP_SUM), &(ug_shape){{n, n, n}, 1}, trials), avail;
    const char *source;
    double budget = ug_mem_budget(&source, &avail);
    if (budget < 0 || need <= budget) return 0;
    char a[32], b[32];
    fprintf(stderr, "ulpgate: --trials %d: %s (n = %zu) needs %s for that many trials (values, "
                    "exact results, outputs), and %s is available (%s; at most %.0f%% of it is "
                    "used): lower --trials\n",
            trials_opt, n_opt ? "the input of --n" : "even the smallest input", n,
            ug_mem_format(need, a, sizeof a), ug_mem_format(avail, b, sizeof b), source,
            100 * UG_MEM_SHARE);
    return 2;
}

int ug_limits_trials(int trials)
{
    size_t cap = ug_env_cap("ULPGATE_MAX_TRIALS");
    return cap && (size_t)trials > cap ? (int)cap : trials;
}

int ug_limits_timing_reps(int reps)
{
    const char *s = getenv("ULPGATE_NO_TIMING");
    return s && strcmp(s, "1") == 0 ? 0 : reps;
}

static size_t ug_sizes_left_out; /* sizes and inputs ULPGATE_MAX_ELEMENTS left out */

size_t ug_limits_max_elements(void) { return ug_env_cap("ULPGATE_MAX_ELEMENTS"); }
int ug_limits_max_trials(void) { return (int)ug_env_cap("ULPGATE_MAX_TRIALS"); }
bool ug_limits_no_timing(void) { return ug_limits_timing_reps(1) == 0; }
size_t ug_limits_sizes_left_out(void) { return ug_sizes_left_out; }

bool ug_limits_size_ok(size_t n)
{
    size_t cap = ug_env_cap("ULPGATE_MAX_ELEMENTS");
    if (!cap || n <= cap) return true;
    ug_sizes_left_out++;
    static int told;
    if (!told++)
        fprintf(stderr, "ulpgate: ULPGATE_MAX_ELEMENTS=%zu: larger inputs are skipped (a reduced "
                        "run)\n", cap);
    return false;
}

void ug_limits_input(ug_t *t, const ug_op_desc *d, const char *label, const ug_shape *s,
                     int trials)
{
    char size[80], a[32], b[32];
    ug_opshape_text(d->shape, s, false, size, sizeof size);
    size_t cap = ug_env_cap("ULPGATE_MAX_ELEMENTS");
    double elements = ug_opshape_elements_in(d->shape, s);
    if (cap && elements > (double)cap) {
        char why[160];
        snprintf(why, sizeof why, "%s n=%s: %.0f elements a trial, above ULPGATE_MAX_ELEMENTS=%zu",
                 label, size, elements, cap);
        ug_sizes_left_out++;
        ug_m_point(t, "n=%s", size);
        ug_m_skip(t, why);
    }
    int eff = ug_mctx_of(t)->trial >= 0 ? 1 : ug_limits_trials(trials);
    double need = ug_limits_input_bytes(d, s, eff), avail;
    if (need < UG_MEM_CHECK_FROM) return;
    const char *source;
    double budget = ug_mem_budget(&source, &avail);
    if (budget < 0 || need <= budget) return;
    ug_m_fail(t, __FILE__, __LINE__, "memory for the input",
              "%s n=%s, %d trials need %s (values, exact results, outputs), and %s is "
              "available (%s; at most %.0f%% of it is used): refused (lower --trials)",
              label, size, eff, ug_mem_format(need, a, sizeof a),
              ug_mem_format(avail, b, sizeof b), source, 100 * UG_MEM_SHARE);
    ug_m_leave(t);
}

bool ug_limits_outputs(ug_t *t, ug_result *r)
{
    double need = (double)r->trials * (ug_mem_chunk(4.0 * (double)r->elements) + 16), avail;
    if (need < UG_MEM_CHECK_FROM) return true;
    const char *source;
    double budget = ug_mem_budget(&source, &avail);
    if (budget < 0 || need <= budget) return true;
    char a[32], b[32];
    snprintf(r->run_error, sizeof r->run_error, "the outputs of %d trials need %s, and %s is "
             "available (%s; at most %.0f%% of it is used): not run", r->trials,
             ug_mem_format(need, a, sizeof a), ug_mem_format(avail, b, sizeof b), source,
             100 * UG_MEM_SHARE);
    r->failed_run = true;
    ug_m_fail(t, __FILE__, __LINE__, "memory for the outputs", "%s: %s", r->kernel->id, r->run_error);
    return false;
}
