/*
 * cli_check.h - `ulpgate check` (cli_check.c: the .npy front end over harness/check/check.h)
 * and its bench (cli_bench_check.c).  Internal to harness/cli.
 */
#ifndef UG_CLI_CHECK_H
#define UG_CLI_CHECK_H

#include <stdio.h>

/* `ulpgate check --op attention ...` (cli_check_attn.c): Q, K, V and O files, by heads. */
int ug_cmd_check_attention(int argc, char **argv, FILE *out, FILE *err);

/* `ulpgate bench check [...]` (cli_bench_check.c): check's time next to the oracle's. */
int ug_bench_check(int argc, char **argv);

#endif
