/*
 * guard.c - signals, stdout errors, the per-case time limit and the watchdog (guard.h).
 *
 * The signal handler only records the signal (async-signal-safe); the run loop polls it at its
 * safe points.  The watchdog is a thread that wakes every UG_WATCH_TICK_S: it is the one part
 * of the process that still runs when the main thread is stuck in a kernel that never returns,
 * so it is the one that can end such a run with its results.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernels/device.h"
#include "base/par.h"
#include "base/sys.h"
#include "harness/run/context.h"
#include "harness/run/guard.h"
#include "harness/results/tap.h"

#define UG_WATCH_TICK_S 0.05
/* How long the watchdog waits for the results lock before it gives up on the report. */
#define UG_LOCK_WAIT_S 5

static const int ug_stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
enum { UG_N_STOP_SIGNALS = sizeof ug_stop_signals / sizeof ug_stop_signals[0] };

static volatile sig_atomic_t ug_sig;        /* the first stop signal, 0 while none came */
static volatile sig_atomic_t ug_sig_count;  /* how many came */

/* The results lock (guard.h), and the state the watchdog reads under ug_state_lock. */
static pthread_mutex_t ug_results_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ug_state_lock = PTHREAD_MUTEX_INITIALIZER;
static const ug_unit *ug_unit_now;          /* the unit running, or NULL */
static double ug_unit_t0;                   /* when it started */
static bool ug_done;                        /* the run is over: the watchdog returns */
static int ug_out_errno;                    /* the first stdout error */
static bool ug_out_stop;                    /* ... and it stops the run */

static ug_guard_run ug_run_info;            /* what the watchdog finishes a run with */
static double ug_timeout_s;
static double ug_call_limit_s;              /* the limit of one kernel call (0: none) */
static const char *ug_contained;            /* a command other than run (ug_guard_contain) */
static pthread_t ug_watchdog;
static bool ug_watchdog_started;
static char ug_stop_text[400];              /* the reason once the watchdog finishes the run */
static atomic_bool ug_finishing;            /* ug_watchdog_finish began: its _exit is its own */
static atomic_bool ug_trap_armed;           /* the exit handlers are installed (a guarded command) */
static _Atomic pid_t ug_guarded_pid;        /* ... by this process (not a child a kernel forked) */

/* ---- signals ------------------------------------------------------------------------------- */

static void ug_on_signal(int sig)
{
    /* a broken pipe stays broken: the writes that finish the TAP stream after the first SIGPIPE
     * raise it again, which is no one asking a second time to stop at once */
    if (sig == SIGPIPE && ug_sig) return;
    if (!ug_sig) ug_sig = sig;
    ug_sig_count = ug_sig_count + 1;
}

static const char *ug_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    }
    return "a signal";
}

/* Handlers for the stop signals; one ignored when the program started (nohup, a background job
 * of a shell without job control) stays ignored, as shells do. */
static void ug_install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ug_on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < UG_N_STOP_SIGNALS; i++) sigaddset(&sa.sa_mask, ug_stop_signals[i]);
    for (int i = 0; i < UG_N_STOP_SIGNALS; i++) {
        struct sigaction old;
        if (sigaction(ug_stop_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(ug_stop_signals[i], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN); /* a write past `ulimit -f` fails with EFBIG instead */
}

/* A crash (a kernel's bad access, a trap, an abort: glibc's heap checks abort on a heap overrun
 * they find, assert() aborts; a stack overflow is a SIGSEGV, handled on an alternate signal
 * stack since the thread's own is used up): the running unit fails, naming the kernel that was
 * running and the signal, and the run ends as the watchdog ends one (the failed point, the plan,
 * "Bail out!", the report marked interrupted), exit status 1.  Best effort, not async-signal-
 * safe: a first line goes to stderr with write(2) alone (whatever happens next, the crash is
 * never silent), every crash handler is reset (a second crash ends the process plainly) and an
 * alarm bounds the finish (a crash that left the heap locked cannot hang it). */
static void ug_watchdog_finish(const ug_unit *u, ug_status st, const char *what, int status);
static const int ug_crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
enum { UG_N_CRASH_SIGNALS = sizeof ug_crash_signals / sizeof ug_crash_signals[0] };
/* The alternate stack: the finish writes the report from it (JSON into heap buffers, a few
 * pages of its own). */
#define UG_ALT_STACK_BYTES (1u << 20)

/* What a kernel's crash or exit ends: the run's point and the run, or the contained command. */
static void ug_ends(char *buf, size_t len)
{
    if (ug_contained) snprintf(buf, len, "the %s ends", ug_contained);
    else snprintf(buf, len, "its point fails and the run ends");
}

static void ug_write_str(const char *s) { (void)!write(2, s, strlen(s)); }

/* The finish after a crash did not end in time (an abort inside malloc leaves its lock held):
 * say so and end, status 1; the report folder stays marked in progress. */
static void ug_on_crash_alarm(int sig)
{
    (void)sig;
    ug_write_str("ulpgate: the report could not be written after the crash (the heap or a lock "
                 "is broken); the report folder stays marked in progress\n");
    _exit(1);
}

/* The thread that finishes the process after a kernel's crash or exit (0: none yet). */
static atomic_long ug_finisher;

static void ug_on_crash(int sig)
{
    /* The first crash owns the finish.  The same thread crashing again (inside the finish) ends
     * the process plainly; another thread's crash (the hunt's kernels run on several threads at
     * once, and abort together) waits for the finish, which ends the process. */
    long me = (long)syscall(SYS_gettid), none = 0;
    if (!atomic_compare_exchange_strong(&ug_finisher, &none, me)) {
        if (none == me) {
            signal(sig, SIG_DFL);
            raise(sig);
        }
        for (;;) pause();
    }
    signal(SIGALRM, ug_on_crash_alarm);
    /* an abort is often the heap's own check failing inside malloc, whose lock it then holds:
     * the finish has less time before the alarm ends it */
    alarm(sig == SIGABRT ? UG_LOCK_WAIT_S : UG_LOCK_WAIT_S + 10);
    const char *name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                     : sig == SIGABRT ? "SIGABRT" : "SIGILL";
    const ug_kernel *k = ug_kernel_running(), *last = ug_kernel_last_run();
    /* async-signal-safe first: the heap may be what broke */
    ug_write_str("ulpgate: ");
    ug_write_str(k ? "kernel " : "crashed outside any kernel: ");
    ug_write_str(k ? k->id : "");
    ug_write_str(k ? " crashed: " : "");
    ug_write_str(name);
    ug_write_str(k && !ug_contained ? "; writing the report\n" : "\n");
    char what[400], ends[64];
    ug_ends(ends, sizeof ends);
    if (k)
        snprintf(what, sizeof what, "kernel %s crashed (%s%s): %s", k->id, name,
                 sig == SIGABRT ? ": abort(), an assertion or a corrupted heap" : "", ends);
    else if (last)
        snprintf(what, sizeof what, "ulpgate crashed (%s) outside any kernel; the last kernel run "
                 "was %s (a heap overrun by a kernel is found later, when its memory is freed)",
                 name, last->id);
    else
        snprintf(what, sizeof what, "ulpgate crashed (%s) outside any kernel", name);
    ug_watchdog_finish(ug_unit_now, UG_ST_FAIL, what, 1);
}

/* A kernel that calls exit() (or returns from a launcher thread's main): the run would end with
 * the kernel's status, 0 too, and no report.  The exit handler sees that a kernel is running,
 * fails its point and finishes the run as a crash does, exit status 1. */
static void ug_exit_seen(int status, const char *how)
{
    const ug_kernel *k = ug_kernel_running();
    /* a child a kernel forked ends as it likes (its _exit, its exec): the guarded process is
     * the one that installed the handlers */
    if (ug_done || getpid() != atomic_load(&ug_guarded_pid)) return;
    if (!k && status == 0 && ug_run_info.res && !ug_contained) {
        /* exit(0) in the middle of a run, outside any call (a thread a kernel left running, a
         * destructor): the run would end green with no plan line */
        const ug_kernel *last = ug_kernel_last_run();
        char what[400];
        snprintf(what, sizeof what, "%s(0) was called while the run went on, outside any "
                 "kernel call (the last kernel run: %s; a thread it left running?): the run ends "
                 "failed", how, last ? last->id : "none");
        ug_watchdog_finish(ug_unit_now, UG_ST_FAIL, what, 1);
    }
    if (!k) return;
    /* Kernels on several threads (the hunt) may call exit() together: the first finishes, the
     * others wait for it here (each holds one of the handler's entries, so none of them goes
     * on to end the process with its own status). */
    long me = (long)syscall(SYS_gettid), none = 0;
    if (!atomic_compare_exchange_strong(&ug_finisher, &none, me) && none != me)
        for (;;) pause();
    char what[400], ends[64];
    ug_ends(ends, sizeof ends);
    char st[16] = "";
    if (status >= 0) snprintf(st, sizeof st, "%d", status);
    snprintf(what, sizeof what, "kernel %s called %s(%s) while it ran: %s (a kernel returns, "
             "it never exits)", k->id, how, st, ends);
    ug_watchdog_finish(ug_unit_now, UG_ST_FAIL, what, 1);
}

static void ug_on_exit(int status, void *arg)
{
    (void)arg;
    ug_exit_seen(status, "exit");
}

/* quick_exit() runs these, not on_exit's: its status is not given to them (-1: not said) */
static void ug_on_quick_exit(void) { ug_exit_seen(-1, "quick_exit"); }

void ug_guard_exit_trap(int status, const char *how)
{
    /* the guard's own _exit (a run finished), or nothing guarded: the process just ends */
    if (atomic_load(&ug_finishing) || !atomic_load(&ug_trap_armed)) return;
    ug_exit_seen(status, how);
}

static void ug_install_crash_handlers(void)
{
    static void *alt_stack; /* kept for the process's life (and reachable: no leak report) */
    if (!alt_stack) {
        stack_t ss = {.ss_sp = alt_stack = malloc(UG_ALT_STACK_BYTES), .ss_size = UG_ALT_STACK_BYTES};
        if (ss.ss_sp) sigaltstack(&ss, NULL);
        /* one entry a thread that may call exit() at once: glibc runs each entry once, and a
         * thread that finds none left ends the process with its status */
        for (int i = 0; i < UG_PAR_MAX + 8; i++) on_exit(ug_on_exit, NULL);
        for (int i = 0; i < UG_PAR_MAX + 8; i++) at_quick_exit(ug_on_quick_exit);
        atomic_store(&ug_guarded_pid, getpid());
        atomic_store(&ug_trap_armed, true);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ug_on_crash;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < UG_N_CRASH_SIGNALS; i++) sigaction(ug_crash_signals[i], &sa, NULL);
}

bool ug_guard_stopping(void) { return ug_sig != 0 || ug_out_stop; }

int ug_guard_status(void)
{
    if (ug_sig) return 128 + ug_sig;
    if (!ug_out_stop) return 0;
    /* stopped by a stdout error: a failure already seen still says so (1), else 2 */
    return ug_run_info.res && ug_results_status(ug_run_info.res) ? 1 : 2;
}

const char *ug_guard_reason(void)
{
    if (ug_stop_text[0]) return ug_stop_text;
    if (ug_sig) return ug_signal_name(ug_sig);
    return ug_out_stop ? "stdout write error" : NULL;
}

/* ---- output errors ----------------------------------------------------------------------- */

int ug_guard_output(FILE *out)
{
    if (ug_out_errno || !ferror(out)) return ug_out_errno;
    /* tap.c flushes after every point: errno is that flush's error */
    int e = errno ? errno : EIO;
    pthread_mutex_lock(&ug_state_lock);
    ug_out_errno = e;
    /* a closed pipe is SIGPIPE's case (when SIGPIPE is ignored); without a report nothing
     * would keep the results of the rest of the run */
    if (e == EPIPE && !ug_sig) ug_sig = SIGPIPE;
    if (!ug_run_info.opt || !ug_run_info.opt->report_dir) ug_out_stop = true;
    pthread_mutex_unlock(&ug_state_lock);
    fprintf(stderr, "ulpgate: stdout: write error: %s%s\n", strerror(e),
            ug_guard_stopping() ? "; stopping the run" : "; the run goes on for the report");
    return e;
}

int ug_guard_output_error(void) { return ug_out_errno; }

/* ---- the results lock and the running unit ------------------------------------------------ */

void ug_guard_lock(void) { pthread_mutex_lock(&ug_results_lock); }
void ug_guard_unlock(void) { pthread_mutex_unlock(&ug_results_lock); }

void ug_guard_unit(const ug_unit *u)
{
    pthread_mutex_lock(&ug_state_lock);
    ug_unit_now = u;
    ug_unit_t0 = ug_now_s();
    pthread_mutex_unlock(&ug_state_lock);
}

/* ---- the watchdog ------------------------------------------------------------------------ */

/* End the run from the watchdog: under the results lock, the running unit as one more point
 * (failed past the time limit; skipped when a signal stopped it), the plan, "Bail out!", the
 * report; then exit.  Without the lock within UG_LOCK_WAIT_S (the main thread stuck inside a
 * write), it says so and exits without them. */
static void ug_watchdog_finish(const ug_unit *u, ug_status st, const char *what, int status)
{
    atomic_store(&ug_finishing, true); /* its own _exit is not a kernel's (ug_guard_exit_trap) */
    const ug_guard_run *run = &ug_run_info;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += UG_LOCK_WAIT_S;
    bool locked = pthread_mutex_timedlock(&ug_results_lock, &until) == 0;
    snprintf(ug_stop_text, sizeof ug_stop_text, "%s", what);
    if (locked && run->res) {
        if (u) {
            char diag[600];
            snprintf(diag, sizeof diag, "# %s: %s\n", u->name, what);
            ug_point_record rec = {.name = u->name, .status = st, .failures = st == UG_ST_FAIL,
                                   .skip_reason = what, .xfail = "", .diag = diag};
            /* the GPU's name was read when the device was probed: no CUDA call here, where a
             * hung kernel may hold the context */
            ug_gpu_info gi;
            const char *device = !(u->c->flags & UG_CASE_GPU) ? "cpu"
                               : ug_device_info(&gi) == 0 ? gi.name : "gpu";
            ug_row row;
            ug_row_from_point(&row, u->name, &rec, device, run->opt->seed);
            snprintf(row.note, sizeof row.note, "%s", what);
            ug_results_add(run->res, &row);
            ug_results_add_unit(run->res, u->name, ug_now_s() - ug_unit_t0);
            ug_tap_point(run->out, (int)run->res->count, &rec, NULL);
        }
        ug_tap_plan(run->out, (int)run->res->count);
        ug_tap_bail(run->out, what);
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, NULL);
        if (run->opt->report_dir && run->write_report)
            run->write_report(run->opt, run->res, run->argc, run->argv);
    }
    if (ug_contained) { /* no results to keep: the command's own statuses stay unambiguous */
        fflush(stdout);
        fprintf(stderr, "ulpgate %s: %s\n", ug_contained, what);
        fflush(NULL);
        _exit(status == UG_EXIT_TIMEOUT ? status : UG_EXIT_KERNEL);
    }
    fprintf(stderr, "ulpgate: %s%s\n", what,
            locked ? "" : " (the results lock was held: no report written)");
    fflush(NULL);
    _exit(status);
}

static void *ug_watchdog_main(void *arg)
{
    (void)arg;
    sigset_t stops;
    sigemptyset(&stops);
    for (int i = 0; i < UG_N_STOP_SIGNALS; i++) sigaddset(&stops, ug_stop_signals[i]);
    pthread_sigmask(SIG_BLOCK, &stops, NULL); /* signals go to the threads that work */
    double sig_at = 0;
    for (;;) {
        pthread_mutex_lock(&ug_state_lock);
        bool done = ug_done;
        const ug_unit *u = ug_unit_now;
        double t0 = ug_unit_t0;
        pthread_mutex_unlock(&ug_state_lock);
        if (done) return NULL;
        double now = ug_now_s();
        char what[400];
        if (ug_sig && !sig_at) sig_at = now;
        if (ug_sig && (ug_sig_count > 1 || now - sig_at >= UG_STOP_GRACE_S)) {
            if (ug_sig_count > 1)
                snprintf(what, sizeof what, "interrupted by %s: a second signal ended the run at once",
                         ug_signal_name(ug_sig));
            else
                snprintf(what, sizeof what, "interrupted by %s: the running case did not stop "
                         "within %g s", ug_signal_name(ug_sig), UG_STOP_GRACE_S);
            ug_watchdog_finish(u, UG_ST_SKIP, what, 128 + ug_sig);
        }
        double call_t0 = 0;
        const ug_kernel *call = ug_call_limit_s > 0 ? ug_kernel_oldest_call(&call_t0) : NULL;
        if (call && now - call_t0 >= ug_call_limit_s) {
            snprintf(what, sizeof what, "timed out: kernel %s still running after %g s in one "
                     "call (the limit of a kernel call: ULPGATE_CALL_TIMEOUT, default %g s); "
                     "the %s cannot go on (a kernel that never returns holds this process)",
                     call->id, ug_call_limit_s, UG_CALL_LIMIT_S, ug_contained ? ug_contained : "run");
            ug_watchdog_finish(u, UG_ST_FAIL, what, UG_EXIT_TIMEOUT);
        }
        if (ug_timeout_s > 0 && u && now - t0 >= ug_timeout_s) {
            snprintf(what, sizeof what, "timed out: %s still running after %g s (--timeout %g); "
                     "the run cannot go on (a kernel that never returns holds this process)",
                     u->name, ug_timeout_s, ug_timeout_s);
            ug_watchdog_finish(u, UG_ST_FAIL, what, UG_EXIT_TIMEOUT);
        }
        struct timespec tick = {0, (long)(UG_WATCH_TICK_S * 1e9)};
        nanosleep(&tick, NULL);
    }
}

double ug_guard_call_limit(void)
{
    const char *e = getenv("ULPGATE_CALL_TIMEOUT");
    if (!e || !*e) return UG_CALL_LIMIT_S;
    char *end;
    double v = strtod(e, &end);
    if (*end || !(v >= 0) || v > 1e9) {
        fprintf(stderr, "ulpgate: ULPGATE_CALL_TIMEOUT='%s' is not seconds >= 0 (0: no limit); "
                "the default %g s holds\n", e, UG_CALL_LIMIT_S);
        return UG_CALL_LIMIT_S;
    }
    return v;
}

static int ug_watchdog_start(void)
{
    int rc = pthread_create(&ug_watchdog, NULL, ug_watchdog_main, NULL);
    if (rc != 0) {
        fprintf(stderr, "ulpgate: cannot start the watchdog thread: %s\n", strerror(rc));
        return -1;
    }
    ug_watchdog_started = true;
    return 0;
}

int ug_guard_begin(const ug_guard_run *run, double timeout_s)
{
    ug_run_info = *run;
    ug_timeout_s = timeout_s;
    ug_call_limit_s = ug_guard_call_limit();
    ug_install_handlers();
    ug_install_crash_handlers();
    return ug_watchdog_start();
}

int ug_guard_contain(const char *command, double call_limit_s)
{
    memset(&ug_run_info, 0, sizeof ug_run_info);
    ug_contained = command;
    ug_timeout_s = 0;
    ug_call_limit_s = call_limit_s;
    ug_install_crash_handlers();
    return ug_watchdog_start();
}

void ug_guard_end(void)
{
    pthread_mutex_lock(&ug_state_lock);
    ug_done = true;
    ug_unit_now = NULL;
    pthread_mutex_unlock(&ug_state_lock);
    if (ug_watchdog_started) pthread_join(ug_watchdog, NULL);
    ug_watchdog_started = false;
    if (ug_contained) return; /* its signals were never the guard's */
    sigset_t stops;
    sigemptyset(&stops);
    for (int i = 0; i < UG_N_STOP_SIGNALS; i++) sigaddset(&stops, ug_stop_signals[i]);
    pthread_sigmask(SIG_BLOCK, &stops, NULL);
}

int ug_guard_bail(FILE *out, int points, const ug_results *res, bool progress)
{
    char summary[200], why[400];
    if (progress) fprintf(stderr, "\r\033[K");
    ug_results_summary(res, summary, sizeof summary);
    ug_tap_plan(out, points);
    fprintf(out, "# %s\n", summary);
    snprintf(why, sizeof why, "interrupted by %s: stopped after %d test point%s; the rest of the "
             "run did not run", ug_guard_reason(), points, points == 1 ? "" : "s");
    ug_tap_bail(out, why);
    fprintf(stderr, "ulpgate: %s (%s)\n", why, summary);
    return ug_guard_status();
}

/* ---- safe points inside a case ---------------------------------------------------------- */

void ug_guard_check(ug_t *t)
{
    if (!ug_guard_stopping()) return;
    ug_point(t, "interrupted");
    t->pt.skipped = true;
    snprintf(t->pt.skip_reason, sizeof t->pt.skip_reason, "interrupted by %s", ug_guard_reason());
    ug_abort_case(t);
}
