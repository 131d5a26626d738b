/* cli_opts.c - see cli_opts.h: every subcommand's options, and the conventions they share. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/sys.h"
#include "harness/cli/cli_opts.h"

const ug_cli_cmd *ug_cli_current;

/* The rewritten argument vector of the last ug_cli_normalize (ug_cli_release frees it). */
static char **ug_cli_owned;

void ug_cli_release(void)
{
    free(ug_cli_owned);
    ug_cli_owned = NULL;
}

const ug_cli_opt ug_cli_global_opts[] = {
    {"--plugin", 'r'}, {"--no-builtin", 'f'}, {"--data-dir", 'v'}, {"--baseline-dir", 'v'},
    {"--commit", 'v'}, {NULL, 0}};

const char *const ug_cli_command_names[] = {
    "list", "run", "merge", "costs", "devices", "oracle", "check", "hunt", "bench", "probe", "compare",
    "baseline", "report", "summary", "version", "help", "--help", "--version", NULL};

/* usage NULL: the subcommand prints its own help (it is handed --help). */
static const ug_cli_cmd ug_cli_cmds[] = {
    {"list", "usage: ulpgate list   every case, variant, operation and kernel\n", {{NULL, 0}}},
    {"devices", "usage: ulpgate devices   the CUDA devices this process sees: their count, one line "
                "each;\n  with none, why (no CUDA build, no driver, the CUDA error)\n", {{NULL, 0}}},
    {"version", "usage: ulpgate version   the version (also: ulpgate --version)\n", {{NULL, 0}}},
    {"costs", "usage: ulpgate costs RESULTS.json...   unit wall times (reports/unit_costs.json) "
              "for --shard\n", {{NULL, 0}}},
    {"merge", "usage: ulpgate merge OUT.json IN.json... [--junit FILE] [--parts]\n"
              "  the shards of one run, as one results.json (--junit FILE: also JUnit XML;\n"
              "  --parts: the inputs are parts of one default run, coverage checked over all)\n",
     {{"--junit", 'v'}, {"--parts", 'f'}}},
    {"run", ug_usage_run,
     {{"--filter", 'v'}, {"--kernel", 'v'}, {"--format", 'v'}, {"--n", 'v'}, {"--trial", 'v'},
      {"--trials", 'v'}, {"--seed", 'v'}, {"--tap", 'f'}, {"--report", 'v'}, {"--detail", 'f'},
      {"--slow", 'f'}, {"--slow-only", 'f'}, {"--oracle", 'v'}, {"--oracle-check", 'v'},
      {"--threads", 'v'}, {"--shard", 'v'}, {"--gpus", 'v'}, {"--corpus", 'r'}, {"--xfail", 'v'},
      {"--timeout", 'v'}}},
    {"oracle", NULL, {{"--op", 'v'}, {"--json", 'f'}, {"--got", 'v'}, {"--oracle", 'v'}}},
    {"check", NULL,
     {{"--op", 'v'}, {"--got", 'v'}, {"--dtype", 'v'}, {"--ulp-max", 'v'}, {"--rel-max", 'v'},
      {"--depth", 'v'}, {"--bound", 'v'}, {"--json", 'f'}, {"--oracle", 'v'}, {"--axis", 'v'},
      {"--correctly-rounded", 'f'},
      {"--lse", 'v'}, {"--causal", 'f'}, {"--scale", 'v'}, {"--acc", 'v'}, {"--op-fmt", 'v'},
      {"--tc-model", 'v'}}},
    {"hunt", NULL,
     {{"--kernel", 'v'}, {"--op", 'v'}, {"--n", 'v'}, {"--out", 'v'}, {"--objective", 'v'},
      {"--budget", 'v'}, {"--evals", 'v'}, {"--seed", 'v'}, {"--check-ulp", 'v'},
      {"--threads", 'v'}, {"--compare-random", 'f'}, {"--causal", 'f'}}},
    {"probe", NULL,
     {{"--kernel", 'v'}, {"--model", 'v'}, {"--gpu-model", 'v'}, {"--table", 'v'},
      {"--format", 'v'}, {"--out-format", 'v'}}},
    {"bench", "usage: ulpgate bench oracle [--big] [--gpu] [--threads N]   how fast the oracles are\n"
              "       ulpgate bench check [--n N] [--op sum|dot] [--reps R] [--dir DIR]   how fast "
              "`check` is\n"
              "       ulpgate bench rows [--rows R] [--n N] [--mpfr-rows M] [--threads T]   the "
              "softmax and\n         log-sum-exp references, fast path vs MPFR\n", {{NULL, 0}}},
    {"bench oracle", "usage: ulpgate bench oracle [--big] [--gpu] [--threads N]\n"
                     "  the oracles' speed (--big: larger inputs; --gpu: the GPU oracle's bench;\n"
                     "  --threads N: the CPU oracle on N threads, 0: all)\n",
     {{"--big", 'f'}, {"--gpu", 'f'}, {"--threads", 'v'}}},
    {"bench check", "usage: ulpgate bench check [--n N] [--op sum|dot] [--reps R] [--dir DIR]\n"
                    "  `ulpgate check` on N values written as .npy under DIR, against the oracle "
                    "alone\n",
     {{"--n", 'v'}, {"--op", 'v'}, {"--reps", 'v'}, {"--dir", 'v'}}},
    {"bench rows", "usage: ulpgate bench rows [--rows R] [--n N] [--mpfr-rows M] [--threads T]\n"
                   "  the softmax and log-sum-exp references on R rows of N logits (default 4096 x "
                   "4096):\n  the fast path beside MPFR alone (timed on M rows, default 8, "
                   "scaled to R)\n",
     {{"--rows", 'v'}, {"--n", 'v'}, {"--mpfr-rows", 'v'}, {"--threads", 'v'}}},
    {"compare", "usage: ulpgate compare BASE NEW.json [--fail-on-regression] [--markdown] "
                "[--all]\n"
                "                       [--slack X] [--time-slack X] [--max-rows N] [--full-report URL]\n"
                "                       [--explain ROW]\n"
                "  the merge gate's comparison of two results.json; BASE may be a baseline (its folder\n"
                "  reports/baselines/KEY, or a single file of an older format); docs/gate.md\n"
                "  --explain ROW: the rows whose id matches ROW (a glob): verdict, how sure, figures,\n"
                "  the CPU models of a machine-dependent row, a nondeterministic row's history\n",
     {{"--fail-on-regression", 'f'}, {"--markdown", 'f'}, {"--all", 'f'}, {"--slack", 'v'},
      {"--time-slack", 'v'}, {"--max-rows", 'v'}, {"--full-report", 'v'}, {"--explain", 'v'}}},
    {"baseline", "usage: ulpgate baseline update [--device KEY] [--from results.json] [--reason "
                 "TEXT]\n"
                 "                       [--dir DIR] [--slack X] [--prune] [--dry-run]\n"
                 "       ulpgate baseline show [--device KEY | PATH] [--dir DIR] [--all]\n"
                 "       ulpgate baseline key [--from results.json]\n"
                 "       ulpgate baseline migrate [--device KEY | FILE] [--dir DIR] --reason TEXT\n"
                 "  the per-device baselines of the merge gate (docs/gate.md)\n",
     {{NULL, 0}}},
    {"baseline update", "usage: ulpgate baseline update [--device KEY] [--from results.json] "
                        "[--reason TEXT]\n"
                        "                       [--dir DIR] [--slack X] [--prune] [--dry-run]\n",
     {{"--device", 'v'}, {"--from", 'v'}, {"--reason", 'v'}, {"--dir", 'v'}, {"--slack", 'v'},
      {"--prune", 'f'}, {"--dry-run", 'f'}}},
    {"baseline show", "usage: ulpgate baseline show [--device KEY | PATH] [--dir DIR] [--all]\n"
                      "  PATH: a baseline, its folder (reports/baselines/KEY) or a single file of an\n"
                      "  older format\n",
     {{"--device", 'v'}, {"--dir", 'v'}, {"--all", 'f'}}},
    {"baseline key", "usage: ulpgate baseline key [--from results.json]\n", {{"--from", 'v'}}},
    {"baseline migrate", "usage: ulpgate baseline migrate [--device KEY | FILE] [--dir DIR] "
                         "--reason TEXT\n",
     {{"--device", 'v'}, {"--dir", 'v'}, {"--reason", 'v'}}},
    {"report", "usage: ulpgate report DIR [--baseline PATH|none]   summary.md and index.html "
               "beside results.json\n"
               "  PATH: a baseline folder or file, or another run's results.json (default: this\n"
               "  device's baseline under --baseline-dir; none: no comparison)\n",
     {{"--baseline", 'v'}}},
    {"summary", "usage: ulpgate summary results.json [--metric M] [--width N]   kernel x "
                "distribution table\n", {{"--metric", 'v'}, {"--width", 'v'}}},
};

const ug_cli_cmd *ug_cli_find(const char *cmd, const char *sub)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s%s", cmd, sub ? " " : "", sub ? sub : "");
    for (size_t i = 0; i < sizeof ug_cli_cmds / sizeof ug_cli_cmds[0]; i++)
        if (strcmp(ug_cli_cmds[i].name, name) == 0) return &ug_cli_cmds[i];
    return NULL;
}

/* Levenshtein distance of a and b (each cut at 63 characters): two rows, O(|a| |b|). */
static size_t ug_edit_distance(const char *a, const char *b)
{
    size_t la = strnlen(a, 63), lb = strnlen(b, 63), row[64], prev[64];
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]), del = prev[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, row, (lb + 1) * sizeof *row);
    }
    return prev[lb];
}

const char *ug_cli_closest(const char *s, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = ug_edit_distance(s, cands[i]);
        if (d < best_d) best_d = d, best = cands[i];
    }
    return best;
}

/* "ulpgate run: <message>", then where the options are listed; returns 2. */
static int ug_cli_fail(const ug_cli_cmd *c, const char *msg)
{
    fprintf(stderr, "ulpgate %s: %s\n(ulpgate %s --help lists the options)\n", c->name, msg, c->name);
    return 2;
}

/* An option getopt_long refused: unknown, ambiguous, or a flag given a value.  arg: as
 * written. */
static int ug_cli_refused(const ug_cli_cmd *c, const char *arg)
{
    char safe[512], msg[1200], name[128];
    const char *cands[UG_CLI_MAX_OPTS + 8];
    size_t n = 0, hits = 0;
    const char *found = NULL;
    snprintf(name, sizeof name, "%s", arg);
    name[strcspn(name, "=")] = 0;
    for (const ug_cli_opt *o = c->opts; o->name; o++) cands[n++] = o->name;
    for (const ug_cli_opt *o = ug_cli_global_opts; o->name; o++) cands[n++] = o->name;
    cands[n++] = "--help";
    if (strncmp(name, "--", 2) == 0 && name[2]) {
        char list[600] = "";
        for (size_t i = 0; i < n; i++)
            if (strncmp(cands[i], name, strlen(name)) == 0) {
                hits++;
                if (strlen(list) + strlen(cands[i]) + 3 < sizeof list)
                    strcat(strcat(list, hits > 1 ? ", " : ""), cands[i]);
                if (strcmp(cands[i], name) == 0 || hits == 1) found = cands[i];
            }
        if (hits == 1 && strchr(arg, '=')) {
            snprintf(msg, sizeof msg, "%s takes no value ('%s')", found, ug_escape(arg, safe, sizeof safe));
            return ug_cli_fail(c, msg);
        }
        if (hits > 1) {
            snprintf(msg, sizeof msg, "option '%s' is ambiguous: %s", ug_escape(name, safe, sizeof safe),
                     list);
            return ug_cli_fail(c, msg);
        }
    }
    const char *near = ug_cli_closest(name, cands, n);
    snprintf(msg, sizeof msg, "unknown option '%s'; did you mean '%s'?",
             ug_escape(arg, safe, sizeof safe), near);
    return ug_cli_fail(c, msg);
}

int ug_cli_normalize(const ug_cli_cmd *c, int words, int *argc, char ***argv)
{
    struct option lo[UG_CLI_MAX_OPTS + 2];
    int seen[UG_CLI_MAX_OPTS] = {0}, n = 0;
    for (; c->opts[n].name; n++)
        lo[n] = (struct option){c->opts[n].name + 2, c->opts[n].kind == 'f' ? no_argument : required_argument,
                                NULL, 256 + n};
    lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    lo[n + 1] = (struct option){NULL, 0, NULL, 0};
    /* getopt_long reads from av[1]: av[0] is the last command word */
    char **av = *argv + words - 1;
    int ac = *argc - words + 1;
    /* each argument becomes at most two ("--opt=v": "--opt" "v") */
    char **out = ug_xcalloc((size_t)(2 * *argc + 2), sizeof *out);
    free(ug_cli_owned);
    ug_cli_owned = out; /* every return path leaves it to ug_cli_release */
    int no = 0;
    for (int i = 0; i < words; i++) out[no++] = (*argv)[i];
    char msg[700], safe[512];
    int ch;
    optind = 0; /* a full reset (glibc): the table differs from call to call */
    opterr = 0;
    /* "-": operands come back in order (code 1), nothing is permuted; ":": a missing value is ':' */
    while ((ch = getopt_long(ac, av, "-:h", lo, NULL)) != -1) {
        if (ch == 1) {
            out[no++] = optarg;
        } else if (ch == 'h') {
            if (!c->usage) { /* the subcommand has its own help: --help alone, as for the others */
                *argc = words + 1;
                out[words] = "--help";
                out[words + 1] = NULL;
                *argv = out;
                return -1;
            }
            ug_cli_usage(stdout, c);
            return 0;
        } else if (ch >= 256) {
            const ug_cli_opt *o = &c->opts[ch - 256];
            if (o->kind == 'v' && seen[ch - 256]++) {
                snprintf(msg, sizeof msg, "%s given twice (it takes one value; the second was '%s')",
                         o->name, ug_escape(optarg, safe, sizeof safe));
                return ug_cli_fail(c, msg);
            }
            out[no++] = (char *)o->name;
            if (o->kind != 'f') out[no++] = optarg;
        } else if (ch == ':') {
            const char *name = optopt >= 256 && optopt < 256 + n ? c->opts[optopt - 256].name : av[optind - 1];
            snprintf(msg, sizeof msg, "%s needs a value", ug_escape(name, safe, sizeof safe));
            return ug_cli_fail(c, msg);
        } else { /* '?' */
            if (optopt >= 256 && optopt < 256 + n) { /* a flag given "=value" */
                snprintf(msg, sizeof msg, "%s takes no value ('%s')", c->opts[optopt - 256].name,
                         ug_escape(av[optind - 1], safe, sizeof safe));
                return ug_cli_fail(c, msg);
            }
            char shortopt[3] = {'-', (char)optopt, 0};
            return ug_cli_refused(c, optopt ? shortopt : av[optind - 1]);
        }
    }
    for (int i = optind; i < ac; i++) out[no++] = av[i]; /* after "--": operands */
    out[no] = NULL;
    *argc = no;
    *argv = out;
    return -1;
}
