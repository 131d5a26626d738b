/*
 * cli_baseline.c - `ulpgate baseline update|show|key|migrate`: the per-device baselines of the
 * merge gate (harness/gate/baseline.h), each a folder <dir>/<device key>/ (baseline_dir.c).
 *
 *   baseline update [--device KEY] [--from results.json] [--reason TEXT] [--dir DIR]
 *                   [--slack X] [--prune] [--dry-run]
 *   baseline show [--device KEY | PATH] [--dir DIR] [--all]
 *   baseline key [--from results.json]
 *   baseline migrate [--device KEY | FILE] [--dir DIR] --reason TEXT
 *
 * update without --from runs the default case set first (as `ulpgate run` does) into a
 * temporary directory.  An update that loosens any row without --reason is refused (exit 2),
 * and nothing is written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernels/device.h"
#include "base/parse.h"
#include "harness/gate/baseline.h"
#include "harness/cli/cli.h"
#include "harness/gate/compare.h"
#include "harness/run/run.h"
#include "ug_git.h"

typedef struct {
    const char *device, *from, *reason, *dir, *file;
    double slack;
    bool prune, dry_run, all;
} ug_bl_args;

/* Parse the options of a baseline subcommand; 0 or 2 (usage error, message printed).  allowed:
 * the options this subcommand takes, space-separated with spaces around each. */
static int ug_bl_parse(int argc, char **argv, const char *allowed, ug_bl_args *a)
{
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char want[64];
        snprintf(want, sizeof want, " %s ", o);
        if (o[0] != '-' && strstr(allowed, " FILE ") && !a->file) {
            a->file = o;
            continue;
        }
        if (o[0] != '-' || !strstr(allowed, want))
            return ug_usage_error("baseline: unknown option or argument '%s'", o);
        if (strcmp(o, "--prune") == 0) {
            a->prune = true;
            continue;
        }
        if (strcmp(o, "--dry-run") == 0) {
            a->dry_run = true;
            continue;
        }
        if (strcmp(o, "--all") == 0) {
            a->all = true;
            continue;
        }
        if (!v) return ug_usage_error("%s needs a value", o);
        i++;
        if (strcmp(o, "--device") == 0) {
            for (const char *p = v; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
                      *p == '_'))
                    return ug_usage_error(
                        "--device: '%s' is not a device key ([a-z0-9_-], e.g. h100-sm90)", v);
            a->device = v;
        } else if (strcmp(o, "--from") == 0)
            a->from = v;
        else if (strcmp(o, "--reason") == 0) {
            if (!v[0]) return ug_usage_error("%s", "--reason: an empty reason is no reason");
            /* the baseline keeps 399 bytes of it (baseline.h): a longer one would be cut when
             * read back, silently */
            if (strlen(v) > 399)
                return ug_usage_error("%s", "--reason: longer than the 399 bytes a baseline keeps "
                                            "(say the rest in the commit message)");
            a->reason = v;
        } else if (strcmp(o, "--dir") == 0)
            a->dir = v;
        else if (strcmp(o, "--slack") == 0) {
            if (!ug_parse_double(v, &a->slack) || !(a->slack >= 1.0) || a->slack > 1e6)
                return ug_usage_error("--slack: '%s' is not a factor >= 1", v);
        }
    }
    if (!a->dir) a->dir = ug_baseline_default_dir();
    return 0;
}

/* Run the default case set into dir/results.json (TAP kept in dir/run.tap).  0 or 2. */
static int ug_bl_run(const char *dir, int full_argc, char **full_argv)
{
    char tap[1200];
    snprintf(tap, sizeof tap, "%s/run.tap", dir);
    FILE *out = fopen(tap, "w");
    if (!out) {
        fprintf(stderr, "ulpgate: baseline update: cannot write %s: %s\n", tap, strerror(errno));
        return 2;
    }
    ug_options o = {.argv0 = full_argv[0],
                    .trial = -1,
                    .seed = UG_DEFAULT_SEED,
                    .report_dir = dir,
                    .tap = true, /* run.tap: the full TAP stream */
                    .progress = isatty(2)};
    fprintf(stderr, "ulpgate: baseline update: running the default case set (TAP in %s)\n", tap);
    ug_oracle_select(o.oracle);
    ug_results res = {0};
    int rc = ug_run(&o, &res, out);
    fclose(out);
    if (rc == 1) fprintf(stderr, "ulpgate: baseline update: the run has failures (see %s)\n", tap);
    if (rc != 2 && ug_report_write(&o, &res, full_argc, full_argv) != 0) rc = 2;
    ug_results_free(&res);
    return rc == 2 ? 2 : 0;
}

/* Take the lock of the baselines folder dir (ug_dir_lock), waiting for another process that
 * holds it: the descriptor; -1 when dir does not exist (nothing to lock: writing there fails
 * with its own message); -2 on an error (printed). */
static int ug_bl_lock(const char *dir, const char *what)
{
    char why[300];
    int fd;
    if (access(dir, F_OK) != 0) return -1;
    if ((fd = ug_dir_lock(dir, 0, why, sizeof why)) >= 0) return fd;
    fprintf(stderr, "ulpgate: %s: %s: %s; waiting for it\n", what, dir, why);
    if ((fd = ug_dir_lock(dir, 1, why, sizeof why)) >= 0) return fd;
    fprintf(stderr, "ulpgate: %s: %s: %s\n", what, dir, why);
    return -2;
}

static int ug_bl_update(int argc, char **argv, int full_argc, char **full_argv)
{
    ug_bl_args a = {0};
    if (ug_bl_parse(argc, argv, " --device --from --reason --dir --slack --prune --dry-run ", &a))
        return 2;
    char tmpdir[] = "/tmp/ulpgate-baseline-XXXXXX", from[1024], err[1400], path[1024];
    char folder[1100];
    bool ran = false;
    int rc = 2, lock_fd = -1;
    ug_baseline run = {0}, bl = {0};
    ug_buf diff = {0};
    ug_bl_files fs = {0};
    if (!a.from) {
        if (!mkdtemp(tmpdir)) {
            fprintf(stderr, "ulpgate: baseline update: cannot make a temporary directory: %s\n",
                    strerror(errno));
            return 2;
        }
        ran = true;
        if (ug_bl_run(tmpdir, full_argc, full_argv) != 0) goto done;
        snprintf(from, sizeof from, "%s/results.json", tmpdir);
    } else {
        snprintf(from, sizeof from, "%s", a.from);
    }
    if (ug_baseline_load(from, a.slack > 0 ? a.slack : UG_DEFAULT_NONDET_SLACK, &run, err,
                         sizeof err) != 0) {
        fprintf(stderr, "ulpgate: baseline update: %s\n", err);
        goto done;
    }
    if (run.is_baseline) {
        fprintf(stderr, "ulpgate: baseline update: %s is a baseline, not a run's results.json\n",
                from);
        goto done;
    }
    if (run.reduced[0]) { /* its figures are of other inputs than a whole run's */
        fprintf(stderr, "ulpgate: baseline update: %s is of a reduced run (%s): run again "
                        "without those variables\n", from, run.reduced);
        goto done;
    }
    /* what the gate refuses as NEW (compare.c, ug_refusals) is no baseline either: a part of
     * a run would pass as the whole, and with --prune the rows it never reached would go */
    char partial[300] = "";
    if (run.interrupted)
        snprintf(partial, sizeof partial, "it was interrupted (%.200s)",
                 run.stop_reason[0] ? run.stop_reason : "no reason recorded");
    else if (run.summary_points < 0)
        snprintf(partial, sizeof partial, "it has no summary: whether it holds every test point "
                                          "cannot be told");
    else if ((size_t)run.summary_points != run.n_points)
        snprintf(partial, sizeof partial, "it is truncated: its summary counts %ld test points, "
                 "it holds %zu", run.summary_points, run.n_points);
    else if (run.n_points == 0)
        snprintf(partial, sizeof partial, "it has no rows: nothing ran");
    if (partial[0]) {
        fprintf(stderr, "ulpgate: baseline update: %s holds part of a run, %s; a baseline takes "
                        "whole runs only (no --reason accepts one): run it again\n", from, partial);
        goto done;
    }
    const char *key = a.device ? a.device : run.device;
    if (a.device && strcmp(a.device, run.device) != 0)
        fprintf(stderr,
                "ulpgate: baseline update: the run is of device %s; writing the baseline of "
                "%s as asked\n",
                run.device, a.device);
    ug_baseline_path(a.dir, key, path, sizeof path);
    /* one update of a baseline folder at a time, from its read to its write (two at once would
     * each write what it read plus its own rows: one's rows lost); a second waits */
    snprintf(folder, sizeof folder, "%s/%s", a.dir, key);
    if ((lock_fd = ug_bl_lock(a.dir, "baseline update")) == -2) goto done;
    if (access(path, F_OK) == 0) {
        if (ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, &bl, err, sizeof err) != 0) {
            fprintf(stderr, "ulpgate: baseline update: %s\n", err);
            goto done;
        }
        if (!bl.is_baseline) {
            fprintf(stderr, "ulpgate: baseline update: %s is not a baseline\n", path);
            goto done;
        }
    } else {
        snprintf(path, sizeof path, "%.1023s", folder);
        snprintf(bl.path, sizeof bl.path, "%s", path);
    }
    snprintf(bl.device, sizeof bl.device, "%s", key);
    ug_update_opts uo = {.reason = a.reason,
                         .slack = a.slack,
                         .prune = a.prune,
                         .from = a.from ? a.from : "a run of the default case set"};
    ug_update_summary s;
    ug_baseline_update(&bl, &run, &uo, &diff, &s);
    printf("ulpgate baseline update: %s (device %s) from %s (git %s)\n", path, key,
           a.from ? a.from : "a run of the default case set", run.git[0] ? run.git : "?");
    fputs(ug_buf_str(&diff), stdout);
    if (s.created) printf("created with %zu rows\n", s.added);
    printf("%zu added, %zu tightened, %zu loosened, %zu unchanged, %zu within slack, %zu inputs "
           "changed, %zu kept (not in this run), %zu pruned\n",
           s.added, s.tightened, s.loosened, s.unchanged, s.within_slack, s.inputs_changed, s.kept,
           s.pruned);
    if (s.checks_left)
        printf("%zu check point%s of this run left as stored: its selection (--kernel, --n, "
               "--format or --no-builtin) narrows the kernels they check; a whole run updates "
               "them\n", s.checks_left, s.checks_left == 1 ? "" : "s");
    if (s.refused) {
        fprintf(stderr,
                "ulpgate: baseline update refused: %zu row%s would be loosened (LOOSENED "
                "above); a baseline is never regenerated mechanically: give --reason \"why\" "
                "(stored with each loosened row)\n",
                s.loosened, s.loosened == 1 ? "" : "s");
        goto done;
    }
    ug_baseline_files(&bl, &fs);
    bool legacy = strcmp(path, folder) != 0; /* a single file of an older format */
    if (!legacy && ug_baseline_same_on_disk(&fs, folder)) {
        printf("baseline unchanged: %s\n", folder);
        rc = 0;
    } else if (a.dry_run) {
        printf("dry run: %s not written\n", folder);
        rc = 0;
    } else if (ug_baseline_write_files(&fs, folder, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: baseline update: %s\n", err);
    } else {
        printf("written: %s (%zu files)%s%s%s\n", folder, fs.n, a.reason ? " (reason: \"" : "",
               a.reason ? a.reason : "", a.reason ? "\")" : "");
        if (legacy && unlink(path) == 0)
            printf("removed: %s (the single file of baseline format %d, now the folder)\n", path,
                   bl.format);
        rc = 0;
    }
done:
    if (ran) {
        char p[1200];
        snprintf(p, sizeof p, "%s/results.json", tmpdir);
        unlink(p);
        snprintf(p, sizeof p, "%s/run.tap", tmpdir);
        unlink(p);
        rmdir(tmpdir);
    }
    ug_dir_unlock(lock_fd);
    ug_buf_free(&diff);
    ug_bl_files_free(&fs);
    ug_baseline_free(&run);
    ug_baseline_free(&bl);
    return rc;
}

/* The device key of this machine: its GPU's when one can be used, else cpu-<arch>. */
static void ug_device_key_here(char *key, size_t len)
{
    struct utsname u;
    const char *arch = uname(&u) == 0 ? u.machine : "unknown";
    char why[256];
    ug_gpu_info gi;
    if (ug_device_probe(why, sizeof why) && ug_device_info(&gi) == 0) {
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", gi.cc_major, gi.cc_minor);
        ug_device_key_of(gi.name, cc, arch, key, len);
    } else {
        ug_device_key_of(NULL, NULL, arch, key, len);
    }
}

static void ug_bl_show_row(const ug_baseline *bl, size_t i)
{
    const ug_row *r = &bl->res.rows[i];
    char a[32], b[32], c[32], d[32];
    if (!r->measured) {
        printf("  %s  status %s\n", r->id, ug_status_name(r->status));
        return;
    }
    printf("  %s  status %s, ulp_max %s, ulp_mean %s, rel_max %s, bound_ratio_max %s, "
           "correctly_rounded %zu/%zu",
           r->id, ug_status_name(r->status), ug_fmt_fig(r->ulp_max, a), ug_fmt_fig(r->ulp_mean, b),
           ug_fmt_fig(r->rel_max, c), ug_fmt_fig(r->bound_ratio_max, d), r->correctly_rounded,
           r->count);
    if (r->repeats) printf(", distinct %d of %d repeats", r->distinct_results, r->repeats);
    if (!r->deterministic) printf(", slack x%g", bl->x[i].slack);
    printf("\n");
}

static int ug_bl_show(int argc, char **argv)
{
    ug_bl_args a = {0};
    if (ug_bl_parse(argc, argv, " --device --dir --all FILE ", &a)) return 2;
    char path[1024], err[1400], key[64];
    if (a.file) {
        snprintf(path, sizeof path, "%s", a.file);
    } else {
        if (!a.device) {
            ug_device_key_here(key, sizeof key);
            a.device = key;
        }
        ug_baseline_path(a.dir, a.device, path, sizeof path);
    }
    ug_baseline bl;
    if (ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, &bl, err, sizeof err) != 0) {
        fprintf(stderr, "ulpgate: baseline show: %s\n", err);
        return 2;
    }
    if (!bl.is_baseline) {
        fprintf(stderr, "ulpgate: baseline show: %s is a results.json, not a baseline\n", path);
        ug_baseline_free(&bl);
        return 2;
    }
    size_t measured = 0, nondet = 0, loosened = 0;
    for (size_t i = 0; i < bl.res.count; i++) {
        measured += bl.res.rows[i].measured;
        nondet += bl.res.rows[i].measured && !bl.res.rows[i].deterministic;
        loosened += bl.x[i].n_loosened > 0;
    }
    printf(
        "baseline %s: device %s\n  %zu rows: %zu measurements (%zu nondeterministic), %zu checks\n",
        path, bl.device, bl.res.count, measured, nondet, bl.res.count - measured);
    for (size_t f = 0; f < bl.n_fps; f++) {
        size_t users = 0;
        for (size_t i = 0; i < bl.res.count; i++) users += bl.x[i].fp == f;
        printf("  fingerprint %s (%zu rows):", bl.fps[f].hash, users);
        for (int p = 0; p < UG_FP_NFIELDS; p++)
            if (bl.fps[f].v[p][0]) printf(" %s=%s;", ug_fp_fields[p].key, bl.fps[f].v[p]);
        printf("\n");
    }
    printf("  updates (%zu):\n", bl.n_updates);
    for (size_t u = 0; u < bl.n_updates; u++)
        printf("    %s git %s: %s%s%s%s\n", bl.updates[u].date, bl.updates[u].git,
               bl.updates[u].reason[0] ? "\"" : "", bl.updates[u].reason,
               bl.updates[u].reason[0] ? "\": " : "", bl.updates[u].changes);
    printf("  rows ever loosened (%zu):\n", loosened);
    for (size_t i = 0; i < bl.res.count; i++)
        for (size_t e = 0; e < bl.x[i].n_loosened; e++)
            printf("    %s: %s git %s: \"%s\": %s\n", bl.res.rows[i].id, bl.x[i].loosened[e].date,
                   bl.x[i].loosened[e].git, bl.x[i].loosened[e].reason,
                   bl.x[i].loosened[e].changes);
    if (a.all) {
        printf("  rows:\n");
        for (size_t i = 0; i < bl.res.count; i++) ug_bl_show_row(&bl, i);
    }
    ug_baseline_free(&bl);
    return 0;
}

static int ug_bl_key(int argc, char **argv)
{
    ug_bl_args a = {0};
    if (ug_bl_parse(argc, argv, " --from ", &a)) return 2;
    char key[64];
    if (a.from) {
        ug_baseline run;
        char err[1400];
        if (ug_baseline_load(a.from, UG_DEFAULT_NONDET_SLACK, &run, err, sizeof err) != 0) {
            fprintf(stderr, "ulpgate: baseline key: %s\n", err);
            return 2;
        }
        snprintf(key, sizeof key, "%s", run.device);
        ug_baseline_free(&run);
    } else {
        ug_device_key_here(key, sizeof key);
    }
    printf("%s\n", key);
    return 0;
}

/* Rewrite a baseline folder whose rows name an operation cut to 7 bytes by an older ulpgate
 * ("layerno": its row held char[8]) in place with the names whole, and a single-file baseline
 * of an older format as the folder of the current one
 * (UG_BASELINE_FORMAT: baseline_dir.c) beside it, <its folder>/<device key>/, by this ulpgate's
 * writer and without measuring anything: every row read and written back with the same
 * figures, the reason in its update log; the single file is removed once the folder is in
 * place.  0, or 2. */
static int ug_bl_migrate(int argc, char **argv)
{
    ug_bl_args a = {0};
    if (ug_bl_parse(argc, argv, " --device --dir --reason FILE ", &a)) return 2;
    if (!a.reason) return ug_usage_error("%s", "baseline migrate needs --reason \"why\" (kept in the update log)");
    char path[1024], err[1400], key[64], changes[64], parent[1024], folder[1200];
    if (a.file) {
        snprintf(path, sizeof path, "%s", a.file);
    } else {
        if (!a.device) {
            ug_device_key_here(key, sizeof key);
            a.device = key;
        }
        ug_baseline_path(a.dir, a.device, path, sizeof path);
    }
    ug_baseline bl;
    ug_row_read_cut_names(true); /* names an older ulpgate cut to 7 bytes, made whole here */
    int load = ug_baseline_load(path, UG_DEFAULT_NONDET_SLACK, &bl, err, sizeof err);
    ug_row_read_cut_names(false);
    size_t whole = ug_row_cut_names_made_whole();
    if (load != 0) {
        fprintf(stderr, "ulpgate: baseline migrate: %s\n", err);
        return 2;
    }
    int rc = 2, lock_fd = -1;
    const char *slash = strrchr(path, '/');
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    snprintf(folder, sizeof folder, "%s/%s", parent, bl.device);
    bool key_ok = bl.device[0] != 0;
    for (const char *p = bl.device; *p; p++)
        key_ok &= (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_';
    if (!bl.is_baseline) {
        fprintf(stderr, "ulpgate: baseline migrate: %s is a results.json, not a baseline\n", path);
    } else if (bl.format == UG_BASELINE_FORMAT && whole) {
        /* the current folder, with rows whose operation's name an older ulpgate cut (row
         * field char[8]): written back in place, every figure as read */
        if ((lock_fd = ug_bl_lock(parent, "baseline migrate")) != -2) {
            snprintf(changes, sizeof changes, "op names made whole in %zu rows", whole);
            ug_baseline_log(&bl, UG_GIT, a.reason, changes);
            if (ug_baseline_write(&bl, path, err, sizeof err) != 0) {
                fprintf(stderr, "ulpgate: baseline migrate: %s\n", err);
            } else {
                printf("written: %s (%s, rows otherwise unchanged)\n", path, changes);
                rc = 0;
            }
        }
    } else if (bl.format == UG_BASELINE_FORMAT) {
        /* the current format: rewritten only where this ulpgate writes its rows otherwise (a
         * nondeterministic row's history of honest runs, its one run where it had none) */
        ug_bl_files fs;
        ug_baseline_files(&bl, &fs);
        bool same = ug_baseline_same_on_disk(&fs, path);
        ug_bl_files_free(&fs);
        if (same) {
            printf("baseline %s is format %d already: unchanged\n", path, bl.format);
            rc = 0;
        } else if ((lock_fd = ug_bl_lock(parent, "baseline migrate")) != -2) {
            snprintf(changes, sizeof changes, "rows rewritten, figures unchanged");
            ug_baseline_log(&bl, UG_GIT, a.reason, changes);
            if (ug_baseline_write(&bl, path, err, sizeof err) != 0) {
                fprintf(stderr, "ulpgate: baseline migrate: %s\n", err);
            } else {
                printf("written: %s (%s)\n", path, changes);
                rc = 0;
            }
        }
    } else if (!key_ok) {
        fprintf(stderr, "ulpgate: baseline migrate: %s: its device key \"%s\" cannot name a "
                        "folder ([a-z0-9_-])\n", path, bl.device);
    } else if (access(folder, F_OK) == 0) {
        fprintf(stderr, "ulpgate: baseline migrate: %s exists already: the baseline of %s is "
                        "there (remove one of the two)\n", folder, bl.device);
    } else if ((lock_fd = ug_bl_lock(parent, "baseline migrate")) != -2) {
        snprintf(changes, sizeof changes, "format %d -> %d, rows unchanged", bl.format,
                 UG_BASELINE_FORMAT);
        ug_baseline_log(&bl, UG_GIT, a.reason, changes);
        if (ug_baseline_write(&bl, folder, err, sizeof err) != 0) {
            fprintf(stderr, "ulpgate: baseline migrate: %s\n", err);
        } else if (unlink(path) != 0) {
            fprintf(stderr, "ulpgate: baseline migrate: written %s, but cannot remove %s: %s\n",
                    folder, path, strerror(errno));
        } else {
            printf("written: %s (%s); removed %s\n", folder, changes, path);
            rc = 0;
        }
    }
    ug_dir_unlock(lock_fd);
    ug_baseline_free(&bl);
    return rc;
}

int ug_cmd_baseline(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *sub = argc > 1 ? argv[1] : "";
    if (strcmp(sub, "update") == 0) return ug_bl_update(argc, argv, full_argc, full_argv);
    if (strcmp(sub, "show") == 0) return ug_bl_show(argc, argv);
    if (strcmp(sub, "key") == 0) return ug_bl_key(argc, argv);
    if (strcmp(sub, "migrate") == 0) return ug_bl_migrate(argc, argv);
    return ug_usage_error("baseline: '%s' is not update, show, key or migrate", sub);
}
