/*
 * hooks.c - the running case as the context of its measurements (harness/measure/mctx.h): the
 * measurement's part of ug_t filled from the run's options and the unit, and the hooks through
 * which a measurement opens, fails and skips the case's test points and hears of a signal.
 */
#include <stdio.h>

#include "harness/run/context.h"
#include "harness/run/guard.h"

static ug_result *ug_hook_open_result(ug_t *t) { return t->pt.result; }

static void ug_hook_skip_point(ug_t *t, const char *why)
{
    t->pt.skipped = true;
    snprintf(t->pt.skip_reason, sizeof t->pt.skip_reason, "%s", why);
}

static void ug_hook_point(ug_t *t, const char *name) { ug_point(t, "%s", name); }

static const ug_point_hooks ug_case_hooks = {
    .open = ug_point_open,
    .point = ug_hook_point,
    .ensure = ug_point_ensure,
    .close = ug_point_close,
    .open_result = ug_hook_open_result,
    .fail = ug_fail_header,
    .rerun = ug_rerun_line,
    .skip_point = ug_hook_skip_point,
    .skip_reason = ug_point_skip_reason,
    .skip = ug_skip,
    .leave = ug_abort_case,
    .check_stop = ug_guard_check,
    .stopping = ug_guard_stopping,
    .stop_reason = ug_guard_reason,
};

void ug_case_context(ug_t *t, const ug_options *opt, const ug_unit *u)
{
    ug_mctx *m = &t->m;
    m->hooks = &ug_case_hooks;
    m->name = u->name;
    m->gpu = u->c && (u->c->flags & UG_CASE_GPU);
    m->seed = opt->seed;
    m->trial = opt->trial;
    m->trials = opt->trials;
    m->oracle = opt->oracle;
    m->oracle_set = opt->oracle_set;
    m->oracle_check_all = opt->oracle_check_all;
}
