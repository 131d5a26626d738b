/*
 * kernel_call.c - one call of a kernel under measurement (kernel_call.h): its buffers typed
 * from the input, the kernel run and tallied, the buffers fenced, the determinism reruns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "base/sys.h"
#include "harness/measure/kernel_call.h"
#include "harness/measure/prof.h"

static size_t ug_direct_runs; /* successful ug_run_kernel calls (the cases run serially) */
size_t ug_direct_kernel_runs(void) { return ug_direct_runs; }
void ug_direct_kernel_ran(void) { ug_direct_runs++; }

/* Per kernel that ran: calls that ran and calls it declined as unsupported (with its first
 * reason), for the run's check that a kernel it selected was measured somewhere. */
typedef struct {
    const ug_kernel *k;
    size_t ran, unsupported;
    char why[200];
} ug_kernel_tally;
static ug_kernel_tally *ug_tallies;
static size_t ug_n_tallies, ug_cap_tallies;

static void ug_tally(const ug_kernel *k, int rc, const ug_call *c)
{
    size_t i = 0;
    while (i < ug_n_tallies && ug_tallies[i].k != k) i++;
    if (i == ug_n_tallies) {
        if (ug_n_tallies == ug_cap_tallies) {
            ug_cap_tallies = ug_cap_tallies ? 2 * ug_cap_tallies : 64;
            ug_tallies = ug_xrealloc(ug_tallies, ug_cap_tallies * sizeof *ug_tallies);
        }
        ug_tallies[ug_n_tallies++] = (ug_kernel_tally){.k = k};
    }
    ug_kernel_tally *t = &ug_tallies[i];
    if (rc == 0) t->ran++;
    else if (c->unsupported && !t->unsupported++) snprintf(t->why, sizeof t->why, "%.199s", c->err);
}

size_t ug_kernels_unsupported_everywhere(const ug_kernel **k, const char **why, size_t *calls,
                                         size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < ug_n_tallies; i++) {
        if (ug_tallies[i].ran || !ug_tallies[i].unsupported) continue;
        if (n < cap) {
            k[n] = ug_tallies[i].k;
            why[n] = ug_tallies[i].why;
            calls[n] = ug_tallies[i].unsupported;
        }
        n++;
    }
    return n;
}

/* fenced: the call's buffers are copied into fenced ones here (ug_kernel_run_fenced), unless
 * the caller fenced them itself (the trials, on the side it chose) */
static int ug_run_kernel_as(ug_t *t, const ug_kernel *k, ug_call *c, const char *file, int line,
                            bool fence)
{
    int rc = fence ? ug_kernel_run_fenced(k, c, UG_FENCE_END) : ug_kernel_run(k, c);
    ug_tally(k, rc, c);
    if (rc == 0) ug_direct_runs++;
    if (rc != 0 && c->unsupported) { /* not offered here: a skip that says why, not a failure */
        ug_m_ensure(t);
        ug_m_skip_point(t, "%s", c->err);
    } else if (rc != 0) {
        ug_m_fail(t, file, line, k->id, "kernel failed: %s", c->err[0] ? c->err : "(no message)");
    }
    return rc;
}

/* A case's own call (the invariance checks, bit-for-bit orders, repeats) is fenced as a trial
 * is: a write past an output faults, named by the guard, instead of corrupting the heap. */
int ug_run_kernel(ug_t *t, const ug_kernel *k, ug_call *c, const char *file, int line)
{
    return ug_run_kernel_as(t, k, c, file, line, true);
}

/* The call of kernel k on trial i of in: every buffer typed with its format and count (the
 * output: k's out_fmt, r->elements of them). */
void ug_call_setup(ug_call *c, const ug_kernel *k, const ug_input *in, int i, void *out)
{
    memset(c, 0, sizeof *c);
    c->op = in->op;
    c->shape = in->shape;
    c->opts = in->opts;
    for (int a = 0; a < UG_MAX_INPUTS; a++) {
        c->in[a].count = ug_call_in_count(c, a);
        /* stored in its format; a binary32 kernel reads 16- and 8-bit data as floats (exact) */
        bool own = in->fmt[a] != UG_F32 && k->in_store[a] != UG_F32;
        c->in[a].data = !c->in[a].count ? NULL : own ? in->data[a][i]
                                                     : (const void *)ug_input_vals(in, a, i);
        c->in[a].fmt = own ? in->fmt[a] : UG_F32;
    }
    ug_outs o = ug_outs_of(k, in); /* every output buffer in its place of out */
    for (int j = 0; j < o.n; j++) {
        c->out[j].data = (char *)out + o.off[j];
        c->out[j].fmt = o.fmt[j];
        c->out[j].count = o.count[j];
    }
    c->input_id = in->serial << 32 | (uint64_t)(unsigned)i;
}

/* The fences of a call: one per input, then one per output buffer. */
enum { UG_FENCES = UG_MAX_INPUTS + UG_MAX_OUTPUTS };

/* Copy c's buffers into fenced ones (fence.h) against side: each input, and each output buffer
 * (poisoned as the caller's: O and lse of attention fenced apart, so an overrun of one faults
 * rather than landing in the other); f[UG_MAX_INPUTS + j] is output j's.  0, or -1 with c->err
 * set when the memory cannot be mapped.  O(bytes of the call). */
static int ug_fence_call(ug_call *c, ug_fence *f, ug_fence_side side)
{
    for (int a = 0; a < UG_MAX_INPUTS; a++) {
        if (!c->in[a].data) continue;
        size_t bytes = c->in[a].count * ug_fmt_bytes(c->in[a].fmt);
        void *d = ug_fence_alloc(&f[a], bytes, side);
        if (!d) goto err;
        memcpy(d, c->in[a].data, bytes);
        c->in[a].data = d;
    }
    for (int j = 0; j < UG_MAX_OUTPUTS; j++) {
        if (!c->out[j].data) continue;
        size_t bytes = c->out[j].count * ug_fmt_bytes(c->out[j].fmt);
        void *o = ug_fence_alloc(&f[UG_MAX_INPUTS + j], bytes, side);
        if (!o) goto err;
        memset(o, UG_POISON_BYTE, bytes);
        c->out[j].data = o;
    }
    return 0;
err:
    snprintf(c->err, sizeof c->err, "cannot map fenced buffers for the call: %s", strerror(errno));
    for (int a = 0; a < UG_FENCES; a++) ug_fence_free(&f[a]);
    return -1;
}

/* One run of the kernel on trial i into out (poisoned first); 0, or -1 after recording the
 * kernel's failure.  *ms: its time (GPU: the median of its timed reps when reps > 0).  A CPU
 * kernel reads and writes fenced copies of the buffers (fence.h) against side: one element
 * outside either end faults, a failed point naming the kernel and the signal (guard.c). */
int ug_run_trial_fenced(ug_t *t, ug_result *r, int i, void *out, int reps, double *ms,
                        ug_fence_side side)
{
    size_t out_bytes = ug_outs_of(r->kernel, r->in).bytes;
    memset(out, UG_POISON_BYTE, out_bytes);
    ug_call c;
    ug_call_setup(&c, r->kernel, r->in, i, out);
    c.reps = reps;
    ug_fence f[UG_FENCES] = {{0}};
    bool fenced = r->kernel->backend == UG_CPU;
    int rc = fenced ? ug_fence_call(&c, f, side) : 0;
    double t0 = ug_now_s();
    if (rc == 0) rc = ug_run_kernel_as(t, r->kernel, &c, __FILE__, __LINE__, !fenced);
    else ug_m_fail(t, __FILE__, __LINE__, r->kernel->id, "%s", c.err);
    ug_prof_add(UG_PH_KERNEL, t0, r->kernel->id);
    if (fenced) {
        ug_outs o = ug_outs_of(r->kernel, r->in); /* each output buffer back in its place */
        for (int j = 0; j < o.n; j++)
            if (f[UG_MAX_INPUTS + j].data)
                memcpy((char *)out + o.off[j], f[UG_MAX_INPUTS + j].data,
                       o.count[j] * ug_fmt_bytes(o.fmt[j]));
        for (int a = 0; a < UG_FENCES; a++) ug_fence_free(&f[a]);
    }
    if (rc != 0) {
        snprintf(r->run_error, sizeof r->run_error, "%s", c.err);
        r->failed_run = true;
        if (!c.unsupported) ug_m_rerun(t, r, r->in->first_trial + i);
        return -1;
    }
    *ms = r->kernel->backend == UG_CUDA ? c.time_ms : 1e3 * (ug_now_s() - t0);
    return 0;
}


/* A run of a CPU kernel shorter than this is cheap: its point reruns three trials for
 * determinism; a longer one (2^25 terms sorted: 0.5 s) reruns one, the suite's many cheap
 * points doing the rest. */
#define UG_RERUN_CHEAP_MS 20.0

/* A CPU kernel that declares itself deterministic runs a sample of the trials again (the
 * first twice, and the last when there are more; the first once when one run_ms, its longest
 * trial, is not cheap), after the other trials' calls, in fresh buffers
 * fenced on the other side (UG_FENCE_START: one element before either buffer faults): the
 * output must be the first run's, bit for bit, else the point fails naming both results.  A
 * kernel keeping state between calls (a call counter, a cache of the last input's address)
 * shows here.  Returns 0, or -1 after recording the failure (the figures stay the first
 * runs').  Cost: one to three more runs. */
int ug_measure_determinism(ug_t *t, ug_result *r, double run_ms)
{
    const ug_kernel *k = r->kernel;
    if (k->backend != UG_CPU || k->nondeterministic || !r->out) return 0;
    ug_outs o = ug_outs_of(k, r->in);
    size_t bytes = o.bytes;
    void *again = ug_xmalloc(bytes ? bytes : 1);
    /* trial 0 twice in a row (a state that flips on every call shows in one of them, whatever
     * the parity of the calls before), then the last trial */
    int sample[3] = {0, 0, r->trials - 1}, rc = 0;
    int reruns = run_ms > UG_RERUN_CHEAP_MS ? 1 : r->trials > 1 ? 3 : 2;
    for (int s = 0; s < reruns && rc == 0; s++) {
        int i = sample[s];
        double ms;
        if (ug_run_trial_fenced(t, r, i, again, 0, &ms, UG_FENCE_START) != 0) {
            rc = -1;
            break;
        }
        if (memcmp(again, r->out[i], bytes) == 0) continue;
        size_t e = 0;
        while (e + 1 < r->elements && ug_same_f64(ug_outs_load(&o, again, e), ug_outs_load(&o, r->out[i], e))) e++;
        double first = ug_outs_load(&o, r->out[i], e), now = ug_outs_load(&o, again, e);
        ug_m_fail(t, __FILE__, __LINE__, "determinism (a deterministic kernel, run again)",
                  "%s declares itself deterministic, but trial %d run again (fresh buffers, "
                  "after the %d trial%s of this point and %d rerun%s) gave %a (%.9g) at "
                  "element %zu where its first run gave %a (%.9g)", k->id,
                  r->in->first_trial + i, r->trials, r->trials == 1 ? "" : "s", s,
                  s == 1 ? "" : "s", now, now, e, first, first);
        ug_m_rerun(t, r, r->in->first_trial + i);
        rc = -1;
    }
    free(again);
    return rc;
}

