/*
 * pages.c - summary.md and index.html beside a results.json (see pages.h): reading the run and
 * the baseline it is compared with, then writing both pages atomically.
 */
#include "harness/report/pages.h"
#include "harness/report/report_parts.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/results/results_json.h"

/* The baseline to compare with: as asked, or this device's committed one if there is one. */
static int ug_pages_base(ug_pages_in *in, const char *baseline)
{
    char path[1024], err[1400];
    if (baseline && strcmp(baseline, "none") == 0) {
        snprintf(in->base_note, sizeof in->base_note, "no comparison asked for (--baseline none)");
        return 0;
    }
    if (baseline) {
        snprintf(path, sizeof path, "%s", baseline);
    } else {
        ug_baseline_path(ug_baseline_default_dir(), in->device, path, sizeof path);
        if (access(path, F_OK) != 0) {
            snprintf(in->base_note, sizeof in->base_note,
                     "no baseline for %s (%s): create it with `ulpgate baseline update --reason "
                     "\"initial baseline\"`",
                     in->device, path);
            return 0;
        }
    }
    if (ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, &in->base, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: report: %s\n", err);
        return -1;
    }
    in->have_base = true;
    ug_compare(&in->base, &in->now, NULL, &in->cmp);
    return 0;
}

static int ug_pages_write(const char *dir, const char *name, const ug_buf *text)
{
    char path[1200], err[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (ug_write_atomic(path, ug_buf_str(text), text->len, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: report: %s\n", err);
        return -1;
    }
    fprintf(stderr, "ulpgate: report written to %s\n", path);
    return 0;
}

int ug_report_pages(const char *dir, const char *baseline)
{
    char path[1200], err[1400];
    ug_pages_in in;
    memset(&in, 0, sizeof in);
    in.dir = dir;
    ug_buf md = {0}, html = {0};
    int rc = -1;
    snprintf(path, sizeof path, "%s/results.json", dir);
    in.root = ug_results_read(path, &in.all, err, sizeof err);
    if (!in.root) {
        fprintf(stderr, "ulpgate: report: %s\n", err);
        return -1;
    }
    in.meta = ug_json_get(in.root, "meta");
    ug_device_key(in.meta, in.device, sizeof in.device);
    if (ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, &in.now, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: report: %s\n", err);
        goto done;
    }
    if (ug_pages_base(&in, baseline) != 0) goto done;
    ug_report_md(&in, &md);
    ug_report_html(&in, &html);
    if (ug_pages_write(dir, "summary.md", &md) != 0 ||
        ug_pages_write(dir, "index.html", &html) != 0)
        goto done;
    rc = 0;
done:
    ug_buf_free(&md);
    ug_buf_free(&html);
    if (in.have_base) {
        ug_comparison_free(&in.cmp);
        ug_baseline_free(&in.base);
    }
    ug_baseline_free(&in.now);
    ug_results_free(&in.all);
    ug_json_free(in.root);
    return rc;
}
