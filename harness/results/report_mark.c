/* report_mark.c - see report_mark.h. */
#include "harness/results/report_mark.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/escape.h"
#include "base/sys.h"

/* Whether the file at path begins as a results.json that ulpgate wrote (its meta names the
 * tool within the first 64 KiB: "tool":"ulpgate"). */
static bool ug_is_ulpgate_results(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false;
    struct stat st;
    char head[65536 + 1];
    ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof head - 1) : -1;
    close(fd);
    if (got <= 0) return false;
    head[got] = 0;
    return head[0] == '{' && strstr(head, "\"tool\":\"ulpgate\"") != NULL;
}

int ug_report_dir_owned(const char *dir, char *err, size_t len)
{
    static const char *const replaced[] = {"results.json", "summary.md", "index.html", "junit.xml"};
    char path[4200], safe[600];
    DIR *d = opendir(dir);
    if (!d) return 0; /* nothing there yet (or unreadable: the write probe says so) */
    bool owned = false, ours = false;
    char found[4][64];
    int n_found = 0, n_more = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, UG_REPORT_OWNER_FILE) == 0) owned = true;
        for (size_t i = 0; i < sizeof replaced / sizeof replaced[0]; i++) {
            if (strcmp(e->d_name, replaced[i]) != 0) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (i == 0 && ug_is_ulpgate_results(path)) {
                ours = true;
                continue;
            }
            if (n_found < 4) snprintf(found[n_found++], sizeof found[0], "%.63s", e->d_name);
            else n_more++;
        }
    }
    closedir(d);
    /* a report older than the marker: its results.json is ulpgate's, its pages with it */
    if (owned || ours || n_found == 0) return 0;
    ug_buf names = {0};
    for (int i = 0; i < n_found; i++) ug_buf_printf(&names, "%s%s", i ? ", " : "", found[i]);
    if (n_more) ug_buf_printf(&names, " and %d more", n_more);
    const char *shown = ug_escape(dir, safe, sizeof safe);
    snprintf(err, len, "the folder holds %s, which ulpgate did not write (it has no %s/%s): a run "
             "writes results.json, summary.md and index.html there and removes the pages of an "
             "earlier run; give a new or empty folder, or one of ulpgate's own reports",
             ug_buf_str(&names), shown, UG_REPORT_OWNER_FILE);
    ug_buf_free(&names);
    return -1;
}

int ug_report_mark_begin(const char *dir, int argc, char **argv, char *err, size_t len)
{
    char path[4200], date[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    ug_buf b = {0};
    ug_buf_printf(&b, "ulpgate report folder: `ulpgate run --report` writes results.json, "
                      "summary.md and index.html here\n");
    snprintf(path, sizeof path, "%s/%s", dir, UG_REPORT_OWNER_FILE);
    struct stat st;
    int rc = 0;
    if (lstat(path, &st) != 0 && ug_write_atomic(path, b.s, b.len, err, len) != 0) rc = -1;
    ug_buf_clear(&b);
    ug_buf_printf(&b, "pid %ld\nstarted %s\ncommand", (long)getpid(), date);
    for (int i = 0; i < argc; i++) ug_buf_printf(&b, " %s", argv[i]);
    ug_buf_printf(&b, "\n");
    snprintf(path, sizeof path, "%s/%s", dir, UG_REPORT_PROGRESS_FILE);
    if (rc == 0 && ug_write_atomic(path, b.s, b.len, err, len) != 0) rc = -1;
    ug_buf_free(&b);
    return rc;
}

void ug_report_mark_end(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, UG_REPORT_PROGRESS_FILE);
    unlink(path);
}

int ug_report_in_progress(const char *path, char *err, size_t len)
{
    char dir[4200], marker[4300], safe[600];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(dir, sizeof dir, "%s", path);
    } else {
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        if (slash == path) snprintf(dir, sizeof dir, "/");
    }
    snprintf(marker, sizeof marker, "%s/%s", dir, UG_REPORT_PROGRESS_FILE);
    FILE *f = fopen(marker, "r");
    if (!f) return 0;
    char line[200] = "", started[200] = "";
    long pid = 0;
    if (fgets(line, sizeof line, f)) sscanf(line, "pid %ld", &pid);
    if (fgets(started, sizeof started, f)) started[strcspn(started, "\n")] = 0;
    fclose(f);
    bool alive = pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
    const char *shown = ug_escape(path, safe, sizeof safe);
    snprintf(err, len, "%s: a run into its folder is %s (%s: pid %ld, %s): its files are not one "
             "finished run's; %s", shown,
             alive ? "still in progress" : "marked in progress, and its process is gone (killed?)",
             UG_REPORT_PROGRESS_FILE, pid, started[0] ? started : "start unknown",
             alive ? "wait for it to end" : "run it again (or delete the marker if you know the files are whole)");
    return -1;
}
