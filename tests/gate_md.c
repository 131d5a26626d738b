/*
 * gate_md.c - what the gate writes for people:
 * - its Markdown comment (harness/gate/compare_md.c) on hand-made comparisons: worst first,
 *   grouped by kernel, each row saying "new failure", "bound loosened", "error grew xk"; timing
 *   changes below the timer's resolution hidden; and a huge diff (30,000 regressed rows with long
 *   ids) cut to at most 65,536 bytes with a line naming the full report;
 * - the baseline folder (harness/gate/baseline_dir.c) of files in the grouped line form
 *   (baseline_lines.c): every row read back as it was written (hand-made rows of every kind,
 *   in one file or split down to one file a kernel), every committed file at most 1 MiB and
 *   what the writer writes, and a change to one kernel's figures changing only that kernel's
 *   lines.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/sys.h"
#include "harness/gate/baseline.h"
#include "harness/gate/baseline_rows.h"
#include "harness/gate/compare.h"
#include "harness/gate/fingerprint.h"
#include "harness/run/ug.h"

/* A deterministic sum row of kernel k in case cs at size n. */
static ug_row ug_md_row(const char *cs, const char *k, size_t n, double ulp_max)
{
    ug_row r;
    memset(&r, 0, sizeof r);
    r.measured = true;
    r.status = UG_ST_PASS;
    snprintf(r.case_name, sizeof r.case_name, "%s", cs);
    snprintf(r.kernel, sizeof r.kernel, "%s@default", k);
    snprintf(r.kernel_name, sizeof r.kernel_name, "%s", k);
    snprintf(r.variant, sizeof r.variant, "default");
    snprintf(r.backend, sizeof r.backend, "cpu");
    snprintf(r.op, sizeof r.op, "sum");
    snprintf(r.dist, sizeof r.dist, "normal(0,1)");
    r.shape.dim[0] = n;
    r.deterministic = true;
    r.trials = 10;
    r.count = 10;
    r.seed = 0x5eed;
    r.ulp_max = ulp_max;
    r.ulp_mean = ulp_max / 4;
    r.rel_max = ulp_max * 1e-7;
    r.bound_ratio_max = 0.01;
    r.correctly_rounded = 3;
    r.time_ms = 1.0;
    ug_row_make_id(&r);
    return r;
}

static void ug_md_side(ug_baseline *b, const char *path, const ug_row *rows, size_t n)
{
    memset(b, 0, sizeof *b);
    snprintf(b->device, sizeof b->device, "cpu-x86_64");
    snprintf(b->path, sizeof b->path, "%s", path);
    b->summary_points = (long)n;
    b->n_points = n;
    ug_fingerprint fp;
    memset(&fp, 0, sizeof fp);
    snprintf(fp.v[UG_FP_SEED], sizeof fp.v[0], "0x5eed");
    ug_fingerprint_hash(&fp);
    ug_baseline_fp(b, &fp);
    for (size_t i = 0; i < n; i++) {
        ug_bl_extra x = {.slack = 1.0};
        ug_baseline_add(b, &rows[i], &x);
    }
}

/* Where s occurs in text, or SIZE_MAX. */
static size_t ug_at(const char *text, const char *s)
{
    const char *p = strstr(text, s);
    return p ? (size_t)(p - text) : (size_t)-1;
}

UG_CASE(gate_rules, markdown_worst_first_by_kernel)
{
    ug_row a[7] = {ug_md_row("t/a", "mild", 100, 10),  ug_md_row("t/b", "mild", 100, 10),
                   ug_md_row("t/a", "bad", 100, 1),    ug_md_row("t/b", "bad", 100, 1),
                   ug_md_row("t/a", "failing", 100, 5), ug_md_row("t/a", "loose", 100, 2),
                   ug_md_row("t/a", "timed", 100, 2)};
    ug_row b[7];
    memcpy(b, a, sizeof b);
    b[0].ulp_max = 12;             /* x1.2 */
    b[1].ulp_max = 11;             /* x1.1 */
    b[2].ulp_max = 1000;           /* x1000: the worst error */
    b[3].ulp_max = 2;              /* x2, in the same kernel: listed under it, after x1000 */
    b[4].status = UG_ST_FAIL;      /* a new failure: before any grown error */
    b[4].ulp_max = 6;
    b[5].bound_ratio_max = 0.005;  /* the bound doubled, the error did not move */
    b[6].time_ms = 1.0 + 1e-7;     /* 0.1 ns: below any clock's tick */
    b[0].time_ms = 3.0;            /* x3 slower: shown */
    ug_baseline base, now;
    ug_md_side(&base, "base.json", a, 7);
    ug_md_side(&now, "new.json", b, 7);
    ug_comparison c;
    ug_compare(&base, &now, NULL, &c);
    ug_buf out = {0};
    ug_cmp_print_markdown(&c, &out, 40, NULL);
    const char *txt = ug_buf_str(&out);
    UG_EXPECT_MSG(c.regressed == 6, "%zu regressed", c.regressed);
    size_t fail = ug_at(txt, "`t/a failing@default normal(0,1) 100`: **new failure** (pass -> fail)");
    size_t bad = ug_at(txt, "**`bad@default`**: 2 rows");
    size_t k1000 = ug_at(txt, "`t/a bad@default normal(0,1) 100`: error grew x1000 (ulp_max 1 -> 1000)");
    size_t k2 = ug_at(txt, "`t/b bad@default normal(0,1) 100`: error grew x2 (ulp_max 1 -> 2)");
    size_t loose = ug_at(txt, "**bound loosened** (bound_ratio_max 0.01 -> 0.005, the error did not improve)");
    size_t mild = ug_at(txt, "**`mild@default`**: 2 rows");
    size_t m12 = ug_at(txt, "`t/a mild@default normal(0,1) 100`: error grew x1.2 (ulp_max 10 -> 12)");
    size_t m11 = ug_at(txt, "`t/b mild@default normal(0,1) 100`: error grew x1.1");
    UG_EXPECT_MSG(fail != (size_t)-1 && bad != (size_t)-1 && k1000 != (size_t)-1 &&
                      k2 != (size_t)-1 && loose != (size_t)-1 && mild != (size_t)-1 &&
                      m12 != (size_t)-1 && m11 != (size_t)-1,
                  "a line is missing:\n%s", txt);
    /* worst first: the new failure, then the kernel with x1000 (both its rows), then loose
     * (x2 of its bound) before mild (x1.2) */
    UG_EXPECT_MSG(fail < bad && bad < k1000 && k1000 < k2 && k2 < mild && loose < mild &&
                      mild < m12 && m12 < m11,
                  "order: fail %zu bad %zu x1000 %zu x2 %zu loose %zu mild %zu x1.2 %zu x1.1 %zu\n%s",
                  fail, bad, k1000, k2, loose, mild, m12, m11, txt);
    UG_EXPECT_MSG(strstr(txt, "### ulpgate: **6 regressions** (1 new failure, 1 bound loosened)"),
                  "%s", txt);
    /* timing: the x3 slowdown is named, the 0.1 ns one is not */
    UG_EXPECT_MSG(strstr(txt, "x3 slower: t/a mild@default"), "%s", txt);
    UG_EXPECT_MSG(!strstr(txt, "slower: t/a timed@default"), "%s", txt);
    UG_EXPECT_MSG(!strstr(txt, "Cut to fit"), "%s", txt);
    ug_buf_free(&out);
    ug_comparison_free(&c);
    ug_baseline_free(&base);
    ug_baseline_free(&now);
}

/* 30,000 regressed rows (ids of ~230 bytes, 300 kernels) and 5,000 rows in each side only:
 * the comment holds the worst rows that fit, stays within 65,536 bytes, and ends with a line
 * that says how many rows were left out and names the full report. */
UG_CASE(gate_rules, markdown_huge_diff_fits_a_comment)
{
    enum { N = 30000, ONLY = 5000 };
    ug_row *a = calloc(N + ONLY, sizeof *a), *b = calloc(N + ONLY, sizeof *b);
    UG_ASSERT(a && b);
    char cs[128], k[40];
    for (size_t i = 0; i < N + ONLY; i++) {
        snprintf(cs, sizeof cs, "suite/%0100zu_%s", i % 7, "a_long_case_name");
        snprintf(k, sizeof k, "kernel_%03zu", i % 300);
        a[i] = ug_md_row(cs, k, 1000 + i, 2.0);
        b[i] = a[i];
        b[i].ulp_max = 2.0 * (2.0 + (double)i); /* the worst: the last row */
        if (i >= N) {                             /* rows only in one side */
            b[i].shape.dim[0] += 1000000;
            ug_row_make_id(&b[i]);
        }
    }
    ug_baseline base, now;
    ug_md_side(&base, "base.json", a, N + ONLY);
    ug_md_side(&now, "new.json", b, N + ONLY);
    ug_comparison c;
    ug_compare(&base, &now, NULL, &c);
    UG_EXPECT_MSG(c.regressed == N, "%zu regressed", c.regressed);
    ug_buf out = {0};
    ug_cmp_print_markdown(&c, &out, 100000, "https://ci.example/job/1/compare.txt");
    const char *txt = ug_buf_str(&out);
    UG_EXPECT_MSG(out.len <= 65536, "the comment is %zu bytes", out.len);
    UG_EXPECT_MSG(out.len > 60000, "the comment is %zu bytes: room left unused", out.len);
    UG_EXPECT_MSG(strstr(txt, "rows not shown.** The full report: https://ci.example/job/1/compare.txt"),
                  "no line naming the full report:\n%.2000s", txt + (out.len > 2000 ? out.len - 2000 : 0));
    /* the worst row (i = N - 1, x30000) comes first, under its kernel's heading */
    char worst[96];
    snprintf(worst, sizeof worst, "**`kernel_%03d@default`**: ", (N - 1) % 300);
    size_t head = ug_at(txt, "#### Regressions"), w = ug_at(txt, worst);
    UG_EXPECT_MSG(head != (size_t)-1 && w != (size_t)-1 && w < head + 60, "head %zu worst %zu", head, w);
    UG_EXPECT(strstr(txt, "error grew x3e+04 (ulp_max 2 -> 6e+04)") != NULL);
    UG_EXPECT(strstr(txt, "#### Counts") != NULL); /* the counts are never cut */
    ug_buf_free(&out);
    /* without a link, the command that prints every row */
    ug_cmp_print_markdown(&c, &out, 100000, NULL);
    UG_EXPECT_MSG(out.len <= 65536 && strstr(ug_buf_str(&out), "The full report: `ulpgate compare base.json new.json`"),
                  "%zu bytes", out.len);
    ug_buf_free(&out);
    ug_comparison_free(&c);
    ug_baseline_free(&base);
    ug_baseline_free(&now);
    free(a);
    free(b);
}

/* ---- the baseline's line form ------------------------------------------------------------------ */

/* Each row of a as its format 2 object text equals b's row of the same id, and b has no other. */
static int ug_same_baselines(const ug_baseline *a, const ug_baseline *b, char *why, size_t len)
{
    if (a->res.count != b->res.count) {
        snprintf(why, len, "%zu rows -> %zu", a->res.count, b->res.count);
        return -1;
    }
    ug_buf x = {0}, y = {0};
    int rc = 0;
    for (size_t i = 0; i < a->res.count && rc == 0; i++) {
        size_t j = 0;
        while (j < b->res.count && strcmp(b->res.rows[j].id, a->res.rows[i].id) != 0) j++;
        if (j == b->res.count) {
            snprintf(why, len, "row %s is lost", a->res.rows[i].id);
            rc = -1;
            break;
        }
        x.len = y.len = 0;
        ug_bl_row_json(&x, a, i);
        ug_bl_row_json(&y, b, j);
        if (x.len != y.len || memcmp(ug_buf_str(&x), ug_buf_str(&y), x.len) != 0) {
            snprintf(why, len, "%.300s\n  read back as\n%.300s", ug_buf_str(&x), ug_buf_str(&y));
            rc = -1;
        }
    }
    ug_buf_free(&x);
    ug_buf_free(&y);
    return rc;
}

/* Write bl to a temporary folder (files of at most max bytes) and read it back into *back;
 * the names of the files written in *names (the folder's, '\n' after each).  0, or -1. */
static int ug_write_read_max(const ug_baseline *bl, size_t max, ug_baseline *back, ug_buf *names,
                             char *err, size_t len)
{
    char dir[] = "/tmp/ug_bl_lines_XXXXXX", path[64];
    if (!mkdtemp(dir)) return -1;
    snprintf(path, sizeof path, "%s/bl", dir);
    ug_bl_files fs;
    ug_baseline_files_max(bl, max, &fs);
    for (size_t i = 0; names && i < fs.n; i++) ug_buf_printf(names, "%s\n", fs.f[i].name);
    int rc = ug_baseline_write_files(&fs, path, err, len);
    if (rc == 0) rc = ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, back, err, len);
    ug_bl_files_free(&fs);
    ug_remove_tree(dir);
    return rc;
}

static int ug_write_read(const ug_baseline *bl, ug_baseline *back, char *err, size_t len)
{
    return ug_write_read_max(bl, UG_BL_FILE_MAX, back, NULL, err, len);
}

UG_CASE(gate_rules, baseline_lines_round_trip)
{
    ug_row r[9] = {ug_md_row("t/a", "k1", 100, 10), ug_md_row("t/a", "k1", 1000, 11),
                   ug_md_row("t/b", "k1", 100, 12), ug_md_row("t/a", "k2", 100, 1.0 / 3),
                   ug_md_row("t/a", "k2", 1000, INFINITY), ug_md_row("t/a", "k3", 100, NAN),
                   ug_md_row("t/g", "gemm_x", 64, 0.5), ug_md_row("t/a", "k1", 10, 0.1),
                   ug_md_row("t/c", "check", 0, 0)};
    r[1].trials = 3;                          /* differs from its group's first row */
    r[1].count = 3;
    r[3].deterministic = false;               /* nondeterministic: repeats, distinct, slack */
    r[3].repeats = 9;
    r[3].distinct_results = 4;
    r[4].ulp_mean = NAN;
    r[5].status = UG_ST_XFAIL;
    snprintf(r[6].op, sizeof r[6].op, "gemm");    /* a shaped GEMM: the id says MxNxK */
    r[6].shape.dim[0] = 64;
    r[6].shape.dim[1] = 32;
    r[6].shape.dim[2] = 16;
    ug_row_make_id(&r[6]);
    r[7].seed = 0x1234;                       /* not the file's default */
    memset(&r[8], 0, sizeof r[8]);            /* a check point */
    snprintf(r[8].case_name, sizeof r[8].case_name, "t/c");
    snprintf(r[8].point, sizeof r[8].point, "t/c every kernel measured");
    r[8].status = UG_ST_PASS;
    ug_row_make_id(&r[8]);
    ug_baseline bl, back;
    ug_md_side(&bl, "bl.json", r, 9);
    bl.is_baseline = true;
    bl.x[3].slack = 4;
    ug_fingerprint fp2;
    memset(&fp2, 0, sizeof fp2);
    snprintf(fp2.v[UG_FP_SEED], sizeof fp2.v[0], "0x5eed");
    snprintf(fp2.v[UG_FP_COMPILER], sizeof fp2.v[0], "gcc 13");
    ug_fingerprint_hash(&fp2);
    bl.x[2].fp = ug_baseline_fp(&bl, &fp2);   /* one row measured by another build */
    ug_bl_event ev = {.date = "2026-11-25T00:00:00Z", .git = "abc", .reason = "on purpose",
                      .changes = "ulp_max 1 -> 2"};
    bl.x[0].loosened = ug_xmalloc(sizeof ev);
    bl.x[0].loosened[0] = ev;
    bl.x[0].n_loosened = 1;
    ug_baseline_log(&bl, "abc", "test", "format 2 -> 3");
    char err[1400], why[800];
    UG_ASSERT_MSG(ug_write_read(&bl, &back, err, sizeof err) == 0, "%s", err);
    UG_EXPECT_MSG(ug_same_baselines(&bl, &back, why, sizeof why) == 0, "%s", why);
    UG_EXPECT(back.format == UG_BASELINE_FORMAT && back.n_updates == 1 && back.n_fps == 2);
    UG_EXPECT(back.x[0].n_loosened + back.x[1].n_loosened + back.x[2].n_loosened +
                  back.x[3].n_loosened + back.x[4].n_loosened + back.x[5].n_loosened +
                  back.x[6].n_loosened + back.x[7].n_loosened + back.x[8].n_loosened == 1);
    ug_baseline_free(&back);
    /* files of at most 1 byte: every group split by case, every case by kernel (its check
     * points in =checks.json), and still every row read back */
    ug_buf names = {0};
    UG_ASSERT_MSG(ug_write_read_max(&bl, 1, &back, &names, err, sizeof err) == 0, "%s", err);
    UG_EXPECT_MSG(ug_same_baselines(&bl, &back, why, sizeof why) == 0, "%s", why);
    UG_EXPECT_MSG(strcmp(ug_buf_str(&names), "index.json\nt/a/k1@default.json\n"
                                             "t/a/k2@default.json\nt/a/k3@default.json\n"
                                             "t/b/k1@default.json\nt/c/=checks.json\n"
                                             "t/g/gemm_x@default.json\n") == 0,
                  "files: %s", ug_buf_str(&names));
    ug_buf_free(&names);
    ug_baseline_free(&back);
    /* files of any size: one a case group */
    UG_ASSERT_MSG(ug_write_read_max(&bl, (size_t)-1, &back, &names, err, sizeof err) == 0, "%s",
                  err);
    UG_EXPECT_MSG(strcmp(ug_buf_str(&names), "index.json\nt.json\n") == 0, "files: %s",
                  ug_buf_str(&names));
    ug_buf_free(&names);
    ug_baseline_free(&back);
    ug_baseline_free(&bl);
}

/* The lines of text, split in place (text is modified); their count in *n. */
static char **ug_lines(char *text, size_t *n)
{
    size_t cap = 1024;
    char **l = ug_xmalloc(cap * sizeof *l);
    *n = 0;
    for (char *p = text; *p;) {
        if (*n == cap) l = ug_xrealloc(l, (cap *= 2) * sizeof *l);
        l[(*n)++] = p;
        char *e = strchr(p, '\n');
        if (!e) break;
        *e = 0;
        p = e + 1;
    }
    return l;
}

/* Lines of a and b that differ (the same number of lines: a figure changed, no row added), each
 * checked to lie in a group of kernel: *n_diff lines differ, *outside of them elsewhere. */
static void ug_diff_lines(const ug_buf *a, const ug_buf *b, const char *kernel, size_t *n_diff,
                          size_t *outside, bool *same_count)
{
    char *ta = ug_xmalloc(a->len + 1), *tb = ug_xmalloc(b->len + 1);
    memcpy(ta, ug_buf_str(a), a->len + 1);
    memcpy(tb, ug_buf_str(b), b->len + 1);
    size_t na, nb;
    char **la = ug_lines(ta, &na), **lb = ug_lines(tb, &nb);
    char head[128];
    snprintf(head, sizeof head, "{\"kernel\":\"%s\",", kernel);
    *same_count = na == nb;
    *n_diff = *outside = 0;
    const char *group = "";
    for (size_t i = 0; i < na && i < nb; i++) {
        if (strncmp(la[i], "{\"kernel\":", 10) == 0) group = la[i];
        if (strcmp(la[i], lb[i]) == 0) continue;
        (*n_diff)++;
        if (strncmp(group, head, strlen(head)) != 0) (*outside)++;
    }
    free(la);
    free(lb);
    free(ta);
    free(tb);
}

/* Each baseline file at most ~1 MB; checked as 1 MiB, whatever the writer's
 * UG_BL_FILE_MAX says (a writer that splits later fails here, not silently). */
enum { UG_ISSUE_FILE_MAX = 1048576 };

/* The sizes of the files under dir (recursively), each checked against UG_ISSUE_FILE_MAX: their
 * count in *n, the largest in *largest (its name in big), the files over it in *over. */
static void ug_sizes(const char *dir, size_t *n, size_t *over, size_t *largest, char *big,
                     size_t big_len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[2048];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (lstat(sub, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            ug_sizes(sub, n, over, largest, big, big_len);
            continue;
        }
        (*n)++;
        *over += (size_t)st.st_size > UG_ISSUE_FILE_MAX;
        if ((size_t)st.st_size > *largest) {
            *largest = (size_t)st.st_size;
            snprintf(big, big_len, "%s", sub);
        }
    }
    if (d) closedir(d);
}

/* Every committed baseline is a folder (no single file of an older format left) of files of at
 * most 1,048,576 bytes, exactly what this writer writes for it (so it was
 * written by `ulpgate baseline update/migrate`, and no file would move on the next update). */
UG_CASE(gate_rules, baseline_files_committed_at_most_1MiB)
{
    char root[4096], err[1400];
    UG_ASSERT(ug_data_path("reports/baselines", root, sizeof root));
    DIR *d = opendir(root);
    UG_ASSERT(d != NULL);
    struct dirent *e;
    size_t folders = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        UG_EXPECT_MSG(stat(path, &st) == 0 && S_ISDIR(st.st_mode),
                      "%s: not a baseline folder (run 'ulpgate baseline migrate %s --reason ...')",
                      path, path);
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        folders++;
        size_t n = 0, over = 0, largest = 0;
        char big[2048] = "";
        ug_sizes(path, &n, &over, &largest, big, sizeof big);
        UG_EXPECT_MSG(over == 0 && n >= 2, "%s: %zu of its %zu files over %d bytes (%s: %zu)",
                      path, over, n, (int)UG_ISSUE_FILE_MAX, big, largest);
        ug_baseline bl;
        UG_ASSERT_MSG(ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, &bl, err, sizeof err) == 0,
                      "%s", err);
        ug_bl_files fs;
        ug_baseline_files(&bl, &fs);
        UG_EXPECT_MSG(bl.format == UG_BASELINE_FORMAT && fs.n == n &&
                          ug_baseline_same_on_disk(&fs, path),
                      "%s (format %d, %zu files) is not what 'ulpgate baseline update' writes "
                      "(%zu files)", path, bl.format, n, fs.n);
        ug_bl_files_free(&fs);
        ug_baseline_free(&bl);
    }
    closedir(d);
    UG_EXPECT_MSG(folders >= 1, "no baseline folder under %s", root);
}

/* Lines that differ between the files of a and b (the same files expected: a figure changed, no
 * row added), summed over the files, each checked to lie in a group of kernel. */
static void ug_diff_files(const ug_bl_files *a, const ug_bl_files *b, const char *kernel,
                          size_t *n_diff, size_t *outside, bool *same_files)
{
    *n_diff = *outside = 0;
    *same_files = a->n == b->n;
    for (size_t i = 0; i < a->n && *same_files; i++) {
        size_t d, o;
        bool same_count;
        *same_files = strcmp(a->f[i].name, b->f[i].name) == 0;
        ug_diff_lines(&a->f[i].text, &b->f[i].text, kernel, &d, &o, &same_count);
        *same_files &= same_count;
        *n_diff += d;
        *outside += o;
    }
}

/* Diff-local: one figure of one kernel changed changes exactly one line, in that kernel's
 * group; every row of that kernel changed changes only its rows' lines, in the files of the
 * case groups it runs on, never the index.  On the largest committed baseline (the H100's, whose
 * gpu_adversarial group is split by case), else the CPU's. */
UG_CASE(gate_rules, baseline_files_diff_local)
{
    char path[4096], err[1400];
    UG_ASSERT(ug_data_path("reports/baselines/h100-sm90", path, sizeof path) ||
              ug_data_path("reports/baselines/cpu-x86_64", path, sizeof path));
    ug_baseline bl;
    UG_ASSERT_MSG(ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, &bl, err, sizeof err) == 0, "%s",
                  err);
    ug_bl_files a, b;
    ug_baseline_files(&bl, &a);
    /* a row of a split group where there is one */
    size_t pick = 0;
    while (pick < bl.res.count && !(bl.res.rows[pick].measured &&
                                    strncmp(bl.res.rows[pick].case_name, "gpu_adversarial/", 16) == 0))
        pick++;
    if (pick == bl.res.count) pick = bl.res.count / 2;
    while (pick < bl.res.count && !bl.res.rows[pick].measured) pick++;
    UG_ASSERT(pick < bl.res.count);
    char kernel[64];
    snprintf(kernel, sizeof kernel, "%s", bl.res.rows[pick].kernel);
    bl.res.rows[pick].ulp_max = nextafter(bl.res.rows[pick].ulp_max, INFINITY);
    ug_baseline_files(&bl, &b);
    size_t n_diff, outside;
    bool same_files;
    ug_diff_files(&a, &b, kernel, &n_diff, &outside, &same_files);
    UG_EXPECT_MSG(same_files && n_diff == 1 && outside == 0,
                  "one ulp_max of %s (%s): %zu lines differ, %zu outside its groups%s", kernel,
                  bl.res.rows[pick].id, n_diff, outside, same_files ? "" : ", files differ");
    ug_bl_files_free(&b);
    /* every row of that kernel worse: its lines change, no other (an infinite or NaN mean, a
     * row of a special-value case, stays what it is under 2x + 1: it takes 1 instead) */
    size_t rows_of_kernel = 0;
    for (size_t i = 0; i < bl.res.count; i++)
        if (strcmp(bl.res.rows[i].kernel, kernel) == 0) {
            double m = bl.res.rows[i].ulp_mean;
            bl.res.rows[i].ulp_mean = isfinite(m) ? 2 * m + 1 : 1;
            rows_of_kernel++;
        }
    ug_baseline_files(&bl, &b);
    ug_diff_files(&a, &b, kernel, &n_diff, &outside, &same_files);
    UG_EXPECT_MSG(same_files && n_diff == rows_of_kernel && outside == 0,
                  "every row of %s: %zu lines differ for %zu rows, %zu outside its groups%s",
                  kernel, n_diff, rows_of_kernel, outside, same_files ? "" : ", files differ");
    UG_EXPECT(a.f[0].text.len == b.f[0].text.len &&
              strcmp(ug_buf_str(&a.f[0].text), ug_buf_str(&b.f[0].text)) == 0);
    ug_bl_files_free(&a);
    ug_bl_files_free(&b);
    ug_baseline_free(&bl);
}
