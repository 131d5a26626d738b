/*
 * fastmath_main.c - the compensated CPU kernels, compiled with -O3 -ffast-math, must still
 * compensate.  Under -fassociative-math a compiler may rewrite (t - s) - y as 0 and turn Kahan
 * into plain summation; kernels/cpu/reduce.c guards against it (UG_OPAQUE).  This program is
 * built from the same kernel sources with those flags (meson test 'fastmath') and checks inputs
 * on which compensation is the whole difference.  TAP on stdout.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "kernel.h"

/* The families as this program compiled them (-DUG_BUILD_VARIANT=fastmath). */
extern const ug_family ug_family_cpu_reduce_fastmath, ug_family_cpu_dot_fastmath;

/* Run the kernel called name, as this program compiled it. */
static void ug_fm_run(const char *name, ug_call *c)
{
    const ug_family *fams[] = {&ug_family_cpu_reduce_fastmath, &ug_family_cpu_dot_fastmath};
    for (size_t f = 0; f < 2; f++)
        for (size_t i = 0; i < fams[f]->count; i++)
            if (strcmp(fams[f]->kernels[i].name, name) == 0) {
                fams[f]->run(&fams[f]->kernels[i], c);
                return;
            }
    printf("Bail out! kernel %s not found\n", name);
    exit(2);
}

static int ug_fm_index, ug_fm_failed;

static void ug_fm_check(int ok, const char *what, float got, float want)
{
    printf("%sok %d - %s\n", ok ? "" : "not ", ++ug_fm_index, what);
    if (!ok) {
        printf("# got %a, want %a\n", (double)got, (double)want);
        ug_fm_failed = 1;
    }
}

int main(void)
{
    enum { N = 1 << 16 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), out = 0;
    if (!x || !y) return 2;
    /* 1 then 65535 copies of 2^-24: serial keeps 1 (every half-ulp tie rounds to even), the
     * exact sum 1 + 65535 * 2^-24 = 1.00390619... rounds to 0x1.01p+0 in binary32. */
    x[0] = 1.0f;
    for (int i = 1; i < N; i++) x[i] = 0x1p-24f;
    for (int i = 0; i < N; i++) y[i] = 1.0f;
    const float want = 0x1.01p+0f;
    ug_call c = {.op = UG_OP_SUM, .n = N, .x = x, .y = y, .out = &out};
    printf("TAP version 13\n");
    /* Under -ffast-math the compiler may vectorise (reassociate) plain serial summation, so its
     * result is not asserted here; shown for information. */
    ug_fm_run("serial_f32", &c);
    printf("# serial_f32 under -O3 -ffast-math: %a (in strict order: 0x1p+0)\n", (double)out);
    ug_fm_run("kahan_f32", &c);
    ug_fm_check(out == want, "kahan_f32 under -O3 -ffast-math still compensates", out, want);
    ug_fm_run("neumaier_f32", &c);
    ug_fm_check(out == want, "neumaier_f32 under -O3 -ffast-math still compensates", out, want);
    c.op = UG_OP_DOT;
    ug_fm_run("dot_kahan_f32", &c);
    ug_fm_check(out == want, "dot_kahan_f32 under -O3 -ffast-math still compensates", out, want);
    /* Neumaier's signature case: big + 1 - big */
    float z[3] = {0x1p30f, 1.0f, -0x1p30f};
    c.op = UG_OP_SUM;
    c.n = 3;
    c.x = z;
    ug_fm_run("neumaier_f32", &c);
    ug_fm_check(out == 1.0f, "neumaier_f32 recovers 1 from 2^30 + 1 - 2^30", out, 1.0f);
    printf("1..%d\n", ug_fm_index);
    free(x);
    free(y);
    return ug_fm_failed;
}
