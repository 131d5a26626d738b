/*
 * cli_merge.c - `ulpgate merge OUT.json IN.json... [--junit FILE] [--parts]`: its arguments;
 * the merge itself is harness/scale/merge.c.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/cli/cli.h"
#include "harness/scale/merge.h"

int ug_cmd_merge(int argc, char **argv)
{
    const char *out = NULL, *junit = NULL;
    const char **in = ug_xcalloc((size_t)argc, sizeof *in);
    int count = 0;
    bool parts = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--junit") == 0 && i + 1 < argc)
            junit = argv[++i];
        else if (strcmp(argv[i], "--parts") == 0)
            parts = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return free(in), ug_usage_error("merge: unknown option '%s'", argv[i]);
        else if (!out)
            out = argv[i];
        else
            in[count++] = argv[i];
    }
    if (!out || count == 0) return free(in), ug_usage_error("%s", "merge needs OUT.json and at least one IN.json");
    int rc = ug_merge(out, junit, in, count, parts, NULL);
    free(in);
    return rc;
}
