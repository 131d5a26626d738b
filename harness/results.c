/* results.c - see results.h. */
#include "results.h"

#include <stdio.h>
#include <string.h>

#include "base/sys.h"
#include "ug.h"

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
    if (strcmp(row->op, "gemm") == 0 && !(row->m == row->gemm_n && row->gemm_n == row->k))
        snprintf(row->id, sizeof row->id, "%s %s %s %zux%zux%zu", c, k, d, row->m, row->gemm_n,
                 row->k);
    else
        snprintf(row->id, sizeof row->id, "%s %s %s %zu", c, k, d, row->n);
}

static void ug_row_worst_from(ug_row_worst *dst, const ug_worst *w)
{
    dst->set = w->set;
    if (!w->set) return;
    dst->trial = w->trial;
    dst->element = w->index;
    dst->got = w->got;
    dst->exact = w->exact.hi;
    dst->exact_lo = w->exact.lo;
    dst->ulp = w->err.ulp;
    dst->rel = w->err.rel;
    dst->abs = w->err.abs;
    dst->bound_ratio = w->ratio;
}

void ug_row_from_point(ug_row *row, const char *case_name, const ug_point_record *p,
                       const char *device, uint64_t seed)
{
    memset(row, 0, sizeof *row);
    snprintf(row->case_name, sizeof row->case_name, "%s", case_name);
    snprintf(row->point, sizeof row->point, "%s", p->name);
    row->status = p->status;
    row->failures = p->failures;
    row->seed = seed;
    const char *note = p->status == UG_ST_SKIP ? p->skip_reason
                       : p->status == UG_ST_XFAIL || p->status == UG_ST_XPASS ? p->xfail
                                                                              : NULL;
    const ug_result *r = p->result;
    if (r && r->failed_run && !note) note = r->run_error;
    if (note) snprintf(row->note, sizeof row->note, "%s", note);
    row->measured = r != NULL;
    snprintf(row->device, sizeof row->device, "%s", device);
    if (!r) {
        ug_row_make_id(row);
        return;
    }
    const ug_kernel *k = r->kernel;
    snprintf(row->kernel, sizeof row->kernel, "%s", k->id);
    snprintf(row->kernel_name, sizeof row->kernel_name, "%s", k->name);
    snprintf(row->variant, sizeof row->variant, "%s", k->variant);
    snprintf(row->backend, sizeof row->backend, "%s", ug_backend_name(k->backend));
    snprintf(row->op, sizeof row->op, "%s", ug_op_name(k->op));
    snprintf(row->bound_class, sizeof row->bound_class, "%s", ug_bound_class_name(k->bound));
    snprintf(row->dist, sizeof row->dist, "%s", r->dist);
    row->deterministic = !k->nondeterministic;
    row->n = r->n;
    if (k->op == UG_OP_GEMM) {
        row->m = r->gemm_m;
        row->gemm_n = r->gemm_n;
        row->k = r->gemm_k;
    }
    row->trials = r->trials;
    row->first_trial = r->first_trial;
    row->elements = r->elements;
    row->count = r->count;
    row->ulp_max = r->ulp_max;
    row->ulp_mean = r->ulp_mean;
    row->rel_max = r->rel_max;
    row->rel_mean = r->rel_mean;
    row->abs_max = r->abs_max;
    row->abs_err_sum = r->abs_err_sum;
    row->rel_err_sum = r->rel_err_sum;
    row->abs_err_sum_rd = r->abs_err_sum_rd;
    row->rel_err_sum_rd = r->rel_err_sum_rd;
    row->bound_ratio_max = r->bound_ratio_max;
    row->bound_ratio_mean = r->bound_ratio_mean;
    row->apriori_ratio_max = r->apriori_ratio_max;
    row->prob_ratio_max = r->prob_ratio_max;
    row->prob_lambda = r->prob_lambda;
    row->prob_failure = r->prob_failure;
    row->bound_vacuous = r->bound_vacuous;
    row->bound_unchecked = r->bound_unchecked;
    row->unwritten = r->unwritten;
    row->correctly_rounded = r->correctly_rounded;
    row->kappa_max = r->kappa_max;
    row->repeats = r->repeats;
    row->distinct_results = r->distinct_results;
    row->time_ms = r->time_ms;
    row->gbps = r->gbps;
    row->gflops = r->gflops;
    memcpy(row->ulp_hist, r->ulp_hist, sizeof row->ulp_hist);
    ug_row_worst_from(&row->worst_ulp, &r->worst_ulp);
    ug_row_worst_from(&row->worst_bound_ratio, &r->worst_ratio);
    row->method = k->method;
    row->n_extra = r->n_extra;
    memcpy(row->extra, r->extra, sizeof row->extra);
    ug_row_make_id(row);
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
