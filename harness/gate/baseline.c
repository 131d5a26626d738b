/*
 * baseline.c - reading and writing per-device baselines, and reading a results.json as one side
 * of a comparison (see baseline.h).  Updating is in baseline_update.c.
 */
#include "harness/gate/baseline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/sys.h"
#include "harness/results/results_json.h"
#include "ug_config.h"

void ug_baseline_path(const char *dir, const char *key, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.json", dir, key);
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

void ug_baseline_add(ug_baseline *bl, const ug_row *row, const ug_bl_extra *x)
{
    ug_results_add(&bl->res, row);
    if (bl->res.count > bl->x_cap) {
        bl->x_cap = bl->x_cap ? 2 * bl->x_cap : 64;
        bl->x = ug_xrealloc(bl->x, bl->x_cap * sizeof *bl->x);
    }
    ug_bl_extra *dst = &bl->x[bl->res.count - 1];
    *dst = *x;
    dst->loosened = NULL;
    if (x->n_loosened) {
        dst->loosened = ug_xmalloc(x->n_loosened * sizeof *dst->loosened);
        memcpy(dst->loosened, x->loosened, x->n_loosened * sizeof *dst->loosened);
    }
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
    memset(bl, 0, sizeof *bl);
}

/* ---- reading --------------------------------------------------------------------------------- */

static void ug_event_read(ug_bl_event *e, const ug_json *o)
{
    memset(e, 0, sizeof *e);
    snprintf(e->date, sizeof e->date, "%s", ug_json_str_of(ug_json_get(o, "date"), ""));
    snprintf(e->git, sizeof e->git, "%s", ug_json_str_of(ug_json_get(o, "git"), ""));
    snprintf(e->reason, sizeof e->reason, "%s", ug_json_str_of(ug_json_get(o, "reason"), ""));
    snprintf(e->changes, sizeof e->changes, "%s", ug_json_str_of(ug_json_get(o, "changes"), ""));
}

/* An array of events into a fresh array; its length in *n. */
static ug_bl_event *ug_events_read(const ug_json *arr, size_t *n)
{
    *n = 0;
    if (!arr || arr->type != UG_JSON_ARR || arr->count == 0) return NULL;
    ug_bl_event *ev = ug_xcalloc(arr->count, sizeof *ev);
    for (size_t i = 0; i < arr->count; i++) ug_event_read(&ev[i], arr->items[i]);
    *n = arr->count;
    return ev;
}

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
    const ug_json *sum = ug_json_get(root, "summary");
    bl->summary_points = -1;
    if (sum && sum->type == UG_JSON_OBJ) {
        bl->summary_points = 0;
        static const char *const keys[] = {"passed", "failed", "skipped", "xfailed", "xpassed"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            bl->summary_points += (long)ug_json_num_of(ug_json_get(sum, keys[k]), 0);
    }
    bl->n_points = all.count;
    for (size_t i = 0; i < all.count; i++) {
        const ug_row *r = &all.rows[i];
        if (r->status == UG_ST_SKIP) continue;
        ug_bl_extra x = {.slack = r->measured && !r->deterministic ? slack : 1.0, .fp = 0};
        ug_baseline_add(bl, r, &x);
    }
    ug_results_free(&all);
    ug_json_free(root);
    return 0;
}

/* One row object of a baseline (format 1 or 2, or one rebuilt from a grouped line by
 * baseline_lines.c) into bl: the row read strictly, its fingerprint, slack and loosenings.
 * 0, or -1 with "PATH: row I (ID): what is wrong" in err. */
int ug_baseline_take_row(const char *path, size_t i, const ug_json *o, int format,
                         ug_baseline *bl, char *err, size_t errlen)
{
    ug_row r;
    char why[600];
    if (ug_row_read(o, format, true, &r, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: row %zu%s%.200s%s: %s", path, i, r.id[0] ? " (" : "", r.id,
                 r.id[0] ? ")" : "", why);
        return -1;
    }
    const char *fph = ug_json_str_of(ug_json_get(o, "fingerprint"), "");
    size_t fp = bl->n_fps;
    for (size_t f = 0; f < bl->n_fps && fp == bl->n_fps; f++)
        if (strcmp(bl->fps[f].hash, fph) == 0) fp = f;
    if (fp == bl->n_fps) {
        snprintf(err, errlen, "%s: row %zu (%s): fingerprint \"%s\" is not in \"fingerprints\"",
                 path, i, r.id, fph);
        return -1;
    }
    if (r.measured && !r.kernel_name[0]) { /* baselines keep name@variant only */
        const char *at = strrchr(r.kernel, '@');
        snprintf(r.kernel_name, sizeof r.kernel_name, "%.*s",
                 at ? (int)(at - r.kernel) : (int)strlen(r.kernel), r.kernel);
        snprintf(r.variant, sizeof r.variant, "%s", at ? at + 1 : "default");
    }
    if (r.measured && !r.point[0]) snprintf(r.point, sizeof r.point, "%.255s", r.id);
    ug_bl_extra x = {.slack = 1.0, .fp = fp};
    if (ug_json_figure(o, "slack", false, &x.slack, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: row %zu (%s): %s", path, i, r.id, why);
        return -1;
    }
    if (!(x.slack >= 1.0)) {
        snprintf(err, errlen, "%s: row %zu (%s): slack must be >= 1", path, i, r.id);
        return -1;
    }
    ug_baseline_add(bl, &r, &x);
    ug_bl_extra *dst = &bl->x[bl->res.count - 1];
    dst->loosened = ug_events_read(ug_json_get(o, "loosened"), &dst->n_loosened);
    return 0;
}

/* A baseline file. */
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
    bool lines = fv && fv->type == UG_JSON_NUM && fv->num == UG_BASELINE_FORMAT;
    if (lines)
        format = UG_BASELINE_FORMAT;
    else if (ug_format_check(path, head, "baseline",
                             "take the baseline from the newer ulpgate's tree", &format, err,
                             errlen) != 0)
        return -1;
    if (!fps || fps->type != UG_JSON_OBJ || (!lines && (!rows || rows->type != UG_JSON_ARR))) {
        snprintf(err, errlen, "%s: a baseline needs a \"fingerprints\" object and a \"rows\" array",
                 path);
        return -1;
    }
    bl->is_baseline = true;
    bl->summary_points = -1;
    bl->n_points = lines ? 0 : rows->count;
    bl->format = format;
    snprintf(bl->device, sizeof bl->device, "%s", ug_json_str_of(ug_json_get(head, "device"), ""));
    for (size_t i = 0; i < fps->count; i++) {
        ug_fingerprint fp;
        ug_fingerprint_from_json(&fp, fps->items[i]);
        /* rows name a fingerprint by the hash it had when written: keep that name */
        snprintf(fp.hash, sizeof fp.hash, "%s", fps->items[i]->key);
        ug_baseline_fp(bl, &fp);
    }
    bl->updates = ug_events_read(ug_json_get(root, "updates"), &bl->n_updates);
    if (lines) return ug_baseline_read_lines(path, root, bl, err, errlen);
    for (size_t i = 0; i < rows->count; i++)
        if (ug_baseline_take_row(path, i, rows->items[i], format, bl, err, errlen) != 0) return -1;
    return 0;
}

int ug_baseline_load(const char *path, double nondet_slack, ug_baseline *bl, char *err,
                     size_t errlen)
{
    memset(bl, 0, sizeof *bl);
    snprintf(bl->path, sizeof bl->path, "%s", path);
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
    if (rc != 0) {
        ug_baseline_free(bl);
        snprintf(bl->path, sizeof bl->path, "%s", path);
    }
    return rc;
}

/* ---- writing --------------------------------------------------------------------------------- */

void ug_event_json(ug_buf *b, const ug_bl_event *e)
{
    ug_buf_printf(b, "{\"date\":");
    ug_buf_json_str(b, e->date);
    ug_buf_printf(b, ",\"git\":");
    ug_buf_json_str(b, e->git);
    ug_buf_printf(b, ",\"reason\":");
    ug_buf_json_str(b, e->reason);
    ug_buf_printf(b, ",\"changes\":");
    ug_buf_json_str(b, e->changes);
    ug_buf_printf(b, "}");
}

/* One row as an object: the fields of a results.json row that identify it and its inputs, and
 * the gated figures (row_fields.h's bl column; results_json.c reads them back), then the
 * baseline's own.  A format 2 baseline's row; baseline_lines.c cuts it into a grouped line. */
void ug_bl_row_json(ug_buf *b, const ug_baseline *bl, size_t i)
{
    const ug_row *r = &bl->res.rows[i];
    const ug_bl_extra *x = &bl->x[i];
    ug_row_json_open(b, r, true);
    if (r->measured && !r->deterministic) {
        ug_buf_printf(b, ",\"slack\":");
        ug_buf_json_num(b, x->slack);
    }
    ug_buf_printf(b, ",\"fingerprint\":");
    ug_buf_json_str(b, bl->fps[x->fp].hash);

    if (x->n_loosened) {
        ug_buf_printf(b, ",\"loosened\":[");
        for (size_t e = 0; e < x->n_loosened; e++) {
            ug_buf_printf(b, "%s", e ? "," : "");
            ug_event_json(b, &x->loosened[e]);
        }
        ug_buf_printf(b, "]");
    }
    ug_buf_printf(b, "}");
}

int ug_baseline_write(const ug_baseline *bl, const char *path, char *err, size_t errlen)
{
    ug_buf b = {0};
    ug_baseline_json(bl, &b);
    int rc = ug_write_atomic(path, ug_buf_str(&b), b.len, err, errlen);
    ug_buf_free(&b);
    return rc;
}
