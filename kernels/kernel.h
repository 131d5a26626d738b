/*
 * kernel.h - what a kernel under test is, and the registry of all of them.
 *
 * Kernels come in families: one file (kernels/cpu/reduce.c, kernels/cuda/matmul.cu, ...) holds
 * the kernels of one family, a table of their registry rows in designated initialisers, and one
 * launcher that switches on the row's .version (as llm.c's dev/cuda files switch on kernel_num):
 *
 *   static const ug_kernel ug_matmul_kernels[] = {
 *       {.name = "matmul_naive", .op = UG_OP_GEMM, .backend = UG_CUDA, .bound = UG_BOUND_TREE,
 *        .version = MATMUL_NAIVE, .doc = "one output a thread, t += a*b in k order"},
 *       ...
 *   };
 *   UG_FAMILY(matmul, ug_matmul_kernels, ug_matmul_run)
 *
 * Adding a kernel to a family is one row and one case of the launcher's switch, in that one
 * file.  kernels/meson.build lists the family files; the registry (kernels/registry.c)
 * concatenates their tables, for every build variant the family was compiled in.
 *
 * Contract of a launcher, run(k, c):
 *   - inputs are host memory and read-only (a kernel that reorders works on its own copy);
 *   - it reads its inputs from c->in[] and writes the result(s) to c->out (1 value for sum/dot,
 *     M*N for gemm), each buffer in the format its row declares (in_store, out_fmt): a binary32
 *     kernel takes them as ug_in_f32(c, 0), ug_in_f32(c, 1), ug_out_f32(c); ug_kernel_run
 *     refuses a call whose buffers' formats differ from the row's, so these are never NULL
 *     inside a launcher;
 *   - a GPU kernel with c->reps > 0 also times itself: warm-up, then c->reps timed runs with CUDA
 *     events around the kernel(s) only, median in c->time_ms; the result written is that of a
 *     normal run.  CPU kernels ignore reps: the harness times them with a monotonic clock;
 *   - it returns 0, or nonzero with a message in c->err (CUDA error text, size limit exceeded...);
 *     it never exits or aborts, and frees what it allocated on every path.
 */
#ifndef UG_KERNEL_H
#define UG_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/fence.h"
#include "base/format.h"
#include "base/opshape.h"
#include "include/ulpgate/ulpgate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel interface (ug_op, formats, bound classes, ug_call and its typed-buffer accessors,
 * ug_kernel, ug_family, the launcher type, UG_VP_*) is the public header: a plugin built outside
 * this tree sees exactly the same declarations (include/ulpgate/ulpgate.h). */

/* The family descriptor of a family file (one per file), named after its stem and the build
 * variant it is compiled as (-DUG_BUILD_VARIANT=nofma; "default" when not given). */
#ifndef UG_BUILD_VARIANT
#define UG_BUILD_VARIANT default
#endif
#ifndef UG_BUILD_PROPS
#define UG_BUILD_PROPS 0 /* C in c11 mode: -ffp-contract=off, IEEE arithmetic as written */
#endif
#define UG_KSTR_(x) #x
#define UG_KSTR(x) UG_KSTR_(x)
#define UG_KCAT_(a, b, c, d) a##b##c##d
#define UG_KCAT(a, b, c, d) UG_KCAT_(a, b, c, d)
#define UG_FAMILY_SYMBOL(stem, variant) UG_KCAT(ug_family_, stem, _, variant)
#ifdef __cplusplus
#define UG_FAMILY_EXTERN extern "C"
#else
#define UG_FAMILY_EXTERN extern
#endif
#define UG_FAMILY(stem, table, launcher)                                                       \
    UG_FAMILY_EXTERN const ug_family UG_FAMILY_SYMBOL(stem, UG_BUILD_VARIANT);                 \
    const ug_family UG_FAMILY_SYMBOL(stem, UG_BUILD_VARIANT) = {                               \
        #stem, UG_KSTR(UG_BUILD_VARIANT), table, sizeof(table) / sizeof((table)[0]), launcher, \
        (unsigned)(UG_BUILD_PROPS)};

/* ---- the registry (kernels/registry.c) ---------------------------------------------------- */

/* Every kernel of every family and variant built, in a fixed order (the family list of
 * kernels/meson.build, then each table's order).  NULL past the end. */
const ug_kernel *ug_kernel_at(size_t i);
size_t ug_kernel_count(void);
/* By identity "name@variant", or by plain "name" (its default variant).  NULL if none. */
const ug_kernel *ug_kernel_find(const char *name);
/* Whether glob (fnmatch) selects k: a glob with '@' is matched against k->id, one without
 * against k->name (so "matmul_kahan" selects every variant of it). */
bool ug_kernel_matches(const ug_kernel *k, const char *glob);
/* The kernel ug_kernel_run is running on this thread, NULL when none (the run guard names it
 * when the process crashes; on a thread the kernel started itself, the last one entered while
 * a call is in flight).  Async-signal-safe. */
const ug_kernel *ug_kernel_running(void);
/* The kernel of the oldest call in flight (any thread), its start (ug_now_s) in *t0; NULL when
 * none: what a watchdog's per-call time limit reads. */
const ug_kernel *ug_kernel_oldest_call(double *t0);
/* The last kernel ug_kernel_run entered, NULL before the first (a crash found after a kernel
 * returned, as a heap overrun is at the next free, names it). */
const ug_kernel *ug_kernel_last_run(void);
/* Run k on c through its row's .run, else its family's launcher (clears c->err first), under
 * the known floating-point environment (base/fenv.h); a kernel that returns with another one
 * fails (-1, c->err says what changed), and the caller's is restored. */
int ug_kernel_run(const ug_kernel *k, ug_call *c);
/* ug_kernel_run on fenced copies of c's buffers (base/fence.h: an inaccessible page at side of
 * each) for a CPU kernel, the outputs copied back: a read or write one element outside a buffer
 * faults in the kernel, which the guard (harness/run/guard.h) names.  A GPU kernel runs as
 * ug_kernel_run.  -1 with c->err when the memory cannot be mapped.  O(bytes of the call). */
int ug_kernel_run_fenced(const ug_kernel *k, ug_call *c, ug_fence_side side);
/* The UG_VP_* properties of the build variant k was compiled as; UG_VP_CPU_MODEL also where its
 * family's machine code showed it (ug_kernel_machine). */
unsigned ug_kernel_props(const ug_kernel *k);
/* Why k's bits depend on the CPU model ("rsqrtss x12", "call _ZGVbN4v_expf x10", "declared
 * (UG_VP_CPU_MODEL)"), or NULL when they do not. */
const char *ug_kernel_machine(const ug_kernel *k);
/* The build variants of this build: name, backend ("cpu" or "cuda") and the compiler flags that
 * make it, as kernels/meson.build lists them, in that order; NULL past the end. */
typedef struct {
    const char *name, *backend, *flags;
} ug_variant_info;
const ug_variant_info *ug_variant_at(size_t i);
/* k's depth at n (n - 1 when the row declares none, or when its variant reassociates: then the
 * order written is no contract, and n - 1 is the depth of every order). */
size_t ug_kernel_depth(const ug_kernel *k, size_t n);

/* What the terms behind one output are: binary32 values (a sum), or exact products of two
 * binary32 values that a kernel rounds once more (dot, GEMM: one more rounding in the bound).
 * Each operation's descriptor (ops/) names its kind. */
typedef enum { UG_TERMS_VALUES, UG_TERMS_PRODUCTS } ug_terms;
/* The a-priori bound for one output: n terms of the given kind, S = sum |terms| (upper bound),
 * s = exact value.  Returns +inf when S is not finite or the bound is vacuous, 0 for
 * UG_BOUND_NONE.  (kernels/bounds.c; the harness calls it through ops/op.h's ug_kernel_bound,
 * which takes the term kind from the kernel's operation.) */
double ug_bound_terms(const ug_kernel *k, ug_terms terms, size_t n, double S, double s_abs);
/* The absolute part of k's bound that the operands' magnitude sets, for the classes that round
 * operands to a narrower format (f16, bf16, tf32, bf16x9: its subnormal spacing), given the
 * largest |operand| of the input; 0 for the others.  Added to ug_kernel_bound where that is
 * finite.  (kernels/bounds.c) */
double ug_kernel_bound_underflow(const ug_kernel *k, size_t n, double operand_max);
/* The block_fma classes' parameters for one operand format and accumulator (kernels/bounds.c):
 * blocks of at most b products, t extra alignment bits, p bits in a block's result. */
typedef struct ug_block_model {
    ug_fmt op_fmt, acc_fmt; /* acc_fmt: f32, or f16 for a binary16 accumulator */
    int b, t, p;
} ug_block_model;
/* The process's block models (the harness sets the detected GPU's, from the published table
 * reports/tensorcore/params.tsv: oracle/tc/tcprobe.h, ug_tc_block_models): a block_fma row
 * whose op_fmt and accumulator match one takes its b, t, p instead of the envelope (b = the
 * instruction's k, t = 0, p = the accumulator's, fp8 13).  n = 0 restores the envelope; at most
 * 32 models; source says where they come from (copied).  Not thread-safe: set before measuring. */
void ug_block_models_set(const ug_block_model *m, int n, const char *source);
/* "envelope", or the source given to ug_block_models_set. */
const char *ug_block_models_source(void);
/* c of one block of model m: 2^(1-p) + (b + 1) 2^(2-p-t) (1 + 2^(1-p)) (bounds.c derives it). */
double ug_block_model_c(const ug_block_model *m);
/* The largest operand magnitude k's class admits (binary16: 65504; else +inf): beyond it an
 * operand may overflow and no bound holds. */
double ug_kernel_operand_limit(const ug_kernel *k);
/* The probabilistic bound (Higham & Mary 2019, kernels/bounds.c) for the classes whose
 * worst-case bound can be vacuous (tree, wide_acc): gamma~_D(lambda) S; the a-priori bound for
 * the others.  +inf when S is not finite or lambda <= 0. */
double ug_bound_prob_terms(const ug_kernel *k, ug_terms terms, size_t n, double S, double s_abs,
                           double lambda);
/* The probability that the probabilistic bound fails for one output of n terms:
 * at most 2n exp(-lambda^2 (1-u)^2 / 2) (capped at 1). */
double ug_prob_failure(size_t n, double lambda);
const char *ug_bound_class_name(ug_bound_class b);
/* "cpu" or "cuda". */
const char *ug_backend_name(ug_backend b);

/* Common depth functions (kernels/bounds.c). */
size_t ug_depth_serial(size_t n);   /* n - 1 */
size_t ug_depth_log2(size_t n);     /* ceil(log2 n) */

#ifdef __cplusplus
}
#endif
#endif
