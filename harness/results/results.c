/* results.c - see results.h. */
#include "harness/results/results.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/sys.h"
#include "ops/op.h"

const char *ug_status_name(ug_status s)
{
    switch (s) {
    case UG_ST_PASS: return "pass";
    case UG_ST_FAIL: return "fail";
    case UG_ST_SKIP: return "skip";
    case UG_ST_XFAIL: return "xfail";
    case UG_ST_XPASS: return "xpass";
    }
    return "?";
}

void ug_results_add(ug_results *res, const ug_row *row)
{
    if (res->count == res->cap) {
        res->cap = res->cap ? 2 * res->cap : 64;
        res->rows = ug_xrealloc(res->rows, res->cap * sizeof *res->rows);
    }
    res->rows[res->count++] = *row;
    switch (row->status) {
    case UG_ST_PASS: res->passed++; break;
    case UG_ST_FAIL: res->failed++; break;
    case UG_ST_SKIP: res->skipped++; break;
    case UG_ST_XFAIL: res->xfailed++; break;
    case UG_ST_XPASS: res->xpassed++; break;
    }
}

void ug_results_add_unit(ug_results *res, const char *name, double seconds)
{
    if (res->n_units == res->cap_units) {
        res->cap_units = res->cap_units ? 2 * res->cap_units : 64;
        res->units = ug_xrealloc(res->units, res->cap_units * sizeof *res->units);
    }
    ug_unit_time *u = &res->units[res->n_units++];
    snprintf(u->name, sizeof u->name, "%s", name);
    u->seconds = seconds;
}

void ug_results_append(ug_results *dst, const ug_results *src)
{
    for (size_t i = 0; i < src->count; i++) ug_results_add(dst, &src->rows[i]);
    for (size_t i = 0; i < src->n_units; i++)
        ug_results_add_unit(dst, src->units[i].name, src->units[i].seconds);
}

void ug_results_free(ug_results *res)
{
    free(res->units);
    free(res->rows);
    memset(res, 0, sizeof *res);
}

const ug_row *ug_results_find(const ug_results *res, const char *id)
{
    for (size_t i = 0; i < res->count; i++)
        if (strcmp(res->rows[i].id, id) == 0) return &res->rows[i];
    return NULL;
}

int ug_results_status(const ug_results *res) { return res->failed || res->xpassed ? 1 : 0; }

/* A part of an id: spaces would make it ambiguous, so they become '_'. */
static void ug_id_part(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src);
    for (char *p = dst; *p; p++)
        if (*p == ' ') *p = '_';
}

/* The shape text of a row of an operation of more than three dims, or of batch or head axes
 * (attention: "LxSxdxdv", then " b2 h4 kv2" where they are not one), into buf; false for the
 * others (vectors, GEMMs: their ids and points keep their own, older, form).  compact: "N"
 * where every dim is N, as a point's name has it (ug_opshape_text). */
static bool ug_row_long_shape(const ug_row *r, bool compact, char *buf, size_t len)
{
    const ug_op_desc *d = ug_op_find(r->op);
    const ug_shape *s = &r->shape;
    bool axes = s->batch > 1 || s->heads > 1 || s->kv_heads > 1;
    if (!d || (ug_opshape_ndims(d->shape) <= 3 && !axes)) return false;
    ug_opshape_text(d->shape, s, compact, buf, len);
    if (axes && !compact) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " b%zu h%zu kv%zu", s->batch ? s->batch : 1,
                 s->heads ? s->heads : 1, s->kv_heads ? s->kv_heads : (s->heads ? s->heads : 1));
    }
    return true;
}

void ug_row_make_id(ug_row *row)
{
    char c[128], k[64], d[160], p[256];
    ug_id_part(c, sizeof c, row->case_name);
    if (!row->measured) {
        ug_id_part(p, sizeof p, row->point);
        snprintf(row->id, sizeof row->id, "%s %s", c, p);
        return;
    }
    ug_id_part(k, sizeof k, row->kernel);
    ug_id_part(d, sizeof d, row->dist);
    char ls[96], lp[96];
    if (ug_row_long_shape(row, false, ls, sizeof ls)) {
        ug_id_part(lp, sizeof lp, ls);
        snprintf(row->id, sizeof row->id, "%s %s %s %s", c, k, d, lp);
    } else if (ug_row_shaped(row) && !(row->shape.dim[0] == row->shape.dim[1] && row->shape.dim[1] == row->shape.dim[2]))
        snprintf(row->id, sizeof row->id, "%s %s %s %zux%zux%zu", c, k, d, row->shape.dim[0], row->shape.dim[1],
                 row->shape.dim[2]);
    else
        snprintf(row->id, sizeof row->id, "%s %s %s %zu", c, k, d, row->shape.dim[0]);
}


/* The TAP name a measured row's point has when the run names it the usual way: "<case>
 * <kernel> n=<n>" (n=MxNxK for a rectangular three-size shape), into buf.  A compact
 * results.json leaves "point" out where it equals this (results_write.c), and the reader makes
 * it back; a point named otherwise is written. */
void ug_row_point_derived(const ug_row *r, char *buf, size_t len)
{
    char ls[96];
    if (ug_row_long_shape(r, true, ls, sizeof ls)) /* as measure.c's ug_measure_open names it */
        snprintf(buf, len, "%s %s n=%s", r->case_name, r->kernel, ls);
    else if (ug_row_shaped(r) && !(r->shape.dim[0] == r->shape.dim[1] && r->shape.dim[1] == r->shape.dim[2]))
        snprintf(buf, len, "%s %s n=%zux%zux%zu", r->case_name, r->kernel, r->shape.dim[0], r->shape.dim[1], r->shape.dim[2]);
    else
        snprintf(buf, len, "%s %s n=%zu", r->case_name, r->kernel, r->shape.dim[0]);
}

/* The speed figure a measured row has when the run computed it from its time (as
 * harness/measure/measure.c does): the operation's bytes or flops of the row's shape over time_ms,
 * into *v.  false when it cannot be made (an operation this binary does not know, no time, or
 * a field that is neither gbps nor gflops).  A compact results.json leaves gbps / gflops out
 * where this gives the same bits, and the reader makes them back. */
bool ug_row_rate_derived(const ug_row *r, const ug_field *f, double *v)
{
    const ug_op_desc *d = ug_op_find(r->op);
    if (!d || !r->measured || !(r->time_ms > 0)) return false;
    ug_shape sh = {{r->shape.dim[0], r->shape.dim[0], r->shape.dim[0]}, 0};
    if (ug_row_shaped(r)) sh = (ug_shape){{r->shape.dim[0], r->shape.dim[1], r->shape.dim[2]}, 0};
    char ls[96];
    if (ug_row_long_shape(r, false, ls, sizeof ls)) sh = r->shape; /* every dim, batch, heads */
    double s = r->time_ms * 1e-3;
    if (f->offset == offsetof(ug_row, gbps) && d->shape->rate == UG_RATE_GBPS)
        *v = ug_opshape_bytes(d->shape, &sh) / s / 1e9;
    else if (f->offset == offsetof(ug_row, gflops) && d->shape->rate == UG_RATE_GFLOPS)
        *v = ug_opshape_flops(d->shape, &sh) / s / 1e9;
    else
        return false;
    return true;
}

bool ug_row_same_inputs(const ug_row *a, const ug_row *b)
{
    return a && b && a->measured && b->measured && strcmp(a->case_name, b->case_name) == 0 &&
           strcmp(a->dist, b->dist) == 0 && ug_shape_equal(&a->shape, &b->shape);
}

/* The operation of a row, by its name: NULL for one this binary does not know (a row read
 * from a file written with an operation registered elsewhere). */
static const ug_op_desc *ug_row_op(const ug_row *r) { return ug_op_find(r->op); }

bool ug_row_shaped(const ug_row *r)
{
    const ug_op_desc *d = ug_row_op(r);
    return d && ug_opshape_ndims(d->shape) > 1;
}

size_t ug_row_terms(const ug_row *r)
{
    const ug_op_desc *d = ug_row_op(r);
    if (!d) return r->shape.dim[0];
    ug_shape s = ug_opshape_ndims(d->shape) > 1 ? (ug_shape){{r->shape.dim[0], r->shape.dim[1], r->shape.dim[2]}, 1} : ug_shape_square(r->shape.dim[0]);
    return ug_op_terms(d, &s);
}

void ug_results_summary(const ug_results *res, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%d passed, %d failed, %d skipped", res->passed, res->failed,
                     res->skipped);
    if (res->xfailed && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ", %d failed as expected", res->xfailed);
    if (res->xpassed && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", %d passed unexpectedly", res->xpassed);
}

bool ug_dist_has_kappa(const char *dist)
{
    return strncmp(dist, "gensum(", 7) == 0 || strncmp(dist, "gendot(", 7) == 0;
}

void ug_case_suite(const char *case_name, char *suite, size_t len)
{
    snprintf(suite, len, "%s", case_name);
    char *slash = strchr(suite, '/');
    if (slash) *slash = 0;
}

/* ---- the schema (row_fields.h) ---------------------------------------------------------------- */

#define UG_FIELD_INFO(type_, member_, len_, key_, unit_, res_, bl_, flags_, doc_)                  \
    {.type = UG_FT_##type_, .member = #member_, .key = key_, .unit = unit_,                         \
     .doc = doc_, .offset = offsetof(ug_row, member_), .len = len_, .res = UG_W_##res_,           \
     .bl = UG_W_##bl_, .flags = flags_},
const ug_field ug_row_fields[] = {UG_ROW_FIELDS(UG_FIELD_INFO)};
const size_t ug_n_row_fields = sizeof ug_row_fields / sizeof ug_row_fields[0];

/* Whether the field's value is not 0 / "" (UG_W_NONZERO). */
static bool ug_field_nonzero(const ug_field *f, const ug_row *r)
{
    const char *p = (const char *)r + f->offset;
    switch (f->type) {
    case UG_FT_STR: return p[0] != 0;
    case UG_FT_BOOL: return *(const bool *)p;
    case UG_FT_SEED: return *(const uint64_t *)p != 0;
    case UG_FT_STATUS: case UG_FT_PASSED: return true;
    default: return ug_row_num(r, f) != 0;
    }
}

bool ug_field_in(const ug_field *f, const ug_row *r, bool baseline)
{
    bool gemm = ug_row_shaped(r);
    switch (baseline ? f->bl : f->res) {
    case UG_W_NEVER: return false;
    case UG_W_ALL: return true;
    case UG_W_MEAS: return r->measured;
    case UG_W_CHECK: return !r->measured;
    case UG_W_GEMM: return r->measured && gemm;
    case UG_W_NOGEMM: return r->measured && !gemm;
    case UG_W_NONZERO: return ug_field_nonzero(f, r);
    case UG_W_REP: return r->repeats != 0;
    }
    return false;
}

double ug_row_num(const ug_row *r, const ug_field *f)
{
    const char *p = (const char *)r + f->offset;
    switch (f->type) {
    case UG_FT_NUM: return *(const double *)p;
    case UG_FT_COUNT: return (double)*(const size_t *)p;
    case UG_FT_INT: return *(const int *)p;
    default: return 0;
    }
}
