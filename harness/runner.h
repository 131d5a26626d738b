/* runner.h - the harness's internals shared by main.c, runner.c, measure.c and report.c. */
#ifndef UG_RUNNER_H
#define UG_RUNNER_H

#include <setjmp.h>
#include <stdio.h>

#include "ug.h"
#include "base/buf.h"
#include "base/parse.h"
#include "base/sys.h"
#include "base/bits.h"

typedef struct ug_options {
    const char *argv0;
    const char *filter;  /* case glob; NULL: every case (canaries left out) */
    const char *kernel;  /* kernel glob; NULL: every kernel */
    size_t n;            /* --n: only this size (0: every size) */
    long trial;          /* --trial: only this trial (-1: every trial) */
    int trials;          /* --trials: override every case's trial count (0: the case's own) */
    uint64_t seed;
    bool tap;
    bool slow, slow_only;
    const char *report_dir;
    int threads;
    ug_oracle_kind oracle;
    bool progress;       /* stderr is a terminal */
} ug_options;

/* One result row for the report, frozen when its test point closes. */
typedef struct ug_row {
    ug_buf json;
    struct ug_row *next;
} ug_row;

struct ug_t {
    const ug_case *c;
    const ug_options *opt;
    jmp_buf jb;
    /* the open test point */
    bool tp_open;
    char tp_name[256];
    bool tp_failed, tp_skipped;
    char tp_skip_reason[128];
    ug_buf tp_diag;
    ug_result *tp_result;
    int tp_failures;
    /* owned memory, freed when the case ends */
    ug_input **inputs;
    size_t n_inputs, cap_inputs;
    ug_result **results;
    size_t n_results, cap_results;
    /* counters for the whole run */
    int *tap_index;
    int *n_pass, *n_fail, *n_skip;
    ug_row ***rows_tail;
    bool case_skipped;
};

/* measure.c */
void ug_result_free(ug_result *r);
void ug_input_release(ug_input *in);
/* report.c */
void ug_report_row(ug_t *t, const ug_result *r, bool passed, int failures);
int ug_report_write(const ug_options *opt, ug_row *rows, int argc, char **argv, bool gpu_used,
                    int n_pass, int n_fail, int n_skip);
/* runner.c */
int ug_run(const ug_options *opt, int argc, char **argv);
int ug_list(void);
void ug_tp_open(ug_t *t, const char *name, ug_result *r);
void ug_tp_close(ug_t *t);
void ug_fail_header(ug_t *t, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void ug_rerun_line(ug_t *t, const ug_result *r, int trial);
bool ug_gpu_used(void);
const char *ug_src_path(const char *file);

#endif
