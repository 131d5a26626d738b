/*
 * main.c - the ulpgate command line.
 *
 *   ulpgate list
 *   ulpgate run [--filter GLOB] [--kernel GLOB] [--n N] [--trial T] [--trials N] [--seed S]
 *               [--tap] [--report DIR] [--slow | --slow-only] [--oracle gpu|fast|mpfr]
 *               [--oracle-check sample|all] [--threads N]
 *   ulpgate oracle --op sum|dot [--json] [--got X] FILE
 *   ulpgate check --op sum|dot|gemm --got GOT.npy X.npy [Y.npy] [--ulp-max U] [--json] ...
 *   ulpgate hunt --kernel NAME --n N [--objective bound|ulp] [--budget S | --evals N] ...
 *   ulpgate bench oracle [--big] [--gpu] [--threads N]
 *   ulpgate bench rows [--rows R] [--n N] [--mpfr-rows M] [--threads T]
 *   ulpgate compare BASE NEW.json [--fail-on-regression] [--markdown] [...]
 *   ulpgate baseline update|show|key [...]
 *   ulpgate report DIR [--baseline PATH|none]
 *   ulpgate summary results.json [--metric M] [--width N]
 *   ulpgate version | --version
 * Every command also takes --plugin FILE (repeatable), --no-builtin, --data-dir DIR,
 * --baseline-dir DIR and --commit C (ug_global_options), and -h/--help; every option may be
 * written --opt=value (cli_opts.h: the conventions every subcommand shares).
 *
 * Exit codes: 0 all passed, 1 an assertion failed, 2 usage, input or output error (message on
 * stderr); `run` also 124 (the per-case time limit) and 128 + N (stopped by signal N).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "kernels/plugin.h"

#include "harness/cli/cli.h"
#include "harness/cli/cli_opts.h"
#include "harness/run/guard.h"
#include "oracle/oracle.h"
#include "ug_config.h"

/* The options of every command, taken out of argv before the command parses the rest:
 *   --plugin FILE (repeatable), --no-builtin, --data-dir DIR, --baseline-dir DIR, --commit C.
 * Each is handed on as an environment variable (ULPGATE_PLUGINS, colon-separated;
 * ULPGATE_NO_BUILTIN=1; ULPGATE_DATA_DIR; ULPGATE_BASELINE_DIR; ULPGATE_COMMIT), so that the
 * worker processes of --gpus inherit them, and so that the variables alone do the same.
 * Returns 0, or 2 after a usage error; *argc shrinks. */
static int ug_global_options(int *argc, char **argv)
{
    static const char *const valued[][2] = {{"--data-dir", "ULPGATE_DATA_DIR"},
                                            {"--baseline-dir", "ULPGATE_BASELINE_DIR"},
                                            {"--commit", "ULPGATE_COMMIT"}};
    bool given[3] = {false, false, false};
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        size_t len = strcspn(a, "=");
        const char *eq = a[len] == '=' ? a + len + 1 : NULL; /* --opt=value */
        bool taken = false;
        if (strcmp(a, "--no-builtin") == 0) {
            setenv("ULPGATE_NO_BUILTIN", "1", 1);
            continue;
        }
        if (strncmp(a, "--plugin", len) == 0 && len == 8) {
            const char *v = eq ? eq : i + 1 < *argc ? argv[++i] : NULL;
            if (!v || !*v) return ug_usage_error("%s needs a file", "--plugin");
            const char *old = getenv("ULPGATE_PLUGINS");
            char *p = ug_xmalloc(strlen(v) + (old ? strlen(old) : 0) + 2);
            sprintf(p, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", v);
            setenv("ULPGATE_PLUGINS", p, 1);
            free(p);
            continue;
        }
        for (size_t j = 0; j < sizeof valued / sizeof valued[0] && !taken; j++)
            if (strlen(valued[j][0]) == len && strncmp(a, valued[j][0], len) == 0) {
                const char *v = eq ? eq : i + 1 < *argc ? argv[++i] : NULL;
                if (!v || !*v) return ug_usage_error("%s needs a value", valued[j][0]);
                /* never one value silently replacing another */
                if (given[j]) return ug_usage_error("%s given twice (it takes one value)", valued[j][0]);
                given[j] = true;
                setenv(valued[j][1], v, 1);
                taken = true;
            }
        if (!taken) argv[out++] = argv[i];
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

/* Load what the environment names (ug_global_options): the plugins, --no-builtin.  Before
 * anything looks at the registry. */
static int ug_load_plugins(void)
{
    const char *nb = getenv("ULPGATE_NO_BUILTIN");
    const char *env = getenv("ULPGATE_PLUGINS");
    if (nb && strcmp(nb, "1") == 0) {
        if (!env || !*env) return ug_usage_error("%s", "--no-builtin without --plugin: no kernel to test");
        ug_registry_no_builtin();
    }
    if (!env || !*env) return 0;
    char *list = ug_xstrdup(env), *save = NULL;
    int rc = 0;
    for (char *p = strtok_r(list, ":", &save); p && rc == 0; p = strtok_r(NULL, ":", &save))
        rc = ug_plugin_load(p);
    free(list);
    return rc;
}

/* The commit a run records: the user's.  --commit, else `git describe --always --dirty` of the
 * working directory's repository (asked once, here, before any CUDA call: no fork after one),
 * else "unknown".  Handed on as ULPGATE_COMMIT. */
static void ug_user_commit(void)
{
    const char *c = getenv("ULPGATE_COMMIT");
    if (c && *c) return;
    char line[128] = "";
    FILE *p = popen("git describe --always --dirty 2>/dev/null", "r");
    if (p) {
        if (!fgets(line, sizeof line, p)) line[0] = 0;
        pclose(p);
    }
    line[strcspn(line, "\n")] = 0;
    setenv("ULPGATE_COMMIT", *line ? line : "unknown", 1);
}

/* The subcommand's table entry (cli_opts.c); NULL after a usage error naming the closest
 * command.  *words: 1, or 2 for a subcommand of bench or baseline. */
static const ug_cli_cmd *ug_find_command(int argc, char **argv, int *words)
{
    const char *cmd = argv[1];
    size_t n = 0;
    while (ug_cli_command_names[n]) n++;
    *words = 1;
    const ug_cli_cmd *c = ug_cli_find(cmd, NULL);
    if (!c) {
        char msg[300];
        snprintf(msg, sizeof msg, "unknown command '%%s'; did you mean '%s'?",
                 ug_cli_closest(cmd, ug_cli_command_names, n));
        return ug_usage_error(msg, cmd), NULL;
    }
    if ((strcmp(cmd, "bench") == 0 || strcmp(cmd, "baseline") == 0) && argc > 2 && argv[2][0] != '-') {
        static const char *const bench[] = {"oracle", "check", "rows"};
        static const char *const baseline[] = {"update", "show", "key", "migrate"};
        bool b = strcmp(cmd, "bench") == 0;
        const ug_cli_cmd *s = ug_cli_find(cmd, argv[2]);
        if (!s) {
            char msg[300];
            ug_cli_current = c;
            snprintf(msg, sizeof msg, "%s: '%%s' is not %s; did you mean '%s'?", cmd,
                     b ? "oracle, check or rows" : "update, show, key or migrate",
                     ug_cli_closest(argv[2], b ? bench : baseline, b ? 3 : 4));
            return ug_usage_error(msg, argv[2]), NULL;
        }
        *words = 2;
        return s;
    }
    return c;
}

/* Dispatch to the subcommand; its exit status. */
static int ug_main(int argc, char **argv)
{
    int rc = ug_global_options(&argc, argv);
    if (rc != 0) return rc;
    if (argc < 2) return ug_usage_error("%s", "no command given");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(ug_usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("ulpgate %s\n", UG_VERSION);
        return 0;
    }
    int words, sargc = argc - 1;
    char **sargv = argv + 1;
    const ug_cli_cmd *c = ug_find_command(argc, argv, &words);
    if (!c) return 2;
    ug_cli_current = c; /* a usage error prints this command's usage */
    /* --opt=value, --help, unknown, missing and repeated options: cli_opts.h */
    if ((rc = ug_cli_normalize(c, words, &sargc, &sargv)) >= 0) return rc;
    if (strcmp(cmd, "version") == 0) {
        if (sargc > 1) return ug_usage_error("version takes no arguments (got '%s')", sargv[1]);
        printf("ulpgate %s\n", UG_VERSION);
        return 0;
    }
    if ((rc = ug_load_plugins()) != 0) return rc;
    if (strcmp(cmd, "run") == 0 || strcmp(cmd, "hunt") == 0) ug_user_commit();
    if (strcmp(cmd, "list") == 0) return ug_cmd_list(sargc, sargv);
    if (strcmp(cmd, "run") == 0) return ug_cmd_run(sargc, sargv, argc, argv, argv[0]);
    if (strcmp(cmd, "oracle") == 0) return ug_cmd_oracle(sargc, sargv);
    if (strcmp(cmd, "check") == 0) return ug_cmd_check(sargc, sargv);
    if (strcmp(cmd, "hunt") == 0) return ug_cmd_hunt(sargc, sargv);
    if (strcmp(cmd, "bench") == 0) return ug_cmd_bench_oracle(sargc, sargv);
    if (strcmp(cmd, "merge") == 0) return ug_cmd_merge(sargc, sargv);
    if (strcmp(cmd, "devices") == 0) return ug_cmd_devices(sargc, sargv);
    if (strcmp(cmd, "costs") == 0) return ug_cmd_costs(sargc, sargv);
    if (strcmp(cmd, "probe") == 0) return ug_cmd_probe(sargc, sargv);
    if (strcmp(cmd, "compare") == 0) return ug_cmd_compare(sargc, sargv);
    if (strcmp(cmd, "baseline") == 0) return ug_cmd_baseline(sargc, sargv, argc, argv);
    if (strcmp(cmd, "report") == 0) return ug_cmd_report(sargc, sargv);
    if (strcmp(cmd, "summary") == 0) return ug_cmd_summary(sargc, sargv);
    return ug_usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = ug_main(argc, argv);
    ug_cli_release();
    /* Output that never arrived (a full disk, a closed pipe) is an error of every command: a
     * success becomes 2; a failure's own status stays (both are stated). */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        /* errno is that of the last failed write: stdio keeps trying after the first */
        if (!ug_guard_output_error())
            fprintf(stderr, "ulpgate: stdout: write error: %s\n", errno ? strerror(errno) : "output lost");
        if (rc == 0) rc = 2;
    }
    return rc;
}
