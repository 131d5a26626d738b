#!/usr/bin/env python3
"""cuda_kernel_names.py FILE... - the names of the kernel rows of the CUDA family files, one
line, space-separated (top meson.build: UG_CUDA_KERNEL_NAMES of ug_config.h).  A build without
CUDA registers none of them, yet a corpus file's `# kernels:` and `# xfail:` globs name them: with
this list such a build tells a GPU kernel's name (a note: it cannot run here) from a stale or
mistyped one (a failure, as in a CUDA build).  A row is `.name = "..."`; a family that makes its
rows with a macro passes the name as its first argument, a string literal or an identifier that
the macro stringifies (#name)."""
import re
import sys

names = set()
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    names.update(re.findall(r"\.name\s*=\s*\"([A-Za-z0-9_.+-]+)\"", text))
    # macros whose body has `.name = #arg`: each use's argument at that position
    for m in re.finditer(r"#define\s+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", text):
        macro, params, body = m.group(1), [p.strip() for p in m.group(2).split(",")], m.group(3)
        stringified = re.search(r"\.name\s*=\s*#\s*(\w+)", body)
        if not stringified or stringified.group(1) not in params:
            continue
        at = params.index(stringified.group(1))
        for use in re.finditer(r"\b%s\s*\(([^()]*)\)" % macro, text[m.end():]):
            args = [a.strip() for a in use.group(1).split(",")]
            if len(args) > at and re.fullmatch(r"[A-Za-z0-9_]+", args[at]):
                names.add(args[at])
print(" ".join(sorted(names)))
