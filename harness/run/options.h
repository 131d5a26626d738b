/*
 * options.h - what a run is asked to do: the options of `ulpgate run` (harness/cli/cli_run.c
 * parses them) that the run loop, the limits, the shards and the report read.
 */
#ifndef UG_OPTIONS_H
#define UG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "oracle/oracle.h"

/* A fixed default seed: a plain `meson test` is reproducible; --seed replays any run. */
#define UG_DEFAULT_SEED 0x5eedull

typedef struct ug_options {
    const char *argv0;
    const char *filter;  /* case glob; NULL: every case (canaries left out) */
    const char *kernel;  /* kernel glob; NULL: every kernel */
    bool format_set;     /* --format F: only kernels with F among their formats */
    ug_fmt format;
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
    int shard_k, shard_n;  /* --shard K/N (shard_n 0: the whole run) */
    const char *const *corpus_dirs; /* --corpus DIR, each: more corpus files (harness/inputs/corpus.h) */
    size_t n_corpus_dirs;
    const char *xfail_file;  /* --xfail FILE: the user's expected failures (harness/inputs/xfail_file.h) */
    const char *stop_reason; /* the report is of a session cut short (a pytest session's Ctrl-C):
                                meta.interrupted, whatever the guard saw; NULL: the guard's */
} ug_options;

#endif
