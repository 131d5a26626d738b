/*
 * tctable.c - the published models, reports/tensorcore/params.tsv (tcprobe.h): a tab-separated
 * file, '#' comments, a header line, then gpu in out block neab carry align final in_subn
 * out_subn source.  Read strictly: a bad field is an error naming the file, the line and the
 * field; every row is a model tcmodel.h computes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "oracle/tc/tcprobe.h"

enum { UG_TC_COLS = 11 };

/* An integer field, all of s; false if not one. */
static bool ug_tc_int(const char *s, int *v)
{
    char *end = NULL;
    long x = strtol(s, &end, 10);
    if (!*s || *end || x < -1000 || x > 1000) return false;
    *v = (int)x;
    return true;
}

/* One data line (tabs replaced by NULs in f[]) into row; NULL or what is wrong. */
static const char *ug_tc_row(char **f, ug_tc_published *row)
{
    int v[6];
    memset(row, 0, sizeof *row);
    if (strlen(f[0]) == 0 || strlen(f[0]) >= sizeof row->gpu) return "gpu: empty or too long";
    strcpy(row->gpu, f[0]);
    row->p.in_fmt = ug_fmt_parse(f[1]);
    row->p.out_fmt = ug_fmt_parse(f[2]);
    if (row->p.in_fmt == UG_FMT_COUNT) return "in: not a format name";
    if (row->p.out_fmt == UG_FMT_COUNT) return "out: not a format name";
    if (!ug_tc_int(f[3], &v[0]) || !ug_tc_int(f[4], &v[1]) || !ug_tc_int(f[5], &v[2]) ||
        !ug_tc_int(f[8], &v[3]) || !ug_tc_int(f[9], &v[4]))
        return "block, neab, carry, in_subn, out_subn: integers";
    if (v[2] < 0 || v[2] > 1 || v[3] < 0 || v[3] > 1 || v[4] < 0 || v[4] > 1)
        return "carry, in_subn, out_subn: 0 or 1";
    int al = ug_tc_rmode_parse(f[6]), fi = ug_tc_rmode_parse(f[7]);
    if (al < 0 || fi < 0) return "align, final: rz or rne";
    row->p.block = v[0], row->p.neab = v[1], row->p.carry_bit = v[2];
    row->p.align = (ug_tc_rmode)al, row->p.final = (ug_tc_rmode)fi;
    row->p.in_subnormals = v[3], row->p.out_subnormals = v[4];
    const char *bad = ug_tc_params_invalid(&row->p);
    if (bad) return bad;
    snprintf(row->source, sizeof row->source, "%s", f[10]);
    return NULL;
}

int ug_tc_table_load(const char *path, ug_tc_published *rows, int max, char *err, size_t errlen)
{
    char def[4096], line[1024];
    if (!path) {
        if (!ug_data_path("reports/tensorcore/params.tsv", def, sizeof def)) {
            snprintf(err, errlen, "no data folder: cannot find reports/tensorcore/params.tsv "
                     "(--data-dir DIR)");
            return -1;
        }
        path = def;
    }
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    int n = 0, lineno = 0, rc = 0;
    bool header = false;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        size_t len = strcspn(line, "\r\n");
        if (line[len] == 0 && !feof(fp)) {
            snprintf(err, errlen, "%s:%d: line too long", path, lineno);
            rc = -1;
            break;
        }
        line[len] = 0;
        if (line[0] == '#' || line[0] == 0) continue;
        char *f[UG_TC_COLS];
        int cols = 0;
        for (char *s = line; s; cols++) { /* every field counted, the first UG_TC_COLS kept */
            char *tab = strchr(s, '\t');
            if (cols < UG_TC_COLS) f[cols] = s;
            if (tab) *tab = 0;
            s = tab ? tab + 1 : NULL;
        }
        if (!header) { /* the first line that is not a comment names the columns */
            header = true;
            if (cols != UG_TC_COLS || strcmp(f[0], "gpu") != 0 || strcmp(f[10], "source") != 0) {
                snprintf(err, errlen, "%s:%d: the header must be gpu in out block neab carry "
                         "align final in_subn out_subn source (tab-separated)", path, lineno);
                rc = -1;
                break;
            }
            continue;
        }
        if (cols != UG_TC_COLS) {
            snprintf(err, errlen, "%s:%d: %d fields, want %d (tab-separated)", path, lineno, cols,
                     UG_TC_COLS);
            rc = -1;
            break;
        }
        if (n >= max) {
            snprintf(err, errlen, "%s:%d: more than %d rows", path, lineno, max);
            rc = -1;
            break;
        }
        const char *bad = ug_tc_row(f, &rows[n]);
        if (bad) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, bad);
            rc = -1;
            break;
        }
        n++;
    }
    fclose(fp);
    if (rc == 0 && !header) {
        snprintf(err, errlen, "%s: no header line", path);
        rc = -1;
    }
    return rc < 0 ? -1 : n;
}

const ug_tc_published *ug_tc_table_find(const ug_tc_published *rows, int n, const char *gpu,
                                        ug_fmt in_fmt, ug_fmt out_fmt)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].gpu, gpu) == 0 && rows[i].p.in_fmt == in_fmt &&
            rows[i].p.out_fmt == out_fmt)
            return &rows[i];
    return NULL;
}

const char *ug_tc_table_gpu_of(const ug_tc_published *rows, int n, const char *device_name)
{
    for (int i = 0; i < n; i++)
        if (device_name && strstr(device_name, rows[i].gpu)) return rows[i].gpu;
    return NULL;
}

/* A row as the bound's model: b = block, t = max(neab, 0), p = the accumulator's bits. */
static ug_block_model ug_tc_row_model(const ug_tc_params *p)
{
    return (ug_block_model){p->in_fmt, p->out_fmt, p->block, p->neab > 0 ? p->neab : 0,
                            ug_tc_acc_precision(p)};
}

int ug_tc_block_models(const ug_tc_published *rows, int n, const char *device_name,
                       ug_block_model *out, int max, const char **gpu)
{
    const char *key = ug_tc_table_gpu_of(rows, n, device_name);
    int count = 0;
    *gpu = key;
    for (int i = 0; i < n; i++) {
        ug_block_model m = ug_tc_row_model(&rows[i].p);
        int have = -1;
        for (int j = 0; j < count; j++)
            if (out[j].op_fmt == m.op_fmt && out[j].acc_fmt == m.acc_fmt) have = j;
        bool mine = key && strcmp(rows[i].gpu, key) == 0;
        if (have < 0) {
            if (count >= max) continue;
            have = count++;
        } else if (!mine) { /* the device's own row stays; else the largest c */
            bool own = false;
            for (int r = 0; r < n && key; r++)
                own |= strcmp(rows[r].gpu, key) == 0 && rows[r].p.in_fmt == m.op_fmt &&
                       rows[r].p.out_fmt == m.acc_fmt;
            if (own || ug_block_model_c(&m) <= ug_block_model_c(&out[have])) continue;
        }
        out[have] = m;
    }
    return count;
}
