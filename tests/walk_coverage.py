#!/usr/bin/env python3
"""walk_coverage.py SRCROOT - every registered kernel is selected by some case's walk (TAP).

The run's `coverage every_kernel_measured` point checks this after a whole run, on the backends
the machine has: a CUDA kernel that no case walks is found only on a GPU machine (the
binary32-in, bfloat16-out CUDA row kernels were skipped by UG_FOR_KERNELS, which walks
binary32 buffers only).  This test finds it on any machine, from the sources:

  - the kernels: every row `{.name = "...", ...}` of the families kernels/meson.build lists
    (CPU and CUDA, registered format families included), function-like row macros expanded;
    op, backend (UG_CPU unless .backend = UG_CUDA), .in_store and .out_fmt (UG_F32 unless set);
  - the walks: every UG_FOR_KERNELS / UG_FOR_FMT_KERNELS / UG_FOR_IN_KERNELS in cases/ and
    cases/gpu/, its operation (a UG_OP_ literal, or `ops[o]` from the nearest `ops[] = {...}`
    above it in the file), backend, glob (a string literal, fnmatch on the name part) and
    format; an operation or format that is a variable takes each value the file names
    (every UG_OP_ / format literal in it, and UG_OP_SUM, a parameter row's default .op: an
    over-approximation, so the test errs towards passing, never towards a false failure), a
    glob that is a variable matches anything;
  - the selection, as harness/run/run.c's ug_next_kernel_walk does it: UG_FOR_KERNELS and
    UG_FOR_FMT_KERNELS(..., UG_F32) take binary32 inputs (the operation's arity) and output
    (ug_kernel_is_f32); UG_FOR_FMT_KERNELS(..., F) with F not UG_F32 and UG_FOR_IN_KERNELS(..., F)
    take input 0 stored in F.

Build variants are not modelled (a kernel is covered when some walk selects its name): the
run-time coverage point checks the variants.  Cost: a regex pass over ~100 source files.
"""
import fnmatch
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
n = 0
fail = 0


def point(ok, name, diag=(), todo=None):
    """One TAP point; a todo one is printed `not ok ... # TODO why` (TAP's expected failure)."""
    global n, fail
    n += 1
    print(("ok" if ok and not todo else "not ok") + " %d - %s" % (n, name)
          + (" # TODO " + todo if todo else ""))
    if not ok and not todo:
        fail = 1
    for d in list(diag)[:60]:
        print("#   " + d)


def read(path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def split_args(s):
    """Split s at its top-level commas (parentheses, braces and strings respected)."""
    out, depth, cur, q = [], 0, "", None
    for ch in s:
        if q:
            cur += ch
            if ch == q:
                q = None
            continue
        if ch in "\"'":
            q = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def balanced(s, i):
    """Index just past the bracket group opening at s[i]."""
    depth, q = 0, None
    for j in range(i, len(s)):
        ch = s[j]
        if q:
            if ch == q and s[j - 1] != "\\":
                q = None
            continue
        if ch in "\"'":
            q = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(s)


def expand_macros(src):
    """Expand the file's own function-like and object-like #defines in kernel rows (one level)."""
    src = src.replace("\\\n", " ")
    defs = {}
    for m in re.finditer(r"^#define\s+(\w+)(\(([^)]*)\))?[ \t]+(.*)$", src, re.M):
        defs[m.group(1)] = ([p.strip() for p in m.group(3).split(",")] if m.group(2) else None,
                            m.group(4))
    body = re.sub(r"^#define.*$", "", src, flags=re.M)
    for name, (params, text) in defs.items():
        if params is None:
            body = re.sub(r"\b%s\b" % name, lambda _m: text, body)
            continue
        while True:
            m = re.search(r"\b%s\s*\(" % name, body)
            if not m:
                break
            end = balanced(body, m.end() - 1)
            args = split_args(body[m.end():end - 1])
            out = text
            for p, a in zip(params, args):
                out = re.sub(r"\b%s\b" % re.escape(p), lambda _m, a=a: a, out)
            body = body[:m.start()] + out + body[end:]
    return body


def field(row, name, default=None):
    m = re.search(r"\.%s\s*=\s*(\{[^}]*\}|[^,}]+)" % name, row)
    return m.group(1).strip() if m else default


# ---- the operations' arity (base/opshape.c's table) and the kernels (kernels/meson.build's
# families) ---------------------------------------------------------------------------------------
arity = {}
for m in re.finditer(r'\[(UG_OP_\w+)\]\s*=\s*\{\s*UG_OP_\w+\s*,\s*"\w+"\s*,\s*(\d+)',
                     read("base/opshape.c")):
    arity[m.group(1)] = int(m.group(2))

meson = read("kernels/meson.build")
family_files = re.findall(r"\[\s*'((?:cpu|cuda)/[\w.]+)'", meson)
kernels = []
for f in family_files:
    body = expand_macros(read("kernels/" + f))
    for m in re.finditer(r"\{\s*\.name\s*=\s*\"([^\"]+)\"", body):
        row = body[m.start():balanced(body, m.start())]
        op = field(row, "op")
        store = field(row, "in_store", "{}")
        stores = [x.strip() for x in store.strip("{}").split(",") if x.strip()]
        kernels.append({
            "name": m.group(1), "file": f, "op": op,
            "backend": "UG_CUDA" if field(row, "backend") == "UG_CUDA" else "UG_CPU",
            "in": stores + ["UG_F32"] * (4 - len(stores)),
            "out": field(row, "out_fmt", "UG_F32"),
        })

# ---- the walks (cases/, cases/gpu/) -------------------------------------------------------------
WALK = re.compile(r"\bUG_FOR_(KERNELS|FMT_KERNELS|IN_KERNELS)\s*\(")
walks = []
for d in ("cases", "cases/gpu"):
    for f in sorted(os.listdir(os.path.join(root, d))):
        if not f.endswith(".c"):
            continue
        path = d + "/" + f
        s = read(path)
        for m in WALK.finditer(s):
            args = split_args(s[m.end():balanced(s, m.end() - 1) - 1])
            if len(args) < 5:
                continue
            kind, op, backend, glob = m.group(1), args[2], args[3], args[4]
            fmt = args[5] if len(args) > 5 else "UG_F32"
            if op.startswith("UG_OP_"):
                ops = [op]
            else:
                arr = re.match(r"(\w+)\[", op)
                defs = list(re.finditer(r"\b%s\[\]\s*=\s*\{([^}]*)\}" % arr.group(1), s[:m.start()])) \
                    if arr else []
                # a variable: every operation the file names, and UG_OP_SUM, a parameter row's
                # default .op (harness/run/ug.h)
                ops = [x.strip() for x in defs[-1].group(1).split(",") if x.strip()] if defs else \
                    sorted(set(re.findall(r"\bUG_OP_[A-Z0-9_]+\b", s)) | {"UG_OP_SUM"})
            fmts = [fmt] if re.fullmatch(r"UG_[A-Z0-9]+", fmt) else \
                sorted(set(re.findall(r"\bUG_(?:F32|F64|F16|BF16|E4M3|E5M2)\b", s)) | {"UG_F32"})
            walks.append({
                "where": path, "kind": kind, "ops": ops,
                "backend": backend if backend in ("UG_CPU", "UG_CUDA") else None,
                "glob": glob[1:-1] if glob.startswith('"') else None,
                "fmts": fmts,
            })


def selects(w, k):
    if w["ops"] is not None and k["op"] not in w["ops"]:
        return False
    if w["backend"] is not None and w["backend"] != k["backend"]:
        return False
    if w["glob"] is not None and not fnmatch.fnmatchcase(k["name"], w["glob"].split("@")[0]):
        return False
    for fmt in w["fmts"]:
        if w["kind"] == "IN_KERNELS" or fmt != "UG_F32":
            if k["in"][0] == fmt:
                return True
        elif k["out"] == "UG_F32" and all(x == "UG_F32" for x in k["in"][:arity.get(k["op"], 1)]):
            return True
    return False


point(len(kernels) > 40 and len(walks) > 20 and len(arity) >= 9,
      "sources read: %d kernels of %d families, %d walks, %d operations"
      % (len(kernels), len(family_files), len(walks), len(arity)))
for backend in ("UG_CPU", "UG_CUDA"):
    for op in sorted({k["op"] for k in kernels if k["backend"] == backend}):
        mine = [k for k in kernels if k["backend"] == backend and k["op"] == op]
        missing = [k for k in mine if not any(selects(w, k) for w in walks)]
        name = "every %s kernel of %s is selected by some case's walk (%d kernel(s))" \
            % (backend[3:], op[6:].lower(), len(mine))
        point(not missing, name, diag=
              ["%s (%s, in %s, out %s, kernels/%s): no walk of cases/ selects it"
               % (k["name"], k["backend"], k["in"][0], k["out"], k["file"]) for k in missing])
print("1..%d" % n)
sys.exit(fail)
