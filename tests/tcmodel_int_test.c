/*
 * tcmodel_int_test.c - the integer tensor-core model (oracle/tc/tcmodel_int.h, tcmodel_gpu.h)
 * against the reference model (oracle/tc/tcmodel.c, written independently in binary64), bit for
 * bit, and the reference against recorded vectors.
 *
 *   tcmodel_int/rows      (CPU) the host build of the integer model equals tcmodel.c on every
 *                         row of reports/tensorcore/params.tsv (V100, A100, H100, B200, H200;
 *                         every input and output format) and, for the rows of a binary32
 *                         accumulator, stored as bf16 and as fp16 (step 7: lt_bf16_out_bf16,
 *                         lt_f16_out_f16), on the 7 input families of gpu_tcmodel
 *                         (oracle/tc/tcfamily.h) with K = 200 + 13 f (partial blocks):
 *                         >= 10^5 outputs
 *   tcmodel_int/synthetic (CPU) the same on 48 models of random parameters (block 1..64, neab
 *                         -10..8, every rounding, subnormals on and off, every storage)
 *   tcmodel_int/special   (CPU) NaN, infinities, inf * 0, overflow through both
 *   tcmodel_gpu/rows      (GPU suite; skips without a device) the device build
 *                         (oracle/cuda/tcmodel.cu) equals tcmodel.c on the rows and families
 *                         of tcmodel_int/rows
 *   tcmodel_vectors/recorded (CPU) tcmodel.c and the integer model on tests/tcmodel_vectors.tsv:
 *                         dot products recorded from tcmodel.c (every published row, the bf16
 *                         and fp16 storage of the binary32 rows; K = 40, two input families
 *                         each), so that a change of the model's arithmetic shows as a changed
 *                         value even where no GPU runs.  The file is written, not edited:
 *                         ULPGATE_TC_RECORD=tests/tcmodel_vectors.tsv build/tests/ulpgate-selftest
 *                         run --filter tcmodel_vectors/recorded rewrites it from the model (then
 *                         review the diff: every changed value is a change of the model).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/datadir.h"
#include "harness/run/ug.h"
#include "oracle/tc/tcfamily.h"
#include "oracle/tc/tcmodel_gpu.h"
#include "oracle/tc/tcprobe.h"

enum { TCI_M = 32, TCI_N = 32, TCI_STORE_MN = 16, TCI_KMAX = 300 };

typedef int (*tci_gemm_fn)(const ug_tc_params *p, const double *A, const double *B, double *D,
                           size_t M, size_t N, size_t K, char *err, size_t errlen);

/* Bitwise equality of two model outputs (any NaN equals any NaN: the special rule's NaN). */
static bool tci_same(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* One model p on family f (M x N outputs, K terms): the integer model (gemm) against
 * tcmodel.c; the first difference is named.  Returns the outputs compared (0 if gemm failed:
 * unavailable is a skip, anything else a failure). */
static size_t tci_check(ug_t *t, tci_gemm_fn gemm, const char *what, const ug_tc_params *p, int f,
                        size_t M, size_t N, size_t K, bool *unavailable)
{
    static double A[TCI_M * TCI_KMAX], B[TCI_KMAX * TCI_N], D[TCI_M * TCI_N], G[TCI_M * TCI_N];
    char err[512] = "";
    ug_tc_family_fill(f, 0x7c0de5eedull + (uint64_t)f * 977 + K, p->in_fmt, A, B, M, N, K);
    ug_tc_gemm(p, A, B, D, M, N, K);
    if (gemm(p, A, B, G, M, N, K, err, sizeof err) != 0) {
        if (strncmp(err, "unavailable: ", 13) == 0) {
            *unavailable = true;
            return 0;
        }
        UG_EXPECT_MSG(false, "%s, family '%s': %s", what, ug_tc_family_name(f), err);
        return 0;
    }
    size_t bad = 0, first = 0;
    for (size_t e = 0; e < M * N; e++)
        if (!tci_same(G[e], D[e]) && bad++ == 0) first = e;
    UG_EXPECT_MSG(bad == 0, "%s, family '%s', K = %zu: %zu of %zu outputs differ; first C[%zu][%zu]: "
                  "integer model %a, tcmodel.c %a", what, ug_tc_family_name(f), K, bad, M * N,
                  first / N, first % N, G[first], D[first]);
    return M * N;
}

/* Every published row (and its bf16 / fp16 storage where the accumulator is binary32) on
 * every family, through gemm.  Returns the outputs compared. */
static size_t tci_rows(ug_t *t, tci_gemm_fn gemm, bool *unavailable)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    char err[512];
    int n = ug_tc_table_load(NULL, rows, UG_TC_TABLE_MAX, err, sizeof err);
    UG_ASSERT_MSG(n > 0, "the published table: %s", err);
    size_t outputs = 0;
    for (int r = 0; r < n && !*unavailable; r++) {
        static const ug_fmt stores[] = {UG_F32, UG_BF16, UG_F16};
        for (int s = 0; s < 3 && !*unavailable; s++) {
            ug_tc_params p = rows[r].p;
            if (s > 0 && p.out_fmt != UG_F32) continue;
            p.store_fmt = stores[s];
            size_t mn = s ? TCI_STORE_MN : TCI_M;
            char what[160];
            snprintf(what, sizeof what, "%.15s %s -> %s stored %s", rows[r].gpu, ug_fmt_name(p.in_fmt),
                     ug_fmt_name(p.out_fmt), ug_fmt_name(p.store_fmt));
            ug_point(t, "%s", what);
            for (int f = 0; f < UG_TC_FAMILIES && !*unavailable; f++)
                outputs += tci_check(t, gemm, what, &p, f, mn, mn, 200 + 13 * (size_t)f, unavailable);
        }
    }
    return outputs;
}

UG_CASE(tcmodel_int, rows)
{
    bool unavailable = false;
    size_t outputs = tci_rows(t, ug_tc_gemm_int, &unavailable);
    ug_point(t, "tcmodel_int rows: outputs compared");
    UG_EXPECT_MSG(!unavailable, "the host model is always available");
    UG_EXPECT_MSG(outputs >= 100000, "only %zu outputs compared (want >= 10^5)", outputs);
    ug_note(t, "%zu outputs of the integer model (host) equal tcmodel.c's", outputs);
}

UG_CASE_EX(tcmodel_gpu, rows, UG_CASE_GPU)
{
    bool unavailable = false;
    size_t outputs = tci_rows(t, ug_tc_gemm_gpu, &unavailable);
    ug_point(t, "tcmodel_gpu rows: outputs compared");
    if (unavailable) {
        ug_skip(t, "the GPU model is unavailable (no CUDA device, or built without CUDA)");
        return;
    }
    UG_EXPECT_MSG(outputs >= 100000, "only %zu outputs compared (want >= 10^5)", outputs);
    ug_note(t, "%zu outputs of the integer model (device) equal tcmodel.c's", outputs);
}

/* splitmix64 */
static uint64_t tci_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

UG_CASE(tcmodel_int, synthetic)
{
    static const ug_fmt ins[] = {UG_F16, UG_BF16, UG_TF32, UG_E4M3, UG_E5M2};
    static const ug_fmt stores[] = {UG_F32, UG_BF16, UG_F16};
    uint64_t s = ug_seed(t) | 1;
    bool unavailable = false;
    for (int m = 0; m < 48; m++) {
        ug_tc_params p = {.in_fmt = ins[m % 5], .out_fmt = m % 7 == 3 ? UG_F16 : UG_F32,
                          .block = 1 + (int)(tci_rng(&s) % 64), .neab = -10 + (int)(tci_rng(&s) % 19),
                          .carry_bit = tci_rng(&s) & 1, .align = (ug_tc_rmode)(tci_rng(&s) & 1),
                          .final = (ug_tc_rmode)(tci_rng(&s) & 1), .in_subnormals = tci_rng(&s) & 1,
                          .out_subnormals = tci_rng(&s) & 1, .store_fmt = stores[m % 3]};
        if (ug_tc_params_invalid(&p)) p.neab = 0; /* f16 accumulator: at least 2 bits */
        char what[200];
        snprintf(what, sizeof what, "%s -> %s stored %s, block %d, neab %d, carry %d, align %s, "
                 "final %s, subnormals in %d out %d", ug_fmt_name(p.in_fmt), ug_fmt_name(p.out_fmt),
                 ug_fmt_name(p.store_fmt), p.block, p.neab, p.carry_bit, ug_tc_rmode_name(p.align),
                 ug_tc_rmode_name(p.final), p.in_subnormals, p.out_subnormals);
        ug_point(t, "synthetic %d: %s", m, what);
        int f = (int)(tci_rng(&s) % UG_TC_FAMILIES);
        tci_check(t, ug_tc_gemm_int, what, &p, f, 8, 8, 1 + tci_rng(&s) % 299, &unavailable);
    }
}

UG_CASE(tcmodel_int, special)
{
    ug_tc_params p = {.in_fmt = UG_BF16, .out_fmt = UG_F32, .block = 16, .neab = 2, .carry_bit = true,
                      .in_subnormals = true, .out_subnormals = true};
    static const struct {
        double a[3], b[3];
        const char *what;
    } v[] = {
        {{1, NAN, 1}, {1, 1, 1}, "NaN input"},
        {{1, INFINITY, 1}, {1, 1, 1}, "+inf"},
        {{-INFINITY, 1, 1}, {1, 1, 1}, "-inf"},
        {{INFINITY, -INFINITY, 1}, {1, 1, 1}, "inf - inf"},
        {{0, INFINITY, 0}, {INFINITY, 0, 0}, "inf * 0"},
        {{0x1.8p127, 0x1.8p127, 0}, {1, 1, 1}, "overflow in a block"},
        {{1, -1, 0}, {1, 1, 1}, "exact cancellation (+0)"},
        {{-0x1p-126, 0, 0}, {0x1p-20, 0, 0}, "a tiny negative product: -0 or a subnormal"},
        {{1e39, 1, 1}, {1, 1, 1}, "an input beyond bf16's range: rounded to infinity"},
        /* every published row reads subnormal inputs, so the synthetic models are the only
         * other check of a model that reads them as zero: here one, bf16 2^-130 (subnormal),
         * whose product 2^-110 is in the sum or not */
        {{0x1p-130, 1, 0}, {0x1p20, 0x1p-100, 0}, "a subnormal input"},
        {{0x1p-100, 0x1.8p-128, 0}, {1, -0x1p30, 0}, "a subnormal input, negative product"},
    };
    static const ug_fmt stores[] = {UG_F32, UG_BF16, UG_F16};
    int flushed = 0, on_gpu = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        for (int s = 0; s < 3; s++)
            for (int subn = 0; subn < 4; subn++) {
                p.store_fmt = stores[s], p.out_subnormals = subn & 1, p.in_subnormals = subn >> 1;
                double want = ug_tc_dot(&p, v[i].a, 1, v[i].b, 1, 3, 0), got[1] = {0};
                char err[256] = "";
                int rc = ug_tc_gemm_int(&p, v[i].a, v[i].b, got, 1, 1, 3, err, sizeof err);
                ug_point(t, "special %s, stored %s, subnormal inputs %d outputs %d", v[i].what,
                         ug_fmt_name(p.store_fmt), p.in_subnormals, p.out_subnormals);
                UG_EXPECT_MSG(rc == 0 && tci_same(got[0], want), "integer model %a (%s), "
                              "tcmodel.c %a", got[0], err, want);
                /* the same integer model compiled for the device, where there is one */
                char gerr[256] = "";
                double gpu[1] = {0};
                if (ug_tc_gemm_gpu(&p, v[i].a, v[i].b, gpu, 1, 1, 3, gerr, sizeof gerr) == 0) {
                    UG_EXPECT_MSG(tci_same(gpu[0], want), "device integer model %a, tcmodel.c %a",
                                  gpu[0], want);
                    on_gpu++;
                } else {
                    UG_EXPECT_MSG(strncmp(gerr, "unavailable: ", 13) == 0, "device: %s", gerr);
                }
                if (i + 2 >= sizeof v / sizeof v[0] && s == 0)
                    flushed += want != ug_tc_dot(&(ug_tc_params){.in_fmt = p.in_fmt,
                        .out_fmt = p.out_fmt, .block = p.block, .neab = p.neab,
                        .carry_bit = p.carry_bit, .in_subnormals = true,
                        .out_subnormals = p.out_subnormals, .store_fmt = p.store_fmt},
                        v[i].a, 1, v[i].b, 1, 3, 0);
            }
    /* the subnormal vectors tell the two readings apart (else they would test nothing) */
    UG_EXPECT_MSG(flushed == 4, "%d of 4 binary32 results differ between reading subnormal inputs "
                  "and not", flushed);
    ug_note(t, "%d of the vectors also through the device's integer model%s", on_gpu,
            on_gpu ? "" : " (no CUDA device)");
}

/* ---- recorded vectors ---------------------------------------------------------------------- */

enum { TCV_K = 40, TCV_FIELDS = 6 + 2 * TCV_K };

/* The vectors' models: every published row, and the bf16 / fp16 storage of its binary32 ones.
 * Returns the count (at most max). */
static int tcv_models(ug_t *t, ug_tc_published *out, int max)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    char err[512];
    int n = ug_tc_table_load(NULL, rows, UG_TC_TABLE_MAX, err, sizeof err), c = 0;
    UG_ASSERT_MSG(n > 0, "the published table: %s", err);
    for (int r = 0; r < n; r++)
        for (int s = 0; s < 3 && c < max; s++) {
            static const ug_fmt stores[] = {UG_F32, UG_BF16, UG_F16};
            if (s > 0 && rows[r].p.out_fmt != UG_F32) continue;
            out[c] = rows[r];
            out[c++].p.store_fmt = stores[s];
        }
    return c;
}

/* Write the vectors from tcmodel.c (ULPGATE_TC_RECORD=path). */
static void tcv_record(ug_t *t, const char *path)
{
    static ug_tc_published models[3 * UG_TC_TABLE_MAX];
    int n = tcv_models(t, models, 3 * UG_TC_TABLE_MAX);
    FILE *fp = fopen(path, "w");
    UG_ASSERT_MSG(fp != NULL, "%s: cannot write", path);
    fprintf(fp, "# Recorded dot products of the tensor-core model (oracle/tc/tcmodel.c), checked by\n"
                "# tests/tcmodel_int_test.c (tcmodel_vectors/recorded).  Written by\n"
                "#   ULPGATE_TC_RECORD=tests/tcmodel_vectors.tsv build/tests/ulpgate-selftest run "
                "--filter tcmodel_vectors/recorded\n"
                "# one line a dot product: gpu in out store family d a[0..%d) b[0..%d) (tabs; values "
                "in C99 hex)\n", TCV_K, TCV_K);
    for (int i = 0; i < n; i++) {
        const ug_tc_params *p = &models[i].p;
        for (int v = 0; v < 2; v++) {
            int f = v == 0 ? 2 : 3 + i % 4; /* signed wide exponents; one adversarial family */
            double A[TCV_K], B[TCV_K];
            ug_tc_family_fill(f, 0x5eedull * (uint64_t)(i + 1) + (uint64_t)v, p->in_fmt, A, B, 1, 1, TCV_K);
            double d = ug_tc_dot(p, A, 1, B, 1, TCV_K, 0);
            fprintf(fp, "%s\t%s\t%s\t%s\t%d\t%a", models[i].gpu, ug_fmt_name(p->in_fmt),
                    ug_fmt_name(p->out_fmt), ug_fmt_name(p->store_fmt), f, d);
            for (int k = 0; k < TCV_K; k++) fprintf(fp, "\t%a", A[k]);
            for (int k = 0; k < TCV_K; k++) fprintf(fp, "\t%a", B[k]);
            fputc('\n', fp);
        }
    }
    UG_ASSERT_MSG(fclose(fp) == 0, "%s: write error", path);
    ug_point(t, "recorded %d models x 2 vectors into %s", n, path);
}

UG_CASE(tcmodel_vectors, recorded)
{
    const char *rec = getenv("ULPGATE_TC_RECORD");
    if (rec && *rec) {
        tcv_record(t, rec);
        return;
    }
    static ug_tc_published models[3 * UG_TC_TABLE_MAX];
    int nm = tcv_models(t, models, 3 * UG_TC_TABLE_MAX);
    char path[4096];
    UG_ASSERT_MSG(ug_data_path("tests/tcmodel_vectors.tsv", path, sizeof path),
                  "no data folder: cannot find tests/tcmodel_vectors.tsv");
    FILE *fp = fopen(path, "r");
    UG_ASSERT_MSG(fp != NULL, "%s: cannot open", path);
    static char line[16384];
    int lineno = 0, checked = 0, bad_ref = 0, bad_int = 0;
    bool seen[3 * UG_TC_TABLE_MAX] = {false};
    ug_point(t, "tcmodel.c and the integer model on %s", path);
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char *f[TCV_FIELDS], *sv = NULL;
        int nf = 0;
        for (char *tok = strtok_r(line, "\t\n", &sv); tok && nf < TCV_FIELDS; tok = strtok_r(NULL, "\t\n", &sv))
            f[nf++] = tok;
        UG_EXPECT_MSG(nf == TCV_FIELDS, "%s:%d: %d fields, want %d", path, lineno, nf, TCV_FIELDS);
        if (nf != TCV_FIELDS) break;
        int mi = -1;
        for (int i = 0; i < nm && mi < 0; i++)
            if (strcmp(models[i].gpu, f[0]) == 0 && models[i].p.in_fmt == ug_fmt_parse(f[1]) &&
                models[i].p.out_fmt == ug_fmt_parse(f[2]) && models[i].p.store_fmt == ug_fmt_parse(f[3]))
                mi = i;
        UG_EXPECT_MSG(mi >= 0, "%s:%d: no model %s %s -> %s stored %s in the published table", path,
                      lineno, f[0], f[1], f[2], f[3]);
        if (mi < 0) continue;
        seen[mi] = true;
        const ug_tc_params *p = &models[mi].p;
        double A[TCV_K], B[TCV_K], want = strtod(f[5], NULL), got, gi[1] = {0};
        for (int k = 0; k < TCV_K; k++) A[k] = strtod(f[6 + k], NULL), B[k] = strtod(f[6 + TCV_K + k], NULL);
        got = ug_tc_dot(p, A, 1, B, 1, TCV_K, 0);
        char err[256] = "";
        int rc = ug_tc_gemm_int(p, A, B, gi, 1, 1, TCV_K, err, sizeof err);
        checked++;
        if (!tci_same(got, want) && bad_ref++ < 5)
            UG_EXPECT_MSG(false, "%s:%d (%s %s -> %s stored %s, family %s): tcmodel.c gives %a, "
                          "recorded %a", path, lineno, f[0], f[1], f[2], f[3], f[4], got, want);
        if ((rc != 0 || !tci_same(gi[0], want)) && bad_int++ < 5)
            UG_EXPECT_MSG(false, "%s:%d: the integer model gives %a (%s), recorded %a", path,
                          lineno, gi[0], err, want);
    }
    fclose(fp);
    int missing = 0;
    for (int i = 0; i < nm; i++) missing += !seen[i];
    UG_EXPECT_MSG(missing == 0, "%d of %d models have no recorded vector (rerecord: the header)",
                  missing, nm);
    UG_EXPECT_MSG(bad_ref == 0 && bad_int == 0, "%d (tcmodel.c) and %d (integer model) of %d "
                  "recorded vectors differ", bad_ref, bad_int, checked);
    ug_note(t, "%d recorded dot products of %d models checked", checked, nm);
}
