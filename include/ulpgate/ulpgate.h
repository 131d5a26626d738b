/*
 * ulpgate.h - the public C API of ulpgate: what a kernel author needs to have ulpgate test a
 * kernel built outside its tree (C, C++ or CUDA C++ through nvcc).  Installed as
 * <ulpgate/ulpgate.h>; it includes only standard headers.  docs/your-own-kernel.md is the guide.
 *
 * A plugin is a shared library holding a table of kernel rows and one entry point:
 *
 *   #include <ulpgate/ulpgate.h>
 *   static int my_sum(const ug_kernel *k, ug_call *c) { ... ug_in_f32(c, 0) ... ug_out_f32(c) }
 *   UG_PLUGIN(
 *       {.name = "my_sum", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = my_sum,
 *        .doc = "four partial sums, added at the end"},
 *   )
 *
 * `ulpgate run --plugin ./libmy.so` dlopens it, calls ulpgate_plugin_entry(), refuses a plugin
 * of another ULPGATE_API_VERSION, and registers the rows: every built-in suite then measures them.
 *
 * Contract of a kernel's run(k, c):
 *   - inputs are host memory and read-only (a kernel that reorders works on its own copy);
 *   - it reads c->in[] and writes c->out[] (output 0: 1 value for sum/dot, M*N for gemm; an
 *     operation of several outputs, as attention's O and its row log-sum-exp, has one buffer
 *     each), each buffer in the format the row declares (in_store, out_fmt; binary32 by
 *     default): ug_in_f32(c, 0), ug_out_f32(c), ug_output_f32(c, 1).  The sizes are
 *     c->shape's named dimensions, in the operation's order: ug_dim(c, 0) is n (sum, dot, the
 *     row operations) or M (gemm: M, N, K).  ulpgate refuses a call whose buffer formats differ from the row's, so the
 *     accessor of the declared format is never NULL inside run();
 *   - a GPU kernel (.backend = UG_CUDA) copies to and from the device itself; with c->reps > 0 it
 *     also times itself (warm-up, then c->reps timed runs, median in c->time_ms);
 *   - it returns 0, or nonzero with a message in c->err; it never exits or aborts, and frees what
 *     it allocated.  (A crash or a hang is contained by the harness: the point fails, saying so.)
 *   - it may be called from several threads at once, on different calls (`ulpgate hunt
 *     --threads N` evaluates candidates in parallel): it keeps no state between calls and no
 *     scratch shared by calls (no static buffer, no call counter).  The hunt checks a breach it
 *     finds on one thread again and names a kernel that is not reentrant.
 */
#ifndef ULPGATE_ULPGATE_H
#define ULPGATE_ULPGATE_H

#include <stdbool.h>
#include <stddef.h>

/* The version of this interface (the layout of ug_kernel, ug_call, ug_plugin).  A plugin records
 * the version it was compiled with; the loader refuses any other. */
#define ULPGATE_API_VERSION 3   /* 2: ug_call's shape, options and several outputs;
                                   3: ug_kernel's batch_invariant */

#ifdef __cplusplus
extern "C" {
#endif

/* Number formats: the table is ulpgate's base/format.h.  UG_F32 = 0 is the default of every
 * kernel row and buffer.  TF32 is an operand rounding, not a storage format.  E3M2, E2M3
 * (FP6) and E2M1 (FP4) are OCP MX's element formats: no inf, no NaN, saturating; one a byte. */
typedef enum {
    UG_F32, UG_F64, UG_TF32, UG_F16, UG_BF16, UG_E4M3, UG_E5M2,
    UG_E3M2, UG_E2M3, UG_E2M1,
    UG_FMT_COUNT
} ug_fmt;

/* The operation a kernel computes: an open id; the built-in operations have these. */
typedef int ug_op;
enum {
    UG_OP_SUM,
    UG_OP_DOT,
    UG_OP_GEMM,
    UG_OP_SCAN,      /* prefix sums and norms (ops/scan.c, ops/norm.c) */
    UG_OP_EXSCAN,
    UG_OP_NRM2,
    UG_OP_ASUM,
    UG_OP_SOFTMAX,   /* row operations (ops/softmax.c, ...) */
    UG_OP_LOGSUMEXP,
    UG_OP_RMSNORM,
    UG_OP_LAYERNORM,
    UG_OP_ATTENTION,
    UG_OP_GEMM_BS,   /* GEMM of block-scaled FP8 inputs (ops/gemm_bs.c) */
    UG_OP_BUILTIN
};
typedef enum { UG_CPU, UG_CUDA } ug_backend;

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
 *   UG_BOUND_BF16      the same with bfloat16 operands (7-bit fraction: 2^-7 each):
 *                      (2^-6 + 2^-14 + gamma_D(2u) (1 + 2^-6 + 2^-14)) S
 *   UG_BOUND_BF16X9    fp32 emulated by bfloat16x9 (each operand split exactly into 3 bfloat16,
 *                      the 9 products exact in fp32, 9K terms accumulated in fp32 in any order,
 *                      allowed to truncate): gamma_{9(D+1)-1}(2u) (1 + 2^-6)^2 S
 *   UG_BOUND_NONE      no a-priori bound declared.
 * Classes of the number-format kernels (kernels/bounds.c has the derivations),
 * u64 = 2^-53, u16 = 2^-11 (binary16), ubf = 2^-8 (bfloat16):
 *   UG_BOUND_F64_TREE  binary64 data, accumulation and output, depth D:
 *                      sum: gamma_D(u64) S;  dot: gamma_{D+1}(u64) S
 *   UG_BOUND_F64_KAHAN Kahan summation in binary64: (2 u64 + 4 n u64^2) S (dot: 3 u64)
 *   UG_BOUND_F16_ACC   binary16 values summed in a binary16 accumulator (the result is the
 *                      accumulator): gamma_D(u16) S while (1 + gamma_D(u16)) S <= 65504 (no
 *                      partial sum can overflow), else no bound (+inf); sums only
 *   UG_BOUND_BF16_OUT  binary32 accumulation of depth D, rounded once to bfloat16:
 *                      ubf|s| + (1 + ubf) gamma_D(u) S + 2^-134 (dot: gamma_{D+1})
 * Classes of the tensor-core GEMMs (kernels/bounds.c has the derivation; binary32 operands
 * rounded to op_fmt by the launcher, products exact, blocks of at most b products fused with the
 * accumulator, aligned to the largest addend with t extra bits and truncated, c the error of one
 * block relative to the sum of its addends' magnitudes):
 *   UG_BOUND_BLOCK_FMA       r S + (1 + r) ((1 + c)^D - 1) S, r the products' operand-rounding error,
 *                            D the block steps any term passes through (the row's depth)
 *   UG_BOUND_BLOCK_FMA_PROMOTED  the same within chunks of 128 terms, each chunk then added to a
 *                            binary32 accumulator (DeepSeek-V3's promotion)
 *   UG_BOUND_BS_FP8_PROMOTED the same on block-scaled fp8 inputs (exact: no operand rounding),
 *                            the chunk's power-of-two scales applied exactly at promotion
 * Classes of the row operations (kernels/bounds_rows.c has the derivations, S the
 * oracle's per-output quantity of oracle/rows/transcend.h, s the exact output):
 *   UG_BOUND_SOFTMAX_NAIVE    exp(x_i) / sum exp(x_j), no shift (Blanchard-Higham-Mary's
 *                             unshifted algorithm; overflows from x = 88.7 on)
 *   UG_BOUND_SOFTMAX_SHIFTED  exp(x_i - max) / sum exp(x_j - max), two passes
 *   UG_BOUND_SOFTMAX_ONLINE   one pass, the running sum rescaled at each new max (Milakov &
 *                             Gimelshein 2018)
 *   UG_BOUND_LSE_NAIVE        log(sum exp(x_j));  UG_BOUND_LSE_SHIFTED  max + log(sum exp(x_j - max))
 *   UG_BOUND_RMSNORM          x_i w_i / sqrt(sum x^2 / n + eps)
 *   UG_BOUND_LAYERNORM_TWOPASS  mean, then sum (x - mean)^2: ((x_i - mean) / sqrt(var + eps)) w_i + b_i
 *   UG_BOUND_LAYERNORM_ONEPASS  var = E[x^2] - E[x]^2: a bound growing with (mean/std)^2
 *   UG_BOUND_LAYERNORM_WELFORD  Welford's update of mean and M2
 *   UG_BOUND_LSE_ONLINE       max + log(sum), the sum one pass rescaled at each new max
 * Classes of attention (kernels/bounds_attn.c derives them from the reference's
 * per-row score magnitude and per-output weighted |V| sum, oracle/attention/exact_attention.h):
 *   UG_BOUND_ATTN_NAIVE       three passes: scores, the shifted softmax, P V
 *   UG_BOUND_ATTN_NAIVE_BF16  the same on bf16 inputs with P and O rounded to bf16 (PyTorch's
 *                             bf16 math attention)
 *   UG_BOUND_ATTN_UNSHIFTED   exp(s) without the max: overflows from s = 88.7
 *   UG_BOUND_ATTN_ONLINE      FlashAttention-2's loop in binary32 (blocks of 64 keys)
 *   UG_BOUND_ATTN_FA2_BF16    FlashAttention-2's arithmetic: exp2 of c log2 e folded, bf16 P
 *                             before P V, bf16 O
 *   UG_BOUND_ATTN_SPLIT_SIZE  split-KV decoding, 256 keys a split, FA2's combine
 *   UG_BOUND_ATTN_SPLIT_COUNT split-KV decoding, 8 splits, FA2's combine
 *   UG_BOUND_ATTN_FA2_MMA     FlashAttention-2's arithmetic on tensor cores: S = Q K^T and P V by
 *                             bf16 mma.sync with binary32 accumulators (the block_fma model's
 *                             envelope for both), the rest as UG_BOUND_ATTN_FA2_BF16 */
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
    UG_BOUND_BLOCK_FMA,
    UG_BOUND_BLOCK_FMA_PROMOTED,
    UG_BOUND_SOFTMAX_NAIVE,
    UG_BOUND_SOFTMAX_SHIFTED,
    UG_BOUND_SOFTMAX_ONLINE,
    UG_BOUND_LSE_NAIVE,
    UG_BOUND_LSE_SHIFTED,
    UG_BOUND_RMSNORM,
    UG_BOUND_LAYERNORM_TWOPASS,
    UG_BOUND_LAYERNORM_ONEPASS,
    UG_BOUND_LAYERNORM_WELFORD,
    UG_BOUND_LSE_ONLINE,
    UG_BOUND_ATTN_NAIVE,
    UG_BOUND_ATTN_NAIVE_BF16,
    UG_BOUND_ATTN_UNSHIFTED,
    UG_BOUND_ATTN_ONLINE,
    UG_BOUND_ATTN_FA2_BF16,
    UG_BOUND_ATTN_SPLIT_SIZE,
    UG_BOUND_ATTN_SPLIT_COUNT,
    UG_BOUND_ATTN_FA2_MMA,
    UG_BOUND_BS_FP8_PROMOTED,
} ug_bound_class;

/* A call's sizes: the operation's named dimensions in its order (base/opshape.c's table names
 * them: sum, dot, the row operations "n"; gemm "M N K"; room for attention's "L S d dv"), and
 * the leading axes of a batched problem.  batch, heads, kv_heads: 0 and 1 both mean one; a
 * problem of heads query heads shares each key/value head among heads / kv_heads of them
 * (kv_heads 0: as many as heads). */
#define UG_MAX_DIMS 6
typedef struct ug_shape {
    size_t dim[UG_MAX_DIMS];
    size_t batch, heads, kv_heads;
} ug_shape;

/* A call's options, beside its sizes: what an operation such as attention takes per call.
 * scale 0: the operation's default (attention: 1 / sqrt(d)); flags UG_OPT_*. */
enum { UG_OPT_CAUSAL = 1u << 0 };
typedef struct ug_opts {
    double scale;
    unsigned flags;
} ug_opts;

/* A typed buffer of a call: count elements stored in fmt.  An unused input or output has data
 * NULL and count 0. */
#define UG_MAX_INPUTS 4
#define UG_MAX_OUTPUTS 2
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
    ug_shape shape;      /* the sizes (ug_dim(c, i)) */
    ug_opts opts;
    ug_arg in[UG_MAX_INPUTS]; /* sum: in[0] = x; dot: x, y; gemm: A (M x K), B (K x N) row-major;
                            softmax, logsumexp: x (rows x n); rmsnorm: x, w (n); layernorm:
                            x, then the weight and the bias in one buffer, [w | b] (2n:
                            in[1].count), b_i at in[1] + n + i */
    ug_arg_out out[UG_MAX_OUTPUTS]; /* out[0]: sum/dot 1 value; gemm C, M x N row-major; an
                            operation of several outputs: one buffer each */
    int reps;            /* > 0: time the kernel, median of reps runs after a warm-up */
    unsigned long long input_id; /* nonzero: the inputs are the same bytes whenever this id is: a
                            GPU launcher may reuse the device copy it made for another kernel */
    int launch_config;   /* 0; a kernel that offers other launch configurations of the same
                            computation (another stream, alignment, tiling) selects one by
                            1, 2, ... (the determinism cases; others ignore it) */
    double time_ms;      /* out: median time of one run (device time for GPU kernels) */
    char err[512];       /* out: what went wrong when run() returns nonzero */
    bool unsupported;    /* out, with a nonzero return: this GPU or library does not offer what
                            the kernel needs (err says what): its test point is skipped, not failed */
} ug_call;

/* Dimension i of c's shape (0 out of range). */
static inline size_t ug_dim(const ug_call *c, int i)
{
    return i >= 0 && i < UG_MAX_DIMS ? c->shape.dim[i] : 0;
}

/* Input i / output j as arrays of their format; NULL if that buffer is in another format (or
 * out of range).  16-bit formats (f16, bf16) come as their bit patterns.  ug_out_*(c) is
 * output 0. */
static inline const void *ug_in_as(const ug_call *c, int i, ug_fmt f)
{
    return i >= 0 && i < UG_MAX_INPUTS && c->in[i].fmt == f ? c->in[i].data : (const void *)0;
}
static inline void *ug_output_as(ug_call *c, int j, ug_fmt f)
{
    return j >= 0 && j < UG_MAX_OUTPUTS && c->out[j].fmt == f ? c->out[j].data : (void *)0;
}
static inline void *ug_out_as(ug_call *c, ug_fmt f) { return ug_output_as(c, 0, f); }
static inline const float *ug_in_f32(const ug_call *c, int i) { return (const float *)ug_in_as(c, i, UG_F32); }
static inline float *ug_out_f32(ug_call *c) { return (float *)ug_out_as(c, UG_F32); }
static inline float *ug_output_f32(ug_call *c, int j) { return (float *)ug_output_as(c, j, UG_F32); }
static inline const double *ug_in_f64(const ug_call *c, int i) { return (const double *)ug_in_as(c, i, UG_F64); }
static inline double *ug_out_f64(ug_call *c) { return (double *)ug_out_as(c, UG_F64); }
static inline const unsigned short *ug_in_f16(const ug_call *c, int i)
{
    return (const unsigned short *)ug_in_as(c, i, UG_F16);
}
static inline const unsigned short *ug_in_bf16(const ug_call *c, int i)
{
    return (const unsigned short *)ug_in_as(c, i, UG_BF16);
}

typedef struct ug_kernel ug_kernel;
typedef struct ug_family ug_family;
/* A kernel's entry: run(k, c), the contract at the top of this file. */
typedef int (*ug_launcher)(const ug_kernel *k, ug_call *c);

/* One kernel row.  A table fills the fields up to .doc (designated initialisers, in this order:
 * C++ wants declaration order); ulpgate's registry fills the rest. */
struct ug_kernel {
    const char *name;        /* unique among all kernels loaded, says what it does */
    ug_op op;
    ug_backend backend;      /* default UG_CPU */
    ug_fmt op_fmt, acc_fmt, out_fmt; /* operand rounding, accumulator, output storage; default
                                        binary32 */
    ug_fmt in_store[UG_MAX_INPUTS]; /* storage format of each input buffer; default binary32 */
    ug_fmt out_more_fmt[UG_MAX_OUTPUTS - 1]; /* storage of outputs 1, ... of an operation of
                                        several outputs; default binary32 */
    bool nondeterministic;   /* default false: same inputs -> bitwise same output, every run */
    bool ftz;                /* flushes subnormal operands and results to zero: every bound
                                gains (2n - 1) 2^-126, one flush per term and sum */
    bool batch_invariant;    /* default false.  true: a row's output bits do not depend on the
                                rows computed beside it (a GEMM's other rows of A: M; a row
                                operation's other rows; attention's other problems and, causal,
                                how the query rows are cut into calls: one prefill or chunks
                                and decode steps).  The invariance cases assert it at batches
                                1, 3, 64 and 1000 (docs/cases.md); false only means "not
                                promised": the report then says whether it held */
    ug_bound_class bound;
    ug_launcher run;         /* the kernel itself (a plugin's row); NULL: the family's launcher */
    size_t (*depth)(size_t n); /* most additions any term passes through; NULL: n - 1 */
    int version;             /* what a family's launcher switches on */
    size_t max_n;            /* 0: no limit; else run() refuses larger n, clearly */
    int method;              /* the seven-methods post's method number 1..7, 0 if none */
    const char *doc;         /* one line: what it does and where it comes from */
    /* filled by the registry */
    const ug_family *family;
    const char *variant;     /* the build variant: "default", ... */
    char id[64];             /* name@variant: a kernel's identity in filters, reports, baselines */
};

/* What a build variant's flags allow the compiler to do with the arithmetic as written:
 *   UG_VP_FMA        a*b + c may be contracted into one FMA (nvcc's default -fmad=true)
 *   UG_VP_FTZ        subnormal operands and results of binary32 arithmetic are flushed to zero
 *   UG_VP_REASSOC    the compiler may reassociate (-ffast-math): only what holds for every order
 *                    of the same operations is a contract
 *   UG_VP_APPROX     approximate division and square root
 *   UG_VP_FINITE     the compiler may assume no NaN or infinity (-ffinite-math-only)
 *   UG_VP_CPU_MODEL  the results' bits depend on the CPU they run on, not only on the source and
 *                    flags: approximate reciprocal or square-root instructions (-ffast-math's
 *                    rsqrtps), -march=native, a library that picks its code by the CPU's
 *                    features at run time (glibc's vector math).  The gate compares such rows
 *                    bit for bit only with runs on the same CPU model, and judges them on their
 *                    status and bound against a run on another (docs/gate.md).  The built-in
 *                    families get it from their machine code (kernels/machine_scan.py); a plugin
 *                    declares it. */
enum {
    UG_VP_FMA = 1 << 0,
    UG_VP_FTZ = 1 << 1,
    UG_VP_REASSOC = 1 << 2,
    UG_VP_APPROX = 1 << 3,
    UG_VP_FINITE = 1 << 4,
    UG_VP_CPU_MODEL = 1 << 5,
};

/* A family: one table of rows and its launcher (a plugin is one family named after its file). */
struct ug_family {
    const char *name;
    const char *variant;     /* the build variant this object was compiled as */
    const ug_kernel *kernels;
    size_t count;
    ug_launcher run;         /* NULL: each row's own .run */
    unsigned props;          /* UG_VP_* of the flags it was compiled with */
};

/* What a plugin's entry point returns.  api_version comes first so that a loader of any version
 * can read it. */
typedef struct ug_plugin {
    int api_version;         /* ULPGATE_API_VERSION the plugin was compiled with */
    size_t kernel_size;      /* sizeof(ug_kernel) as the plugin saw it */
    const ug_kernel *kernels;
    size_t count;
    unsigned props;          /* UG_VP_* of its compiler flags (UG_PLUGIN_PROPS; default 0) */
    const char *corpus;      /* NULL, or the plugin's own cases: a folder of corpus files, relative
                                to the folder of the shared library (UG_PLUGIN_CORPUS) */
} ug_plugin;

#define ULPGATE_PLUGIN_ENTRY "ulpgate_plugin_entry"

#ifdef __cplusplus
}
#define UG_PLUGIN_LINKAGE extern "C"
#else
#define UG_PLUGIN_LINKAGE
#endif

/* Define before UG_PLUGIN to declare what your flags allow (-O3 -ffast-math: UG_VP_REASSOC |
 * UG_VP_FMA | UG_VP_FINITE, and UG_VP_CPU_MODEL where the code may use approximate instructions
 * or is built with -march=native) and a folder of corpus files of your own. */
#ifndef UG_PLUGIN_PROPS
#define UG_PLUGIN_PROPS 0
#endif
#ifndef UG_PLUGIN_CORPUS
#define UG_PLUGIN_CORPUS 0
#endif

/* UG_PLUGIN(row, row, ...): the plugin's table and its exported entry point (once per plugin). */
#define UG_PLUGIN(...)                                                                         \
    static const ug_kernel ug_plugin_kernels_[] = {__VA_ARGS__};                               \
    UG_PLUGIN_LINKAGE __attribute__((visibility("default"))) const ug_plugin *                 \
    ulpgate_plugin_entry(void);                                                                \
    UG_PLUGIN_LINKAGE __attribute__((visibility("default"))) const ug_plugin *                 \
    ulpgate_plugin_entry(void)                                                                 \
    {                                                                                          \
        static const ug_plugin p = {ULPGATE_API_VERSION, sizeof(ug_kernel), ug_plugin_kernels_, \
                                    sizeof ug_plugin_kernels_ / sizeof ug_plugin_kernels_[0],  \
                                    (unsigned)(UG_PLUGIN_PROPS), UG_PLUGIN_CORPUS};            \
        return &p;                                                                             \
    }

#endif
