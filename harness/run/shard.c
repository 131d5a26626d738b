/*
 * shard.c - splitting a run into N shards: a stable, deterministic assignment of the selected
 * units (a case, or one row of a case's table) to shards, balanced by estimated cost.
 *
 * The estimate of a unit is its wall time in reports/unit_costs.json (seconds, measured on a
 * reference run and committed: `ulpgate costs results.json... > reports/unit_costs.json`); a
 * unit the table does not know costs the table's median (1 s for an empty table).  The
 * assignment is the longest-processing-time greedy: units by decreasing cost (ties by name),
 * each to the shard with the least total so far (ties to the lowest index).  It depends only on
 * the selected unit names, N and the committed table, so every machine computes the same plan:
 * a unit is in exactly one shard for a given N.  The plan's fingerprint (a hash of every
 * "unit shard" pair) goes into each shard's report, and `ulpgate merge` checks it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "base/json.h"
#include "base/sys.h"
#include "harness/inputs/rng.h"
#include "harness/run/shard.h"
#include "ug_config.h"

static ug_json *ug_costs;
static bool ug_costs_loaded;
static double ug_costs_median = 1.0;

static int ug_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The committed table, read once; a missing or malformed table means uniform costs (the
 * assignment is still deterministic and complete, only less balanced). */
static void ug_costs_load(void)
{
    if (ug_costs_loaded) return;
    ug_costs_loaded = true;
    const char *path = getenv("ULPGATE_UNIT_COSTS");
    char def[4096], err[600];
    if (!path) {
        if (!ug_data_path("reports/unit_costs.json", def, sizeof def)) return; /* equal costs */
        path = def;
    }
    ug_costs = ug_json_parse_file(path, err, sizeof err);
    if (!ug_costs && path != def) /* a table asked for by name: say why it is not used */
        fprintf(stderr, "ulpgate: ULPGATE_UNIT_COSTS: %s: the shards are balanced by equal "
                        "costs\n", err);
    const ug_json *u = ug_json_get(ug_costs, "units");
    if (!u || u->type != UG_JSON_OBJ || u->count == 0) return;
    double *v = ug_xmalloc(u->count * sizeof *v);
    for (size_t i = 0; i < u->count; i++) v[i] = ug_json_num_of(u->items[i], 1.0);
    qsort(v, u->count, sizeof *v, ug_dcmp);
    ug_costs_median = v[u->count / 2];
    free(v);
}

double ug_shard_cost(const char *unit)
{
    ug_costs_load();
    double c = ug_json_num_of(ug_json_get(ug_json_get(ug_costs, "units"), unit), ug_costs_median);
    return c > 0 && isfinite(c) ? c : ug_costs_median;
}

typedef struct {
    const char *name;
    double cost;
    size_t index;
} ug_shard_item;

static int ug_item_cmp(const void *a, const void *b)
{
    const ug_shard_item *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return strcmp(x->name, y->name);
}

uint64_t ug_shard_plan(const char *const *names, size_t count, int n, int *assign)
{
    ug_shard_item *items = ug_xcalloc(count, sizeof *items);
    double *load = ug_xcalloc((size_t)n, sizeof *load);
    for (size_t i = 0; i < count; i++) items[i] = (ug_shard_item){names[i], ug_shard_cost(names[i]), i};
    qsort(items, count, sizeof *items, ug_item_cmp);
    for (size_t i = 0; i < count; i++) {
        int best = 0;
        for (int s = 1; s < n; s++)
            if (load[s] < load[best]) best = s;
        load[best] += items[i].cost;
        assign[items[i].index] = best;
    }
    /* the fingerprint, over the names in their given (sorted) order */
    uint64_t h = UG_HASH64_INIT;
    for (size_t i = 0; i < count; i++) {
        char line[200];
        snprintf(line, sizeof line, "%s %d/%d\n", names[i], assign[i], n);
        h = ug_hash64(line, h);
    }
    free(load);
    free(items);
    return h;
}

bool ug_shard_parse(const char *s, int *k, int *n)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || *end != '/') return false;
    const char *p = end + 1;
    long b = strtol(p, &end, 10);
    if (end == p || *end || b < 1 || b > 4096 || a < 0 || a >= b) return false;
    *k = (int)a;
    *n = (int)b;
    return true;
}
