/*
 * quantize_cases.h - what the quantize cases share (cases/quantize.c, cases/quantize_canary.c):
 * the data sets and one quantizer graded on one of them.  Every array is 128 x 256 binary32
 * (blocks of 1x16, 1x32, 1x128 and 128x128 alike).
 *
 *   maxima     each block's largest magnitude set to a value that decides the scale: a power of
 *              two, the binary32 just below one, the element format's max times a power of two
 *              and its neighbours, the NVFP4 tensor's 2688 x 2^k, a subnormal; the rest of the
 *              block below it
 *   specials   blocks of zeros, of subnormals only, with a NaN, with +-inf
 *   normal     normal(0, 1) data, each row scaled by 2^(row mod 41 - 20)
 * A figure per quantizer and data set (a note, and the row's note in results.json): the share of
 * blocks whose scale differs from the rule, and how many blocks keep more error than the best
 * the format could do.
 */
#ifndef UG_CASES_QUANTIZE_CASES_H
#define UG_CASES_QUANTIZE_CASES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/inputs/rng.h"
#include "harness/run/ug.h"
#include "ops/quantize.h"

enum { Q_ROWS = 128, Q_COLS = 256, Q_N = Q_ROWS * Q_COLS };
typedef enum { Q_MAXIMA, Q_SPECIALS, Q_NORMAL } q_data;
static const char *const q_data_names[] = {"maxima", "specials", "normal"};

// --- the data ---------------------------------------------------------------------------------

/* The deciding amax of block b of a maxima set, for element format E. */
static float q_decider(const ug_format *E, size_t b)
{
    int k = (int)(b / 8 % 41) - 20; /* binades 2^-20 .. 2^20 */
    float p2 = ldexpf(1.0f, k), m = (float)ldexp(E->max, k);
    switch (b % 8) {
    case 0: return p2;
    case 1: return nextafterf(p2, 0);
    case 2: return m;
    case 3: return nextafterf(m, INFINITY);
    case 4: return nextafterf(m, 0);
    case 5: return (float)ldexp(2688.0, k);
    case 6: return ldexpf(1.0f, -130 - (int)(b % 19)); /* subnormal binary32 */
    default: return nextafterf(2 * p2, 0) * 0.75f;
    }
}

/* Fill x (Q_ROWS x Q_COLS) for block format B: every block of B's grid gets its own values. */
static void q_fill(const ug_blockfmt *B, q_data d, uint64_t seed, float *x)
{
    ug_stream s = ug_stream_make(seed, ug_hash64(q_data_names[d], UG_HASH64_INIT), 0);
    const ug_format *E = ug_format_of(B->elem);
    size_t br = (size_t)B->block_rows, bc = (size_t)B->block_cols, gc = Q_COLS / bc;
    for (size_t i = 0; i < Q_N; i++) {
        double u1 = ug_rng_unit(&s, 2 * i), u2 = ug_rng_unit(&s, 2 * i + 1);
        double g = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2); /* Box-Muller */
        x[i] = d == Q_NORMAL ? (float)ldexp(g, (int)(i / Q_COLS % 41) - 20) : (float)(u1 - 0.5);
    }
    if (d == Q_NORMAL) return;
    for (size_t b = 0; b < (Q_ROWS / br) * gc; b++) {
        size_t r0 = b / gc * br, c0 = b % gc * bc, kind = b % 5;
        float a = d == Q_MAXIMA ? q_decider(E, b) : 0;
        for (size_t r = r0; r < r0 + br; r++)
            for (size_t j = c0; j < c0 + bc; j++) {
                float *v = &x[r * Q_COLS + j];
                if (d == Q_MAXIMA) *v *= a; /* |v| <= a / 2: the decider stays the max */
                else if (kind == 0) *v = 0;
                else if (kind == 1) *v = *v * 0x1p-130f;
                else if (kind == 4) *v *= 0x1p-10f;
            }
        size_t at = (r0 + ug_rng_u32(&s, Q_N + b) % br) * Q_COLS + c0 +
                    ug_rng_u32(&s, 2 * Q_N + b) % bc;
        if (d == Q_MAXIMA) x[at] = b & 1 ? -a : a;
        else if (kind == 2) x[at] = NAN;
        else if (kind == 3) x[at] = b & 8 ? -INFINITY : INFINITY;
    }
}

// --- one quantizer on one data set --------------------------------------------------------------

/* Quantize the data set, grade it, check it and note the figures.  Returns whether it ran. */
static bool q_grade(ug_t *t, const ug_quantizer *q, q_data d)
{
    const ug_blockfmt *B = ug_blockfmt_by_name(q->blockfmt);
    ug_point(t, "%s on %s", q->name, q_data_names[d]);
    UG_ASSERT_MSG(B != NULL, "%s: no block format %s", q->name, q->blockfmt);
    size_t nb = ug_quantize_blocks(B, Q_ROWS, Q_COLS);
    float *x = malloc(Q_N * sizeof *x);
    uint8_t *elems = malloc(Q_N), *scales = calloc(nb, ug_scale_bytes(B->scale));
    UG_ASSERT(x && elems && scales);
    q_fill(B, d, ug_seed(t), x);
    ug_quantize_call c = {.x = x, .rows = Q_ROWS, .cols = Q_COLS, .elems = elems, .scales = scales};
    int rc = q->run(q, B, &c);
    bool ran = rc != -2;
    if (rc == -2) {
        ug_note(t, "%s: skipped: %s", q->name, c.err);
    } else {
        UG_EXPECT_MSG(rc == 0, "%s: %s", q->name, c.err);
    }
    if (rc == 0) {
        ug_case_ran_kernel(t); /* measured: a run narrowed to q is not "nothing measured" */
        ug_qgrade g;
        char err[256], what[512];
        UG_EXPECT_MSG(ug_quantize_grade(B, q->rule, &c, &g, err, sizeof err) == 0, "%s", err);
        ug_qgrade_text(B, q->rule, &g, what, sizeof what);
        UG_EXPECT_MSG(g.scale_differ == 0 && g.elem_wrong == 0 && !g.tensor_differs,
                      "%s (%s, rule %s) on %s: %s", q->name, B->name, ug_scale_rule_name(q->rule),
                      q_data_names[d], what);
        char fig[256];
        snprintf(fig, sizeof fig, "%zu of %zu block scales differ from the rule (%.2f%%); %zu "
                 "blocks keep more error than the best the format could do (worst excess %.3g)",
                 g.scale_differ, g.blocks, 100.0 * (double)g.scale_differ / (double)g.blocks,
                 g.err_worse_blocks, g.err_excess_max);
        ug_note(t, "%s on %s: %s", q->name, q_data_names[d], fig);
        ug_point_finding(t, "%s", fig); /* the row's note: results.json and the report */
    }
    free(x);
    free(elems);
    free(scales);
    return ran;
}

/* Every quantizer that is (or is not) a canary, CUDA or CPU, on data set d; name_part: a
 * substring the name must hold (NULL: any). */
static void q_each(ug_t *t, bool canary, bool cuda, q_data d, const char *name_part)
{
    for (size_t i = 0; ug_quantizer_at(i); i++) {
        const ug_quantizer *q = ug_quantizer_at(i);
        if (q->should_fail != canary || q->cuda != cuda) continue;
        if (name_part && !strstr(q->name, name_part)) continue;
        if (!ug_builtin_selected(t, q->name)) continue; /* --kernel, --no-builtin */
        if (!q_grade(t, q, d)) return; /* no device: said once */
    }
}

#endif
