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
 *                        figure measured equals the published one (or is n/a for the formats)
 *   gpu_tcmodel/bitwise  the kernel's GEMM equals the model's bit for bit on 7 input families
 *                        x 128 x 128 outputs of K = 256 (114688 outputs >= 10^5): random
 *                        (uniform, normal, wide exponents) and adversarial (cancellation, one
 *                        large term per block, near-ties at the alignment grid, tiny values
 *                        near binary32's subnormals; oracle/tc/tcfamily.h).  A mismatch names
 *                        the first element, its inputs, and which one-parameter variants of the
 *                        model would match it.
 * The model row of a kernel: its operand format (op_fmt) and accumulator (ug_tc_kernel_acc:
 * lt_f16_acc16's binary16, else binary32); its out_fmt is the model's storage (a bf16 or fp16
 * D rounded from the binary32 accumulator to nearest: lt_bf16_out_bf16, lt_f16_out_f16).
 * The model's GEMM runs on the device (oracle/tc/tcmodel_gpu.h: the integer model, bit for bit
 * the CPU model, asserted by the tcmodel_gpu test): on the CPU the model of 114688 outputs of
 * K = 256 took 0.99 s a family (binary64 model, one core of the 2-core CI machine; 0.21 s with
 * its inputs rounded once, not once per output), 7 families x 15 kernels of it dominated the
 * case; the first mismatch's diagnosis runs the CPU model (one output, nine variants).
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

static ug_fmt tcm_out(const ug_kernel *k) { return ug_tc_kernel_acc(k); }

UG_CASE_EX(gpu_tcmodel, probe, UG_CASE_GPU | UG_CASE_SLOW)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    int n = 0;
    const char *gpu = tcm_gpu(t, rows, &n);
    if (!gpu) return;
    UG_FOR_IN_KERNELS(t, k, UG_OP_GEMM, UG_ANY_BACKEND, "*", UG_F32) {
        if (!tcm_kernel_ok(k)) continue;
        const ug_tc_published *pub = ug_tc_table_find(rows, n, gpu, k->op_fmt, tcm_out(k));
        ug_point(t, "%s probe vs the published %s %s model", k->id, gpu, ug_fmt_name(k->op_fmt));
        if (!pub) {
            ug_note(t, "no %s row for %s -> %s: measured only", gpu, ug_fmt_name(k->op_fmt),
                    ug_fmt_name(tcm_out(k)));
        } else {
            ug_note(t, "published: %s", pub->source);
        }
        ug_tc_measured m;
        char err[512] = "", line[512];
        double t0 = ug_now_s();
        int prc = ug_tc_probe(ug_tc_dot_kernel, (void *)k, k->op_fmt, tcm_out(k), &m, err, sizeof err);
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
        for (int f = 0; f < UG_TCF_COUNT; f++) {
            bool ok = ug_tc_figure_line((ug_tc_figure)f, &m, pub ? &pub->p : NULL, line, sizeof line);
            ug_note(t, "%s", line);
            if (pub) UG_EXPECT_MSG(ok, "%s", line);
        }
    }
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
        default: q.block = TCM_K, q.neab = 8, what = "one block of K, neab 8"; break;
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

UG_CASE_EX(gpu_tcmodel, bitwise, UG_CASE_GPU | UG_CASE_SLOW)
{
    static ug_tc_published rows[UG_TC_TABLE_MAX];
    int n = 0;
    const char *gpu = tcm_gpu(t, rows, &n);
    if (!gpu) return;
    double *A = malloc(sizeof(double) * (TCM_M * TCM_K + TCM_K * TCM_N + 2 * TCM_M * TCM_N));
    UG_ASSERT_MSG(A != NULL, "out of memory");
    double *B = A + TCM_M * TCM_K, *D = B + TCM_K * TCM_N, *G = D + TCM_M * TCM_N;
    UG_FOR_IN_KERNELS(t, k, UG_OP_GEMM, UG_ANY_BACKEND, "*", UG_F32) {
        if (!tcm_kernel_bitwise(k)) continue;
        const ug_tc_published *pub = ug_tc_table_find(rows, n, gpu, k->op_fmt, tcm_out(k));
        if (!pub) continue;
        ug_tc_params mp = pub->p; /* the published row, stored as the kernel stores D */
        mp.store_fmt = k->out_fmt;
        size_t ba = ug_fmt_bytes(k->in_store[0]), bb = ug_fmt_bytes(k->in_store[1]),
               bo = ug_fmt_bytes(k->out_fmt);
        void *bufA = calloc(TCM_M * TCM_K, ba), *bufB = calloc(TCM_K * TCM_N, bb),
             *bufD = calloc(TCM_M * TCM_N, bo);
        size_t outputs = 0, mismatches = 0;
        double t_kernel = 0, t_model = 0; /* seconds: where the case's time goes */
        bool ran = bufA && bufB && bufD;
        ug_point(t, "%s equals the %s %s model bit for bit", k->id, gpu, ug_fmt_name(k->op_fmt));
        ug_note(t, "model: block %d, neab %d, carry %d, align %s, final %s, %s accumulator stored "
                "as %s (%s)", mp.block, mp.neab, mp.carry_bit, ug_tc_rmode_name(mp.align),
                ug_tc_rmode_name(mp.final), ug_fmt_name(mp.out_fmt), ug_fmt_name(mp.store_fmt),
                pub->source);
        UG_EXPECT_MSG(ran, "out of memory for the buffers");
        for (int f = 0; f < TCM_FAMILIES && ran; f++) {
            ug_tc_family_fill(f, ug_seed(t) ^ (0x7c0de000ull + (uint64_t)f), k->op_fmt, A, B,
                              TCM_M, TCM_N, TCM_K);
            for (size_t e = 0; e < TCM_M * TCM_K; e++) ug_fmt_store(k->in_store[0], bufA, e, A[e]);
            for (size_t e = 0; e < TCM_K * TCM_N; e++) ug_fmt_store(k->in_store[1], bufB, e, B[e]);
            ug_call c;
            memset(&c, 0, sizeof c);
            c.op = UG_OP_GEMM, c.n = TCM_M, c.gemm_n = TCM_N, c.gemm_k = TCM_K;
            c.in[0] = (ug_arg){bufA, k->in_store[0], TCM_M * TCM_K};
            c.in[1] = (ug_arg){bufB, k->in_store[1], TCM_K * TCM_N};
            c.out = (ug_arg_out){bufD, k->out_fmt, TCM_M * TCM_N};
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
        UG_EXPECT_MSG(mismatches == 0, "%zu of %zu outputs differ from the published %s model",
                      mismatches, outputs, gpu);
        UG_EXPECT_MSG(outputs >= 100000, "only %zu outputs compared (want >= 10^5)", outputs);
    }
    free(A);
}
