/*
 * baseline.c - reading per-device baselines (a folder's index.json, a single file of an older
 * format) and a results.json as one side of a comparison (see baseline.h).  The folder (its
 * row files, writing it whole) is in baseline_dir.c, updating in baseline_update.c, a row at a
 * time in baseline_rows.c, the grouped line form in baseline_lines.c (all called from here,
 * never calling back).
 */
#include "harness/gate/baseline.h"
#include "harness/gate/baseline_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/sys.h"
#include "harness/results/results_json.h"
#include "ug_config.h"

static bool ug_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void ug_baseline_path(const char *dir, const char *key, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.json", dir, key);
    if (access(path, F_OK) == 0 && !ug_is_dir(path)) {
        char folder[4096];
        snprintf(folder, sizeof folder, "%s/%s", dir, key);
        if (access(folder, F_OK) != 0) return; /* only the single file of an older format */
    }
    snprintf(path, len, "%s/%s", dir, key);
}

/* The baselines are the user's: $ULPGATE_BASELINE_DIR (what --baseline-dir sets), else
 * reports/baselines of the source tree for a build-tree binary (ulpgate's own gate), else
 * reports/baselines under the working directory (the user's repository) -- never the
 * installed data folder. */
const char *ug_baseline_default_dir(void)
{
    static char dir[4096];
    const char *env = getenv("ULPGATE_BASELINE_DIR");
    if (env && *env) return env;
    if (ug_data_dir_is_source_tree() && ug_data_path("reports/baselines", dir, sizeof dir)) return dir;
    return "reports/baselines";
}

size_t ug_baseline_fp(ug_baseline *bl, const ug_fingerprint *fp)
{
    for (size_t i = 0; i < bl->n_fps; i++)
        if (strcmp(bl->fps[i].hash, fp->hash) == 0) return i;
    bl->fps = ug_xrealloc(bl->fps, (bl->n_fps + 1) * sizeof *bl->fps);
    bl->fps[bl->n_fps] = *fp;
    return bl->n_fps++;
}

void ug_baseline_free(ug_baseline *bl)
{
    for (size_t i = 0; i < bl->res.count; i++) free(bl->x[i].loosened);
    free(bl->x);
    free(bl->fps);
    free(bl->updates);
    ug_results_free(&bl->res);
    ug_results_free(&bl->ran);
    memset(bl, 0, sizeof *bl);
}

/* ---- reading --------------------------------------------------------------------------------- */

/* A results.json: every row that ran, one fingerprint. */
static int ug_load_results(const char *path, double slack, ug_baseline *bl, char *err,
                           size_t errlen)
{
    ug_results all;
    ug_json *root = ug_results_read(path, &all, err, errlen);
    if (!root) return -1;
    const ug_json *meta = ug_json_get(root, "meta");
    ug_fingerprint fp;
    ug_fingerprint_from_meta(&fp, meta);
    ug_baseline_fp(bl, &fp);
    ug_device_key(meta, bl->device, sizeof bl->device);
    snprintf(bl->git, sizeof bl->git, "%s", ug_json_str_of(ug_json_get(meta, "git"), ""));
    snprintf(bl->date, sizeof bl->date, "%s", ug_json_str_of(ug_json_get(meta, "date"), ""));
    bl->interrupted = ug_json_bool_of(ug_json_get(meta, "interrupted"), false);
    snprintf(bl->stop_reason, sizeof bl->stop_reason, "%s",
             ug_json_str_of(ug_json_get(meta, "stop_reason"), ""));
    ug_meta_limits_text(meta, bl->reduced, sizeof bl->reduced);
    const ug_json *sum = ug_json_get(root, "summary");
    bl->summary_points = -1;
    if (sum && sum->type == UG_JSON_OBJ) {
        bl->summary_points = 0;
        static const char *const keys[] = {"passed", "failed", "skipped", "xfailed", "xpassed"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            bl->summary_points += (long)ug_json_num_of(ug_json_get(sum, keys[k]), 0);
    }
    bl->n_points = all.count;
    const ug_json *sel = ug_json_get(meta, "selection");
    snprintf(bl->sel_kernel, sizeof bl->sel_kernel, "%s",
             ug_json_str_of(ug_json_get(sel, "kernel"), ""));
    double n = ug_json_num_of(ug_json_get(sel, "n"), 0);
    bl->sel_n = n > 0 && n < 1e18 ? (size_t)n : 0;
    bl->sel_kernels_narrowed = ug_json_get(sel, "format") || ug_json_get(sel, "builtin");
    for (size_t u = 0; u < all.n_units; u++)
        ug_results_add_unit(&bl->ran, all.units[u].name, all.units[u].seconds);
    for (size_t i = 0; i < all.count; i++) {
        const ug_row *r = &all.rows[i];
        if (r->status == UG_ST_SKIP) {
            ug_results_add(&bl->ran, r);
            continue;
        }
        ug_bl_extra x = {.slack = r->measured && !r->deterministic ? slack : 1.0, .fp = 0};
        ug_baseline_add(bl, r, &x);
    }
    ug_results_free(&all);
    ug_json_free(root);
    return 0;
}

/* A baseline: a single file (format 1 to 3) or a folder's index.json (format 4, its row files
 * read from beside it). */
static int ug_load_baseline(const char *path, const ug_json *root, ug_baseline *bl, char *err,
                            size_t errlen)
{
    const ug_json *head = ug_json_get(root, "baseline");
    const ug_json *fps = ug_json_get(root, "fingerprints");
    const ug_json *rows = ug_json_get(root, "rows");
    const ug_json *fv = ug_json_get(head, "format");
    int format;
    if (fv && fv->type == UG_JSON_NUM && fv->num > UG_BASELINE_FORMAT && fv->num < 1e6) {
        snprintf(err, errlen, "%s: baseline format %.0f is newer than this ulpgate reads (%d): "
                              "update ulpgate or take the baseline from the newer ulpgate's tree",
                 path, fv->num, UG_BASELINE_FORMAT);
        return -1;
    }
    bool folder = fv && fv->type == UG_JSON_NUM && fv->num == UG_BASELINE_FORMAT;
    bool lines = fv && fv->type == UG_JSON_NUM && fv->num == UG_BASELINE_FORMAT_LINES;
    if (folder || lines)
        format = (int)fv->num;
    else if (ug_format_check(path, head, "baseline",
                             "take the baseline from the newer ulpgate's tree", &format, err,
                             errlen) != 0)
        return -1;
    if (!fps || fps->type != UG_JSON_OBJ || (!lines && !folder && (!rows || rows->type != UG_JSON_ARR))) {
        snprintf(err, errlen, "%s: a baseline needs a \"fingerprints\" object and a \"rows\" array",
                 path);
        return -1;
    }
    bl->is_baseline = true;
    bl->summary_points = -1;
    bl->n_points = lines || folder ? 0 : rows->count;
    bl->format = format;
    snprintf(bl->device, sizeof bl->device, "%s", ug_json_str_of(ug_json_get(head, "device"), ""));
    for (size_t i = 0; i < fps->count; i++) {
        ug_fingerprint fp;
        char why[300];
        if (ug_fingerprint_check_json(fps->items[i], why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: fingerprint \"%.40s\" %s: refused", path,
                     fps->items[i]->key, why);
            return -1;
        }
        ug_fingerprint_from_json(&fp, fps->items[i]);
        /* rows name a fingerprint by the hash it had when written: keep that name */
        snprintf(fp.hash, sizeof fp.hash, "%s", fps->items[i]->key);
        ug_baseline_fp(bl, &fp);
    }
    bl->updates = ug_bl_events_read(ug_json_get(root, "updates"), &bl->n_updates);
    if (folder) return ug_baseline_read_parts(path, root, bl, err, errlen);
    if (lines) return ug_baseline_read_lines(path, root, bl, err, errlen);
    for (size_t i = 0; i < rows->count; i++)
        if (ug_baseline_take_row(path, i, rows->items[i], format, bl, err, errlen) != 0) return -1;
    return 0;
}

static int ug_baseline_load_as(const char *path, double nondet_slack, const char *const *groups,
                               size_t n_groups, ug_baseline *bl, char *err, size_t errlen)
{
    memset(bl, 0, sizeof *bl);
    bl->groups = groups;
    bl->n_groups = n_groups;
    snprintf(bl->path, sizeof bl->path, "%s", path);
    char index[1100];
    if (ug_is_dir(path)) { /* a baseline folder: its index names the rest */
        snprintf(index, sizeof index, "%s/index.json", path);
        if (access(index, F_OK) != 0) {
            snprintf(err, errlen, "%s: a folder without index.json is not a baseline", path);
            return -1;
        }
        path = index;
    }
    ug_json *root = ug_json_parse_file(path, err, errlen);
    if (!root) return -1;
    int rc;
    if (ug_json_get(root, "baseline")) {
        rc = ug_load_baseline(path, root, bl, err, errlen);
    } else {
        ug_json_free(root);
        root = NULL;
        rc = ug_load_results(path, nondet_slack, bl, err, errlen);
    }
    ug_json_free(root);
    bl->groups = NULL; /* the caller's: read, not kept */
    bl->n_groups = 0;
    if (rc != 0) {
        ug_baseline_free(bl);
        snprintf(bl->path, sizeof bl->path, "%.1023s", path);
    }
    return rc;
}

int ug_baseline_load(const char *path, double nondet_slack, ug_baseline *bl, char *err,
                     size_t errlen)
{
    return ug_baseline_load_as(path, nondet_slack, NULL, 0, bl, err, errlen);
}

int ug_baseline_load_groups(const char *path, double nondet_slack, const char *const *case_names,
                            size_t n, ug_baseline *bl, char *err, size_t errlen)
{
    /* the groups, as the row files name them (baseline_dir.c: ug_bl_group_name) */
    char **groups = ug_xcalloc(n + 1, sizeof *groups);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        char *g = ug_bl_group_name(case_names[i]);
        bool seen = false;
        for (size_t k = 0; k < ng && !seen; k++) seen = strcmp(groups[k], g) == 0;
        if (seen) free(g);
        else groups[ng++] = g;
    }
    int rc = ug_baseline_load_as(path, nondet_slack, (const char *const *)groups, ng, bl, err,
                                 errlen);
    for (size_t k = 0; k < ng; k++) free(groups[k]);
    free(groups);
    return rc;
}
