/*
 * gate_md.c - the gate's Markdown comment (harness/gate/compare_md.c) on hand-made comparisons:
 * worst first, grouped by kernel, each row saying "new failure", "bound loosened", "error grew
 * xk"; timing changes below the timer's resolution hidden; and a huge diff (30,000 regressed
 * rows with long ids) cut to at most 65,536 bytes with a line naming the full report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/gate/baseline.h"
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
    r.n = n;
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
            b[i].n += 1000000;
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
