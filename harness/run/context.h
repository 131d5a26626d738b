/*
 * context.h - the harness's internals shared by its modules (not for cases: they see ug.h).
 *
 *   case.c     registration, the sorted case list, units (a case, or one row of its table)
 *   point.c    the open test point: opening, failing, notes, closing into a ug_point record
 *   expect.c   assertions (UG_EXPECT, UG_ASSERT, the metric checks)
 *   hooks.c    the context a measurement reports to (harness/measure/mctx.h's hooks)
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
#include "harness/measure/mctx.h"
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
    ug_mctx m;             /* first: the measurement's part (harness/measure/mctx.h) */
    const ug_unit *unit;
    const ug_case *c;
    const ug_options *opt;
    jmp_buf jb;
    ug_open_point pt;
    ug_point_sink sink;
    void *sink_ctx;
    int points;            /* points closed in this case */
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

/* Checks (UG_EXPECT, UG_ASSERT and the metric checks) evaluated so far in this run (expect.c). */
size_t ug_checks_evaluated(void);

/* hooks.c: t's measurement part (t->m) for the unit u of a run of opt. */
void ug_case_context(ug_t *t, const ug_options *opt, const ug_unit *u);

/* The case every corpus unit runs (harness/run/corpus_run.c): the file's input on every kernel
 * it selects, one test point each, its checks and expected failures. */
extern const ug_case ug_corpus_case;

#endif
