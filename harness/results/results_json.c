/*
 * results_json.c - read a results.json (harness/run/report_write.c writes it) back into a ug_results list,
 * for compare, merge, the gate and reports.  Every field report.c writes is read here.
 */
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "base/parse.h"
#include "harness/results/results_json.h"

static void ug_copy_str(char *dst, size_t len, const ug_json *row, const char *key)
{
    snprintf(dst, len, "%s", ug_json_str_of(ug_json_get(row, key), ""));
}

static double ug_num(const ug_json *row, const char *key)
{
    return ug_json_num_of(ug_json_get(row, key), 0);
}

static void ug_read_worst(ug_row_worst *w, const ug_json *o)
{
    if (!o) return;
    w->set = true;
    w->trial = (int)ug_num(o, "trial");
    w->element = (size_t)ug_num(o, "element");
    double v;
    if (ug_parse_double(ug_json_str_of(ug_json_get(o, "got"), ""), &v)) w->got = v;
    if (ug_parse_double(ug_json_str_of(ug_json_get(o, "exact"), ""), &v)) w->exact = v;
    w->exact_lo = ug_num(o, "exact_lo");
    w->ulp = ug_num(o, "ulp");
    w->rel = ug_num(o, "rel");
    w->abs = ug_num(o, "abs");
    w->bound_ratio = ug_num(o, "bound_ratio");
}

static ug_status ug_status_of(const char *s)
{
    static const ug_status all[] = {UG_ST_PASS, UG_ST_FAIL, UG_ST_SKIP, UG_ST_XFAIL, UG_ST_XPASS};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, ug_status_name(all[i])) == 0) return all[i];
    return UG_ST_FAIL;
}

int ug_row_read(const ug_json *o, ug_row *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!o || o->type != UG_JSON_OBJ || !ug_json_get(o, "id") || !ug_json_get(o, "case")) {
        snprintf(err, errlen, "a result row without \"id\" and \"case\"");
        return -1;
    }
    ug_copy_str(r->id, sizeof r->id, o, "id");
    ug_copy_str(r->case_name, sizeof r->case_name, o, "case");
    ug_copy_str(r->point, sizeof r->point, o, "point");
    r->status = ug_status_of(ug_json_str_of(ug_json_get(o, "status"), "fail"));
    r->failures = (int)ug_num(o, "failures");
    ug_copy_str(r->note, sizeof r->note, o, "note");
    uint64_t seed = 0;
    if (ug_parse_u64(ug_json_str_of(ug_json_get(o, "seed"), ""), &seed)) r->seed = seed;
    ug_copy_str(r->device, sizeof r->device, o, "device");
    r->measured = ug_json_bool_of(ug_json_get(o, "measured"), false);
    if (!r->measured) return 0;
    ug_copy_str(r->kernel, sizeof r->kernel, o, "kernel");
    ug_copy_str(r->kernel_name, sizeof r->kernel_name, o, "kernel_name");
    ug_copy_str(r->variant, sizeof r->variant, o, "variant");
    ug_copy_str(r->backend, sizeof r->backend, o, "backend");
    ug_copy_str(r->op, sizeof r->op, o, "op");
    ug_copy_str(r->dist, sizeof r->dist, o, "dist");
    ug_copy_str(r->bound_class, sizeof r->bound_class, o, "bound_class");
    r->n = (size_t)ug_num(o, "n");
    r->m = (size_t)ug_num(o, "m");
    r->gemm_n = (size_t)ug_num(o, "gemm_n");
    r->k = (size_t)ug_num(o, "k");
    r->deterministic = ug_json_bool_of(ug_json_get(o, "deterministic"), true);
    r->trials = (int)ug_num(o, "trials");
    r->first_trial = (int)ug_num(o, "first_trial");
    r->elements = (size_t)ug_num(o, "elements");
    r->count = (size_t)ug_num(o, "count");
    r->ulp_max = ug_num(o, "ulp_max");
    r->ulp_mean = ug_num(o, "ulp_mean");
    r->rel_max = ug_num(o, "rel_max");
    r->rel_mean = ug_num(o, "rel_mean");
    r->abs_max = ug_num(o, "abs_max");
    r->abs_err_sum = ug_num(o, "abs_err_sum");
    r->rel_err_sum = ug_num(o, "rel_err_sum");
    r->abs_err_sum_rd = ug_num(o, "abs_err_sum_rd");
    r->rel_err_sum_rd = ug_num(o, "rel_err_sum_rd");
    r->bound_ratio_max = ug_num(o, "bound_ratio_max");
    r->bound_ratio_mean = ug_num(o, "bound_ratio_mean");
    r->apriori_ratio_max = ug_num(o, "apriori_ratio_max");
    r->prob_ratio_max = ug_num(o, "prob_ratio_max");
    r->prob_lambda = ug_num(o, "prob_lambda");
    r->prob_failure = ug_num(o, "prob_failure");
    r->bound_vacuous = (size_t)ug_num(o, "bound_vacuous");
    r->bound_unchecked = (size_t)ug_num(o, "bound_unchecked");
    r->unwritten = (size_t)ug_num(o, "unwritten");
    r->correctly_rounded = (size_t)ug_num(o, "correctly_rounded");
    r->kappa_max = ug_num(o, "kappa_max");
    r->repeats = (int)ug_num(o, "repeats");
    r->distinct_results = (int)ug_num(o, "distinct_results");
    r->time_ms = ug_num(o, "time_ms");
    r->gbps = ug_num(o, "gbps");
    r->gflops = ug_num(o, "gflops");
    const ug_json *h = ug_json_get(o, "ulp_hist");
    for (size_t i = 0; h && h->type == UG_JSON_ARR && i < h->count && i < 16; i++)
        r->ulp_hist[i] = (uint64_t)ug_json_num_of(h->items[i], 0);
    ug_read_worst(&r->worst_ulp, ug_json_get(o, "worst_ulp"));
    ug_read_worst(&r->worst_bound_ratio, ug_json_get(o, "worst_bound_ratio"));
    r->method = (int)ug_num(o, "method");
    const ug_json *x = ug_json_get(o, "extra");
    for (size_t i = 0; x && x->type == UG_JSON_OBJ && i < x->count && i < 16; i++) {
        snprintf(r->extra[i].name, sizeof r->extra[i].name, "%s", x->items[i]->key);
        r->extra[i].value = ug_json_num_of(x->items[i], 0);
        r->n_extra++;
    }
    return 0;
}

ug_json *ug_results_read(const char *path, ug_results *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    ug_json *root = ug_json_parse_file(path, err, errlen);
    if (!root) return NULL;
    const ug_json *rows = ug_json_get(root, "results");
    if (!ug_json_get(root, "meta") || !rows || rows->type != UG_JSON_ARR) {
        snprintf(err, errlen, "%s: not a results.json (no \"meta\" object or \"results\" array)", path);
        ug_json_free(root);
        return NULL;
    }
    const ug_json *units = ug_json_get(root, "units");
    for (size_t i = 0; units && units->type == UG_JSON_ARR && i < units->count; i++)
        ug_results_add_unit(res, ug_json_str_of(ug_json_get(units->items[i], "name"), ""),
                            ug_json_num_of(ug_json_get(units->items[i], "seconds"), 0));
    for (size_t i = 0; i < rows->count; i++) {
        ug_row r;
        char why[128];
        if (ug_row_read(rows->items[i], &r, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: result %zu: %s", path, i, why);
            ug_results_free(res);
            ug_json_free(root);
            return NULL;
        }
        ug_results_add(res, &r);
    }
    return root;
}
