/*
 * cli_check.h - `ulpgate check` (cli_check.c: arguments, the .npy inputs, the exact results;
 * cli_check_out.c: the figures, the tolerance, the table and the JSON).  Internal to harness/cli.
 */
#ifndef UG_CLI_CHECK_H
#define UG_CLI_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "harness/inputs/npy.h"
#include "ops/op.h"
#include "oracle/oracle.h"

/* What one check computed: the figures over every output. */
typedef struct ug_check_result {
    const ug_op_desc *op;
    ug_fmt in_fmt[3], out_fmt;
    int inputs;            /* input files (in_fmt's): the op's vectors (ug_op_width): x w b */
    size_t batch;          /* problems (1 without a batch axis) */
    size_t per;            /* outputs of one problem (1; M N for gemm) */
    size_t outputs;        /* batch * per */
    size_t n;              /* terms behind each output (n; K) */
    size_t M, N, K;
    size_t depth;          /* the bound's D */
    double gamma;          /* gamma_K(u_F) of the tree bound (+inf: vacuous) */
    double ulp_max, ulp_sum, rel_max, ratio_max;
    size_t specials;       /* outputs whose exact value is NaN or infinite */
    size_t worst;          /* the output of the largest ULP error (the first of them) */
    ug_exact worst_e;
    double worst_got, worst_want, worst_ulp, worst_rel, worst_ratio;
    double atol_part;      /* max over outputs of gamma (S - |s|) + the products' underflow */
    double rtol, atol;     /* the tolerance (cli_check_out.c derives it) */
    const char *oracle;
} ug_check_result;

/* The tree bound of one output in format f: gamma S plus, for products, their underflow. */
double ug_check_bound(const ug_check_result *r, const ug_exact *e);
/* Fold output i (exact e, got) into r. */
void ug_check_add(ug_check_result *r, size_t i, const ug_exact *e, double got);
/* rtol and atol from r's figures (the derivation is in cli_check_out.c). */
void ug_check_tolerance(ug_check_result *r);
/* The table, or one JSON object. */
void ug_check_print(FILE *out, const ug_check_result *r, bool json, const char *verdict);

/* `ulpgate check --op attention ...` (cli_check_attn.c): Q, K, V and O files, by heads. */
int ug_cmd_check_attention(int argc, char **argv, FILE *out, FILE *err);

/* `ulpgate bench check [...]` (cli_bench_check.c): check's time next to the oracle's. */
int ug_bench_check(int argc, char **argv);

#endif
