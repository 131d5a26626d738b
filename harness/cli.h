/*
 * cli.h - subcommands of the ulpgate command line beyond `list` and `run` (main.c dispatches).
 * Each takes its own argv (argv[0] is the subcommand's name) and returns the process exit code:
 * 0 ok, 1 a failure, 2 a usage or input error (message on stderr naming the file or argument).
 */
#ifndef UG_CLI_H
#define UG_CLI_H

#include <stdio.h>

/* `ulpgate oracle [--op sum|dot] [--json] [--got X] [--oracle fast|mpfr] FILE` (cli_oracle.c):
 * the exact sum or dot product of a file of binary32 values (values.h). */
int ug_cmd_oracle(int argc, char **argv);
/* The same with its output and error streams given (ug_cmd_oracle passes stdout and stderr);
 * for in-process tests. */
int ug_cmd_oracle_io(int argc, char **argv, FILE *out, FILE *err);

/* `ulpgate bench oracle [--big] [--threads N]` (cli_bench.c): how fast the oracles are. */
int ug_cmd_bench_oracle(int argc, char **argv);

#endif
