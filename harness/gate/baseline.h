/*
 * baseline.h - per-device baselines of the merge gate (harness/gate/baseline.c).
 *
 * A baseline, reports/baselines/<device key>/ (format 4, a folder: harness/gate/baseline_dir.c),
 * holds per row (by id) the gated figures (ulp_max, ulp_mean, rel_max, bound_ratio_max,
 * correctly_rounded, distinct_results), the row's status, what identifies its inputs (trials,
 * first trial, outputs, seed), the fingerprint it was measured with, for nondeterministic kernels
 * the slack the gate allows, and for every row that was ever loosened the reasons given.  No
 * timing: timing is reported, never gated.
 *
 *   <key>/index.json      {"baseline": {"format": 4, "device": ...}, "files": [...],
 *                          "fingerprints": {...}, "updates": [...]}
 *   <key>/<group>.json    the rows of the cases <group>/... in the grouped line form
 *                         (baseline_lines.c), one row a line; a group over UG_BL_FILE_MAX split
 *                         into <group>/<case>.json (and a case over it by kernel)
 *
 * A single-file baseline, <key>.json (format 1 and 2: one JSON object a row; 3: the grouped
 * lines with the fingerprints and updates in the same file), is still read, and rewritten as a
 * folder by `ulpgate baseline migrate`.
 *
 * A baseline is never regenerated mechanically: ug_baseline_update refuses an update that
 * loosens any row (a gated figure worse, a status that fails, a slack raised, a row dropped)
 * unless a reason is given, and stores that reason with every row it loosened.
 *
 * The same structure holds a results.json read for comparison (one fingerprint, from its meta;
 * nondeterministic rows get the default slack), so compare reads either kind of file.
 */
#ifndef UG_BASELINE_H
#define UG_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "harness/gate/fingerprint.h"
#include "harness/gate/history.h"
#include "base/sys.h"
#include "harness/results/results.h"

/* The slack of a nondeterministic row unless its baseline says otherwise: the worst over the
 * repeats may grow by this factor before it is a regression.  Measured, not chosen: two default
 * runs (H100, H200) of the 1344 nondeterministic rows, worst of 9 (at 2^26: 3) repeats, differ
 * by up to x3.45 in ulp_max (99.9th percentile x3.3; x2 was exceeded by 2.3% of the rows, which
 * made a rerun on the same device fail the gate); deterministic rows matched bit for bit. */
#define UG_DEFAULT_NONDET_SLACK 4.0

/* One entry of a history: a loosening of a row, or an update of the file. */
typedef struct ug_bl_event {
    char date[24], git[48];
    char reason[400];
    char changes[600]; /* "ulp_max 0.5 -> 0.75, status pass -> fail" / "3 tightened, ..." */
} ug_bl_event;

/* What a baseline keeps beside each row (parallel to ug_baseline.res.rows). */
typedef struct ug_bl_extra {
    double slack;         /* nondeterministic rows: allowed factor (>= 1); 1 for deterministic */
    size_t fp;            /* index into ug_baseline.fps */
    ug_bl_event *loosened;
    size_t n_loosened;
    double hist[UG_HIST_MAX]; /* nondeterministic rows: ulp_mean of the honest runs, oldest
                                 first (history.h); a baseline row from before has its one */
    size_t n_hist;
} ug_bl_extra;

typedef struct ug_baseline {
    bool is_baseline;     /* read from a baseline file (else from a results.json) */
    /* ug_baseline_load_groups: the case groups whose row files are read (NULL: every file);
     * some_groups: the folder had row files that were not read (never written back) */
    const char *const *groups;
    size_t n_groups;
    bool some_groups;
    int format;           /* of the file read (UG_RESULTS_FORMAT, or an older one it still reads) */
    char path[1024];
    char device[64];      /* the device key */
    char git[48], date[24]; /* of the run (a results.json's meta) */
    /* what says whether a results.json stands for its whole run (the gate refuses it when not):
     * meta.interrupted and its stop_reason, the test points its "summary" counts (-1: no
     * summary, a baseline) and the rows it holds, skipped ones too */
    bool interrupted;
    char stop_reason[160];
    char reduced[300];    /* a reduced run's caps (meta.limits, ug_meta_limits_text); "" */
    /* a results.json: which rows of BASE it should hold (compare.c, ug_expected_in): the units
     * it ran (ran.units) and its skipped rows (ran.rows; res leaves them out), and what of its
     * selection narrows the kernels or sizes of a unit (meta.selection) */
    ug_results ran;
    char sel_kernel[256];
    size_t sel_n;
    bool sel_kernels_narrowed; /* --format or --no-builtin: only kernels seen in its rows */
    long summary_points;
    size_t n_points;
    ug_results res;       /* the rows; skipped rows are left out */
    ug_bl_extra *x;       /* res.count entries */
    size_t x_cap;
    ug_fingerprint *fps;
    size_t n_fps;
    ug_bl_event *updates; /* the file's update log, oldest first */
    size_t n_updates;
} ug_baseline;

/* Read path: a baseline folder (or its index.json), a single-file baseline, or a results.json (then: device key and fingerprint from its
 * meta, nondet_slack on nondeterministic rows, skipped rows left out).  0, or -1 with
 * "PATH: what is wrong" in err (bl is left empty). */
int ug_baseline_load(const char *path, double nondet_slack, ug_baseline *bl, char *err,
                     size_t errlen);
void ug_baseline_free(ug_baseline *bl);
/* The same for a baseline folder, reading only the row files of the case groups of the cases
 * named (case_names[n], "reduce/normal": group "reduce"): the rows a run of those cases can be
 * compared with, where the whole folder is ~20 times more to parse (~0.5 s, at the end of every
 * `run --report`).  Rows of other groups are simply absent (not "only in base").  A file or a
 * results.json is read whole.  Such a baseline is for comparing; writing it aborts. */
int ug_baseline_load_groups(const char *path, double nondet_slack, const char *const *case_names,
                            size_t n, ug_baseline *bl, char *err, size_t errlen);
/* Room for rows rows in all (res and x), so that adding up to there copies none again. */
void ug_baseline_reserve(ug_baseline *bl, size_t rows);
/* Append a row with its extra (copied; the loosening events are copied too). */
void ug_baseline_add(ug_baseline *bl, const ug_row *row, const ug_bl_extra *x);
/* The index of fp in bl->fps, added if new. */
size_t ug_baseline_fp(ug_baseline *bl, const ug_fingerprint *fp);
/* The files of a baseline folder as ug_baseline_write writes them (deterministic: the same
 * baseline gives the same bytes): "index.json" first, then the row files in name order
 * (relative paths, '/' between folders).  Cost: O(rows log rows), each row written up to three
 * times when a group must be split. */
typedef struct ug_bl_file {
    char name[600];
    ug_buf text;
} ug_bl_file;
typedef struct ug_bl_files {
    ug_bl_file *f;
    size_t n;
} ug_bl_files;
void ug_baseline_files(const ug_baseline *bl, ug_bl_files *out);
void ug_bl_files_free(ug_bl_files *fs);
/* Whether the folder path holds exactly the files of fs (the same names, the same bytes, no
 * other row file). */
bool ug_baseline_same_on_disk(const ug_bl_files *fs, const char *path);
/* Write the folder path from fs, atomically as a whole: every file written into a fresh folder
 * beside it (<parent>/.<name>.tmp.PID), fsync'ed, then swapped in (ug_dir_replace), so a crash
 * leaves the old folder or the new one, never a mix of the two (and the leftovers of a crashed
 * writer, removed here: the caller holds the lock of the parent folder).  0, or -1 with
 * "PATH: why". */
int ug_baseline_write_files(const ug_bl_files *fs, const char *path, char *err, size_t errlen);
/* ug_baseline_files, then ug_baseline_write_files. */
int ug_baseline_write(const ug_baseline *bl, const char *path, char *err, size_t errlen);
/* The most bytes a file of a baseline folder holds: a case group whose file would be larger is
 * split by case, a case by kernel (each file <= ~1 MB). */
enum { UG_BL_FILE_MAX = 1048576 };

/* The baseline's own format: 4 is the folder (baseline_dir.c) of files in the grouped line form
 * (baseline_lines.c); 3 (that form in one file), 1 and 2 (one JSON object a row, the row schema
 * of results.json) are still read, and rewritten as a folder by `ulpgate baseline migrate`. */
enum { UG_BASELINE_FORMAT = 4, UG_BASELINE_FORMAT_LINES = 3 };
/* The rows of a file in the grouped line form (baseline_lines.c: "columns", "defaults",
 * "checks", "groups"; format 3, or a row file of a folder) appended to bl; n_points counts them
 * too. */
int ug_baseline_read_lines(const char *path, const struct ug_json *root, ug_baseline *bl,
                           char *err, size_t errlen);
/* Append an entry to bl's update log (dated now; git: of the tool or the run). */
void ug_baseline_log(ug_baseline *bl, const char *git, const char *reason, const char *changes);
/* The baseline of a device: the folder <dir>/<key>, or the single file <dir>/<key>.json of an
 * older format where only that exists. */
void ug_baseline_path(const char *dir, const char *key, char *path, size_t len);
/* The directory of the committed baselines: <source root>/reports/baselines. */
const char *ug_baseline_default_dir(void);

/* ---- updating -------------------------------------------------------------------------------- */

typedef struct ug_update_opts {
    const char *reason;   /* NULL: any loosening is refused */
    double slack;         /* > 0: the slack of every nondeterministic row of the run */
    bool prune;           /* drop the rows the run did not measure (a loosening) */
    const char *from;     /* what the run was (a path), for the update log */
} ug_update_opts;

typedef struct ug_update_summary {
    size_t added, tightened, loosened, unchanged, within_slack, inputs_changed, kept, pruned;
    size_t lucky;         /* nondeterministic rows better than their history: not taken */
    size_t checks_left;   /* check points of a run narrowed by --kernel, --n, --format or
                             --no-builtin: neither added nor changed (ug_expected_in) */
    size_t remeasured, other_cpu; /* machine-dependent rows: taken from a run on a CPU model
                                     where the stored one was unrecorded / kept (another's) */
    bool created;         /* the baseline was empty */
    bool refused;         /* loosened rows and no reason: nothing may be written */
} ug_update_summary;

/* Merge the run (a results.json read by ug_baseline_load) into bl, printing every change to
 * diff (one line a row: "tightened ID: ulp_max 2 -> 1.5 (x0.75)").  A row of the run not in bl
 * is added; a deterministic row takes the run's figures when they differ (tightened if none is
 * worse, else loosened); a nondeterministic row keeps its figures while the run is within its
 * history (history.h) or, where that is short, its slack, and the run joins its history; worse
 * beyond them is a loosening, better is not taken from one run (s->lucky) unless a reason is
 * given.  A
 * loosened row gets an entry with the reason in its history.  Without opts->reason a loosening
 * sets s->refused and leaves bl as it was (the diff still says what would have changed).
 * Cost: O(rows log rows). */
void ug_baseline_update(ug_baseline *bl, const ug_baseline *run, const ug_update_opts *opts,
                        ug_buf *diff, ug_update_summary *s);

#endif
