/*
 * gate_rules.c - the merge gate's rules on hand-made rows (harness/gate/compare.c, baseline.c,
 * baseline_update.c, fingerprint.c): exact verdicts for deterministic rows, the slack of
 * nondeterministic ones, NaN and infinities, status changes, inputs that differ, fingerprint
 * changes scoped to the rows they affect, the update rules (tightened, loosened with and without
 * a reason, within slack, pruned), a baseline written and read back bit for bit, device keys.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"
#include "harness/gate/fingerprint.h"
#include "harness/gate/history.h"
#include "harness/run/ug.h"

UG_CASE(gate_rules, judge_exact_and_slack)
{
    double one_up = nextafter(1.0, 2.0);
    UG_EXPECT(ug_judge(1.0, one_up, false, 1.0) == UG_V_WORSE); /* no slack: one ulp is worse */
    UG_EXPECT(ug_judge(one_up, 1.0, false, 1.0) == UG_V_BETTER);
    UG_EXPECT(ug_judge(1.0, 1.0, false, 1.0) == UG_V_SAME);
    UG_EXPECT(ug_judge(0.0, 1e-300, false, 1.0) == UG_V_WORSE);
    UG_EXPECT(ug_judge(5, 4, true, 1.0) == UG_V_WORSE); /* fewer correctly rounded */
    UG_EXPECT(ug_judge(4, 5, true, 1.0) == UG_V_BETTER);
    UG_EXPECT(ug_judge(1.0, INFINITY, false, 1.0) == UG_V_WORSE);
    UG_EXPECT(ug_judge(INFINITY, NAN, false, 1.0) == UG_V_WORSE);
    UG_EXPECT(ug_judge(NAN, 1e300, false, 1.0) == UG_V_BETTER);
    UG_EXPECT(ug_judge(NAN, NAN, false, 1.0) == UG_V_SAME);
    UG_EXPECT(ug_judge(INFINITY, INFINITY, false, 1.0) == UG_V_SAME);
    /* slack 2: within up to x2 either way, worse or better beyond */
    UG_EXPECT(ug_judge(1.0, 2.0, false, 2.0) == UG_V_WITHIN);
    UG_EXPECT(ug_judge(1.0, nextafter(2.0, 3.0), false, 2.0) == UG_V_WORSE);
    UG_EXPECT(ug_judge(1.0, 0.5, false, 2.0) == UG_V_WITHIN);
    UG_EXPECT(ug_judge(1.0, 0.49, false, 2.0) == UG_V_BETTER);
    UG_EXPECT(ug_judge(10, 5, true, 2.0) == UG_V_WITHIN);
    UG_EXPECT(ug_judge(10, 4, true, 2.0) == UG_V_WORSE);
    UG_EXPECT(ug_judge(0.0, 1e-9, false, 2.0) == UG_V_WORSE); /* nothing is within x2 of 0 */
    UG_EXPECT(ug_judge_status(UG_ST_PASS, UG_ST_FAIL) == UG_V_WORSE);
    UG_EXPECT(ug_judge_status(UG_ST_XFAIL, UG_ST_XPASS) == UG_V_WORSE);
    UG_EXPECT(ug_judge_status(UG_ST_FAIL, UG_ST_PASS) == UG_V_BETTER);
    UG_EXPECT(ug_judge_status(UG_ST_PASS, UG_ST_XFAIL) == UG_V_SAME);
}

/* A measured row of a sum kernel. */
static ug_row ug_test_row(const char *kernel, size_t n, bool det, double ulp_max)
{
    ug_row r;
    memset(&r, 0, sizeof r);
    r.measured = true;
    snprintf(r.case_name, sizeof r.case_name, "t/case");
    snprintf(r.kernel, sizeof r.kernel, "%s@default", kernel);
    snprintf(r.kernel_name, sizeof r.kernel_name, "%s", kernel);
    snprintf(r.variant, sizeof r.variant, "default");
    snprintf(r.backend, sizeof r.backend, "%s", strncmp(kernel, "gpu_", 4) == 0 ? "cuda" : "cpu");
    snprintf(r.op, sizeof r.op, "sum");
    snprintf(r.dist, sizeof r.dist, "normal(0,1)");
    r.shape.dim[0] = n;
    r.deterministic = det;
    r.trials = 10;
    r.count = 10;
    r.seed = 0x5eed;
    r.ulp_max = ulp_max;
    r.ulp_mean = ulp_max / 4;
    r.rel_max = ulp_max * 1e-7;
    r.bound_ratio_max = 0.01;
    r.correctly_rounded = 3;
    if (!det) {
        r.repeats = 9;
        r.distinct_results = 4;
    }
    ug_row_make_id(&r);
    return r;
}

/* A side with one fingerprint (compiler as given) and these rows. */
static void ug_test_side(ug_baseline *b, const char *compiler, const ug_row *rows, size_t n)
{
    memset(b, 0, sizeof *b);
    snprintf(b->device, sizeof b->device, "cpu-x86_64");
    snprintf(b->path, sizeof b->path, "test");
    ug_fingerprint fp;
    memset(&fp, 0, sizeof fp);
    snprintf(fp.v[UG_FP_SEED], sizeof fp.v[0], "0x5eed");
    snprintf(fp.v[UG_FP_COMPILER], sizeof fp.v[0], "%s", compiler);
    ug_fingerprint_hash(&fp);
    ug_baseline_fp(b, &fp);
    for (size_t i = 0; i < n; i++) {
        ug_bl_extra x = {.slack = rows[i].deterministic ? 1.0 : UG_DEFAULT_NONDET_SLACK};
        ug_baseline_add(b, &rows[i], &x);
    }
}

static const ug_cmp_row *ug_find_cmp(const ug_comparison *c, const char *id)
{
    for (size_t i = 0; i < c->n_rows; i++)
        if (strcmp(c->now->res.rows[c->rows[i].now].id, id) == 0) return &c->rows[i];
    return NULL;
}

/* A nondeterministic row's outputs count its repeats, as many as fit a time budget: fewer
 * repeats are the same input, judged; fewer trials are not. */
UG_CASE(gate_rules, nondeterministic_repeats_are_not_inputs)
{
    ug_row a[3] = {ug_test_row("gpu_atomic", 100, false, 20),
                   ug_test_row("gpu_atomic_grid", 100, false, 20),
                   ug_test_row("serial", 100, true, 10)};
    a[0].count = a[1].count = 90;
    ug_row b[3] = {a[0], a[1], a[2]};
    b[0].count = 30;               /* 3 repeats instead of 9: the same input */
    b[0].repeats = 3;
    b[0].ulp_mean = 4.5 * a[0].ulp_mean; /* beyond its x4 slack: judged, worse */
    b[1].count = 30;
    b[1].trials = 9;               /* inputs changed */
    b[2].count = 9;                /* deterministic: outputs changed */
    ug_baseline base, now;
    ug_test_side(&base, "gcc 12", a, 3);
    ug_test_side(&now, "gcc 12", b, 3);
    ug_comparison c;
    ug_compare(&base, &now, NULL, &c);
    UG_EXPECT_MSG(c.regressed == 1 && c.inputs_changed == 2, "regressed %zu inputs changed %zu",
                  c.regressed, c.inputs_changed);
    const ug_cmp_row *r = ug_find_cmp(&c, b[0].id);
    UG_EXPECT(r && r->inputs[0] == 0);
    r = ug_find_cmp(&c, b[2].id);
    UG_EXPECT(r && strcmp(r->inputs, "outputs 10 -> 9") == 0);
    ug_comparison_free(&c);
    ug_baseline_free(&base);
    ug_baseline_free(&now);
}

UG_CASE(gate_rules, compare_rows)
{
    ug_row a[5] = {ug_test_row("serial", 100, true, 10), ug_test_row("kahan", 100, true, 1),
                   ug_test_row("gpu_atomic", 100, false, 20), ug_test_row("gone", 100, true, 1),
                   ug_test_row("pairwise", 100, true, 5)};
    ug_row b[5] = {a[0], a[1], a[2], ug_test_row("added", 100, true, 1), a[4]};
    b[0].ulp_max = nextafter(10, 11); /* deterministic: worse */
    b[1].ulp_mean = 0.1;              /* better */
    b[2].ulp_mean = 5 * 3.95;         /* nondeterministic, x3.95: within x4 */
    b[2].ulp_max = 200;               /* x10, but a maximum of random orders: not gated */
    b[4].trials = 5;                  /* inputs changed */
    ug_baseline base, now;
    ug_test_side(&base, "gcc 12", a, 5);
    ug_test_side(&now, "gcc 13", b, 5);
    ug_comparison c;
    ug_compare(&base, &now, NULL, &c);
    UG_EXPECT_MSG(c.regressed == 1 && c.improved == 1 && c.within == 1 && c.inputs_changed == 1,
                  "regressed %zu improved %zu within %zu inputs %zu", c.regressed, c.improved,
                  c.within, c.inputs_changed);
    UG_EXPECT(c.n_only_base == 1 &&
              strcmp(base.res.rows[c.only_base[0]].kernel, "gone@default") == 0);
    UG_EXPECT(c.n_only_new == 1 &&
              strcmp(now.res.rows[c.only_new[0]].kernel, "added@default") == 0);
    const ug_cmp_row *r0 = ug_find_cmp(&c, a[0].id), *r2 = ug_find_cmp(&c, a[2].id);
    UG_ASSERT(r0 && r2);
    UG_EXPECT(r0->verdict == UG_V_WORSE && r0->m[UG_GM_ULP_MAX] == UG_V_WORSE &&
              r0->m[UG_GM_ULP_MEAN] == UG_V_SAME);
    UG_EXPECT(r0->slack == 1.0 && r2->slack == UG_DEFAULT_NONDET_SLACK);
    UG_EXPECT(r2->m[UG_GM_DISTINCT] == UG_V_SAME && r0->m[UG_GM_DISTINCT] == UG_V_NA);
    UG_EXPECT(r2->m[UG_GM_ULP_MAX] == UG_V_CHANGED && r2->m[UG_GM_ULP_MEAN] == UG_V_WITHIN &&
              r2->verdict == UG_V_WITHIN);
    /* the compiler changed: CPU rows depend on it, the CUDA row does not */
    UG_EXPECT((c.env & (1u << UG_FP_COMPILER)) && (r0->env & (1u << UG_FP_COMPILER)) &&
              r2->env == 0);
    /* serial, kahan, pairwise: the CPU rows in both sides */
    UG_EXPECT_MSG(c.env_part[UG_FP_COMPILER].rows == 3, "%zu rows",
                  c.env_part[UG_FP_COMPILER].rows);
    ug_buf out = {0};
    ug_cmp_print_text(&c, &out, false);
    UG_EXPECT_MSG(
        strstr(ug_buf_str(&out), "compiler: 'gcc 12' -> 'gcc 13': every CPU row (3 compared rows)"),
        "%s", ug_buf_str(&out));
    ug_buf_free(&out);
    ug_comparison_free(&c);
    /* a nondeterministic row's distinct results are reported, not gated */
    now.res.rows[2].distinct_results = 9;
    ug_compare(&base, &now, NULL, &c);
    r2 = ug_find_cmp(&c, a[2].id);
    UG_EXPECT(c.regressed == 1 && r2 && r2->m[UG_GM_DISTINCT] == UG_V_CHANGED && r2->verdict == UG_V_WITHIN);
    ug_comparison_free(&c);
    /* a deterministic kernel measured with repeats must keep one result */
    base.res.rows[1].repeats = now.res.rows[1].repeats = 12;
    base.res.rows[1].distinct_results = 1;
    now.res.rows[1].distinct_results = 2;
    ug_compare(&base, &now, NULL, &c);
    const ug_cmp_row *r1 = ug_find_cmp(&c, a[1].id);
    UG_EXPECT(c.regressed == 2 && r1 && r1->m[UG_GM_DISTINCT] == UG_V_WORSE);
    ug_comparison_free(&c);
    /* the nondeterministic row's mean beyond its slack (x4.05) */
    now.res.rows[2].ulp_mean = 5 * 4.05;
    ug_compare(&base, &now, NULL, &c);
    UG_EXPECT(c.regressed == 3);
    ug_comparison_free(&c);
    ug_baseline_free(&base);
    ug_baseline_free(&now);
}

/* A row whose determinism differs between the sides (a kernel declared nondeterministic is
 * measured, and one measured deterministic on one run counts one result there): its outputs
 * count its repeats on the nondeterministic side, so a count that differs is not a change of
 * inputs; the slack is the base's (x4 when the base row was nondeterministic, none when it was
 * deterministic: a kernel that turns nondeterministic keeps the exact rule it had), but a base
 * row of a kernel declared nondeterministic that its repeats measured deterministic (a lucky
 * arrival order: an H200 atomic sum of 33 terms went red so in an honest run) and differs now
 * is judged as nondeterministic, x4. */
UG_CASE(gate_rules, determinism_differs)
{
    ug_row a[3] = {ug_test_row("serial", 100, true, 10), ug_test_row("gpu_atomic", 100, false, 20),
                   ug_test_row("gpu_atomic_short", 33, false, 9.6)};
    a[2].deterministic = true; /* declared nondeterministic, its 9 repeats the same bits */
    a[2].distinct_results = 1;
    ug_row b[3] = {a[0], a[1], a[2]};
    b[2].deterministic = false; /* an honest run whose repeats differ */
    b[2].distinct_results = 2;
    b[2].count = a[2].count * 9;
    b[2].ulp_mean = a[2].ulp_mean * 0.98;
    b[2].correctly_rounded = 10;
    b[0].deterministic = false; /* deterministic in BASE, nondeterministic now */
    b[0].repeats = 9;
    b[0].distinct_results = 3;
    b[0].count = a[0].count * 9;
    b[1].deterministic = true; /* nondeterministic in BASE, one result now */
    b[1].repeats = 0;
    b[1].distinct_results = 0;
    b[1].count = a[1].count / 9 + 1;
    b[1].ulp_mean = a[1].ulp_mean * 3; /* within the base's x4 */
    ug_baseline base, now;
    ug_test_side(&base, "gcc 12", a, 3);
    ug_test_side(&now, "gcc 12", b, 3);
    ug_comparison c;
    ug_compare(&base, &now, NULL, &c);
    const ug_cmp_row *r0 = ug_find_cmp(&c, a[0].id), *r1 = ug_find_cmp(&c, a[1].id);
    const ug_cmp_row *r2 = ug_find_cmp(&c, a[2].id);
    UG_ASSERT(r0 && r1 && r2);
    UG_EXPECT_MSG(r2->slack == UG_DEFAULT_NONDET_SLACK && r2->verdict != UG_V_WORSE &&
                  r2->m[UG_GM_DISTINCT] != UG_V_WORSE,
                  "measured-deterministic base, nondeterministic now: slack %g verdict %d distinct %d "
                  "(a lucky base run read as exact)", r2->slack, r2->verdict, r2->m[UG_GM_DISTINCT]);
    UG_EXPECT_MSG(c.inputs_changed == 0 && c.regressed == 0, "inputs changed %zu, regressed %zu: "
                  "a count of repeats read as other inputs", c.inputs_changed, c.regressed);
    UG_EXPECT_MSG(r0->slack == 1.0 && r0->verdict == UG_V_SAME, "det -> nondet: slack %g verdict %d",
                  r0->slack, r0->verdict);
    UG_EXPECT_MSG(r1->slack == UG_DEFAULT_NONDET_SLACK && r1->verdict == UG_V_WITHIN,
                  "nondet -> det: slack %g verdict %d (mean x3: within the base's x4)", r1->slack,
                  r1->verdict);
    ug_comparison_free(&c);
    /* the row that turned nondeterministic is judged exactly: one binary64 ulp more is worse */
    now.res.rows[0].ulp_max = nextafter(now.res.rows[0].ulp_max, INFINITY);
    ug_compare(&base, &now, NULL, &c);
    r0 = ug_find_cmp(&c, a[0].id);
    UG_EXPECT_MSG(c.regressed == 1 && r0 && r0->verdict == UG_V_WORSE,
                  "det -> nondet, ulp_max one binary64 ulp worse: regressed %zu", c.regressed);
    ug_comparison_free(&c);
    ug_baseline_free(&base);
    ug_baseline_free(&now);
}

UG_CASE(gate_rules, update_rules_and_round_trip)
{
    ug_row a[3] = {ug_test_row("serial", 100, true, 10), ug_test_row("kahan", 100, true, 1),
                   ug_test_row("gpu_atomic", 100, false, 20)};
    ug_baseline bl, run;
    memset(&bl, 0, sizeof bl);
    ug_test_side(&run, "gcc 12", a, 3);
    ug_update_opts o = {.from = "test"};
    ug_update_summary s;
    ug_buf diff = {0};
    ug_baseline_update(&bl, &run, &o, &diff, &s);
    UG_EXPECT(s.created && s.added == 3 && !s.refused && bl.res.count == 3);
    ug_baseline_free(&run);
    /* worse (serial), better (kahan), within slack (atomic) */
    ug_row b[3] = {a[0], a[1], a[2]};
    b[0].ulp_max = 11;
    b[1].ulp_max = 0.5;
    b[2].ulp_max = 30;
    b[2].ulp_mean = 7.5;
    ug_test_side(&run, "gcc 12", b, 3);
    ug_baseline_update(&bl, &run, &o, &diff, &s);
    UG_EXPECT_MSG(s.loosened == 1 && s.tightened == 1 && s.within_slack == 1 && s.refused, "%s",
                  ug_buf_str(&diff));
    UG_EXPECT(ug_results_find(&bl.res, a[0].id)->ulp_max == 10); /* refused: bl untouched */
    o.reason = "a reason";
    ug_baseline_update(&bl, &run, &o, &diff, &s);
    UG_EXPECT(!s.refused && s.loosened == 1 && s.tightened == 1 && s.within_slack == 1);
    const ug_row *atomic = ug_results_find(&bl.res, a[2].id),
                 *serial = ug_results_find(&bl.res, a[0].id);
    UG_ASSERT(atomic && serial);
    UG_EXPECT_MSG(atomic->ulp_max == 20, "within slack keeps the baseline's figure, got %g",
                  atomic->ulp_max);
    UG_EXPECT(serial->ulp_max == 11);
    size_t si = (size_t)(serial - bl.res.rows);
    UG_EXPECT(bl.x[si].n_loosened == 1 && strcmp(bl.x[si].loosened[0].reason, "a reason") == 0 &&
              strstr(bl.x[si].loosened[0].changes, "ulp_max 10 -> 11"));
    /* written and read back: the same files, byte for byte */
    char tdir[] = "/tmp/ug_gate_rules_XXXXXX", path[64];
    UG_ASSERT(mkdtemp(tdir) != NULL);
    snprintf(path, sizeof path, "%s/bl", tdir);
    char err[1400];
    UG_ASSERT_MSG(ug_baseline_write(&bl, path, err, sizeof err) == 0, "%s", err);
    ug_baseline back;
    UG_ASSERT_MSG(ug_baseline_load(path, 2.0, &back, err, sizeof err) == 0, "%s", err);
    ug_bl_files t1, t2;
    ug_baseline_files(&bl, &t1);
    ug_baseline_files(&back, &t2);
    bool same = back.is_baseline && t1.n == t2.n && ug_baseline_same_on_disk(&t1, path);
    for (size_t i = 0; same && i < t1.n; i++)
        same = strcmp(t1.f[i].name, t2.f[i].name) == 0 && t1.f[i].text.len == t2.f[i].text.len &&
               strcmp(ug_buf_str(&t1.f[i].text), ug_buf_str(&t2.f[i].text)) == 0;
    UG_EXPECT(same);
    ug_remove_tree(tdir);
    ug_bl_files_free(&t1);
    ug_bl_files_free(&t2);
    ug_baseline_free(&back);
    ug_baseline_free(&run);
    /* a run without the kahan row, pruned: a loosening */
    ug_row c[2] = {b[0], b[2]};
    ug_test_side(&run, "gcc 12", c, 2);
    o.reason = NULL;
    o.prune = true;
    ug_baseline_update(&bl, &run, &o, &diff, &s);
    UG_EXPECT(s.pruned == 1 && s.refused && bl.res.count == 3);
    ug_buf_free(&diff);
    ug_baseline_free(&run);
    ug_baseline_free(&bl);
}

UG_CASE(gate_rules, device_keys)
{
    static const struct {
        const char *gpu, *cc, *arch, *want;
    } cases[] = {
        {"NVIDIA H100 80GB HBM3", "9.0", "x86_64", "h100-sm90"},
        {"NVIDIA H200", "9.0", "x86_64", "h200-sm90"},
        {"NVIDIA GeForce RTX 4090", "8.9", "x86_64", "rtx4090-sm89"},
        {"NVIDIA A100-SXM4-80GB", "8.0", "aarch64", "a100-sm80"},
        {NULL, NULL, "x86_64", "cpu-x86_64"},
        {NULL, NULL, "aarch64", "cpu-aarch64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char key[64];
        ug_device_key_of(cases[i].gpu, cases[i].cc, cases[i].arch, key, sizeof key);
        UG_EXPECT_MSG(strcmp(key, cases[i].want) == 0, "%s: %s, want %s",
                      cases[i].gpu ? cases[i].gpu : "cpu", key, cases[i].want);
    }
    UG_EXPECT(ug_row_scope("cuda", "cublas_sgemm") & UG_SCOPE_VENDOR);
    UG_EXPECT(!(ug_row_scope("cuda", "reduce_kahan") & UG_SCOPE_VENDOR));
    UG_EXPECT(ug_row_scope("cpu", "kahan_f32") == (UG_SCOPE_ALL | UG_SCOPE_CPU));
}

/* A fingerprint with this CPU model ("" for none recorded) into side b's only fingerprint. */
static void ug_test_cpu(ug_baseline *b, const char *cpu)
{
    snprintf(b->fps[0].v[UG_FP_CPU], sizeof b->fps[0].v[0], "%s", cpu);
    ug_fingerprint_hash(&b->fps[0]);
}

/* Rows whose bits depend on the CPU model: exact between runs on the same model, status and
 * bound only between runs on others (or where a side did not record its model); every other
 * row exact whatever the CPU. */
UG_CASE(gate_rules, machine_dependent_rows)
{
    ug_row a[2] = {ug_test_row("rmsnorm_fast", 100, true, 2), ug_test_row("serial", 100, true, 10)};
    snprintf(a[0].machine, sizeof a[0].machine, "cpu-model");
    ug_row b[2] = {a[0], a[1]};
    b[0].ulp_max = 3; /* another CPU's rsqrt table: other bits */
    ug_baseline base, now;
    ug_test_side(&base, "gcc 12", a, 2);
    ug_test_side(&now, "gcc 12", b, 2);
    static const struct {
        const char *base_cpu, *now_cpu;
        bool gated;
    } cases[] = {
        {"GenuineIntel family 6, x86-64-v4", "GenuineIntel family 6, x86-64-v4", true},
        {"GenuineIntel family 6, x86-64-v4", "AuthenticAMD family 25, x86-64-v4", false},
        {"AuthenticAMD family 25, x86-64-v3", "AuthenticAMD family 25, x86-64-v4", false},
        {"", "AuthenticAMD family 25, x86-64-v4", false}, /* a baseline from before "cpu" */
        {"", "", false}, /* neither side knows its model: not known to be the same */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ug_test_cpu(&base, cases[i].base_cpu);
        ug_test_cpu(&now, cases[i].now_cpu);
        ug_comparison c;
        ug_compare(&base, &now, NULL, &c);
        const ug_cmp_row *r = ug_find_cmp(&c, a[0].id);
        UG_ASSERT(r);
        UG_EXPECT_MSG(c.regressed == (cases[i].gated ? 1u : 0u) && r->other_cpu == !cases[i].gated &&
                          c.other_cpu == (cases[i].gated ? 0u : 1u),
                      "'%s' -> '%s': %zu regressed, other_cpu %d", cases[i].base_cpu,
                      cases[i].now_cpu, c.regressed, r->other_cpu);
        UG_EXPECT(cases[i].gated ? r->m[UG_GM_ULP_MAX] == UG_V_WORSE
                                 : r->m[UG_GM_ULP_MAX] == UG_V_CHANGED);
        ug_comparison_free(&c);
    }
    /* on another CPU model: a status that fails is still a regression, and a deterministic row
     * with no machine dependence is still exact */
    now.res.rows[0].status = UG_ST_FAIL;
    now.res.rows[1].ulp_max = nextafter(10, 11);
    ug_comparison c;
    ug_compare(&base, &now, NULL, &c);
    const ug_cmp_row *r0 = ug_find_cmp(&c, a[0].id), *r1 = ug_find_cmp(&c, a[1].id);
    UG_ASSERT(r0 && r1);
    UG_EXPECT(r0->verdict == UG_V_WORSE && r0->status == UG_V_WORSE);
    UG_EXPECT(r1->verdict == UG_V_WORSE && !r1->other_cpu);
    ug_buf out = {0};
    ug_cmp_print_text(&c, &out, false);
    UG_EXPECT_MSG(strstr(ug_buf_str(&out), "[machine-dependent (cpu-model): measured on another "
                                           "CPU model, status and bound only]"),
                  "%s", ug_buf_str(&out));
    ug_buf_free(&out);
    ug_comparison_free(&c);
    ug_baseline_free(&now);
    /* baseline update: a run on another model keeps the stored figures; a baseline that never
     * recorded its model takes the run's */
    ug_update_opts o = {.from = "test"};
    ug_update_summary s;
    ug_buf diff = {0};
    ug_test_side(&now, "gcc 12", b, 2);
    ug_test_cpu(&base, "GenuineIntel family 6, x86-64-v4");
    ug_test_cpu(&now, "AuthenticAMD family 25, x86-64-v4");
    ug_baseline_update(&base, &now, &o, &diff, &s);
    UG_EXPECT_MSG(!s.refused && s.other_cpu == 1 && s.remeasured == 0, "%s", ug_buf_str(&diff));
    UG_EXPECT(ug_results_find(&base.res, a[0].id)->ulp_max == 2);
    ug_test_cpu(&base, "");
    ug_baseline_update(&base, &now, &o, &diff, &s);
    UG_EXPECT_MSG(!s.refused && s.remeasured == 1, "%s", ug_buf_str(&diff));
    UG_EXPECT(ug_results_find(&base.res, a[0].id)->ulp_max == 3);
    ug_buf_free(&diff);
    ug_baseline_free(&now);
    ug_baseline_free(&base);
}

UG_CASE(gate_rules, history_distributions)
{
    /* Student's t and the normal upper tails against their tables */
    UG_EXPECT(fabs(ug_t_upper(0, 5) - 0.5) < 1e-12);
    UG_EXPECT_MSG(fabs(ug_t_upper(2.015048, 5) - 0.05) < 1e-6, "%.9g", ug_t_upper(2.015048, 5));
    UG_EXPECT_MSG(fabs(ug_t_upper(12.7062, 1) - 0.025) < 1e-5, "%.9g", ug_t_upper(12.7062, 1));
    UG_EXPECT_MSG(fabs(ug_t_upper(-2.5280, 20) - 0.99) < 1e-5, "%.9g", ug_t_upper(-2.5280, 20));
    UG_EXPECT_MSG(fabs(ug_t_upper(5.9588, 6) - 0.0005) < 1e-6, "%.9g", ug_t_upper(5.9588, 6));
    UG_EXPECT(fabs(ug_normal_upper(1.959964) - 0.025) < 1e-7);
    UG_EXPECT(ug_t_upper(INFINITY, 3) == 0 && ug_t_upper(NAN, 3) == 0);
    double h[UG_HIST_MAX];
    size_t k = 0;
    for (int i = 0; i < UG_HIST_MAX + 3; i++) k = ug_hist_push(h, k, i);
    UG_EXPECT(k == UG_HIST_MAX && h[0] == 3 && h[UG_HIST_MAX - 1] == UG_HIST_MAX + 2);
}

/* A nondeterministic side: rows[i] with a history of k runs, ulp_mean spread +-10%. */
static void ug_test_history(ug_baseline *b, size_t k)
{
    for (size_t i = 0; i < b->res.count; i++) {
        b->x[i].n_hist = 0;
        for (size_t j = 0; j < k; j++)
            b->x[i].n_hist = ug_hist_push(b->x[i].hist, b->x[i].n_hist,
                                          b->res.rows[i].ulp_mean * (1 + 0.1 * sin(1.0 + (double)(i * 7 + j))));
    }
}

/* Nondeterministic rows judged by their history: one row far beyond it is worse, a whole kernel
 * a little worse is a kernel-wide drift, honest noise is within; a short history falls back to
 * the slack; baseline update keeps a lucky run out and an honest one in the history. */
UG_CASE(gate_rules, history_rule)
{
    enum { R = 20 };
    ug_row a[R];
    for (int i = 0; i < R; i++) a[i] = ug_test_row("gpu_atomic", 100 + (size_t)i, false, 80);
    ug_row b[R];
    memcpy(b, a, sizeof b);
    ug_baseline base, now;
    ug_test_side(&base, "gcc 12", a, R);
    ug_test_history(&base, 10);
    for (int i = 0; i < R; i++) b[i].ulp_mean = a[i].ulp_mean * (1 + 0.08 * cos((double)i));
    ug_test_side(&now, "gcc 12", b, R);
    ug_comparison c;
    ug_compare(&base, &now, NULL, &c);
    UG_EXPECT_MSG(c.regressed == 0 && c.drifted == 0 && c.hist_rows == R && c.n_drift == 1,
                  "honest noise: %zu regressed, %zu drifted, %zu rows by history", c.regressed,
                  c.drifted, c.hist_rows);
    ug_comparison_free(&c);
    /* one row x4: beyond its history (the old x4 slack would have let x3.9 through) */
    now.res.rows[3].ulp_mean = a[3].ulp_mean * 3.9;
    ug_compare(&base, &now, NULL, &c);
    const ug_cmp_row *r3 = ug_find_cmp(&c, a[3].id);
    UG_EXPECT_MSG(r3 && r3->hist && r3->verdict == UG_V_WORSE && c.regressed == 1,
                  "x3.9: p %g, alpha %g", r3 ? r3->hist_p : -1, c.alpha_row);
    ug_buf out = {0};
    ug_cmp_print_text(&c, &out, false);
    UG_EXPECT_MSG(strstr(ug_buf_str(&out), "nondeterministic: an honest run is this far beyond the "
                                           "10 runs of its history with probability"),
                  "%s", ug_buf_str(&out));
    ug_buf_free(&out);
    ug_comparison_free(&c);
    /* every row x1.25: no row alone beyond its history, the kernel as a whole is */
    for (int i = 0; i < R; i++) now.res.rows[i].ulp_mean = b[i].ulp_mean * 1.25;
    ug_compare(&base, &now, NULL, &c);
    UG_EXPECT_MSG(c.regressed == 0 && c.drifted == 1 && ug_cmp_fails(&c),
                  "x1.25 everywhere: %zu regressed, %zu drifted (Z %g p %g)", c.regressed,
                  c.drifted, c.n_drift ? c.drift[0].z : 0, c.n_drift ? c.drift[0].p : 0);
    ug_cmp_print_text(&c, &out, false);
    UG_EXPECT_MSG(strstr(ug_buf_str(&out), "REGRESSION (kernel-wide drift) gpu_atomic@default"),
                  "%s", ug_buf_str(&out));
    ug_buf_free(&out);
    ug_comparison_free(&c);
    /* a history of fewer than UG_HIST_MIN runs: the slack of one run's figure */
    ug_test_history(&base, UG_HIST_MIN - 1);
    ug_compare(&base, &now, NULL, &c);
    UG_EXPECT(c.hist_rows == 0 && c.regressed == 0 && c.within == R);
    ug_comparison_free(&c);

    /* baseline update: a lucky run (every row x0.5) leaves every row as it was */
    ug_test_history(&base, 10);
    for (int i = 0; i < R; i++) now.res.rows[i].ulp_mean = a[i].ulp_mean * 0.4;
    ug_update_opts o = {.from = "test"};
    ug_update_summary s;
    ug_buf diff = {0};
    ug_baseline_update(&base, &now, &o, &diff, &s);
    const ug_row *r0 = ug_results_find(&base.res, a[0].id);
    size_t i0 = r0 ? (size_t)(r0 - base.res.rows) : 0;
    UG_EXPECT_MSG(r0 && s.lucky == R && s.tightened == 0 && r0->ulp_mean == a[0].ulp_mean &&
                      base.x[i0].n_hist == 10,
                  "%s", ug_buf_str(&diff));
    /* an honest run joins the history, the figures stay */
    for (int i = 0; i < R; i++) now.res.rows[i].ulp_mean = b[i].ulp_mean;
    ug_baseline_update(&base, &now, &o, &diff, &s);
    r0 = ug_results_find(&base.res, a[0].id);
    i0 = r0 ? (size_t)(r0 - base.res.rows) : 0;
    UG_EXPECT_MSG(r0 && s.within_slack == R && r0->ulp_mean == a[0].ulp_mean &&
                      base.x[i0].n_hist == 11 && base.x[i0].hist[10] == b[0].ulp_mean,
                  "%s", ug_buf_str(&diff));
    /* far worse: a loosening, refused without a reason */
    now.res.rows[0].ulp_mean = a[0].ulp_mean * 10;
    ug_baseline_update(&base, &now, &o, &diff, &s);
    UG_EXPECT(s.refused && s.loosened == 1);
    ug_buf_free(&diff);
    ug_baseline_free(&now);
    ug_baseline_free(&base);
}
