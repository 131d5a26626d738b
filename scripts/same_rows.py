#!/usr/bin/env python3
"""same_rows.py OLD NEW - check that two baselines (or two results.json) hold the same
rows with the same fields and bit-identical figures, whatever their format version: every key of
every row equal (floats compared by their bits, "inf"/"nan" strings as written).  A baseline
folder (format 4: index.json and the row files it lists) or a format 3 file (grouped lines) is
expanded to its rows first; measured rows are matched by case, kernel, dist and size (formats 3
and 4 store no id: ulpgate makes it from them).  Used to check a
'ulpgate baseline migrate' (docs/results-schema.md).  Exit 0 if equal, 1 with the
differences listed."""
import json
import os
import struct
import sys


def expand(d):
    """The rows of a format 3 baseline (grouped lines, harness/gate/baseline_lines.c) as the row
    objects of a format 2 file, without their id (made by ulpgate from case, kernel, dist and n;
    rows are matched by those fields instead)."""
    cols, dflt = d["columns"], d.get("defaults", {})
    out = list(d["checks"])
    for g in d["groups"]:
        for line in g["rows"]:
            own = line[len(cols)] if len(line) > len(cols) else {}
            r = dict(dflt)
            r.update({k: v for k, v in g.items() if k != "rows"})
            r.update(zip(cols, line[:len(cols)]))
            r.update(own)
            r["measured"] = True
            out.append({k: v for k, v in r.items() if v is not None})
    return out


def load(path):
    """A baseline folder (format 4) as one format 3 document: the index's fingerprints and
    updates, the row files' rows (each file's defaults filled into its own rows); a file as it
    is."""
    if not os.path.isdir(path):
        return json.load(open(path))
    d = json.load(open(os.path.join(path, "index.json")))
    rows = []
    for name in d["files"]:
        rows += expand(json.load(open(os.path.join(path, name))))
    return {"baseline": d["baseline"], "fingerprints": d["fingerprints"],
            "updates": d["updates"], "rows": rows}


def row_objects(d):
    """The rows of a results.json as objects.  A format 5 file's rows are arrays: the row's shape
    (an index into "shapes", each a list of indexes into "columns"), then the values of the
    shape's columns; a format 4 file's rows are arrays of all its "columns", null for a value
    left out (harness/results/results_columns.c).  A column named in "tables" holds an index into
    its table, and a trailing object holds what has no column.  Rows that are objects already
    (older formats, or a file a script rewrote) stay as they are."""
    cols, tabs, shapes = d.get("columns", []), d.get("tables", {}), d.get("shapes")
    out = []
    for r in d["results"]:
        if isinstance(r, list):
            rest = r[-1] if r and isinstance(r[-1], dict) else {}
            vals = r[:-1] if r and isinstance(r[-1], dict) else r
            names = cols
            if shapes is not None:
                names, vals = [cols[i] for i in shapes[vals[0]]], vals[1:]
                assert len(names) == len(vals), (names, vals)
            o = {}
            for c, v in zip(names, vals):
                if v is not None:
                    o[c] = tabs[c][v] if c in tabs else v
            o.update(rest)
            r = o
        out.append(r)
    return out


def id_part(s):
    return s.replace(" ", "_")


def make_id(r):
    """The id ulpgate makes of a row (ug_row_make_id, harness/results/results.c)."""
    if not r.get("measured"):
        return "%s %s" % (id_part(r["case"]), id_part(r["point"]))
    head = "%s %s %s" % (id_part(r["case"]), id_part(r["kernel"]), id_part(r["dist"]))
    one = lambda k: r.get(k) or 1
    axes = one("batch") > 1 or one("heads") > 1 or one("kv_heads") > 1
    if "dim3" in r or axes:  # more than three dims, or batch/head axes (attention)
        dims = [r["n"], r.get("gemm_n", r["n"]), r.get("k", r["n"])]
        dims += [r[k] for k in ("dim3", "dim4", "dim5") if k in r]
        text = "x".join("%d" % v for v in dims)
        if axes:
            text += "_b%d_h%d_kv%d" % (one("batch"), one("heads"), r.get("kv_heads") or one("heads"))
        return "%s %s" % (head, text)
    if "m" in r and not (r["m"] == r["gemm_n"] == r["k"]):
        return "%s %dx%dx%d" % (head, r["m"], r["gemm_n"], r["k"])
    return "%s %d" % (head, r["n"])


def results_rows(d):
    """The rows of a results.json with what a compact file of format 3, 4 or 5 leaves out filled
    back (docs/results-schema.md): the values of its "defaults" (status, device and seed only
    in a check row), a case or dist equal to the row before's (format 3), a kappa_max equal to
    that of the row before when it measured the same inputs, and (formats 4 and 5) the id.  A measured
    row's point, gbps / gflops and the histogram's trailing zero buckets are not made back here
    (ulpgate makes them)."""
    dflt, out, prev = d.get("defaults", {}), [], None
    same = ("case", "dist", "n", "m", "gemm_n", "k", "dim3", "dim4", "dim5", "batch", "heads",
            "kv_heads")
    for r in row_objects(d):
        meas = r.get("measured", dflt.get("measured"))
        full = {k: v for k, v in dflt.items() if meas or k in ("status", "device", "seed")}
        for k in ("case", "dist") if prev else ():
            if k not in r and (k == "case" or meas) and k in prev:
                full[k] = prev[k]
        full.update(r)
        if (meas and prev and prev.get("measured") and "kappa_max" not in full
                and all(prev.get(k) == full.get(k) for k in same)):
            full["kappa_max"] = prev["kappa_max"]
        if "id" not in full:
            full["id"] = make_id(full)
        out.append(full)
        prev = full
    return out


def key(r):
    if not r.get("measured"):
        return r["id"]
    return tuple(r.get(k) for k in ("case", "kernel", "dist", "n", "m", "gemm_n", "k", "dim3",
                                    "dim4", "dim5", "batch", "heads", "kv_heads"))


def rows(path):
    d = load(path)
    grouped = d.get("baseline", {}).get("format", 0) >= 3
    rs = d["rows"] if "rows" in d else expand(d) if grouped else results_rows(d)
    out = {}
    for r in rs:
        r = dict(r)
        r.update(r.pop("extra", {}))  # format 2 keeps seldom-used figures in "extra"
        if r.get("measured") and (grouped or r.get("id")):
            r.pop("id", None)  # a format 3 line has none: matched by its fields (key)
        out[key(r)] = r
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
