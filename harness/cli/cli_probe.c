/*
 * cli_probe.c - `ulpgate probe tensor-core`: the black-box accumulator probe (oracle/tc/
 * tcprobe.h) run through GEMM kernels, each measured figure printed beside the published value
 * for the GPU (reports/tensorcore/params.tsv).
 *
 *   ulpgate probe tensor-core [--kernel GLOB] [--gpu-model GPU] [--table FILE]
 *   ulpgate probe tensor-core --model GPU [--format F] [--out-format F] [--gpu-model GPU]
 *
 * Kernels: every GEMM kernel of the registry whose operand format (op_fmt) is f16, bf16, tf32,
 * e4m3 or e5m2 and whose name matches --kernel (default: lt_bf16 and lt_f16); GPU kernels
 * need a device (without one: a skip line, exit 0).
 * --model GPU probes the model itself built from GPU's published row (no device needed): the
 * probe's own check.  The published side is --gpu-model, else the table's GPU named in the
 * device's name, else the --model GPU.  Exit 0: every figure measured equals the published
 * one (or there is nothing to compare), 1: a figure differs or could not be measured, 2: usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/opshape.h"
#include "harness/cli/cli.h"
#include "harness/run/guard.h"
#include "kernels/device.h"
#include "kernels/kernel.h"
#include "oracle/tc/tcprobe.h"

static const char ug_probe_usage[] =
    "usage: ulpgate probe tensor-core [--kernel GLOB] [--gpu-model GPU] [--table FILE]\n"
    "       ulpgate probe tensor-core --model GPU [--format F] [--out-format F] [--gpu-model GPU]\n"
    "  --kernel GLOB     GEMM kernels to probe (op_fmt f16 bf16 tf32 e4m3 e5m2); default\n"
    "                    lt_bf16 and lt_f16 (cuBLASLt's bf16 and fp16 GEMMs)\n"
    "  --model GPU       probe the model built from GPU's published row instead of a kernel\n"
    "  --format F        with --model: the input format (default bf16)\n"
    "  --out-format F    with --model: the output format, f32 (default) or f16\n"
    "  --gpu-model GPU   compare with GPU's published model (default: the device's)\n"
    "  --table FILE      the published table (default: reports/tensorcore/params.tsv of the data\n"
    "                    folder)\n";

/* Probe one black box and print its table; 0 all equal (or no published row), 1 not. */
static int ug_probe_one(const char *what, ug_tc_dot_fn dot, void *ctx, ug_fmt in, ug_fmt out,
                        const ug_tc_published *rows, int nrows, const char *gpu)
{
    ug_tc_measured m;
    char err[512] = "", line[512];
    const ug_tc_published *pub = gpu ? ug_tc_table_find(rows, nrows, gpu, in, out) : NULL;
    printf("probe tensor-core: %s (%s -> %s); published: %s%s%s\n", what, ug_fmt_name(in),
           ug_fmt_name(out), pub ? pub->gpu : "none", pub ? ", " : "", pub ? pub->source : "");
    if (gpu && !pub)
        printf("  (the table has no %s row for %s -> %s)\n", gpu, ug_fmt_name(in), ug_fmt_name(out));
    if (ug_tc_probe(dot, ctx, in, out, &m, err, sizeof err) != 0) {
        printf("  probe failed after %d runs: %s\n", m.runs, err);
        return 1;
    }
    printf("  %-38s %-9s %-9s %-12s %s\n", "figure", "measured", "published", "verdict", "how");
    int measured = 0, equal = 0, na = 0;
    for (int f = 0; f < UG_TCF_COUNT; f++) {
        equal += ug_tc_figure_line((ug_tc_figure)f, &m, pub ? &pub->p : NULL, line, sizeof line);
        measured += m.has[f], na += m.na[f];
        printf("  %s\n", line);
    }
    printf("  %d of %d figures measured (%d n/a for these formats), %d agree with the published "
           "model (%d runs of K = 128)\n", measured, UG_TCF_COUNT, na, equal, m.runs);
    return pub && equal != UG_TCF_COUNT ? 1 : 0;
}

int ug_cmd_probe(int argc, char **argv)
{
    const char *kglob = NULL, *model = NULL, *gpu = NULL, *table = NULL;
    ug_fmt in = UG_BF16, out = UG_F32;
    if (argc < 2 || strcmp(argv[1], "tensor-core") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
            return fputs(ug_probe_usage, stdout), 0;
        fprintf(stderr, "ulpgate: probe: say what to probe: tensor-core\n%s", ug_probe_usage);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return fputs(ug_probe_usage, stdout), 0;
        const char **dst = strcmp(a, "--kernel") == 0 ? &kglob : strcmp(a, "--model") == 0 ? &model
                         : strcmp(a, "--gpu-model") == 0 ? &gpu : strcmp(a, "--table") == 0 ? &table
                                                                                               : NULL;
        bool fmt = strcmp(a, "--format") == 0 || strcmp(a, "--out-format") == 0;
        if (!dst && !fmt) return ug_usage_error("probe: unknown option '%s'", a);
        if (!v || !*v) return ug_usage_error("probe: %s needs a value", a);
        i++;
        if (dst) {
            *dst = v;
            continue;
        }
        ug_fmt f = ug_fmt_parse(v);
        if (strcmp(a, "--format") == 0) {
            if (f != UG_F16 && f != UG_BF16 && f != UG_TF32 && f != UG_E4M3 && f != UG_E5M2)
                return ug_usage_error("probe: --format '%s': f16, bf16, tf32, e4m3 or e5m2", v);
            in = f;
        } else {
            if (f != UG_F32 && f != UG_F16) return ug_usage_error("probe: --out-format '%s': f32 or f16", v);
            out = f;
        }
    }
    if (model && kglob) return ug_usage_error("probe: --model and --kernel%s exclude each other", "");
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    char err[512];
    int nrows = ug_tc_table_load(table, rows, UG_TC_TABLE_MAX, err, sizeof err);
    if (nrows < 0) return fprintf(stderr, "ulpgate: probe: %s\n", err), 2;
    if (gpu && !ug_tc_table_gpu_of(rows, nrows, gpu))
        return ug_usage_error("probe: --gpu-model '%s': not a GPU of the published table", gpu);
    /* a kernel's crash, abort, exit() or hang ends the probe naming it (exit 3, or 124), never
     * a silent end or a status of its own */
    fflush(stdout);
    if (ug_guard_contain("probe", ug_guard_call_limit()) != 0) return 2;

    if (model) {
        if (!ug_tc_table_gpu_of(rows, nrows, model))
            return ug_usage_error("probe: --model '%s': not a GPU of the published table", model);
        const ug_tc_published *row = ug_tc_table_find(rows, nrows, model, in, out);
        if (!row) {
            fprintf(stderr, "ulpgate: probe: --model %s: the table has no %s -> %s row\n", model,
                    ug_fmt_name(in), ug_fmt_name(out));
            return 2;
        }
        char what[128];
        snprintf(what, sizeof what, "the model of %s", model);
        return ug_probe_one(what, ug_tc_dot_kernel, (void *)ug_tc_model_kernel(&row->p), in, out,
                            rows, nrows, gpu ? gpu : model);
    }

    /* cuBLASLt's bf16 and fp16 GEMMs: the library GEMMs that run the k = 16 instruction the
     * published models describe (cuBLAS's SGEMM FAST_16BF/16F fuse 8 products on the H100) */
    const char *defaults[] = {"lt_bf16", "lt_f16"};
    int rc = 0, found = 0;
    bool device_checked = false, have_device = false;
    char why[256] = "", gpu_name[256] = "";
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        bool sel = kglob ? ug_kernel_matches(k, kglob)
                         : (strcmp(k->name, defaults[0]) == 0 || strcmp(k->name, defaults[1]) == 0);
        if (!sel || strcmp(k->variant, "default") != 0) continue;
        if (!ug_tc_kernel_probeable(k)) {
            if (kglob && ug_opshape_of(k->op) && ug_opshape_of(k->op)->layout == UG_LAYOUT_MATMUL)
                /* a GEMM it cannot probe */
                printf("probe tensor-core: %s: not a GEMM on f16/bf16/tf32/fp8 operands with an "
                       "output holding its accumulator (f32, or its own f16): skipped\n", k->id);
            continue;
        }
        found++;
        if (k->backend == UG_CUDA && !device_checked) {
            device_checked = true;
            have_device = ug_device_probe(why, sizeof why) == 1;
            ug_gpu_info gi;
            if (have_device && ug_device_info(&gi) == 0) snprintf(gpu_name, sizeof gpu_name, "%s", gi.name);
        }
        if (k->backend == UG_CUDA && !have_device) {
            printf("probe tensor-core: %s: SKIP no CUDA device (%s)\n", k->id, why);
            continue;
        }
        const char *pub = gpu ? gpu : ug_tc_table_gpu_of(rows, nrows, gpu_name);
        char what[512];
        snprintf(what, sizeof what, "%s on %s", k->id, k->backend == UG_CUDA ? gpu_name : "the CPU");
        rc |= ug_probe_one(what, ug_tc_dot_kernel, (void *)k, k->op_fmt, ug_tc_kernel_acc(k),
                           rows, nrows, pub);
    }
    if (!found && !kglob) { /* a build without CUDA has no cuBLAS kernels: nothing to probe */
        ug_device_probe(why, sizeof why);
        printf("probe tensor-core: SKIP no CUDA kernels (%s); `--model GPU` probes a published "
               "model on the CPU\n", why);
        return 0;
    }
    if (!found) {
        fprintf(stderr, "ulpgate: probe: no GEMM kernel on tensor-core formats matches '%s'\n",
                kglob ? kglob : "the defaults");
        return 2;
    }
    return rc;
}
