/*
 * guard_cases.c - a case that stands in for a kernel that never returns, on the CPU: it sleeps
 * for up to UG_STUCK_S seconds without reaching a safe point of the run loop.  tests/
 * reliab_test.sh runs it (it is a canary: never in a plain run) to check, without a GPU, that
 * the per-case time limit ends such a run (exit 124, a failed point, the plan, "Bail out!", an
 * interrupted report) and that a signal ends it within the watchdog's grace.
 */
#include <time.h>

#include "harness/run/ug.h"

/* Long enough for every limit the test sets, short enough that a broken watchdog only costs
 * this much. */
#define UG_STUCK_S 30.0

static double ug_guard_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

UG_CASE_EX(guard, stuck, UG_CASE_SHOULD_FAIL)
{
    ug_point(t, "stuck");
    for (double end = ug_guard_now() + UG_STUCK_S; ug_guard_now() < end;) {
        struct timespec tick = {0, 50 * 1000 * 1000};
        nanosleep(&tick, NULL); /* a signal cuts one tick short, nothing more */
    }
    UG_EXPECT_MSG(0, "guard/stuck ran to its end: the watchdog did not stop it");
}
