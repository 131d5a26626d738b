/*
 * selection.c - what a run's selection selected (selection.h): the sizes the cases offered,
 * and the usage errors of a selection that selects nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/parse.h"
#include "base/sys.h"
#include "kernels/plugin.h"
#include "harness/measure/run_limits.h"
#include "harness/run/selection.h"

/* ---- the loops cases use ------------------------------------------------------------------------ */

/* Every size a case offered to ug_n_selected during the run: what a --n that selects nothing
 * is told about. */
enum { UG_MAX_SEEN_SIZES = 512 };
static size_t ug_seen_sizes[UG_MAX_SEEN_SIZES];
static size_t ug_n_seen_sizes;

bool ug_n_selected(ug_t *t, size_t n)
{
    bool seen = false;
    for (size_t i = 0; i < ug_n_seen_sizes && !seen; i++) seen = ug_seen_sizes[i] == n;
    if (!seen && ug_n_seen_sizes < UG_MAX_SEEN_SIZES) ug_seen_sizes[ug_n_seen_sizes++] = n;
    return (t->opt->n == 0 || t->opt->n == n) && ug_limits_size_ok(n);
}

/* ---- usage errors: a selection that selects nothing, with the nearest names ------------------ */

typedef struct {
    const char *name;
    size_t dist;
} ug_near;

/* Keep the 3 candidates nearest to want (edit distance on the glob with its '*' and '?' taken
 * out), into buf as "a, b, c". */
static void ug_nearest(const char *want, const char *const *names, size_t count, char *buf, size_t len)
{
    char plain[128];
    size_t p = 0;
    for (const char *c = want; *c && p + 1 < sizeof plain; c++)
        if (*c != '*' && *c != '?') plain[p++] = *c;
    plain[p] = 0;
    ug_near best[3] = {{NULL, (size_t)-1}, {NULL, (size_t)-1}, {NULL, (size_t)-1}};
    for (size_t i = 0; i < count; i++) {
        size_t d = ug_edit_distance(plain, names[i]);
        for (int b = 0; b < 3; b++) {
            if (best[b].name && strcmp(best[b].name, names[i]) == 0) break;
            if (d < best[b].dist) {
                memmove(&best[b + 1], &best[b], (size_t)(2 - b) * sizeof best[0]);
                best[b] = (ug_near){names[i], d};
                break;
            }
        }
    }
    buf[0] = 0;
    for (int b = 0; b < 3 && best[b].name; b++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", b ? ", " : "", best[b].name);
}

int ug_no_kernel_error(const ug_options *opt)
{
    size_t count = ug_kernel_count();
    const char **names = ug_xcalloc(count, sizeof *names);
    for (size_t i = 0; i < count; i++) names[i] = ug_kernel_at(i)->id;
    char near[400];
    ug_nearest(opt->kernel, names, count, near, sizeof near);
    free(names);
    char safe[400];
    fprintf(stderr, "ulpgate: --kernel '%s' matches no kernel; nearest: %s (see 'ulpgate list')\n",
            ug_escape(opt->kernel, safe, sizeof safe), near);
    return 2;
}

int ug_no_case_error(const ug_options *opt, const ug_unit *units, size_t count)
{
    const char **names = ug_xcalloc(count, sizeof *names);
    for (size_t i = 0; i < count; i++) names[i] = units[i].name;
    char near[400];
    ug_nearest(opt->filter ? opt->filter : "*", names, count, near, sizeof near);
    free(names);
    char safe[400];
    fprintf(stderr, "ulpgate: no case matches --filter '%s'; nearest: %s (see 'ulpgate list')\n",
            ug_escape(opt->filter ? opt->filter : "*", safe, sizeof safe), near);
    return 2;
}

/* "N case(s) (a, b, c, ...)": how many of names[count] there are and the first few, into buf. */
static void ug_some_names(const char *what, const char *const *names, size_t count, char *buf,
                          size_t len)
{
    snprintf(buf, len, "%zu %s%s (", count, what, count == 1 ? "" : "s");
    for (size_t i = 0; i < count && i < 4; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", names[i]);
    snprintf(buf + strlen(buf), len - strlen(buf), "%s)", count > 4 ? ", ..." : "");
}

/* A --kernel whose kernels no selected case runs: nothing was measured, and a green "1 passed"
 * would say the kernel was tested.  The message names what the filter and the glob each
 * matched, so that the user sees which half to change. */
static int ug_kernel_selection_error(const ug_options *opt, const ug_unit *units, size_t count)
{
    const char **cases = ug_xcalloc(count + 1, sizeof *cases);
    const char **kernels = ug_xcalloc(ug_kernel_count() + 1, sizeof *kernels);
    size_t n_cases = 0, n_kernels = 0;
    for (size_t i = 0; i < count; i++)
        if (ug_unit_selected(opt, &units[i])) cases[n_cases++] = units[i].name;
    for (size_t i = 0; i < ug_kernel_count(); i++)
        if (ug_kernel_matches(ug_kernel_at(i), opt->kernel)) kernels[n_kernels++] = ug_kernel_at(i)->id;
    char c[400], k[400], f[200], g[200];
    ug_some_names("case", cases, n_cases, c, sizeof c);
    ug_some_names("kernel", kernels, n_kernels, k, sizeof k);
    /* the cases ran them, and they declined: say so, not "no case runs them" */
    const ug_kernel *un[4];
    const char *why[4];
    size_t calls[4], n_un = ug_kernels_unsupported_everywhere(un, why, calls, 4);
    for (size_t i = 0; i < n_un && i < 4; i++)
        if (ug_kernel_matches(un[i], opt->kernel)) {
            char w[240];
            fprintf(stderr, "ulpgate: --kernel '%s': %s was unsupported on every one of its %zu "
                            "calls (%s): nothing was measured\n",
                    ug_escape(opt->kernel, g, sizeof g), un[i]->id, calls[i],
                    ug_escape(why[i], w, sizeof w));
            free(cases);
            free(kernels);
            return 2;
        }
    fprintf(stderr, "ulpgate: --filter '%s' selects %s and --kernel '%s' matches %s, but no "
                    "selected case runs a matched kernel: nothing was measured (see 'ulpgate "
                    "list')\n", ug_escape(opt->filter ? opt->filter : "*", f, sizeof f), c,
            ug_escape(opt->kernel, g, sizeof g), k);
    free(cases);
    free(kernels);
    return 2;
}

/* Nothing was measured and no check evaluated, though the selection was not narrowed by
 * --kernel, --format, --n or --trial (those have messages of their own): say what was selected
 * and why nothing of it ran. */
static int ug_nothing_measured_error(const ug_options *opt, const ug_results *res,
                                     const ug_unit *units, size_t count)
{
    const char **cases = ug_xcalloc(count + 1, sizeof *cases);
    size_t n_cases = 0, skipped = 0;
    for (size_t i = 0; i < count; i++)
        if (ug_unit_selected(opt, &units[i])) cases[n_cases++] = units[i].name;
    for (size_t i = 0; i < res->count; i++) skipped += res->rows[i].status == UG_ST_SKIP;
    char c[400], f[200], how[600] = "";
    ug_some_names("case", cases, n_cases, c, sizeof c);
    const ug_kernel *un[4];
    const char *why[4];
    size_t calls[4], n_un = ug_kernels_unsupported_everywhere(un, why, calls, 4);
    if (n_un) {
        char w[240];
        snprintf(how, sizeof how, "; %s was unsupported on every one of its %zu calls (%s)",
                 un[0]->id, calls[0], ug_escape(why[0], w, sizeof w));
    } else if (!ug_registry_has_builtin()) {
        snprintf(how, sizeof how, "; --no-builtin leaves the plugins' %zu kernel%s, and no "
                 "selected case runs one", ug_kernel_count(), ug_kernel_count() == 1 ? "" : "s");
    }
    fprintf(stderr, "ulpgate: --filter '%s' selects %s: %zu test point%s, %zu skipped, and no "
                    "kernel was measured and no check evaluated%s: nothing was measured (see "
                    "'ulpgate list')\n",
            ug_escape(opt->filter ? opt->filter : "*", f, sizeof f), c, res->count,
            res->count == 1 ? "" : "s", skipped, how);
    free(cases);
    return 2;
}

/* After the run: a --n, --trial or --kernel that selected no measurement is a usage error
 * (units[count]: every unit, for the --kernel message). */
int ug_selection_error(const ug_options *opt, const ug_results *res, const ug_unit *units,
                       size_t count)
{
    size_t measured = 0, gpu_skips = 0;
    for (size_t i = 0; i < res->count; i++) {
        measured += res->rows[i].measured && res->rows[i].status != UG_ST_SKIP;
        /* skips the machine or a reduced run makes: the run is what it can be here */
        gpu_skips += res->rows[i].status == UG_ST_SKIP &&
                     (strstr(res->rows[i].note, "no CUDA device") ||
                      strstr(res->rows[i].note, "no CUDA kernel loaded") ||
                      strstr(res->rows[i].note, "ULPGATE_MAX_ELEMENTS"));
    }
    /* a case that runs kernels itself and compares bits (gpu_tcmodel/bitwise) measured too */
    if (measured || gpu_skips || ug_direct_kernel_runs()) return 0;
    if (opt->n) {
        char sizes[400] = "";
        for (size_t i = 0; i < ug_n_seen_sizes && strlen(sizes) < sizeof sizes - 24; i++)
            snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%zu", i ? " " : "",
                     ug_seen_sizes[i]);
        fprintf(stderr, "ulpgate: --n %zu: no selected case measures that size; its sizes: %s\n",
                opt->n, sizes[0] ? sizes : "(none)");
        return 2;
    }
    if (opt->trial >= 0) {
        fprintf(stderr, "ulpgate: --trial %ld: beyond every selected case's trials (--trials N "
                        "raises the count)\n", opt->trial);
        return 2;
    }
    /* a shard may hold none of the cases that run the kernel: merge judges the whole; a failed
     * point (a malformed corpus file) already says what went wrong */
    if (opt->kernel && !opt->shard_n && ug_results_status(res) == 0)
        return ug_kernel_selection_error(opt, units, count);
    if (opt->format_set && !opt->shard_n && ug_results_status(res) == 0) {
        fprintf(stderr, "ulpgate: --format %s: no selected case runs a kernel with that format "
                        "(see the formats column of 'ulpgate list')\n", ug_fmt_name(opt->format));
        return 2;
    }
    /* Any other selection that measured nothing and checked nothing (--no-builtin with cases
     * that run none of the plugins' kernels, kernels unsupported on every call, cases whose
     * kernels are all left out): every point "passed" having tested nothing. */
    if (!opt->shard_n && ug_results_status(res) == 0 && ug_checks_evaluated() == 0)
        return ug_nothing_measured_error(opt, res, units, count);
    return 0;
}

