/*
 * cli_opts.h - the command-line conventions every subcommand shares (getopt_long's): each
 * subcommand declares its options once (cli_opts.c); before the subcommand parses its argv,
 * ug_cli_normalize checks it against that table and rewrites it in the one form the parsers
 * read ("--opt value"), so that
 *   --opt=value and --opt value both work, and an unambiguous prefix of a long option too;
 *   -h / --help prints the subcommand's own usage (exit 0);
 *   an unknown option is exit 2 naming the closest option (edit distance);
 *   a missing option argument is exit 2 naming the option;
 *   an option given twice is refused (exit 2) unless it is declared repeatable, in which case
 *   the subcommand combines the values (never one silently replacing another).
 */
#ifndef UG_CLI_OPTS_H
#define UG_CLI_OPTS_H

#include <stddef.h>
#include <stdio.h>

/* One option: its long name ("--filter") and its kind. */
typedef struct ug_cli_opt {
    const char *name;
    char kind; /* 'f' a flag (repeating it changes nothing), 'v' a value (once), 'r' a value
                * that may repeat (the subcommand combines them) */
} ug_cli_opt;

enum { UG_CLI_MAX_OPTS = 24 };

/* A subcommand ("run") or the subcommand of one ("baseline update"): its usage and options. */
typedef struct ug_cli_cmd {
    const char *name;
    const char *usage;
    ug_cli_opt opts[UG_CLI_MAX_OPTS]; /* ends at a NULL name */
} ug_cli_cmd;

/* The options of every command (main.c takes them out of argv first): --plugin and the rest. */
extern const ug_cli_opt ug_cli_global_opts[];
/* The top-level command names, for did-you-mean ("run", "list", ..., "version", "help"). */
extern const char *const ug_cli_command_names[];

/* The table entry of `cmd` (and of `cmd sub` when cmd has subcommands: sub may be NULL for
 * the parent's own entry); NULL when there is none. */
const ug_cli_cmd *ug_cli_find(const char *cmd, const char *sub);
/* Check and rewrite the subcommand's argv (*argv[0..words) are the command words, "baseline"
 * "update"; the options and operands follow).  Returns -1: go on with the rewritten *argc,
 * *argv (allocated for the process's life); 0: --help was printed; 2: a usage error was
 * printed.  Cost: O(argc x options). */
int ug_cli_normalize(const ug_cli_cmd *c, int words, int *argc, char ***argv);
/* Frees the argument vector ug_cli_normalize made (its strings are argv's): after the command. */
void ug_cli_release(void);
/* The command whose usage a usage error prints (ug_usage_error): set by the dispatch. */
extern const ug_cli_cmd *ug_cli_current;
/* The usage of c, then the options of every command; c NULL: the whole usage (cli_usage.c). */
void ug_cli_usage(FILE *f, const ug_cli_cmd *c);
extern const char ug_usage_run[], ug_usage_global[];
/* The candidate of cands[0..n) closest to s by edit distance (ties: the first); NULL if n = 0. */
const char *ug_cli_closest(const char *s, const char *const *cands, size_t n);

#endif
