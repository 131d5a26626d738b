/*
 * baseline_rows.c - a baseline's rows one at a time, shared by the file forms: a row added to
 * the in-memory baseline, a row object read into it (format 1 and 2 rows, and those that
 * baseline_lines.c rebuilds from a grouped line), a row and an update event written as objects.
 * baseline.c (the file) and baseline_lines.c (the grouped line form) both call down into this
 * file, which calls neither: the include arrows go one way.
 */
#include "harness/gate/baseline_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/sys.h"
#include "harness/results/results_json.h"

void ug_baseline_reserve(ug_baseline *bl, size_t rows)
{
    /* geometric, as adding grows: a folder reserves once a file, and each reallocation of tens
     * of MB faults its pages in again */
    if (rows > bl->res.cap) {
        bl->res.cap = rows > 2 * bl->res.cap ? rows : 2 * bl->res.cap;
        bl->res.rows = ug_xrealloc(bl->res.rows, bl->res.cap * sizeof *bl->res.rows);
    }
    if (rows > bl->x_cap) {
        bl->x_cap = rows > 2 * bl->x_cap ? rows : 2 * bl->x_cap;
        bl->x = ug_xrealloc(bl->x, bl->x_cap * sizeof *bl->x);
    }
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

/* ---- reading --------------------------------------------------------------------------------- */

static void ug_event_read(ug_bl_event *e, const ug_json *o)
{
    memset(e, 0, sizeof *e);
    snprintf(e->date, sizeof e->date, "%s", ug_json_str_of(ug_json_get(o, "date"), ""));
    snprintf(e->git, sizeof e->git, "%s", ug_json_str_of(ug_json_get(o, "git"), ""));
    snprintf(e->reason, sizeof e->reason, "%s", ug_json_str_of(ug_json_get(o, "reason"), ""));
    snprintf(e->changes, sizeof e->changes, "%s", ug_json_str_of(ug_json_get(o, "changes"), ""));
}

ug_bl_event *ug_bl_events_read(const ug_json *arr, size_t *n)
{
    *n = 0;
    if (!arr || arr->type != UG_JSON_ARR || arr->count == 0) return NULL;
    ug_bl_event *ev = ug_xcalloc(arr->count, sizeof *ev);
    for (size_t i = 0; i < arr->count; i++) ug_event_read(&ev[i], arr->items[i]);
    *n = arr->count;
    return ev;
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
    if (r.measured && !r.deterministic) {
        /* the history of honest runs; a row from before histories holds its one run */
        const ug_json *h = ug_json_get(o, "history");
        if (h && (h->type != UG_JSON_ARR || h->count == 0 || h->count > UG_HIST_MAX)) {
            snprintf(err, errlen, "%s: row %zu (%s): \"history\" must be an array of 1 to %d "
                     "numbers", path, i, r.id, UG_HIST_MAX);
            return -1;
        }
        for (size_t j = 0; h && j < h->count; j++) {
            const ug_json *v = h->items[j];
            if (v->type != UG_JSON_NUM || !(v->num >= 0)) {
                snprintf(err, errlen, "%s: row %zu (%s): history[%zu] is not an ulp_mean "
                         "(a number >= 0)", path, i, r.id, j);
                return -1;
            }
            x.hist[x.n_hist++] = v->num;
        }
        if (!h) x.hist[x.n_hist++] = r.ulp_mean;
    }
    ug_baseline_add(bl, &r, &x);
    ug_bl_extra *dst = &bl->x[bl->res.count - 1];
    dst->loosened = ug_bl_events_read(ug_json_get(o, "loosened"), &dst->n_loosened);
    return 0;
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
    /* the history of a nondeterministic row; none where it is the row's own one run (so reads
     * the row back) */
    bool own = x->n_hist == 0 || (x->n_hist == 1 && x->hist[0] == r->ulp_mean);
    if (r->measured && !r->deterministic && !own) {
        ug_buf_printf(b, ",\"history\":[");
        for (size_t j = 0; j < x->n_hist; j++) {
            ug_buf_printf(b, "%s", j ? "," : "");
            ug_buf_json_num(b, x->hist[j]);
        }
        ug_buf_printf(b, "]");
    }

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
