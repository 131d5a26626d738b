/*
 * reduce.c - CPU summation kernels: the seven-methods post's methods as it writes them, then
 * Kahan, Neumaier and library-style pairwise summation.  Binary32 in and out.
 *
 * Built twice (kernels/meson.build): @default with the project's flags (c11: every operation
 * rounded as written) and @fastmath with -O3 -ffast-math; cases/fastmath.c asserts that the
 * compensated kernels' protection against reassociation holds there.
 *
 *   serial_f32          method 1: a += x[i]                       D = n-1
 *   serial_f64acc       method 2: binary64 accumulator            D = n-1 in binary64
 *   sorted_abs_serial   method 3: sort by |x| ascending, serial   D = n-1
 *   sqrt_blocks         method 4: recursive blocks of ceil(sqrt n) D = D(m) + ceil(n/m) - 1
 *   pairwise_halves     method 5: recursive halves                D = ceil(log2 n)
 *   fold                method 6: x[i] += x[n-1-i], halve          D = ceil(log2 n)
 *   sorted_fold         method 7: sort ascending, then fold       D = ceil(log2 n)
 *   kahan_f32           Kahan compensated summation               (2u + O(nu^2)) S
 *   neumaier_f32        Neumaier's improvement (big/small branch) u|s| + gamma_{n-1}^2 S
 *   pairwise_block8     halves down to blocks of <= 8, serial there  D <= 7 + ceil(log2(n/8))
 *   kahan_f32_plain     kahan_f32 without the reassociation barriers   (declared: any order)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"
#include "kernels/cpu/opaque.h"

/* ---- helpers ------------------------------------------------------------------------------------ */

static float *ug_copy(ug_call *c)
{
    float *v = malloc((c->shape.dim[0] ? c->shape.dim[0] : 1) * sizeof(float));
    if (!v) {
        snprintf(c->err, sizeof c->err, "out of memory copying %zu elements", c->shape.dim[0]);
        return NULL;
    }
    memcpy(v, ug_in_f32(c, 0), c->shape.dim[0] * sizeof(float));
    return v;
}

/* The two orders the sorted kernels sum in, as 32-bit keys ascending: by value (-0 and +0
 * equal), and by |x| then by value (-x before x).  Equal keys keep their input order (a stable
 * sort: what glibc's qsort, a merge sort, gave with the comparators these keys replace). */
static uint32_t ug_key_value(uint32_t u)
{
    if (u == 0x80000000u) u = 0; /* -0 ties with +0 */
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

static uint32_t ug_key_abs(uint32_t u)
{
    uint32_t mag = u & 0x7fffffffu;
    return mag << 1 | (mag != 0 && !(u & 0x80000000u));
}

/* Sort s[0..n) stably by key: LSD radix sort, 8 bits a pass, on (key, bits) pairs; O(n), where
 * qsort's comparator calls made the two sorted kernels most of a CPU run's kernel time.  0, or
 * -1 with c->err set when the memory runs out. */
static int ug_sort_by(float *s, size_t n, uint32_t (*key)(uint32_t), ug_call *c)
{
    if (n < 2) return 0;
    uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        snprintf(c->err, sizeof c->err, "out of memory sorting %zu elements", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &s[i], sizeof u);
        a[i] = (uint64_t)key(u) << 32 | u;
    }
    for (int shift = 32; shift < 64; shift += 8) {
        size_t start[256] = {0};
        for (size_t i = 0; i < n; i++) start[a[i] >> shift & 0xff]++;
        if (start[a[0] >> shift & 0xff] == n) continue; /* one bucket: the order stays */
        for (size_t d = 0, sum = 0; d < 256; d++) {
            size_t count = start[d];
            start[d] = sum;
            sum += count;
        }
        for (size_t i = 0; i < n; i++) b[start[a[i] >> shift & 0xff]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)a[i];
        memcpy(&s[i], &u, sizeof u);
    }
    free(a);
    free(b);
    return 0;
}

/* The post's fold: for (n = size; n != 1; n = (n + 1) / 2) s[i] += s[n-1-i], i < n/2. */
static float ug_fold_in_place(float *s, size_t n)
{
    if (n == 0) return 0.0f;
    for (; n != 1; n = (n + 1) / 2)
        for (size_t i = 0; i < n / 2; i++) s[i] += s[n - 1 - i];
    return s[0];
}

/* ---- the seven-methods post, methods 1-7 ---------------------------------------------------------------------- */

static int ug_cpu_serial_f32(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    float a = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) a += x[i];
    ug_out_f32(c)[0] = a;
    return 0;
}

static int ug_cpu_serial_f64acc(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    double a = 0.0;
    for (size_t i = 0; i < c->shape.dim[0]; i++) a += x[i];
    ug_out_f32(c)[0] = (float)a;
    return 0;
}

static int ug_cpu_sorted_abs_serial(const ug_kernel *k, ug_call *c)
{
    float *s = ug_copy(c);
    if (!s) return -1;
    if (ug_sort_by(s, c->shape.dim[0], ug_key_abs, c) != 0) {
        free(s);
        return -1;
    }
    ug_call sc = *c;
    sc.in[0].data = s;
    ug_cpu_serial_f32(k, &sc);
    free(s);
    return 0;
}

/* Method 4 exactly as the post: n == 1 and n == 2 by hand, else blocks of ceil(sqrt(n)). */
static float ug_sqrt_blocks(const float *s, size_t l, size_t h)
{
    size_t n = h - l;
    if (n == 1) return s[l];
    if (n == 2) return s[l] + s[l + 1];
    size_t sqrtn = (size_t)ceil(sqrt((double)n));
    float a = 0.0f;
    while (l < h) {
        a += ug_sqrt_blocks(s, l, l + sqrtn < h ? l + sqrtn : h);
        l += sqrtn;
    }
    return a;
}

/* Depth: the first block's sum passes through ceil(n/m)-1 roundings (0 + s_1 is exact),
 * and the first block is a largest one. */
static size_t ug_depth_sqrt_blocks(size_t n)
{
    if (n <= 1) return 0;
    if (n == 2) return 1;
    size_t m = (size_t)ceil(sqrt((double)n));
    size_t blocks = (n + m - 1) / m;
    return ug_depth_sqrt_blocks(m) + blocks - 1;
}

static int ug_cpu_sqrt_blocks(const ug_kernel *k, ug_call *c)
{
    (void)k;
    ug_out_f32(c)[0] = c->shape.dim[0] ? ug_sqrt_blocks(ug_in_f32(c, 0), 0, c->shape.dim[0]) : 0.0f;
    return 0;
}

static float ug_halves(const float *s, size_t l, size_t h)
{
    if (l + 1 == h) return s[l];
    size_t m = l + (h - l) / 2;
    return ug_halves(s, l, m) + ug_halves(s, m, h);
}

static int ug_cpu_pairwise_halves(const ug_kernel *k, ug_call *c)
{
    (void)k;
    ug_out_f32(c)[0] = c->shape.dim[0] ? ug_halves(ug_in_f32(c, 0), 0, c->shape.dim[0]) : 0.0f;
    return 0;
}

static int ug_cpu_fold(const ug_kernel *k, ug_call *c)
{
    (void)k;
    float *s = ug_copy(c);
    if (!s) return -1;
    ug_out_f32(c)[0] = ug_fold_in_place(s, c->shape.dim[0]);
    free(s);
    return 0;
}

static int ug_cpu_sorted_fold(const ug_kernel *k, ug_call *c)
{
    (void)k;
    float *s = ug_copy(c);
    if (!s) return -1;
    if (ug_sort_by(s, c->shape.dim[0], ug_key_value, c) != 0) {
        free(s);
        return -1;
    }
    ug_out_f32(c)[0] = ug_fold_in_place(s, c->shape.dim[0]);
    free(s);
    return 0;
}

/* ---- compensated and library-style ------------------------------------------------------------ */

static int ug_cpu_kahan_f32(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *in = ug_in_f32(c, 0);
    float sum = 0.0f, comp = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) {
        /* every rounded value behind a barrier: under -ffast-math the compiler could otherwise
         * regroup x - (hi - y) across iterations (it does: other bits, a weaker compensation) */
        float y = in[i] - comp;
        UG_OPAQUE(y);
        float t = sum + y;
        UG_OPAQUE(t);
        float hi = t - sum;
        UG_OPAQUE(hi);
        /* once the sum is infinite or NaN the compensation would be NaN: drop it, so an
         * infinite exact sum comes out as that infinity */
        comp = ug_finite_f32(t) ? hi - y : 0.0f;
        UG_OPAQUE(comp);
        sum = t;
    }
    ug_out_f32(c)[0] = sum;
    return 0;
}

/* kahan_f32 without the barriers: the loop as textbooks print it (the finiteness guard kept,
 * so that specials stay right).  Under -ffast-math a compiler may simplify (t - sum) - y to 0
 * and so delete the compensation; cases/fastmath.c shows whether it did, and so that the
 * barriers of kahan_f32 are what keeps it compensating. */
static int ug_cpu_kahan_f32_plain(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *in = ug_in_f32(c, 0);
    float sum = 0.0f, comp = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) {
        float y = in[i] - comp;
        float t = sum + y;
        comp = ug_finite_f32(t) ? (t - sum) - y : 0.0f;
        sum = t;
    }
    ug_out_f32(c)[0] = sum;
    return 0;
}

static int ug_cpu_neumaier_f32(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *in = ug_in_f32(c, 0);
    float sum = 0.0f, comp = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) {
        float x = in[i];
        float t = sum + x;
        UG_OPAQUE(t);
        /* the error of t = sum + x, recovered exactly from the larger operand */
        float big = fabsf(sum) >= fabsf(x) ? sum : x, small = fabsf(sum) >= fabsf(x) ? x : sum;
        float d = big - t;
        UG_OPAQUE(d);
        float e = d + small; /* kept apart: fast-math may not regroup comp + (d + small) */
        UG_OPAQUE(e);
        if (ug_finite_f32(t)) comp += e; /* no error term once the sum is inf or NaN */
        sum = t;
    }
    ug_out_f32(c)[0] = ug_finite_f32(sum) ? sum + comp : sum;
    return 0;
}

enum { UG_PAIRWISE_BLOCK = 8 };

static float ug_pairwise_block(const float *s, size_t n)
{
    if (n <= UG_PAIRWISE_BLOCK) {
        float a = 0.0f;
        for (size_t i = 0; i < n; i++) a += s[i];
        return a;
    }
    size_t m = n / 2;
    return ug_pairwise_block(s, m) + ug_pairwise_block(s + m, n - m);
}

static size_t ug_depth_pairwise_block8(size_t n)
{
    if (n <= UG_PAIRWISE_BLOCK) return n ? n - 1 : 0;
    /* not simply the larger half: 8 is a leaf of depth 7, 9 splits into leaves of depth <= 4 */
    size_t a = ug_depth_pairwise_block8(n / 2), b = ug_depth_pairwise_block8(n - n / 2);
    return 1 + (a > b ? a : b);
}

static int ug_cpu_pairwise_block8(const ug_kernel *k, ug_call *c)
{
    (void)k;
    ug_out_f32(c)[0] = ug_pairwise_block(ug_in_f32(c, 0), c->shape.dim[0]);
    return 0;
}

/* ---- the family: registry rows and the launcher ------------------------------------------------ */

enum {
    SERIAL_F32, SERIAL_F64ACC, SORTED_ABS_SERIAL, SQRT_BLOCKS, PAIRWISE_HALVES, FOLD, SORTED_FOLD,
    KAHAN_F32, NEUMAIER_F32, PAIRWISE_BLOCK8, KAHAN_F32_PLAIN,
};

static const ug_kernel ug_cpu_reduce_kernels[] = {
    {.name = "serial_f32", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = SERIAL_F32, .method = 1, .doc = "seven-methods post, method 1: a += x[i] in binary32"},
    {.name = "serial_f64acc", .op = UG_OP_SUM, .acc_fmt = UG_F64, .bound = UG_BOUND_WIDE_ACC,
     .depth = ug_depth_serial, .version = SERIAL_F64ACC, .method = 2,
     .doc = "seven-methods post, method 2: binary64 accumulator, rounded once"},
    {.name = "sorted_abs_serial", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = SORTED_ABS_SERIAL, .method = 3,
     .doc = "seven-methods post, method 3: sort by |x| ascending, then serial"},
    {.name = "sqrt_blocks", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_sqrt_blocks,
     .version = SQRT_BLOCKS, .method = 4,
     .doc = "seven-methods post, method 4: recursive blocks of ceil(sqrt n)"},
    {.name = "pairwise_halves", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_log2,
     .version = PAIRWISE_HALVES, .method = 5,
     .doc = "seven-methods post, method 5: recursive halves down to one element"},
    {.name = "fold", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_log2,
     .version = FOLD, .method = 6, .doc = "seven-methods post, method 6: x[i] += x[n-1-i], halve, repeat"},
    {.name = "sorted_fold", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_log2,
     .version = SORTED_FOLD, .method = 7,
     .doc = "seven-methods post, method 7: sort ascending by value, then fold"},
    {.name = "kahan_f32", .op = UG_OP_SUM, .bound = UG_BOUND_KAHAN, .version = KAHAN_F32,
     .doc = "Kahan compensated summation in binary32"},
    {.name = "neumaier_f32", .op = UG_OP_SUM, .bound = UG_BOUND_NEUMAIER, .version = NEUMAIER_F32,
     .doc = "Neumaier (improved Kahan-Babuska) summation in binary32"},
    {.name = "pairwise_block8", .op = UG_OP_SUM, .bound = UG_BOUND_TREE,
     .depth = ug_depth_pairwise_block8, .version = PAIRWISE_BLOCK8,
     .doc = "pairwise halves with a serial base case of 8 (as libraries ship)"},
    /* Declared with the class that holds whatever a reassociating compiler makes of it (any
     * order of the n terms: depth n - 1); cases/fastmath.c asserts the Kahan class where the
     * code is compiled as written. */
    {.name = "kahan_f32_plain", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = KAHAN_F32_PLAIN,
     .doc = "kahan_f32 without its barriers: what -ffast-math may turn into plain summation"},
};

static int ug_cpu_reduce_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case SERIAL_F32: return ug_cpu_serial_f32(k, c);
    case SERIAL_F64ACC: return ug_cpu_serial_f64acc(k, c);
    case SORTED_ABS_SERIAL: return ug_cpu_sorted_abs_serial(k, c);
    case SQRT_BLOCKS: return ug_cpu_sqrt_blocks(k, c);
    case PAIRWISE_HALVES: return ug_cpu_pairwise_halves(k, c);
    case FOLD: return ug_cpu_fold(k, c);
    case SORTED_FOLD: return ug_cpu_sorted_fold(k, c);
    case KAHAN_F32: return ug_cpu_kahan_f32(k, c);
    case NEUMAIER_F32: return ug_cpu_neumaier_f32(k, c);
    case PAIRWISE_BLOCK8: return ug_cpu_pairwise_block8(k, c);
    case KAHAN_F32_PLAIN: return ug_cpu_kahan_f32_plain(k, c);
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
    return 1;
}

UG_FAMILY(cpu_reduce, ug_cpu_reduce_kernels, ug_cpu_reduce_run)
