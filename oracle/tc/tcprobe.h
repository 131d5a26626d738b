/*
 * tcprobe.h - the black-box tensor-core accumulator probe, and the table of published models
 * (reports/tensorcore/params.tsv) it compares with.
 *
 * The probe runs crafted dot products (in the manner of Fasi et al. 2021 and Khattak &
 * Mikaitis 2025: a few exact products whose sum's last bits tell one feature apart) through a
 * black box d = sum a_i b_i (a GEMM kernel of the registry, or the model itself) and recovers
 * the parameters of oracle/tc/tcmodel.h: block, neab, carry bit, alignment and final rounding,
 * subnormal inputs and outputs, and the accumulator's precision.  The vectors, the expected
 * outcome under each hypothesis and the range conditions are in tcprobe.c, one function per
 * figure.  Assumptions (each stated where it is used): the block holds at least 3 products;
 * c = 0 (the GEMM's beta is 0: the first block's accumulator is zero, later blocks get the
 * previous block's result); every product and result is in range (the terms are scaled per
 * input format so that they are).
 */
#ifndef UG_TCPROBE_H
#define UG_TCPROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/kernel.h"
#include "oracle/tc/tcmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the published table --------------------------------------------------------------- */

typedef struct ug_tc_published {
    char gpu[16];        /* "H100" */
    ug_tc_params p;
    char source[256];
} ug_tc_published;

enum { UG_TC_TABLE_MAX = 64 };
/* Read the table (path, or NULL: reports/tensorcore/params.tsv of the data folder) into rows;
 * the number of rows, or -1 with err naming the file and line. */
int ug_tc_table_load(const char *path, ug_tc_published *rows, int max, char *err, size_t errlen);
/* The row of gpu (exact key) for in_fmt -> out_fmt; NULL if none. */
const ug_tc_published *ug_tc_table_find(const ug_tc_published *rows, int n, const char *gpu,
                                        ug_fmt in_fmt, ug_fmt out_fmt);
/* The table's GPU key that a device name contains ("NVIDIA H100 80GB HBM3" -> "H100"); NULL. */
const char *ug_tc_table_gpu_of(const ug_tc_published *rows, int n, const char *device_name);
/* The block_fma bound's models (kernels/kernel.h, ug_block_model; kernels/bounds.c derives b, t,
 * p from a row) for the GPU named device_name: its rows, and for an input/output pair it has no
 * row of, the row of that pair whose c is the largest over every GPU of the table (the most
 * pessimistic published model).  Returns the count (<= max); *gpu: the table's key of the
 * device, or NULL when no row names it (every model then a most pessimistic row). */
int ug_tc_block_models(const ug_tc_published *rows, int n, const char *device_name,
                       ug_block_model *out, int max, const char **gpu);

/* ---- the probe -------------------------------------------------------------------------- */

typedef enum {
    UG_TCF_ACC_P,   /* significant bits of a block's result */
    UG_TCF_NEAB,
    UG_TCF_CARRY,
    UG_TCF_ALIGN,
    UG_TCF_FINAL,
    UG_TCF_BLOCK,
    UG_TCF_IN_SUBN,
    UG_TCF_OUT_SUBN,
    UG_TCF_COUNT
} ug_tc_figure;

/* A black box: d = sum_{i<k} a[i] b[i] (inputs numbers of the probed input format).  0, or
 * nonzero with err set. */
typedef int (*ug_tc_dot_fn)(void *ctx, const double *a, const double *b, size_t k, double *d,
                            char *err, size_t errlen);

typedef struct ug_tc_measured {
    ug_tc_params p;               /* the measured model (fields whose figure has[] is false:
                                     not measured) */
    int acc_p;                    /* UG_TCF_ACC_P's value */
    bool has[UG_TCF_COUNT];       /* which figures were measured */
    bool na[UG_TCF_COUNT];        /* not measurable by construction (the formats' ranges) */
    char note[UG_TCF_COUNT][160]; /* how it was decided, or why it could not be */
    int runs;                     /* black-box calls made */
} ug_tc_measured;

/* Probe the black box for in_fmt -> out_fmt.  0 (figures that cannot be measured have has[]
 * false and a note), or nonzero when the black box failed (err).  About 200 calls of K = 128. */
int ug_tc_probe(ug_tc_dot_fn dot, void *ctx, ug_fmt in_fmt, ug_fmt out_fmt, ug_tc_measured *m,
                char *err, size_t errlen);
const char *ug_tc_figure_name(ug_tc_figure f);
/* The figure's value as text ("16", "rz", "yes") from a model, or from m if m->has[f]. */
void ug_tc_figure_text(ug_tc_figure f, const ug_tc_params *p, int acc_p, char *out, size_t len);
/* Whether measured figure f equals the model's. */
bool ug_tc_figure_equal(ug_tc_figure f, const ug_tc_measured *m, const ug_tc_params *p);

/* The model of a kernel: the published row pub with every figure the probe measured (m) in
 * its place, so that a kernel is compared with what it was seen to do ("the model's parameters
 * come from the probe's table").  A narrower accumulator measured without its neab still fixes
 * neab (p_out + neab bits, neab < 0); a wider one without neab leaves the model undetermined:
 * nonzero with why set. */
int ug_tc_params_measured(const ug_tc_params *pub, const ug_tc_measured *m, ug_tc_params *out,
                          char *why, size_t whylen);
/* One line of the probe's table: the figure, measured, published (pub may be NULL), the verdict
 * ("=", "DIFFERS", "not measured", "-" without pub) and the note.  Returns whether the figure is
 * measured and equals pub's, or is n/a for these formats (false without pub). */
bool ug_tc_figure_line(ug_tc_figure f, const ug_tc_measured *m, const ug_tc_params *pub,
                       char *out, size_t len);

/* Whether k can be probed: a GEMM (by its operation's name) whose operand format (op_fmt) is
 * f16, bf16, tf32, e4m3 or e5m2 (not the bf16x9 emulation of binary32), writing its
 * accumulator exactly: binary32, or its own binary16 accumulator (a bf16 or fp16 D rounded from
 * a binary32 accumulator hides the figures' bits: lt_bf16_out_bf16, lt_f16_out_f16 are graded
 * bit for bit with the model's storage rounding instead, gpu_tcmodel/bitwise). */
bool ug_tc_kernel_probeable(const ug_kernel *k);
/* The accumulator of k's model row (the table's `out`): f16 for a binary16 accumulator
 * (acc_fmt: lt_f16_acc16, whose D is widened to binary32), else f32.  k's out_fmt is the
 * model's store_fmt. */
ug_fmt ug_tc_kernel_acc(const ug_kernel *k);

/* The black box of a GEMM kernel: a 16 x 16 x K GEMM whose every row of A is a and every column
 * of B is b, in the kernel's storage formats; every output must be the same (else an error
 * naming the first that differs); d is output (0, 0).  A kernel this GPU or library does not
 * offer (its call's `unsupported`): err starts with "unsupported: ". */
int ug_tc_dot_kernel(void *kernel, const double *a, const double *b, size_t k, double *d,
                     char *err, size_t errlen);
/* The model with params p as a registry-style kernel (its .run computes the model's GEMM on
 * binary32 buffers), for the probe's own proof through the same path as a real kernel.  The
 * parameters are the process's one model-kernel setting (not thread-safe). */
const ug_kernel *ug_tc_model_kernel(const ug_tc_params *p);

#ifdef __cplusplus
}
#endif
#endif
