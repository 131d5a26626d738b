/*
 * corpus.h - corpus files: adversarial inputs anyone can add without writing C.  A corpus file
 * is a value file (values.h) whose header lines say what to run it against and what to check:
 *
 *   # op: sum                       sum (1 value a line), dot (2: x y), or gemm MxNxK (1 value a
 *                                   line: A's M*K values row-major, then B's K*N); default sum
 *   # why: 1e8 absorbs the ones     required: one line, what makes the input adversarial
 *   # source: hand-made             where it came from (default hand-made; hunt writes its
 *                                   command line and seed)
 *   # kernels: * !reduce_atomic*    globs of the kernels to run (name or name@variant; '!'
 *                                   excludes); default every kernel of the op
 *   # check: ulp_max 1 REASON       a check on every kernel's point (repeatable): ulp_max,
 *                                   ulp_mean, rel_max, rel_mean, abs_max, bound_ratio_max with a
 *                                   limit, or correctly_rounded; free text after it is its reason
 *   # xfail: serial_f32 REASON      a strict expected failure of the kernels the glob matches,
 *                                   with its reason (required); a pass is reported (XPASS)
 *   # format: bf16                  the format of the values (f32 default, f16, bf16, e4m3,
 *                                   e5m2): each value must be one of that format (else an error
 *                                   at its line), and the file runs on the kernels whose input
 *                                   is stored in it (issue 23)
 *
 * Every point also checks bound_ratio_max 1 (the kernel's a-priori bound: above 1 is a bug),
 * unless a check line states another bound_ratio_max.  Unknown keys are errors (a typo must not
 * silently drop a check), and so is any '#' text shaped like a directive that would not be read:
 * its first word followed by ':' or a key in any case ("# Check:", "# check :", "# check x", a
 * header after the first value or after a value on its line); "##" is always a comment.  Discovery: every *.txt file under the source tree's cases/corpus/
 * (the data folder, base/datadir.h) and under each `--corpus DIR`, recursively, in name order; each file is a
 * unit "corpus/<path below its directory, without .txt>" and each matching kernel a test point.
 */
#ifndef UG_CORPUS_H
#define UG_CORPUS_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/results/results.h"
#include "kernels/kernel.h"
#include "ops/op.h"

enum { UG_CORPUS_MAX_CHECKS = 16, UG_CORPUS_MAX_XFAILS = 32, UG_CORPUS_TEXT = 1024 };

/* A check line: a metric with its limit, or correctly_rounded (is_cr). */
typedef struct ug_corpus_check {
    ug_metric metric;
    bool is_cr;
    double limit;
    char text[128];    /* as written: "ulp_max 1" */
    char reason[256];
    size_t line;
} ug_corpus_check;

typedef struct ug_corpus_xfail {
    char glob[64];
    char reason[256];
    size_t line;
} ug_corpus_xfail;

typedef struct ug_corpus_file {
    char path[1024];
    char name[128];           /* the unit: "corpus/<stem>" */
    const char *dir_arg;      /* the --corpus DIR it came from; NULL: the source tree's */
    /* a malformed file: error set, error_line its line (0: the file as a whole) */
    bool bad;
    size_t error_line;
    char error[UG_CORPUS_TEXT];
    ug_op op;
    size_t m, n, k;           /* gemm shape; sum/dot: n = records */
    char kernels[256];        /* glob list (spaces), "*" by default */
    size_t kernels_line;
    ug_fmt fmt;               /* "# format:" (UG_F32 when absent) */
    size_t fmt_line;
    ug_corpus_check checks[UG_CORPUS_MAX_CHECKS];
    int n_checks;
    ug_corpus_xfail xfails[UG_CORPUS_MAX_XFAILS];
    int n_xfails;
    char why[UG_CORPUS_TEXT], source[UG_CORPUS_TEXT];
    float *x, *y;             /* sum: x[n]; dot: x[n], y[n]; gemm: A = x[m*k], B = y[k*n] */
    double *x64, *y64;        /* "# format: f64" (sum, dot): the values in binary64 (x, y: them
                                 rounded to binary32); else NULL */
} ug_corpus_file;

/* Parse path into *f (name and dir_arg are the caller's).  Returns 0, or -1 with f->bad set and
 * f->error / f->error_line saying what is wrong (a malformed value line, an unknown or repeated
 * key, a bad op, check or glob, a missing why, a gemm whose value count is not M*K + K*N).
 * Cost: one pass over the file. */
int ug_corpus_parse(const char *path, ug_corpus_file *f);
/* The file's shape: {m, n, k} for a three-size operation, n (the records) for a vector one. */
ug_shape ug_corpus_shape(const ug_corpus_file *f);
void ug_corpus_file_free(ug_corpus_file *f);

/* Whether the file's kernel globs select k (its op is the caller's to compare). */
bool ug_corpus_selects(const ug_corpus_file *f, const ug_kernel *k);

/* Every corpus file of the source tree's cases/corpus (when it exists) and of dirs[0..ndirs),
 * parsed, in unit-name order, into *files (malloc'ed; *count of them).  A directory of dirs that
 * cannot be read is an error: returns -1 with the message in err.  Two files with the same unit
 * name: the second is marked bad, naming the first.  Cost: one parse per file. */
int ug_corpus_discover(const char *const *dirs, size_t ndirs, ug_corpus_file **files,
                       size_t *count, char *err, size_t errlen);


#endif
