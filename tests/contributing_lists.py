#!/usr/bin/env python3
"""contributing_lists.py SRCROOT - CONTRIBUTING.md's "Adding a kernel" and docs/cases.md's
"Writing a case" (which "Adding a case" points to) hold against the tree, as TAP (meson test
'contributing').  The format and operation lists are checked against the toy format and the toy
operation by tests/toy_fmt_test.sh; these are the kernel's and the case's:

  1. every file path the kernel section names exists;
  2. a family is one file: every family file (UG_FAMILY) of kernels/cpu and kernels/cuda is in
     kernels/meson.build's family lists, and no other source of the tree names the family's
     table (adding a kernel touches the family file alone; the registry is generated);
  3. every case file (UG_CASE) of cases/ is in cases/meson.build and its stem in the
     `case_tests` table of tests/meson.build (the two lines docs/cases.md says to add), and
     docs/cases.md still says so.
"""
import os
import re
import sys

from tap import Tap

root = sys.argv[1] if len(sys.argv) > 1 else "."
tap = Tap(20)
point = tap.point


def read(p):
    return open(os.path.join(root, p), errors="replace").read()


def code(p):
    """The file without its comments (an example in a comment is no use of a name)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", read(p), flags=re.S)


contrib = read("CONTRIBUTING.md")
kernel_sec = contrib.split("## Adding a kernel\n", 1)[1].split("\n## ", 1)[0]
named = set(re.findall(r"`((?:kernels|cases|ops|base|include|harness)/[A-Za-z0-9_/.]+\.(?:c|cu|h|build))`",
                       kernel_sec))
missing = sorted(p for p in named if not os.path.exists(os.path.join(root, p)))
point(named and not missing, "the kernel section's %d paths exist" % len(named), missing)

kmeson = read("kernels/meson.build")
sources = []
for top in ("include", "base", "kernels", "oracle", "ops", "harness", "cases", "tests", "examples"):
    for r, dirs, fs in os.walk(os.path.join(root, top)):
        dirs[:] = [d for d in dirs if d not in ("corpus", "fuzz")]
        for f in fs:
            if f.endswith((".c", ".cu", ".h", ".cuh")):
                sources.append(os.path.relpath(os.path.join(r, f), root))
unlisted, elsewhere = [], []
for sub in ("cpu", "cuda"):
    for f in sorted(os.listdir(os.path.join(root, "kernels", sub))):
        path = "kernels/%s/%s" % (sub, f)
        m = re.search(r"^UG_FAMILY\(\s*(\w+)\s*,\s*(\w+)", read(path), re.M)
        if not m:
            continue
        if "'%s/%s'" % (sub, f) not in kmeson:
            unlisted.append(path)
        table = m.group(2)
        for s in sources:
            if s != path and re.search(r"\b%s\b" % re.escape(table), code(s)):
                elsewhere.append("%s names %s's table %s" % (s, path, table))
point(not unlisted, "every family file is in kernels/meson.build's family lists", unlisted)
point(not elsewhere, "no other source names a family's table (a kernel touches its family alone)",
      elsewhere)

cmeson, tmeson, cases_doc = read("cases/meson.build"), read("tests/meson.build"), read("docs/cases.md")
missing = []
for r, dirs, fs in os.walk(os.path.join(root, "cases")):
    dirs[:] = [d for d in dirs if d != "corpus"]
    for f in sorted(fs):
        path = os.path.relpath(os.path.join(r, f), root)
        if not f.endswith(".c") or not re.search(r"^UG_CASE", read(path), re.M):
            continue
        rel = os.path.relpath(path, "cases")
        if "'%s'" % rel not in cmeson:
            missing.append("%s not in cases/meson.build" % path)
        if not re.search(r"'%s'" % re.escape(os.path.splitext(os.path.basename(f))[0]), tmeson):
            missing.append("%s's stem not in tests/meson.build's case_tests" % path)
point(not missing, "every case file is in cases/meson.build and tests/meson.build's case_tests", missing)
point("add the file to `cases/meson.build`" in cases_doc and "`case_tests` table of `tests/meson.build`" in cases_doc,
      "docs/cases.md names the two lines a case file needs")
tap.end()
