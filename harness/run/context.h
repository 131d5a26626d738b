/*
 * context.h - the harness's internals shared by its modules (not for cases: they see ug.h).
 *
 *   case.c     registration, the sorted case list, units (a case, or one row of its table)
 *   point.c    the open test point: opening, failing, notes, closing into a ug_point record
 *   check.c    assertions
 *   input.c    inputs and their exact results
 *   measure.c  measurements (measure_fmt.c: their number formats; kernel_call.c: one call of
 *              a kernel, fenced, and a deterministic kernel's reruns)
 *   run.c      the run loop, which hands every closed point to a sink (selection.c: the
 *              sizes the cases offered, the usage errors of a selection that selects nothing)
 *   results.c  the results list the loop collects (harness/results/results.h)
 *   tap.c      TAP output (harness/results/tap.h)
 */
#ifndef UG_CONTEXT_H
#define UG_CONTEXT_H

#include <setjmp.h>
#include <stdio.h>

#include "base/buf.h"
#include "harness/results/results.h"
#include "harness/run/run.h"
#include "harness/run/ug.h"
#include "harness/inputs/corpus.h"

/* ---- units: what the run loop runs --------------------------------------------------------- */

struct ug_corpus_entry;
typedef struct ug_unit {
    const ug_case *c;
    const ug_param *param; /* NULL for a plain case */
    char name[128];        /* "reduce/normal" */
    const struct ug_corpus_entry *corpus; /* a corpus file's unit (harness/inputs/corpus.h), or NULL */
} ug_unit;

/* Every unit of every registered case, sorted by name (constructor order differs between
 * linkers; the report must not).  *count gets the number; the array lives for the process. */
const ug_unit *ug_units(size_t *count);
/* The units of a run: every registered case's and one per corpus file (the source tree's
 * cases/corpus and o->corpus_dirs, discovered now, read when their unit runs), sorted by name.  NULL with a
 * message in err when a --corpus directory cannot be read.  Lives for the process. */
const ug_unit *ug_units_with_corpus(const ug_options *o, size_t *count, char *err, size_t errlen);
/* Whether the options select u (filter, canaries, slow). */
bool ug_unit_selected(const ug_options *o, const ug_unit *u);

/* ---- the open test point ------------------------------------------------------------------ */

typedef struct ug_open_point {
    bool open;
    char name[256];
    bool failed, skipped;
    int failures;
    char skip_reason[512];
    char xfail[256];       /* declared expected failure (ug_xfail), or "" */
    char finding[512];     /* what a check point found (ug_point_finding), or "" */
    ug_buf diag;           /* "# ..." lines: failures and notes */
    ug_result *result;     /* the measurement it reports, or NULL */
} ug_open_point;

/* Where closed points go (the run loop's collector). */
typedef void (*ug_point_sink)(void *ctx, const ug_t *t, const ug_point_record *p);

struct ug_t {
    const ug_unit *unit;
    const ug_case *c;
    const ug_options *opt;
    jmp_buf jb;
    ug_open_point pt;
    ug_point_sink sink;
    void *sink_ctx;
    int points;            /* points closed in this case */
    double lambda;         /* of the probabilistic bound (ug_prob_lambda) */
    /* owned memory, freed when the case ends */
    ug_input **inputs;
    size_t n_inputs, cap_inputs;
    ug_result **results;
    size_t n_results, cap_results;
    bool case_skipped;
};

/* point.c */
void ug_point_open(ug_t *t, const char *name, ug_result *r);
void ug_point_close(ug_t *t);
void ug_point_ensure(ug_t *t);
/* Mark the open point failed and append "# file:line: expr failed: <fmt...>". */
void ug_fail_header(ug_t *t, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "#   rerun: <argv0> run --filter <unit> [--kernel K --n N] [--trial T] ... --seed S". */
void ug_rerun_line(ug_t *t, const ug_result *r, int trial);
/* __FILE__ as meson passes it, shown from the project root ("cases/x.c"). */
const char *ug_src_path(const char *file);

/* run.c: the registered kernels (GPU ones only when gpu) that no measured row of res names:
 * their ids into missing[0..cap), the count returned. */
size_t ug_unmeasured_kernels(const ug_results *res, bool gpu, const char **missing, size_t cap);

/* gpu.c: why no GPU can be used ("built without CUDA", the CUDA error...). */
const char *ug_gpu_why(void);

/* input.c / measure.c */
void ug_input_release(ug_input *in);
size_t ug_input_elements(const ug_input *in); /* outputs per trial: 1, or M*N for a GEMM */
void ug_result_free(ug_result *r);
/* kernel_call.c: the kernel runs a case made itself (ug_run_kernel: bit-for-bit and invariance
 * cases, which record no measured row) in this process; the selection check counts them. */
size_t ug_direct_kernel_runs(void);
/* Checks (UG_EXPECT, UG_ASSERT and the metric checks) evaluated so far in this run (check.c). */
size_t ug_checks_evaluated(void);
/* The kernels that declined every call of this run as unsupported (ran on none): up to cap of
 * them into k[], with the first reason and the calls declined; returns how many (kernel_call.c). */
size_t ug_kernels_unsupported_everywhere(const ug_kernel **k, const char **why, size_t *calls,
                                         size_t cap);
/* A kernel's outputs on an input: buffer j (O, lse: base/opshape.h's outs) of count[j]
 * elements in fmt[j] (the kernel's out_fmt, then its out_more_fmt), all stored one after the
 * other in one allocation (ug_result.out[trial]), element e of the records (ug_opshape_outputs:
 * output 0's, then output 1's) at its place there.  One buffer of r->elements in out_fmt for
 * an operation of one output. */
typedef struct {
    int n;
    size_t first[UG_MAX_OUTPUTS], count[UG_MAX_OUTPUTS], off[UG_MAX_OUTPUTS], bytes;
    ug_fmt fmt[UG_MAX_OUTPUTS];
} ug_outs;

ug_outs ug_outs_of(const ug_kernel *k, const ug_input *in);
int ug_outs_buf(const ug_outs *o, size_t e);                         /* which buffer holds e */
double ug_outs_load(const ug_outs *o, const void *out, size_t e);    /* output e, a double */
/* measure_fmt.c: whether k can read in's buffers (else a failure on the point naming the
 * formats), and whether the point is out of its formats' range (then skipped, saying so). */
bool ug_measure_formats_ok(ug_t *t, const ug_kernel *k, const ug_input *in);
bool ug_measure_out_of_range(ug_t *t, ug_result *r);

/* The case every corpus unit runs (harness/run/corpus_run.c): the file's input on every kernel
 * it selects, one test point each, its checks and expected failures. */
extern const ug_case ug_corpus_case;

#endif
