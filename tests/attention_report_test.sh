#!/bin/sh
# attention_report_test.sh ULPGATE - attention through the run loop as a report shows it:
# the golden_* cases' rows in results.json carry O's exact deviation (o_ulp_max, o_rel; the
# naive baseline marked dev_base), summary.md's "Attention deviation" table prints each bfloat16
# kernel beside the naive baseline with the ratio of the rows' own figures, and a row's figures
# cover both outputs (O's bfloat16 ULPs are among the row's).  TAP on stdout.
ug="$1"
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
run run --filter 'attention/golden_*' --report "$tmp/r"
check "a run of attention/golden_*: exit 0, a report" '[ "$(rc)" = 0 ] && [ -f "$tmp/r/summary.md" ]'
check "results.json: every bfloat16 row carries o_ulp_max and o_rel, one naive baseline a shape" \
  'json "$tmp/r/results.json" "
rows = [r for r in d[\"results\"] if r.get(\"measured\") and r[\"op\"] == \"attention\" and r[\"status\"] != \"skip\"]
b16 = [r for r in rows if \"bf16\" in r[\"kernel\"]]
assert len(b16) >= 8, len(b16)
for r in b16:
    x = r.get(\"extra\", {})
    assert \"o_ulp_max\" in x and \"o_rel\" in x, r
    assert 0 < x[\"o_ulp_max\"] <= r[\"ulp_max\"], r  # O is graded in the row, in its format
    assert r[\"count\"] == r[\"n\"] * r[\"dim3\"] + r[\"n\"], r  # O and lse
shapes = {(r[\"case\"], r[\"k\"]) for r in b16}
bases = [(r[\"case\"], r[\"k\"]) for r in b16 if r.get(\"extra\", {}).get(\"dev_base\") == 1]
assert sorted(bases) == sorted(shapes), (bases, shapes)"'
check "summary.md: the deviation table, every bfloat16 row, its ratios those of the rows' figures" \
  'json "$tmp/r/results.json" "
md = open(\"$tmp/r/summary.md\").read()
assert \"## Attention deviation\" in md and \"~10x\" in md
tab = [l.split(\" | \") for l in md.split(\"## Attention deviation\")[1].split(\"## \")[0].splitlines() if l.startswith(\"| attention/\")]
rows = [r for r in d[\"results\"] if r.get(\"measured\") and \"o_ulp_max\" in r.get(\"extra\", {})]
assert len(tab) == len(rows), (len(tab), len(rows))
base = {(r[\"case\"], r[\"k\"]): r[\"extra\"] for r in rows if r[\"extra\"].get(\"dev_base\") == 1}
for c in tab:
    r = [x for x in rows if x[\"case\"] == c[0][2:] and x[\"kernel\"] == c[2] and \"x%dx%d\" % (x[\"gemm_n\"], x[\"k\"]) in c[1]][0]
    want = r[\"extra\"][\"o_rel\"] / base[(r[\"case\"], r[\"k\"])][\"o_rel\"]
    assert abs(float(c[6].strip(\" |\")) / want - 1) < 1e-3, (c, want)"'
tap_end
