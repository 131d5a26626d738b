/*
 * run.h - running the cases, as the command line asks: the options of a run, the run loop,
 * and the report written from what it collected.
 */
#ifndef UG_RUN_H
#define UG_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../oracle/oracle.h"
#include "results.h"

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
    ug_oracle_kind oracle;
    bool oracle_set;     /* --oracle given; else gpu for GPU cases where one can answer, else fast */
    bool oracle_check_all; /* --oracle-check all: every GPU oracle result against the fast one */
    bool progress;       /* stderr is a terminal */
} ug_options;

/* Run every selected case, TAP on out, each test point's row appended to res.  Returns the
 * exit status: 0 every check held, 1 a failure (or an unexpected pass), 2 a usage error
 * (message on stderr; nothing ran). */
int ug_run(const ug_options *opt, ug_results *res, FILE *out);
/* Whether the run used a GPU (the report's meta block says which). */
bool ug_run_used_gpu(void);

/* What the GPU oracle did in this run (harness/input.c): results it gave, how many of them were
 * recomputed by the fast CPU oracle and compared, how many differed; impl: its implementation
 * ("cuda", "model", ...), NULL when it was not used. */
typedef struct ug_gpu_oracle_tally {
    size_t results, checked, differ;
    const char *impl;
} ug_gpu_oracle_tally;
ug_gpu_oracle_tally ug_gpu_oracle_counts(void);

/* results.json in opt->report_dir, written atomically (a temporary file renamed over it).
 * argc/argv: the command line, recorded in the meta block.  0, or -1 with a message on stderr
 * naming the file. (harness/report.c) */
int ug_report_write(const ug_options *opt, const ug_results *res, int argc, char **argv);

/* `ulpgate list` (harness/cli_list.c). */
int ug_list(void);

#endif
