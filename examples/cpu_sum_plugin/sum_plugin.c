/*
 * sum_plugin.c - a kernel of your own, tested by ulpgate with no test code: a binary32 sum in
 * four partial sums, declared with UG_PLUGIN and loaded by `ulpgate run --plugin`.
 *
 * Build with -DMY_SUM_BROKEN to get the same kernel with a bug (it drops the last element):
 * ulpgate fails it, with the assertion and the line that reruns the failing point.
 */
#include <ulpgate/ulpgate.h>

/* Most additions any term passes through: ceil(n/4) - 1 in its partial sum, then two more
 * ((p0 + p1) + (p2 + p3)); n/4 + 2 is an upper bound of that for every n (an empty partial is
 * -0.0f, and adding -0 is exact). */
static size_t my_sum_depth(size_t n) { return n / 4 + 2; }

static int my_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    size_t n = ug_dim(c, 0);
#ifdef MY_SUM_BROKEN
    n = n > 0 ? n - 1 : 0; /* the bug: the last element is never added */
#endif
    /* partial j sums x[j], x[j+4], ...; it starts from its first term, not from 0.0f: a sum of
     * negative zeros is -0, and +0 + -0 would make it +0 */
    float p[4] = {-0.0f, -0.0f, -0.0f, -0.0f};
    for (size_t i = 0; i < n; i++) p[i % 4] = i < 4 ? x[i] : p[i % 4] + x[i];
    ug_out_f32(c)[0] = (p[0] + p[1]) + (p[2] + p[3]);
    return 0;
}

UG_PLUGIN(
    {.name = "my_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = my_sum,
     .depth = my_sum_depth, .doc = "four partial sums, added at the end"},
)
