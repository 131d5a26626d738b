#!/bin/sh
# results_format_test.sh ULPGATE SRCDIR - the results format as a user meets it: a run writes
# "format": 5 (each row an array: its shape, then the values of the shape's columns) with the
# seldom-used figures in "extra"; format 4 (positional rows, null for a value left out) and 3
# (object rows) still read to the same rows; a file of a newer format is refused (exit 2,
# the file and both versions named) by report, summary, compare, merge, costs and baseline
# show/update; a figure that is missing, null, "NaN", "abc" or of the wrong type is refused naming
# the file, row and key, never read as 0; single-file baselines of format 1 and 2 (one object a
# row) and 3 (grouped lines) still read and migrate to the folder of format 4 with every row
# unchanged; the committed runs/ file, older than format 1, is refused.
ug="$1"
src="$2"
. "$(dirname "$0")/tap.sh"
edit() { python3 -c "import json,sys; sys.path.insert(0, '$ug_scripts'); from same_rows import results_rows; d=json.load(open(sys.argv[1])); 'results' in d and d.update(results=results_rows(d)); rows=d.get('results', d.get('rows')); $3; json.dump(d, open(sys.argv[2], 'w'))" "$1" "$2"; }
row='seven_methods/table pairwise_halves@default normal(0,1) 1024'
newer="results format 6 is newer than this ulpgate reads (5): update ulpgate or regenerate the file with 'ulpgate run --report DIR'"

echo "TAP version 13"
"$ug" run --filter 'seven_methods/table' --report "$tmp/c" --tap >"$tmp/run.tap" 2>&1
check "a default run is compact: \"detail\": false, no worst elements or detail fields in passing rows, the gate's fields kept" \
  'json "$tmp/c/results.json" "r=[x for x in d[\"results\"] if x[\"id\"]==\"$row\"][0]; assert d[\"detail\"] is False; assert \"worst_ulp\" not in r and \"abs_err_sum\" not in r and \"method\" not in r.get(\"extra\",{}), r; assert all(k in r for k in (\"ulp_max\",\"ulp_mean\",\"rel_max\",\"bound_ratio_max\",\"correctly_rounded\",\"count\",\"ulp_hist\")), r"'
"$ug" run --filter 'seven_methods/table' --report "$tmp/a" --detail --tap >"$tmp/run.tap" 2>&1
check "run --detail writes format 5, method and the *_rd sums inside \"extra\"" \
  'json "$tmp/a/results.json" "r=[x for x in d[\"results\"] if x[\"id\"]==\"$row\"][0]; assert d[\"format\"]==5; assert r[\"extra\"][\"method\"]==5 and r[\"extra\"][\"abs_err_sum_rd\"]>0 and \"method\" not in r and \"abs_err_sum_rd\" not in r, r"'
run report "$tmp/a" --baseline none
check "report of the seven-methods run: exit 0, its kernel rollup" \
  '[ "$(rc)" = 0 ] && grep -q "^## Kernels" "$tmp/a/summary.md" && grep -q "^| pairwise_halves@default | sum |" "$tmp/a/summary.md"'
run compare "$tmp/a/results.json" "$tmp/c/results.json"
check "compare of the full run (BASE) and the compact one (NEW): every row the same" \
  '[ "$(rc)" = 0 ] && grep -q " 0 regressed, 0 improved, [0-9]* same" "$tmp/out"'

# format 3 (one object a row, before the columnar rows of format 4) still reads: the run's rows
# as objects under "format": 3 give the gate the same rows
edit "$tmp/c/results.json" "$tmp/f3.json" "d['format']=3; d.pop('columns'); d.pop('tables'); d.pop('shapes')"
run compare "$tmp/c/results.json" "$tmp/f3.json"
check "a format 3 file (object rows) still reads: compared with the format 5 one, every row the same" \
  '[ "$(rc)" = 0 ] && grep -q " 0 regressed, 0 improved, [0-9]* same" "$tmp/out" && ! grep -q "^\[" "$tmp/f3.json"'
# format 4 (before shapes): every row an array of all the columns, null for a value left out, a
# row stopping before the last column; written here from the format 5 file as ulpgate 4 did
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
cols, shapes = d['columns'], d.pop('shapes')
rows = []
for r in d['results']:
    rest = [r[-1]] if isinstance(r[-1], dict) else []
    vals = r[:-1] if rest else r
    full = [None] * len(cols)
    for c, v in zip(shapes[vals[0]], vals[1:]):
        full[c] = v
    while full and full[-1] is None:
        full.pop()
    rows.append(full + rest)
d['results'], d['format'] = rows, 4
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/c/results.json" "$tmp/f4.json"
run compare "$tmp/c/results.json" "$tmp/f4.json"
check "a format 4 file (positional rows with nulls) still reads: compared with the format 5 one, every row the same" \
  '[ "$(rc)" = 0 ] && grep -q " 0 regressed, 0 improved, [0-9]* same" "$tmp/out" && grep -q "null" "$tmp/f4.json"'
run compare "$tmp/f4.json" "$tmp/c/results.json"
check "... and as BASE" '[ "$(rc)" = 0 ] && grep -q " 0 regressed, 0 improved, [0-9]* same" "$tmp/out"'

# ---- a newer format ---------------------------------------------------------------------------
mkdir -p "$tmp/v3"
edit "$tmp/a/results.json" "$tmp/v3/results.json" "d['format']=6"
run report "$tmp/v3"
check "report of a format 6 file: exit 2, the file and both versions named" \
  '[ "$(rc)" = 2 ] && grep -qF "$tmp/v3/results.json: $newer" "$tmp/err"'
run compare "$tmp/a/results.json" "$tmp/v3/results.json"
check "compare NEW of format 6: exit 2, the message" \
  '[ "$(rc)" = 2 ] && grep -qF "compare: $tmp/v3/results.json: $newer" "$tmp/err"'
run compare "$tmp/v3/results.json" "$tmp/a/results.json"
check "compare BASE of format 6: exit 2" '[ "$(rc)" = 2 ] && grep -qF "$tmp/v3/results.json: $newer" "$tmp/err"'
run summary "$tmp/v3/results.json"
check "summary: exit 2" '[ "$(rc)" = 2 ] && grep -qF "$newer" "$tmp/err"'
run merge "$tmp/m.json" "$tmp/a/results.json" "$tmp/v3/results.json"
check "merge: exit 2" '[ "$(rc)" = 2 ] && grep -qF "$tmp/v3/results.json: $newer" "$tmp/err"'
run costs "$tmp/v3/results.json"
check "costs: exit 2" '[ "$(rc)" = 2 ] && grep -qF "$newer" "$tmp/err"'
run baseline update --from "$tmp/v3/results.json" --dir "$tmp/bl"
check "baseline update --from a format 6 run: exit 2" '[ "$(rc)" = 2 ] && grep -qF "$newer" "$tmp/err"'
cp -r "$src/reports/baselines/cpu-x86_64" "$tmp/bl5"
edit "$src/reports/baselines/cpu-x86_64/index.json" "$tmp/bl5/index.json" "d['baseline']['format']=5"
run baseline show "$tmp/bl5"
check "baseline show of a format 5 baseline: exit 2" \
  '[ "$(rc)" = 2 ] && grep -qF "$tmp/bl5/index.json: baseline format 5 is newer than this ulpgate reads (4)" "$tmp/err"'

# ---- bad figures ------------------------------------------------------------------------------
bad() { # NAME PYTHON-STATEMENT-ON-r WANT
  edit "$tmp/a/results.json" "$tmp/bad.json" "[exec(\"$2\") for r in rows if r['id']=='$row']"
  run compare "$tmp/a/results.json" "$tmp/bad.json"
  check "compare, $1: exit 2 naming the file, row and key" \
    '[ "$(rc)" = 2 ] && grep -qF "$tmp/bad.json: result " "$tmp/err" && grep -qF "($row): $3" "$tmp/err"'
}
bad "ulp_max missing" "del r['ulp_max']" '"ulp_max" is missing'
bad "ulp_max null" "r['ulp_max']=None" '"ulp_max" is null'
bad "ulp_max \"NaN\"" "r['ulp_max']='NaN'" '"ulp_max" is the string "NaN", not a number'
bad "ulp_max \"abc\"" "r['ulp_max']='abc'" '"ulp_max" is the string "abc", not a number'
bad "ulp_max a bool" "r['ulp_max']=True" '"ulp_max" is a bool, not a number'
bad "count nan" "r['count']='nan'" '"count" is nan, not a non-negative integer'
bad "method in extra a string" "r['extra']['method']='5'" '"method" is a string, not a number'
edit "$tmp/a/results.json" "$tmp/a/results.json" "[r.update(bound_ratio_max=None) for r in rows if r['id']=='$row']"
run report "$tmp/a" --baseline none
check "report of a null figure: exit 2 naming the key" '[ "$(rc)" = 2 ] && grep -qF "($row): \"bound_ratio_max\" is null" "$tmp/err"'
run baseline update --from "$tmp/a/results.json" --dir "$tmp/bl"
check "baseline update from it: exit 2, nothing written" '[ "$(rc)" = 2 ] && [ -z "$(ls -A "$tmp/bl")" ]'

# ---- older formats ----------------------------------------------------------------------------
# single files made from a baseline folder (format 4): format 3 (the grouped lines of every row
# file in one, each group holding its file's defaults), 2 (one object a row, with the run's
# ids), 1 (2 without the format)
mkdir -p "$tmp/blx"
run baseline update --from "$tmp/c/results.json" --dir "$tmp/blx" --reason "test"
blx=$(ls -d "$tmp"/blx/*/ | head -1)
blx=${blx%/}
python3 - "$blx" "$tmp/c/results.json" "$tmp/bl2.json" "$tmp/bl3.json" "$src/scripts" <<'EOF'
import json, os, sys
sys.path.insert(0, sys.argv[5])
from same_rows import load, key, results_rows
d, res = load(sys.argv[1]), json.load(open(sys.argv[2]))
ids = {key(r): r["id"] for r in results_rows(res)}
rows = [dict(r, id=ids[key(r)]) if r.get("measured") else r for r in d["rows"]]
head = {"tool": "ulpgate", "device": d["baseline"]["device"]}
json.dump({"baseline": dict(head, format=2), "fingerprints": d["fingerprints"],
           "updates": d["updates"], "rows": rows}, open(sys.argv[3], "w"))
index = json.load(open(os.path.join(sys.argv[1], "index.json")))
checks, groups = [], []
for name in index["files"]:
    part = json.load(open(os.path.join(sys.argv[1], name)))
    checks += part["checks"]
    groups += [dict(part["defaults"], **g) for g in part["groups"]]
json.dump({"baseline": dict(head, format=3), "fingerprints": d["fingerprints"],
           "updates": d["updates"], "columns": part["columns"], "defaults": {},
           "checks": checks, "groups": groups}, open(sys.argv[4], "w"))
EOF
edit "$tmp/bl2.json" "$tmp/bl1.json" "d['baseline']['format']=1"
bkey=$(basename "$blx")
for v in 1 2 3; do
  run compare "$tmp/bl$v.json" "$blx" --fail-on-regression
  check "a format $v baseline still reads: compared with its folder (format 4), every row the same" \
    '[ "$(rc)" = 0 ] && grep -Eq "^([0-9]+) rows compared: 0 regressed, 0 improved, \1 same" "$tmp/out"'
  mkdir -p "$tmp/m$v"
  cp "$tmp/bl$v.json" "$tmp/m$v/bl.json"
  run baseline migrate "$tmp/m$v/bl.json" --reason "test"
  check "baseline migrate of format $v: the folder <device key>/ (format 4), the reason logged, every row unchanged, the file removed" \
    '[ "$(rc)" = 0 ] && [ ! -e "$tmp/m$v/bl.json" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"baseline\"][\"format\"]==4 and d[\"updates\"][-1][\"reason\"]==\"test\" and \"format $v -> 4\" in d[\"updates\"][-1][\"changes\"], d[\"updates\"]" "$tmp/m$v/$bkey/index.json" && python3 "$src/scripts/same_rows.py" "$tmp/bl$v.json" "$tmp/m$v/$bkey" >"$tmp/out"'
done
run baseline migrate "$tmp/m1/$bkey" --reason "test"
check "baseline migrate of a format 4 folder: unchanged" \
  '[ "$(rc)" = 0 ] && grep -q "is format 4 already: unchanged" "$tmp/out"'
# An older ulpgate cut a row's operation name to 7 bytes (char[8]); such a name is an error
# naming it, and `baseline migrate` makes it whole in place, every figure as it was
cp -r "$src/reports/baselines/cpu-x86_64" "$tmp/cut"
sed -i 's/"layernorm"/"layerno"/g; s/"logsumexp"/"logsume"/g' "$tmp/cut"/*.json
run baseline show "$tmp/cut"
check "a baseline naming an operation cut to 7 bytes: exit 2, the name, its whole form and migrate" \
  '[ "$(rc)" = 2 ] && grep -Eq "\"op\" is \"(layerno|logsume)\", \"(layernorm|logsumexp)\" cut to 7 bytes.*baseline migrate" "$tmp/err"'
run baseline migrate "$tmp/cut" --reason "test"
check "baseline migrate makes the names whole in place: logged, every row as the committed one" \
  '[ "$(rc)" = 0 ] && grep -q "op names made whole in [1-9][0-9]* rows" "$tmp/out" && ! grep -qE "\"(layerno|logsume)\"" "$tmp/cut"/*.json && python3 "$src/scripts/same_rows.py" "$src/reports/baselines/cpu-x86_64" "$tmp/cut" >"$tmp/out"'
cp -r "$src/reports/baselines/cpu-x86_64" "$tmp/unknown"
sed -i 's/"softmax"/"softmix"/g' "$tmp/unknown"/*.json
run baseline show "$tmp/unknown"
check "an operation this ulpgate does not have: exit 2, naming it and the file" \
  '[ "$(rc)" = 2 ] && grep -q "unknown/.*\"op\" is \"softmix\", not an operation of this ulpgate (sum, dot" "$tmp/err"'
run baseline migrate "$tmp/unknown" --reason "test"
check "... which migrate does not guess: exit 2" '[ "$(rc)" = 2 ] && grep -q "softmix" "$tmp/err"'
cp "$tmp/bl2.json" "$tmp/m1/bl.json"
run baseline migrate "$tmp/m1/bl.json" --reason "test"
check "baseline migrate where the folder exists already: exit 2, both named, nothing removed" \
  '[ "$(rc)" = 2 ] && grep -q "m1/$bkey exists already" "$tmp/err" && [ -f "$tmp/m1/bl.json" ]'
run compare "$src/reports/runs/nvidia-h200-20261121.json" "$tmp/a/results.json"
# (that file also repeats a key in its rows, which the JSON reader refuses first)
check "the committed runs/ file (older than format 1) is refused, not read as failures" \
  '[ "$(rc)" = 2 ] && grep -qE "older than results format 1|duplicate member name" "$tmp/err"'
tap_end
