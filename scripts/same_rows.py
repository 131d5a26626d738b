#!/usr/bin/env python3
"""same_rows.py OLD.json NEW.json - check that two baselines (or two results.json) hold the same
rows with the same fields and bit-identical figures, whatever their format version: every key of
every row equal (floats compared by their bits, "inf"/"nan" strings as written).  Used to check a
'ulpgate baseline migrate' (docs/results-schema.md).  Exit 0 if equal, 1 with the
differences listed."""
import json
import struct
import sys


def rows(path):
    d = json.load(open(path))
    rs = d.get("rows", d.get("results"))
    out = {}
    for r in rs:
        r = dict(r)
        r.update(r.pop("extra", {}))  # format 2 keeps seldom-used figures in "extra"
        out[r["id"]] = r
    return out


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return struct.pack("<d", float(a)) == struct.pack("<d", float(b))
    return type(a) is type(b) and a == b


def main():
    old, new = rows(sys.argv[1]), rows(sys.argv[2])
    bad = [f"only in {sys.argv[1]}: {i}" for i in old if i not in new]
    bad += [f"only in {sys.argv[2]}: {i}" for i in new if i not in old]
    figures = 0
    for i in old.keys() & new.keys():
        a, b = old[i], new[i]
        for k in a.keys() | b.keys():
            figures += 1
            if k not in a or k not in b or not same(a[k], b[k]):
                bad.append(f"{i}: {k}: {a.get(k, '(absent)')!r} -> {b.get(k, '(absent)')!r}")
    for line in bad[:50]:
        print(line)
    print(f"{len(old)} rows, {figures} fields compared: {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
