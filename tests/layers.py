#!/usr/bin/env python3
"""layers.py SRCROOT - the build's structural rules, as TAP (meson test 'layers').

  1. No include climbs out of its folder ("../"): every quoted #include names its folder from the
     project root ("harness/run/run.h"), or is a header the build generates at the build root.
  2. Each folder includes only itself and the folders below it (LAYERS, bottom first).  The
     cases and the tests stand above everything.
  3. No folder holds more than MAX_FILES files that compile (.c, .cu: a folder that grows past
     it is two subsystems, split it; its headers are not counted, so a file split in two costs
     one), and no source file of a layer holds more than MAX_LINES lines.
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
  7. No operation's name is compared outside the descriptors (ops/) and the kernel families:
     no strcmp/strncmp of ug_op_name(..) or of a string literal that is an operation's name
     (the names of base/opshape.c's table).  What depends on the operation is a field of its
     shape row or its descriptor.
  8. No call runs up the layers at link time: a C or CUDA file of a layer calls no ug_ function
     defined (non-static) in a file of a higher layer (an include check cannot see a function
     declared in a low header and defined above it, as kernels/kernel.h's ug_op_name was).
The mutants of each rule are in tests/mutation/mutants_surfaces.py (layers_*).
"""
import os
import re
import sys

from tap import Tap

LAYERS = ["include", "base", "kernels", "oracle", "ops", "harness/results", "harness/inputs", "harness/check",
          "harness/measure", "harness/run", "harness/invariance",
          "harness/search", "harness/scale", "harness/gate", "harness/report", "harness/cli"]
TOP = ["cases", "tests", "examples", "python"]
GENERATED = {"ug_config.h", "ug_git.h", "kernels/ug_families.h", "kernels/ug_cpu_model.h",
             "ops/ug_ops.h"}
MAX_FILES = 25
MAX_LINES = 650
# rule 6: what each file of the Python package may import besides ulpgate._ulpgate and its own
# modules ("." or "ulpgate")
PY_PKG = "python/ulpgate"
PY_ALLOWED = {"__init__.py": set(), "_result.py": set(), "_cli.py": {"os", "sys"},
              "pytest_plugin.py": {"os", "sys", "pytest"}, "strategies.py": {"hypothesis"}}
SRC = re.compile(r"\.(c|h|cu|cuh)$")
# the operations' names: the rows of the shape table (rule 7)
OPSHAPE = os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "base", "opshape.c")
OP_NAMES = set(re.findall(r'\[UG_OP_\w+\]\s*=\s*\{\s*UG_OP_\w+\s*,\s*"(\w+)"',
                          open(OPSHAPE).read())) if os.path.exists(OPSHAPE) else set()
NAME_CMP = re.compile(r'\bstrn?cmp\s*\(([^;]*)')
OP_SWITCH = re.compile(r"(case\s+UG_OP_|[=!]=\s*UG_OP_)")
# where a switch on the operation belongs: the descriptors, and kernel families (a launcher may
# refuse an operation it does not implement) -- not the harness, the oracle or the cases
OP_SWITCH_OK = ("ops/", "kernels/cpu/", "kernels/cuda/")

root = sys.argv[1] if len(sys.argv) > 1 else "."
tap = Tap(40)
point = tap.point


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

climb, unresolved, upward, switches, namecmp = [], [], [], [], []
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
    if not s.startswith(OP_SWITCH_OK) and not s.startswith(("tests/", "examples/")):
        for i, l in enumerate(text.split("\n"), 1):
            m = NAME_CMP.search(l)
            if m and ("ug_op_name(" in m.group(1) or "ug_opshape_name(" in m.group(1) or
                      any('"%s"' % name in m.group(1) for name in OP_NAMES)):
                namecmp.append("%s:%d: %s" % (s, i, l.strip()))

# rule 5: the calls between the C files of one folder, by the ug_ functions each defines
DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(ug_\w+)\(([^;]*)$")
# a definition on one line: "const char *ug_op_name(ug_op op) { return ...; }"
DEF_ONE_LINE = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(ug_\w+)\([^;{]*\)\s*\{")
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
# rule 8: every call from a file of a layer to a function defined in a higher layer
layer_defs = {}
for s in sources:
    if not s.endswith((".c", ".cu")) or folder(s) not in LAYERS:
        continue
    text = open(os.path.join(root, s), encoding="utf-8", errors="replace").read()
    for line in text.split("\n"):
        m = DEF.match(line)
        if not (m and not line.rstrip().endswith(";")):
            m = DEF_ONE_LINE.match(line)
        if m:
            layer_defs.setdefault(m.group(1), set()).add(folder(s))
upcalls = []
for s in sources:
    if not s.endswith((".c", ".cu", ".h", ".cuh")) or folder(s) not in LAYERS:
        continue
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", open(os.path.join(root, s), encoding="utf-8",
                                                 errors="replace").read(), flags=re.S)
    here = LAYERS.index(folder(s))
    for c in sorted(set(CALL.findall(text))):
        where = layer_defs.get(c, set())
        # defined at or below this layer too (a fallback beside a higher definition): not upward
        if where and min(LAYERS.index(f) for f in where) > here:
            upcalls.append("%s calls %s, defined in %s" % (s, c, ", ".join(sorted(where))))
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
    if s.endswith((".c", ".cu")):
        counts.setdefault(os.path.dirname(s), []).append(s)
big = ["%s: %d .c/.cu files" % (d, len(v)) for d, v in sorted(counts.items())
       if len(v) > MAX_FILES and not d.startswith("tests")]
long_files = []
for s in sources:
    if folder(s) in LAYERS:
        n = sum(1 for _ in open(os.path.join(root, s), errors="replace"))
        if n > MAX_LINES:
            long_files.append("%s: %d lines" % (s, n))

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
point(not big, "no folder holds more than %d .c/.cu files" % MAX_FILES, big)
point(not long_files, "no source file of a layer holds more than %d lines" % MAX_LINES, long_files)
point(not circles, "no two C files of one folder call each other", circles)
if py_files:
    point(not py_bad, "the Python package imports only its extension module (and per-file boundaries)",
          py_bad)
point(not switches, "only operation descriptors and kernel families switch on the operation",
      switches)
point(not namecmp, "no operation's name is compared outside descriptors and kernel families",
      namecmp)
point(not upcalls, "no call runs up the layers at link time", upcalls)
tap.end()
