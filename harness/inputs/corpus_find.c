/*
 * corpus_find.c - discovery of the corpus files (corpus.h): the walk of the corpus directories
 * and the unit names.  Nothing here opens a file: what a file says is read when its unit runs
 * (corpus.c): a corpus of 200 files of 10^6 values must not be read to be discovered,
 * selected or not.
 */
#include "base/datadir.h"
#include "harness/inputs/corpus.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sys.h"

typedef struct {
    ug_corpus_entry *files;
    size_t count, cap;
    struct { dev_t dev; ino_t ino; } *seen; /* the directories of this root's walk so far */
    size_t n_seen, cap_seen;
} ug_corpus_list;

/* A problem of the file as a whole, found here: its failed point says it. */
static void ug_entry_fail(ug_corpus_entry *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void ug_entry_fail(ug_corpus_entry *e, const char *fmt, ...)
{
    char buf[UG_CORPUS_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(e->error);
    e->error = ug_xstrdup(buf);
}

/* Whether the directory st was walked before under this root (and remember it): a symlink to
 * '.' or to a parent would otherwise make the walk exponential (two links to '.' double it at
 * every level) and never end.  Linear in the directories walked: corpora are small. */
static bool ug_corpus_seen(ug_corpus_list *list, const struct stat *st)
{
    for (size_t i = 0; i < list->n_seen; i++)
        if (list->seen[i].dev == st->st_dev && list->seen[i].ino == st->st_ino) return true;
    if (list->n_seen == list->cap_seen) {
        list->cap_seen = list->cap_seen ? 2 * list->cap_seen : 16;
        list->seen = ug_xrealloc(list->seen, list->cap_seen * sizeof *list->seen);
    }
    list->seen[list->n_seen].dev = st->st_dev;
    list->seen[list->n_seen++].ino = st->st_ino;
    return false;
}

static bool ug_has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A unit name is an id part, a --filter glob and a TAP description: a file whose name holds
 * anything but letters, digits and _ - . + / @ = , ("a b" would be the id of "a_b", "x#TODO"
 * a TAP directive, "*" a glob) or does not fit is a failed unit saying so, not a silently
 * mangled or truncated name. */
static void ug_corpus_check_name(ug_corpus_entry *f, const char *sub)
{
    size_t len = strlen(sub) - 4; /* without ".txt" */
    if (len + 8 > sizeof f->name) {
        ug_entry_fail(f, "file name too long for a unit name (%zu characters below the corpus "
                         "directory, at most %zu): rename it", len, sizeof f->name - 8);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)sub[i];
        if (isalnum(c) || strchr("_-.+/@=,", c)) continue;
        char shown[16];
        snprintf(shown, sizeof shown, c < 0x20 || c >= 0x7f ? "\\x%02x" : "%c", c);
        ug_entry_fail(f, "file name holds '%s' (unit names are letters, digits and "
                         "_ - . + / @ = ,): rename it", shown);
        return;
    }
}

/* Every *.txt below dir (rel: the path below the corpus directory so far) into list, by name:
 * no file is opened.  Returns 0, or -1 when dir cannot be opened. */
static int ug_corpus_walk(const char *root, const char *rel, const char *dir_arg,
                          ug_corpus_list *list)
{
    char dir[1536];
    snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
    struct stat dst;
    if (stat(dir, &dst) == 0 && ug_corpus_seen(list, &dst)) return 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[2048], sub[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        bool is_dir = S_ISDIR(st.st_mode);
        if (is_dir && strlen(sub) + 9 <= sizeof list->files->name) {
            ug_corpus_walk(root, sub, dir_arg, list);
            continue;
        }
        if (!is_dir && (!S_ISREG(st.st_mode) || !ug_has_suffix(e->d_name, ".txt"))) continue;
        if (list->count == list->cap) {
            list->cap = list->cap ? 2 * list->cap : 32;
            list->files = ug_xrealloc(list->files, list->cap * sizeof *list->files);
        }
        ug_corpus_entry *f = &list->files[list->count++];
        memset(f, 0, sizeof *f);
        f->path = ug_xstrdup(path);
        f->dir_arg = dir_arg;
        if (is_dir) {
            /* a directory so deep that no file below it can be named: a failed unit saying
             * so, rather than a walk whose paths get cut and whose files are silently lost */
            snprintf(f->name, sizeof f->name, "corpus/%s", sub);
            ug_entry_fail(f, "directory too deep for unit names (%zu characters below the corpus "
                             "directory; a unit name has at most %zu): its files are not read: "
                             "move them up", strlen(sub), sizeof f->name - 8);
            continue;
        }
        snprintf(f->name, sizeof f->name, "corpus/%.*s", (int)(strlen(sub) - 4), sub);
        ug_corpus_check_name(f, sub);
    }
    closedir(d);
    return 0;
}

static int ug_corpus_cmp(const void *a, const void *b)
{
    const ug_corpus_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    /* the source tree's file first, then --corpus directories in command-line order */
    return (x->dir_arg != NULL) - (y->dir_arg != NULL);
}

static void ug_corpus_list_free(ug_corpus_list *list)
{
    for (size_t j = 0; j < list->count; j++) {
        free(list->files[j].path);
        free(list->files[j].error);
    }
    free(list->files);
    free(list->seen);
}

int ug_corpus_discover(const char *const *dirs, size_t ndirs, ug_corpus_entry **files,
                       size_t *count, char *err, size_t errlen)
{
    ug_corpus_list list = {0};
    char builtin[4096];
    /* The built-in corpus is part of every run: a data folder named by the user (--data-dir,
     * ULPGATE_DATA_DIR) or found beside the binary that does not hold it would drop its cases
     * from the run without a word, and the run would pass having measured less. */
    const char *named = getenv("ULPGATE_DATA_DIR");
    struct stat dst;
    if (named && *named && !ug_data_dir()) {
        snprintf(err, errlen, "--data-dir %s (ULPGATE_DATA_DIR): not a directory: the built-in "
                              "corpus (cases/corpus) would be left out", named);
        return -1;
    }
    if (ug_data_path("cases/corpus", builtin, sizeof builtin)) {
        if (stat(builtin, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
            snprintf(err, errlen, "%s %s%s: holds no cases/corpus, so the built-in corpus would "
                                  "be left out (the data folder: ulpgate's source tree or "
                                  "PREFIX/share/ulpgate)",
                     named && *named ? "--data-dir" : "the data folder", ug_data_dir(),
                     named && *named ? " (ULPGATE_DATA_DIR)" : "");
            return -1;
        }
        ug_corpus_walk(builtin, "", NULL, &list);
    } else {
        static int told;
        if (!told++)
            fprintf(stderr, "ulpgate: no data folder (ulpgate-data-dir beside the executable, "
                            "../share/ulpgate, or --data-dir): the built-in corpus is not run\n");
    }
    for (size_t i = 0; i < ndirs; i++) {
        struct stat st;
        list.n_seen = 0; /* each root walked whole: the same directory twice is named twice */
        errno = 0;
        if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode) ||
            ug_corpus_walk(dirs[i], "", dirs[i], &list) != 0) {
            snprintf(err, errlen, "--corpus %s: not a readable directory (%s)", dirs[i],
                     strerror(errno ? errno : ENOTDIR));
            ug_corpus_list_free(&list);
            return -1;
        }
    }
    /* a stable sort by hand: qsort is not stable, and the order of equal names matters */
    for (size_t i = 1; i < list.count; i++)
        for (size_t j = i; j > 0 && ug_corpus_cmp(&list.files[j - 1], &list.files[j]) > 0; j--) {
            ug_corpus_entry tmp = list.files[j];
            list.files[j] = list.files[j - 1];
            list.files[j - 1] = tmp;
        }
    for (size_t i = 1; i < list.count; i++)
        if (strcmp(list.files[i].name, list.files[i - 1].name) == 0)
            ug_entry_fail(&list.files[i], "unit %s is also %s: rename one", list.files[i].name,
                          list.files[i - 1].path);
    free(list.seen);
    *files = list.files;
    *count = list.count;
    return 0;
}
