/*
 * fuzz_cli.c - libFuzzer target: the options of `ulpgate run` (ug_run_options_parse,
 * harness/cli/cli.h), the whole command line a user or a script can hand the program before
 * anything runs.
 *
 * The input is split into arguments at NUL bytes (at most 64 of them, "run" put first), and
 * parsed.  What must hold: no crash, leak or undefined behaviour; the status is 0 or 2; on 0
 * every option lies in its documented range (trials 0..2^24, trial -1..2^30, 0 <= K < N <=
 * 4096 for a shard, threads 0..4096, a timeout 0 or in (0, 1e6], a report directory short
 * enough for PATH_MAX), and the parse is deterministic (the same arguments parse the same a
 * second time).
 * Run (meson -Dfuzz=true, clang): build/tests/fuzz/fuzz_cli tests/fuzz/corpus/cli
 *   -dict=tests/fuzz/cli.dict -close_fd_mask=2
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "tests/fuzz/fuzz_io.h"
#include "harness/run/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { UG_FUZZ_MAX_ARGS = 64 };

static int ug_fuzz_parse(int argc, char **argv, ug_options *o, ug_run_args *a)
{
    memset(o, 0, sizeof *o);
    memset(a, 0, sizeof *a);
    o->trial = -1;
    return ug_run_options_parse(argc, argv, o, a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    char *argv[UG_FUZZ_MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "run";
    for (size_t i = 0; i <= size && argc <= UG_FUZZ_MAX_ARGS;) {
        argv[argc++] = text + i;
        i += strlen(text + i) + 1;
    }
    argv[argc] = NULL;
    ug_options o, o2;
    ug_run_args a, a2;
    int rc = ug_fuzz_parse(argc, argv, &o, &a);
    if (rc != 0 && rc != 2) ug_fuzz_fail("status %d", rc);
    if (rc == 0) {
        if (o.trials < 0 || o.trials > (1 << 24)) ug_fuzz_fail("trials %d", o.trials);
        if (o.trial < -1 || o.trial > (1L << 30)) ug_fuzz_fail("trial %ld", o.trial);
        if (o.shard_n && !(o.shard_k >= 0 && o.shard_k < o.shard_n && o.shard_n <= 4096))
            ug_fuzz_fail("shard %d/%d", o.shard_k, o.shard_n);
        if (a.threads < 0 || a.threads > 4096) ug_fuzz_fail("threads %d", a.threads);
        if (!(a.timeout_s == 0 || (a.timeout_s > 0 && a.timeout_s <= 1e6)))
            ug_fuzz_fail("timeout %g", a.timeout_s);
        if (o.report_dir && (!*o.report_dir || strlen(o.report_dir) > 4066))
            ug_fuzz_fail("report dir of %zu characters", strlen(o.report_dir));
        if (o.oracle != UG_ORACLE_FAST && o.oracle != UG_ORACLE_MPFR) ug_fuzz_fail("oracle %d", (int)o.oracle);
    }
    int rc2 = ug_fuzz_parse(argc, argv, &o2, &a2);
    if (rc2 != rc || (rc == 0 && (o.trials != o2.trials || o.trial != o2.trial || o.n != o2.n ||
                                  o.seed != o2.seed || a.timeout_s != a2.timeout_s)))
        ug_fuzz_fail("the same arguments parsed differently");
    free(text);
    return 0;
}
