/*
 * guard.h - what keeps a run's results when something around it goes wrong.
 *
 *   - SIGINT, SIGTERM, SIGHUP and SIGPIPE ask the run to stop: the run loop stops at the next
 *     safe point (before a unit, a measurement, an input, a trial), closes the TAP stream with
 *     its plan and a "Bail out!" line, and `run` writes what was measured as a report marked
 *     "interrupted" (exit status 128 + the signal's number).  A second signal, or a run that has
 *     not stopped UG_STOP_GRACE_S seconds after the first (a kernel that never returns, one long
 *     oracle call), makes the watchdog thread finish instead (below).
 *   - A write error on stdout is detected after every test point (the first errno is kept;
 *     without --report the run stops there, since nothing would keep its results).
 *   - The watchdog thread: a unit (a case, or a row of its table) still running after the
 *     per-case time limit (run --timeout S) fails with a clear message; as a hung kernel leaves
 *     the process unusable, the watchdog itself then finishes the TAP stream (the failed point,
 *     the plan, "Bail out!"), writes the report marked interrupted, and exits with status 124
 *     (as timeout(1)).  It takes the results lock first, so it never sees half a row.
 *   - SIGXFSZ is ignored: a write past `ulimit -f` fails with EFBIG and is reported as any
 *     other write error, instead of killing the process.
 * Signals are blocked (ug_guard_end) while the report is written, so an interruption cannot
 * leave its temporary file behind.  Only `ulpgate run` (one process, no --gpus) installs this.
 */
#ifndef UG_GUARD_H
#define UG_GUARD_H

#include <stdbool.h>
#include <stdio.h>

#include "harness/results/results.h"
#include "harness/run/run.h"

/* Seconds a run has to stop by itself after a signal before the watchdog finishes it. */
#define UG_STOP_GRACE_S 3.0
/* Exit status of a run ended by the per-case time limit, or by the limit of one kernel call. */
#define UG_EXIT_TIMEOUT 124
/* Exit status of a command other than run (ug_guard_contain) ended by its kernel: a crash, an
 * abort, an exit() while it ran.  Not 0, 1 or 2, which those commands give their own meanings. */
#define UG_EXIT_KERNEL 3
/* The default limit of one kernel call, in seconds (ULPGATE_CALL_TIMEOUT=S changes it, 0: no
 * limit): a kernel that never returns ends a run, a hunt or a probe without --timeout. */
#define UG_CALL_LIMIT_S 600.0

/* What the watchdog needs to finish a run by itself: the run's options, its results list, its
 * TAP stream and the command line for the report.  Kept by pointer for the run's duration. */
typedef struct ug_guard_run {
    const ug_options *opt;
    ug_results *res;
    FILE *out;
    int argc;
    char **argv;
    /* how the watchdog writes the report of a run it ends (ug_report_write; passed in so that
     * the guard, which the run loop calls, does not call up into the report) */
    int (*write_report)(const ug_options *opt, const ug_results *res, int argc, char **argv);
} ug_guard_run;

/* Install the signal handlers and start the watchdog (timeout_s > 0: the per-case limit; 0:
 * none).  Returns 0, or -1 with a message on stderr when the thread cannot start. */
int ug_guard_begin(const ug_guard_run *run, double timeout_s);
/* The limit of one kernel call: ULPGATE_CALL_TIMEOUT when set (a bad value is said on stderr),
 * else UG_CALL_LIMIT_S. */
double ug_guard_call_limit(void);

/* Contain the kernels a command other than `run` calls (`hunt`, `probe`), from any thread: a
 * kernel that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: a fenced buffer overrun,
 * abort()), calls exit(), or runs one call longer than call_limit_s (0: none) ends the process
 * with "ulpgate COMMAND: kernel K ..." on stderr and exit status UG_EXIT_KERNEL (UG_EXIT_TIMEOUT
 * for the time limit).  command is kept by pointer.  0, or -1 (the watchdog cannot start). */
int ug_guard_contain(const char *command, double call_limit_s);
/* A kernel that ends the process by a way exit()'s handlers never see: _exit, _Exit or an exec
 * (harness/cli/exit_trap.c, in the ulpgate executable alone, interposes them; quick_exit is
 * seen by at_quick_exit).  how: the function's name; status < 0: none.  Finishes the run or the
 * command as a kernel's exit() does (a failed point, the report, exit 1; 3 for hunt and probe)
 * when a kernel is running under a guarded command, else returns and the caller goes on. */
void ug_guard_exit_trap(int status, const char *how);
/* The run is over: stop the watchdog and block the four signals for the rest of the process
 * (the report is written after this).  Harmless without ug_guard_begin. */
void ug_guard_end(void);

/* Whether the run was asked to stop (a signal, or a stdout error with no report to keep the
 * results); its exit status (128 + signal, or 2; 0 when not stopped) and reason ("SIGINT",
 * "stdout write error"; NULL when not stopped). */
bool ug_guard_stopping(void);
int ug_guard_status(void);
const char *ug_guard_reason(void);

/* The results lock: the run loop's collector holds it while it appends a row and prints it. */
void ug_guard_lock(void);
void ug_guard_unlock(void);
/* The unit now running (NULL: none): the watchdog's deadline starts now. */
struct ug_unit;
void ug_guard_unit(const struct ug_unit *u);
/* After a write to out (the TAP stream): record its first error.  0, or the errno. */
int ug_guard_output(FILE *out);
/* The errno of the first stdout error seen (EIO when unknown), or 0. */
int ug_guard_output_error(void);

/* The run loop stopped on ug_guard_stopping(): end the TAP stream on out (the plan of the
 * `points` printed, the summary of res as a comment, "Bail out! interrupted by SIGINT ...") and
 * return the exit status (ug_guard_status()). */
int ug_guard_bail(FILE *out, int points, const ug_results *res, bool progress);

/* A safe point inside a case (harness internals: measure.c, input.c): when the run is stopping,
 * close the open test point, record a skipped point "<unit> interrupted" naming the reason,
 * and leave the case (as an UG_ASSERT does).  Returns when the run goes on. */
struct ug_t;
void ug_guard_check(struct ug_t *t);

#endif
