/* fastmath.c - a plugin built with -ffast-math (tests/plugin_test.sh).  gcc up to 12 links
 * crtfastmath.o into such a shared object, whose constructor sets FTZ and DAZ when it is loaded;
 * gcc 13 and later no longer do for -shared.  So that the test does not depend on the compiler
 * of the machine it runs on, this file does what crtfastmath.o does, in a constructor of its own
 * (x86-64: MXCSR bits 15 and 6).  Its kernel is a plain serial sum: what it does is beside the
 * point, its loading is the fault. */
#include <ulpgate/ulpgate.h>

#if defined(__x86_64__) || defined(__i386__)
__attribute__((constructor)) static void set_ftz_daz(void)
{
    unsigned csr;
    __asm__ volatile("stmxcsr %0" : "=m"(csr));
    csr |= 0x8040u; /* FTZ (bit 15) and DAZ (bit 6), as crtfastmath.o's set_fast_math */
    __asm__ volatile("ldmxcsr %0" : : "m"(csr));
}
#endif

static int fm_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    float s = 0;
    for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
    ug_out_f32(c)[0] = s;
    return 0;
}

UG_PLUGIN({.name = "fm_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = fm_sum},)
