/* cli_list.c - `ulpgate list`: every case (unit), build variant, number format, block-scaled
 * format, operation and kernel; and `ulpgate devices`. */
#include <stdio.h>

#include "base/blockfmt.h"

#include "harness/cli/cli.h"
#include "kernels/device.h"
#include "kernels/quantize.h"
#include "harness/run/context.h"
#include "harness/inputs/corpus.h"
#include "ops/op.h"

int ug_cmd_list(int argc, char **argv)
{
    if (argc > 1) return ug_usage_error("list takes no arguments (got '%s')", argv[1]);
    size_t count;
    ug_options none = {0};
    char err[256];
    const ug_unit *units = ug_units_with_corpus(&none, &count, err, sizeof err);
    if (!units) units = ug_units(&count);
    printf("cases:\n");
    for (size_t i = 0; i < count; i++) {
        const ug_case *c = units[i].c;
        if (units[i].corpus) { /* a corpus file: where it is */
            printf("  %-40s [corpus] (%s)\n", units[i].name, ug_src_path(units[i].corpus->path));
            continue;
        }
        printf("  %-40s %s%s%s(%s:%d)\n", units[i].name, c->flags & UG_CASE_GPU ? "[gpu] " : "",
               c->flags & UG_CASE_SLOW ? "[slow] " : "",
               c->flags & UG_CASE_SHOULD_FAIL ? "[canary: must fail] " : "", ug_src_path(c->file),
               c->line);
    }
    printf("variants (a kernel's identity is name@variant):\n");
    for (size_t i = 0; ug_variant_at(i); i++) {
        const ug_variant_info *v = ug_variant_at(i);
        printf("  %-10s %-4s %s\n", v->name, v->backend, v->flags);
    }
    printf("formats (bits, precision, exponents, largest finite, overflow):\n");
    for (int f = 0; f <= UG_FMT_COUNT + UG_FMT_REGISTERED_MAX; f++) {
        const ug_format *F = ug_format_of((ug_fmt)f);
        if (!F) continue; /* UG_FMT_COUNT itself: "none"; the registered rows follow it */
        printf("  %-6s %2d bits  p %-2d  %5d..%-5d max %-12.6g %s\n", F->name, F->bits, F->p,
               F->emin, F->emax, F->max,
               F->nan == UG_NAN_NONE ? "no inf, no NaN: saturates"
               : F->inf              ? "inf, NaN"
                                     : "no inf, one NaN a sign");
    }
    printf("block-scaled formats (elements x scale per block, the recipe's scale rule):\n");
    for (size_t i = 0; i < ug_blockfmt_count(); i++) {
        const ug_blockfmt *B = ug_blockfmt_at(i);
        char shape[32];
        snprintf(shape, sizeof shape, "%dx%d", B->block_rows, B->block_cols);
        printf("  %-12s %-5s x %-4s per %-7s %-12s rule %-5s %s\n", B->name, ug_fmt_name(B->elem),
               ug_scale_kind_name(B->scale), shape, B->tensor_scale ? "+ f32/tensor" : "",
               ug_scale_rule_name(B->rule), B->doc ? B->doc : "");
    }
    printf("operations (ops/: inputs, sizes, what it computes):\n");
    for (size_t i = 0; ug_op_at(i); i++) {
        const ug_op_desc *d = ug_op_at(i);
        char roles[32], dims[64];
        size_t len = 0; /* every input's role: "x", "x w", "Q K V" */
        roles[0] = 0;
        for (int r = 0; r < d->shape->arity && r < UG_MAX_INPUTS && len < sizeof roles; r++)
            len += (size_t)snprintf(roles + len, sizeof roles - len, "%s%s", r ? " " : "",
                                    d->shape->roles[r]);
        printf("  %-10s %-5s %-6s %s\n", d->shape->name, roles,
               ug_opshape_dims_text(d->shape, dims, sizeof dims), d->doc ? d->doc : "");
    }
    printf("kernels (formats: inputs>accumulator>output):\n");
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        char fm[64];
        ug_kernel_formats(k, fm, sizeof fm);
        printf("  %-34s %-4s %-4s %-16s %-9s %-13s %s\n", k->id, ug_op_name(k->op),
               ug_backend_name(k->backend), fm, ug_bound_class_name(k->bound),
               k->nondeterministic ? "nondeterm." : ug_kernel_machine(k) ? "cpu-model" : "deterministic",
               k->doc ? k->doc : "");
    }
    /* the evidence once per family and variant: what makes their bits depend on the CPU */
    bool head = false;
    const ug_family *last = NULL;
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        const char *why = ug_kernel_machine(k);
        if (!why || k->family == last) continue;
        last = k->family;
        if (!head)
            printf("cpu-model: bits that depend on the CPU model, gated bit for bit only against "
                   "a run on the same model (docs/gate.md):\n");
        head = true;
        printf("  %s@%s: %s\n", k->family->name, k->variant, why);
    }
    printf("quantizers (kernels/quantize.h: block format, the scale rule it claims; graded by "
           "the quantize/ cases):\n");
    for (size_t i = 0; ug_quantizer_at(i); i++) {
        const ug_quantizer *q = ug_quantizer_at(i);
        printf("  %-26s %-4s %-12s %-5s %s%s\n", q->name, q->cuda ? "cuda" : "cpu", q->blockfmt,
               ug_scale_rule_name(q->rule), q->should_fail ? "[canary: must fail] " : "",
               q->doc);
    }
    return 0;
}

int ug_cmd_devices(int argc, char **argv)
{
    if (argc > 1) return ug_usage_error("devices takes no arguments (got '%s')", argv[1]);
    int count = ug_device_count();
    printf("%d\n", count);
    if (count == 0) { /* say why: no CUDA build, no driver, or the CUDA runtime's error */
        char why[256] = "";
        if (ug_device_probe(why, sizeof why)) snprintf(why, sizeof why, "%s", "a device answers the probe but none is counted");
        printf("no CUDA device: %s\n", why[0] ? why : "the CUDA runtime gave no reason");
    }
    for (int i = 0; i < count; i++) {
        char why[256];
        ug_gpu_info gi;
        if (i == 0 && ug_device_info(&gi) == 0)
            printf("%d %s (sm_%d%d, %d SMs)\n", i, gi.name, gi.cc_major, gi.cc_minor, gi.sm_count);
        else
            printf("%d\n", i);
        (void)why;
    }
    return 0;
}
