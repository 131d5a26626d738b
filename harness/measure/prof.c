/* prof.c - wall seconds per phase and per kernel (prof.h).  Cost: one clock read per call. */
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/sys.h"
#include "harness/measure/prof.h"

typedef struct {
    char id[64];
    double s;
} ug_prof_kernel;

static double ug_prof_phase[UG_PH_COUNT];
static ug_prof_kernel *ug_prof_k;
static size_t ug_prof_nk, ug_prof_capk;

double ug_prof_now(void) { return ug_now_s(); }

void ug_prof_add(ug_phase ph, double t0, const char *kernel_id)
{
    double dt = ug_now_s() - t0;
    ug_prof_phase[ph] += dt;
    if (!kernel_id) return;
    size_t i = 0;
    while (i < ug_prof_nk && strcmp(ug_prof_k[i].id, kernel_id) != 0) i++;
    if (i == ug_prof_nk) {
        if (ug_prof_nk == ug_prof_capk) {
            ug_prof_capk = ug_prof_capk ? 2 * ug_prof_capk : 64;
            ug_prof_k = ug_xrealloc(ug_prof_k, ug_prof_capk * sizeof *ug_prof_k);
        }
        snprintf(ug_prof_k[i].id, sizeof ug_prof_k[i].id, "%s", kernel_id);
        ug_prof_k[i].s = 0;
        ug_prof_nk++;
    }
    ug_prof_k[i].s += dt;
}

static int ug_prof_by_time(const void *a, const void *b)
{
    double x = ((const ug_prof_kernel *)a)->s, y = ((const ug_prof_kernel *)b)->s;
    return x < y ? 1 : x > y ? -1 : 0;
}

void ug_prof_print(FILE *out, double total, int top)
{
    static const char *const names[UG_PH_COUNT] = {"inputs", "oracle", "kernels", "accounting"};
    double rest = total;
    fprintf(out, "# time: %.1f s:", total);
    for (int p = 0; p < UG_PH_COUNT; p++) {
        fprintf(out, " %s %.1f s,", names[p], ug_prof_phase[p]);
        rest -= ug_prof_phase[p];
    }
    fprintf(out, " the rest (case code, checks, reports) %.1f s\n", rest > 0 ? rest : 0);
    if (!ug_prof_nk) return;
    qsort(ug_prof_k, ug_prof_nk, sizeof *ug_prof_k, ug_prof_by_time);
    fprintf(out, "# slowest kernels (runs, timing reps and repeats):");
    /* a name is checked when its plugin loads; escaped here all the same: a newline in this
     * comment line would put a line of the name's choosing into the TAP stream */
    char safe[300];
    for (size_t i = 0; i < ug_prof_nk && i < (size_t)top; i++)
        fprintf(out, "%s %s %.2f s", i ? "," : "", ug_escape(ug_prof_k[i].id, safe, sizeof safe),
                ug_prof_k[i].s);
    fprintf(out, "\n");
}
