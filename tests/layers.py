#!/usr/bin/env python3
"""layers.py SRCROOT - the build's structural rules, as TAP (meson test 'layers').

  1. No include climbs out of its folder ("../"): every quoted #include names its folder from the
     project root ("harness/run/run.h"), or is a header the build generates at the build root.
  2. Each folder includes only itself and the folders below it (LAYERS, bottom first).  The
     cases and the tests stand above everything.
  3. No folder holds more than MAX_FILES source files (a folder that grows past it is two
     subsystems: split it).
  4. Only an operation's own descriptor (ops/) and a kernel family's own launcher switch on the
     operation: no `case UG_OP_` or `== UG_OP_` / `!= UG_OP_` anywhere else.
  5. No two C files of one folder call each other (a circle: what both use belongs in a third
     file below them, as harness/gate/baseline_rows.c is for baseline.c and baseline_lines.c).
     A file's functions are its non-static ug_ definitions; a call is ug_name( outside comments.
  6. The Python package (python/ulpgate/*.py) imports only its extension module
     (ulpgate._ulpgate, the C library) and its own modules, plus, per file, the few modules that
     file is the boundary to (PY_ALLOWED: pytest for the plugin, Hypothesis for the
     strategies, os/sys to start the CLI): no NumPy, math, struct, decimal, fractions ... in
     which a second copy of a bound, the oracle or a format could be written.
"""
import os
import re
import sys

LAYERS = ["include", "base", "kernels", "oracle", "ops", "harness/results", "harness/inputs", "harness/check",
          "harness/run",
          "harness/search", "harness/scale", "harness/gate", "harness/report", "harness/cli"]
TOP = ["cases", "tests", "examples", "python"]
GENERATED = {"ug_config.h", "ug_git.h", "kernels/ug_families.h", "ops/ug_ops.h"}
MAX_FILES = 25
# rule 6: what each file of the Python package may import besides ulpgate._ulpgate and its own
# modules ("." or "ulpgate")
PY_PKG = "python/ulpgate"
PY_ALLOWED = {"__init__.py": set(), "_result.py": set(), "_cli.py": {"os", "sys"},
              "pytest_plugin.py": {"os", "sys", "pytest"}, "strategies.py": {"hypothesis"}}
SRC = re.compile(r"\.(c|h|cu|cuh)$")
OP_SWITCH = re.compile(r"(case\s+UG_OP_|[=!]=\s*UG_OP_)")
# where a switch on the operation belongs: the descriptors, and kernel families (a launcher may
# refuse an operation it does not implement) -- not the harness, the oracle or the cases
OP_SWITCH_OK = ("ops/", "kernels/cpu/", "kernels/cuda/")

root = sys.argv[1] if len(sys.argv) > 1 else "."
n = 0
fail = 0


def point(ok, name, diag=()):
    global n, fail
    n += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, name))
    if not ok:
        fail = 1
        for d in list(diag)[:40]:
            print("#   " + d)


def folder(path):
    parts = path.split("/")
    if parts[0] == "harness" and len(parts) > 2:
        return "harness/" + parts[1]
    return parts[0]


sources = []
for d in LAYERS + TOP:
    top = os.path.join(root, d)
    for dirpath, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x not in ("corpus", "fuzz_corpus")]
        for f in files:
            if SRC.search(f):
                sources.append(os.path.relpath(os.path.join(dirpath, f), root))
sources.sort()

climb, unresolved, upward, switches = [], [], [], []
for s in sources:
    text = open(os.path.join(root, s), encoding="utf-8", errors="replace").read()
    for m in re.finditer(r'#\s*include\s+"([^"]+)"', text):
        inc = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        where = "%s:%d: %s" % (s, line, inc)
        if inc.startswith("../") or "/../" in inc:
            climb.append(where)
            continue
        if inc in GENERATED:
            continue
        if not os.path.exists(os.path.join(root, inc)):
            unresolved.append(where + " (not a path from the project root)")
            continue
        a, b = folder(s), folder(inc)
        if a in TOP or a == b:
            continue
        if b in TOP or b not in LAYERS or a not in LAYERS or LAYERS.index(b) > LAYERS.index(a):
            upward.append(where + " (%s may not include %s)" % (a, b))
    if not s.startswith(OP_SWITCH_OK) and not s.startswith(("tests/", "cases/", "examples/")):
        for i, l in enumerate(text.split("\n"), 1):
            if OP_SWITCH.search(l):
                switches.append("%s:%d: %s" % (s, i, l.strip()))

# rule 5: the calls between the C files of one folder, by the ug_ functions each defines
DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(ug_\w+)\(([^;]*)$")
CALL = re.compile(r"\b(ug_\w+)\s*\(")
defined, calls = {}, {}
for s in sources:
    if not s.endswith(".c") or folder(s) in TOP:
        continue
    text = open(os.path.join(root, s), encoding="utf-8", errors="replace").read()
    for line in text.split("\n"):
        m = DEF.match(line)
        if m and not line.rstrip().endswith(";"):
            defined.setdefault(m.group(1), s)
    calls[s] = set(CALL.findall(re.sub(r"/\*.*?\*/", "", text, flags=re.S)))
edges = {}
for s, names in calls.items():
    for c in names:
        d = defined.get(c)
        if d and d != s and os.path.dirname(d) == os.path.dirname(s):
            edges.setdefault(s, {}).setdefault(d, c)
circles = ["%s calls %s (%s) and is called by it (%s)" % (a, b, edges[a][b], edges[b][a])
           for a in sorted(edges) for b in sorted(edges[a]) if a < b and a in edges.get(b, {})]

counts = {}
for s in sources:
    counts.setdefault(os.path.dirname(s), []).append(s)
big = ["%s: %d source files" % (d, len(v)) for d, v in sorted(counts.items())
       if len(v) > MAX_FILES and not d.startswith("tests")]

# rule 6: the Python package's imports
py_bad = []
pkg = os.path.join(root, PY_PKG)
py_files = sorted(f for f in os.listdir(pkg) if f.endswith(".py")) if os.path.isdir(pkg) else []
IMPORT = re.compile(r"^\s*(?:from\s+(\S+)\s+import|import\s+(.+))$")
for f in py_files:
    allowed = PY_ALLOWED.get(f)
    if allowed is None:
        py_bad.append("%s/%s: a module layers.py does not know (add it to PY_ALLOWED)" % (PY_PKG, f))
        continue
    for i, line in enumerate(open(os.path.join(pkg, f), encoding="utf-8"), 1):
        m = IMPORT.match(line.split("#")[0].rstrip())
        if not m:
            continue
        names = [m.group(1)] if m.group(1) else [x.split(" as ")[0].strip() for x in m.group(2).split(",")]
        for name in names:
            top = name.split(".")[0]
            if name.startswith(".") or top == "ulpgate" or top in allowed:
                continue
            py_bad.append("%s/%s:%d: imports %s" % (PY_PKG, f, i, name))

point(not climb, "no include climbs out of its folder (\"../\")", climb)
point(not unresolved, "every include names its folder from the project root", unresolved)
point(not upward, "each folder includes only itself and the folders below it", upward)
point(not big, "no folder holds more than %d source files" % MAX_FILES, big)
point(not circles, "no two C files of one folder call each other", circles)
if py_files:
    point(not py_bad, "the Python package imports only its extension module (and per-file boundaries)",
          py_bad)
if os.path.isdir(os.path.join(root, "ops")):
    point(not switches, "only operation descriptors and kernel families switch on the operation",
          switches)
else:  # until the operation table lands (issue 21)
    n += 1
    print("ok %d - only operation descriptors switch on the operation # SKIP no ops/ yet" % n)
print("1..%d" % n)
sys.exit(fail)
