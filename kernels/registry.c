/*
 * registry.c - the one registry of kernels under test: the concatenation of every family's
 * table (kernels/meson.build lists the families; each family file declares its rows).
 * Order: family by family, within a family row by row, each row in every variant it was built
 * in ("matmul_kahan@default", "matmul_kahan@nofma", ...).
 */
#include "kernels/kernel.h"
#include "kernels/registry_testing.h"

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fence.h"
#include "base/fenv.h"
#include "base/format.h"
#include "base/sys.h"
#include "kernels/plugin.h"
#include "kernels/ug_cpu_model.h"
#include "kernels/ug_families.h"

#define UG_DECLARE_FAMILY(stem, variant) extern const ug_family UG_FAMILY_SYMBOL(stem, variant);
UG_FAMILIES(UG_DECLARE_FAMILY)
#define UG_FAMILY_ADDRESS(stem, variant) &UG_FAMILY_SYMBOL(stem, variant),
static const ug_family *const ug_families[] = {UG_FAMILIES(UG_FAMILY_ADDRESS)};
enum { UG_N_FAMILIES = sizeof ug_families / sizeof ug_families[0] };

static ug_kernel *ug_registry;
static size_t ug_registry_count;
static pthread_once_t ug_registry_once = PTHREAD_ONCE_INIT;
static bool ug_registry_built;

/* Families added at run time, after the built-in ones: a test program's fixtures
 * (ug_registry_add_family) and the plugins (ug_registry_add_plugin).  Grown on demand: no fixed
 * limit a plugin could hit. */
typedef struct {
    const ug_family *family;
    bool fixture;
    const char *load_fault; /* a plugin that changed the floating-point environment: why */
} ug_extra;
static ug_extra *ug_extras;
static int ug_n_extra, ug_cap_extra;
static bool ug_no_builtin;

static void ug_registry_too_late(const char *what, const char *name)
{
    fprintf(stderr, "ulpgate: %s %s added after the kernel registry was built\n", what, name);
    exit(2);
}

static void ug_extra_push(const ug_family *f, bool fixture, const char *load_fault)
{
    if (ug_n_extra == ug_cap_extra) {
        ug_cap_extra = ug_cap_extra ? 2 * ug_cap_extra : 8;
        ug_extras = realloc(ug_extras, (size_t)ug_cap_extra * sizeof *ug_extras);
        if (!ug_extras) {
            fprintf(stderr, "ulpgate: out of memory registering family %s\n", f->name);
            exit(2);
        }
    }
    ug_extras[ug_n_extra++] = (ug_extra){f, fixture, load_fault};
}

void ug_registry_add_family(const ug_family *f)
{
    if (ug_registry_built) ug_registry_too_late("family", f->name);
    ug_extra_push(f, true, NULL);
}

void ug_registry_add_plugin(const ug_family *f, const char *load_fault)
{
    if (ug_registry_built) ug_registry_too_late("plugin", f->name);
    ug_extra_push(f, false, load_fault);
}

/* Why k's plugin fails every call (it changed the floating-point environment when it was
 * loaded), or NULL. */
static const char *ug_kernel_load_fault(const ug_kernel *k)
{
    for (int i = 0; i < ug_n_extra; i++)
        if (k->family == ug_extras[i].family) return ug_extras[i].load_fault;
    return NULL;
}

void ug_registry_no_builtin(void)
{
    if (ug_registry_built) ug_registry_too_late("--no-builtin", "");
    ug_no_builtin = true;
}

bool ug_registry_has_builtin(void) { return !ug_no_builtin; }

bool ug_kernel_is_fixture(const ug_kernel *k)
{
    for (int i = 0; i < ug_n_extra; i++)
        if (k->family == ug_extras[i].family) return ug_extras[i].fixture;
    return false;
}

bool ug_kernel_is_plugin(const ug_kernel *k)
{
    for (int i = 0; i < ug_n_extra; i++)
        if (k->family == ug_extras[i].family) return !ug_extras[i].fixture;
    return false;
}

/* The families in registry order: the built-in ones (none with --no-builtin), then the extras. */
static int ug_n_builtin(void) { return ug_no_builtin ? 0 : UG_N_FAMILIES; }
static const ug_family *ug_family_at(int i)
{
    return i < ug_n_builtin() ? ug_families[i] : ug_extras[i - ug_n_builtin()].family;
}

/* Build the table once: rows copied from the families, identity filled in.  A duplicate name
 * across families is a programming error caught here, at start-up, with both names. */
static void ug_registry_build(void)
{
    const int nf = ug_n_builtin() + ug_n_extra;
    size_t total = 0;
    ug_registry_built = true;
    for (int f = 0; f < nf; f++) total += ug_family_at(f)->count;
    ug_registry = calloc(total ? total : 1, sizeof *ug_registry);
    if (!ug_registry) {
        fprintf(stderr, "ulpgate: out of memory building the kernel registry\n");
        exit(2);
    }
    /* built-in families of the same stem (its variants, built from one table) are interleaved
     * row by row; an added family (a plugin, a fixture) is never a variant of another, whatever
     * its name: a plugin file named "reduce" has its own rows, and its own count */
    const int nb = ug_n_builtin();
    for (int f = 0; f < nf; f++) {
        int first = f;
        while (first > 0 && f < nb && strcmp(ug_family_at(first - 1)->name, ug_family_at(f)->name) == 0)
            first--;
        if (first != f) continue; /* handled with the first variant of its stem */
        int last = f;
        while (f < nb && last + 1 < nb && strcmp(ug_family_at(last + 1)->name, ug_family_at(f)->name) == 0 &&
               ug_family_at(last + 1)->count == ug_family_at(f)->count)
            last++;
        for (size_t i = 0; i < ug_family_at(f)->count; i++)
            for (int v = first; v <= last; v++) {
                const ug_family *fam = ug_family_at(v);
                ug_kernel *k = &ug_registry[ug_registry_count++];
                *k = fam->kernels[i];
                k->family = fam;
                k->variant = fam->variant;
                snprintf(k->id, sizeof k->id, "%s@%s", k->name, k->variant);
            }
    }
    for (size_t i = 0; i < ug_registry_count; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(ug_registry[i].id, ug_registry[j].id) == 0) {
                fprintf(stderr, "ulpgate: kernel %s is declared twice (families %s and %s)\n",
                        ug_registry[i].id, ug_registry[i].family->name, ug_registry[j].family->name);
                exit(2);
            }
}

size_t ug_kernel_count(void)
{
    pthread_once(&ug_registry_once, ug_registry_build);
    return ug_registry_count;
}

const ug_kernel *ug_kernel_at(size_t i) { return i < ug_kernel_count() ? &ug_registry[i] : NULL; }

const ug_kernel *ug_kernel_find(const char *name)
{
    bool plain = strchr(name, '@') == NULL;
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = &ug_registry[i];
        if (plain ? strcmp(k->name, name) == 0 && strcmp(k->variant, "default") == 0
                  : strcmp(k->id, name) == 0)
            return k;
    }
    return NULL;
}

bool ug_kernel_matches(const ug_kernel *k, const char *glob)
{
    return fnmatch(glob, strchr(glob, '@') ? k->id : k->name, 0) == 0;
}

/* Every input and output buffer of c copied into fenced ones (base/fence.h) against side,
 * the outputs with what the caller's held (its poison), the call run, the outputs copied
 * back.  A CPU kernel that reads or writes one element outside a buffer faults at once. */
int ug_kernel_run_fenced(const ug_kernel *k, ug_call *c, ug_fence_side side)
{
    if (k->backend != UG_CPU) return ug_kernel_run(k, c);
    enum { NF = UG_MAX_INPUTS + UG_MAX_OUTPUTS };
    ug_fence f[NF];
    memset(f, 0, sizeof f);
    ug_call fc = *c;
    int rc = -1;
    for (int a = 0; a < UG_MAX_INPUTS; a++) {
        if (!c->in[a].data) continue;
        size_t bytes = c->in[a].count * ug_fmt_bytes(c->in[a].fmt);
        if (!(fc.in[a].data = ug_fence_alloc(&f[a], bytes, side))) goto err;
        memcpy(f[a].data, c->in[a].data, bytes);
    }
    for (int j = 0; j < UG_MAX_OUTPUTS; j++) {
        if (!c->out[j].data) continue;
        size_t bytes = c->out[j].count * ug_fmt_bytes(c->out[j].fmt);
        if (!(fc.out[j].data = ug_fence_alloc(&f[UG_MAX_INPUTS + j], bytes, side))) goto err;
        memcpy(f[UG_MAX_INPUTS + j].data, c->out[j].data, bytes);
    }
    rc = ug_kernel_run(k, &fc);
    for (int j = 0; j < UG_MAX_OUTPUTS; j++)
        if (c->out[j].data)
            memcpy(c->out[j].data, fc.out[j].data, c->out[j].count * ug_fmt_bytes(c->out[j].fmt));
    memcpy(fc.in, c->in, sizeof fc.in); /* the caller's buffers again */
    memcpy(fc.out, c->out, sizeof fc.out);
    *c = fc;
    for (int a = 0; a < NF; a++) ug_fence_free(&f[a]);
    return rc;
err:
    snprintf(c->err, sizeof c->err, "%s: cannot map fenced buffers for the call: %s", k->id,
             strerror(errno));
    for (int a = 0; a < NF; a++) ug_fence_free(&f[a]);
    return -1;
}

/* The built-in families whose machine code depends on the CPU model, and the evidence
 * (kernels/machine_scan.py read it off their objects when they were built). */
#define UG_CPU_MODEL_ROW(stem, variant, evidence) {&UG_FAMILY_SYMBOL(stem, variant), evidence},
static const struct {
    const ug_family *family;
    const char *evidence;
} ug_cpu_model_families[] = {UG_CPU_MODEL_FAMILIES(UG_CPU_MODEL_ROW){NULL, NULL}};

const char *ug_kernel_machine(const ug_kernel *k)
{
    if (!k->family) return NULL;
    for (size_t i = 0; ug_cpu_model_families[i].family; i++)
        if (ug_cpu_model_families[i].family == k->family) return ug_cpu_model_families[i].evidence;
    if (k->family->props & UG_VP_CPU_MODEL) return "declared (UG_VP_CPU_MODEL)";
    return NULL;
}

unsigned ug_kernel_props(const ug_kernel *k)
{
    if (!k->family) return 0;
    return k->family->props | (ug_kernel_machine(k) ? (unsigned)UG_VP_CPU_MODEL : 0u);
}

#define UG_VARIANT_ROW(name, backend, flags) {#name, backend, flags},
static const ug_variant_info ug_variants[] = {UG_VARIANTS(UG_VARIANT_ROW)};

const ug_variant_info *ug_variant_at(size_t i)
{
    return i < sizeof ug_variants / sizeof ug_variants[0] ? &ug_variants[i] : NULL;
}

/* The call's buffers must be in the formats k's row declares (inputs the operation reads:
 * those with data); else the call is refused before the launcher sees it. */
static int ug_call_check_formats(const ug_kernel *k, ug_call *c)
{
    for (int i = 0; i < UG_MAX_INPUTS; i++)
        if (c->in[i].data && c->in[i].fmt != k->in_store[i]) {
            snprintf(c->err, sizeof c->err, "%s: input %d is %s, the kernel reads %s", k->id, i,
                     ug_fmt_name(c->in[i].fmt), ug_fmt_name(k->in_store[i]));
            return -1;
        }
    if (c->out[0].fmt != k->out_fmt) {
        snprintf(c->err, sizeof c->err, "%s: the output buffer is %s, the kernel writes %s", k->id,
                 ug_fmt_name(c->out[0].fmt), ug_fmt_name(k->out_fmt));
        return -1;
    }
    for (int j = 1; j < UG_MAX_OUTPUTS; j++) /* the outputs after the first, where the call has them */
        if (c->out[j].count && c->out[j].fmt != k->out_more_fmt[j - 1]) {
            snprintf(c->err, sizeof c->err, "%s: output buffer %d is %s, the kernel writes %s",
                     k->id, j, ug_fmt_name(c->out[j].fmt), ug_fmt_name(k->out_more_fmt[j - 1]));
            return -1;
        }
    return 0;
}

/* The kernel calls in flight.  A call may come from several threads at once (the hunt's
 * evaluations: the public header allows it), so each call takes a slot of its own (its kernel,
 * its start), found again by its thread (ug_here): a crash or exit() on a kernel's thread names
 * that kernel, and the watchdogs (harness/run/guard.c) find the oldest call still running.
 * A call from more threads at once than there are slots goes untracked, only counted. */
enum { UG_CALL_SLOTS = 512 };
typedef struct {
    atomic_int used;
    const ug_kernel *volatile k;
    volatile double t0;
} ug_call_slot;
static ug_call_slot ug_slots[UG_CALL_SLOTS];
static atomic_int ug_in_flight;
static _Thread_local ug_call_slot *ug_here;

/* The last kernel ug_kernel_run entered (a crash found later, at a free, names it). */
static const ug_kernel *volatile ug_last_run;
const ug_kernel *ug_kernel_last_run(void) { return ug_last_run; }

/* This thread's kernel; on a thread a kernel started itself (OpenMP), the last one entered
 * while any call is in flight. */
const ug_kernel *ug_kernel_running(void)
{
    if (ug_here) return ug_here->k;
    return atomic_load(&ug_in_flight) > 0 ? ug_last_run : NULL;
}

const ug_kernel *ug_kernel_oldest_call(double *t0)
{
    const ug_kernel *oldest = NULL;
    for (int i = 0; i < UG_CALL_SLOTS; i++) {
        if (!atomic_load(&ug_slots[i].used)) continue;
        const ug_kernel *k = ug_slots[i].k;
        double t = ug_slots[i].t0;
        if (k && (!oldest || t < *t0)) oldest = k, *t0 = t;
    }
    return oldest;
}

static void ug_call_enter(const ug_kernel *k)
{
    atomic_fetch_add(&ug_in_flight, 1);
    ug_last_run = k;
    for (int i = 0; i < UG_CALL_SLOTS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&ug_slots[i].used, &free_slot, 1)) {
            ug_slots[i].t0 = ug_now_s();
            ug_slots[i].k = k;
            ug_here = &ug_slots[i];
            return;
        }
    }
}

static void ug_call_leave(void)
{
    if (ug_here) {
        ug_here->k = NULL;
        atomic_store(&ug_here->used, 0);
        ug_here = NULL;
    }
    atomic_fetch_sub(&ug_in_flight, 1);
}

/* The call runs under the known floating-point environment (base/fenv.h), whatever the caller's
 * was, and the caller's is restored after it.  A kernel that returns with another one (a
 * rounding mode, FTZ/DAZ) fails: its own result was computed under what it chose, and it would
 * change every result after it, the exact values too. */
int ug_kernel_run(const ug_kernel *k, ug_call *c)
{
    c->err[0] = 0;
    if (ug_call_check_formats(k, c) != 0) return -1;
    ug_launcher run = k->run ? k->run : k->family->run;
    if (!run) {
        snprintf(c->err, sizeof c->err, "%s: the row has no run function", k->id);
        return -1;
    }
    const char *load_fault = ug_kernel_load_fault(k);
    if (load_fault) {
        snprintf(c->err, sizeof c->err, "%s", load_fault);
        return -1;
    }
    ug_fenv caller, after;
    ug_fenv_get(&caller);
    ug_fenv_set_known();
    ug_call_enter(k);
    int rc = run(k, c);
    ug_call_leave();
    ug_fenv_get(&after);
    ug_fenv_set(&caller);
    if (!ug_fenv_equal(&after, ug_fenv_known())) {
        char what[200];
        snprintf(c->err, sizeof c->err, "%s left the floating-point environment changed: %s; "
                 "ulpgate restored it (a kernel must restore what it changes: it would alter "
                 "every result after it, the exact values too)",
                 k->id, ug_fenv_describe(&after, ug_fenv_known(), what, sizeof what));
        c->unsupported = false;
        return -1;
    }
    return rc;
}
