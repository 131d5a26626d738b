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

#include "base/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operation a kernel computes: an open id.  The built-in operations have these ids; an
 * operation registered at run time (ops/op.h's ug_op_register: the test tree's, a plugin's)
 * gets the ids from UG_OP_BUILTIN on.  What an operation is lives in its descriptor (ops/). */
typedef int ug_op;
enum { UG_OP_SUM, UG_OP_DOT, UG_OP_GEMM, UG_OP_BUILTIN };
typedef enum { UG_CPU, UG_CUDA } ug_backend;
/* Number formats (ug_fmt): the table is base/format.h.  A kernel row names the storage format of
 * each input buffer (in_store) and of the output (out_fmt), and, apart from those, the format its
 * arithmetic rounds operands to (op_fmt: a tensor-core GEMM's TF32/f16/bf16 operands) and
 * accumulates in (acc_fmt).  All default to binary32 (UG_F32 = 0). */

/* Error-bound classes (Higham, Accuracy and Stability of Numerical Algorithms, ch. 3-4),
 * u = 2^-24, gamma_k = k u / (1 - k u).  S = sum |x_i| (sum) or sum |x_i y_i| (dot, gemm),
 * s the exact result, D = depth(n) the most additions any term passes through.
 *   UG_BOUND_TREE      sum: gamma_D S;   dot/gemm: gamma_{D+1} S (one more rounding: the product)
 *   UG_BOUND_KAHAN     sum: (2u + 4n u^2) S;  dot/gemm: (3u + 4n u^2) S (products not compensated)
 *   UG_BOUND_NEUMAIER  sum: u|s| + gamma_D^2 S;  dot: u|s| + (u + gamma_D^2) S  (serial: D = n-1)
 *   UG_BOUND_WIDE_ACC  binary64 accumulation (tree of depth D), rounded once to binary32:
 *                      u|s| + (1+u) gamma64_D S   (gamma64 with u = 2^-53)
 *   UG_BOUND_TF32      operands rounded to TF32 (10-bit fraction, either rounding: 2^-10 each),
 *                      products exact in binary32, binary32 accumulation of depth D:
 *                      (2^-9 + 2^-20 + gamma_D(2u) (1 + 2^-9 + 2^-20)) S
 *   UG_BOUND_F16       the same with operands rounded to binary16 (10-bit fraction, as TF32) and
 *                      binary16's range: no bound when an operand exceeds 65504 (the point is
 *                      skipped, saying so), an absolute term for operands below 2^-14
 *                      (ug_kernel_bound_underflow)
 *   UG_BOUND_BF16      the same with bfloat16 operands (7-bit fraction: 2^-7 each):
 *                      (2^-6 + 2^-14 + gamma_D(2u) (1 + 2^-6 + 2^-14)) S
 *   UG_BOUND_BF16X9    fp32 emulated by bfloat16x9 (each operand split exactly into 3 bfloat16,
 *                      the 9 products exact in fp32, 9K terms accumulated in fp32 in any order,
 *                      allowed to truncate): gamma_{9(D+1)-1}(2u) (1 + 2^-6)^2 S
 *   UG_BOUND_NONE      no a-priori bound declared.
 * Classes of the number-format kernels (issue 23; kernels/bounds.c has the derivations),
 * u64 = 2^-53, u16 = 2^-11 (binary16), ubf = 2^-8 (bfloat16):
 *   UG_BOUND_F64_TREE  binary64 data, accumulation and output, depth D:
 *                      sum: gamma_D(u64) S;  dot: gamma_{D+1}(u64) S
 *   UG_BOUND_F64_KAHAN Kahan summation in binary64: (2 u64 + 4 n u64^2) S (dot: 3 u64)
 *   UG_BOUND_F16_ACC   binary16 values summed in a binary16 accumulator (the result is the
 *                      accumulator): gamma_D(u16) S while (1 + gamma_D(u16)) S <= 65504 (no
 *                      partial sum can overflow), else no bound (+inf); sums only
 *   UG_BOUND_BF16_OUT  binary32 accumulation of depth D, rounded once to bfloat16:
 *                      ubf|s| + (1 + ubf) gamma_D(u) S + 2^-134 (dot: gamma_{D+1})
 */
typedef enum {
    UG_BOUND_NONE = 0,
    UG_BOUND_TREE,
    UG_BOUND_KAHAN,
    UG_BOUND_NEUMAIER,
    UG_BOUND_WIDE_ACC,
    UG_BOUND_TF32,
    UG_BOUND_F16,
    UG_BOUND_BF16,
    UG_BOUND_BF16X9,
    UG_BOUND_F64_TREE,
    UG_BOUND_F64_KAHAN,
    UG_BOUND_F16_ACC,
    UG_BOUND_BF16_OUT,
} ug_bound_class;

/* A typed buffer of a call: count elements stored in fmt (ug_fmt_bytes(fmt) bytes each).  An
 * unused input has data NULL and count 0.  (Block-scaled formats, MX/NVFP4, would add their
 * per-block scales here, beside data.) */
#define UG_MAX_INPUTS 2
typedef struct {
    const void *data;
    ug_fmt fmt;
    size_t count;
} ug_arg;
typedef struct {
    void *data;
    ug_fmt fmt;
    size_t count;
} ug_arg_out;

typedef struct ug_call {
    ug_op op;
    size_t n;            /* sum/dot: length; gemm: M (rows of A and C) */
    size_t gemm_n;       /* gemm: N (columns of B and C) */
    size_t gemm_k;       /* gemm: K (inner dimension) */
    ug_arg in[UG_MAX_INPUTS]; /* sum: in[0] = x; dot: x, y; gemm: A (M x K), B (K x N) row-major */
    ug_arg_out out;      /* sum/dot: 1 value; gemm: C, M x N row-major */
    int reps;            /* > 0: time the kernel, median of reps runs after a warm-up */
    unsigned long long input_id; /* nonzero: x and y are the same bytes whenever this id is: a GPU
                            launcher may reuse the device copy it made for another kernel */
    int launch_config;   /* 0; a kernel that offers other launch configurations of the same
                            computation (another stream, alignment, tiling) selects one by
                            1, 2, ... (the determinism cases; others ignore it) */
    double time_ms;      /* out: median time of one run (device time for GPU kernels) */
    char err[512];       /* out: what went wrong when run() returns nonzero */
    bool unsupported;    /* out, with a nonzero return: this GPU or library does not offer what
                            the kernel needs (err says what): its test point is skipped, not failed */
} ug_call;

/* Input i / the output as binary32 arrays; NULL if that buffer is not binary32 (or i is out of
 * range). */
static inline const float *ug_in_f32(const ug_call *c, int i)
{
    return i >= 0 && i < UG_MAX_INPUTS && c->in[i].fmt == UG_F32 ? (const float *)c->in[i].data
                                                                  : (const float *)0;
}
static inline float *ug_out_f32(ug_call *c)
{
    return c->out.fmt == UG_F32 ? (float *)c->out.data : (float *)0;
}

/* The element counts of a call's buffers depend on its operation: ops/op.h's ug_call_set_f32
 * and ug_call_in_count fill and size them from the operation's descriptor. */
typedef struct ug_kernel ug_kernel;
typedef struct ug_family ug_family;
typedef int (*ug_launcher)(const ug_kernel *k, ug_call *c);

/* One registry row.  A family file fills the fields up to .doc (designated initialisers, in
 * this order: C++ wants declaration order); the registry fills the rest. */
struct ug_kernel {
    const char *name;        /* unique within its family, says what it does: "reduce_warp_shuffle" */
    ug_op op;
    ug_backend backend;      /* default UG_CPU */
    ug_fmt op_fmt, acc_fmt, out_fmt; /* operand rounding, accumulator, output storage (the
                                        header's comment on formats); default binary32 */
    ug_fmt in_store[UG_MAX_INPUTS]; /* storage format of each input buffer; default binary32 */
    bool nondeterministic;   /* default false: same inputs -> bitwise same output, every run */
    bool ftz;                /* flushes subnormal operands and results to zero (PTX atom.add.f32):
                                every bound gains (2n - 1) 2^-126, one flush per term and sum */
    ug_bound_class bound;
    size_t (*depth)(size_t n); /* most additions any term passes through; NULL: n - 1 */
    int version;             /* what the family's launcher switches on */
    size_t max_n;            /* 0: no limit; else the launcher refuses larger n, clearly */
    int method;              /* the seven-methods post's method number 1..7, 0 if none */
    const char *doc;         /* one line: what it does and where it comes from */
    /* filled by the registry */
    const ug_family *family;
    const char *variant;     /* the build variant: "default", ... */
    char id[64];             /* name@variant: a kernel's identity in filters, reports, baselines */
};

/* What a build variant's flags allow the compiler to do with the arithmetic as written
 * (kernels/meson.build passes them as -DUG_BUILD_PROPS=...; cases and bounds read them):
 *   UG_VP_FMA        a*b + c may be contracted into one FMA (nvcc's default -fmad=true)
 *   UG_VP_FTZ        subnormal operands and results of binary32 arithmetic are flushed to
 *                    zero (nvcc --use_fast_math implies --ftz=true)
 *   UG_VP_REASSOC    the compiler may reassociate and vectorise as if arithmetic were real
 *                    (gcc/clang -ffast-math: -fassociative-math): the order written is no
 *                    contract, only what holds for every order of the same operations does
 *   UG_VP_APPROX     approximate division and square root (--prec-div=false --prec-sqrt=false)
 *   UG_VP_FINITE     the compiler may assume no NaN or infinity (-ffinite-math-only) */
enum {
    UG_VP_FMA = 1 << 0,
    UG_VP_FTZ = 1 << 1,
    UG_VP_REASSOC = 1 << 2,
    UG_VP_APPROX = 1 << 3,
    UG_VP_FINITE = 1 << 4,
};

struct ug_family {
    const char *name;        /* the file's stem: "matmul" */
    const char *variant;     /* the build variant this object was compiled as */
    const ug_kernel *kernels;
    size_t count;
    ug_launcher run;
    unsigned props;          /* UG_VP_* of the flags it was compiled with */
};

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
/* A family of a test program's own (kernels built to be wrong, for the harness's self-tests):
 * call from a constructor, before anything looks at the registry. */
void ug_registry_add_family(const ug_family *f);
/* Whether k comes from such a family: a self-test fixture, not a kernel under test (the
 * every-kernel-measured coverage check leaves it out). */
bool ug_kernel_is_fixture(const ug_kernel *k);
/* Run k on c through its family's launcher (clears c->err first). */
int ug_kernel_run(const ug_kernel *k, ug_call *c);
/* The UG_VP_* properties of the build variant k was compiled as. */
unsigned ug_kernel_props(const ug_kernel *k);
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
/* The operation's name ("sum"): ops/ops.c, the operation table, names every operation. */
const char *ug_op_name(ug_op op);
const char *ug_backend_name(ug_backend b);

/* Common depth functions (kernels/bounds.c). */
size_t ug_depth_serial(size_t n);   /* n - 1 */
size_t ug_depth_log2(size_t n);     /* ceil(log2 n) */

#ifdef __cplusplus
}
#endif
#endif
