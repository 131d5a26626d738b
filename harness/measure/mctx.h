/*
 * mctx.h - the measurement's internals shared by its modules (harness/measure), and the part of
 * the context (ug_t) a measurement reads and the hooks it reports through.
 *
 *   input.c        inputs and their exact results
 *   measure.c      measurements (measure_fmt.c: their number formats; kernel_call.c: one call
 *                  of a kernel, fenced, and a deterministic kernel's reruns)
 *   attrib.c       the terms that matter of an output
 *   ftz.c          flush-to-zero recognised
 *   run_limits.c   memory and size limits
 *   prof.c         time by phase
 *   gpu.c          the GPU as a measurement sees it
 *   mctx.c         the hooks' callers
 *
 * The context's owner (harness/run: a running case) puts a ug_mctx first in its struct ug_t
 * and fills it before the first measurement; nothing here reads the rest of ug_t.
 */
#ifndef UG_MCTX_H
#define UG_MCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/measure/measure.h"

/* How a measurement reports to the test point it belongs to, and asks whether to stop. */
typedef struct ug_point_hooks {
    void (*open)(ug_t *t, const char *name, ug_result *r);  /* a point for the measurement r */
    void (*point)(ug_t *t, const char *name); /* a point of the context's own, named after it */
    void (*ensure)(ug_t *t);                                 /* some point is open */
    void (*close)(ug_t *t);
    ug_result *(*open_result)(ug_t *t);     /* the open point's measurement, or NULL */
    /* the open point fails: "file:line: expr failed: msg" */
    void (*fail)(ug_t *t, const char *file, int line, const char *expr, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
    void (*rerun)(ug_t *t, const ug_result *r, int trial);  /* how to run it again */
    void (*skip_point)(ug_t *t, const char *why);           /* the open point is a skip */
    const char *(*skip_reason)(const ug_t *t);              /* NULL when it is not */
    void (*skip)(ug_t *t, const char *why); /* the rest of the context is skipped (leaves it) */
    void (*leave)(ug_t *t);                 /* leaves the context (no return) */
    void (*check_stop)(ug_t *t);            /* leaves the context on a signal (no return) */
    bool (*stopping)(void);                 /* a signal came: stop at the next boundary */
    const char *(*stop_reason)(void);       /* the signal's name */
} ug_point_hooks;

/* The measurement's part of a context. */
typedef struct ug_mctx {
    const ug_point_hooks *hooks;
    const char *name;        /* seeds every input's stream, prefixes every point's name */
    bool gpu;                /* a GPU context: its inputs may take the GPU oracle when it pays */
    uint64_t seed;
    long trial;              /* only this trial (-1: every trial) */
    int trials;              /* every input's trial count (0: the caller's own) */
    ug_oracle_kind oracle;
    bool oracle_set;         /* the oracle was asked for; else gpu where it pays, else fast */
    bool oracle_check_all;   /* every GPU oracle result against the fast one */
    double lambda;           /* of the probabilistic bound (0: none) */
    /* owned memory (ug_input_release, ug_result_free), freed by the context's owner */
    ug_input **inputs;
    size_t n_inputs, cap_inputs;
    ug_result **results;
    size_t n_results, cap_results;
} ug_mctx;

/* The ug_mctx a context begins with. */
#define ug_mctx_of(t) ((ug_mctx *)(void *)(t))

/* The hooks, called (mctx.c). */
void ug_m_open(ug_t *t, const char *name, ug_result *r);
void ug_m_point(ug_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The trial count of an input: the context's (--trials) when it has one, else dflt. */
int ug_m_trials(ug_t *t, int dflt);
void ug_m_ensure(ug_t *t);
void ug_m_close(ug_t *t);
ug_result *ug_m_open_result(ug_t *t);
void ug_m_fail(ug_t *t, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void ug_m_rerun(ug_t *t, const ug_result *r, int trial);
void ug_m_skip_point(ug_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *ug_m_skip_reason(const ug_t *t);
void ug_m_skip(ug_t *t, const char *why);
void ug_m_leave(ug_t *t) __attribute__((noreturn));
void ug_m_check_stop(ug_t *t);
bool ug_m_stopping(ug_t *t);
const char *ug_m_stop_reason(ug_t *t);

/* input.c / measure.c */
void ug_input_release(ug_input *in);
size_t ug_input_elements(const ug_input *in); /* outputs per trial: 1, or M*N for a GEMM */
void ug_result_free(ug_result *r);
/* kernel_call.c: the kernel runs a case made itself (ug_run_kernel: bit-for-bit and invariance
 * cases, which record no measured row) in this process; the selection check counts them. */
size_t ug_direct_kernel_runs(void);
/* One such run that a case made through its own call (a quantizer: kernels/quantize.h). */
void ug_direct_kernel_ran(void);
/* The kernels that declined every call of this process as unsupported (ran on none): up to cap
 * of them into k[], with the first reason and the calls declined; returns how many
 * (kernel_call.c). */
size_t ug_kernels_unsupported_everywhere(const ug_kernel **k, const char **why, size_t *calls,
                                         size_t cap);
/* A kernel's outputs on an input: buffer j (O, lse: base/opshape.h's outs) of count[j]
 * elements in fmt[j] (the kernel's out_fmt, then its out_more_fmt), all stored one after the
 * other in one allocation (ug_result.out[trial]), element e of the records (ug_opshape_outputs:
 * output 0's, then output 1's) at its place there.  One buffer of r->elements in out_fmt for
 * an operation of one output. */
typedef struct {
    int n;
    size_t first[UG_MAX_OUTPUTS], count[UG_MAX_OUTPUTS], off[UG_MAX_OUTPUTS], bytes;
    ug_fmt fmt[UG_MAX_OUTPUTS];
} ug_outs;

ug_outs ug_outs_of(const ug_kernel *k, const ug_input *in);
int ug_outs_buf(const ug_outs *o, size_t e);                         /* which buffer holds e */
double ug_outs_load(const ug_outs *o, const void *out, size_t e);    /* output e, a double */
/* measure_fmt.c: whether k can read in's buffers (else a failure on the point naming the
 * formats), and whether the point is out of its formats' range (then skipped, saying so). */
bool ug_measure_formats_ok(ug_t *t, const ug_kernel *k, const ug_input *in);
bool ug_measure_out_of_range(ug_t *t, ug_result *r);
/* gpu.c: why no GPU can be used ("built without CUDA", the CUDA error...). */
const char *ug_gpu_why(void);

#endif
