/* abnormal.c - kernels that end abnormally (tests/ends_test.sh), one per -DEND=N:
 *   1 exit(0) inside the kernel; 2 abort(); 3 a stack overflow (unbounded recursion);
 *   4 a heap overrun (the next chunk's header written over, then freed: glibc aborts);
 *   5 a kernel that sleeps 60 s (a run to kill). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ulpgate/ulpgate.h>

static volatile int depth_sink;
static int recurse(int d)
{
    volatile char pad[4096];
    pad[0] = (char)d;
    depth_sink = pad[0];
    return recurse(d + 1) + pad[d % 4096];
}

static int ab_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    float s = 0;
    for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
#if END == 1
    exit(0);
#elif END == 2
    abort();
#elif END == 3
    s += (float)recurse(0);
#elif END == 4
    char *a = malloc(24), *b = malloc(24);
    memset(a, 0x41, 64); /* 40 bytes past a: b's chunk header */
    free(b);
    free(a);
#elif END == 5
    struct timespec t = {60, 0};
    nanosleep(&t, NULL);
#endif
    ug_out_f32(c)[0] = s;
    return 0;
}

UG_PLUGIN({.name = "ab_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = ab_sum},)
