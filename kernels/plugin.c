/*
 * plugin.c - loading a plugin: dlopen, its entry point, the checks, its family in the registry.
 */
#include "kernels/plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **ug_plugin_corpora;
static size_t ug_n_plugin_corpora;

const char *ug_plugin_corpus_at(size_t i) { return i < ug_n_plugin_corpora ? ug_plugin_corpora[i] : NULL; }

/* The library's own rows are copied into a family named after the file; a plugin's corpus
 * folder is resolved against the library's folder.  Cost: one dlopen. */
int ug_plugin_load(const char *path)
{
    /* a bare name would make dlopen search the library path: a plugin is a file */
    char full[PATH_MAX];
    if (!realpath(path, full)) {
        fprintf(stderr, "ulpgate: --plugin %s: no such file\n", path);
        return 2;
    }
    void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "ulpgate: --plugin %s: cannot load it: %s\n", path, dlerror());
        return 2;
    }
    const ug_plugin *(*entry)(void);
    *(void **)&entry = dlsym(h, ULPGATE_PLUGIN_ENTRY);
    if (!entry) {
        fprintf(stderr, "ulpgate: --plugin %s: no entry point %s (declare its kernels with "
                        "UG_PLUGIN of <ulpgate/ulpgate.h>)\n", path, ULPGATE_PLUGIN_ENTRY);
        return 2;
    }
    const ug_plugin *p = entry();
    if (!p || p->api_version != ULPGATE_API_VERSION) {
        fprintf(stderr, "ulpgate: --plugin %s: built for ulpgate API version %d, this ulpgate has "
                        "API version %d: rebuild the plugin against this ulpgate's header\n",
                path, p ? p->api_version : -1, ULPGATE_API_VERSION);
        return 2;
    }
    if (p->kernel_size != sizeof(ug_kernel)) {
        fprintf(stderr, "ulpgate: --plugin %s: its ug_kernel is %zu bytes, this ulpgate's %zu: "
                        "rebuild it against this ulpgate's header\n",
                path, p->kernel_size, sizeof(ug_kernel));
        return 2;
    }
    if (p->count == 0) {
        fprintf(stderr, "ulpgate: --plugin %s: declares no kernels\n", path);
        return 2;
    }
    for (size_t i = 0; i < p->count; i++) {
        const ug_kernel *k = &p->kernels[i];
        const char *why = !k->name || !*k->name ? "has no .name"
                          : !k->run              ? "has no .run function"
                          : strlen(k->name) + sizeof "@default" > sizeof k->id ? "has a name over 55 characters"
                          : strchr(k->name, '@') || strchr(k->name, '/') ? "has '@' or '/' in its name"
                                                                        : NULL;
        if (why) {
            fprintf(stderr, "ulpgate: --plugin %s: kernel row %zu (%s) %s\n", path, i,
                    k->name ? k->name : "unnamed", why);
            return 2;
        }
    }
    ug_family *f = calloc(1, sizeof *f);
    char *name = strdup(path);
    if (!f || !name) {
        fprintf(stderr, "ulpgate: out of memory loading %s\n", path);
        return 2;
    }
    *f = (ug_family){.name = name, .variant = "default", .kernels = p->kernels,
                     .count = p->count, .run = NULL, .props = p->props};
    ug_registry_add_plugin(f);
    if (p->corpus) {
        char dir[PATH_MAX + 1024];
        char *slash = strrchr(full, '/');
        *slash = 0;
        if (p->corpus[0] == '/') snprintf(dir, sizeof dir, "%s", p->corpus);
        else snprintf(dir, sizeof dir, "%s/%s", full, p->corpus);
        char **grown = realloc(ug_plugin_corpora, (ug_n_plugin_corpora + 1) * sizeof *grown);
        if (!grown || !(grown[ug_n_plugin_corpora] = strdup(dir))) {
            fprintf(stderr, "ulpgate: out of memory loading %s\n", path);
            return 2;
        }
        ug_plugin_corpora = grown;
        ug_n_plugin_corpora++;
    }
    return 0;
}
