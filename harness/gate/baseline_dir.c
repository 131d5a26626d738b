/*
 * baseline_dir.c - a baseline as a folder of files (format 4): compact, diff-local, each file
 * at most UG_BL_FILE_MAX bytes, written as a whole or not at all.
 *
 *   reports/baselines/h100-sm90/index.json
 *     {"baseline":{"format":4,"tool":"ulpgate","device":"h100-sm90"},
 *     "files":[
 *     "adversarial.json",
 *     "gpu_adversarial/gemm_normal.json",
 *     ...],
 *     "fingerprints":{...},
 *     "updates":[...]}
 *   reports/baselines/h100-sm90/gpu_reduce.json
 *     {"part":{"format":4,"device":"h100-sm90"},
 *     "columns":[...],
 *     "defaults":{...},
 *     "checks":[...],
 *     "groups":[
 *     {"kernel":...,"case":"gpu_reduce/normal","dist":...,"rows":[
 *     [1000,"pass",10,0.5,...],
 *     ...]}
 *
 * The rows go by case group, the case name up to its first '/' (gpu_reduce/normal: gpu_reduce),
 * one file a group in the grouped line form of baseline_lines.c (one row a line, kernel first,
 * "defaults" of the file's own).  A group whose file would be over UG_BL_FILE_MAX is split by
 * case, <group>/<case>.json, and a case over it by kernel, <group>/<case>/<kernel>.json (its
 * check points in =checks.json); only a kernel's rows of one case over 1 MiB (~7,000 rows) would
 * make a larger file.  A name is the case (kernel) name with every byte but [A-Za-z0-9_@-]
 * written %XX ("=" for an empty one), so two names never share a file.  A change to one
 * kernel's rows changes only the lines of that kernel in the files of the groups it runs on;
 * the index changes only when a file, a fingerprint or the update log does.
 *
 * Writing: every file into a fresh folder beside the old one, then the two swapped in one step
 * (ug_dir_replace): a crash leaves the old folder or the new one, never a mix, and unchanged
 * files come out byte for byte the same (git sees only what changed).  Reading: the files the
 * index lists, each checked to be a row file of this device; a .json file in the folder that the
 * index does not list, or a row in two files, is an error, never silently dropped or doubled.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/sys.h"
#include "harness/gate/baseline_rows.h"

/* ---- the files of a baseline ------------------------------------------------------------------ */

/* name as a file name component: [A-Za-z0-9_@-] kept, any other byte %XX, "" as "=", "index"
 * as "%69ndex" (a group named index would write index.json over the folder's index), and a
 * long one cut to 160 bytes + "=" + its FNV-1a hash (file systems take 255 bytes). */
static void ug_enc(const char *name, size_t len, ug_buf *out)
{
    size_t at = out->len;
    if (len == 5 && memcmp(name, "index", 5) == 0) {
        ug_buf_printf(out, "%%69ndex");
        return;
    }
    if (len == 0) ug_buf_printf(out, "=");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_' || c == '@' || c == '-')
            ug_buf_printf(out, "%c", c);
        else
            ug_buf_printf(out, "%%%02X", c);
    }
    if (out->len - at > 200) {
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
        out->len = at + 160;
        ug_buf_printf(out, "=%016llx", (unsigned long long)h);
    }
}

static size_t ug_group_len(const char *case_name)
{
    const char *s = strchr(case_name, '/');
    return s ? (size_t)(s - case_name) : strlen(case_name);
}

char *ug_bl_group_name(const char *case_name)
{
    ug_buf b = {0};
    ug_enc(case_name, ug_group_len(case_name), &b);
    char *s = ug_xmalloc(b.len + 1);
    memcpy(s, ug_buf_str(&b), b.len + 1);
    ug_buf_free(&b);
    return s;
}

/* Whether bl reads the row file `name` ("reduce.json", "gpu_adversarial/gemm_normal.json",
 * ".../<case>/<kernel>.json"): every file, or one of its groups' (ug_baseline_load_groups). */
static bool ug_group_wanted(const ug_baseline *bl, const char *name)
{
    if (!bl->groups) return true;
    size_t len = strcspn(name, "/");
    if (!name[len] && len > 5 && strcmp(name + len - 5, ".json") == 0) len -= 5;
    for (size_t k = 0; k < bl->n_groups; k++)
        if (strlen(bl->groups[k]) == len && strncmp(bl->groups[k], name, len) == 0) return true;
    return false;
}

static const char *ug_file_kernel(const ug_row *r)
{
    return r->measured ? r->kernel : "";
}

/* The key of row r at a level: 0 its case group, 1 its case (after the group's '/'), 2 its
 * kernel ("" for a check point). */
static const char *ug_level_key(const ug_row *r, int level, size_t *len)
{
    size_t g = ug_group_len(r->case_name);
    if (level == 0) {
        *len = g;
        return r->case_name;
    }
    if (level == 1) {
        const char *rest = r->case_name[g] ? r->case_name + g + 1 : "";
        *len = strlen(rest);
        return rest;
    }
    *len = strlen(ug_file_kernel(r));
    return ug_file_kernel(r);
}

static const ug_baseline *ug_file_bl;
/* Rows by case group, case, kernel (then as they are: the body sorts them again). */
static int ug_cmp_file(const void *pa, const void *pb)
{
    const ug_row *a = &ug_file_bl->res.rows[*(const size_t *)pa];
    const ug_row *b = &ug_file_bl->res.rows[*(const size_t *)pb];
    for (int level = 0; level < 3; level++) {
        size_t la, lb;
        const char *ka = ug_level_key(a, level, &la), *kb = ug_level_key(b, level, &lb);
        int c = memcmp(ka, kb, la < lb ? la : lb);
        if (c) return c;
        if (la != lb) return la < lb ? -1 : 1;
    }
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static bool ug_same_key(const ug_row *a, const ug_row *b, int level)
{
    size_t la, lb;
    const char *ka = ug_level_key(a, level, &la), *kb = ug_level_key(b, level, &lb);
    return la == lb && memcmp(ka, kb, la) == 0;
}

static void ug_files_add(ug_bl_files *fs, const char *name, ug_buf *text)
{
    fs->f = ug_xrealloc(fs->f, (fs->n + 1) * sizeof *fs->f);
    snprintf(fs->f[fs->n].name, sizeof fs->f[fs->n].name, "%s", name);
    fs->f[fs->n++].text = *text;
    memset(text, 0, sizeof *text);
}

/* rows[0..n), one key at every level above `level`, as the file name.json, or split by the
 * next level when that file would be over UG_BL_FILE_MAX. */
static void ug_split(const ug_baseline *bl, const size_t *rows, size_t n, int level,
                     const char *name, size_t max, ug_bl_files *fs)
{
    ug_buf t = {0};
    ug_buf_printf(&t, "{\"part\":{\"format\":%d,\"device\":", UG_BASELINE_FORMAT);
    ug_buf_json_str(&t, bl->device);
    ug_buf_printf(&t, "},\n");
    ug_bl_lines_body(bl, rows, n, &t);
    ug_buf_printf(&t, "}\n");
    if (t.len <= max || level == 2) {
        char file[700];
        snprintf(file, sizeof file, "%s.json", name);
        ug_files_add(fs, file, &t);
        return;
    }
    ug_buf_free(&t);
    for (size_t i = 0, j; i < n; i = j) {
        const ug_row *r = &bl->res.rows[rows[i]];
        for (j = i + 1; j < n && ug_same_key(r, &bl->res.rows[rows[j]], level + 1); j++) {}
        size_t len;
        const char *key = ug_level_key(r, level + 1, &len);
        ug_buf sub = {0};
        ug_buf_printf(&sub, "%s/", name);
        if (level + 1 == 2 && len == 0)
            ug_buf_printf(&sub, "=checks");
        else
            ug_enc(key, len, &sub);
        ug_split(bl, rows + i, j - i, level + 1, ug_buf_str(&sub), max, fs);
        ug_buf_free(&sub);
    }
}

static int ug_cmp_name(const void *a, const void *b)
{
    return strcmp(((const ug_bl_file *)a)->name, ((const ug_bl_file *)b)->name);
}

void ug_baseline_files(const ug_baseline *bl, ug_bl_files *out)
{
    ug_baseline_files_max(bl, UG_BL_FILE_MAX, out);
}

void ug_baseline_files_max(const ug_baseline *bl, size_t max, ug_bl_files *out)
{
    if (bl->some_groups) { /* a part of a folder written as the whole would lose the rest */
        fprintf(stderr, "ulpgate: internal error: writing a baseline read in part (%s)\n",
                bl->path);
        abort();
    }
    memset(out, 0, sizeof *out);
    ug_buf idx = {0};
    ug_files_add(out, "index.json", &idx);
    size_t n = bl->res.count;
    size_t *order = ug_xcalloc(n + 1, sizeof *order);
    bool *used = ug_xcalloc(bl->n_fps + 1, sizeof *used);
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        used[bl->x[i].fp] = true;
    }
    ug_file_bl = bl;
    qsort(order, n, sizeof *order, ug_cmp_file);
    for (size_t i = 0, j; i < n; i = j) {
        const ug_row *r = &bl->res.rows[order[i]];
        for (j = i + 1; j < n && ug_same_key(r, &bl->res.rows[order[j]], 0); j++) {}
        ug_buf name = {0};
        ug_enc(r->case_name, ug_group_len(r->case_name), &name);
        ug_split(bl, order + i, j - i, 0, ug_buf_str(&name), max, out);
        ug_buf_free(&name);
    }
    qsort(out->f + 1, out->n - 1, sizeof *out->f, ug_cmp_name);
    /* the index: the files, the fingerprints some row uses, the update log */
    ug_buf *b = &out->f[0].text;
    ug_buf_printf(b, "{\"baseline\":{\"format\":%d,\"tool\":\"ulpgate\",\"device\":",
                  UG_BASELINE_FORMAT);
    ug_buf_json_str(b, bl->device);
    ug_buf_printf(b, "},\n\"files\":[");
    for (size_t f = 1; f < out->n; f++) {
        ug_buf_printf(b, "%s\n", f > 1 ? "," : "");
        ug_buf_json_str(b, out->f[f].name);
    }
    ug_buf_printf(b, "],\n\"fingerprints\":{");
    bool first = true;
    for (size_t f = 0; f < bl->n_fps; f++) {
        if (!used[f]) continue; /* no row measured with it any more */
        ug_buf_printf(b, "%s\n", first ? "" : ",");
        ug_buf_json_str(b, bl->fps[f].hash);
        ug_buf_printf(b, ":");
        ug_fingerprint_json(b, &bl->fps[f]);
        first = false;
    }
    ug_buf_printf(b, "},\n\"updates\":[");
    for (size_t u = 0; u < bl->n_updates; u++) {
        ug_buf_printf(b, "%s\n", u ? "," : "");
        ug_event_json(b, &bl->updates[u]);
    }
    ug_buf_printf(b, "]}\n");
    free(order);
    free(used);
}

void ug_bl_files_free(ug_bl_files *fs)
{
    for (size_t i = 0; i < fs->n; i++) ug_buf_free(&fs->f[i].text);
    free(fs->f);
    memset(fs, 0, sizeof *fs);
}

/* ---- the folder on disk ----------------------------------------------------------------------- */

/* The .json files under root/rel (rel "" at the top; index.json there left out), as paths
 * relative to root, appended to *names.  Folders 4 deep at most (the layout has 3). */
static void ug_list_json(const char *root, const char *rel, int depth, char ***names, size_t *n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = depth < 4 ? opendir(path) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[4200], full[8500];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0) continue;
        size_t len = strlen(e->d_name);
        if (S_ISDIR(st.st_mode)) {
            ug_list_json(root, sub, depth + 1, names, n);
        } else if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 &&
                   strcmp(sub, "index.json") != 0) {
            *names = ug_xrealloc(*names, (*n + 1) * sizeof **names);
            (*names)[(*n)++] = ug_xstrdup(sub);
        }
    }
    if (d) closedir(d);
}

static void ug_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* The whole of file path into b; false when it cannot be read (or is over the JSON readers'
 * limit: then it is not the same as a file this writes, which stays under 1 MiB). */
static bool ug_slurp(const char *path, ug_buf *b)
{
    char err[600];
    size_t len, limit = ug_json_file_limit(err, sizeof err);
    char *text = limit ? ug_read_bounded(path, limit, "a baseline file", false, &len, err, sizeof err) : NULL;
    if (!text) return false;
    ug_buf_put(b, text, len);
    free(text);
    return true;
}

bool ug_baseline_same_on_disk(const ug_bl_files *fs, const char *path)
{
    char **names = NULL;
    size_t n = 0;
    ug_list_json(path, "", 0, &names, &n);
    bool same = n + 1 == fs->n;
    ug_names_free(names, n);
    ug_buf old = {0};
    for (size_t i = 0; i < fs->n && same; i++) {
        char file[1700];
        snprintf(file, sizeof file, "%s/%s", path, fs->f[i].name);
        old.len = 0;
        same = ug_slurp(file, &old) && old.len == fs->f[i].text.len &&
               memcmp(ug_buf_str(&old), ug_buf_str(&fs->f[i].text), old.len) == 0;
    }
    ug_buf_free(&old);
    return same;
}

/* fsync a directory, so that the names written into it survive a crash. */
static void ug_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd);
    close(fd);
}

/* Write text to a new file path, fsync'ed.  0, or -1 with errno set. */
static int ug_write_new(const char *path, const ug_buf *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    if (fwrite(ug_buf_str(text), 1, text->len, f) != text->len || fflush(f) != 0 ||
        fsync(fileno(f)) != 0) {
        int e = errno;
        fclose(f);
        errno = e;
        return -1;
    }
    return fclose(f);
}

/* Remove what a writer killed before it finished left in parent: .NAME.tmp.PID (a folder not
 * yet swapped in) and .NAME.old.PID (one swapped out, not yet removed).  The caller holds the
 * lock of parent, so no other writer is using them. */
static void ug_remove_stale(const char *parent, const char *name)
{
    DIR *d = opendir(parent);
    struct dirent *e;
    size_t len = strlen(name);
    while (d && (e = readdir(d)) != NULL) {
        const char *p = e->d_name;
        if (p[0] != '.' || strncmp(p + 1, name, len) != 0) continue;
        if (strncmp(p + 1 + len, ".tmp.", 5) != 0 && strncmp(p + 1 + len, ".old.", 5) != 0)
            continue;
        char stale[4400];
        snprintf(stale, sizeof stale, "%s/%s", parent, p);
        ug_remove_tree(stale);
    }
    if (d) closedir(d);
}

int ug_baseline_write_files(const ug_bl_files *fs, const char *path_in, char *err, size_t errlen)
{
    char path[4096], parent[4096], tmp[4200], file[4900];
    struct stat st;
    /* ULPGATE_CRASH_AFTER_FILES=N: killed after writing N files (tests/gate_cli_test.sh) */
    const char *crash = getenv("ULPGATE_CRASH_AFTER_FILES");
    long crash_after = crash ? strtol(crash, NULL, 10) : 0;
    snprintf(path, sizeof path, "%s", path_in);
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) { /* replace what it points to */
        char *real = realpath(path_in, NULL);
        if (real) snprintf(path, sizeof path, "%s", real);
        free(real);
    }
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') path[--len] = 0;
    const char *slash = strrchr(path, '/');
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    const char *base = slash ? slash + 1 : path;
    ug_remove_stale(parent, base);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp.%ld", parent, base, (long)getpid());
    if (mkdir(tmp, 0777) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < fs->n; i++) {
        snprintf(file, sizeof file, "%s/%s", tmp, fs->f[i].name);
        for (char *p = file + strlen(tmp) + 1; (p = strchr(p, '/')) != NULL; p++) {
            *p = 0; /* the folders of a split group */
            int rc = mkdir(file, 0777);
            *p = '/';
            if (rc != 0 && errno != EEXIST) goto fail;
        }
        if (ug_write_new(file, &fs->f[i].text) != 0) goto fail;
        if (crash_after && (long)i + 1 == crash_after) raise(SIGKILL); /* the tests' crash */
        char *last = strrchr(file, '/');
        *last = 0;
        ug_sync_dir(file);
    }
    if (ug_dir_replace(tmp, path, err, errlen) != 0) {
        ug_remove_tree(tmp);
        return -1;
    }
    ug_sync_dir(parent);
    return 0;
fail:
    snprintf(err, errlen, "cannot write %s: %s", file, strerror(errno));
    ug_remove_tree(tmp);
    return -1;
}

int ug_baseline_write(const ug_baseline *bl, const char *path, char *err, size_t errlen)
{
    ug_bl_files fs;
    ug_baseline_files(bl, &fs);
    int rc = ug_baseline_write_files(&fs, path, err, errlen);
    ug_bl_files_free(&fs);
    return rc;
}

/* ---- reading ---------------------------------------------------------------------------------- */

static const ug_baseline *ug_id_bl;
static int ug_cmp_id(const void *a, const void *b)
{
    return strcmp(ug_id_bl->res.rows[*(const size_t *)a].id,
                  ug_id_bl->res.rows[*(const size_t *)b].id);
}

/* A listed name that stays inside the folder: relative, no "." or ".." part, a .json file. */
static bool ug_name_ok(const char *s)
{
    size_t len = strlen(s);
    if (len <= 5 || strcmp(s + len - 5, ".json") != 0 || strcmp(s, "index.json") == 0 ||
        s[0] == '/' || strchr(s, '\\'))
        return false;
    for (const char *p = s; *p;) {
        if (p[0] == '.' || p[0] == '/') return false;
        const char *q = strchr(p, '/');
        if (!q) break;
        p = q + 1;
    }
    return true;
}

int ug_baseline_read_parts(const char *index, const ug_json *root, ug_baseline *bl, char *err,
                           size_t errlen)
{
    const ug_json *files = ug_json_get(root, "files");
    char dir[4096], path[4800];
    const char *slash = strrchr(index, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - index) : 1, slash ? index : ".");
    if (!files || files->type != UG_JSON_ARR) {
        snprintf(err, errlen, "%s: a baseline of format %d needs a \"files\" array (the row "
                              "files of its folder)",
                 index, UG_BASELINE_FORMAT);
        return -1;
    }
    for (size_t i = 0; i < files->count; i++) {
        const char *name = ug_json_str_of(files->items[i], "");
        if (!ug_name_ok(name)) {
            snprintf(err, errlen, "%s: \"files\" entry %zu (\"%.200s\") is not the name of a .json "
                                  "file inside the folder",
                     index, i, name);
            return -1;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp(ug_json_str_of(files->items[k], ""), name) == 0) {
                snprintf(err, errlen, "%s: \"files\" names %s twice", index, name);
                return -1;
            }
        if (!ug_group_wanted(bl, name)) { /* another group's rows: not compared here */
            bl->some_groups = true;
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, name);
        ug_json *part = ug_json_parse_file(path, err, errlen);
        if (!part) return -1;
        const ug_json *head = ug_json_get(part, "part");
        int rc = 0;
        if (ug_json_num_of(ug_json_get(head, "format"), 0) != UG_BASELINE_FORMAT ||
            strcmp(ug_json_str_of(ug_json_get(head, "device"), ""), bl->device) != 0) {
            snprintf(err, errlen, "%s: not a row file of the baseline of %s of format %d (its "
                                  "\"part\" must say {\"format\":%d,\"device\":\"%s\"})",
                     path, bl->device, UG_BASELINE_FORMAT, UG_BASELINE_FORMAT, bl->device);
            rc = -1;
        }
        if (rc == 0) rc = ug_baseline_read_lines(path, part, bl, err, errlen);
        ug_json_free(part);
        if (rc != 0) return -1;
    }
    /* a file the index does not list would be read by nothing: its rows silently gone */
    char **names = NULL;
    size_t n = 0;
    int rc = 0;
    ug_list_json(dir, "", 0, &names, &n);
    for (size_t i = 0; i < n && rc == 0; i++) {
        bool listed = false;
        for (size_t k = 0; k < files->count && !listed; k++)
            listed = strcmp(ug_json_str_of(files->items[k], ""), names[i]) == 0;
        if (!listed) {
            snprintf(err, errlen, "%s/%s: not listed in %s (\"files\"): a baseline folder holds "
                                  "only the files its index names (written by `ulpgate baseline "
                                  "update`); remove it",
                     dir, names[i], index);
            rc = -1;
        }
    }
    ug_names_free(names, n);
    /* a row in two files (or twice in one) */
    size_t *order = ug_xcalloc(bl->res.count + 1, sizeof *order);
    for (size_t i = 0; i < bl->res.count; i++) order[i] = i;
    ug_id_bl = bl;
    qsort(order, bl->res.count, sizeof *order, ug_cmp_id);
    for (size_t i = 1; i < bl->res.count && rc == 0; i++)
        if (strcmp(bl->res.rows[order[i]].id, bl->res.rows[order[i - 1]].id) == 0) {
            snprintf(err, errlen, "%s: row %.300s is in the baseline twice", dir,
                     bl->res.rows[order[i]].id);
            rc = -1;
        }
    free(order);
    return rc;
}
