/*
 * cli.h - the subcommands of the ulpgate command line (main.c dispatches; harness/cli_*.c).
 * Each takes its own argv (argv[0] is the subcommand's name) and returns the process exit code:
 * 0 ok, 1 a failure, 2 a usage or input error (message on stderr naming the file or argument);
 * main.c turns a success into 2 when stdout could not be written.
 */
#ifndef UG_CLI_H
#define UG_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The usage text, and a usage error: "ulpgate: <message>" and the usage on stderr; returns 2. */
extern const char ug_usage_text[];
int ug_usage_error(const char *fmt, const char *arg);

/* `ulpgate run [options]` (cli_run.c).  full_argc/full_argv: the whole command line, for the
 * report; argv0: how the binary was invoked, for rerun lines. */
int ug_cmd_run(int argc, char **argv, int full_argc, char **full_argv, const char *argv0);
/* What `run`'s options say besides struct ug_options (run.h). */
typedef struct ug_run_args {
    const char *gpus;    /* --gpus, or NULL */
    double timeout_s;    /* --timeout: the per-case time limit in seconds (0: none) */
    int threads;         /* --threads (0: the default) */
    bool help;           /* --help or -h */
} ug_run_args;
/* Parse `run`'s options (argv[0] = "run") into o (its defaults already set) and a, and do
 * nothing else: nothing runs, nothing is printed but a usage error.  0, or 2 after the usage
 * error on stderr.  (tests/fuzz/fuzz_cli.c calls it with arbitrary arguments.) */
struct ug_options;
int ug_run_options_parse(int argc, char **argv, struct ug_options *o, ug_run_args *a);
/* `ulpgate list` (cli_list.c). */
int ug_cmd_list(int argc, char **argv);

/* `ulpgate oracle [--op sum|dot] [--json] [--got X] [--oracle fast|mpfr] FILE` (cli_oracle.c):
 * the exact sum or dot product of a file of binary32 values (values.h). */
int ug_cmd_oracle(int argc, char **argv);
/* The same with its output and error streams given (ug_cmd_oracle passes stdout and stderr);
 * for in-process tests. */
int ug_cmd_oracle_io(int argc, char **argv, FILE *out, FILE *err);

/* `ulpgate check --op sum|dot|gemm --got GOT.npy X.npy [Y.npy] [...]` (cli_check.c): grade
 * results saved as .npy files against the exact ones; 0 ok, 1 past a limit, 2 bad input. */
int ug_cmd_check(int argc, char **argv);
int ug_cmd_check_io(int argc, char **argv, FILE *out, FILE *err);

/* `ulpgate devices` (cli_list.c): the number of CUDA devices, then one line per device. */
int ug_cmd_devices(int argc, char **argv);
/* `ulpgate merge OUT.json IN.json... [--junit FILE]` (merge.c): the shards of one run. */
int ug_cmd_merge(int argc, char **argv); /* (cli_merge.c; harness/scale/merge.h) */
/* `ulpgate costs RESULTS.json...` (cli_costs.c): the unit cost table shards balance with. */
int ug_cmd_costs(int argc, char **argv);
/* `ulpgate hunt --kernel NAME --n N [...]` (cli_hunt.c): search for an input that breaks a
 * kernel, shrink it, write it as a corpus file (harness/search/hunt.h).  Exit 0: a breaching input was
 * written and reproduces; 1: none was found (or it did not reproduce); 2: usage or I/O error. */
int ug_cmd_hunt(int argc, char **argv);

/* `ulpgate bench oracle [--big] [--gpu] [--threads N]` (cli_bench.c): how fast the oracles
 * are; --gpu: the GPU oracle's bench (cli_bench_gpu.c), the CPU oracle on `threads` threads
 * (0: all). */
int ug_cmd_bench_oracle(int argc, char **argv);
/* `ulpgate bench rows [--rows R] [--n N] [--mpfr-rows M] [--threads T]` (cli_bench_rows.c):
 * the softmax and log-sum-exp references' fast path beside MPFR alone; 1 if a record differs. */
int ug_bench_rows(int argc, char **argv);
int ug_bench_oracle_gpu(int threads);
/* splitmix64 over *s (bench_data.c): the benches' own inputs, reproducible from the seed. */
uint64_t ug_bench_mix(uint64_t *s);
/* n normal(0,1) binary32 values from seed (splitmix64 and Box-Muller; the benches' inputs). */
void ug_bench_fill_normal(float *v, size_t n, uint64_t seed);
/* The median of v[0..n) (sorts v; n >= 1; the mean of the middle two when n is even). */
double ug_bench_median(double *v, int n);

/* `ulpgate probe tensor-core [...]` (cli_probe.c): the tensor-core accumulator probe
 * (oracle/tc/tcprobe.h); 0 every figure equals the published model, 1 not, 2 usage. */
int ug_cmd_probe(int argc, char **argv);

/* `ulpgate compare BASE NEW [...]` (cli_compare.c): the merge gate's comparison. */
int ug_cmd_compare(int argc, char **argv);
/* `ulpgate baseline update|show|key [...]` (cli_baseline.c): per-device baselines. */
int ug_cmd_baseline(int argc, char **argv, int full_argc, char **full_argv);
/* `ulpgate report DIR [...]` and `ulpgate summary FILE [...]` (cli_report.c). */
int ug_cmd_report(int argc, char **argv);
int ug_cmd_summary(int argc, char **argv);

#endif
