/* cli_usage.c - the usage text every subcommand shares, and how a usage error is reported. */
#include <stdio.h>

#include "base/escape.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_opts.h"

#define UG_USAGE_COMMANDS \
    "usage: ulpgate list\n" \
    "       ulpgate run [options]      run the cases (all but canaries and slow ones by default)\n" \
    "       ulpgate merge OUT.json IN.json... [--junit FILE]   the shards of one run, as one\n" \
    "       ulpgate costs RESULTS.json...   unit wall times (reports/unit_costs.json) for --shard\n" \
    "       ulpgate devices            the CUDA devices this process sees\n" \
    "       ulpgate oracle --op sum|dot [--json] [--got X] [--oracle fast|mpfr] FILE\n" \
    "       ulpgate check --op sum|dot|gemm --got GOT.npy X.npy [Y.npy] [--ulp-max U] [--json]\n" \
    "       ulpgate hunt --kernel NAME --n N [--objective bound|ulp] [--budget S | --evals N]\n" \
    "                    [--seed S] [--out FILE] [--compare-random]   (ulpgate hunt --help)\n" \
    "       ulpgate bench oracle [--big] [--gpu] [--threads N]\n" \
    "       ulpgate bench check [--n N] [--op sum|dot] [--reps R] [--dir DIR]\n" \
    "       ulpgate bench rows [--rows R] [--n N] [--mpfr-rows M] [--threads T]\n" \
    "       ulpgate probe tensor-core [--kernel GLOB | --model GPU] [--gpu-model GPU]\n" \
    "                    the tensor-core accumulator probe (ulpgate probe --help)\n" \
    "       ulpgate compare BASE NEW.json [--fail-on-regression] [--markdown] [--all]\n" \
    "                       [--slack X] [--time-slack X] [--max-rows N] [--full-report URL]\n" \
    "                       [--explain ROW]   one row's judgement, figures and history\n" \
    "       ulpgate baseline update [--device KEY] [--from results.json] [--reason TEXT]\n" \
    "                       [--dir DIR] [--slack X] [--prune] [--dry-run]\n" \
    "       ulpgate baseline show [--device KEY | PATH] [--dir DIR] [--all]\n" \
    "       ulpgate baseline key [--from results.json]\n" \
    "       ulpgate baseline migrate [--device KEY | FILE] [--dir DIR] --reason TEXT\n" \
    "       ulpgate report DIR [--baseline PATH|none]   summary.md and index.html beside results.json\n" \
    "       ulpgate summary results.json [--metric M] [--width N]   kernel x distribution table\n" \
    "       ulpgate version            the version (also: ulpgate --version)\n"

#define UG_USAGE_GLOBAL \
    "options of every command (docs/your-own-kernel.md):\n" \
    "  --plugin FILE    load the kernels of a plugin (UG_PLUGIN of <ulpgate/ulpgate.h>); repeatable\n" \
    "  --no-builtin     only the plugins' kernels\n" \
    "  --data-dir DIR   ulpgate's data (cases/corpus, reports/unit_costs.json); default: beside\n" \
    "                   the executable (../share/ulpgate)\n" \
    "  --baseline-dir DIR  the baselines (default: reports/baselines of the working directory)\n" \
    "  --commit C       the commit results.json records (default: git describe of the working\n" \
    "                   directory)\n" \
    "  -h, --help       the command's usage (ulpgate run --help); --opt=VALUE is --opt VALUE;\n" \
    "                   an option given twice is refused (exit 2), but --plugin and --corpus,\n" \
    "                   which add up\n"

#define UG_USAGE_RUN \
    "run options:\n" \
    "  --filter GLOB    cases whose name matches (e.g. 'reduce/*'); naming a canary runs it\n" \
    "  --kernel GLOB    kernels whose name (or name@variant) matches\n" \
    "  --format F       kernels with format F among their inputs, accumulator, output\n" \
    "                   (f32 f64 tf32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1; see 'list')\n" \
    "  --n N            only size N\n" \
    "  --trial T        only trial T (its inputs are the same as in a full run)\n" \
    "  --trials N       N trials instead of each case's own count\n" \
    "  --seed S         seed (decimal or 0x hex; default 0x5eed); printed at the start\n" \
    "  --tap            the full TAP stream on stdout (for meson); without it progress lines\n" \
    "                   (rewritten on a terminal, a tenth of the cases apart on a file), each\n" \
    "                   failure in full, then a summary\n" \
    "  --report DIR     write DIR/results.json, DIR/summary.md, DIR/index.html and\n" \
    "                   DIR/junit.xml\n" \
    "  --detail         results.json rows in full (every figure, the worst elements); by\n" \
    "                   default a passing row keeps what the gate and the pages use\n" \
    "  --slow           include the slow cases; --slow-only: only them\n" \
    "  --oracle K       gpu, fast or mpfr (default: gpu for GPU cases when a GPU is present,\n" \
    "                   fast otherwise)\n" \
    "  --oracle-check C sample (default) or all: the GPU oracle's results the fast oracle redoes\n" \
    "  --threads N      threads for the oracle and input generation (default: all cores)\n" \
    "  --shard K/N      only shard K of N (0-based; units balanced by reports/unit_costs.json)\n" \
    "  --gpus all|0,1   one worker process per GPU, shards handed out, reports merged\n" \
    "  --corpus DIR     also run the corpus files (*.txt) under DIR (repeatable; the built-in\n" \
    "                   corpus, cases/corpus of the data folder, always runs)\n" \
    "  --xfail FILE     expected failures, one a line: CASE_GLOB KERNEL_GLOB REASON\n" \
    "  --timeout S      per-case time limit in seconds: a case still running after S seconds\n" \
    "                   fails, the run ends there (exit 124) with its report\n"

const char ug_usage_text[] = UG_USAGE_COMMANDS UG_USAGE_GLOBAL UG_USAGE_RUN;
/* `ulpgate run --help`: its own options, then those of every command */
const char ug_usage_run[] = "usage: ulpgate run [options]   run the cases (all but canaries and slow ones by default)\n"
    UG_USAGE_RUN;
const char ug_usage_global[] = UG_USAGE_GLOBAL;

int ug_usage_error(const char *fmt, const char *arg)
{
    char safe[1024]; /* an argument's control bytes never reach the terminal raw */
    fprintf(stderr, "ulpgate: ");
    fprintf(stderr, fmt, arg ? ug_escape(arg, safe, sizeof safe) : arg);
    fputc('\n', stderr);
    ug_cli_usage(stderr, ug_cli_current);
    return 2;
}

/* The usage of c (its own text, then the options of every command), or the whole usage when c
 * is NULL. */
void ug_cli_usage(FILE *f, const ug_cli_cmd *c)
{
    if (!c || !c->usage) {
        fputs(ug_usage_text, f);
        return;
    }
    fputs(c->usage, f);
    fputs(ug_usage_global, f);
}
