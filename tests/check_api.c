/*
 * check_api.c - the grading library of `ulpgate check` and the Python module
 * (harness/check/check.h) called directly, on arrays in memory: what the .npy front end cannot
 * show.
 *
 *   - a big-endian array grades as its native twin, figure for figure;
 *   - empty arrays (a NULL data pointer): (0, n) no outputs, (B, 0) B empty sums;
 *   - the options refused with a message before any data: an operation check does not grade,
 *     eps other than the descriptor's, eps for a sum, the wrong number of inputs, an axis for a
 *     sum; a shape whose product overflows;
 *   - strides (base/array.h): the canonical ones and an extent-1 axis's any stride graded, a
 *     transposed array refused naming its strides (sum and attention);
 *   - the failure text: the worst element and the verdict, as the table prints them;
 *   - the operations graded come from the registry: every built-in one `check` documents.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/check/check.h"
#include "harness/run/ug.h"

static ug_array arr(const char *name, const void *data, ug_fmt f, int ndim, size_t d0,
                    size_t d1)
{
    ug_array a = {.name = name, .data = data, .fmt = f, .ndim = ndim, .shape = {d0, d1}};
    return a;
}

UG_CASE(check_api, byte_order)
{
    enum { B = 3, N = 100 };
    float x[B * N], g[B];
    unsigned char xs[sizeof x];
    for (int i = 0; i < B * N; i++) x[i] = (float)sin(i * 0.7) * (float)(1 << (i % 13));
    for (int b = 0; b < B; b++) {
        g[b] = 0;
        for (int i = 0; i < N; i++) g[b] += x[b * N + i];
    }
    for (size_t i = 0; i < sizeof x; i++) xs[i] = ((unsigned char *)x)[i / 4 * 4 + 3 - i % 4];
    ug_check_opts o;
    ug_check_opts_init(&o);
    o.op = "sum";
    ug_array in = arr("x", x, UG_F32, 2, B, N), got = arr("got", g, UG_F32, 1, B, 0);
    ug_array swapped = in;
    swapped.data = xs;
    swapped.big_endian = true;
    ug_check_result r1, r2;
    char err[512];
    UG_EXPECT_MSG(ug_check_run(&o, &in, 1, &got, &r1, err, sizeof err) == 0, "native: %s", err);
    UG_EXPECT_MSG(ug_check_run(&o, &swapped, 1, &got, &r2, err, sizeof err) == 0, "swapped: %s",
                  err);
    UG_EXPECT_MSG(r1.outputs == B && r1.ulp_max == r2.ulp_max && r1.ulp_sum == r2.ulp_sum &&
                      r1.worst == r2.worst && r1.worst_e.hi == r2.worst_e.hi &&
                      r1.rtol == r2.rtol && r1.atol == r2.atol,
                  "big-endian: ulp max %g vs %g, worst %zu vs %zu", r1.ulp_max, r2.ulp_max,
                  r1.worst, r2.worst);
}

UG_CASE(check_api, empty)
{
    ug_check_opts o;
    ug_check_opts_init(&o);
    o.op = "sum";
    o.ulp_max = 0;
    ug_check_result r;
    char err[512] = "";
    ug_array x0 = arr("x", NULL, UG_F32, 2, 0, 7), g0 = arr("got", NULL, UG_F32, 1, 0, 0);
    UG_EXPECT_MSG(ug_check_run(&o, &x0, 1, &g0, &r, err, sizeof err) == 0, "(0, 7): %s", err);
    UG_EXPECT_MSG(r.outputs == 0 && !r.ok && strstr(r.verdict, "no outputs"),
                  "(0, 7) under a limit: %zu outputs, verdict '%s'", r.outputs, r.verdict);
    float zeros[4] = {0, 0, 0, 0};
    ug_array x4 = arr("x", NULL, UG_F32, 2, 4, 0), g4 = arr("got", zeros, UG_F32, 1, 4, 0);
    UG_EXPECT_MSG(ug_check_run(&o, &x4, 1, &g4, &r, err, sizeof err) == 0, "(4, 0): %s", err);
    UG_EXPECT_MSG(r.outputs == 4 && r.correctly_rounded == 4 && r.ok,
                  "(4, 0): %zu outputs, %zu correctly rounded, verdict '%s'", r.outputs,
                  r.correctly_rounded, r.verdict);
}

UG_CASE(check_api, refused)
{
    ug_check_opts o;
    const ug_op_desc *op;
    int inputs;
    char err[512];
    ug_check_opts_init(&o);
    o.op = "no_such_op";
    UG_EXPECT_MSG(ug_check_prepare(&o, &op, &inputs, err, sizeof err) == 2 &&
                      strstr(err, "no_such_op"),
                  "an unknown operation: '%s'", err);
    o.op = "rmsnorm";
    o.eps = 1e-5;
    UG_EXPECT_MSG(ug_check_prepare(&o, &op, &inputs, err, sizeof err) == 0 && inputs == 2,
                  "rmsnorm with eps 1e-5 (the descriptor's): '%s'", err);
    o.eps = 1e-6;
    UG_EXPECT_MSG(ug_check_prepare(&o, &op, &inputs, err, sizeof err) == 2 && strstr(err, "eps"),
                  "rmsnorm with eps 1e-6: '%s'", err);
    o.op = "sum";
    o.eps = 1e-5;
    UG_EXPECT_MSG(ug_check_prepare(&o, &op, &inputs, err, sizeof err) == 2, "sum with eps: '%s'",
                  err);
    o.eps = 0;
    o.axis = -1;
    UG_EXPECT_MSG(ug_check_prepare(&o, &op, &inputs, err, sizeof err) == 2 && strstr(err, "axis"),
                  "sum with an axis: '%s'", err);
    o.axis = UG_CHECK_AXIS_NONE;
    o.bound = "kahan"; /* a class of sum's: graded by its own bound */
    UG_EXPECT_MSG(ug_check_prepare(&o, &op, &inputs, err, sizeof err) == 0, "bound kahan: '%s'",
                  err);
    o.bound = "softmax_online"; /* another operation's class: refused, naming sum's */
    UG_EXPECT_MSG(ug_check_prepare(&o, &op, &inputs, err, sizeof err) == 2 &&
                      strstr(err, "softmax_online") && strstr(err, "kahan"),
                  "bound softmax_online: '%s'", err);
    o.bound = NULL;
    float x[2] = {1, 2}, g = 3;
    ug_array in[2] = {arr("x", x, UG_F32, 1, 2, 0), arr("y", x, UG_F32, 1, 2, 0)};
    ug_array got = arr("got", &g, UG_F32, 0, 0, 0);
    ug_check_result r;
    UG_EXPECT_MSG(ug_check_run(&o, in, 2, &got, &r, err, sizeof err) == 2 && strstr(err, "takes 1"),
                  "sum of two arrays: '%s'", err);
    ug_array huge = arr("x", x, UG_F32, 2, (size_t)1 << 40, (size_t)1 << 40);
    UG_EXPECT_MSG(ug_check_run(&o, &huge, 1, &got, &r, err, sizeof err) == 2 && strstr(err, "x: "),
                  "a shape of 2^80 elements: '%s'", err);
}

UG_CASE(check_api, strides)
{
    float x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, g[3] = {10, 26, 42};
    ug_check_opts o;
    ug_check_opts_init(&o);
    o.op = "sum";
    o.correctly_rounded = true;
    ug_array in = arr("x", x, UG_F32, 2, 3, 4), got = arr("got", g, UG_F32, 1, 3, 0);
    ug_check_result r;
    char err[512] = "", text[64];
    ug_array_c_strides(&in);
    UG_EXPECT_MSG(in.strides[0] == 4 && in.strides[1] == 1 && ug_array_count(&in) == 12 &&
                      !strcmp(ug_array_strides_text(&in, text, sizeof text), "(4, 1)"),
                  "C strides of (3, 4): %s", text);
    UG_EXPECT_MSG(ug_check_run(&o, &in, 1, &got, &r, err, sizeof err) == 0 && r.ok,
                  "C strides given: '%s' %s", err, r.verdict);
    ug_array one = arr("x", x, UG_F32, 2, 1, 12), got1 = arr("got", g, UG_F32, 1, 1, 0);
    one.strides[0] = 99; /* an axis of extent 1: its stride is never read */
    one.strides[1] = 1;
    g[0] = 78;
    UG_EXPECT_MSG(ug_check_run(&o, &one, 1, &got1, &r, err, sizeof err) == 0 && r.ok,
                  "(1, 12) strides (99, 1): '%s' %s", err, r.verdict);
    g[0] = 10;
    ug_array tr = arr("x", x, UG_F32, 2, 3, 4); /* x read as a transposed view */
    tr.strides[0] = 1;
    tr.strides[1] = 3;
    UG_EXPECT_MSG(ug_check_run(&o, &tr, 1, &got, &r, err, sizeof err) == 2 &&
                      strstr(err, "x: strides (1, 3) (elements) of shape (3, 4): not C-contiguous"),
                  "transposed strides: '%s'", err);
    ug_array s0 = arr("x", x, UG_F32, 0, 0, 0), s1 = arr("x", x, UG_F32, 1, 3, 0);
    UG_EXPECT_MSG(!strcmp(ug_array_shape_text(&s0, text, sizeof text), "()") &&
                      !strcmp(ug_array_shape_text(&s1, text, sizeof text), "(3,)") &&
                      ug_array_count(&s0) == 1,
                  "shape text of () and (3,): %s", text);
    float q[8] = {0};
    ug_array qkv[3] = {arr("q", q, UG_F32, 2, 2, 4), arr("k", q, UG_F32, 2, 2, 4),
                       arr("v", q, UG_F32, 2, 2, 4)};
    ug_array o_got = arr("o", q, UG_F32, 2, 2, 4);
    qkv[1].strides[0] = 1;
    qkv[1].strides[1] = 2;
    ug_check_result ro, rl;
    ug_check_opts_init(&o);
    o.op = "attention";
    UG_EXPECT_MSG(ug_check_attention(&o, qkv, &o_got, NULL, &ro, &rl, err, sizeof err) == 2 &&
                      strstr(err, "k: strides (1, 2)"),
                  "attention, K transposed: '%s'", err);
    qkv[1].strides[0] = qkv[1].strides[1] = 0;
    qkv[0].ndim = UG_ARRAY_MAX_DIMS + 1;
    UG_EXPECT_MSG(ug_check_attention(&o, qkv, &o_got, NULL, &ro, &rl, err, sizeof err) == 2 &&
                      strstr(err, "q: 9 dimensions"),
                  "attention, Q of 9 dimensions: '%s'", err);
}

UG_CASE(check_api, failure_text)
{
    float x[3] = {1, 2, 3}, g = 7;
    ug_check_opts o;
    ug_check_opts_init(&o);
    o.op = "sum";
    o.ulp_max = 1;
    ug_array in = arr("x", x, UG_F32, 1, 3, 0), got = arr("got", &g, UG_F32, 0, 0, 0);
    ug_check_result r;
    char err[512];
    UG_ASSERT_MSG(ug_check_run(&o, &in, 1, &got, &r, err, sizeof err) == 0, "%s", err);
    ug_buf b = {0};
    ug_check_failure_text(&b, &r);
    const char *s = ug_buf_str(&b);
    UG_EXPECT_MSG(!r.ok &&
                      strstr(s, "worst      output 0: got 0x40e00000 (0x1.cp+2)  want "
                                "0x40c00000") &&
                      strstr(s, "result     FAIL: ") && r.worst_got_bits == 0x40e00000u,
                  "the failure lines: %s", s);
    ug_buf_free(&b);
}

UG_CASE(check_api, registry)
{
    static const char *const ops[] = {"sum", "dot", "gemm", "scan", "exscan", "nrm2", "asum",
                                      "softmax", "logsumexp", "rmsnorm", "layernorm"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        UG_EXPECT_MSG(ug_check_supported(ug_op_find(ops[i])), "%s is graded by check", ops[i]);
    UG_EXPECT_MSG(ug_check_row_op(ug_op_find("softmax")) && !ug_check_row_op(ug_op_find("nrm2")) &&
                      !ug_check_row_op(ug_op_find("sum")),
                  "row operations: softmax, not nrm2 or sum");
}
