/*
 * e3m1_block.c - a block-scaled format and its quantizer defined in the test tree only: the
 * proof that base/blockfmt.h's ug_blockfmt_register and kernels/quantize.h's
 * ug_quantizer_register take a format the tree does not have, and that ops/quantize.h grades it
 * (tests/toy_fmt/toy_fmt.h; tests/toy_fmt_test.sh runs it through `run --report`, `report` and
 * the gate with the rest of toy_fmt/).
 *
 *   toy_mxfp5          FP5 E3M1 elements (e3m1_format.c), an E8M0 scale per 1x8 block, OCP's
 *                      rule: X = 2^(floor(log2 amax) - 4)
 *   toy_mxfp5_cpu      its quantizer: floor(log2 amax) by frexp, elements by the test's own
 *                      converter (ug_toy_e3m1_code: RN, saturating at 24) of x / X (exact: X a
 *                      power of two).  Built with -DUG_TOY_FP5_TRUNC (the mutant program) the
 *                      conversion truncates instead, which the grade must catch.
 *   toy_fmt/quantize   the quantizer on normal data (rows scaled 2^-8 .. 2^8) and on blocks whose
 *                      amax is a power of two, the binary32 just below one, 24 x 2^k, or zero,
 *                      graded exactly: every scale the rule's, every element RN of x / scale.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/inputs/rng.h"
#include "harness/run/ug.h"
#include "kernels/quantize.h"
#include "ops/quantize.h"
#include "tests/toy_fmt/toy_fmt.h"

/* The element code of q (|q| <= 2^5 here): the reference's, or the mutant's truncation. */
static unsigned ug_toy_block_code(double q)
{
#ifdef UG_TOY_FP5_TRUNC
    unsigned c = 0;
    while (c < 15 && ug_toy_e3m1_value(c + 1) <= fabs(q)) c++;
    return (signbit(q) ? 0x10u : 0) | c;
#else
    return ug_toy_e3m1_code(q);
#endif
}

static int ug_toy_block_run(const ug_quantizer *q, const ug_blockfmt *B, ug_quantize_call *c)
{
    size_t bc = (size_t)B->block_cols;
    if (B->block_rows != 1 || c->cols % bc) {
        snprintf(c->err, sizeof c->err, "%s: columns not a multiple of %zu", q->name, bc);
        return 1;
    }
    c->tensor = 1.0f;
    for (size_t b = 0; b < c->rows * c->cols / bc; b++) {
        const float *x = c->x + b * bc;
        double amax = 0;
        for (size_t j = 0; j < bc; j++) amax = fabs(x[j]) > amax || isnan(x[j]) ? fabs(x[j]) : amax;
        int ex = 0;
        if (amax > 0 && amax < INFINITY) (void)frexp(amax, &ex); /* amax = m 2^ex, m in [1/2, 1) */
        int e = ex - 1 - 4;                                       /* floor(log2 amax) - emax */
        uint8_t code = isnan(amax) || isinf(amax) ? 0xff
                       : amax == 0 || e < -127    ? 0
                                                  : (uint8_t)(e + 127);
        c->scales[b] = code;
        double X = ldexp(1.0, (int)code - 127);
        for (size_t j = 0; j < bc; j++)
            c->elems[b * bc + j] = (uint8_t)(code == 0xff ? 0x0f : ug_toy_block_code(x[j] / X));
    }
    return 0;
}

__attribute__((constructor)) static void ug_toy_block_register(void)
{
    char err[256];
    ug_blockfmt B = {"toy_mxfp5", ug_toy_e3m1(), UG_SCALE_E8M0, 1, 8, false, UG_SRULE_OCP,
                     "test only: FP5 e3m1 elements, an E8M0 scale per 8"};
    ug_quantizer Q = {"toy_mxfp5_cpu", "toy_mxfp5", UG_SRULE_OCP, false, false, 0,
                      "test only: OCP scale by frexp, the toy's own e3m1 converter",
                      ug_toy_block_run};
    if (ug_blockfmt_register(&B, err, sizeof err) < 0 ||
        ug_quantizer_register(&Q, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
}

// --- the case ---------------------------------------------------------------------------------

enum { TB_ROWS = 16, TB_COLS = 64, TB_N = TB_ROWS * TB_COLS };

UG_CASE(toy_fmt, quantize)
{
    static const char *const sets[] = {"normal", "maxima"};
    const ug_quantizer *q = NULL;
    for (size_t i = 0; ug_quantizer_at(i); i++)
        if (!strcmp(ug_quantizer_at(i)->name, "toy_mxfp5_cpu")) q = ug_quantizer_at(i);
    const ug_blockfmt *B = ug_blockfmt_by_name("toy_mxfp5");
    UG_ASSERT_MSG(q && B, "the toy quantizer or block format is not registered");
    for (int s = 0; s < 2; s++) {
        ug_point(t, "toy_mxfp5_cpu on %s", sets[s]);
        float x[TB_N];
        uint8_t elems[TB_N], scales[TB_N / 8];
        ug_stream st = ug_stream_make(ug_seed(t), ug_hash64(sets[s], UG_HASH64_INIT), 0);
        for (size_t i = 0; i < TB_N; i++) {
            double u1 = ug_rng_unit(&st, 2 * i), u2 = ug_rng_unit(&st, 2 * i + 1);
            double g = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
            x[i] = s == 0 ? (float)ldexp(g, (int)(i / TB_COLS) - 8) : (float)(u1 - 0.5);
        }
        for (size_t b = 0; s == 1 && b < TB_N / 8; b++) { /* amax: the value that decides X */
            float p = ldexpf(1.0f, (int)(b / 4 % 17) - 8), a[] = {p, nextafterf(p, 0), 24 * p, 0};
            for (size_t j = 0; j < 8; j++) x[b * 8 + j] *= a[b % 4];
            x[b * 8 + b % 8] = b & 1 ? -a[b % 4] : a[b % 4];
        }
        ug_quantize_call c = {.x = x, .rows = TB_ROWS, .cols = TB_COLS, .elems = elems,
                              .scales = scales};
        UG_ASSERT_MSG(q->run(q, B, &c) == 0, "%s", c.err);
        ug_qgrade g;
        char err[256], what[512];
        UG_ASSERT_MSG(ug_quantize_grade(B, q->rule, &c, &g, err, sizeof err) == 0, "%s", err);
        ug_qgrade_text(B, q->rule, &g, what, sizeof what);
        UG_EXPECT_MSG(g.scale_differ == 0 && g.elem_wrong == 0, "toy_mxfp5_cpu on %s: %s",
                      sets[s], what);
        ug_point_finding(t, "%zu of %zu block scales differ from the rule; %zu blocks keep more "
                         "error than the best the format could do", g.scale_differ, g.blocks,
                         g.err_worse_blocks);
    }
}
