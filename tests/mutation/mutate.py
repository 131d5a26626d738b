#!/usr/bin/env python3
"""Mutation testing of the ulpgate suite: apply each mutant of tests/mutation/mutants.py (one
realistic single change to the oracle, the error metrics, a kernel, a bound class, a distribution,
the report, the run loop or the command line) to a scratch copy of the tree, rebuild, run the
meson tests that should catch it, and say whether they did.

    python3 tests/mutation/mutate.py [--gpu] [--only GLOB] [--keep DIR] [--markdown FILE]
    python3 tests/mutation/mutate.py --check [BUILDDIR]   (the meson test `mutants`: TAP, no build)

--gpu runs the GPU mutants too (on a machine with a CUDA device; without one a GPU test skips and
the mutant survives).  The score is killed / (mutants - equivalent ones); every survivor is
listed with its note.  Exit status 0 when the score reaches the target (90%), else 1; 2 when the
unmutated tree fails its own tests or a mutant no longer matches the source (a stale list).
Not part of the default suite: a full CPU run takes about 10 minutes on 2 cores.  --check is:
every mutant's file exists, its text to mutate occurs exactly once there, its id is unique, and
each test it names is a meson test of tests/meson.build -- so that a refactor which moves the
code a protection lives in cannot leave its mutant stale, the protection untested, unnoticed.
"""
import argparse
import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TARGET = 0.90


def sh(cmd, cwd, timeout=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace")


def copy_tree(dst):
    files = subprocess.check_output(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                                    cwd=ROOT).decode().split("\n")
    for f in files:
        if not f or not os.path.exists(os.path.join(ROOT, f)):
            continue
        os.makedirs(os.path.join(dst, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dst, f))


def run_tests(build, tests):
    rc, out = sh(["meson", "test", "-C", build, "--no-rebuild", "--print-errorlogs"] + tests, build,
                 timeout=3600)
    return rc, out


def check(mutants, build):
    """The list against the tree, as TAP; 0 when every mutant still applies.  A test name is
    known when the build (BUILD/meson-info/intro-tests.json) has it, or when some meson.build
    defines it by a literal name (a test that another option configures: `python`, `fuzz`)."""
    import glob
    import json
    import re
    names = set()
    intro = os.path.join(build, "meson-info", "intro-tests.json") if build else ""
    if intro and os.path.exists(intro):
        names |= {t["name"] for t in json.load(open(intro))}
    for mb in glob.glob(os.path.join(ROOT, "**", "meson.build"), recursive=True):
        names |= set(re.findall(r"\btest\(\s*'([^']+)'", open(mb).read()))
    n, bad, seen = 0, 0, set()
    print("TAP version 13")
    for m in mutants:
        path = os.path.join(ROOT, m["file"])
        count = open(path).read().count(m["find"]) if os.path.exists(path) else -1
        unknown = [t for t in m["tests"] if t not in names] if intro else []
        why = ("no file " + m["file"] if count < 0 else
               "%s holds the text to mutate %d times" % (m["file"], count) if count != 1 else
               "id used twice" if m["id"] in seen else
               "no meson test named " + ", ".join(unknown) if unknown else "")
        seen.add(m["id"])
        n += 1
        bad += bool(why)
        print("%s %d - %s%s" % ("not ok" if why else "ok", n, m["id"], ": " + why if why else ""))
    print("1..%d" % n)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", action="store_true", help="also the GPU mutants")
    ap.add_argument("--only", default="*", help="mutants whose id matches this glob")
    ap.add_argument("--keep", help="scratch directory (kept afterwards)")
    ap.add_argument("--markdown", help="also write the table as Markdown to this file")
    ap.add_argument("--check", metavar="BUILDDIR", nargs="?", const="",
                    help="only check that every mutant applies (TAP); test names against BUILDDIR")
    args = ap.parse_args()

    sys.path.insert(0, HERE)
    from mutants import MUTANTS  # noqa: E402
    if args.check is not None:
        return check(MUTANTS, args.check)

    chosen = [m for m in MUTANTS if fnmatch.fnmatch(m["id"], args.only) and (args.gpu or not m.get("gpu"))]
    work = args.keep or tempfile.mkdtemp(prefix="ulpgate-mutation-")
    src, build = os.path.join(work, "src"), os.path.join(work, "build")
    if not os.path.isdir(src):
        copy_tree(src)
    if not os.path.isdir(build):
        # the Python package's mutants need its extension and the meson test `python`
        py = ["-Dpython=enabled", "-Dcuda=disabled"] if any("python" in m["tests"] for m in chosen) else []
        rc, out = sh(["meson", "setup", build] + py, src)
        if rc:
            print(out)
            return 2
    rc, out = sh(["ninja", "-C", build], src)
    if rc:
        print(out[-4000:])
        print("the unmutated tree does not build")
        return 2
    needed = sorted({t for m in chosen for t in m["tests"]})
    rc, out = run_tests(build, needed)
    if rc:
        print(out[-4000:])
        print("the unmutated tree fails its own tests: fix that first")
        return 2
    print(f"{len(chosen)} mutants; baseline green on {', '.join(needed)}")

    rows = []
    for m in chosen:
        path = os.path.join(src, m["file"])
        text = open(path).read()
        if text.count(m["find"]) != 1:
            print(f"STALE {m['id']}: {m['file']} holds the text to mutate {text.count(m['find'])} times")
            return 2
        t0 = time.time()
        open(path, "w").write(text.replace(m["find"], m["replace"]))
        try:
            rc, out = sh(["ninja", "-C", build], src)
            if rc:
                verdict, why = "no build", out.strip().split("\n")[-1][:100]
            else:
                rc, out = run_tests(build, m["tests"])
                # meson's result lines, by version: " 3/15 ulpgate:cpu+reduce / bounds   FAIL ..."
                # or " 3/15 cpu+reduce - ulpgate:bounds   FAIL ..."
                failed = []
                for l in out.split("\n"):
                    if not l.strip()[:1].isdigit() or not any(
                            w in l for w in (" FAIL ", " ERROR ", "UNEXPECTEDPASS", "TIMEOUT")):
                        continue
                    head = l.split(" / ")[1] if " / " in l else l.split("ulpgate:")[-1]
                    failed.append(head.split()[0])
                verdict = "killed" if rc else ("equivalent" if m.get("equivalent") else "SURVIVED")
                why = ("by " + ", ".join(sorted(set(failed)))) if rc else m.get("equivalent", "")
        finally:
            open(path, "w").write(text)
        rows.append((m, verdict, why, time.time() - t0))
        print(f"{verdict:10s} {m['id']:42s} {time.time() - t0:6.1f}s  {why}", flush=True)
    sh(["ninja", "-C", build], src)  # leave the scratch build unmutated

    killed = sum(1 for _, v, _, _ in rows if v == "killed")
    equivalent = sum(1 for _, v, _, _ in rows if v == "equivalent")
    invalid = sum(1 for _, v, _, _ in rows if v == "no build")
    scored = len(rows) - equivalent - invalid
    score = killed / scored if scored else 1.0
    print(f"\nscore: {killed} killed of {scored} ({100 * score:.1f}%); {equivalent} equivalent, "
          f"{invalid} that do not build (not counted)")
    for m, v, why, _ in rows:
        if v == "SURVIVED":
            print(f"  survivor {m['id']}: {m['what']}")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| mutant | what | verdict | caught by |\n|---|---|---|---|\n")
            for m, v, why, _ in rows:
                f.write(f"| {m['id']} | {m['what']} | {v} | {why} |\n")
            f.write(f"\nscore: {killed}/{scored} = {100 * score:.1f}%\n")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if score >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
