/* xfail_file.c - the expected failures of --xfail FILE (harness/inputs/xfail_file.h). */
#include "harness/inputs/xfail_file.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"

typedef struct {
    char *case_glob, *kernel_glob, *reason;
} ug_xfail_entry;
static ug_xfail_entry *ug_xf;
static size_t ug_n_xf;

/* One pass over the file; an entry without a reason is refused (a reason is what the report
 * shows beside the expected failure). */
int ug_xfail_file_load(const char *path)
{
    char why[128];
    FILE *f = ug_fopen_bounded(path, why, sizeof why);
    if (!f) {
        fprintf(stderr, "ulpgate: --xfail %s: %s\n", path, why);
        return 2;
    }
    char line[2048];
    int no = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        no++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "ulpgate: %s:%d: line longer than %zu characters\n", path, no, sizeof line - 2);
            rc = 2;
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        char *p = line + strspn(line, " \t");
        if (!*p || *p == '#') continue;
        char *save = NULL, *cg = strtok_r(p, " \t", &save), *kg = strtok_r(NULL, " \t", &save);
        char *reason = kg ? save + strspn(save, " \t") : NULL;
        if (!kg || !reason || !*reason) {
            fprintf(stderr, "ulpgate: %s:%d: expected 'CASE_GLOB KERNEL_GLOB REASON'\n", path, no);
            rc = 2;
            break;
        }
        ug_xf = ug_xrealloc(ug_xf, (ug_n_xf + 1) * sizeof *ug_xf);
        ug_xf[ug_n_xf++] = (ug_xfail_entry){ug_xstrdup(cg), ug_xstrdup(kg), ug_xstrdup(reason)};
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "ulpgate: --xfail %s: read error\n", path);
        rc = 2;
    }
    if (f != stdin) fclose(f); /* "-": stdin */
    return rc;
}

const char *ug_xfail_file_match(const char *case_name, const ug_kernel *k)
{
    for (size_t i = 0; i < ug_n_xf; i++) {
        if (fnmatch(ug_xf[i].case_glob, case_name, 0) != 0) continue;
        if (k ? ug_kernel_matches(k, ug_xf[i].kernel_glob) : strcmp(ug_xf[i].kernel_glob, "*") == 0)
            return ug_xf[i].reason;
    }
    return NULL;
}
