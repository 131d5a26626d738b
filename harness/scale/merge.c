/*
 * merge.c - `ulpgate merge OUT.json IN.json...`: the reports of the N shards of one run into one
 * results.json (and JUnit XML beside it) that compare, report and the gate read like any other.
 *
 * Refused (exit 2, everything wrong named): inputs of different configurations (version, git
 * revision, seed, oracle, compiler flags, the registered kernels and their variants, the case
 * selection), a shard missing or given twice, a shard plan that differs, a unit of the plan
 * that its shard did not run, a test point present twice.  After a merge of a whole run the
 * coverage check (every registered kernel measured) runs over the union, as an unsharded run
 * does it.
 *
 * `--parts`: the inputs are instead parts of the default run made by different --filter runs
 * (the per-file meson tests, some of them sharded), e.g. for the gate to compare what the suite
 * just measured without measuring it again.  Refused unless, together, they are exactly one
 * default run: one configuration (the selection aside), no part narrowed by --kernel, --n,
 * --trial, --trials or --slow, every unit of the default selection (this binary's cases and the
 * source tree's corpus) run by exactly one part and no other unit, no test point twice.  The
 * merged report carries the default selection, so the coverage check runs over the union.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"
#include "base/parse.h"
#include "base/sys.h"
#include "harness/scale/merge.h"
#include "harness/run/context.h"
#include "harness/results/junit.h"
#include "harness/results/results_json.h"

typedef struct {
    const char *path;
    ug_json *root;
    ug_results res;
    int k;
} ug_merge_input;

/* The meta fields that must be equal for shards of one configuration. */
static const char *const ug_merge_keys[] = {"version", "git", "seed", "oracle", "cuda_built",
                                            "cflags", "build", "nvcc_flags", "kernels", "selection"};

static void ug_meta_field(ug_buf *b, const ug_json *meta, const char *key)
{
    ug_buf_clear(b);
    const ug_json *v = ug_json_get(meta, key);
    if (v)
        ug_json_write(b, v);
    else
        ug_buf_printf(b, "(none)");
}

/* Configuration: every input's meta equal to the first's on ug_merge_keys (the selection
 * aside for parts). */
static int ug_merge_check_config(const ug_merge_input *in, int count, bool parts)
{
    int bad = 0;
    ug_buf a = {0}, b = {0};
    /* the meta of a part that ran on the GPU if any (its device, driver, ...: the device key of
     * the merged run); a part of CPU cases alone never touched the GPU */
    const ug_json *m0 = ug_json_get(in[0].root, "meta");
    for (int i = 0; i < count; i++)
        if (ug_json_get(ug_json_get(in[i].root, "meta"), "gpu")) {
            m0 = ug_json_get(in[i].root, "meta");
            break;
        }
    for (int i = 1; i < count; i++) {
        const ug_json *mi = ug_json_get(in[i].root, "meta");
        for (size_t k = 0; k < sizeof ug_merge_keys / sizeof ug_merge_keys[0]; k++) {
            if (parts && strcmp(ug_merge_keys[k], "selection") == 0) continue;
            ug_meta_field(&a, m0, ug_merge_keys[k]);
            ug_meta_field(&b, mi, ug_merge_keys[k]);
            if (strcmp(ug_buf_str(&a), ug_buf_str(&b)) != 0) {
                fprintf(stderr, "ulpgate merge: %s and %s come from different configurations: "
                                "meta.%s is %s in one and %s in the other\n",
                        in[0].path, in[i].path, ug_merge_keys[k], ug_buf_str(&a), ug_buf_str(&b));
                bad++;
            }
        }
    }
    ug_buf_free(&a);
    ug_buf_free(&b);
    return bad;
}

/* Shards: one plan, every shard 0..n-1 exactly once, every unit of the plan run by its shard. */
static int ug_merge_check_shards(ug_merge_input *in, int count, const ug_json **plan_units, int *n_out,
                                 const char *cut)
{
    int bad = 0, n = -1;
    const char *plan = NULL;
    for (int i = 0; i < count; i++) {
        const ug_json *sh = ug_json_get(in[i].root, "shard");
        if (!sh) {
            fprintf(stderr, "ulpgate merge: %s is not a shard's report (run with --shard K/N)\n", in[i].path);
            return 1;
        }
        in[i].k = (int)ug_json_num_of(ug_json_get(sh, "k"), -1);
        int ni = (int)ug_json_num_of(ug_json_get(sh, "n"), -1);
        const char *pi = ug_json_str_of(ug_json_get(sh, "plan"), "");
        if (n < 0) {
            n = ni;
            plan = pi;
            *plan_units = ug_json_get(sh, "units");
        } else if (ni != n || strcmp(pi, plan) != 0) {
            fprintf(stderr, "ulpgate merge: %s is shard %d/%d of plan %s; %s is of %d shards, plan %s\n",
                    in[i].path, in[i].k, ni, pi, in[0].path, n, plan);
            bad++;
        }
    }
    if (bad) return bad;
    for (int k = 0; k < n; k++) {
        int seen = 0;
        for (int i = 0; i < count; i++) seen += in[i].k == k;
        if (seen == 1) continue;
        if (seen > 1) {
            fprintf(stderr, "ulpgate merge: shard %d/%d is given %d times\n", k, n, seen);
            bad++;
            continue;
        }
        bad += !cut; /* a run cut short may lack shards: said, and the merge is marked so */
        fprintf(stderr, "ulpgate merge: shard %d/%d is missing%s; its units:", k, n,
                cut ? " (the run was cut short)" : "");
        for (size_t u = 0; *plan_units && u < (*plan_units)->count; u++) {
            const ug_json *e = (*plan_units)->items[u];
            if (e->count == 2 && (int)ug_json_num_of(e->items[1], -1) == k)
                fprintf(stderr, " %s", ug_json_str_of(e->items[0], "?"));
        }
        fprintf(stderr, "\n");
    }
    /* every unit of a present shard was run by it */
    for (size_t u = 0; *plan_units && u < (*plan_units)->count; u++) {
        const ug_json *e = (*plan_units)->items[u];
        const char *name = ug_json_str_of(e->items[0], "?");
        int k = (int)ug_json_num_of(e->items[1], -1);
        for (int i = 0; i < count; i++) {
            if (in[i].k != k) continue;
            bool ran = false;
            for (size_t r = 0; r < in[i].res.n_units && !ran; r++)
                ran = strcmp(in[i].res.units[r].name, name) == 0;
            if (!ran && !cut) {
                fprintf(stderr, "ulpgate merge: unit %s of shard %d/%d did not run (%s)\n", name, k, n,
                        in[i].path);
                bad++;
            }
        }
    }
    *n_out = n;
    return bad;
}

/* Parts: none narrowed below whole units, and together every unit of the default selection
 * exactly once. */
static int ug_merge_check_parts(const ug_merge_input *in, int count)
{
    int bad = 0;
    for (int i = 0; i < count; i++) {
        const ug_json *sel = ug_json_get(ug_json_get(in[i].root, "meta"), "selection");
        if (!sel || strcmp(ug_json_str_of(ug_json_get(sel, "kernel"), "x"), "") != 0 ||
            ug_json_num_of(ug_json_get(sel, "n"), 1) != 0 ||
            ug_json_num_of(ug_json_get(sel, "trial"), 0) >= 0 ||
            ug_json_num_of(ug_json_get(sel, "trials"), 1) != 0 ||
            ug_json_bool_of(ug_json_get(sel, "slow"), true) ||
            ug_json_bool_of(ug_json_get(sel, "slow_only"), true)) {
            fprintf(stderr, "ulpgate merge: %s is not a part of the default run: its selection is "
                            "narrowed (--kernel, --n, --trial, --trials or --slow)\n", in[i].path);
            bad++;
        }
    }
    ug_options o;
    memset(&o, 0, sizeof o);
    o.trial = -1;
    size_t n_units;
    char err[1200];
    const ug_unit *units = ug_units_with_corpus(&o, &n_units, err, sizeof err);
    if (!units) {
        fprintf(stderr, "ulpgate merge: %s\n", err);
        return bad + 1;
    }
    for (size_t u = 0; u < n_units; u++) {
        if (!ug_unit_selected(&o, &units[u])) continue;
        int seen = 0;
        for (int i = 0; i < count; i++)
            for (size_t r = 0; r < in[i].res.n_units; r++)
                seen += strcmp(in[i].res.units[r].name, units[u].name) == 0;
        if (seen != 1) {
            fprintf(stderr, "ulpgate merge: unit %s of the default run is in %d parts\n",
                    units[u].name, seen);
            bad++;
        }
    }
    for (int i = 0; i < count; i++)
        for (size_t r = 0; r < in[i].res.n_units; r++) {
            bool known = false;
            for (size_t u = 0; u < n_units && !known; u++)
                known = ug_unit_selected(&o, &units[u]) &&
                        strcmp(units[u].name, in[i].res.units[r].name) == 0;
            if (!known) {
                fprintf(stderr, "ulpgate merge: unit %s (%s) is not part of the default run\n",
                        in[i].res.units[r].name, in[i].path);
                bad++;
            }
        }
    return bad;
}

/* The merged meta: m0's (the first input's, or the GPU one's); for parts with the default
 * selection and the parts named.  "interrupted" is true when any input's is, its stop_reason
 * naming each interrupted input ("PATH: SIGINT; ..."): a merge of a run cut short is still one,
 * and the gate must see it (each one is said on stderr too). */
static void ug_merge_meta(ug_buf *b, const ug_json *m0, const ug_merge_input *in, int count,
                          bool parts, const char *cut)
{
    ug_buf_printf(b, "{");
    size_t w = 0;
    for (size_t i = 0; m0 && i < m0->count; i++) {
        const char *key = m0->items[i]->key;
        if ((parts && strcmp(key, "selection") == 0) || strcmp(key, "interrupted") == 0 ||
            strcmp(key, "stop_reason") == 0)
            continue;
        ug_buf_printf(b, "%s", w++ ? "," : "");
        ug_buf_json_str(b, key);
        ug_buf_printf(b, ":");
        ug_json_write(b, m0->items[i]);
    }
    if (parts) {
        ug_buf_printf(b, "%s\"selection\":{\"filter\":\"\",\"kernel\":\"\",\"n\":0,\"trial\":-1,"
                         "\"trials\":0,\"slow\":false,\"slow_only\":false},\"parts\":[", w++ ? "," : "");
        for (int i = 0; i < count; i++) {
            ug_buf_printf(b, "%s", i ? "," : "");
            ug_buf_json_str(b, in[i].path);
        }
        ug_buf_printf(b, "]");
    }
    ug_buf why = {0};
    if (cut) ug_buf_printf(&why, "%s", cut);
    for (int i = 0; i < count; i++) {
        const ug_json *mi = ug_json_get(in[i].root, "meta");
        if (!ug_json_bool_of(ug_json_get(mi, "interrupted"), false)) continue;
        const char *r = ug_json_str_of(ug_json_get(mi, "stop_reason"), "no reason recorded");
        ug_buf_printf(&why, "%s%s: %s", why.len ? "; " : "", in[i].path, r);
        fprintf(stderr, "ulpgate merge: %s was interrupted (%s): the merged report is marked "
                        "interrupted\n", in[i].path, r);
    }
    ug_buf_printf(b, "%s\"interrupted\":%s", w ? "," : "", why.len ? "true" : "false");
    if (why.len) {
        ug_buf_printf(b, ",\"stop_reason\":");
        ug_buf_json_str(b, ug_buf_str(&why));
    }
    ug_buf_printf(b, "}");
    ug_buf_free(&why);
}

static int ug_row_cmp(const void *a, const void *b)
{
    return strcmp(((const ug_row *)a)->id, ((const ug_row *)b)->id);
}

/* Every test point once: no id twice across the inputs. */
static int ug_merge_check_points(const ug_results *all)
{
    ug_row *sorted = ug_xmalloc((all->count ? all->count : 1) * sizeof *sorted);
    memcpy(sorted, all->rows, all->count * sizeof *sorted);
    qsort(sorted, all->count, sizeof *sorted, ug_row_cmp);
    int bad = 0;
    for (size_t i = 1; i < all->count; i++)
        if (strcmp(sorted[i].id, sorted[i - 1].id) == 0) {
            fprintf(stderr, "ulpgate merge: test point \"%s\" ran twice\n", sorted[i].id);
            bad++;
        }
    free(sorted);
    return bad;
}

/* A whole run's coverage over the union (merge runs in the same binary, so the registry is the
 * one the shards ran: meta.kernels checked that). */
static void ug_merge_coverage(const ug_json *meta, ug_results *all)
{
    const ug_json *sel = ug_json_get(meta, "selection");
    if (strcmp(ug_json_str_of(ug_json_get(sel, "filter"), "x"), "") != 0 ||
        strcmp(ug_json_str_of(ug_json_get(sel, "kernel"), "x"), "") != 0 ||
        ug_json_num_of(ug_json_get(sel, "n"), 1) != 0 || ug_json_num_of(ug_json_get(sel, "trial"), 0) >= 0 ||
        ug_json_bool_of(ug_json_get(sel, "slow_only"), true))
        return;
    bool gpu = ug_json_get(meta, "gpu") != NULL;
    const char *missing[256];
    size_t count = ug_unmeasured_kernels(all, gpu, missing, 256);
    ug_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.case_name, sizeof row.case_name, "coverage");
    snprintf(row.point, sizeof row.point, "coverage every_kernel_measured");
    snprintf(row.device, sizeof row.device, "%s", gpu ? "gpu" : "cpu");
    uint64_t seed = 0;
    if (ug_parse_u64(ug_json_str_of(ug_json_get(meta, "seed"), ""), &seed)) row.seed = seed;
    row.status = count ? UG_ST_FAIL : UG_ST_PASS;
    row.failures = (int)count;
    for (size_t i = 0; i < count && i < 256; i++)
        snprintf(row.note + strlen(row.note), sizeof row.note - strlen(row.note), "%s%s",
                 i ? ", " : "unmeasured: ", missing[i]);
    ug_row_make_id(&row);
    ug_results_add(all, &row);
}

/* Whether a and b name the same file (the same device and inode; or, for a path that does not
 * exist yet, the same text). */
static bool ug_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return strcmp(a, b) == 0;
}

/* Whether the file at path is a JUnit XML ulpgate wrote (ug_junit's first two lines). */
static bool ug_is_ulpgate_junit(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char head[256];
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[got] = 0;
    return strstr(head, "<testsuites name=\"ulpgate\"") != NULL;
}

int ug_merge(const char *out, const char *junit, const char *const *paths, int count, bool parts,
             const char *cut)
{
    /* the output is never one of the inputs: writing it would destroy a shard that merged */
    for (int i = 0; i < count; i++)
        for (int w = 0; w < 2; w++) {
            const char *dst = w ? junit : out;
            if (!dst || !ug_same_file(dst, paths[i])) continue;
            fprintf(stderr, "ulpgate merge: %s is also input %d: merging into it would overwrite "
                            "a %s (write the merged run to a file of its own)\n",
                    dst, i + 1, parts ? "part" : "shard");
            return 2;
        }
    int rc = 2;
    ug_merge_input *in = ug_xcalloc((size_t)count, sizeof *in);
    for (int i = 0; i < count; i++) in[i].path = paths[i];
    ug_results all = {0};
    ug_buf meta = {0}, text = {0}, xml = {0};
    char err[4400], junit_path[4200];
    for (int i = 0; i < count; i++) {
        in[i].root = ug_results_read(in[i].path, &in[i].res, err, sizeof err);
        if (!in[i].root) {
            fprintf(stderr, "ulpgate merge: %s\n", err);
            goto done;
        }
    }
    const ug_json *plan_units = NULL;
    int n = 0;
    /* the meta of a part that ran on the GPU if any (its device, driver, ...: the device key of
     * the merged run); a part of CPU cases alone never touched the GPU */
    const ug_json *m0 = ug_json_get(in[0].root, "meta");
    for (int i = 0; i < count; i++)
        if (ug_json_get(ug_json_get(in[i].root, "meta"), "gpu")) {
            m0 = ug_json_get(in[i].root, "meta");
            break;
        }
    if (parts) {
        if (ug_merge_check_config(in, count, true) || ug_merge_check_parts(in, count)) goto done;
        for (int i = 0; i < count; i++) ug_results_append(&all, &in[i].res);
        ug_merge_meta(&meta, m0, in, count, true, cut);
    } else {
        if (ug_merge_check_config(in, count, false) ||
            ug_merge_check_shards(in, count, &plan_units, &n, cut))
            goto done;
        /* the union, in shard order: each shard ran its units in name order */
        for (int k = 0; k < n; k++)
            for (int i = 0; i < count; i++)
                if (in[i].k == k) ug_results_append(&all, &in[i].res);
        ug_merge_meta(&meta, m0, in, count, false, cut);
    }
    if (ug_merge_check_points(&all)) goto done;
    ug_json *mj = ug_json_parse(meta.s, meta.len, err, sizeof err);
    if (!cut) ug_merge_coverage(mj, &all); /* a run cut short measured only part: no verdict */
    ug_json_free(mj);
    ug_buf_clear(&text);
    ug_report_json(&text, ug_buf_str(&meta), NULL, &all);
    if (ug_write_atomic(out, text.s, text.len, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate merge: %s\n", err);
        goto done;
    }
    bool junit_kept = false;
    if (!junit) {
        /* junit.xml beside OUT by default, but never over one that ulpgate did not write */
        const char *slash = strrchr(out, '/');
        snprintf(junit_path, sizeof junit_path, "%.*sjunit.xml", slash ? (int)(slash - out + 1) : 0, out);
        junit = junit_path;
        struct stat st;
        if (lstat(junit, &st) == 0 && !ug_is_ulpgate_junit(junit)) {
            fprintf(stderr, "ulpgate merge: %s exists and ulpgate did not write it: left as it is "
                            "(--junit FILE writes the JUnit XML elsewhere)\n", junit);
            junit_kept = true;
        }
    }
    ug_junit(&xml, &all);
    if (!junit_kept && ug_write_atomic(junit, xml.s, xml.len, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate merge: %s\n", err);
        goto done;
    }
    char summary[200];
    ug_results_summary(&all, summary, sizeof summary);
    fprintf(stderr, "ulpgate merge: %d %s into %s (%zu test points; JUnit XML %s): %s\n",
            parts ? count : n, parts ? "parts" : "shards", out, all.count,
            junit_kept ? "not written" : junit, summary);
    rc = ug_results_status(&all);
done:
    for (int i = 0; i < count; i++) {
        ug_json_free(in[i].root);
        ug_results_free(&in[i].res);
    }
    ug_results_free(&all);
    ug_buf_free(&meta);
    ug_buf_free(&text);
    ug_buf_free(&xml);
    free(in);
    return rc;
}
