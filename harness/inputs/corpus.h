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
 *   # check: ulp_max 1 REASON       a check (repeatable): ulp_max, ulp_mean, rel_max, rel_mean,
 *                                   abs_max, bound_ratio_max with a limit, or correctly_rounded;
 *                                   then optionally for=GLOB,class:NAME,... (the kernels it is
 *                                   for); free text after it is its reason.  A check stronger
 *                                   than a kernel's bound class on the file's input is asserted
 *                                   only on the kernels it names (for=, or an xfail line), else
 *                                   reported as information (harness/run/corpus_run.c)
 *   # xfail: serial_f32 REASON      a strict expected failure of the kernels the glob matches,
 *                                   with its reason (required); a pass is reported (XPASS)
 *   # format: bf16                  the format of the values (f32 default, f16, bf16, e4m3,
 *                                   e5m2): each value must be one of that format (else an error
 *                                   at its line), and the file runs on the kernels whose input
 *                                   is stored in it
 *
 * Every point also checks bound_ratio_max 1 (the kernel's a-priori bound: above 1 is a bug),
 * unless a check line states another bound_ratio_max.  Unknown keys are errors (a typo must not
 * silently drop a check), and so is any '#' text shaped like a directive that would not be read:
 * its first word followed by ':' or a key in any case ("# Check:", "# check :", "# check x", a
 * header after the first value or after a value on its line); "##" is always a comment.  Discovery: every *.txt file under the source tree's cases/corpus/
 * (the data folder, base/datadir.h) and under each `--corpus DIR`, recursively, in name order; each file is a
 * unit "corpus/<path below its directory, without .txt>" and each matching kernel a test point.
 *
 * Lazy: discovery opens no file, it only names them (corpus_find.c); a file is read
 * when its unit runs, in three steps of bounded memory: its head (ug_corpus_parse_head: the
 * lines before the first value, one at a time, whatever follows), then, only when a selected
 * kernel runs it, one pass that lints every line and counts the records
 * (ug_corpus_scan: no allocation), then its values (ug_corpus_read_values), sized from that
 * count after the caller checked the input's memory against the limits
 * (harness/measure/run_limits.h: ULPGATE_MEM_LIMIT).  An unselected file is never opened; a
 * selected one is held only while its unit runs.
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
    char for_globs[256]; /* "for=GLOB,...": the kernels (globs) or bound classes ("class:tree")
                            it is for beyond those its class implies it of (corpus_run.c);
                            "" when it names none */
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
    size_t first_record_line; /* the line of the first value (0: none; after the head) */
    size_t records;           /* value lines (after ug_corpus_scan) */
    float *x, *y;             /* sum: x[n]; dot: x[n], y[n]; gemm: A = x[m*k], B = y[k*n] */
    double *x64, *y64;        /* "# format: f64" (sum, dot): the values in binary64 (x, y: them
                                 rounded to binary32); else NULL */
} ug_corpus_file;

/* A discovered file (corpus_find.c): its path and unit name, nothing read from it. */
typedef struct ug_corpus_entry {
    char *path;               /* malloc'ed, lives for the process */
    char name[128];           /* the unit: "corpus/<stem>" */
    const char *dir_arg;      /* the --corpus DIR it came from; NULL: the source tree's */
    char *error;              /* what is wrong with the file as a whole (its name, a unit name
                                 taken twice), malloc'ed; NULL when nothing */
} ug_corpus_entry;

/* The steps of reading path into *f (zeroed, or a file read before: name and dir_arg are the
 * caller's and kept, anything else it held is freed and cleared by the head).  Each returns
 * 0, or -1 with f->bad set and f->error / f->error_line saying what is wrong.
 * Head: the header keys (an unknown or repeated key, a bad op, check, format or glob), the
 * directives misplaced among them, a missing why, a format the op has no oracle for.  Reads
 * the lines before the first value only, one at a time: O(head) time, no memory held (a file
 * of a million "#a:" lines stops at its first).  Frees what f held before. */
int ug_corpus_parse_head(const char *path, ug_corpus_file *f);
/* Scan (after the head): every line linted (a directive after the values, a misspelled or
 * colon-less one), the records counted into f->records (a vector op's n), a matrix op's value
 * count checked against its shape, an empty vector file refused.  One pass, no allocation. */
int ug_corpus_scan(ug_corpus_file *f);
/* Values (after the scan): read into f->x, f->y (and x64, y64 for "# format: f64") in one
 * allocation each, sized from the count: a malformed value, a wrong number of values a line,
 * a value not of the file's format are errors at their line.  ug_corpus_file_free releases. */
int ug_corpus_read_values(ug_corpus_file *f);
/* All three (`ulpgate hunt` reading back what it wrote). */
int ug_corpus_parse(const char *path, ug_corpus_file *f);
/* The file's shape: {m, n, k} for a three-size operation, n (the records) for a vector one. */
ug_shape ug_corpus_shape(const ug_corpus_file *f);
void ug_corpus_file_free(ug_corpus_file *f);

/* Whether the file's kernel globs select k (its op is the caller's to compare). */
bool ug_corpus_selects(const ug_corpus_file *f, const ug_kernel *k);

/* Every corpus file of the source tree's cases/corpus (when it exists) and of dirs[0..ndirs),
 * in unit-name order, into *files (malloc'ed; *count of them), none of them opened.  A
 * directory of dirs that cannot be read is an error: returns -1 with the message in err.  Two
 * files with the same unit name: the second gets an error naming the first; so does a file
 * whose name cannot be a unit name.  Cost: a stat per directory entry. */
int ug_corpus_discover(const char *const *dirs, size_t ndirs, ug_corpus_entry **files,
                       size_t *count, char *err, size_t errlen);


#endif
