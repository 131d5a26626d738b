/*
 * tcmodel_test.c - the tensor-core model (oracle/tc/tcmodel.h) and its probe (tcprobe.h) on the
 * CPU: meson test tcmodel.
 *
 *   tcmodel/fasi_vectors    the test vectors of Fasi, Higham, Mikaitis, Pranesh (PeerJ CS 2021;
 *                           github north-numerical-computing/tensor-cores-numerical-behavior,
 *                           tc_test_numerics-A100-bf16.cu) through the published A100 bf16 and
 *                           V100 models: each expected output derived by hand below from the
 *                           model's steps, and each agreeing with the suite's pass condition
 *                           (the feature the paper reports) where the suite states one
 *   tcmodel/exact_when_exact  small-integer inputs whose every partial sum is exact: every
 *                           model, published or not, returns the exact sum
 *   tcmodel/special         NaN, infinities, inf * 0, inf - inf, zeros
 *   tcmodel/probe_recovers  the probe run against the model as a kernel (the same GEMM path as
 *                           a GPU kernel) recovers every parameter the model was built with, for
 *                           every published row with binary32 output and for synthetic models
 *                           that change each parameter (the probe's own proof)
 *   tcmodel/table           the published table loads; a malformed one is refused, naming the
 *                           file and line
 *   tcmodel/bound_models    the block_fma bound's parameters per GPU from the table
 *                           (ug_tc_block_models): the H100's own rows; for a GPU the table does
 *                           not name, the most pessimistic row of each format pair
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/ug.h"
#include "oracle/tc/tcprobe.h"

static ug_tc_published g_rows[UG_TC_TABLE_MAX];

static int tc_table(ug_t *t)
{
    char err[512];
    int n = ug_tc_table_load(NULL, g_rows, UG_TC_TABLE_MAX, err, sizeof err);
    UG_ASSERT_MSG(n > 0, "the published table: %s", err);
    return n;
}

static const ug_tc_params *tc_row(ug_t *t, int n, const char *gpu, ug_fmt in, ug_fmt out)
{
    const ug_tc_published *r = ug_tc_table_find(g_rows, n, gpu, in, out);
    UG_ASSERT_MSG(r != NULL, "no %s %s -> %s row in reports/tensorcore/params.tsv", gpu,
                  ug_fmt_name(in), ug_fmt_name(out));
    return &r->p;
}

/* One block of 4 products and c, checked against the expected value. */
static void tc_expect(ug_t *t, const ug_tc_params *p, const char *what, const double a[4],
                      const double b[4], double c, double want)
{
    double d = ug_tc_block(p, a, b, 4, c);
    UG_EXPECT_MSG(d == want, "%s (%s, block %d, neab %d): got %a, want %a", what,
                  ug_fmt_name(p->in_fmt), p->block, p->neab, d, want);
}

UG_CASE(tcmodel, fasi_vectors)
{
    int n = tc_table(t);
    const ug_tc_params *A = tc_row(t, n, "A100", UG_BF16, UG_F32);
    const ug_tc_params *V = tc_row(t, n, "V100", UG_F16, UG_F32);
    const double u24 = 0x1p-24, u23 = 0x1p-23;
    ug_point(t, "A100 bf16: products, binary32 accumulation, truncation");
    /* B: (1 - 2^-8)^2 = 1 - 2^-7 + 2^-16: 16 bits, far above the grid 2^-24: exact */
    tc_expect(t, A, "product exact", (double[]){1 - 0x1p-8, 0, 0, 0}, (double[]){1 - 0x1p-8, 0, 0, 0},
              0, 1 - 0x1p-7 + 0x1p-16);
    /* B: 1 + 4 * (0.5 * 2^-24): each product 2^-25, below the grid 2^-(23+1) of c = 1: cut */
    tc_expect(t, A, "binary32 accumulation", (double[]){0.5, 0.5, 0.5, 0.5},
              (double[]){u24, u24, u24, u24}, 1, 1);
    /* C: 2 + 1.5 * 2^-23: grid 2^(1-24) keeps 2^-23 of it, 2 + 2^-23 truncates (RZ) to 2 */
    tc_expect(t, A, "round down (positive)", (double[]){1, 1, 1, 1}, (double[]){2, u23 + u24, 0, 0}, 0, 2);
    tc_expect(t, A, "round up (negative)", (double[]){1, 1, 1, 1}, (double[]){-2, -u23 - u24, 0, 0}, 0, -2);
    ug_point(t, "A100 bf16 and V100 f16: the accumulator's features");
    /* D1: 1 - (1 - 2^-24): A100's one extra bit keeps c exactly: 2^-24 (the suite's pass);
     * V100 (neab 0) cuts c's last bit: 1 - 2^-23 is subtracted, 2^-23 ("no guard digits") */
    tc_expect(t, A, "extra alignment bit", (double[]){1, 0, 0, 0}, (double[]){1, 0, 0, 0}, -(1 - u24), u24);
    tc_expect(t, V, "no guard digit", (double[]){1, 0, 0, 0}, (double[]){1, 0, 0, 0}, -(1 - u24), u23);
    /* D2: 1 - 2^-24 + 4 * 2^-24 = 1 + 3 * 2^-24, exact at the grid 2^-25, normalised once and
     * truncated to 1 + 2^-23 (the suite's pass) */
    tc_expect(t, A, "normalisation in addition", (double[]){1, 1, 1, 1},
              (double[]){u24, u24, u24, u24}, 1 - u24, 1 + u23);
    /* D4: 3 + 2^-23 + (1 + 2^-22 + 2^-23) = 4 + 2^-21 exactly (carry-out bits: no overflow of
     * the fixed-point sum), and 1 + 1.5 + 1.75 + 1.875 + 1.875 = 8 */
    tc_expect(t, A, "carry out", (double[]){1, 1, 1, 1}, (double[]){1, 1, 1, u23}, 1 + 0x1p-22 + u23,
              4 + 0x1p-21);
    tc_expect(t, A, "third carry bit", (double[]){1, 1, 1, 1}, (double[]){1, 1.5, 1.75, 1.875}, 1.875, 8);
    /* D4: 4 + 1 + 2^-22 + 2^-23 = 5 + 3 * 2^-23 in the binade of 4 (last place 2^-21):
     * truncated to 5, and -5 for the negatives */
    tc_expect(t, A, "round down in normalisation", (double[]){1, 1, 1, 1}, (double[]){1, 1, 1, 1},
              1 + 0x1p-22 + u23, 5);
    tc_expect(t, A, "round up in normalisation", (double[]){1, 1, 1, 1}, (double[]){-1, -1, -1, -1},
              -1 - 0x1p-22 - u23, -5);
    /* A: subnormal inputs and outputs: 2^-133 * 2^7 = 2^-126; 2^-126 * 2^-1 = 2^-127 (a binary32
     * subnormal, produced); 2^-126 - 2^-127 = 2^-127 */
    tc_expect(t, A, "bf16 subnormal input", (double[]){0x1p-133, 0, 0, 0}, (double[]){128, 0, 0, 0}, 0, 0x1p-126);
    tc_expect(t, A, "binary32 subnormal output", (double[]){0x1p-126, 0, 0, 0}, (double[]){0.5, 0, 0, 0}, 0,
              0x1p-127);
    tc_expect(t, A, "binary32 subnormal c", (double[]){0x1p-126, 0, 0, 0}, (double[]){1, 0, 0, 0}, -0x1p-127,
              0x1p-127);
}

/* splitmix64 */
static uint64_t tc_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

UG_CASE(tcmodel, exact_when_exact)
{
    /* inputs -7..7 (exact in every input format: 3 bits), K = 96: every partial sum is an
     * integer of magnitude at most 96 * 49 < 2^13, so every term and block result is an
     * integer below 2^13: the alignment grid 2^(m - 23 - E) with m <= 12, E >= neab >= -10 is
     * at most 2^-1, and a block's result has at most 13 bits <= acc_p (>= 14 here): no
     * alignment or rounding of any of these models changes anything */
    static const ug_fmt fmts[] = {UG_F16, UG_BF16, UG_TF32, UG_E4M3, UG_E5M2};
    uint64_t s = 0x7c0de;
    for (int m = 0; m < 40; m++) {
        ug_tc_params p = {.in_fmt = fmts[m % 5], .out_fmt = UG_F32, .block = 1 + (int)(tc_rng(&s) % 40),
                          .neab = -10 + (int)(tc_rng(&s) % 12), .carry_bit = m & 1,
                          .align = (ug_tc_rmode)(m / 2 % 2), .final = (ug_tc_rmode)(m / 4 % 2),
                          .in_subnormals = true, .out_subnormals = true};
        double a[96], b[96], exact = 0;
        for (int i = 0; i < 96; i++) {
            a[i] = (double)((int)(tc_rng(&s) % 15) - 7);
            b[i] = (double)((int)(tc_rng(&s) % 15) - 7);
            exact += a[i] * b[i];
        }
        double d = ug_tc_dot(&p, a, 1, b, 1, 96, 0);
        ug_point(t, "model %d (%s, block %d, neab %d)", m, ug_fmt_name(p.in_fmt), p.block, p.neab);
        UG_EXPECT_MSG(d == exact, "got %a, exact %a", d, exact);
    }
}

UG_CASE(tcmodel, special)
{
    ug_tc_params p = {.in_fmt = UG_BF16, .out_fmt = UG_F32, .block = 16, .neab = 2, .carry_bit = true,
                      .in_subnormals = true, .out_subnormals = true};
    double one[3] = {1, 1, 1};
    struct {
        double a[3], c, want;
        const char *what;
    } v[] = {
        {{1, NAN, 1}, 0, NAN, "NaN input"},      {{1, INFINITY, 1}, 0, INFINITY, "+inf"},
        {{-INFINITY, 1, 1}, 0, -INFINITY, "-inf"}, {{INFINITY, -INFINITY, 1}, 0, NAN, "inf - inf"},
        {{1, 1, 1}, NAN, NAN, "NaN c"},          {{0, 0, 0}, 0, 0, "all zero"},
        {{1, -1, 0}, 0, 0, "exact cancellation"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        double d = ug_tc_dot(&p, v[i].a, 1, one, 1, 3, v[i].c);
        ug_point(t, "special %s", v[i].what);
        UG_EXPECT_MSG(d == v[i].want || (isnan(d) && isnan(v[i].want)), "got %a, want %a", d, v[i].want);
    }
    double z[2] = {0, INFINITY}, w[2] = {INFINITY, 0};
    ug_point(t, "special inf * 0");
    UG_EXPECT_MSG(isnan(ug_tc_dot(&p, z, 1, w, 1, 2, 0)), "inf * 0 must be NaN");
    /* overflow: 2^127 * 1.5 twice in one block exceeds binary32 */
    double big[2] = {0x1.8p127, 0x1.8p127};
    ug_point(t, "special overflow");
    UG_EXPECT_MSG(ug_tc_dot(&p, big, 1, one, 1, 2, 0) == INFINITY, "overflow must give +inf");
}

/* Probe the model built from p (through the GEMM path of a kernel); every figure must be
 * measured and equal p's, or be n/a for these formats. */
static void tc_recover(ug_t *t, const char *what, const ug_tc_params *p)
{
    ug_tc_measured m;
    char err[512] = "", line[512];
    ug_point(t, "probe recovers %s", what);
    int rc = ug_tc_probe(ug_tc_dot_kernel, (void *)ug_tc_model_kernel(p), p->in_fmt, p->out_fmt, &m,
                         err, sizeof err);
    UG_ASSERT_MSG(rc == 0, "probe failed: %s", err);
    for (int f = 0; f < UG_TCF_COUNT; f++) {
        bool ok = ug_tc_figure_line((ug_tc_figure)f, &m, p, line, sizeof line);
        UG_EXPECT_MSG(ok, "%s", line);
    }
}

UG_CASE(tcmodel, probe_recovers)
{
    int n = tc_table(t), rows = 0;
    for (int i = 0; i < n; i++) {
        if (g_rows[i].p.out_fmt != UG_F32) continue; /* f16 output: the probe's limits (docs) */
        char what[64];
        snprintf(what, sizeof what, "%s %s", g_rows[i].gpu, ug_fmt_name(g_rows[i].p.in_fmt));
        tc_recover(t, what, &g_rows[i].p);
        rows++;
    }
    UG_EXPECT_MSG(rows >= 10, "only %d published rows with binary32 output", rows);
    /* synthetic models: each parameter away from every published value */
    static const struct {
        const char *what;
        ug_tc_params p;
    } syn[] = {
        {"bf16 block 8, neab 3, no carry, RNE align and final, no subnormals",
         {UG_BF16, UG_F32, 8, 3, false, UG_TC_RNE, UG_TC_RNE, false, false}},
        {"f16 block 5, neab 0, RNE final", {UG_F16, UG_F32, 5, 0, true, UG_TC_RZ, UG_TC_RNE, true, true}},
        {"e4m3 block 24, neab -8, RNE align, no subnormal inputs",
         {UG_E4M3, UG_F32, 24, -8, true, UG_TC_RNE, UG_TC_RZ, false, true}},
        {"e5m2 block 12, neab -4, no carry, RNE final", {UG_E5M2, UG_F32, 12, -4, false, UG_TC_RZ, UG_TC_RNE, true, true}},
        {"tf32 block 3, neab 5", {UG_TF32, UG_F32, 3, 5, true, UG_TC_RZ, UG_TC_RZ, true, true}},
        {"bf16 block 64, neab 1", {UG_BF16, UG_F32, 64, 1, true, UG_TC_RZ, UG_TC_RZ, true, true}},
    };
    for (size_t i = 0; i < sizeof syn / sizeof syn[0]; i++) tc_recover(t, syn[i].what, &syn[i].p);
}

/* The model of in -> acc among m[0..n), or NULL. */
static const ug_block_model *tc_bm(const ug_block_model *m, int n, ug_fmt in, ug_fmt acc)
{
    for (int i = 0; i < n; i++)
        if (m[i].op_fmt == in && m[i].acc_fmt == acc) return &m[i];
    return NULL;
}

UG_CASE(tcmodel, bound_models)
{
    int n = tc_table(t);
    ug_block_model m[UG_TC_TABLE_MAX];
    const char *gpu = NULL;
    static const struct {
        const char *device;
        ug_fmt in, acc;
        int b, t, p;
        const char *why;
    } want[] = {
        {"NVIDIA H100 80GB HBM3", UG_BF16, UG_F32, 16, 2, 24, "the H100's bf16 row"},
        {"NVIDIA H100 80GB HBM3", UG_E4M3, UG_F32, 32, 0, 14, "the H100's fp8 row: p = 24 - 10"},
        {"NVIDIA H100 80GB HBM3", UG_F16, UG_F16, 16, 2, 11, "the H100's fp16-accumulator row"},
        {"NVIDIA L4", UG_F16, UG_F32, 4, 0, 24, "no L4 row: V100's (largest c: 11 2^-23)"},
        {"NVIDIA L4", UG_BF16, UG_F32, 8, 1, 24, "no L4 row: A100's (10 2^-23 > 9.5 2^-23)"},
        {"NVIDIA L4", UG_E4M3, UG_F32, 32, 0, 14, "no L4 row: H100's fp8 (B200's neab 2 is finer)"},
        {"NVIDIA L4", UG_F16, UG_F16, 4, 0, 11, "no L4 row: V100's fp16 accumulator"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int c = ug_tc_block_models(g_rows, n, want[i].device, m, UG_TC_TABLE_MAX, &gpu);
        const ug_block_model *b = tc_bm(m, c, want[i].in, want[i].acc);
        ug_point(t, "bound model %s %s -> %s: %s", want[i].device, ug_fmt_name(want[i].in),
                 ug_fmt_name(want[i].acc), want[i].why);
        UG_EXPECT_MSG(b && b->b == want[i].b && b->t == want[i].t && b->p == want[i].p,
                      "got b %d t %d p %d, want %d %d %d", b ? b->b : -1, b ? b->t : -1,
                      b ? b->p : -1, want[i].b, want[i].t, want[i].p);
        bool named = strstr(want[i].device, "H100") != NULL;
        UG_EXPECT_MSG(named ? gpu && strcmp(gpu, "H100") == 0 : gpu == NULL, "GPU key %s",
                      gpu ? gpu : "(none)");
    }
}

UG_CASE(tcmodel, table)
{
    ug_point(t, "table loads");
    int n = tc_table(t);
    UG_EXPECT_MSG(n >= 20, "%d rows", n);
    UG_EXPECT_MSG(ug_tc_table_gpu_of(g_rows, n, "NVIDIA H100 80GB HBM3") &&
                      strcmp(ug_tc_table_gpu_of(g_rows, n, "NVIDIA H100 80GB HBM3"), "H100") == 0,
                  "an H100's device name must select the H100 rows");
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"gpu\tin\tout\tblock\tneab\tcarry\talign\tfinal\tin_subn\tout_subn\tsource\n"
         "H100\tbf16\tf32\t16\t2\t1\trz\trz\t1\t1\n", ":2: 10 fields"},
        {"gpu\tin\tout\tblock\tneab\tcarry\talign\tfinal\tin_subn\tout_subn\tsource\n"
         "H100\tbf17\tf32\t16\t2\t1\trz\trz\t1\t1\tx\n", ":2: in: not a format name"},
        {"gpu\tin\tout\tblock\tneab\tcarry\talign\tfinal\tin_subn\tout_subn\tsource\n"
         "H100\tbf16\tf32\t0\t2\t1\trz\trz\t1\t1\tx\n", ":2: block must be 1..64"},
        {"gpu\tin\tout\tblock\tneab\tcarry\talign\tfinal\tin_subn\tout_subn\tsource\n"
         "H100\tbf16\tf32\t16\t2\t1\trd\trz\t1\t1\tx\n", ":2: align, final: rz or rne"},
        {"gpu\tin\tout\tblock\tneab\tcarry\talign\tfinal\tin_subn\tout_subn\tsource\n"
         "H100\tbf16\tf32\t16\t2\t1\trz\trz\t1\t1\tx\ty\n", ":2: 12 fields"},
        {"# no header\n", "no header line"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[] = "/tmp/ug_tctable_XXXXXX", err[512] = "";
        int fd = mkstemp(path);
        UG_ASSERT_MSG(fd >= 0, "mkstemp");
        FILE *fp = fdopen(fd, "w");
        fputs(bad[i].text, fp);
        fclose(fp);
        ug_tc_published rows[4];
        int r = ug_tc_table_load(path, rows, 4, err, sizeof err);
        remove(path);
        ug_point(t, "table refuses %s", bad[i].want);
        UG_EXPECT_MSG(r < 0 && strstr(err, bad[i].want) && strstr(err, "/tmp/ug_tctable_"),
                      "load returned %d, error '%s'", r, err);
    }
}
