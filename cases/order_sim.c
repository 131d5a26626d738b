/*
 * order_sim.c - see order_sim.h.  Each order is written from its description, not copied from
 * the kernel: the posts' text for the published methods, the launch shapes documented in
 * kernels/cuda/ug_cuda.cuh for the GPU trees.  Sizes of the GPU launch shapes are restated here
 * on purpose (a kernel whose shape drifts from its documentation must fail).
 */
#include "cases/order_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"

static const ug_sv ug_pad = {0.0f, 0, true};

static ug_sv ug_leaf(const float *x, size_t i)
{
    ug_sv s = {x ? x[i] : 1.0f, 0, false};
    return s;
}

/* One rounded addition (binary32, nearest-even: C11 without contraction).  With a padding
 * operand it is exact and the depth is the other's. */
static ug_sv ug_add(ug_sv a, ug_sv b)
{
    ug_sv r;
    r.v = a.v + b.v;
    if (a.pad || b.pad) {
        r.depth = a.pad ? b.depth : a.depth;
        r.pad = a.pad && b.pad;
    } else {
        r.depth = (a.depth > b.depth ? a.depth : b.depth) + 1;
        r.pad = false;
    }
    return r;
}

static ug_sv *ug_leaves(const float *x, size_t n)
{
    ug_sv *v = ug_xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = ug_leaf(x, i);
    return v;
}

/* ---- the seven-methods post and the classics (CPU) ------------------------------------------ */

static ug_sv ug_sim_serial(const ug_sv *v, size_t n)
{
    ug_sv a = ug_pad; /* a = 0.0f */
    for (size_t i = 0; i < n; i++) a = ug_add(a, v[i]);
    return a;
}

/* Method 4: one element as is, two added, else blocks of m = ceil(sqrt(n)) summed recursively
 * and accumulated from 0 in order. */
static ug_sv ug_sim_sqrt_blocks(const ug_sv *v, size_t n)
{
    if (n == 1) return v[0];
    if (n == 2) return ug_add(v[0], v[1]);
    size_t m = (size_t)ceil(sqrt((double)n));
    ug_sv a = ug_pad;
    for (size_t l = 0; l < n; l += m) a = ug_add(a, ug_sim_sqrt_blocks(v + l, l + m < n ? m : n - l));
    return a;
}

/* Method 5: the lower half has floor(n/2) elements. */
static ug_sv ug_sim_halves(const ug_sv *v, size_t n)
{
    if (n == 1) return v[0];
    return ug_add(ug_sim_halves(v, n / 2), ug_sim_halves(v + n / 2, n - n / 2));
}

/* Method 6: x[i] += x[n-1-i] for i < n/2, n = ceil(n/2), until one is left (in place). */
static ug_sv ug_sim_fold(ug_sv *v, size_t n)
{
    for (; n > 1; n = (n + 1) / 2)
        for (size_t i = 0; i < n / 2; i++) v[i] = ug_add(v[i], v[n - 1 - i]);
    return v[0];
}

static ug_sv ug_sim_block8(const ug_sv *v, size_t n)
{
    if (n <= 8) return ug_sim_serial(v, n);
    return ug_add(ug_sim_block8(v, n / 2), ug_sim_block8(v + n / 2, n - n / 2));
}

/* Merge sort of leaves by key (stable, independent of the kernels' qsort). */
static int ug_key_abs(const ug_sv *a, const ug_sv *b)
{
    float x = fabsf(a->v), y = fabsf(b->v);
    if (x != y) return x < y ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
}

static int ug_key_value(const ug_sv *a, const ug_sv *b) { return a->v < b->v ? -1 : a->v > b->v; }

static void ug_merge_sort(ug_sv *v, ug_sv *tmp, size_t n, int (*key)(const ug_sv *, const ug_sv *))
{
    if (n < 2) return;
    size_t h = n / 2, i = 0, j = h, k = 0;
    ug_merge_sort(v, tmp, h, key);
    ug_merge_sort(v + h, tmp, n - h, key);
    while (i < h && j < n) tmp[k++] = key(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
    while (i < h) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static void ug_sort(ug_sv *v, size_t n, int (*key)(const ug_sv *, const ug_sv *))
{
    ug_sv *tmp = ug_xmalloc((n ? n : 1) * sizeof *tmp);
    ug_merge_sort(v, tmp, n, key);
    free(tmp);
}

/* ---- the CUDA-optimisation post's block trees, repeated on the partials ---------------------- */

enum { UG_SIM_TREE_BLOCK = 1024 };

/* One 1024-wide block of the interleaved (adjacent pairs: t % (2 s) == 0 adds t + s) or the
 * sequential (t < s adds t + s, s halving from 512) tree, zero-padded. */
static ug_sv ug_sim_block_tree(const ug_sv *v, size_t count, bool interleaved)
{
    ug_sv p[UG_SIM_TREE_BLOCK];
    for (size_t t = 0; t < UG_SIM_TREE_BLOCK; t++) p[t] = t < count ? v[t] : ug_pad;
    if (interleaved) {
        for (size_t s = 1; s < UG_SIM_TREE_BLOCK; s *= 2)
            for (size_t t = 0; t < UG_SIM_TREE_BLOCK; t += 2 * s) p[t] = ug_add(p[t], p[t + s]);
    } else {
        for (size_t s = UG_SIM_TREE_BLOCK / 2; s > 0; s /= 2)
            for (size_t t = 0; t < s; t++) p[t] = ug_add(p[t], p[t + s]);
    }
    return p[0];
}

/* Pass after pass (at least one) until one partial is left. */
static ug_sv ug_sim_block_passes(ug_sv *v, size_t n, bool interleaved)
{
    do {
        size_t blocks = (n + UG_SIM_TREE_BLOCK - 1) / UG_SIM_TREE_BLOCK;
        for (size_t b = 0; b < blocks; b++) {
            size_t first = b * UG_SIM_TREE_BLOCK;
            size_t count = n - first < UG_SIM_TREE_BLOCK ? n - first : UG_SIM_TREE_BLOCK;
            v[b] = ug_sim_block_tree(v + first, count, interleaved);
        }
        n = blocks;
    } while (n > 1);
    return v[0];
}

/* ---- warp shuffles (the seven-methods post's method 5) --------------------------------------- */

/* __shfl_down_sync with offsets 1, 2, 4, 8, 16, every lane at once: lane l adds lane l + o when
 * it exists, else its own value (what shfl_down returns past the warp); lane 0's result. */
static ug_sv ug_sim_warp(const ug_sv *lanes)
{
    ug_sv v[32], old[32];
    memcpy(v, lanes, sizeof v);
    for (int o = 1; o < 32; o <<= 1) {
        memcpy(old, v, sizeof v);
        for (int l = 0; l < 32; l++) v[l] = ug_add(old[l], l + o < 32 ? old[l + o] : old[l]);
    }
    return v[0];
}

/* block_reduce_sum over `threads` values (a multiple of 32): every warp reduced, the warp sums
 * (zero beyond threads/32) reduced by warp 0. */
static ug_sv ug_sim_shuffle_block(const ug_sv *vals, int threads)
{
    ug_sv sums[32];
    for (int w = 0; w < 32; w++) sums[w] = w < threads / 32 ? ug_sim_warp(vals + 32 * w) : ug_pad;
    return ug_sim_warp(sums);
}

/* Method 5: one block of 1024 walks the array; each chunk's sum goes to tier 0; a full tier
 * (1024 sums) is reduced into the next; at the end every tier is flushed (zero-padded) upward. */
static ug_sv ug_sim_hierarchy(const ug_sv *v, size_t n)
{
    enum { B = 1024, TIERS = 4 };
    ug_sv *tier = ug_xmalloc(((TIERS - 1) * B + 1) * sizeof *tier);
    size_t idx[TIERS] = {0, 0, 0, 0};
    ug_sv chunk[B];
    for (size_t base = 0; base < n; base += B) {
        for (size_t t = 0; t < B; t++) chunk[t] = base + t < n ? v[base + t] : ug_pad;
        tier[idx[0]++] = ug_sim_shuffle_block(chunk, B);
        for (int i = 0; i < TIERS - 1 && idx[i] == B; i++) {
            ug_sv s = ug_sim_shuffle_block(tier + B * i, B);
            idx[i] = 0;
            tier[B * (i + 1) + idx[i + 1]++] = s;
        }
    }
    for (int i = 0; i < TIERS - 1; i++) {
        for (size_t t = 0; t < B; t++) chunk[t] = t < idx[i] ? tier[B * i + t] : ug_pad;
        tier[B * (i + 1) + idx[i + 1]++] = ug_sim_shuffle_block(chunk, B);
    }
    ug_sv r = tier[(TIERS - 1) * B];
    free(tier);
    return r;
}

/* The grid-wide shape: G = min(ceil(n/256), 1024) blocks of 256, T = 256 G threads; thread g
 * sums x[g], x[g+T], ... serially from 0; blocks combine their 256 states, one block of 1024
 * combines the G partials (padding beyond G). */
enum { UG_SIM_GRID_BLOCK = 256, UG_SIM_GRID_MAX = 1024, UG_SIM_FINAL = 1024 };

static size_t ug_sim_grid_blocks(size_t n)
{
    size_t g = (n + UG_SIM_GRID_BLOCK - 1) / UG_SIM_GRID_BLOCK;
    return g < UG_SIM_GRID_MAX ? g : UG_SIM_GRID_MAX;
}

static ug_sv ug_sim_shuffle_grid(const ug_sv *v, size_t n)
{
    size_t G = ug_sim_grid_blocks(n), T = G * UG_SIM_GRID_BLOCK;
    ug_sv part[UG_SIM_FINAL], threads[UG_SIM_GRID_BLOCK];
    for (size_t b = 0; b < UG_SIM_FINAL; b++) part[b] = ug_pad;
    for (size_t b = 0; b < G; b++) {
        for (size_t t = 0; t < UG_SIM_GRID_BLOCK; t++) {
            ug_sv a = ug_pad;
            for (size_t i = b * UG_SIM_GRID_BLOCK + t; i < n; i += T) a = ug_add(a, v[i]);
            threads[t] = a;
        }
        part[b] = ug_sim_shuffle_block(threads, UG_SIM_GRID_BLOCK);
    }
    return ug_sim_shuffle_block(part, UG_SIM_FINAL);
}

/* reduce_f64acc: the same shape with binary64 states, sequential-halving trees (t < s adds
 * t + s), one rounding to binary32 at the end.  Depth counted as for binary32. */
typedef struct {
    double v;
    unsigned depth;
    bool pad;
} ug_dv;

static ug_dv ug_dadd(ug_dv a, ug_dv b)
{
    ug_dv r = {a.v + b.v, 0, a.pad && b.pad};
    r.depth = a.pad ? b.depth : b.pad ? a.depth : (a.depth > b.depth ? a.depth : b.depth) + 1;
    return r;
}

static ug_dv ug_sim_dtree(ug_dv *s, size_t width)
{
    for (size_t h = width / 2; h > 0; h /= 2)
        for (size_t t = 0; t < h; t++) s[t] = ug_dadd(s[t], s[t + h]);
    return s[0];
}

static ug_sv ug_sim_f64_grid(const float *x, size_t n)
{
    size_t G = ug_sim_grid_blocks(n), T = G * UG_SIM_GRID_BLOCK;
    const ug_dv dpad = {0.0, 0, true};
    ug_dv part[UG_SIM_FINAL], th[UG_SIM_GRID_BLOCK];
    for (size_t b = 0; b < UG_SIM_FINAL; b++) part[b] = dpad;
    for (size_t b = 0; b < G; b++) {
        for (size_t t = 0; t < UG_SIM_GRID_BLOCK; t++) {
            ug_dv a = dpad;
            for (size_t i = b * UG_SIM_GRID_BLOCK + t; i < n; i += T) {
                ug_dv leaf = {x ? (double)x[i] : 1.0, 0, false};
                a = ug_dadd(a, leaf);
            }
            th[t] = a;
        }
        part[b] = ug_sim_dtree(th, UG_SIM_GRID_BLOCK);
    }
    ug_dv r = ug_sim_dtree(part, UG_SIM_FINAL);
    ug_sv s = {(float)r.v, r.depth, r.pad};
    return s;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

typedef enum {
    UG_SIM_SERIAL, UG_SIM_SERIAL_F64, UG_SIM_SORTED_ABS_SERIAL, UG_SIM_SQRT_BLOCKS, UG_SIM_HALVES,
    UG_SIM_FOLD, UG_SIM_SORTED_FOLD, UG_SIM_BLOCK8, UG_SIM_INTERLEAVED, UG_SIM_SEQUENTIAL,
    UG_SIM_HIERARCHY, UG_SIM_SHUFFLE_GRID, UG_SIM_F64_GRID,
} ug_sim_order;

static const struct {
    const char *kernel;
    ug_sim_order order;
} ug_sim_table[] = {
    {"serial_f32", UG_SIM_SERIAL},
    {"serial_f64acc", UG_SIM_SERIAL_F64},
    {"sorted_abs_serial", UG_SIM_SORTED_ABS_SERIAL},
    {"sqrt_blocks", UG_SIM_SQRT_BLOCKS},
    {"pairwise_halves", UG_SIM_HALVES},
    {"fold", UG_SIM_FOLD},
    {"sorted_fold", UG_SIM_SORTED_FOLD},
    {"pairwise_block8", UG_SIM_BLOCK8},
    {"reduce_interleaved", UG_SIM_INTERLEAVED},
    {"reduce_sequential", UG_SIM_SEQUENTIAL},
    {"reduce_warp_shuffle", UG_SIM_HIERARCHY},
    {"reduce_fold", UG_SIM_FOLD},               /* x[i] += x[size-1-i]: the post's fold */
    {"reduce_bitonic_fold", UG_SIM_SORTED_FOLD}, /* sorted ascending, then the fold */
    {"reduce_warp_shuffle_grid", UG_SIM_SHUFFLE_GRID},
    {"reduce_f64acc", UG_SIM_F64_GRID},
};

static int ug_sim_index(const char *name)
{
    for (size_t i = 0; i < sizeof ug_sim_table / sizeof ug_sim_table[0]; i++)
        if (strcmp(ug_sim_table[i].kernel, name) == 0) return (int)i;
    return -1;
}

bool ug_sim_known(const char *name) { return ug_sim_index(name) >= 0; }

static ug_sv ug_sim_serial_f64(const float *x, size_t n)
{
    double a = 0.0;
    unsigned depth = 0;
    for (size_t i = 0; i < n; i++) {
        a += x ? (double)x[i] : 1.0;
        if (i > 0) depth++;
    }
    ug_sv s = {(float)a, depth, n == 0};
    return s;
}

bool ug_sim_sum(const char *name, const float *x, size_t n, float *value, unsigned *depth)
{
    int i = ug_sim_index(name);
    if (i < 0) return false;
    ug_sv r = ug_pad;
    if (n > 0) {
        ug_sim_order o = ug_sim_table[i].order;
        ug_sv *v = o == UG_SIM_SERIAL_F64 || o == UG_SIM_F64_GRID ? NULL : ug_leaves(x, n);
        switch (o) {
        case UG_SIM_SERIAL: r = ug_sim_serial(v, n); break;
        case UG_SIM_SERIAL_F64: r = ug_sim_serial_f64(x, n); break;
        case UG_SIM_SORTED_ABS_SERIAL: ug_sort(v, n, ug_key_abs); r = ug_sim_serial(v, n); break;
        case UG_SIM_SQRT_BLOCKS: r = ug_sim_sqrt_blocks(v, n); break;
        case UG_SIM_HALVES: r = ug_sim_halves(v, n); break;
        case UG_SIM_FOLD: r = ug_sim_fold(v, n); break;
        case UG_SIM_SORTED_FOLD: ug_sort(v, n, ug_key_value); r = ug_sim_fold(v, n); break;
        case UG_SIM_BLOCK8: r = ug_sim_block8(v, n); break;
        case UG_SIM_INTERLEAVED: r = ug_sim_block_passes(v, n, true); break;
        case UG_SIM_SEQUENTIAL: r = ug_sim_block_passes(v, n, false); break;
        case UG_SIM_HIERARCHY: r = ug_sim_hierarchy(v, n); break;
        case UG_SIM_SHUFFLE_GRID: r = ug_sim_shuffle_grid(v, n); break;
        case UG_SIM_F64_GRID: r = ug_sim_f64_grid(x, n); break;
        }
        free(v);
    }
    if (value) *value = r.v;
    if (depth) *depth = r.depth;
    return true;
}

/* ---- the check the order cases run ------------------------------------------------------------ */

#include "harness/run/ug.h"

void ug_order_check(ug_t *t, int backend, const ug_dist *d, const size_t *ns, size_t count, int trials)
{
    for (size_t i = 0; i < count; i++) {
        size_t n = ns[i];
        if (!ug_n_selected(t, n)) continue;
        ug_input *in = ug_input_make(t, UG_OP_SUM, d, n, trials);
        UG_FOR_KERNELS(t, k, UG_OP_SUM, backend, "*") {
            if (k->nondeterministic || !ug_sim_known(k->name)) continue;
            /* built with reassociation allowed (-ffast-math), the order written is no contract:
             * cases/fastmath.c reports which of them kept it */
            if (ug_kernel_props(k) & UG_VP_REASSOC) continue;
            if (k->max_n && n > k->max_n) continue;
            ug_result *r = ug_measure(t, k, in);
            UG_EXPECT_BOUND_RATIO_MAX(r, 1.0); /* a-priori: kernels/bounds.c */
            if (r->failed_run || !r->out) continue;
            for (int tr = 0; tr < in->trials; tr++) {
                float want;
                ug_sim_sum(k->name, in->x[tr], n, &want, NULL);
                float got = r->out[tr][0];
                UG_EXPECT_MSG(memcmp(&got, &want, sizeof got) == 0,
                              "%s, trial %d: got %a, its order simulated gives %a",
                              k->id, in->first_trial + tr, (double)got, (double)want);
            }
        }
        ug_input_free(t, in);
    }
}
