/*
 * corpus_checks.c - corpus files and their header keys, the values reader's header lines, the
 * hand-made corpus checked against the simulated orders of the kernels (GPU ones included, so
 * that their expected-failure declarations are right before a GPU ever runs them), the terms a
 * failure names, and the hunt's shrink and determinism.
 * Expected values are derived by hand in the comments beside them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/measure/attrib.h"
#include "base/bits.h"
#include "base/sys.h"
#include "harness/inputs/corpus.h"
#include "harness/search/hunt.h"
#include "cases/order_sim.h"
#include "harness/run/ug.h"
#include "harness/inputs/values.h"

#define NOF(a) (sizeof(a) / sizeof((a)[0]))

/* Write text to a fresh temporary file; its path into path. */
static void ug_temp_file(ug_t *t, const char *text, char *path, size_t len)
{
    snprintf(path, len, "/tmp/ug_corpus_XXXXXX.txt");
    int fd = mkstemps(path, 4);
    UG_ASSERT_MSG(fd >= 0, "cannot create %s", path);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

UG_CASE(corpus_checks, values_headers)
{
    /* headers before the first record only; "##" and free-text comments are not headers; the
     * values are those of the oracle's format */
    char path[64];
    ug_temp_file(t,
                 "# op: sum\n"
                 "## note: a comment\n"
                 "# Free text: not a header (uppercase)\n"
                 "   #  why:   padded value  \n"
                 "1.5\n"
                 "# check: after the first record: a comment\n"
                 "0x1p-2 # trailing\n",
                 path, sizeof path);
    ug_values v;
    char err[512];
    int rc = ug_values_read(path, 0, &v, err, sizeof err);
    UG_ASSERT_MSG(rc == 0, "%s", err);
    UG_EXPECT_MSG(v.n_headers == 2 && !strcmp(v.headers[0].key, "op") &&
                      !strcmp(v.headers[0].value, "sum") && v.headers[0].line == 1 &&
                      !strcmp(v.headers[1].key, "why") && !strcmp(v.headers[1].value, "padded value") &&
                      v.headers[1].line == 4,
                  "%zu headers: '%s' = '%s' (line %zu)", v.n_headers,
                  v.n_headers ? v.headers[0].key : "", v.n_headers ? v.headers[0].value : "",
                  v.n_headers ? v.headers[0].line : 0);
    UG_EXPECT_MSG(v.n == 2 && v.x[0] == 1.5f && v.x[1] == 0.25f && v.arity == 1 &&
                      v.first_record_line == 5,
                  "n %zu arity %d first line %zu", v.n, v.arity, v.first_record_line);
    ug_values_free(&v);
    unlink(path);

    /* arity 0: as the first record, every record the same */
    ug_temp_file(t, "1 2\n3\n", path, sizeof path);
    rc = ug_values_read(path, 0, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 2 && strstr(err, ":2: expected 2 values as on line 1, found 1"), "%s", err);
    unlink(path);

    /* a header value longer than the limit is an error at its line */
    char big[UG_VALUES_HEADER_MAX + 64];
    snprintf(big, sizeof big, "# why: %0*d\n1\n", UG_VALUES_HEADER_MAX, 7);
    ug_temp_file(t, big, path, sizeof path);
    rc = ug_values_read(path, 0, &v, err, sizeof err);
    UG_EXPECT_MSG(rc == 2 && strstr(err, ":1: header 'why' has a value longer than 1023"), "%s", err);
    unlink(path);
}

UG_CASE(corpus_checks, header_keys)
{
    char path[64];
    ug_temp_file(t,
                 "# op: dot\n"
                 "# why: pairs\n"
                 "# source: hunt: ulpgate hunt --kernel dot_serial_f32 (seed 0x1)\n"
                 "# kernels: dot_* !dot_kahan*\n"
                 "# check: ulp_max 2.5 the reason\n"
                 "# check: correctly_rounded\n"
                 "# xfail: dot_serial_f32 absorbs\n"
                 "1 2\n3 4\n",
                 path, sizeof path);
    ug_corpus_file f;
    memset(&f, 0, sizeof f);
    int rc = ug_corpus_parse(path, &f);
    UG_ASSERT_MSG(rc == 0, "%s:%zu: %s", path, f.error_line, f.error);
    UG_EXPECT(f.op == UG_OP_DOT && f.n == 2 && f.x[1] == 3 && f.y[1] == 4);
    UG_EXPECT(!strcmp(f.why, "pairs") && !strncmp(f.source, "hunt: ulpgate hunt", 18));
    UG_EXPECT_MSG(f.n_checks == 2 && f.checks[0].metric == UG_M_ULP_MAX && f.checks[0].limit == 2.5 &&
                      !strcmp(f.checks[0].reason, "the reason") && f.checks[0].line == 5 &&
                      f.checks[1].is_cr,
                  "%d checks", f.n_checks);
    UG_EXPECT(f.n_xfails == 1 && !strcmp(f.xfails[0].glob, "dot_serial_f32") &&
              !strcmp(f.xfails[0].reason, "absorbs") && f.xfails[0].line == 7);
    UG_EXPECT_MSG(ug_corpus_selects(&f, ug_kernel_find("dot_serial_f32")) &&
                      !ug_corpus_selects(&f, ug_kernel_find("dot_kahan_f32")) &&
                      !ug_corpus_selects(&f, ug_kernel_find("serial_f32")),
                  "kernels: dot_* !dot_kahan* selects the wrong kernels");
    ug_corpus_file_free(&f);
    unlink(path);

    /* the defaults: op sum, every kernel, source hand-made, no checks */
    ug_temp_file(t, "# why: defaults\n1\n2\n", path, sizeof path);
    memset(&f, 0, sizeof f);
    UG_ASSERT(ug_corpus_parse(path, &f) == 0);
    UG_EXPECT(f.op == UG_OP_SUM && !strcmp(f.kernels, "*") && !strcmp(f.source, "hand-made") &&
              f.n_checks == 0 && f.n == 2);
    ug_corpus_file_free(&f);
    unlink(path);

    /* a GEMM: A then B, one value a line */
    ug_temp_file(t, "# op: gemm 1x2x3\n# why: shape\n1\n2\n3\n4\n5\n6\n7\n8\n9\n", path, sizeof path);
    memset(&f, 0, sizeof f);
    UG_ASSERT(ug_corpus_parse(path, &f) == 0);
    UG_EXPECT_MSG(f.m == 1 && f.n == 2 && f.k == 3 && f.x[2] == 3 && f.y[0] == 4 && f.y[5] == 9,
                  "gemm %zux%zux%zu", f.m, f.n, f.k);
    ug_corpus_file_free(&f);
    unlink(path);

    /* a LayerNorm: x w b a line, input 1 laid out [w | b] (ops/layernorm.c) */
    ug_temp_file(t, "# op: layernorm\n# why: bias\n1 1.25 0.5\n2 0.75 -0.25\n3 1 0x1p-7\n", path,
                 sizeof path);
    memset(&f, 0, sizeof f);
    UG_ASSERT(ug_corpus_parse(path, &f) == 0);
    UG_EXPECT_MSG(f.op == UG_OP_LAYERNORM && f.n == 3 && f.x[2] == 3 && f.y[0] == 1.25f &&
                      f.y[2] == 1 && f.y[3] == 0.5f && f.y[4] == -0.25f && f.y[5] == 0x1p-7f,
                  "layernorm n %zu: y = [%g %g %g | %g %g %g]", f.n, f.y[0], f.y[1], f.y[2],
                  f.y[3], f.y[4], f.y[5]);
    ug_corpus_file_free(&f);
    unlink(path);
}

UG_CASE(corpus_checks, malformed_files_name_their_line)
{
    static const struct {
        const char *text;
        size_t line;
        const char *why;
    } bad[] = {
        {"# why: x\n# chek: ulp_max 1\n1\n", 2, "unknown header key 'chek' (did you mean 'check'?"},
        {"1\n2\n", 1, "no '# why:' header"},
        {"# why: x\n# op: sum\n# op: dot\n1\n", 3, "header 'op' given twice"},
        {"# why: x\n# op: product\n1\n", 2, "op 'product' is not sum, dot"},
        {"# why: x\n# op: gemm 2x2\n1\n", 2, "op gemm needs its shape MxNxK"},
        {"# why: x\n# op: gemm 1x1x2\n1\n2\n3\n", 3, "needs M*K + K*N = 4 values"},
        {"# why: x\n# check: ulp_max\n1\n", 2, "check ulp_max needs a finite limit >= 0"},
        {"# why: x\n# check: ulp_max -1\n1\n", 2, "check ulp_max needs a finite limit >= 0"},
        {"# why: x\n# check: ulps 1\n1\n", 2, "check 'ulps' is not one of"},
        {"# why: x\n# xfail: serial_f32\n1\n", 2, "xfail needs a kernel (glob) and the reason"},
        {"# why: x\n# op: dot\n\n1\n", 4, "op dot takes 2 values a line, found 1"},
        {"# why: x\n# op: layernorm\n1 1\n", 3, "op layernorm takes 3 values a line, found 2"},
        {"# why: x\n1 2 3\n1 2\n", 3, "expected 3 values as on line 2, found 2"},
        {"# why: x\n1\nabc\n", 3, "'abc' is not a number"},
        {"# why: x\n", 1, "no values"},
        {"# why:\n1\n", 1, "header 'why' has no value"},
    };
    for (size_t i = 0; i < NOF(bad); i++) {
        char path[64];
        ug_temp_file(t, bad[i].text, path, sizeof path);
        ug_corpus_file f;
        memset(&f, 0, sizeof f);
        int rc = ug_corpus_parse(path, &f);
        UG_EXPECT_MSG(rc == -1 && f.bad && f.error_line == bad[i].line && strstr(f.error, bad[i].why),
                      "file %zu: rc %d, line %zu (want %zu), '%s' (want '%s')", i, rc, f.error_line,
                      bad[i].line, f.error, bad[i].why);
        ug_corpus_file_free(&f);
        unlink(path);
    }
}

UG_CASE(corpus_checks, the_head_is_read_alone)
{
    /* A unit reads its file in steps (corpus.h): the head stops at the first value, so a
     * malformed line below it (a control byte: values.c refuses binary input at once) is not
     * seen by the head, is seen by the scan or the values, and names its line; the scan
     * counts the records (the count the memory check sees) and allocates nothing. */
    char path[64];
    ug_temp_file(t, "# why: a good head\n# kernels: serial_f32\n## note\n1\n2\n3\n\001\n", path,
                 sizeof path);
    ug_corpus_file *f = ug_xcalloc(1, sizeof *f);
    int rc = ug_corpus_parse_head(path, f);
    UG_EXPECT_MSG(rc == 0 && f->first_record_line == 4 && !strcmp(f->kernels, "serial_f32") &&
                      !f->x && f->records == 0,
                  "head: rc %d, first value line %zu, %s", rc, f->first_record_line, f->error);
    rc = ug_corpus_scan(f);
    UG_EXPECT_MSG(rc == 0 && f->records == 4 && f->n == 4 && !f->x,
                  "scan: rc %d, %zu records, %s", rc, f->records, f->error);
    rc = ug_corpus_read_values(f);
    UG_EXPECT_MSG(rc == -1 && f->error_line == 7 && strstr(f->error, "control byte 0x01") && !f->x,
                  "values: rc %d, line %zu: %s", rc, f->error_line, f->error);
    /* parsing again starts afresh: the error is gone, a valid file's values are read */
    unlink(path);
    ug_temp_file(t, "# why: valid\n1\n2\n", path, sizeof path);
    rc = ug_corpus_parse(path, f);
    UG_EXPECT_MSG(rc == 0 && !f->bad && f->n == 2 && f->x && f->x[1] == 2, "reparse: rc %d, %s",
                  rc, f->error);
    ug_corpus_file_free(f);
    free(f);
    unlink(path);
}

/* ---- the hand-made corpus against the simulated orders --------------------------------------- */

/* The figures of one simulated output against the file's checks (and the implicit bound check):
 * whether any fails, and which, into what. */
static bool ug_sim_fails(const ug_corpus_file *f, const char *kernel, float got, unsigned depth,
                         char *what, size_t len)
{
    ug_exact e;
    ug_exact_sum_f32(f->x, f->n, &e);
    ug_error er = ug_error_of(&e, got);
    double u = 0x1p-24, D = depth, bound;
    if (strstr(kernel, "f64acc")) /* wide_acc: u|s| + (1+u) gamma64_D S */
        bound = u * fabs(e.hi) + (1 + u) * (D * 0x1p-53 / (1 - D * 0x1p-53)) * e.sum_abs;
    else /* tree: gamma_D S */
        bound = D * u / (1 - D * u) * e.sum_abs;
    double ratio = e.cls != UG_X_FINITE ? (er.abs == 0 ? 0 : INFINITY)
                   : er.abs == 0        ? 0
                   : bound > 0          ? er.abs / bound
                                        : INFINITY;
    bool own_ratio = false, fails = false;
    what[0] = 0;
    for (int i = 0; i < f->n_checks; i++) {
        const ug_corpus_check *c = &f->checks[i];
        double v = c->metric == UG_M_ULP_MAX || c->metric == UG_M_ULP_MEAN ? er.ulp
                   : c->metric == UG_M_REL_MAX || c->metric == UG_M_REL_MEAN ? er.rel
                   : c->metric == UG_M_ABS_MAX ? er.abs : ratio;
        bool bad = c->is_cr ? !ug_same_f32(got, e.rn) : !(v <= c->limit);
        own_ratio |= !c->is_cr && c->metric == UG_M_RATIO_MAX;
        if (bad) snprintf(what + strlen(what), len - strlen(what), "%s fails; ", c->text);
        fails |= bad;
    }
    if (!own_ratio && !(ratio <= 1)) {
        snprintf(what + strlen(what), len - strlen(what), "bound ratio %g > 1; ", ratio);
        fails = true;
    }
    return fails;
}

UG_CASE(corpus_checks, hand_made_xfails_match_the_simulated_orders)
{
    /* Every sum kernel with a simulated order (cases/order_sim.c: the CPU kernels, and the
     * deterministic GPU trees, which gpu_order checks bit for bit on the GPU) on every sum file
     * of the corpus: a kernel the file selects fails its checks exactly when the file declares
     * it an expected failure.  So the GPU lines are right before a GPU runs them. */
    static const char *const names[] = {
        "serial_f32", "serial_f64acc", "sorted_abs_serial", "sqrt_blocks", "pairwise_halves",
        "fold", "sorted_fold", "pairwise_block8", "reduce_interleaved", "reduce_sequential",
        "reduce_warp_shuffle", "reduce_fold", "reduce_bitonic_fold", "reduce_warp_shuffle_grid",
        "reduce_f64acc"};
    ug_corpus_entry *files;
    size_t count;
    char err[256];
    UG_ASSERT_MSG(ug_corpus_discover(NULL, 0, &files, &count, err, sizeof err) == 0, "%s", err);
    UG_EXPECT_MSG(count >= 12, "only %zu corpus files in cases/corpus", count);
    int compared = 0;
    ug_corpus_file *f = ug_xcalloc(1, sizeof *f);
    for (size_t i = 0; i < count; i++) {
        UG_EXPECT_MSG(!files[i].error, "%s: %s", files[i].path, files[i].error);
        snprintf(f->name, sizeof f->name, "%s", files[i].name);
        if (files[i].error) continue;
        int rc = ug_corpus_parse(files[i].path, f);
        UG_EXPECT_MSG(rc == 0, "%s:%zu: %s", f->path, f->error_line, f->error);
        if (rc != 0 || f->op != UG_OP_SUM) continue;
        for (size_t j = 0; j < NOF(names); j++) {
            ug_kernel k;
            memset(&k, 0, sizeof k);
            k.name = names[j];
            k.op = UG_OP_SUM;
            k.variant = "default";
            snprintf(k.id, sizeof k.id, "%s@default", names[j]);
            if (!ug_corpus_selects(f, &k)) continue;
            /* partial sums beyond binary32's range under a finite RN(s): out of range, a skip for
             * a binary32 accumulator (harness/measure/measure_fmt.c), no check runs */
            ug_exact ex;
            ug_exact_sum_f32(f->x, f->n, &ex);
            if (!strstr(names[j], "f64acc") && ex.cls == UG_X_FINITE && isfinite(ex.rn) &&
                ex.sum_abs > 0x1.fffffep+127)
                continue;
            float got;
            unsigned depth;
            UG_ASSERT(ug_sim_sum(names[j], f->x, f->n, &got, &depth));
            char what[256];
            bool fails = ug_sim_fails(f, names[j], got, depth, what, sizeof what);
            const char *declared = NULL;
            for (int x = 0; x < f->n_xfails && !declared; x++)
                if (ug_kernel_matches(&k, f->xfails[x].glob)) declared = f->xfails[x].reason;
            UG_EXPECT_MSG(fails == (declared != NULL),
                          "%s, %s (simulated: %a): %s%s", f->name, names[j], (double)got,
                          fails ? what : "every check holds",
                          declared ? ", but the file declares it an expected failure"
                                   : ", and the file declares no expected failure");
            compared++;
        }
    }
    UG_EXPECT_MSG(compared >= 100, "only %d file x kernel pairs compared", compared);
    ug_corpus_file_free(f);
    free(f);
    for (size_t i = 0; i < count; i++) free(files[i].path), free(files[i].error);
    free(files);
}

/* ---- the terms that matter ------------------------------------------------------------------ */

UG_CASE(corpus_checks, attribution_names_the_absorbed_term)
{
    /* The float-index post: serial_f32 computes fl(fl(100998 + 2.338) - 101000) = 0.3359375
     * for the exact 0.33800006: abs error 0.00206, all of it the rounding of 2.338 (x[1]).
     * Without x[1] the sum 100998 - 101000 = -2 is exact (error 0: change 0.00206); without
     * x[0] or x[2] the rounding of 2.338 against the other large term stays (change ~0).  In
     * index order the largest rounding is the one adding x[1], and the first partial sum off
     * its exact prefix is the last one (fl(100998 + 2.338) is its prefix correctly rounded). */
    float x[3] = {100998.0f, 2.338f, -101000.0f};
    ug_input *in = ug_input_from_data(t, UG_OP_SUM, "float_index", x, NULL, 3);
    ug_result *r = ug_measure(t, ug_kernel_find("serial_f32"), in);
    UG_EXPECT_BOUND_RATIO_MAX(r, 1.0);
    ug_buf b = {0};
    ug_attrib_lines(&b, r, &r->worst_ulp);
    const char *s = ug_buf_str(&b);
    const char *first = strstr(s, "\n#     ");
    UG_EXPECT_MSG(first && !strncmp(first, "\n#     x[1] = 0x1.2b4396p+1 (2.33800006): without it 0 ulp", 58),
                  "the first term named is not x[1]:\n%s", s);
    UG_EXPECT_MSG(strstr(s, "3 of 3 tried") != NULL, "not every term tried:\n%s", s);
    UG_EXPECT_MSG(strstr(s, "the first partial sum off its exact prefix is after x[2]") &&
                      strstr(s, "the largest rounding, 0.00206, adding x[1]"),
                  "serial view:\n%s", s);
    ug_buf_free(&b);
}

/* ---- shrinking --------------------------------------------------------------------------------- */

UG_CASE(corpus_checks, shrink_keeps_the_breach_and_is_one_minimal)
{
    /* 1e8 + 1 - 1e8 hidden among other terms: serial_f32 loses the 1 (and more), many ulps off.
     * The shrunk input must still breach the 1-ulp check, be small, and be 1-minimal: removing
     * any one element loses the breach. */
    static const float v[] = {3, 1e8f, 0.5f, 1, 7, -1e8f, 2.25f, 11, 0x1p-9f, 5};
    ug_hunt_problem p = {ug_kernel_find("serial_f32"), UG_OP_SUM, 10, 0, 0, UG_HUNT_BOUND};
    UG_ASSERT(p.k != NULL);
    float *x = malloc(sizeof v), *y = NULL;
    memcpy(x, v, sizeof v);
    ug_hunt_breach br = {false, 1.0};
    uint64_t evals = 0;
    ug_hunt_score final;
    UG_ASSERT(ug_hunt_shrink(&p, &x, &y, &br, &evals, &final));
    UG_EXPECT_MSG(ug_hunt_breaches(&br, &final) && p.n <= 4, "%zu values left, %g ulp", p.n, final.ulp);
    for (size_t i = 0; i < p.n; i++) { /* 1-minimal */
        float w[16];
        size_t m = 0;
        for (size_t j = 0; j < p.n; j++)
            if (j != i) w[m++] = x[j];
        ug_hunt_problem q = p;
        q.n = m;
        ug_hunt_score s;
        UG_ASSERT(ug_hunt_eval(&q, w, NULL, &s, NULL, 0) == 0);
        UG_EXPECT_MSG(!ug_hunt_breaches(&br, &s), "still breaches without element %zu of %zu", i, p.n);
    }
    /* simpler values: every value left is an integer or has few significant bits */
    for (size_t i = 0; i < p.n; i++)
        UG_EXPECT_MSG(x[i] == nearbyintf(x[i]) || fabsf(x[i]) == ldexpf(1, ilogbf(x[i])),
                      "value %a was not simplified", (double)x[i]);
    ug_note(t, "shrunk to %zu values in %llu evaluations: %g ulp", p.n, (unsigned long long)evals, final.ulp);
    free(x);
}

UG_CASE(corpus_checks, hunt_is_deterministic_and_beats_random)
{
    /* The same seed and evaluation budget: the same best input, bit for bit; and on serial_f32
     * the search's best bound ratio is at least 10x random sampling's at the same budget. */
    ug_hunt_problem p = {ug_kernel_find("serial_f32"), UG_OP_SUM, 256, 0, 0, UG_HUNT_BOUND};
    ug_hunt_budget b = {8000, 0};
    ug_hunt_result r1, r2, rnd;
    ug_hunt_run(&p, 0x5eed, &b, false, NULL, NULL, &r1);
    ug_hunt_run(&p, 0x5eed, &b, false, NULL, NULL, &r2);
    ug_hunt_run(&p, 0x5eed, &b, true, NULL, NULL, &rnd);
    UG_EXPECT(r1.evals == 8000 && rnd.evals == 8000);
    UG_EXPECT_MSG(r1.best.objective == r2.best.objective && r1.found_at == r2.found_at &&
                      !memcmp(r1.x, r2.x, 256 * sizeof(float)),
                  "two runs: %g at %llu, %g at %llu", r1.best.objective,
                  (unsigned long long)r1.found_at, r2.best.objective, (unsigned long long)r2.found_at);
    UG_EXPECT_MSG(r1.best.ratio >= 10 * rnd.best.ratio, "search %g, random %g", r1.best.ratio,
                  rnd.best.ratio);
    UG_EXPECT_MSG(r1.best.ratio <= 1, "bound ratio %g > 1: serial_f32 breaks its a-priori bound?",
                  r1.best.ratio);
    ug_note(t, "search %.4g, random %.4g (bound ratio, 8000 evaluations each)", r1.best.ratio,
            rnd.best.ratio);
    ug_hunt_result_free(&r1);
    ug_hunt_result_free(&r2);
    ug_hunt_result_free(&rnd);
}
