/*
 * sorted_kernels.c - the seven-methods post's sorted kernels (kernels/cpu/reduce.c:
 * sorted_abs_serial, method 3, and sorted_fold, method 7) sum in exactly the order their
 * comparators define, ties included: by |x| and then by value (-x before x), and by value (-0
 * and +0 equal, kept in input order: a stable sort).  The reference here sorts with qsort and
 * those comparators written out (glibc's qsort is a stable merge sort) and sums as the post
 * does; the inputs are mostly ties (a few magnitudes of both signs, signed zeros, subnormals),
 * where the order of equal keys changes the sum: 2^-24 - 1 + 1 is 2^-24, 2^-24 + 1 - 1 is 0.
 * cases/order.c checks the same kernels bit for bit on random data, which has no such ties.
 * The times of both sides are printed (information: no timed threshold).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/opshape.h"
#include "base/sys.h"
#include "harness/run/ug.h"

static int ug_ref_cmp_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int ug_ref_cmp_abs(const void *a, const void *b)
{
    float x = fabsf(*(const float *)a), y = fabsf(*(const float *)b);
    if (x != y) return (x > y) - (x < y);
    return ug_ref_cmp_value(a, b);
}

/* The post's method 3 (serial over the sorted copy) and method 7 (fold it). */
static float ug_ref_sum(const float *x, size_t n, bool fold)
{
    float *s = malloc((n ? n : 1) * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, fold ? ug_ref_cmp_value : ug_ref_cmp_abs);
    float a = 0.0f;
    if (!fold) {
        for (size_t i = 0; i < n; i++) a += s[i];
    } else if (n) {
        for (size_t m = n; m != 1; m = (m + 1) / 2)
            for (size_t i = 0; i < m / 2; i++) s[i] += s[m - 1 - i];
        a = s[0];
    }
    free(s);
    return a;
}

/* Inputs of few distinct magnitudes, both signs, so that most keys tie. */
static float ug_tie_value(uint64_t *state)
{
    static const float mags[] = {0.0f, 1.0f, 0x1p-24f, 0x1p-149f, 3.0f, 0x1p24f, 0x1.8p-3f};
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    uint32_t r = (uint32_t)(*state >> 33);
    float v = mags[r % (sizeof mags / sizeof mags[0])];
    return (r >> 8) & 1 ? -v : v;
}

UG_CASE(sorted_kernels, ties_in_comparator_order)
{
    static const char *const names[] = {"sorted_abs_serial", "sorted_fold"};
    static const size_t sizes[] = {2, 3, 4, 5, 8, 17, 64, 1000, 65536};
    enum { TRIALS = 40 };
    for (int k = 0; k < 2; k++) {
        const ug_kernel *kern = ug_kernel_find(names[k]);
        UG_ASSERT_MSG(kern != NULL, "%s is not registered", names[k]);
        ug_point(t, "%s: the comparators' order, ties included", kern->id);
        double t_kernel = 0, t_ref = 0;
        int compared = 0;
        uint64_t state = 0x5eed + (uint64_t)k;
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            size_t n = sizes[z];
            float *x = malloc(n * sizeof *x);
            UG_ASSERT(x != NULL);
            for (int tr = 0; tr < TRIALS; tr++) {
                for (size_t i = 0; i < n; i++) x[i] = ug_tie_value(&state);
                if (tr == 0 && n == 3) { /* the example above, in the order that needs the sort */
                    x[0] = 1.0f;
                    x[1] = -1.0f;
                    x[2] = 0x1p-24f;
                }
                float got = NAN;
                ug_call c;
                memset(&c, 0, sizeof c);
                c.op = UG_OP_SUM;
                c.shape.dim[0] = n;
                ug_call_set_f32(&c, x, NULL, &got);
                double t0 = ug_now_s();
                int rc = ug_kernel_run(kern, &c);
                t_kernel += ug_now_s() - t0;
                UG_ASSERT_MSG(rc == 0, "%s refused n=%zu: %s", kern->id, n, c.err);
                t0 = ug_now_s();
                float want = ug_ref_sum(x, n, k == 1);
                t_ref += ug_now_s() - t0;
                UG_EXPECT_MSG(memcmp(&got, &want, sizeof got) == 0,
                              "%s, n=%zu, trial %d: got %a, the comparators' order gives %a",
                              kern->id, n, tr, (double)got, (double)want);
                compared++;
            }
            free(x);
        }
        ug_note(t, "%s: %d inputs equal bit for bit; %.3f s in the kernel, %.3f s in qsort's "
                   "reference", kern->id, compared, t_kernel, t_ref);
    }
}
