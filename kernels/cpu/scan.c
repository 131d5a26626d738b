/*
 * scan.c - CPU prefix-sum kernels: the serial scan and CPU simulations of the GPU scan shapes
 * (the same additions in the same order as the parallel algorithm, one thread), binary32.
 *
 * Each row's depth is a function of the terms behind one output (ops/scan.c grades output i
 * against its own bound: m = i + 1 terms for scan, m = i for exscan):
 *
 *   scan_serial            s += x[i], out[i] = s                          D(m) = m - 1
 *   exscan_serial          out[i] = s, s += x[i]                          D(m) = m - 1
 *   scan_hillis_steele     log2 n sweeps y[i] += y[i - 2^k] (Hillis & Steele 1986): each term
 *                          passes through one addition per sweep that reaches it, and output
 *                          i is final after ceil(log2(i + 1)) sweeps        D(m) = ceil(log2 m)
 *   exscan_blelloch        Blelloch's work-efficient up-sweep/down-sweep on the next power of
 *                          two (zero padding): [0, i) is covered by popcount(i) aligned blocks,
 *                          each an up-sweep tree of depth <= floor(log2 i); the down-sweep adds
 *                          them one at a time (the first to the root's 0: exact), so a term
 *                          passes through <= 2 floor(log2 i) additions     D(m) <= 2 ceil(log2 m)
 *   scan_blelloch          exscan_blelloch, then out[i] = ex[i] + x[i]:    one more addition
 *   scan_tiled_lookback    the decoupled look-back scan's order (Merrill & Garland 2016) with
 *                          tiles of T = 256 and a serial scan in a tile: output i in tile
 *                          t >= 1 is P(t-1) + local(i), P(t) = P(t-1) + agg(t) a serial chain,
 *                          agg(t) a serial sum of T terms: a term of tile 0 passes through
 *                          (T - 1) + (t - 1) + 1 additions, a local one <= T: D(m) = T - 1 +
 *                          floor((m - 1) / T) for m > T, m - 1 below
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"

enum { UG_SCAN_TILE = 256 };

static size_t ug_depth_2log2(size_t m) { return 2 * ug_depth_log2(m); }
static size_t ug_depth_2log2_plus1(size_t m) { return m > 1 ? 2 * ug_depth_log2(m) + 1 : 0; }
static size_t ug_depth_tiled(size_t m)
{
    return m <= UG_SCAN_TILE ? (m ? m - 1 : 0) : UG_SCAN_TILE - 1 + (m - 1) / UG_SCAN_TILE;
}

static float *ug_scan_scratch(ug_call *c, size_t count)
{
    float *v = malloc((count ? count : 1) * sizeof(float));
    if (!v) snprintf(c->err, sizeof c->err, "out of memory: %zu elements of scratch", count);
    return v;
}

static int ug_scan_serial(ug_call *c, bool exclusive)
{
    const float *x = ug_in_f32(c, 0);
    float *out = ug_out_f32(c), s = 0.0f;
    for (size_t i = 0; i < c->shape.dim[0]; i++) {
        if (exclusive) out[i] = s, s += x[i];
        else s = i ? s + x[i] : x[i], out[i] = s; /* x[0] as it is: -0 stays -0 */
    }
    return 0;
}

/* Double-buffered Hillis-Steele: sweep k reads buffer a, writes b. */
static int ug_scan_hillis_steele(ug_call *c)
{
    size_t n = c->shape.dim[0];
    float *a = ug_out_f32(c), *b = ug_scan_scratch(c, n);
    if (!b) return 1;
    memcpy(a, ug_in_f32(c, 0), n * sizeof(float));
    for (size_t d = 1; d < n; d *= 2) {
        for (size_t i = 0; i < n; i++) b[i] = i >= d ? a[i] + a[i - d] : a[i];
        memcpy(a, b, n * sizeof(float));
    }
    free(b);
    return 0;
}

/* Blelloch's exclusive scan on a zero-padded power of two; inclusive adds x[i] after. */
static int ug_scan_blelloch(ug_call *c, bool exclusive)
{
    size_t n = c->shape.dim[0], N = 1;
    while (N < n) N *= 2;
    const float *x = ug_in_f32(c, 0);
    float *out = ug_out_f32(c), *t = ug_scan_scratch(c, N);
    if (!t) return 1;
    memcpy(t, x, n * sizeof(float));
    for (size_t i = n; i < N; i++) t[i] = 0.0f;
    for (size_t d = 1; d < N; d *= 2) /* up-sweep: t[k + 2d - 1] += t[k + d - 1] */
        for (size_t k = 0; k < N; k += 2 * d) t[k + 2 * d - 1] += t[k + d - 1];
    t[N - 1] = 0.0f;
    for (size_t d = N / 2; d >= 1; d /= 2) { /* down-sweep */
        for (size_t k = 0; k < N; k += 2 * d) {
            float l = t[k + d - 1];
            t[k + d - 1] = t[k + 2 * d - 1];
            t[k + 2 * d - 1] += l;
        }
        if (d == 1) break;
    }
    for (size_t i = 0; i < n; i++) out[i] = exclusive ? t[i] : t[i] + x[i];
    free(t);
    return 0;
}

/* The decoupled look-back's order: local serial scans, tile aggregates, a serial chain of
 * inclusive tile prefixes, each added to its tile's local scan. */
static int ug_scan_tiled(ug_call *c)
{
    const float *x = ug_in_f32(c, 0);
    float *out = ug_out_f32(c), prefix = 0.0f;
    for (size_t t0 = 0; t0 < c->shape.dim[0]; t0 += UG_SCAN_TILE) {
        size_t end = t0 + UG_SCAN_TILE < c->shape.dim[0] ? t0 + UG_SCAN_TILE : c->shape.dim[0];
        float s = x[t0];
        out[t0] = s;
        for (size_t i = t0 + 1; i < end; i++) s += x[i], out[i] = s; /* s: the tile's aggregate */
        if (t0 > 0) {
            for (size_t i = t0; i < end; i++) out[i] = prefix + out[i];
            prefix = prefix + s;
        } else {
            prefix = s;
        }
    }
    return 0;
}

enum { SCAN_SERIAL, EXSCAN_SERIAL, SCAN_HILLIS_STEELE, EXSCAN_BLELLOCH, SCAN_BLELLOCH, SCAN_TILED };

static const ug_kernel ug_cpu_scan_kernels[] = {
    {.name = "scan_serial", .op = UG_OP_SCAN, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = SCAN_SERIAL, .doc = "inclusive scan: s += x[i], out[i] = s"},
    {.name = "exscan_serial", .op = UG_OP_EXSCAN, .bound = UG_BOUND_TREE, .depth = ug_depth_serial,
     .version = EXSCAN_SERIAL, .doc = "exclusive scan: out[i] = s, s += x[i]"},
    {.name = "scan_hillis_steele", .op = UG_OP_SCAN, .bound = UG_BOUND_TREE, .depth = ug_depth_log2,
     .version = SCAN_HILLIS_STEELE,
     .doc = "Hillis-Steele (1986) step-efficient inclusive scan, simulated serially"},
    {.name = "exscan_blelloch", .op = UG_OP_EXSCAN, .bound = UG_BOUND_TREE, .depth = ug_depth_2log2,
     .version = EXSCAN_BLELLOCH,
     .doc = "Blelloch (1990) work-efficient up/down-sweep exclusive scan, simulated serially"},
    {.name = "scan_blelloch", .op = UG_OP_SCAN, .bound = UG_BOUND_TREE,
     .depth = ug_depth_2log2_plus1, .version = SCAN_BLELLOCH,
     .doc = "Blelloch's exclusive scan plus x[i]: inclusive"},
    {.name = "scan_tiled_lookback", .op = UG_OP_SCAN, .bound = UG_BOUND_TREE, .depth = ug_depth_tiled,
     .version = SCAN_TILED,
     .doc = "the decoupled look-back scan's order (tiles of 256, serial chain of tile prefixes)"},
};

static int ug_cpu_scan_run(const ug_kernel *k, ug_call *c)
{
    switch (k->version) {
    case SCAN_SERIAL: return ug_scan_serial(c, false);
    case EXSCAN_SERIAL: return ug_scan_serial(c, true);
    case SCAN_HILLIS_STEELE: return ug_scan_hillis_steele(c);
    case EXSCAN_BLELLOCH: return ug_scan_blelloch(c, true);
    case SCAN_BLELLOCH: return ug_scan_blelloch(c, false);
    case SCAN_TILED: return ug_scan_tiled(c);
    }
    snprintf(c->err, sizeof c->err, "%s: unknown version %d", k->name, k->version);
    return 1;
}

UG_FAMILY(cpu_scan, ug_cpu_scan_kernels, ug_cpu_scan_run)
