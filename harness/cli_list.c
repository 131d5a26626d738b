/* cli_list.c - `ulpgate list`: every case (unit) and every kernel with its variants. */
#include <stdio.h>

#include "cli.h"
#include "context.h"
#include "corpus.h"

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
    printf("kernels:\n");
    for (size_t i = 0; i < ug_kernel_count(); i++) {
        const ug_kernel *k = ug_kernel_at(i);
        printf("  %-34s %-4s %-4s %-9s %-13s %s\n", k->id, ug_op_name(k->op),
               ug_backend_name(k->backend), ug_bound_class_name(k->bound),
               k->nondeterministic ? "nondeterm." : "deterministic", k->doc);
    }
    return 0;
}
