/*
 * case.c - case registration and the units the run loop runs: a plain case is one unit, a case
 * with a parameter table one unit per row ("<suite>/<row name>").
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/run/context.h"
#include "harness/inputs/corpus.h"

static ug_case *ug_case_list; /* registration order (constructors) */

void ug_case_register(ug_case *c)
{
    c->next = ug_case_list;
    ug_case_list = c;
}

static ug_unit *ug_unit_table;
static size_t ug_unit_count;

static int ug_unit_cmp(const void *a, const void *b)
{
    return strcmp(((const ug_unit *)a)->name, ((const ug_unit *)b)->name);
}

/* Built once, on first use (after every constructor ran); a duplicate name is a programming
 * error reported at start-up with both files. */
const ug_unit *ug_units(size_t *count)
{
    if (!ug_unit_table) {
        size_t n = 0;
        for (const ug_case *c = ug_case_list; c; c = c->next) n += c->params ? c->n_params : 1;
        ug_unit_table = ug_xcalloc(n, sizeof *ug_unit_table);
        for (const ug_case *c = ug_case_list; c; c = c->next) {
            size_t rows = c->params ? c->n_params : 1;
            for (size_t i = 0; i < rows; i++) {
                ug_unit *u = &ug_unit_table[ug_unit_count++];
                u->c = c;
                u->param = c->params ? &c->params[i] : NULL;
                int len;
                if (u->param)
                    len = snprintf(u->name, sizeof u->name, "%s/%s", c->name, u->param->name);
                else
                    len = snprintf(u->name, sizeof u->name, "%s", c->name);
                /* a cut name is an id part, a --filter target and a rerun line that name
                 * something else (and two cut alike would be one case): refused at start-up */
                if (len < 0 || (size_t)len >= sizeof u->name) {
                    fprintf(stderr, "ulpgate: case %s%s%s (%s:%d) has a name longer than %zu "
                                    "characters: shorten it\n", c->name, u->param ? "/" : "",
                            u->param ? u->param->name : "", ug_src_path(c->file), c->line,
                            sizeof u->name - 1);
                    exit(2);
                }
            }
        }
        qsort(ug_unit_table, ug_unit_count, sizeof *ug_unit_table, ug_unit_cmp);
        for (size_t i = 1; i < ug_unit_count; i++)
            if (strcmp(ug_unit_table[i].name, ug_unit_table[i - 1].name) == 0) {
                fprintf(stderr, "ulpgate: case %s is defined twice (%s:%d and %s:%d)\n",
                        ug_unit_table[i].name, ug_src_path(ug_unit_table[i].c->file),
                        ug_unit_table[i].c->line, ug_src_path(ug_unit_table[i - 1].c->file),
                        ug_unit_table[i - 1].c->line);
                exit(2);
            }
    }
    *count = ug_unit_count;
    return ug_unit_table;
}

bool ug_unit_selected(const ug_options *o, const ug_unit *u)
{
    unsigned flags = u->c->flags;
    if (o->filter && fnmatch(o->filter, u->name, 0) != 0) return false;
    /* A canary must fail: it runs only when a --filter names it. */
    if ((flags & UG_CASE_SHOULD_FAIL) && !o->filter) return false;
    if (flags & UG_CASE_SLOW) return o->slow || o->slow_only;
    return !o->slow_only;
}

const ug_unit *ug_units_with_corpus(const ug_options *o, size_t *count, char *err, size_t errlen)
{
    static ug_unit *all;
    static size_t n_all;
    if (all) {
        *count = n_all;
        return all;
    }
    size_t n_cases, n_files;
    const ug_unit *cases = ug_units(&n_cases);
    ug_corpus_entry *files;
    if (ug_corpus_discover(o->corpus_dirs, o->n_corpus_dirs, &files, &n_files, err, errlen) != 0)
        return NULL;
    all = ug_xcalloc(n_cases + n_files + 1, sizeof *all);
    memcpy(all, cases, n_cases * sizeof *all);
    for (size_t i = 0; i < n_files; i++) {
        ug_unit *u = &all[n_cases + i];
        u->c = &ug_corpus_case;
        u->corpus = &files[i];
        snprintf(u->name, sizeof u->name, "%s", files[i].name);
    }
    n_all = n_cases + n_files;
    qsort(all, n_all, sizeof *all, ug_unit_cmp);
    *count = n_all;
    return all;
}

const ug_param *ug_param_of(const ug_t *t) { return t->unit ? t->unit->param : NULL; }
