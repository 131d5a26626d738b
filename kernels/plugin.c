/*
 * plugin.c - loading a plugin: dlopen, its entry point, the checks, its family in the registry.
 */
#define _GNU_SOURCE 1 /* dl_iterate_phdr */
#include "kernels/plugin.h"

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/fenv.h"

static char **ug_plugin_corpora;
static size_t ug_n_plugin_corpora;

/* Whether p lies in an executable segment of map. */
static bool ug_plugin_mem_exec(const ug_mem_map *map, const void *p)
{
    for (size_t i = 0; i < map->n; i++)
        if ((map->r[i].prot & UG_MEM_EXEC) && (uintptr_t)p >= map->r[i].lo && (uintptr_t)p < map->r[i].hi)
            return true;
    return false;
}

const char *ug_plugin_corpus_at(size_t i) { return i < ug_n_plugin_corpora ? ug_plugin_corpora[i] : NULL; }

/* ---- the memory map the table checks use ------------------------------------------------ */

typedef struct {
    ug_mem_range *r;
    size_t n, cap;
} ug_mem_list;

/* Every loaded object's PT_LOAD segments, readable and (PF_X) executable. */
static int ug_mem_collect(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    ug_mem_list *l = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R)) continue;
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 64;
            ug_mem_range *g = realloc(l->r, cap * sizeof *g);
            if (!g) return 1;
            l->r = g;
            l->cap = cap;
        }
        uintptr_t lo = (uintptr_t)(info->dlpi_addr + ph->p_vaddr);
        l->r[l->n++] = (ug_mem_range){lo, lo + ph->p_memsz,
                                      UG_MEM_READ | (ph->p_flags & PF_X ? UG_MEM_EXEC : 0)};
    }
    return 0;
}

/* ---- loading ------------------------------------------------------------------------------ */

/* The library's own rows are copied into a family named after the file; a plugin's corpus
 * folder is resolved against the library's folder.  Cost: one dlopen, one walk of the loaded
 * objects' segments. */
/* The plugin being loaded (its escaped name), while its constructors run: one that calls
 * exit() would end ulpgate with its status, 0 too, having said nothing. */
static const char *volatile ug_loading;

static void ug_on_exit_loading(int status, void *arg)
{
    (void)arg;
    if (!ug_loading) return;
    fflush(stdout);
    fprintf(stderr, "ulpgate: --plugin %s: it called exit(%d) while it was loaded (a constructor "
            "or its entry point): refused, nothing ran\n", ug_loading, status);
    fflush(NULL);
    _exit(2);
}

int ug_plugin_load(const char *path)
{
    char safe[600];
    const char *shown = ug_escape(path, safe, sizeof safe);
    /* a bare name would make dlopen search the library path: a plugin is a file */
    char full[PATH_MAX];
    if (!realpath(path, full)) {
        fprintf(stderr, "ulpgate: --plugin %s: no such file\n", shown);
        return 2;
    }
    /* dlopen of a FIFO waits for a writer, for ever when none comes: a plugin is a regular
     * file (what else dlopen would refuse is left to say why) */
    struct stat st;
    if (stat(full, &st) == 0 && S_ISFIFO(st.st_mode)) {
        fprintf(stderr, "ulpgate: --plugin %s: a FIFO, not a shared object: not read\n", shown);
        return 2;
    }
    /* the environment is saved around the loading: a shared object built with -ffast-math sets
     * FTZ/DAZ in its constructor (crtfastmath.o), which would flush the subnormals of every
     * later kernel and of the oracle */
    ug_fenv before, after;
    ug_fenv_get(&before);
    static bool exit_watched;
    if (!exit_watched) exit_watched = on_exit(ug_on_exit_loading, NULL) == 0;
    ug_loading = shown;
    void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    ug_loading = NULL;
    if (!h) {
        ug_fenv_set(&before);
        fprintf(stderr, "ulpgate: --plugin %s: cannot load it: %s\n", shown, dlerror());
        return 2;
    }
    ug_mem_list mem = {0};
    dl_iterate_phdr(ug_mem_collect, &mem);
    ug_mem_map map = {mem.r, mem.n};
    const ug_plugin *(*entry)(void);
    void *sym = dlsym(h, ULPGATE_PLUGIN_ENTRY);
    *(void **)&entry = sym;
    char why[600];
    int rc = 2;
    if (!sym) {
        fprintf(stderr, "ulpgate: --plugin %s: no entry point %s (declare its kernels with "
                        "UG_PLUGIN of <ulpgate/ulpgate.h>)\n", shown, ULPGATE_PLUGIN_ENTRY);
        goto err;
    }
    if (!ug_plugin_mem_exec(&map, sym)) {
        fprintf(stderr, "ulpgate: --plugin %s: its entry point %s is not a function (it is in "
                        "no executable segment: declare it with UG_PLUGIN)\n", shown, ULPGATE_PLUGIN_ENTRY);
        goto err;
    }
    ug_loading = shown; /* its entry point may exit as well */
    const ug_plugin *p = entry();
    ug_loading = NULL;
    ug_fenv_get(&after);
    ug_fenv_set(&before);
    if (ug_plugin_check(p, &map, why, sizeof why) != 0) {
        fprintf(stderr, "ulpgate: --plugin %s: %s\n", shown, why);
        goto err;
    }
    char *fault = NULL;
    if (!ug_fenv_equal(&after, &before)) {
        char what[300], msg[1000];
        ug_fenv_describe(&after, &before, what, sizeof what);
        snprintf(msg, sizeof msg, "the plugin changed the floating-point environment when it was "
                 "loaded (%s; a shared object built with -ffast-math sets FTZ/DAZ: gcc links "
                 "crtfastmath.o into it): ulpgate restored it, and its kernels fail (build it "
                 "without -ffast-math, or -fno-unsafe-math-optimizations at link time)", what);
        fprintf(stderr, "ulpgate: --plugin %s: %s\n", shown, msg);
        fault = strdup(msg);
    }
    ug_family *f = calloc(1, sizeof *f);
    char *name = strdup(path);
    if (!f || !name) {
        fprintf(stderr, "ulpgate: out of memory loading %s\n", shown);
        goto err;
    }
    *f = (ug_family){.name = name, .variant = "default", .kernels = p->kernels,
                     .count = p->count, .run = NULL, .props = p->props};
    ug_registry_add_plugin(f, fault);
    if (p->corpus) {
        char dir[PATH_MAX + 1024];
        char *slash = strrchr(full, '/');
        *slash = 0;
        if (p->corpus[0] == '/') snprintf(dir, sizeof dir, "%s", p->corpus);
        else snprintf(dir, sizeof dir, "%s/%s", full, p->corpus);
        char **grown = realloc(ug_plugin_corpora, (ug_n_plugin_corpora + 1) * sizeof *grown);
        if (!grown || !(grown[ug_n_plugin_corpora] = strdup(dir))) {
            fprintf(stderr, "ulpgate: out of memory loading %s\n", shown);
            goto err;
        }
        ug_plugin_corpora = grown;
        ug_n_plugin_corpora++;
    }
    rc = 0;
err:
    ug_fenv_set(&before);
    free(mem.r);
    return rc;
}
