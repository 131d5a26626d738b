#!/bin/sh
# toy_op_test.sh ULPGATE_TOYOP ULPGATE_TOYOP_MUTANT OUTDIR - the operation table's proof:
# max_abs, an operation that exists only in tests/toy_op/ (its descriptor, its kernel
# family, its case), goes through `run --report`, `report` and the gate (`baseline update`, then
# the gate script tests/gate_test.sh against that baseline), a corpus file of op max_abs and the
# hunt, with no change to the harness.  The correct max_abs_f32 passes; the mutant build's (it
# skips the last element) fails with the usual assertion and rerun line, fails the corpus file's
# check, is caught by the hunt, and the gate reports the regression.  TAP on stdout.
ug="$1"
mut="$2"
out="$3"
rm -rf "$out"
mkdir -p "$out" || exit 1
tmp="$out"
src="$(cd "$(dirname "$0")/.." && pwd)"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
run list
check "list names the kernel and its operation: max_abs_f32@default max_abs" \
  'grep -Eq "max_abs_f32@default +max_abs " "$tmp/out"'

run run --tap --filter 'toy/*' --report "$out/good"
check "run: the correct kernel passes (exit 0)" \
  '[ "$(rc)" = 0 ] && grep -q "^ok .* - toy/normal max_abs_f32@default n=10000" "$tmp/out" && ! grep -q "^not ok" "$tmp/out"'
check "its figures: 0 ulp on every output" \
  'grep -q "figures: ulp_max 0," "$tmp/out" && ! grep "figures:" "$tmp/out" | grep -vq "ulp_max 0,"'
json "$out/good/results.json" 'rows = [r for r in d["results"] if r["kernel"] == "max_abs_f32@default"]; assert len(rows) == 8, len(rows); assert all(r["op"] == "max_abs" and r["ulp_max"] == 0 and r["status"] == "pass" for r in rows), rows[0]' \
  >"$tmp/json.err" 2>&1
jrc=$?
check "results.json: 8 rows of op max_abs, 0 ulp, pass" '[ "$jrc" = 0 ]'

run report "$out/good"
check "report DIR: summary.md and index.html" \
  '[ "$(rc)" = 0 ] && grep -q "max_abs_f32" "$out/good/summary.md" && [ -s "$out/good/index.html" ]'

mkdir -p "$out/baselines"
key=$("$ug" baseline key --from "$out/good/results.json" 2>/dev/null)
run baseline update --from "$out/good/results.json" --dir "$out/baselines" --reason "toy op"
check "baseline update writes this device's baseline" '[ "$(rc)" = 0 ] && [ -f "$out/baselines/$key/index.json" ]'
GATE_BASELINES="$out/baselines" sh "$src/tests/gate_test.sh" "$ug" "$src" "$out/gate_good" \
  --filter 'toy/*' >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "the gate passes the correct kernel against it" \
  '[ "$(rc)" = 0 ] && grep -q "^ok 2 - no regression" "$tmp/out"'

"$mut" run --tap --filter 'toy/*' --report "$out/bad" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "run: the mutant (skips the last element) fails (exit 1)" '[ "$(rc)" = 1 ]'
check "with the usual assertion line" \
  'grep -Eq "^# .*tests/toy_op/max_abs_case.c:[0-9]+: UG_EXPECT_ULP_MAX\(r, 0\) failed: max [0-9.e+]+ ulp > 0" "$tmp/out"'
check "and the rerun line" \
  'grep -Eq "^#   rerun: .* run --filter toy/[a-z_0-9]+ --kernel max_abs_f32@default --n [0-9]+ --trial [0-9]+ --seed 0x5eed" "$tmp/out"'

# the corpus and the hunt meet the operation through its descriptor too
run run --tap --filter 'corpus/last_is_max' --corpus "$src/tests/toy_op/corpus"
check "a corpus file of op max_abs: the correct kernel passes" \
  '[ "$(rc)" = 0 ] && grep -q "^ok 1 - corpus/last_is_max max_abs_f32@default n=4" "$tmp/out"'
"$mut" run --tap --filter 'corpus/last_is_max' --corpus "$src/tests/toy_op/corpus" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "the mutant fails the file's check at its line" \
  '[ "$(rc)" = 1 ] && grep -q "last_is_max.txt:4: check ulp_max 0 failed" "$tmp/out"'
"$mut" hunt --kernel max_abs_f32 --n 50 --objective ulp --evals 300 --out "$out/hunt.txt" \
  >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "hunt finds the mutant's breach, writes it as op max_abs and rereads it" \
  '[ "$(rc)" = 0 ] && grep -q "reproduces the breach" "$tmp/out" && grep -q "^# op: max_abs$" "$out/hunt.txt"'

GATE_BASELINES="$out/baselines" sh "$src/tests/gate_test.sh" "$mut" "$src" "$out/gate_bad" \
  --filter 'toy/*' >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "the gate fails the mutant with the regression table" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok 2 - regressions against" "$tmp/out" && grep -q "^# REGRESSION toy/.* max_abs_f32@default" "$tmp/out"'
tap_end
