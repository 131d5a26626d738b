#!/usr/bin/env python3
"""report_stress.py IN/results.json OUTDIR FACTOR - a stress report: results.json of FACTOR times
the rows of a real run's (format 5, docs/results-schema.md), each copy's cases renamed
"<case>~<i>" (copy 0 keeps the names), the summary's counts multiplied; OUTDIR/results.json is
then read by `ulpgate report OUTDIR`, `compare` and `merge` as a run of that size would be.
Used by the report benchmark (scripts/bench_report.sh) and report_size_test.sh."""
import json
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: report_stress.py IN/results.json OUTDIR FACTOR")
    src, out, factor = sys.argv[1], sys.argv[2], int(sys.argv[3])
    d = json.load(open(src))
    if d.get("format") != 5:
        sys.exit("%s: format %r, this script writes format 5 copies" % (src, d.get("format")))
    cases = d["tables"]["case"]
    ncase = len(cases)
    col = d["columns"].index("case")
    rows = list(d["results"])
    for i in range(1, factor):
        cases.extend("%s~%d" % (c, i) for c in cases[:ncase])
        for r in rows:
            shape = d["shapes"][r[0]]
            q = list(r)
            pos = shape.index(col) + 1 if col in shape else None
            if isinstance(q[pos] if pos else None, int):  # an index into tables["case"]
                q[pos] = r[pos] + i * ncase
            elif pos:
                q[pos] = "%s~%d" % (r[pos], i)
            d["results"].append(q)
    for k in d["summary"]:
        d["summary"][k] *= factor
    d["units"] = [dict(u, name="%s~%d" % (u["name"], i) if i else u["name"])
                  for i in range(factor) for u in d["units"]]
    os.makedirs(out, exist_ok=True)
    json.dump(d, open(os.path.join(out, "results.json"), "w"), separators=(",", ":"))


main()
