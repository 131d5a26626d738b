/*
 * plugin_check.c - the sanity of a plugin's table, before anything reads it as kernels
 * (plugin.h: ug_plugin_check).  A pure function of the table and a map of the process's memory:
 * every pointer is looked up in the map before it is followed, so a forged table (a count that
 * lies, a name pointing anywhere, a run function in data) is refused with the row and the field
 * instead of crashing the loader.  tests/fuzz/fuzz_plugin.c feeds it arbitrary tables.
 */
#include "base/opshape.h"
#include "kernels/plugin.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The range of m holding [p, p + len) with every permission in prot, or NULL. */
static const ug_mem_range *ug_mem_find(const ug_mem_map *m, const void *p, size_t len, unsigned prot)
{
    uintptr_t a = (uintptr_t)p;
    if (!p || a + len < a) return NULL;
    for (size_t i = 0; i < m->n; i++) {
        const ug_mem_range *r = &m->r[i];
        if ((r->prot & prot) == prot && a >= r->lo && a <= r->hi && len <= r->hi - a) return r;
    }
    return NULL;
}

/* Whether s is a NUL-terminated string inside readable memory of m, of at most max bytes
 * (before its NUL); *n its length. */
static bool ug_mem_string(const ug_mem_map *m, const char *s, size_t max, size_t *n)
{
    const ug_mem_range *r = ug_mem_find(m, s, 1, UG_MEM_READ);
    if (!r) return false;
    size_t room = r->hi - (uintptr_t)s;
    size_t look = room < max + 1 ? room : max + 1;
    const char *nul = memchr(s, 0, look);
    if (!nul) return false;
    *n = (size_t)(nul - s);
    return true;
}

static int ug_refuse(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

bool ug_kernel_name_ok(const char *name, char *why, size_t len)
{
    size_t n = strlen(name);
    if (n == 0) return ug_refuse(why, len, "has an empty .name"), false;
    if (n + sizeof "@default" > sizeof ((ug_kernel *)0)->id)
        return ug_refuse(why, len, "has a name over 55 characters"), false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)name[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '_' || ch == '-' || ch == '.' || ch == '+';
        if (!ok)
            return ug_refuse(why, len, "has byte 0x%02x at column %zu of its name: a kernel name "
                             "is letters, digits and _ - . + (it is printed in the TAP stream, "
                             "the terminal, reports and rerun lines)", ch, i + 1), false;
    }
    return true;
}

/* A bool field read as bytes (a value other than 0 or 1 is no bool: reading it is undefined). */
static bool ug_bool_ok(const bool *b)
{
    unsigned char v;
    memcpy(&v, b, 1);
    return v <= 1;
}

static int ug_check_row(const ug_kernel *k, size_t i, const ug_mem_map *m, char *why, size_t len)
{
    char what[300];
    size_t n;
    if (!k->name) return ug_refuse(why, len, "kernel row %zu has no .name", i);
    if (!ug_mem_string(m, k->name, 64, &n))
        return ug_refuse(why, len, "kernel row %zu: its .name points outside the plugin's memory "
                         "or is not a string of at most 55 characters", i);
    if (!ug_kernel_name_ok(k->name, what, sizeof what))
        return ug_refuse(why, len, "kernel row %zu %s", i, what);
    /* the name is safe to print from here */
    const char *nm = k->name;
    if (strchr(nm, '@') || strchr(nm, '/'))
        return ug_refuse(why, len, "kernel row %zu (%s) has '@' or '/' in its name", i, nm);
    if (!ug_opshape_of(k->op))
        return ug_refuse(why, len, "kernel row %zu (%s): .op %d is no operation of this ulpgate",
                         i, nm, (int)k->op);
    if ((int)k->backend != UG_CPU && (int)k->backend != UG_CUDA)
        return ug_refuse(why, len, "kernel row %zu (%s): .backend %d is neither UG_CPU nor UG_CUDA",
                         i, nm, (int)k->backend);
    const ug_fmt fmts[] = {k->op_fmt,      k->acc_fmt,     k->out_fmt,     k->in_store[0],
                           k->in_store[1], k->in_store[2], k->in_store[3], k->out_more_fmt[0]};
    static const char *const fnames[] = {".op_fmt",      ".acc_fmt",     ".out_fmt",
                                         ".in_store[0]", ".in_store[1]", ".in_store[2]",
                                         ".in_store[3]", ".out_more_fmt[0]"};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        if ((unsigned)fmts[f] >= (unsigned)UG_FMT_COUNT)
            return ug_refuse(why, len, "kernel row %zu (%s): %s %d is no format", i, nm, fnames[f],
                             (int)fmts[f]);
    /* the last class of the public header (the block-scaled GEMM's): a plugin's row of any
     * operation declares its class like any other */
    if ((unsigned)k->bound > (unsigned)UG_BOUND_BS_FP8_PROMOTED)
        return ug_refuse(why, len, "kernel row %zu (%s): .bound %d is no bound class", i, nm,
                         (int)k->bound);
    if (!ug_bool_ok(&k->nondeterministic) || !ug_bool_ok(&k->ftz))
        return ug_refuse(why, len, "kernel row %zu (%s): .nondeterministic or .ftz is not a bool",
                         i, nm);
    if (!ug_bool_ok(&k->batch_invariant)) /* API 3 */
        return ug_refuse(why, len, "kernel row %zu (%s): .batch_invariant is not a bool", i, nm);
    void *run, *depth;
    memcpy(&run, &k->run, sizeof run);
    memcpy(&depth, &k->depth, sizeof depth);
    if (!run) return ug_refuse(why, len, "kernel row %zu (%s) has no .run function", i, nm);
    if (!ug_mem_find(m, run, 1, UG_MEM_EXEC))
        return ug_refuse(why, len, "kernel row %zu (%s): .run is not code (it points outside "
                         "every executable segment)", i, nm);
    if (depth && !ug_mem_find(m, depth, 1, UG_MEM_EXEC))
        return ug_refuse(why, len, "kernel row %zu (%s): .depth is not code", i, nm);
    if (k->doc) {
        if (!ug_mem_string(m, k->doc, 4096, &n))
            return ug_refuse(why, len, "kernel row %zu (%s): .doc points outside the plugin's "
                             "memory or is over 4096 bytes", i, nm);
        for (size_t c = 0; c < n; c++)
            if ((unsigned char)k->doc[c] < 0x20 || k->doc[c] == 0x7f)
                return ug_refuse(why, len, "kernel row %zu (%s): .doc holds control byte 0x%02x "
                                 "at column %zu", i, nm, (unsigned char)k->doc[c], c + 1);
    }
    return 0;
}

int ug_plugin_check(const ug_plugin *p, const ug_mem_map *m, char *why, size_t len)
{
    if (!p) return ug_refuse(why, len, "its entry point returned NULL");
    if (!ug_mem_find(m, p, sizeof p->api_version, UG_MEM_READ) || (uintptr_t)p % alignof(ug_plugin))
        return ug_refuse(why, len, "its entry point returned a pointer outside the plugin's memory");
    if (p->api_version != ULPGATE_API_VERSION)
        return ug_refuse(why, len, "built for ulpgate API version %d, this ulpgate has API version "
                         "%d: rebuild the plugin against this ulpgate's header", p->api_version,
                         ULPGATE_API_VERSION);
    if (!ug_mem_find(m, p, sizeof *p, UG_MEM_READ))
        return ug_refuse(why, len, "its ug_plugin record runs past the plugin's memory");
    if (p->kernel_size != sizeof(ug_kernel))
        return ug_refuse(why, len, "its ug_kernel is %zu bytes, this ulpgate's %zu: rebuild it "
                         "against this ulpgate's header", p->kernel_size, sizeof(ug_kernel));
    if (p->count == 0) return ug_refuse(why, len, "declares no kernels");
    if (p->count > UG_PLUGIN_MAX_KERNELS)
        return ug_refuse(why, len, "declares %zu kernels: at most %d a plugin", p->count,
                         UG_PLUGIN_MAX_KERNELS);
    if (!p->kernels) return ug_refuse(why, len, "declares %zu kernels and a NULL table", p->count);
    if ((uintptr_t)p->kernels % alignof(ug_kernel))
        return ug_refuse(why, len, "its kernel table is not aligned for ug_kernel");
    const ug_mem_range *r = ug_mem_find(m, p->kernels, sizeof(ug_kernel), UG_MEM_READ);
    if (!r)
        return ug_refuse(why, len, "its kernel table points outside the plugin's memory (declare "
                         "it with UG_PLUGIN, as static data)");
    size_t fit = (r->hi - (uintptr_t)p->kernels) / sizeof(ug_kernel);
    if (p->count > fit)
        return ug_refuse(why, len, "declares %zu kernels, but at most %zu rows fit in the memory "
                         "its table lies in (a count that lies)", p->count, fit);
    if (p->props & ~(unsigned)(UG_VP_FMA | UG_VP_FTZ | UG_VP_REASSOC | UG_VP_APPROX | UG_VP_FINITE))
        return ug_refuse(why, len, "its .props 0x%x holds bits no UG_VP_* names", p->props);
    size_t n;
    if (p->corpus && !ug_mem_string(m, p->corpus, 1024, &n))
        return ug_refuse(why, len, "its corpus folder points outside the plugin's memory or is "
                         "over 1024 bytes");
    for (size_t i = 0; i < p->count; i++)
        if (ug_check_row(&p->kernels[i], i, m, why, len) != 0) return -1;
    for (size_t i = 0; i < p->count; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->kernels[i].name, p->kernels[j].name) == 0)
                return ug_refuse(why, len, "kernel rows %zu and %zu are both named %s", j, i,
                                 p->kernels[i].name);
    return 0;
}
