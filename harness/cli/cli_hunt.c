/*
 * cli_hunt.c - `ulpgate hunt`: search for an input that breaks a kernel, shrink it, write it as a
 * corpus file (hunt.h), and with --compare-random show what plain random sampling finds with the
 * same budget.
 *
 *   ulpgate hunt --kernel NAME [--op sum|dot|gemm] --n N [--objective bound|ulp]
 *                [--budget SECONDS | --evals N] [--seed S] [--out FILE] [--compare-random]
 *                [--check-ulp L] [--threads N] [--causal]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/par.h"
#include "base/parse.h"
#include "base/sys.h"
#include "harness/cli/cli.h"
#include "harness/run/context.h"
#include "harness/run/guard.h"
#include "harness/inputs/corpus.h"
#include "harness/search/hunt.h"

static const char ug_hunt_usage[] =
    "usage: ulpgate hunt --kernel NAME [--op sum|dot|gemm] --n N [--objective bound|ulp]\n"
    "                    [--budget SECONDS | --evals N] [--seed S] [--out FILE]\n"
    "                    [--compare-random] [--check-ulp L] [--threads N] [--causal]\n"
    "  --kernel NAME     the kernel (name, or name@variant; see 'ulpgate list')\n"
    "  --op OP           its operation (default: the kernel's)\n"
    "  --n N             length of the sum or dot; GEMM: N (square) or MxNxK;\n"
    "                    attention: LxSxdxdv (no shrink or corpus file: its best is printed)\n"
    "  --objective O     bound (default): error / the kernel's a-priori bound; ulp: ULP error\n"
    "  --budget SECONDS  time for the search (default 10; the same again for --compare-random)\n"
    "  --evals N         a budget in evaluations instead: the run is then deterministic\n"
    "  --seed S          seed (decimal or 0x hex; default 0x5eed)\n"
    "  --out FILE        the corpus file to write (default hunt-KERNEL-OP-nN-SEED.txt)\n"
    "  --compare-random  also run plain random sampling with the same budget; print both bests\n"
    "  --check-ulp L     the ULP check the shrunk input must still breach (default 1)\n"
    "  --threads N       threads for the evaluations (default: all cores)\n"
    "  --causal          attention: the causal mask (bottom-right when L < S)\n";

typedef struct {
    const ug_kernel *k;
    ug_hunt_problem p;
    ug_hunt_budget budget;
    uint64_t seed;
    const char *out;
    bool compare;
    double check_ulp;
    bool progress;
    double last_progress;
} ug_hunt_cli;

static int ug_hunt_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ulpgate hunt: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", ug_hunt_usage);
    return 2;
}

/* One option with its value; 0, or 2 after a usage error. */
static int ug_hunt_option(ug_hunt_cli *o, const char *a, const char *v, const char **kernel,
                          const char **op, const char **n)
{
    long l;
    double d;
    if (!strcmp(a, "--kernel")) *kernel = v;
    else if (!strcmp(a, "--op")) *op = v;
    else if (!strcmp(a, "--n")) *n = v;
    else if (!strcmp(a, "--out")) o->out = v;
    else if (!strcmp(a, "--objective")) {
        if (strcmp(v, "bound") && strcmp(v, "ulp"))
            return ug_hunt_usage_error("--objective: '%s' is not bound or ulp", v);
        o->p.objective = !strcmp(v, "ulp") ? UG_HUNT_ULP : UG_HUNT_BOUND;
    } else if (!strcmp(a, "--budget")) {
        if (!ug_parse_double(v, &d) || !(d > 0) || d > 86400)
            return ug_hunt_usage_error("--budget: '%s' is not seconds in (0, 86400]", v);
        o->budget.seconds = d;
    } else if (!strcmp(a, "--evals")) {
        if (!ug_parse_u64(v, &o->budget.evals) || o->budget.evals == 0)
            return ug_hunt_usage_error("--evals: '%s' is not a count >= 1", v);
    } else if (!strcmp(a, "--seed")) {
        if (!ug_parse_u64(v, &o->seed))
            return ug_hunt_usage_error("--seed: '%s' is not a number (decimal or 0x hex)", v);
    } else if (!strcmp(a, "--check-ulp")) {
        if (!ug_parse_double(v, &o->check_ulp) || !(o->check_ulp >= 0) || !isfinite(o->check_ulp))
            return ug_hunt_usage_error("--check-ulp: '%s' is not a finite limit >= 0", v);
    } else if (!strcmp(a, "--threads")) {
        if (!ug_parse_int(v, 1, 4096, &l))
            return ug_hunt_usage_error("--threads: '%s' is not a count >= 1", v);
        ug_par_set_threads((int)l);
    }
    return 0;
}

static int ug_hunt_parse(int argc, char **argv, ug_hunt_cli *o, bool *done)
{
    const char *kernel = NULL, *op = NULL, *n = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(ug_hunt_usage, stdout);
            *done = true;
            return 0;
        }
        if (!strcmp(a, "--compare-random")) {
            o->compare = true;
            continue;
        }
        if (!strcmp(a, "--causal")) { /* attention's mask (bottom-right), checked below */
            o->p.opts.flags |= UG_OPT_CAUSAL;
            continue;
        }
        static const char *const valued[] = {"--kernel", "--op", "--n", "--objective", "--budget",
                                             "--evals", "--seed", "--out", "--check-ulp",
                                             "--threads"};
        bool known = false;
        for (size_t j = 0; j < sizeof valued / sizeof valued[0]; j++)
            known |= !strcmp(a, valued[j]);
        if (!known) return ug_hunt_usage_error("unknown option '%s'", a);
        if (!v) return ug_hunt_usage_error("%s needs a value", a);
        i++;
        int rc = ug_hunt_option(o, a, v, &kernel, &op, &n);
        if (rc) return rc;
    }
    if (!kernel) return ug_hunt_usage_error("%s", "--kernel is required");
    if (!n) return ug_hunt_usage_error("%s", "--n is required");
    if (!(o->k = ug_kernel_find(kernel))) {
        char near[64] = "";
        size_t best = (size_t)-1;
        for (size_t i = 0; i < ug_kernel_count(); i++) {
            size_t dd = ug_edit_distance(kernel, ug_kernel_at(i)->name);
            if (dd < best) best = dd, snprintf(near, sizeof near, "%s", ug_kernel_at(i)->id);
        }
        fprintf(stderr, "ulpgate hunt: --kernel '%s' is not a kernel; nearest: %s (see 'ulpgate "
                        "list')\n", kernel, near);
        return 2;
    }
    o->p.k = o->k;
    o->p.op = o->k->op;
    const ug_op_desc *d = ug_op_get(o->k->op);
    if (!d->exact && !(d->exact_in && d->bound_at)) {
        fprintf(stderr, "ulpgate hunt: %s: operation %s has no exact results the hunt can "
                        "compute\n", o->k->id, d->shape->name);
        return 2;
    }
    if ((o->p.opts.flags & UG_OPT_CAUSAL) && !d->exact_in) {
        fprintf(stderr, "ulpgate hunt: --causal: %s computes %s, which takes no mask\n",
                o->k->id, d->shape->name);
        return 2;
    }
    if (op && strcmp(op, d->shape->name) != 0) {
        char names[256], msg[400];
        if (!ug_op_find(op)) {
            snprintf(msg, sizeof msg, "--op: '%s' is not %s", op, ug_op_names(names, sizeof names));
            return ug_hunt_usage_error("%s", msg);
        }
        fprintf(stderr, "ulpgate hunt: --op %s: %s computes %s\n", op, o->k->id,
                ug_op_name(o->k->op));
        return 2;
    }
    /* the sizes the operation's hunt takes (a vector's length up to 2^24; a GEMM's N or
     * MxNxK, each up to 4096) */
    ug_shape shape;
    char why[160], msg[400], max[32], dims[64];
    size_t top = d->hunt_max_size ? d->hunt_max_size : (size_t)1 << 24;
    if (top >= 65536 && (top & (top - 1)) == 0)
        snprintf(max, sizeof max, "2^%d", __builtin_ctzll((unsigned long long)top));
    else
        snprintf(max, sizeof max, "%zu", top);
    if (ug_op_parse_shape(d, n, top, &shape, why, sizeof why)) {
        if (ug_opshape_ndims(d->shape) > 1)
            snprintf(msg, sizeof msg, "--n: '%s' is not N or %s (each 1 .. %s)", n,
                     ug_opshape_dims_text(d->shape, dims, sizeof dims), max);
        else
            snprintf(msg, sizeof msg, "--n: '%s' is not a length in 1 .. %s", n, max);
        return ug_hunt_usage_error("%s", msg);
    }
    ug_hunt_set_shape(&o->p, &shape);
    if (o->budget.seconds > 0 && o->budget.evals)
        return ug_hunt_usage_error("%s", "--budget and --evals: give one");
    if (!o->budget.evals && !(o->budget.seconds > 0)) o->budget.seconds = 10;
    if (o->k->backend == UG_CUDA && !ug_gpu_available()) {
        fprintf(stderr, "ulpgate hunt: %s needs a CUDA device: %s\n", o->k->id, ug_gpu_why());
        return 2;
    }
    if (o->p.objective == UG_HUNT_BOUND && o->k->bound == UG_BOUND_NONE) {
        fprintf(stderr, "ulpgate hunt: %s declares no a-priori bound: use --objective ulp\n",
                o->k->id);
        return 2;
    }
    return 0;
}

static void ug_hunt_progress(void *ctx, const char *phase, uint64_t evals, double seconds,
                             const ug_hunt_score *best)
{
    ug_hunt_cli *o = ctx;
    if (!o->progress || seconds - o->last_progress < 0.2) return;
    o->last_progress = seconds;
    fprintf(stderr, "\r\033[K[%s] %.1f s  %llu evaluations (%.0f/s)  best bound ratio %.4g "
                    "(ulp %.4g)",
            phase, seconds, (unsigned long long)evals,
            seconds > 0 ? (double)evals / seconds : 0, best->ratio, best->ulp);
}

static void ug_hunt_summary(const char *phase, const ug_hunt_result *r)
{
    printf("%-8s best bound ratio %.4g (ulp %.4g), %llu evaluations in %.1f s (%.0f/s)", phase,
           r->best.ratio, r->best.ulp, (unsigned long long)r->evals, r->seconds,
           r->seconds > 0 ? (double)r->evals / r->seconds : 0);
    if (strcmp(phase, "search") == 0 && r->best.valid)
        printf(", found by %s at evaluation %llu", ug_hunt_move_name(r->found_by),
               (unsigned long long)r->found_at);
    printf("\n");
    if (r->unscored_max)
        printf("         up to %zu output%s of an evaluation not scored: %s exact value is not "
               "finite (outside the analysed domain: a row with no key under the mask)\n",
               r->unscored_max, r->unscored_max == 1 ? "" : "s", r->unscored_max == 1 ? "its" : "their");
}

/* A breach found under several threads, checked on this thread alone: a kernel that is not
 * reentrant (a static scratch, a call counter) scores the input otherwise there, twice alike.
 * Returns true (and says so) when it is not reentrant. */
/* A kernel that returned an error on an input of the search (or of the random sampling): the
 * hunt ends naming it and the first such input's error, as `run` fails the point (never read as
 * "no breach": its score would be -1, a largest error "seen" of nothing).  True when it did. */
static bool ug_hunt_kernel_failed(const ug_hunt_problem *p, const char *phase,
                                  const ug_hunt_result *r)
{
    if (!r->failed) return false;
    ug_hunt_score s;
    char err[700] = "";
    if (ug_hunt_eval(p, r->fail_x, r->fail_y, &s, err, sizeof err) == 0)
        snprintf(err, sizeof err, "%s: no error when that input was run again", p->k->id);
    printf("kernel   failed: %s returned an error on %llu of %llu %s evaluations; the first "
           "input's: %s; nothing written (a kernel's error fails a run's point)\n", p->k->id,
           (unsigned long long)r->failed, (unsigned long long)r->evals, phase, err);
    return true;
}

static bool ug_hunt_not_reentrant(const ug_hunt_problem *p, const ug_hunt_result *r)
{
    int threads = ug_par_threads();
    if (!r->best.valid || threads < 2 || p->k->nondeterministic || p->k->backend != UG_CPU)
        return false;
    ug_hunt_score a, b;
    if (ug_hunt_eval(p, r->x, r->y, &a, NULL, 0) != 0 || ug_hunt_eval(p, r->x, r->y, &b, NULL, 0) != 0)
        return false;
    bool alike = a.ratio == b.ratio && a.ulp == b.ulp;
    if (!alike || (a.ratio == r->best.ratio && a.ulp == r->best.ulp)) return false;
    printf("not reentrant: %s scored its best input bound ratio %.17g, %.17g ulp when called from "
           "%d threads at once, and bound ratio %.17g, %.17g ulp twice on one thread: it is not "
           "reentrant (state or scratch shared by calls; the public header's contract), so the "
           "threads' result is no breach of its arithmetic; nothing written (--threads 1 hunts "
           "it)\n", p->k->id, r->best.ratio, r->best.ulp, threads, a.ratio, a.ulp);
    return true;
}

/* Read the written file back as the corpus would, and measure the kernel on it again. */
static int ug_hunt_reproduce(const char *path, const ug_hunt_problem *p, const ug_hunt_breach *b)
{
    ug_corpus_file f;
    memset(&f, 0, sizeof f);
    if (ug_corpus_parse(path, &f) != 0) {
        printf("reread   %s:%zu: %s\n", path, f.error_line, f.error);
        return 1;
    }
    ug_hunt_problem q = *p;
    ug_shape shape = ug_corpus_shape(&f);
    ug_hunt_set_shape(&q, &shape);
    ug_hunt_score s;
    char err[600];
    int rc = ug_hunt_eval(&q, f.x, f.y, &s, err, sizeof err);
    bool again = rc == 0 && ug_hunt_breaches(b, &s);
    if (rc != 0) printf("reread   %s: %s\n", path, err);
    else printf("reread   %s: %s %s: %.4g ulp, bound ratio %.4g\n", path, q.k->id,
                again ? "reproduces the breach" : "DOES NOT reproduce the breach", s.ulp, s.ratio);
    ug_corpus_file_free(&f);
    return again ? 0 : 1;
}

/* Whether the corpus file can be written where it will go (path, or the working directory for
 * the default name), checked before the search: a hunt of an hour must not end by losing its
 * input to a bad --out.  Into err when not.  The file itself is not created (a hunt that finds
 * nothing writes nothing). */
static bool ug_hunt_out_ok(const char *path, char *err, size_t len)
{
    struct stat st;
    char dir[1100];
    if (path && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, len, "--out %s: a directory, not a file", path);
            return false;
        }
        if (access(path, W_OK) != 0) {
            snprintf(err, len, "--out %s: cannot write it: %s", path, strerror(errno));
            return false;
        }
        return true;
    }
    snprintf(dir, sizeof dir, "%s", path ? path : "./x");
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, len, "%s%s: cannot write into %s: %s", path ? "--out " : "the corpus file",
                 path ? path : "", dir, strerror(errno));
        return false;
    }
    return true;
}

int ug_cmd_hunt(int argc, char **argv)
{
    ug_hunt_cli o;
    memset(&o, 0, sizeof o);
    o.seed = 0x5eed;
    o.check_ulp = 1;
    o.progress = isatty(2);
    bool done = false;
    int rc = ug_hunt_parse(argc, argv, &o, &done);
    if (rc || done) return rc;
    char out_err[1300];
    if (ug_hunt_writable(&o.p) && !ug_hunt_out_ok(o.out, out_err, sizeof out_err)) {
        fprintf(stderr, "ulpgate hunt: %s\n", out_err);
        return 2;
    }
    /* the command line, for the file's provenance */
    char command[900] = "ulpgate";
    for (int i = 0; i < argc; i++)
        snprintf(command + strlen(command), sizeof command - strlen(command), " %s", argv[i]);
    char shape[64];
    const ug_op_desc *d = ug_hunt_op(&o.p);
    ug_shape sh = ug_hunt_shape(&o.p);
    ug_op_shape_text(d, &sh, false, shape, sizeof shape);
    printf("hunt     %s, %s n=%s, objective %s, seed 0x%llx, budget ", o.k->id, ug_op_name(o.p.op),
           shape, o.p.objective == UG_HUNT_ULP ? "ulp error" : "bound ratio",
           (unsigned long long)o.seed);
    if (o.budget.evals) printf("%llu evaluations\n", (unsigned long long)o.budget.evals);
    else printf("%g s\n", o.budget.seconds);

    /* a kernel's crash, abort, exit() or hang ends the hunt naming it (exit 3, or 124): never
     * read as "breach" (0) or "none" (1) */
    fflush(stdout);
    if (ug_guard_contain("hunt", ug_guard_call_limit()) != 0) return 2;
    ug_hunt_result search, random;
    ug_hunt_run(&o.p, o.seed, &o.budget, false, ug_hunt_progress, &o, &search);
    if (o.progress) fprintf(stderr, "\r\033[K");
    ug_hunt_summary("search", &search);
    if (ug_hunt_kernel_failed(&o.p, "search", &search) || ug_hunt_not_reentrant(&o.p, &search)) {
        ug_hunt_result_free(&search);
        return UG_EXIT_KERNEL;
    }
    if (o.compare) {
        o.last_progress = 0;
        ug_hunt_run(&o.p, o.seed, &o.budget, true, ug_hunt_progress, &o, &random);
        if (o.progress) fprintf(stderr, "\r\033[K");
        ug_hunt_summary("random", &random);
        if (ug_hunt_kernel_failed(&o.p, "random", &random)) {
            ug_hunt_result_free(&random);
            ug_hunt_result_free(&search);
            return UG_EXIT_KERNEL;
        }
        double a = search.best.objective, b = random.best.objective;
        printf("search / random: %.4gx (best %s %.4g vs %.4g)\n", b > 0 ? a / b : INFINITY,
               o.p.objective == UG_HUNT_ULP ? "ulp error" : "bound ratio", a, b);
        ug_hunt_result_free(&random);
    }

    /* what to shrink: a bound breach (a kernel bug) first, else the largest error past the
     * ULP check, from the best input or the largest ULP error seen */
    ug_hunt_breach br = {search.best.valid && search.best.ratio > 1, o.check_ulp};
    if (!ug_hunt_writable(&o.p)) { /* attention: no corpus file holds Q, K and V */
        bool found = search.best.valid && (br.bound || ug_hunt_breaches(&br, &search.best));
        printf("%s   %s: bound ratio %.4g, %.4g ulp%s; no shrink, no corpus file (a corpus file "
               "holds two inputs at most; %s has %d)\n", found ? "breach" : "none  ", o.k->id,
               search.best.ratio, search.best.ulp, br.bound ? " (> 1: outside the kernel's "
               "a-priori bound)" : "", ug_op_name(o.p.op), d->shape->arity);
        ug_hunt_result_free(&search);
        return found ? 0 : 1;
    }
    float *x = search.x, *y = search.y;
    ug_hunt_score start = search.best;
    if (!br.bound && !ug_hunt_breaches(&br, &search.best))
        x = search.ulp_x, y = search.ulp_y, start = search.ulp_best;
    if (!x || !ug_hunt_breaches(&br, &start)) {
        printf("no input breached ulp_max %g (largest ULP error seen: %.4g): nothing to write\n",
               o.check_ulp, search.ulp_best.ulp);
        ug_hunt_result_free(&search);
        return 1;
    }
    ug_hunt_problem q = o.p;
    size_t nx = ug_hunt_nx(&q), ny = ug_hunt_ny(&q);
    float *sx = ug_xmalloc(nx * sizeof *sx), *sy = ny ? ug_xmalloc(ny * sizeof *sy) : NULL;
    memcpy(sx, x, nx * sizeof *sx);
    if (ny) memcpy(sy, y, ny * sizeof *sy);
    uint64_t evals = 0;
    ug_hunt_score final;
    double t0 = ug_now_s();
    ug_hunt_shrink(&q, &sx, &sy, &br, &evals, &final);
    if (final.unstable) { /* a file would not reproduce: the nondeterminism is the finding */
        printf("shrink   stopped: %s declares itself deterministic, but one input evaluated "
               "twice gave bound ratio %.17g, %.17g ulp, then bound ratio %.17g, %.17g ulp: "
               "not deterministic; nothing written (a breach it found would not reproduce)\n",
               o.k->id, final.ratio, final.ulp, final.again_ratio, final.again_ulp);
        free(sx);
        free(sy);
        ug_hunt_result_free(&search);
        return 1;
    }
    if (!ug_hunt_breaches(&br, &final)) { /* the kernel failed, or scored otherwise, at the end */
        printf("shrink   stopped: the shrunk input, evaluated again, no longer breaches %s "
               "(%s); nothing written\n", br.bound ? "bound ratio 1" : "the ULP check",
               final.failed ? "the kernel returned an error on it" : "a different score");
        free(sx);
        free(sy);
        ug_hunt_result_free(&search);
        return final.failed ? UG_EXIT_KERNEL : 1;
    }
    ug_shape qs = ug_hunt_shape(&q);
    size_t before = (size_t)ug_op_work(d, &sh), after = (size_t)ug_op_work(d, &qs);
    char now[64] = "", dims[64];
    if (ug_opshape_ndims(d->shape) > 1)
        snprintf(now, sizeof now, " (%s)", ug_op_shape_text(d, &qs, false, dims, sizeof dims));
    printf("shrink   %zu -> %zu %s%s (%llu evaluations, %.1f s): %.4g ulp, bound ratio %.4g, "
           "still > %s\n",
           before, after, ug_opshape_term_noun(d->shape),
           now, (unsigned long long)evals, ug_now_s() - t0, final.ulp, final.ratio,
           br.bound ? "bound ratio 1" : "the ULP check");

    char path[1100];
    if (o.out) snprintf(path, sizeof path, "%s", o.out);
    else snprintf(path, sizeof path, "hunt-%s-%s-n%s-0x%llx.txt", o.k->name, ug_op_name(q.op),
                  shape, (unsigned long long)o.seed);
    ug_hunt_provenance prov = {command, o.seed, before, start};
    char err[1200];
    rc = 0;
    if (ug_hunt_write(path, &q, sx, sy, &br, &final, &prov, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate hunt: %s\n", err);
        rc = 2;
    } else {
        printf("wrote    %s\n", path);
        rc = ug_hunt_reproduce(path, &q, &br);
    }
    free(sx);
    free(sy);
    ug_hunt_result_free(&search);
    return rc;
}
