/*
 * report_mark.h - how a report folder says whose it is and whether its run finished.
 *
 *   DIR/.ulpgate-report       written by the first `run --report DIR` into a folder: the folder
 *                             is ulpgate's, and its results.json, summary.md and index.html may
 *                             be replaced by a later run.  A folder without it that holds one of
 *                             those names (or junit.xml) not written by ulpgate is refused.
 *   DIR/.ulpgate-in-progress  written when a run into DIR starts (its pid, start time and
 *                             command line), removed once its results.json is written (a run
 *                             stopped by a signal, the time limit or a crash writes its report
 *                             marked "interrupted" and removes it too).  Still there: the run is
 *                             going on, or was killed (kill -9, a power cut) and DIR's files are
 *                             not one finished run's; every reader of DIR/results.json refuses it.
 */
#ifndef UG_REPORT_MARK_H
#define UG_REPORT_MARK_H

#include <stdbool.h>
#include <stddef.h>

#define UG_REPORT_OWNER_FILE ".ulpgate-report"
#define UG_REPORT_PROGRESS_FILE ".ulpgate-in-progress"

/* Whether `run --report dir` may write into dir: 0 when dir is empty, marked as ulpgate's, or
 * holds a results.json ulpgate wrote (a report from before the marker) and nothing that ulpgate
 * would replace otherwise; -1 with the reason in err (naming up to 4 of the files) when it holds
 * results.json, summary.md, index.html or junit.xml that are not ulpgate's.  Files of other
 * names are never touched by a run, and are allowed (a TAP stream redirected into DIR). */
int ug_report_dir_owned(const char *dir, char *err, size_t len);
/* A run into dir starts: write both markers (.ulpgate-report, .ulpgate-in-progress with this
 * process's pid, the time and the command line).  0, or -1 with the reason in err. */
int ug_report_mark_begin(const char *dir, int argc, char **argv, char *err, size_t len);
/* The run's results.json is written: remove dir's in-progress marker (none: nothing to do). */
void ug_report_mark_end(const char *dir);
/* Before reading path (a results.json, or a folder): -1 with the reason in err when its folder
 * holds the in-progress marker (saying whether that process still runs), else 0. */
int ug_report_in_progress(const char *path, char *err, size_t len);

#endif
