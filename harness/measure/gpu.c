/* gpu.c - the GPU as cases see it: whether one can be used (kernels/device.h probes it once),
 * and the tensor-core bound's parameters of that GPU. */
#include <stdio.h>

#include "kernels/device.h"
#include "harness/measure/mctx.h"
#include "oracle/tc/tcprobe.h"

static int ug_gpu_state = -1; /* -1 unknown, 0 no, 1 yes */
static char ug_gpu_reason[256];

/* The block_fma classes take the published model of the detected GPU (kernels/bounds.c says
 * how b, t, p follow from a row; reports/tensorcore/params.tsv), or for a GPU the table does
 * not name, the most pessimistic published row of each format pair.  Without the table (no
 * data folder) the envelope stays: every published model is inside it. */
static void ug_gpu_block_models(void)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    ug_block_model m[UG_TC_TABLE_MAX];
    char err[512], src[300];
    ug_gpu_info gi;
    int n = ug_tc_table_load(NULL, rows, UG_TC_TABLE_MAX, err, sizeof err);
    if (n <= 0 || ug_device_info(&gi) != 0) return;
    const char *gpu = NULL;
    int count = ug_tc_block_models(rows, n, gi.name, m, UG_TC_TABLE_MAX, &gpu);
    if (gpu)
        snprintf(src, sizeof src, "the published %s rows (reports/tensorcore/params.tsv)", gpu);
    else
        snprintf(src, sizeof src, "the most pessimistic published rows (no row names %.100s: "
                 "reports/tensorcore/params.tsv)", gi.name);
    ug_block_models_set(m, count, src);
}

bool ug_gpu_available(void)
{
    if (ug_gpu_state < 0) {
        ug_gpu_state = ug_device_probe(ug_gpu_reason, sizeof ug_gpu_reason) ? 1 : 0;
        if (ug_gpu_state == 1) ug_gpu_block_models();
    }
    return ug_gpu_state == 1;
}

const char *ug_gpu_why(void)
{
    ug_gpu_available();
    return ug_gpu_reason;
}

bool ug_run_used_gpu(void) { return ug_gpu_state == 1; }
