/*
 * cli_bench_check.c - `ulpgate bench check [--n N] [--op sum|dot] [--reps R] [--dir DIR]`:
 * how long `ulpgate check` takes to grade N binary32 terms saved as .npy files, next to how long
 * the oracle takes to compute the same exact result from the same values already in memory (the
 * work `ulpgate oracle` does once its text is parsed; its text parsing is left out, which only
 * favours the oracle).  Both on one machine in one run, the median of R runs each; the files
 * are written to DIR (default $TMPDIR or /tmp) and stay in the page cache, so check's time is
 * mapping, reading and grading, not the disk.  The goal: check <= 2x the oracle.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/par.h"
#include "base/sys.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_check.h"
#include "ops/op.h"
#include "oracle/oracle.h"

/* Write v[0..n) as a 1-D '<f4' .npy file (format 1.0, header padded to 64 bytes); 0 or -1. */
static int write_npy_f32(const char *path, const float *v, size_t n, int scalar)
{
    char h[128];
    int len = scalar ? snprintf(h, sizeof h, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }")
                     : snprintf(h, sizeof h, "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu,), }", n);
    int total = (10 + len + 1 + 63) / 64 * 64; /* magic, version, length, header, '\n' */
    while (10 + len < total - 1) h[len++] = ' ';
    h[len++] = '\n';
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 255),
                             (unsigned char)(len >> 8)};
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(h, 1, (size_t)len, f) == (size_t)len &&
             fwrite(v, sizeof *v, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* A usage error of bench check: what is wrong with which argument, then the usage; 2. */
static int ug_bench_check_usage(const char *why, const char *arg)
{
    char safe[200];
    fprintf(stderr, "ulpgate bench check: %s%s%s\n", arg ? ug_escape(arg, safe, sizeof safe) : "",
            arg ? ": " : "", why);
    fputs("usage: ulpgate bench check [--n N] [--op sum|dot] [--reps R] [--dir DIR]\n", stderr);
    return 2;
}

int ug_bench_check(int argc, char **argv)
{
    size_t n = 100000000;
    int dot = 0, reps = 3;
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    for (int i = 1; i < argc; i++) {
        char *end;
        const char *opt = argv[i];
        if (i + 1 >= argc && (!strcmp(opt, "--n") || !strcmp(opt, "--reps") ||
                              !strcmp(opt, "--op") || !strcmp(opt, "--dir")))
            return ug_bench_check_usage("needs a value", opt);
        if (!strcmp(opt, "--n")) {
            /* at most 2^34 terms (64 GiB of binary32): n * sizeof(float) cannot wrap */
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end || end == argv[i] || argv[i][0] == '-' || v == 0 || v > (1ull << 34))
                return ug_bench_check_usage("--n: a count of terms from 1 to 2^34", argv[i]);
            n = (size_t)v;
        } else if (!strcmp(opt, "--reps")) {
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 1 || v > 100)
                return ug_bench_check_usage("--reps: a count from 1 to 100", argv[i]);
            reps = (int)v;
        } else if (!strcmp(opt, "--op")) {
            /* a sum of its index-aligned terms: sum (one input) or dot (two) */
            const ug_op_desc *d = ug_op_find(argv[++i]);
            if (!d || !d->exact_is_sum || !d->term_attribution)
                return ug_bench_check_usage("--op: sum or dot", argv[i]);
            dot = d->shape->arity == 2;
        } else if (!strcmp(opt, "--dir")) {
            dir = argv[++i];
        } else {
            return ug_bench_check_usage("unknown option", opt);
        }
    }
    float *x = ug_xmalloc(n * sizeof *x), *y = dot ? ug_xmalloc(n * sizeof *y) : NULL;
    ug_bench_fill_normal(x, n, 1);
    if (dot) ug_bench_fill_normal(y, n, 2);
    ug_exact e;
    if (dot) ug_exact_dot_f32(x, 1, y, 1, n, &e);
    else ug_exact_sum_f32(x, n, &e);
    char px[4096], py[4096], pg[4096];
    snprintf(px, sizeof px, "%s/ug_bench_check_%ld_x.npy", dir, (long)getpid());
    snprintf(py, sizeof py, "%s/ug_bench_check_%ld_y.npy", dir, (long)getpid());
    snprintf(pg, sizeof pg, "%s/ug_bench_check_%ld_got.npy", dir, (long)getpid());
    int rc = 2;
    if (write_npy_f32(px, x, n, 0) || (dot && write_npy_f32(py, y, n, 0)) ||
        write_npy_f32(pg, &e.rn, 1, 1)) {
        fprintf(stderr, "ulpgate bench check: cannot write %s/ug_bench_check_*.npy\n", dir);
        goto out;
    }
    FILE *null = fopen("/dev/null", "w");
    double *to = ug_xmalloc((size_t)reps * sizeof *to), *tc = ug_xmalloc((size_t)reps * sizeof *tc);
    char *args[] = {"check", "--op", dot ? "dot" : "sum", "--got", pg, px, py, NULL};
    int check_rc = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = ug_now_s();
        if (dot) ug_exact_dot_f32(x, 1, y, 1, n, &e);
        else ug_exact_sum_f32(x, n, &e);
        to[r] = ug_now_s() - t0;
        t0 = ug_now_s();
        check_rc |= ug_cmd_check_io(dot ? 7 : 6, args, null ? null : stdout, stderr);
        tc[r] = ug_now_s() - t0;
    }
    if (null) fclose(null);
    double mo = ug_bench_median(to, reps), mc = ug_bench_median(tc, reps);
    printf("bench check: %s of %zu binary32 %s, %d thread%s, median of %d\n", dot ? "dot" : "sum",
           n, dot ? "pairs" : "values", ug_par_threads(), ug_par_threads() == 1 ? "" : "s", reps);
    printf("  oracle (%s, values in memory)   %8.3f s   %6.2f ns/term\n",
           ug_oracle_name(ug_oracle_selected()), mo, mo * 1e9 / (double)n);
    printf("  check (.npy, mmap, graded)      %8.3f s   %6.2f ns/term\n", mc, mc * 1e9 / (double)n);
    printf("  check / oracle                  %8.3f   (goal <= 2)%s\n", mc / mo,
           check_rc ? "   check exited non-zero!" : "");
    rc = check_rc ? 1 : 0;
    free(to);
    free(tc);
out:
    unlink(px);
    if (dot) unlink(py);
    unlink(pg);
    free(x);
    free(y);
    return rc;
}
