/*
 * ug.h - what a test case sees: registration, inputs, measurements, assertions.
 *
 * A case is a function registered at load time (constructor attribute: no central table):
 *
 *   UG_CASE(reduce, normal) {                       // case "reduce/normal"
 *       static const size_t ns[] = {1, 1000, 10000};
 *       ug_dist d = ug_normal(0, 1);
 *       UG_FOR_N(t, n, ns) {
 *           ug_input *in = ug_input_make(t, UG_OP_SUM, &d, n, 100);   // trials x inputs + exact
 *           UG_FOR_KERNELS(t, k, UG_OP_SUM, UG_CPU, "*") {
 *               ug_result *r = ug_measure(t, k, in);                  // one TAP test point
 *               UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);   // a-priori bound: > 1 is a bug
 *           }
 *       }
 *   }
 *
 * One body over a table of distributions (as µnit's parameters): every row is a case of its own,
 * "<suite>/<row name>", and the body reads its row with ug_param_of(t):
 *
 *   static const ug_param dists[] = {{"normal", ug_normal(0, 1)}, {"uniform01", ug_uniform(0, 1)}};
 *   UG_CASE_OVER(reduce, dists, 0) { const ug_dist *d = &ug_param_of(t)->dist; ... }
 *
 * Each ug_measure() opens a TAP test point "case kernel@variant n=N"; the assertions that follow
 * attach to it until the next ug_measure() or the end of the case.  Assertions made before any
 * measurement attach to a test point named after the case itself.
 * UG_EXPECT_* records a failure and goes on; UG_ASSERT_* records it and ends the case.  Every
 * check has both forms (one template below).  The loops honour --kernel, --n and --trial, so a
 * failure's rerun line reproduces exactly it.
 */
#ifndef UG_H
#define UG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel.h"
#include "oracle/oracle.h"
#include "ops/op.h"
#include "harness/inputs/dist.h"
#include "harness/measure/measure.h"
#include "harness/results/results.h"


/* ---- registration ------------------------------------------------------------------------- */

enum {
    UG_CASE_GPU = 1 << 0,         /* needs a CUDA device: skipped cleanly without one */
    UG_CASE_SLOW = 1 << 1,        /* only with --slow (meson suite 'slow') */
    UG_CASE_SHOULD_FAIL = 1 << 2, /* a canary: left out of a plain run, runs when --filter names it */
};

/* One row of a case's parameter table: the case "<suite>/<name>" runs the body with it.  What
 * the body does with the row is in these fields, never in its name (renaming a row changes its
 * id, not what it tests); a body reads the ones its table fills:
 *   op     the operation, in a table of several (default UG_OP_SUM)
 *   shape  a shape the row gives (attention's L and S, batch and heads; its d the body's)
 *   opts   the call's options (UG_OPT_CAUSAL; its scale)
 *   tweak  a transform of the drawn inputs (outlier channels), NULL none
 *   flags  what else the body does for the row: the case's own bits, defined beside its table */
typedef struct ug_param {
    const char *name;
    ug_dist dist;
    const size_t *sizes;  /* NULL: the body's own sizes (UG_FOR_SIZES) */
    size_t n_sizes;
    int trials;           /* 0: the body's own count */
    ug_op op;
    ug_shape shape;
    ug_opts opts;
    const ug_input_tweak *tweak;
    unsigned flags;
} ug_param;
#define UG_SIZES(array) (array), sizeof(array) / sizeof((array)[0])

typedef struct ug_case {
    const char *name;     /* "suite/name", or "suite" for a parameter table */
    const char *file;
    int line;
    unsigned flags;
    void (*fn)(ug_t *t);
    const ug_param *params; /* NULL, or a table of n_params rows */
    size_t n_params;
    struct ug_case *next;
} ug_case;

void ug_case_register(ug_case *c);

#define UG_CASE_DEFINE_(suite, cname, fullname, cflags, ptable, pcount)                      \
    static void ug_case_fn_##suite##_##cname(ug_t *t);                                      \
    static ug_case ug_case_##suite##_##cname = {fullname, __FILE__, __LINE__, (cflags),      \
                                                ug_case_fn_##suite##_##cname, ptable, pcount, 0}; \
    __attribute__((constructor)) static void ug_case_reg_##suite##_##cname(void)            \
    {                                                                                        \
        ug_case_register(&ug_case_##suite##_##cname);                                       \
    }                                                                                        \
    static void ug_case_fn_##suite##_##cname(ug_t *t __attribute__((unused)))
#define UG_CASE_EX(suite, cname, cflags) UG_CASE_DEFINE_(suite, cname, #suite "/" #cname, cflags, 0, 0)
#define UG_CASE(suite, cname) UG_CASE_EX(suite, cname, 0)
/* One case per row of table (a static const ug_param array): "<suite>/<row name>". */
#define UG_CASE_OVER(suite, table, cflags)                                                     \
    UG_CASE_DEFINE_(suite, table, #suite, cflags, table, sizeof(table) / sizeof((table)[0]))

/* The running case's parameter row (NULL for a plain case). */
const ug_param *ug_param_of(const ug_t *t);

/* ---- loops that honour --kernel / --n / --trial -------------------------------------------- */

/* The next kernel of op, backend and glob after *it: ug_next_kernel the kernels of binary32
 * buffers (inputs and output; ug_kernel_is_f32), ug_next_kernel_fmt those whose input is stored
 * in in_fmt (UG_F32: the same as ug_next_kernel). */
const ug_kernel *ug_next_kernel(ug_t *t, size_t *it, ug_op op, int backend, const char *glob);
const ug_kernel *ug_next_kernel_fmt(ug_t *t, size_t *it, ug_op op, int backend, const char *glob,
                                    ug_fmt in_fmt);
/* The next kernel whose input 0 is stored in in_fmt, whatever its accumulator and output
 * formats: the row operations' walk, where a binary32-in, bfloat16-out layer kernel
 * belongs beside the binary32 ones (ug_next_kernel skips it: not ug_kernel_is_f32). */
const ug_kernel *ug_next_kernel_in(ug_t *t, size_t *it, ug_op op, int backend, const char *glob,
                                   ug_fmt in_fmt);
bool ug_n_selected(ug_t *t, size_t n);
/* Whether the walk UG_FOR_FMT_KERNELS(t, k, op, backend, glob, in_fmt) would select a kernel
 * (in_fmt UG_F32: UG_FOR_KERNELS's), honouring --kernel and --format: a case about to draw a
 * large input (and its exact results) for kernels that may all be left out -- --no-builtin with
 * a plugin of another operation, --kernel -- asks first and skips that input when none is. */
bool ug_any_kernel_fmt(ug_t *t, ug_op op, int backend, const char *glob, ug_fmt in_fmt);

#define UG_ANY_BACKEND (-1)
#define UG_FOR_KERNELS(t, k, op, backend, glob)                                               \
    for (size_t k##_it = 0; k##_it != (size_t)-1; k##_it = (size_t)-1)                        \
        for (const ug_kernel *k; (k = ug_next_kernel((t), &k##_it, (op), (backend), (glob)));)
/* The same over the kernels whose input is stored in format fmt (the format kernels:
 * binary64, binary16, bfloat16 data), for an input drawn in it (ug_in_format). */
#define UG_FOR_FMT_KERNELS(t, k, op, backend, glob, fmt)                                      \
    for (size_t k##_it = 0; k##_it != (size_t)-1; k##_it = (size_t)-1)                        \
        for (const ug_kernel *k;                                                               \
             (k = ug_next_kernel_fmt((t), &k##_it, (op), (backend), (glob), (fmt)));)
/* Every kernel of op whose input is stored in fmt, any output format (ug_next_kernel_in): the
 * walk of the row cases (cases/rows.c, cases/gpu/gpu_rows.c); sum, dot and gemm keep theirs. */
#define UG_FOR_IN_KERNELS(t, k, op, backend, glob, fmt)                                       \
    for (size_t k##_it = 0; k##_it != (size_t)-1; k##_it = (size_t)-1)                        \
        for (const ug_kernel *k;                                                               \
             (k = ug_next_kernel_in((t), &k##_it, (op), (backend), (glob), (fmt)));)
#define UG_FOR_N(t, n, array)                                                                 \
    for (size_t n##_i = 0, n = 0; n##_i < sizeof(array) / sizeof((array)[0]); n##_i++)        \
        if ((n = (array)[n##_i]), ug_n_selected((t), n))
/* The sizes of the running parameter row when it has its own, else array. */
#define UG_FOR_SIZES(t, n, array)                                                             \
    for (size_t n##_i = 0, n = 0, n##_c = ug_param_of(t) && ug_param_of(t)->sizes            \
                                              ? ug_param_of(t)->n_sizes                        \
                                              : sizeof(array) / sizeof((array)[0]);            \
         n##_i < n##_c; n##_i++)                                                               \
        if ((n = ug_param_of(t) && ug_param_of(t)->sizes ? ug_param_of(t)->sizes[n##_i]       \
                                                          : (array)[n##_i]),                   \
            ug_n_selected((t), n))

/* A case's per-kernel table: an array of structs whose first member is `const char *kernel`
 * (a kernel's name).  Returns the row for k, or NULL when the table has none.  Every name in
 * the table must be a registered kernel: an unknown one fails the test point, naming it (a
 * table cannot go silently stale when a kernel is renamed). */
const void *ug_kernel_row(ug_t *t, const void *table, size_t count, size_t size, const ug_kernel *k);
#define UG_KERNEL_ROW(t, table, k)                                                            \
    ((const __typeof__((table)[0]) *)ug_kernel_row((t), (table), sizeof(table) / sizeof((table)[0]), \
                                                   sizeof((table)[0]), (k)))

/* ---- expected failures and the probabilistic bound ------------------------------------------- */

/* Declare that the open test point (the last measurement) fails, with the reason: its failures
 * then report as TAP "not ok ... # TODO reason" (expected), and if every check holds the point
 * is an unexpected pass, which fails the run: the declaration cannot go stale unnoticed. */
void ug_xfail(ug_t *t, const char *reason);
/* What the open check point found, in one line (the batch-invariance cases: "equal at batches 1,
 * 3, 64, 1000", or the first differing row): results.json's note of a row that has no skip,
 * expected-failure or kernel-error note, and the report's invariance table. */
void ug_point_finding(ug_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* lambda of the probabilistic bound for the measurements that follow in this case (0, the
 * default: none, so a vacuous a-priori bound leaves an output unchecked).  A case that measures
 * where the worst case is vacuous states its lambda, with the failure probability it implies:
 * 2n exp(-lambda^2/2) per output of n terms (ug_prob_failure). */
void ug_prob_lambda(ug_t *t, double lambda);

/* ---- notes and context --------------------------------------------------------------------- */

/* A TAP diagnostic line ("# ...") under the current test point; for tables and explanations. */
void ug_note(ug_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t ug_seed(const ug_t *t);
const char *ug_case_name(const ug_t *t);
/* Default trial count, or --trials when given. */
int ug_trials(const ug_t *t, int dflt);
/* Close the open test point and open one named "case <name>" for the checks that follow
 * (comparisons across kernels, tables). */
void ug_point(ug_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The open test point's skip reason ("no CUDA device", "out of range: ..."), NULL when it is not
 * skipped (or none is open). */
const char *ug_point_skip_reason(const ug_t *t);
/* Skip the rest of the case with a reason (TAP "# SKIP reason"). */
void ug_skip(ug_t *t, const char *reason);
/* A built-in kernel a case is about, by name (ug_kernel_find): when the built-in kernels are not
 * loaded (--no-builtin: a plugin's kernels alone) the case is skipped, saying so; else the
 * kernel, or NULL when there is no such kernel (the caller asserts). */
const ug_kernel *ug_builtin_kernel(ug_t *t, const char *name);
/* Whether the run's selection takes a built-in kernel that is not in the kernel registry, by
 * its name (the quantizers of kernels/quantize.h): the built-in kernels are loaded (not
 * --no-builtin), no --format narrows the run, and --kernel, when given, matches the name
 * (name@default with an '@'). */
bool ug_builtin_selected(const ug_t *t, const char *name);
/* A kernel that a case ran through its own call and graded (not ug_run_kernel's: a quantizer),
 * counted as measured: a run narrowed to it (--kernel) is not "nothing was measured". */
void ug_case_ran_kernel(ug_t *t);

/* ---- assertions ----------------------------------------------------------------------------- */

/* ug_metric: harness/results/results.h */

/* Each returns true when the check holds; otherwise it records the failure (file:line, the
 * expression, the worst element, the rerun line) on the open test point and returns false. */
bool ug_check_metric(ug_t *t, const ug_result *r, ug_metric m, double limit, const char *expr,
                     const char *file, int line);
bool ug_check_bitwise(ug_t *t, const ug_result *a, const ug_result *b, const char *expr,
                      const char *file, int line);
bool ug_check_correctly_rounded(ug_t *t, const ug_result *r, const char *expr, const char *file,
                                int line);
bool ug_check_distinct_max(ug_t *t, const ug_result *r, int max, const char *expr,
                           const char *file, int line);
bool ug_check(ug_t *t, bool ok, const char *expr, const char *file, int line, const char *fmt,
              ...) __attribute__((format(printf, 6, 7)));
/* For UG_ASSERT_*: leaves the case (longjmp to its end). */
void ug_abort_case(ug_t *t) __attribute__((noreturn));

/* The one template every check goes through: EXPECT (fatal 0) records and goes on, ASSERT
 * (fatal 1) ends the case. */
#define UG__CHECK(fatal, call)                                                                 \
    do {                                                                                       \
        if (!(call) && (fatal)) ug_abort_case(t);                                              \
    } while (0)
#define UG__METRIC(fatal, form, m, r, lim)                                                     \
    UG__CHECK(fatal, ug_check_metric(t, (r), (m), (lim), form "(" #r ", " #lim ")", __FILE__, __LINE__))

#define UG_EXPECT_ULP_MAX(r, lim) UG__METRIC(0, "UG_EXPECT_ULP_MAX", UG_M_ULP_MAX, r, lim)
#define UG_ASSERT_ULP_MAX(r, lim) UG__METRIC(1, "UG_ASSERT_ULP_MAX", UG_M_ULP_MAX, r, lim)
#define UG_EXPECT_ULP_MEAN(r, lim) UG__METRIC(0, "UG_EXPECT_ULP_MEAN", UG_M_ULP_MEAN, r, lim)
#define UG_ASSERT_ULP_MEAN(r, lim) UG__METRIC(1, "UG_ASSERT_ULP_MEAN", UG_M_ULP_MEAN, r, lim)
#define UG_EXPECT_REL_MAX(r, lim) UG__METRIC(0, "UG_EXPECT_REL_MAX", UG_M_REL_MAX, r, lim)
#define UG_ASSERT_REL_MAX(r, lim) UG__METRIC(1, "UG_ASSERT_REL_MAX", UG_M_REL_MAX, r, lim)
#define UG_EXPECT_REL_MEAN(r, lim) UG__METRIC(0, "UG_EXPECT_REL_MEAN", UG_M_REL_MEAN, r, lim)
#define UG_ASSERT_REL_MEAN(r, lim) UG__METRIC(1, "UG_ASSERT_REL_MEAN", UG_M_REL_MEAN, r, lim)
#define UG_EXPECT_ABS_MAX(r, lim) UG__METRIC(0, "UG_EXPECT_ABS_MAX", UG_M_ABS_MAX, r, lim)
#define UG_ASSERT_ABS_MAX(r, lim) UG__METRIC(1, "UG_ASSERT_ABS_MAX", UG_M_ABS_MAX, r, lim)
#define UG_EXPECT_BOUND_RATIO_MAX(r, lim) UG__METRIC(0, "UG_EXPECT_BOUND_RATIO_MAX", UG_M_RATIO_MAX, r, lim)
#define UG_ASSERT_BOUND_RATIO_MAX(r, lim) UG__METRIC(1, "UG_ASSERT_BOUND_RATIO_MAX", UG_M_RATIO_MAX, r, lim)

#define UG_EXPECT_BITWISE_EQ(a, b)                                                             \
    UG__CHECK(0, ug_check_bitwise(t, (a), (b), "UG_EXPECT_BITWISE_EQ(" #a ", " #b ")", __FILE__, __LINE__))
#define UG_ASSERT_BITWISE_EQ(a, b)                                                             \
    UG__CHECK(1, ug_check_bitwise(t, (a), (b), "UG_ASSERT_BITWISE_EQ(" #a ", " #b ")", __FILE__, __LINE__))
#define UG_EXPECT_CORRECTLY_ROUNDED(r)                                                         \
    UG__CHECK(0, ug_check_correctly_rounded(t, (r), "UG_EXPECT_CORRECTLY_ROUNDED(" #r ")", __FILE__, __LINE__))
#define UG_ASSERT_CORRECTLY_ROUNDED(r)                                                         \
    UG__CHECK(1, ug_check_correctly_rounded(t, (r), "UG_ASSERT_CORRECTLY_ROUNDED(" #r ")", __FILE__, __LINE__))
#define UG_EXPECT_DISTINCT_MAX(r, m)                                                           \
    UG__CHECK(0, ug_check_distinct_max(t, (r), (m), "UG_EXPECT_DISTINCT_MAX(" #r ", " #m ")", __FILE__, __LINE__))
#define UG_ASSERT_DISTINCT_MAX(r, m)                                                           \
    UG__CHECK(1, ug_check_distinct_max(t, (r), (m), "UG_ASSERT_DISTINCT_MAX(" #r ", " #m ")", __FILE__, __LINE__))

/* Plain unit-test checks (oracle and distribution tests).  fmt/...: what the values were. */
#define UG_EXPECT(cond) UG__CHECK(0, ug_check(t, !!(cond), "UG_EXPECT(" #cond ")", __FILE__, __LINE__, "%s", ""))
#define UG_ASSERT(cond) UG__CHECK(1, ug_check(t, !!(cond), "UG_ASSERT(" #cond ")", __FILE__, __LINE__, "%s", ""))
#define UG_EXPECT_MSG(cond, ...) UG__CHECK(0, ug_check(t, !!(cond), "UG_EXPECT(" #cond ")", __FILE__, __LINE__, __VA_ARGS__))
#define UG_ASSERT_MSG(cond, ...) UG__CHECK(1, ug_check(t, !!(cond), "UG_ASSERT(" #cond ")", __FILE__, __LINE__, __VA_ARGS__))

#endif
