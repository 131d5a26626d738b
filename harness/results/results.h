/*
 * results.h - what a run produced: one row per test point, gathered by the run loop into a
 * ug_results list that the report writer, compare, the gate and merge read (the same structure
 * whether it was just measured or read back from a results.json).
 *
 * A row's identity: id = "<case> <kernel>@<variant> <dist> <n>" for a measurement (n as MxNxK
 * for a rectangular GEMM) and "<case> <point>" for a check that measured nothing; each part has
 * no space (spaces in a point name become '_'), so the id splits back into its parts, which are
 * also given as separate fields.
 *
 * The row's fields are declared once, in row_fields.h (the schema): the struct below, the JSON
 * writer and reader (results_write.c, results_json.c), the baseline's fields and the Markdown
 * figure columns all come from that table.
 */
#ifndef UG_RESULTS_H
#define UG_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opshape.h"

typedef struct ug_result ug_result;

typedef enum {
    UG_ST_PASS,   /* every check held */
    UG_ST_FAIL,   /* a check failed */
    UG_ST_SKIP,   /* not run (no device, --n...) */
    UG_ST_XFAIL,  /* failed as declared (per-kernel expected failure, with its reason) */
    UG_ST_XPASS,  /* declared to fail but passed: a failure (the declaration went stale) */
} ug_status;

const char *ug_status_name(ug_status s); /* "pass", "fail", "skip", "xfail", "xpass" */

/* The figures a case or a corpus check can put a limit on (ug.h's UG_EXPECT_*). */
typedef enum {
    UG_M_ULP_MAX, UG_M_ULP_MEAN, UG_M_REL_MAX, UG_M_REL_MEAN, UG_M_ABS_MAX, UG_M_RATIO_MAX,
} ug_metric;


/* A closed test point as the run loop receives it. */
typedef struct ug_point_record {
    const char *name;        /* TAP name: "reduce/normal serial_f32@default n=1000" */
    ug_status status;
    int failures;
    const char *skip_reason; /* for UG_ST_SKIP */
    const char *xfail;       /* the declared reason for UG_ST_XFAIL / UG_ST_XPASS */
    const char *finding;     /* what a check point found (the batch-invariance cases), or NULL:
                                the row's note when no skip, xfail or kernel error says more */
    const char *diag;        /* "# ..." lines */
    const ug_result *result; /* the measurement, or NULL for a check point */
} ug_point_record;

/* The worst element of a measurement, as a report keeps it. */
typedef struct ug_row_worst {
    bool set;
    int trial;
    size_t element;
    double got, exact, exact_lo, ulp, rel, abs, bound_ratio;
} ug_row_worst;

/* When a field of the schema is in a row (row_fields.h). */
typedef enum {
    UG_W_NEVER, UG_W_ALL, UG_W_MEAS, UG_W_CHECK, UG_W_GEMM, UG_W_NOGEMM, UG_W_NONZERO, UG_W_REP,
} ug_when;

/* The types of the schema's fields. */
typedef enum {
    UG_FT_STR, UG_FT_BOOL, UG_FT_INT, UG_FT_COUNT, UG_FT_SEED, UG_FT_NUM, UG_FT_STATUS,
    UG_FT_PASSED,
    UG_FT_DIM = UG_FT_COUNT, /* a size_t of the row's shape: a COUNT to every reader */
} ug_field_type;

enum { UG_FF_EXTRA = 1, /* 2, 4: unused (were Markdown column flags no one read) */ UG_FF_DETAIL = 8, UG_FF_DFLT = 16, UG_FF_DERIV = 32, UG_FF_PREV = 64, UG_FF_RUN = 128 };

/* Whether results.json rows are written in full (`run --detail`): every field and the worst
 * elements.  Off (the default), a passing row leaves out the UG_FF_DETAIL fields and its worst
 * elements: a default run's file is a quarter of the size, and the gate and `report` read every
 * figure they use.  A failing row is always written in full. */
extern bool ug_results_detail;

/* The version of the results.json and baseline formats this ulpgate writes; it reads this one
 * and every older one (1: the files with no "format" key, and baselines of format 1; 3: a
 * compact file's "defaults" and the measured rows' "point" left out where derivable; 4: the
 * rows as arrays under the file's "columns", an id that ug_row_make_id makes left out; 5: each
 * row an array of its shape's columns, no nulls).  Baselines have a format of their own
 * (UG_BASELINE_FORMAT). */
enum { UG_RESULTS_FORMAT = 5 };

#include "harness/results/row_fields.h"

#define UG_DECL_STR(m, len) char m[len];
#define UG_DECL_BOOL(m, len) bool m;
#define UG_DECL_INT(m, len) int m;
#define UG_DECL_COUNT(m, len) size_t m;
#define UG_DECL_DIM(m, len) /* the row's shape, declared once below */
#define UG_DECL_SEED(m, len) uint64_t m;
#define UG_DECL_NUM(m, len) double m;
#define UG_DECL_STATUS(m, len) ug_status m;
#define UG_DECL_PASSED(m, len)
#define UG_DECL(type, member, len, key, unit, res, bl, flags, doc) UG_DECL_##type(member, len)

/* A row: the schema's fields (row_fields.h, in its order), then the nested values. */
typedef struct ug_row {
    ug_shape shape; /* the sizes (DIM fields): base/opshape.h's one shape type */
    UG_ROW_FIELDS(UG_DECL)
    uint64_t ulp_hist[16];   /* errors per bucket: 0, (0, 1/4], (1/4, 1/2], ... (ug.h) */
    ug_row_worst worst_ulp, worst_bound_ratio;
    /* a case's own named figures (ug_result_extra); in the JSON's "extra" object with the
     * schema's UG_FF_EXTRA fields */
    int n_extra;
    struct { char name[40]; double value; } extra[16];
} ug_row;

/* Whether a row read may name an operation cut to 7 bytes by an older ulpgate (its
 * row held the name in char[8]: "layerno", "logsume"): set by `baseline migrate` alone, which
 * writes the names whole; elsewhere such a name is an error saying so.  The count is of the
 * rows made whole since the start. */
void ug_row_read_cut_names(bool allow);
size_t ug_row_cut_names_made_whole(void);

/* Whether row r is written in full (ug_results_detail, or r failed). */
bool ug_row_in_full(const ug_row *r);

/* One field of the schema, for the code that walks it (offset: of its member in ug_row). */
typedef struct ug_field {
    ug_field_type type;
    const char *member, *key, *unit, *doc;
    size_t offset, len;      /* len: a STR member's size */
    ug_when res, bl;
    int flags;
} ug_field;

extern const ug_field ug_row_fields[];
extern const size_t ug_n_row_fields;

/* Whether field f is in row r: in a results.json (baseline false) or a baseline. */
bool ug_field_in(const ug_field *f, const ug_row *r, bool baseline);
/* A numeric field's value as a double (NUM, COUNT, INT; 0 for others). */
double ug_row_num(const ug_row *r, const ug_field *f);
bool ug_row_rate_derived(const ug_row *r, const ug_field *f, double *v);
/* Whether a and b are measured rows of the same inputs: case, dist and size (UG_FF_PREV). */
bool ug_row_same_inputs(const ug_row *a, const ug_row *b);

/* A unit the run visited (a case, or a row of a case's table) and its wall time. */
typedef struct ug_unit_time {
    char name[128];
    double seconds;
} ug_unit_time;

typedef struct ug_results {
    ug_row *rows;
    size_t count, cap;
    int passed, failed, skipped, xfailed, xpassed;
    ug_unit_time *units;     /* every unit visited, in order */
    size_t n_units, cap_units;
} ug_results;

/* Append a copy of row (counts updated from its status). */
void ug_results_add(ug_results *res, const ug_row *row);
void ug_results_free(ug_results *res);
/* The row with this id, or NULL (linear: callers that look up many build their own index). */
const ug_row *ug_results_find(const ug_results *res, const char *id);
/* Record a visited unit and its wall time. */
void ug_results_add_unit(ug_results *res, const char *name, double seconds);
/* Append every row and unit of src to dst (counts added). */
void ug_results_append(ug_results *dst, const ug_results *src);
/* "N passed, N failed, N skipped[, N failed as expected][, N passed unexpectedly]" */
void ug_results_summary(const ug_results *res, char *buf, size_t len);
/* The run's verdict: 1 if any row failed or passed unexpectedly, else 0. */
int ug_results_status(const ug_results *res);

/* The id of a measurement row from its parts (see above). */
void ug_row_make_id(ug_row *row);
void ug_row_point_derived(const ug_row *r, char *buf, size_t len);

/* Whether the row's operation has more than one size parameter (M x N x K: a GEMM), so that
 * its id and its m, gemm_n, k fields name them; false for an operation this binary does not
 * know (ops/). */
bool ug_row_shaped(const ug_row *r);
/* The terms behind each output of the row (the bound's n: n, or K of a GEMM). */
size_t ug_row_terms(const ug_row *r);

/* Whether a distribution has a condition number worth a column and a plot (GenSum, GenDot). */
bool ug_dist_has_kappa(const char *dist);
/* The suite of a case: "reduce" of "reduce/normal". */
void ug_case_suite(const char *case_name, char *suite, size_t len);

#endif
