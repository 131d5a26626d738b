/*
 * run.c - selection and the run loop: the selected units in name order, each run in a fresh
 * context; every closed test point goes to the collector, which appends its row to the results
 * list and prints its TAP line.  The caller writes reports from the list.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/device.h"
#include "context.h"
#include "run.h"
#include "tap.h"
#include "ug_config.h"

/* ---- the GPU, as cases see it ----------------------------------------------------------------- */

static int ug_gpu_state = -1; /* -1 unknown, 0 no, 1 yes */
static char ug_gpu_why[256];

bool ug_gpu_available(void)
{
    if (ug_gpu_state < 0) ug_gpu_state = ug_device_probe(ug_gpu_why, sizeof ug_gpu_why) ? 1 : 0;
    return ug_gpu_state == 1;
}

/* ---- the loops cases use ------------------------------------------------------------------------ */

bool ug_n_selected(ug_t *t, size_t n) { return t->opt->n == 0 || t->opt->n == n; }

const ug_kernel *ug_next_kernel(ug_t *t, size_t *it, ug_op op, int backend, const char *glob)
{
    for (const ug_kernel *k; (k = ug_kernel_at(*it));) {
        ++*it;
        if (k->op != op) continue;
        if (backend != UG_ANY_BACKEND && (int)k->backend != backend) continue;
        if (glob && !ug_kernel_matches(k, glob)) continue;
        if (t->opt->kernel && !ug_kernel_matches(k, t->opt->kernel)) continue;
        return k;
    }
    return NULL;
}

/* ---- the collector ------------------------------------------------------------------------------ */

typedef struct {
    const ug_options *opt;
    ug_results *res;
    FILE *out;
    int tap_index;
    char gpu_name[256]; /* the device of CUDA rows, looked up once */
} ug_collector;

static void ug_collect(void *ctx, const ug_t *t, const ug_point_record *p)
{
    ug_collector *col = ctx;
    const char *device = "cpu";
    if (p->result && p->result->kernel->backend == UG_CUDA) {
        if (!col->gpu_name[0]) {
            ug_gpu_info gi;
            snprintf(col->gpu_name, sizeof col->gpu_name, "%s",
                     ug_device_info(&gi) == 0 ? gi.name : "no GPU");
        }
        device = col->gpu_name;
    }
    ug_row row;
    ug_row_from_point(&row, t->unit->name, p, device, col->opt->seed);
    ug_results_add(col->res, &row);
    ug_tap_point(col->out, ++col->tap_index, p, &row);
    if (col->opt->progress) fprintf(stderr, "\r\033[K[%d] %s", col->tap_index, p->name);
}

/* ---- the loop ---------------------------------------------------------------------------------- */

static void ug_case_cleanup(ug_t *t)
{
    for (size_t i = 0; i < t->n_results; i++) ug_result_free(t->results[i]);
    for (size_t i = 0; i < t->n_inputs; i++) ug_input_release(t->inputs[i]);
    free(t->results);
    free(t->inputs);
    ug_buf_free(&t->pt.diag);
}

/* One unit in a fresh context; an UG_ASSERT or ug_skip leaves its body through the longjmp. */
static void ug_run_unit(const ug_options *opt, const ug_unit *u, ug_collector *col)
{
    ug_t t;
    memset(&t, 0, sizeof t);
    t.unit = u;
    t.c = u->c;
    t.opt = opt;
    t.sink = ug_collect;
    t.sink_ctx = col;
    if (setjmp(t.jb) == 0) u->c->fn(&t);
    /* a case that measured nothing still gets its own test point */
    if (!t.pt.open && t.points == 0) ug_point_open(&t, u->name, NULL);
    ug_point_close(&t);
    ug_case_cleanup(&t);
}

int ug_run(const ug_options *opt, ug_results *res, FILE *out)
{
    size_t count, n_sel = 0, n_gpu = 0;
    const ug_unit *units = ug_units(&count);
    for (size_t i = 0; i < count; i++)
        if (ug_unit_selected(opt, &units[i])) {
            n_sel++;
            n_gpu += (units[i].c->flags & UG_CASE_GPU) != 0;
        }
    if (n_sel == 0) {
        fprintf(stderr, "ulpgate: no case matches --filter '%s' (see 'ulpgate list')\n",
                opt->filter ? opt->filter : "*");
        return 2;
    }
    char comment[256];
    snprintf(comment, sizeof comment, "ulpgate %s, seed 0x%llx, oracle %s", UG_VERSION,
             (unsigned long long)opt->seed, ug_oracle_name(opt->oracle));
    ug_tap_begin(out, comment);
    if (n_gpu == n_sel && !ug_gpu_available()) {
        fprintf(out, "1..0 # SKIP no CUDA device (%s)\n", ug_gpu_why);
        return 0;
    }
    ug_collector col = {.opt = opt, .res = res, .out = out};
    for (size_t i = 0; i < count; i++) {
        const ug_unit *u = &units[i];
        if (!ug_unit_selected(opt, u)) continue;
        if ((u->c->flags & UG_CASE_GPU) && !ug_gpu_available()) {
            char why[300];
            snprintf(why, sizeof why, "no CUDA device (%s)", ug_gpu_why);
            ug_point_record rec = {.name = u->name, .status = UG_ST_SKIP, .skip_reason = why, .diag = ""};
            ug_t t;
            memset(&t, 0, sizeof t);
            t.unit = u;
            ug_collect(&col, &t, &rec);
            continue;
        }
        ug_run_unit(opt, u, &col);
    }
    if (opt->progress) fprintf(stderr, "\r\033[K");
    ug_tap_plan(out, col.tap_index);
    char summary[200];
    ug_results_summary(res, summary, sizeof summary);
    fprintf(out, "# %s\n", summary);
    if (!opt->tap) fprintf(out, "%s\n", summary);
    fflush(out);
    return ug_results_status(res);
}

bool ug_run_used_gpu(void) { return ug_gpu_state == 1; }
