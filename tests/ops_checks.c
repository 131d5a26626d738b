/*
 * ops_checks.c - the operation table (ops/op.h): the registry's lookups, its refusals, and what
 * the built-in descriptors say about their shapes (the numbers the run loop, the limits, the
 * corpus files and the hunt take from them).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/run/ug.h"

/* Every built-in sits at its id and is found by its name; an unknown id or name is NULL. */
UG_CASE(ops, registry)
{
    static const struct {
        ug_op id;
        const char *name;
    } builtin[] = {{UG_OP_SUM, "sum"},         {UG_OP_DOT, "dot"},
                   {UG_OP_GEMM, "gemm"},       {UG_OP_SCAN, "scan"},
                   {UG_OP_EXSCAN, "exscan"},   {UG_OP_NRM2, "nrm2"},
                   {UG_OP_ASUM, "asum"},       {UG_OP_SOFTMAX, "softmax"},
                   {UG_OP_LOGSUMEXP, "logsumexp"}, {UG_OP_RMSNORM, "rmsnorm"},
                   {UG_OP_LAYERNORM, "layernorm"}};
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
        const ug_op_desc *d = ug_op_get(builtin[i].id);
        UG_ASSERT_MSG(d != NULL, "no descriptor at id %d", builtin[i].id);
        UG_EXPECT_MSG(strcmp(d->shape->name, builtin[i].name) == 0 && d->shape->id == builtin[i].id,
                      "id %d is '%s'", builtin[i].id, d->shape->name);
        UG_EXPECT(ug_op_find(builtin[i].name) == d && ug_op_at(i) == d);
        UG_EXPECT(strcmp(ug_op_name(builtin[i].id), builtin[i].name) == 0);
    }
    UG_EXPECT(ug_op_count() >= UG_OP_BUILTIN);
    UG_EXPECT(ug_op_get(-1) == NULL && ug_op_get(UG_OP_BUILTIN + 40) == NULL);
    UG_EXPECT(ug_op_find("no_such_op") == NULL && ug_op_find(NULL) == NULL);
    char unknown[16];
    snprintf(unknown, sizeof unknown, "op#%d", UG_OP_BUILTIN + 40);
    UG_EXPECT(strcmp(ug_op_name(UG_OP_BUILTIN + 40), unknown) == 0);
    char names[128];
    UG_EXPECT_MSG(strncmp(ug_op_names(names, sizeof names), "sum, dot", 8) == 0, "%s", names);
}

/* ug_op_register refuses a taken name, an incomplete descriptor and a shape the table
 * refuses, and changes nothing. */
UG_CASE(ops, register_refuses)
{
    size_t before = ug_op_count(), shapes = ug_opshape_count();
    ug_op_desc dup = ug_op_sum_desc;
    ug_opshape dup_shape = *ug_op_sum_desc.shape;
    UG_EXPECT(ug_op_register(&dup, &dup_shape) == -1); /* "sum" is taken */
    ug_op_desc partial = ug_op_sum_desc;
    ug_opshape sh = {.name = "sum_without_exact", .arity = 1};
    partial.exact = NULL;
    UG_EXPECT(ug_op_register(&partial, &sh) == -1);
    partial = ug_op_sum_desc;
    sh = (ug_opshape){.name = "five_inputs", .arity = UG_MAX_INPUTS + 1};
    UG_EXPECT(ug_op_register(&partial, &sh) == -1);
    /* a vector operation whose inputs hold more than 3 vectors of n: a corpus line holds 3 */
    partial = ug_op_layernorm_desc;
    sh = (ug_opshape){.name = "four_vectors", .arity = 2, .in_width = {1, 3}};
    UG_EXPECT(ug_op_register(&partial, &sh) == -1);
    /* a matmul layout of other than three dims */
    sh = (ug_opshape){.name = "flat_matmul", .arity = 2, .layout = UG_LAYOUT_MATMUL};
    UG_EXPECT(ug_op_register(&partial, &sh) == -1);
    UG_EXPECT(ug_op_count() == before && ug_opshape_count() == shapes &&
              ug_op_find("sum_without_exact") == NULL && ug_opshape_find("flat_matmul") == NULL);
}

/* A LayerNorm's input 1 is its parameters [w | b] (ops/layernorm.c): two vectors of n, drawn
 * from (seed, trial) alone, the weights those of RMSNorm's draw, the biases k/256, |k| <= 64. */
UG_CASE(ops, layernorm_params)
{
    const ug_op_desc *ln = &ug_op_layernorm_desc, *rms = &ug_op_rmsnorm_desc;
    ug_shape v = ug_shape_square(100);
    UG_EXPECT(ug_op_in_len(ln, &v, 0) == 100 && ug_op_in_len(ln, &v, 1) == 200 && ln->shape->arity == 2);
    UG_EXPECT(ug_op_in_width(ln, 0) == 1 && ug_op_in_width(ln, 1) == 2 && ug_op_width(ln) == 3);
    UG_EXPECT(ug_op_width(rms) == 2 && ug_op_width(&ug_op_softmax_desc) == 1 &&
              ug_op_width(&ug_op_dot_desc) == 2 && ug_op_in_width(&ug_op_gemm_desc, 1) == 1);
    float p[200], q[200], r[100], o[200];
    ln->fill_params(p, &v, 7, 3);
    ln->fill_params(q, &v, 7, 3);
    rms->fill_params(r, &v, 7, 3);
    ln->fill_params(o, &v, 7, 4);
    bool same = memcmp(p, q, sizeof p) == 0, weights = memcmp(p, r, sizeof r) == 0;
    bool other = memcmp(p, o, sizeof p) != 0, range = true, nonzero = false;
    for (int i = 100; i < 200; i++) {
        range &= fabsf(p[i]) <= 0.25f && p[i] * 256 == (float)(int)(p[i] * 256);
        nonzero |= p[i] != 0;
    }
    UG_EXPECT_MSG(same && weights && other && range && nonzero,
                  "reproducible %d, weights as rmsnorm's %d, another trial differs %d, biases "
                  "k/256 in [-1/4, 1/4] %d, some nonzero %d", same, weights, other, range, nonzero);
}

/* The shapes: input lengths, outputs, terms (the bound's n), work, rates; parsing and naming. */
UG_CASE(ops, shapes)
{
    const ug_op_desc *sum = ug_op_get(UG_OP_SUM), *dot = ug_op_get(UG_OP_DOT),
                     *gemm = ug_op_get(UG_OP_GEMM);
    ug_shape v = ug_shape_square(1000), g = {{3, 5, 7}};
    UG_EXPECT(ug_op_in_len(sum, &v, 0) == 1000 && sum->shape->arity == 1 && ug_op_outputs(sum, &v) == 1);
    UG_EXPECT(ug_op_terms(sum, &v) == 1000 && ug_opshape_bytes(sum->shape, &v) == 4000 && sum->shape->rate == UG_RATE_GBPS);
    UG_EXPECT(ug_op_in_len(dot, &v, 1) == 1000 && dot->shape->arity == 2 && ug_opshape_bytes(dot->shape, &v) == 8000);
    UG_EXPECT(sum->terms_kind == UG_TERMS_VALUES && dot->terms_kind == UG_TERMS_PRODUCTS);
    UG_EXPECT(ug_op_in_len(gemm, &g, 0) == 21 && ug_op_in_len(gemm, &g, 1) == 35); /* A 3x7, B 7x5 */
    UG_EXPECT(ug_op_outputs(gemm, &g) == 15 && ug_op_terms(gemm, &g) == 7 && ug_op_work(gemm, &g) == 105);
    UG_EXPECT(ug_opshape_flops(gemm->shape, &g) == 210 && gemm->shape->rate == UG_RATE_GFLOPS);
    UG_EXPECT(ug_op_elements_in(gemm, &g) == 56 && ug_op_elements_in(dot, &v) == 2000);

    char buf[64], err[128];
    ug_shape s;
    UG_EXPECT(ug_op_parse_shape(gemm, "2x3x4", 4096, &s, err, sizeof err) == 0 &&
              s.dim[0] == 2 && s.dim[1] == 3 && s.dim[2] == 4);
    UG_EXPECT(ug_op_parse_shape(gemm, "64", 4096, &s, err, sizeof err) == 0 &&
              s.dim[0] == 64 && s.dim[1] == 64 && s.dim[2] == 64);
    UG_EXPECT(ug_op_parse_shape(gemm, "2x0x4", 4096, &s, err, sizeof err) == -1);
    UG_EXPECT_MSG(strstr(err, "is not N or MxNxK") != NULL, "%s", err);
    UG_EXPECT(ug_op_parse_shape(sum, "1e6", (size_t)1 << 24, &s, err, sizeof err) == 0 &&
              s.dim[0] == 1000000);
    UG_EXPECT(ug_op_parse_shape(sum, "2x3x4", 4096, &s, err, sizeof err) == -1);
    UG_EXPECT(strcmp(ug_op_shape_text(gemm, &g, true, buf, sizeof buf), "3x5x7") == 0);
    ug_shape sq = ug_shape_square(8);
    UG_EXPECT(strcmp(ug_op_shape_text(gemm, &sq, true, buf, sizeof buf), "8") == 0);
    UG_EXPECT(strcmp(ug_op_shape_text(gemm, &sq, false, buf, sizeof buf), "8x8x8") == 0);
    UG_EXPECT(strcmp(ug_op_shape_text(sum, &v, false, buf, sizeof buf), "1000") == 0);
}

/* The bound goes through the kernel's operation: the same class, one more rounding for products. */
UG_CASE(ops, bound_through_descriptor)
{
    ug_kernel k;
    memset(&k, 0, sizeof k);
    k.bound = UG_BOUND_TREE;
    k.depth = ug_depth_serial;
    k.op = UG_OP_SUM;
    double s = ug_kernel_bound(&k, 100, 1.0, 1.0);
    k.op = UG_OP_DOT;
    double d = ug_kernel_bound(&k, 100, 1.0, 1.0);
    k.op = UG_OP_GEMM;
    double g = ug_kernel_bound(&k, 100, 1.0, 1.0);
    UG_EXPECT_MSG(s == ug_bound_terms(&k, UG_TERMS_VALUES, 100, 1.0, 1.0) && d > s && g == d,
                  "sum %g dot %g gemm %g", s, d, g);
}

/* A GEMM drawn in binary64 (the DGEMM family's input, cases/gpu/gpu_matmul.c): the operands
 * stay binary64 (no binary32 copies) and every element's record is the binary64 dot oracle's
 * of its row and column, recomputed here by MPFR (an independent path). */
UG_CASE(ops, gemm_f64_input)
{
    const size_t M = 5, N = 3, K = 70;
    ug_dist d = ug_in_format(ug_normal(0, 1), UG_F64);
    ug_input *in = ug_input_make_shape(t, UG_OP_GEMM, &d, &(ug_shape){{M, N, K}}, 2);
    for (int i = 0; i < in->trials; i++) {
        const double *A = in->data[0][i], *B = in->data[1][i];
        UG_EXPECT(in->fmt[0] == UG_F64 && in->fmt[1] == UG_F64 && A && B && !in->x[i]);
        if (!A || !B) continue;
        size_t frac = 0; /* values that are not binary32: the draw is binary64 */
        for (size_t e = 0; e < M * K; e++) frac += (double)(float)A[e] != A[e];
        UG_EXPECT_MSG(frac > M * K / 2, "%zu of %zu values of A are not binary32", frac, M * K);
        for (size_t e = 0; e < M * N; e++) {
            ug_exact want;
            ug_exact_dot_f64_mpfr(A + (e / N) * K, 1, B + e % N, N, K, &want);
            const ug_exact *got = &in->exact[i][e];
            UG_EXPECT_MSG(got->hi == want.hi && got->lo == want.lo && got->rn == want.rn,
                          "trial %d element %zu: hi %a lo %a, MPFR %a %a", i, e, got->hi, got->lo,
                          want.hi, want.lo);
        }
    }
    ug_input_free(t, in);
}
