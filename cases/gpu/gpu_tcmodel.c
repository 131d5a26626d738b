/*
 * gpu_tcmodel.c - the tensor cores of this GPU against their published model (GPU suite; skips
 * without a device, or without a published model for this GPU).
 *
 * Every GEMM kernel whose operand format is a tensor-core format (f16, bf16, tf32, e4m3, e5m2:
 * today cublas_sgemm_fast_16f, cublas_sgemm_fast_16bf and cublas_sgemm_tf32; later the
 * cuBLASLt and mma.sync kernels, picked up by their rows) is checked against the row of
 * reports/tensorcore/params.tsv for the detected GPU (its name contains the row's key: "H100")
 * and the kernel's formats.  The rows are Khattak & Mikaitis's models ("Accurate Models of
 * NVIDIA Tensor Cores", arXiv 2512.07004; the MATLAB models of github north-numerical-
 * computing/MATLAB-tensor-core: models/H100TC.m for the H100), each row citing its file.
 *
 *   gpu_tcmodel/probe    the accumulator probe (oracle/tc/tcprobe.h) through the kernel: every
 *                        figure measured equals the published one (or is n/a for the formats);
 *                        a kernel known to differ (tcm_known: the finding and its reason) is an
 *                        expected failure
 *   gpu_tcmodel/bitwise  the kernel's GEMM equals the model's bit for bit on 7 input families
 *                        x 128 x 128 outputs of K = 256 (114688 outputs >= 10^5): random
 *                        (uniform, normal, wide exponents) and adversarial (cancellation, one
 *                        large term per block, near-ties at the alignment grid, tiny values
 *                        near binary32's subnormals; oracle/tc/tcfamily.h).  A mismatch names
 *                        the first element, its inputs, and which one-parameter variants of the
 *                        model would match it.
 * The model row of a kernel: its operand format (op_fmt) and accumulator (ug_tc_kernel_acc:
 * lt_f16_acc16's binary16, else binary32), or the row tcm_known names for a kernel that runs
 * another format's path (mma_e4m3: f16 on sm_90); every figure the probe measures through the
 * kernel takes its place (cuBLAS SGEMM FAST_16F: block 8).  Its out_fmt is the model's storage
 * (a bf16 or fp16 D rounded from the binary32 accumulator to nearest: lt_bf16_out_bf16,
 * lt_f16_out_f16).  The model's GEMM runs on the device (oracle/tc/tcmodel_gpu.h: the integer
 * model, bit for bit the CPU model, asserted by the tcmodel_gpu test); the first mismatch's
 * diagnosis runs the CPU model (one output, nine variants).  Kernels the chained model does not
 * describe (tcm_unmodelled) are expected failures with what the H100 showed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sys.h"
#include "harness/run/ug.h"
#include "kernels/device.h"
#include "oracle/tc/tcfamily.h"
#include "oracle/tc/tcmodel_gpu.h"
#include "oracle/tc/tcprobe.h"

static bool tcm_kernel_ok(const ug_kernel *k)
{
    return k->backend == UG_CUDA && ug_tc_kernel_probeable(k);
}

/* The bit-for-bit check takes the kernels the probe takes and those whose 16-bit D is the
 * binary32 accumulator rounded once (the model's store_fmt). */
static bool tcm_kernel_bitwise(const ug_kernel *k)
{
    if (tcm_kernel_ok(k)) return true;
    ug_kernel q = *k;
    q.out_fmt = UG_F32;
    return k->backend == UG_CUDA && ug_tc_kernel_acc(k) == UG_F32 &&
           (k->out_fmt == UG_BF16 || k->out_fmt == UG_F16) && ug_tc_kernel_probeable(&q);
}

/* The published rows and the detected GPU's key; NULL (the case skipped, saying why) if none. */
static const char *tcm_gpu(ug_t *t, ug_tc_published *rows, int *n)
{
    char err[512];
    *n = ug_tc_table_load(NULL, rows, UG_TC_TABLE_MAX, err, sizeof err);
    UG_ASSERT_MSG(*n > 0, "the published table: %s", err);
    ug_gpu_info gi;
    UG_ASSERT_MSG(ug_device_info(&gi) == 0, "no device information");
    const char *gpu = ug_tc_table_gpu_of(rows, *n, gi.name);
    if (!gpu) {
        char why[400];
        snprintf(why, sizeof why, "no published tensor-core model for %s in "
                 "reports/tensorcore/params.tsv", gi.name);
        ug_skip(t, why);
        return NULL;
    }
    ug_note(t, "device %s: published rows of %s", gi.name, gpu);
    return gpu;
}

/* Whether the table's key gpu is one of the space-separated keys of list ("H100 H200": the two
 * Hopper parts measured alike on 2026-11-26). */
static bool tcm_gpu_in(const char *list, const char *gpu)
{
    size_t n = strlen(gpu);
    for (const char *p = list; (p = strstr(p, gpu)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

/* Figures a kernel is known to measure otherwise than its GPU's published row, and why: the
 * published models are of the MMA instructions (Khattak & Mikaitis probed each instruction
 * shape), while a library kernel may issue another shape.  Each row is a finding of the probe on
 * that GPU, kept as an expected failure: if the kernel comes to match, the point passes
 * unexpectedly and the run fails, so a stale row is seen. */
static const struct {
    const char *kernel; /* first: ug_kernel_row's key */
    const char *gpu;
    ug_tc_figure figure;
    bool as;       /* the kernel runs another format's path: as_fmt's published row models it */
    ug_fmt as_fmt;
    const char *why;
} tcm_known[] = {
    {"cublas_sgemm_fast_16f", "H100 H200", UG_TCF_BLOCK, false, UG_F32,
     "cuBLAS 13.1's SGEMM under CUBLAS_COMPUTE_32F_FAST_16F fuses 8 products per alignment on "
     "the H100 (measured: index 8 is the first term not aligned with index 0), where the k = 16 "
     "instruction the published model describes fuses 16 (mma_bf16 and lt_f16 measure 16): the "
     "kernel issues k = 8 MMAs; gpu_tcmodel/bitwise checks it against the model with block 8"},
    {"cublas_sgemm_fast_16bf", "H100 H200", UG_TCF_BLOCK, false, UG_F32,
     "cuBLAS 13.1's SGEMM under CUBLAS_COMPUTE_32F_FAST_16BF fuses 8 products per alignment on "
     "the H100 (measured), where the k = 16 instruction of the published model fuses 16 "
     "(mma_bf16 and lt_bf16 measure 16): the kernel issues k = 8 MMAs; gpu_tcmodel/bitwise "
     "checks it against the model with block 8"},
    {"lt_f16_acc16", "H100 H200", UG_TCF_COUNT, false, UG_F32,
     "the probe's vectors for the extra alignment bits (and the figures that build on them: "
     "carry, alignment and final rounding, block) need a result of 24 + neab bits, and a "
     "binary16 accumulator returns 11: not measured; gpu_tcmodel/bitwise checks the kernel "
     "against the published H100 f16 -> f16 model instead"},
    {"mma_e4m3", "H100 H200", UG_TCF_COUNT, true, UG_F16,
     "mma.sync.m16n8k32 on e4m3 is no fp8 instruction on sm_90: ptxas emits conversions and "
     "HMMA.16816.F32 (cuobjdump -sass), the f16 tensor-core path, so the probe measures a 24-bit "
     "accumulator (the published fp8 model, that of cuBLASLt's wgmma kernels, keeps 14: lt_e4m3 "
     "measures 14) and is compared with the H100 f16 row; e4m3 inputs cannot build its vectors "
     "for the extra alignment bits and what builds on them: not measured; gpu_tcmodel/bitwise "
     "checks the kernel against the H100 f16 model"},
    {"mma_e4m3_promoted", "H100 H200", UG_TCF_COUNT, true, UG_F16,
     "as mma_e4m3: HMMA.16816.F32 on sm_90 (the f16 path, a 24-bit accumulator, not the "
     "published 14-bit fp8 one), compared with the H100 f16 row; the figures e4m3 inputs cannot "
     "probe are not measured; gpu_tcmodel/bitwise checks it against the H100 f16 model"},
};

/* Kernels the chained model does not reproduce on a GPU (gpu_tcmodel/bitwise: expected
 * failures, each a finding of that test on that GPU with what it showed).  The model is one
 * accumulator carried through K in order, block by block, with one input format. */
static const struct {
    const char *kernel; /* first: ug_kernel_row's key */
    const char *gpu;
    const char *why;
} tcm_unmodelled[] = {
    {"cublas_sgemm_tf32", "H100 H200",
     "cuBLAS SGEMM's K order is not one in-order chain: on random data nearly every output "
     "differs from the model and from each of its one-parameter variants, while the cancelling "
     "pairs and near-ties families agree bit for bit (sliced or split K, summed in binary32)"},
    {"cublas_sgemm_fast_16f", "H100 H200",
     "as cublas_sgemm_tf32: cuBLAS SGEMM's K order is not one in-order chain (block 8 measured; "
     "random families differ from every one-parameter variant, the structured ones agree)"},
    {"cublas_sgemm_fast_16bf", "H100 H200",
     "as cublas_sgemm_tf32: cuBLAS SGEMM's K order is not one in-order chain (block 8 measured; "
     "random families differ from every one-parameter variant, the structured ones agree)"},
    {"lt_e4m3", "H100 H200",
     "without CUBLASLT_MATMUL_DESC_FAST_ACCUM cuBLASLt promotes the fp8 partial sums into a "
     "binary32 accumulator along K (what the flag turns off): the 14-bit chain of the model is "
     "not what runs; lt_e4m3_fast, the same GEMM with the flag, equals the model bit for bit"},
    {"lt_e4m3_e5m2", "H100 H200",
     "mixed e4m3 x e5m2 operands (the model has one input format) and, without FAST_ACCUM, "
     "partial sums promoted to binary32 along K: not modelled"},
    {"lt_e4m3_e5m2_fast", "H100 H200",
     "mixed e4m3 x e5m2 operands: the model has one input format (its inputs are e5m2 values, B "
     "is stored in e4m3 and the tiny family leaves e4m3's range): not modelled"},
    {"mma_e4m3", "H100 H200",
     "HMMA.16816.F32 after conversion to f16 (cuobjdump -sass): the H100 f16 model with the "
     "probe's figures does not reproduce it on random data (the first mismatch matches the model "
     "with the other final rounding); open: how ptxas splits the k = 32 step"},
    {"mma_e4m3_promoted", "H100 H200",
     "as mma_e4m3 (HMMA.16816.F32 after conversion to f16; the H100 f16 model does not "
     "reproduce it on random data), plus binary32 promotion every 128 terms"},
};

/* Every kernel the two tables name is registered (a renamed kernel fails the case, naming the
 * row, rather than leave a stale row that matches nothing); once a case, at its first kernel:
 * a run of a plugin's kernels alone (--no-builtin) registers none of these and walks none. */
static void tcm_tables_registered(ug_t *t)
{
    ug_kernel_row(t, tcm_known, sizeof tcm_known / sizeof tcm_known[0], sizeof tcm_known[0], NULL);
    ug_kernel_row(t, tcm_unmodelled, sizeof tcm_unmodelled / sizeof tcm_unmodelled[0],
                  sizeof tcm_unmodelled[0], NULL);
}

/* Why the chained model does not describe kernel k on gpu, or NULL. */
static const char *tcm_unmodelled_why(const ug_kernel *k, const char *gpu)
{
    for (size_t i = 0; i < sizeof tcm_unmodelled / sizeof tcm_unmodelled[0]; i++)
        if (strcmp(tcm_unmodelled[i].kernel, k->name) == 0 &&
            tcm_gpu_in(tcm_unmodelled[i].gpu, gpu))
            return tcm_unmodelled[i].why;
    return NULL;
}

/* The published row that models kernel k on gpu: its own formats' row, or the row of another
 * input format where tcm_known says the kernel runs on that path. */
static const ug_tc_published *tcm_row(const ug_tc_published *rows, int n, const char *gpu,
                                      const ug_kernel *k)
{
    for (size_t i = 0; i < sizeof tcm_known / sizeof tcm_known[0]; i++)
        if (tcm_known[i].as && strcmp(tcm_known[i].kernel, k->name) == 0 &&
            tcm_gpu_in(tcm_known[i].gpu, gpu))
            return ug_tc_table_find(rows, n, gpu, tcm_known[i].as_fmt, ug_tc_kernel_acc(k));
    return ug_tc_table_find(rows, n, gpu, k->op_fmt, ug_tc_kernel_acc(k));
}

/* The known deviation of kernel k on gpu for figure f (a row of figure UG_TCF_COUNT: every
 * figure the probe could not measure, m), or NULL. */
static const char *tcm_known_why(const ug_kernel *k, const char *gpu, ug_tc_figure f,
                                 const ug_tc_measured *m)
{
    for (size_t i = 0; i < sizeof tcm_known / sizeof tcm_known[0]; i++)
        if (strcmp(tcm_known[i].kernel, k->name) == 0 && tcm_gpu_in(tcm_known[i].gpu, gpu) &&
            (tcm_known[i].figure == f ||
             (tcm_known[i].figure == UG_TCF_COUNT && !m->has[f] && !m->na[f])))
            return tcm_known[i].why;
    return NULL;
}

UG_CASE_EX(gpu_tcmodel, probe, UG_CASE_GPU)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    int n = 0;
    const char *gpu = tcm_gpu(t, rows, &n);
    if (!gpu) return;
    bool checked = false; /* the tables, at the first kernel (none under --no-builtin) */
    UG_FOR_IN_KERNELS(t, k, UG_OP_GEMM, UG_ANY_BACKEND, "*", UG_F32) {
        if (!tcm_kernel_ok(k)) continue;
        if (!checked) tcm_tables_registered(t), checked = true;
        const ug_tc_published *pub = tcm_row(rows, n, gpu, k);
        ug_point(t, "%s probe vs the published %s %s model", k->id, gpu,
                 ug_fmt_name(pub ? pub->p.in_fmt : k->op_fmt));
        if (!pub) {
            ug_note(t, "no %s row for %s -> %s: measured only", gpu, ug_fmt_name(k->op_fmt),
                    ug_fmt_name(ug_tc_kernel_acc(k)));
        } else {
            ug_note(t, "published: %s", pub->source);
        }
        ug_tc_measured m;
        char err[512] = "", line[512];
        double t0 = ug_now_s();
        int prc = ug_tc_probe(ug_tc_dot_kernel, (void *)k, k->op_fmt, ug_tc_kernel_acc(k), &m, err, sizeof err);
        ug_note(t, "time: %d runs of the kernel (16 x 16 x 128 GEMMs) in %.3f s", m.runs,
                ug_now_s() - t0);
        if (prc) {
            if (strncmp(err, "unsupported: ", 13) == 0) {
                ug_note(t, "skipped: %s", err);
                continue;
            }
            UG_EXPECT_MSG(false, "the probe failed after %d runs: %s", m.runs, err);
            continue;
        }
        ug_note(t, "%-38s %-9s %-9s %-12s %s", "figure", "measured", "published", "verdict", "how");
        /* A known deviation makes the point an expected failure, unless another figure differs
         * too (that one is news: a plain failure); a kernel that comes to match everything then
         * passes unexpectedly, which fails the run. */
        const char *known = NULL;
        bool unknown = false;
        for (int f = 0; f < UG_TCF_COUNT && pub; f++) {
            const char *why = tcm_known_why(k, gpu, (ug_tc_figure)f, &m);
            if (why) known = why;
            else if (!ug_tc_figure_line((ug_tc_figure)f, &m, &pub->p, line, sizeof line))
                unknown = true;
        }
        if (known && !unknown) ug_xfail(t, known);
        for (int f = 0; f < UG_TCF_COUNT; f++) {
            bool ok = ug_tc_figure_line((ug_tc_figure)f, &m, pub ? &pub->p : NULL, line, sizeof line);
            ug_note(t, "%s", line);
            if (pub) UG_EXPECT_MSG(ok, "%s", line);
        }
    }
}

static bool tcm_same(const ug_tc_params *a, const ug_tc_params *b)
{
    return a->block == b->block && a->neab == b->neab && a->carry_bit == b->carry_bit &&
           a->align == b->align && a->final == b->final && a->in_subnormals == b->in_subnormals &&
           a->out_subnormals == b->out_subnormals;
}

/* ---- bit for bit ------------------------------------------------------------------------ */

enum { TCM_M = 128, TCM_N = 128, TCM_K = 256, TCM_FAMILIES = UG_TC_FAMILIES };

/* Which one-parameter variants of p reproduce got for row i, column j: a diagnosis line. */
static void tcm_diagnose(ug_t *t, const ug_tc_params *p, const double *A, const double *B,
                         size_t i, size_t j, double got)
{
    char list[512] = "";
    size_t used = 0;
    for (int v = 0; v < 8; v++) {
        ug_tc_params q = *p;
        const char *what = NULL;
        switch (v) {
        case 0: q.block = p->block * 2 <= UG_TC_MAX_BLOCK ? p->block * 2 : p->block, what = "block x2"; break;
        case 1: q.block = p->block / 2 > 0 ? p->block / 2 : 1, what = "block /2"; break;
        case 2: q.neab = p->neab + 1, what = "neab+1"; break;
        case 3: q.neab = p->neab - 1, what = "neab-1"; break;
        case 4: q.final = p->final == UG_TC_RZ ? UG_TC_RNE : UG_TC_RZ, what = "other final rounding"; break;
        case 5: q.align = p->align == UG_TC_RZ ? UG_TC_RNE : UG_TC_RZ, what = "other alignment rounding"; break;
        case 6: q.carry_bit = !p->carry_bit, what = "carry bit flipped"; break;
        default: q.block = UG_TC_MAX_BLOCK, q.neab = UG_TC_NEAB_MAX, what = "widest model"; break;
        }
        if (ug_tc_dot(&q, A + i * TCM_K, 1, B + j, TCM_N, TCM_K, 0) == got)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", what);
        if (used >= sizeof list) break;
    }
    ug_note(t, "  variants of the model that give the kernel's value: %s", used ? list : "none");
    char terms[1024] = "";
    size_t tu = 0;
    for (size_t k = 0; k < 16 && tu < sizeof terms; k++)
        tu += (size_t)snprintf(terms + tu, sizeof terms - tu, " %a*%a", A[i * TCM_K + k], B[k * TCM_N + j]);
    ug_note(t, "  its first 16 terms (a*b):%s", terms);
}

UG_CASE_EX(gpu_tcmodel, bitwise, UG_CASE_GPU)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    int n = 0;
    const char *gpu = tcm_gpu(t, rows, &n);
    if (!gpu) return;
    bool checked = false; /* the tables, at the first kernel (none under --no-builtin) */
    double *A = malloc(sizeof(double) * (TCM_M * TCM_K + TCM_K * TCM_N + 2 * TCM_M * TCM_N));
    UG_ASSERT_MSG(A != NULL, "out of memory");
    double *B = A + TCM_M * TCM_K, *D = B + TCM_K * TCM_N, *G = D + TCM_M * TCM_N;
    UG_FOR_IN_KERNELS(t, k, UG_OP_GEMM, UG_ANY_BACKEND, "*", UG_F32) {
        if (!tcm_kernel_bitwise(k)) continue;
        if (!checked) tcm_tables_registered(t), checked = true;
        const ug_tc_published *pub = tcm_row(rows, n, gpu, k);
        if (!pub) continue;
        ug_tc_params mp;
        size_t ba = ug_fmt_bytes(k->in_store[0]), bb = ug_fmt_bytes(k->in_store[1]),
               bo = ug_fmt_bytes(k->out_fmt);
        void *bufA = calloc(TCM_M * TCM_K, ba), *bufB = calloc(TCM_K * TCM_N, bb),
             *bufD = calloc(TCM_M * TCM_N, bo);
        size_t outputs = 0, mismatches = 0;
        double t_kernel = 0, t_model = 0; /* seconds: where the case's time goes */
        bool ran = bufA && bufB && bufD;
        ug_point(t, "%s equals the %s %s model bit for bit", k->id, gpu, ug_fmt_name(k->op_fmt));
        const char *unmodelled = tcm_unmodelled_why(k, gpu);
        if (unmodelled) ug_xfail(t, unmodelled);
        /* the model's parameters: the published row, each figure the probe measures through
         * this kernel in its place (the probe's table, per GPU and kernel); a kernel whose D is
         * rounded after the accumulator (bf16 or fp16 out) is not probed: the row as published */
        ug_tc_params model = pub->p;
        if (ug_tc_kernel_probeable(k)) {
            ug_tc_measured m;
            char err[512] = "";
            if (ug_tc_probe(ug_tc_dot_kernel, (void *)k, k->op_fmt, ug_tc_kernel_acc(k), &m, err,
                            sizeof err)) {
                free(bufA), free(bufB), free(bufD);
                if (strncmp(err, "unsupported: ", 13) == 0) {
                    ug_note(t, "skipped: %s", err);
                    continue;
                }
                UG_EXPECT_MSG(false, "the probe failed after %d runs: %s", m.runs, err);
                continue;
            }
            if (ug_tc_params_measured(&pub->p, &m, &model, err, sizeof err)) {
                free(bufA), free(bufB), free(bufD);
                UG_EXPECT_MSG(false, "%s", err);
                continue;
            }
        }
        mp = model;
        mp.store_fmt = k->out_fmt; /* stored as the kernel stores D */
        ug_note(t, "model: block %d, neab %d, carry %d, align %s, final %s, %s accumulator stored "
                "as %s (%s%s)", mp.block, mp.neab, mp.carry_bit, ug_tc_rmode_name(mp.align),
                ug_tc_rmode_name(mp.final), ug_fmt_name(mp.out_fmt), ug_fmt_name(mp.store_fmt),
                pub->source, tcm_same(&model, &pub->p) ? "" : "; measured figures in its place");
        UG_EXPECT_MSG(ran, "out of memory for the buffers");
        for (int f = 0; f < TCM_FAMILIES && ran; f++) {
            ug_tc_family_fill(f, ug_seed(t) ^ (0x7c0de000ull + (uint64_t)f), k->op_fmt, A, B,
                              TCM_M, TCM_N, TCM_K);
            for (size_t e = 0; e < TCM_M * TCM_K; e++) ug_fmt_store(k->in_store[0], bufA, e, A[e]);
            for (size_t e = 0; e < TCM_K * TCM_N; e++) ug_fmt_store(k->in_store[1], bufB, e, B[e]);
            ug_call c;
            memset(&c, 0, sizeof c);
            c.op = UG_OP_GEMM, c.shape.dim[0] = TCM_M, c.shape.dim[1] = TCM_N, c.shape.dim[2] = TCM_K;
            c.in[0] = (ug_arg){bufA, k->in_store[0], TCM_M * TCM_K};
            c.in[1] = (ug_arg){bufB, k->in_store[1], TCM_K * TCM_N};
            c.out[0] = (ug_arg_out){bufD, k->out_fmt, TCM_M * TCM_N};
            double t0 = ug_now_s();
            if (ug_run_kernel(t, k, &c, __FILE__, __LINE__) != 0) { /* failed, or skipped */
                ran = false;
                break;
            }
            double t1 = ug_now_s();
            char merr[512] = "";
            if (ug_tc_gemm_gpu(&mp, A, B, D, TCM_M, TCM_N, TCM_K, merr, sizeof merr) != 0) {
                UG_EXPECT_MSG(false, "the model on the GPU: %s", merr);
                ran = false;
                break;
            }
            t_kernel += t1 - t0, t_model += ug_now_s() - t1;
            size_t fam_bad = 0;
            for (size_t e = 0; e < TCM_M * TCM_N; e++) {
                G[e] = ug_fmt_load(k->out_fmt, bufD, e);
                bool same = G[e] == D[e] && signbit(G[e]) == signbit(D[e]);
                if (same || (isnan(G[e]) && isnan(D[e]))) continue;
                if (mismatches == 0) {
                    ug_note(t, "first mismatch: family '%s', C[%zu][%zu]: kernel %a, model %a "
                            "(the CPU model: %a)", ug_tc_family_name(f), e / TCM_N, e % TCM_N,
                            G[e], D[e], ug_tc_dot(&mp, A + e / TCM_N * TCM_K, 1, B + e % TCM_N,
                                                  TCM_N, TCM_K, 0));
                    tcm_diagnose(t, &mp, A, B, e / TCM_N, e % TCM_N, G[e]);
                }
                mismatches++, fam_bad++;
            }
            outputs += TCM_M * TCM_N;
            ug_note(t, "family '%s': %zu of %d outputs differ from the model",
                    ug_tc_family_name(f), fam_bad, TCM_M * TCM_N);
        }
        free(bufA), free(bufB), free(bufD);
        if (!ran) continue;
        ug_note(t, "time: the kernel's %d GEMMs %.3f s, the GPU model's %.3f s (with the host's "
                "rounding of the inputs)", TCM_FAMILIES, t_kernel, t_model);
        UG_EXPECT_MSG(mismatches == 0, "%zu of %zu outputs differ from the %s model",
                      mismatches, outputs, gpu);
        UG_EXPECT_MSG(outputs >= 100000, "only %zu outputs compared (want >= 10^5)", outputs);
    }
    free(A);
}
