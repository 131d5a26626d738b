#!/usr/bin/env python3
"""plant_regression.py IN.json OUT.json [FACTOR] - a results.json whose nondeterministic rows'
error figures (ulp_mean, ulp_max, rel_max, bound_ratio_max) are FACTOR (default 2) times the
run's: a planted regression of every nondeterministic kernel, as the gate sees it, on top of the
real run-to-run spread of the run it came from (scripts/gate_history_gpu.sh).  The file is
written back in its own format (format 5: a row is its shape, then its shape's columns; only
the figures change: a figure held as an index into its column's table
points to a new entry of that table).  Prints how many rows were changed."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from same_rows import row_objects  # noqa: E402

FIGURES = ("ulp_mean", "ulp_max", "rel_max", "bound_ratio_max")


def main():
    src, dst = sys.argv[1], sys.argv[2]
    factor = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    d = json.load(open(src))
    dflt, cols, shapes = d.get("defaults", {}), d["columns"], d["shapes"]
    tabs = d.get("tables", {})
    objs, changed = row_objects(d), 0
    for r, o in zip(d["results"], objs):
        full = dict(dflt, **o)
        if not full.get("measured", True) or full.get("deterministic") is not False:
            continue
        names = [cols[i] for i in shapes[r[0]]]
        for j, name in enumerate(names):
            if name not in FIGURES or not isinstance(r[1 + j], (int, float)):
                continue
            if name in tabs:  # the value is an index into its column's table: a new entry
                tabs[name].append(tabs[name][r[1 + j]] * factor)
                r[1 + j] = len(tabs[name]) - 1
            else:
                r[1 + j] = r[1 + j] * factor
        changed += 1
    json.dump(d, open(dst, "w"))
    print(f"{changed} nondeterministic rows x{factor:g}")
    return 0 if changed else 1


if __name__ == "__main__":
    sys.exit(main())
