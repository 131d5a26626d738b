/*
 * mctx.c - the hooks a measurement reports through (mctx.h), called.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/measure/mctx.h"

static const ug_point_hooks *ug_hooks(const ug_t *t) { return ug_mctx_of(t)->hooks; }

void ug_m_open(ug_t *t, const char *name, ug_result *r) { ug_hooks(t)->open(t, name, r); }
void ug_m_ensure(ug_t *t) { ug_hooks(t)->ensure(t); }
void ug_m_close(ug_t *t) { ug_hooks(t)->close(t); }
ug_result *ug_m_open_result(ug_t *t) { return ug_hooks(t)->open_result(t); }
void ug_m_rerun(ug_t *t, const ug_result *r, int trial) { ug_hooks(t)->rerun(t, r, trial); }
const char *ug_m_skip_reason(const ug_t *t) { return ug_hooks(t)->skip_reason(t); }
void ug_m_skip(ug_t *t, const char *why) { ug_hooks(t)->skip(t, why); }
void ug_m_check_stop(ug_t *t) { ug_hooks(t)->check_stop(t); }
void ug_m_leave(ug_t *t)
{
    ug_hooks(t)->leave(t);
    abort(); /* a leave hook returns not */
}

void ug_m_fail(ug_t *t, const char *file, int line, const char *expr, const char *fmt, ...)
{
    char msg[2048] = "";
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    ug_hooks(t)->fail(t, file, line, expr, "%s", msg);
}

void ug_m_point(ug_t *t, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    ug_hooks(t)->point(t, name);
}

int ug_m_trials(ug_t *t, int dflt) { return ug_mctx_of(t)->trials > 0 ? ug_mctx_of(t)->trials : dflt; }

void ug_m_skip_point(ug_t *t, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    ug_hooks(t)->skip_point(t, why);
}

bool ug_m_stopping(ug_t *t) { return ug_hooks(t)->stopping(); }
const char *ug_m_stop_reason(ug_t *t) { return ug_hooks(t)->stop_reason(); }
