/* cli.h - the subcommands of the ulpgate command line (harness/cli_*.c, main.c). */
#ifndef UG_CLI_H
#define UG_CLI_H

/* The usage text, and a usage error: "ulpgate: <message>" and the usage on stderr; returns 2. */
extern const char ug_usage_text[];
int ug_usage_error(const char *fmt, const char *arg);

/* Each returns the process exit status: 0 ok, 1 a failure, 2 a usage or input error. */
int ug_cmd_run(int argc, char **argv, int full_argc, char **full_argv, const char *argv0);
int ug_cmd_list(int argc, char **argv);

#endif
