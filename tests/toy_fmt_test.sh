#!/bin/sh
# toy_fmt_test.sh ULPGATE_TOYFMT ULPGATE_TOYFMT_MUTANT SRCDIR OUTDIR - the format table's proof
#: FP5 E3M1, a format that exists only in tests/toy_fmt/ (its row registered
# with base/format.h's ug_fmt_register, a kernel family storing it, its cases), goes through
# its conversions (all 32 codes and a grid past its range against the test's reference), `run
# --report`, `report` and the gate (`baseline update`, then tests/gate_test.sh against that
# baseline) with no change to the harness.  The correct sum_e3m1 passes; the mutant build's (it
# truncates its output instead of rounding to nearest even) fails with the usual assertion and
# rerun line and the gate reports the regression.  Then CONTRIBUTING.md's file lists for a
# format and an operation defined outside the tree are checked against tests/toy_fmt/ and
# tests/toy_op/ and the files that define their hooks.  TAP on stdout.
ug="$1"
mut="$2"
src="$3"
out="$4"
rm -rf "$out"
mkdir -p "$out" || exit 1
tmp="$out"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
run list
cp "$tmp/out" "$tmp/list"
check "list: sum_e3m1 reads and stores e3m1" \
  'grep -Eq "sum_e3m1@default +sum +cpu +e3m1>f64>e3m1 " "$tmp/out"'
check "list: the registered format among the formats, beside the built-in e3m2" \
  'grep -Eq "^  e3m1 +5 bits +p 2 +-2\.\.4 +max 24 " "$tmp/out" && grep -Eq "^  e3m2 +6 bits" "$tmp/out"'

run run --tap --filter 'toy_fmt/*' --report "$out/good"
cp "$tmp/out" "$tmp/good.tap"
check "run: conversions agree with the reference on every code and the grid" \
  '[ "$(rc)" = 0 ] && grep -q "^ok .* - toy_fmt/conversions" "$tmp/out"'
check "run: the correct kernel passes, <= 0.5 ulp of e3m1 (exit 0)" \
  'grep -q "^ok .* - toy_fmt/sum sum_e3m1@default n=256" "$tmp/out" && ! grep -q "^not ok" "$tmp/out"'
json "$out/good/results.json" 'rows = [r for r in d["results"] if r.get("kernel") == "sum_e3m1@default"]; assert len(rows) == 4, len(rows); assert all(r["op"] == "sum" and r["dist"].endswith("|in(e3m1)") and r["ulp_max"] <= 0.5 and r["correctly_rounded"] == r["count"] and r["status"] == "pass" for r in rows), rows[0]; assert any(r["ulp_max"] == 0.5 for r in rows), "no rounding seen"' \
  >"$tmp/json.err" 2>&1
jrc=$?
check "results.json: 4 rows of sum_e3m1 on inputs in e3m1, every output correctly rounded, pass" '[ "$jrc" = 0 ]'

check "list: the toy block-scaled format and its quantizer" \
  'grep -Eq "^  toy_mxfp5 +e3m1 +x e8m0 per 1x8 " "$tmp/list" && grep -Eq "^  toy_mxfp5_cpu +cpu +toy_mxfp5 +ocp " "$tmp/list"'
check "run: the toy quantizer's scales and elements are the rule's (normal and maxima data)" \
  'grep -q "^ok .* - toy_fmt/quantize toy_mxfp5_cpu on normal" "$tmp/good.tap" && grep -q "^ok .* - toy_fmt/quantize toy_mxfp5_cpu on maxima" "$tmp/good.tap"'
json "$out/good/results.json" 'rows = [r for r in d["results"] if r.get("case") == "toy_fmt/quantize"]; assert len(rows) == 2 and all(r["status"] == "pass" and r["note"].startswith("0 of 128 block scales differ") for r in rows), rows' \
  >"$tmp/json.err" 2>&1
jrc=$?
check "results.json: the toy quantizer's 2 rows pass, the figure in their note" '[ "$jrc" = 0 ]'

run run --tap --filter 'toy_fmt/sum' --format e3m1
check "--format e3m1 selects the registered format's kernel" \
  '[ "$(rc)" = 0 ] && grep -q "^ok .* sum_e3m1@default n=16" "$tmp/out"'

run report "$out/good"
check "report DIR: summary.md and index.html" \
  '[ "$(rc)" = 0 ] && grep -q "sum_e3m1" "$out/good/summary.md" && [ -s "$out/good/index.html" ]'

mkdir -p "$out/baselines"
key=$("$ug" baseline key --from "$out/good/results.json" 2>/dev/null)
run baseline update --from "$out/good/results.json" --dir "$out/baselines" --reason "toy format"
check "baseline update writes this device's baseline" '[ "$(rc)" = 0 ] && [ -f "$out/baselines/$key/index.json" ]'
GATE_BASELINES="$out/baselines" sh "$src/tests/gate_test.sh" "$ug" "$src" "$out/gate_good" \
  --filter 'toy_fmt/*' >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "the gate passes the correct kernel against it" \
  '[ "$(rc)" = 0 ] && grep -q "^ok 2 - no regression" "$tmp/out"'

"$mut" run --tap --filter 'toy_fmt/*' --report "$out/bad" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "run: the mutant (truncates to e3m1) fails (exit 1)" '[ "$(rc)" = 1 ]'
check "the mutant's toy quantizer fails, naming the block, its scale bytes and the element" \
  'grep -Eq "^# .*tests/toy_fmt/e3m1_block.c:[0-9]+: .* failed: toy_mxfp5_cpu on normal: [0-9]+ of 1024 elements not RN of x / scale; first: block [0-9]+ \(scale 0x[0-9a-f]{2}, the rule.s 0x[0-9a-f]{2}\): element" "$tmp/out"'
check "with the usual assertion line" \
  'grep -Eq "^# .*tests/toy_fmt/e3m1_case.c:[0-9]+: UG_EXPECT_ULP_MAX\(r, 0.5\) failed: max [0-9.e+]+ ulp > 0.5" "$tmp/out"'
check "and the rerun line" \
  'grep -Eq "^#   rerun: .* run --filter toy_fmt/sum --kernel sum_e3m1@default --n [0-9]+ --trial [0-9]+ --seed 0x5eed" "$tmp/out"'
GATE_BASELINES="$out/baselines" sh "$src/tests/gate_test.sh" "$mut" "$src" "$out/gate_bad" \
  --filter 'toy_fmt/*' >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "the gate fails the mutant with the regression table" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok 2 - regressions against" "$tmp/out" && grep -q "^# REGRESSION toy_fmt/.* sum_e3m1@default" "$tmp/out"'

# CONTRIBUTING.md's lists: a format's and an operation's defined outside the tree name exactly
# the files the toy one has (its directory, its build lines, its test) and the files that
# declare and define the hook it calls.
for what in "fmt:Adding a number format:ug_fmt ug_fmt_register(" \
            "op:Adding an operation:ug_op ug_op_register(|ug_op ug_opshape_register("; do
  sect=${what#*:}
  sect=${sect%%:*}
  python3 - "$src" "$what" >"$tmp/out" 2>&1 <<'PY'
import os, re, subprocess, sys
src, what = sys.argv[1], sys.argv[2]
toy, section, hooks = what.split(':', 2)
text = open(os.path.join(src, 'CONTRIBUTING.md')).read()
sec = text.split('## ' + section + '\n', 1)[1].split('\n## ', 1)[0]
lead = sec.index('tree touches only these files')
listed = set(re.findall(r'^- `([^`]+)`', sec[lead:], re.M))
d = os.path.join(src, 'tests', 'toy_' + toy)
have = {os.path.relpath(os.path.join(r, f), src) for r, _, fs in os.walk(d) for f in fs}
build = open(os.path.join(src, 'tests', 'meson.build')).read()
have |= {'tests/toy_%s_test.sh' % toy} | ({'tests/meson.build'} if 'toy_%s/' % toy in build else set())
para = sec[sec.index('The hook it calls'):].split('\n\n', 1)[0]
named = set(re.findall(r'`([a-z_/]+\.[ch])`', para))
defs = set()
for top in ('include', 'base', 'kernels', 'oracle', 'ops', 'harness'):
    for r, _, fs in os.walk(os.path.join(src, top)):
        for f in fs:
            if f.endswith(('.c', '.h')):
                body = open(os.path.join(r, f), errors='replace').read()
                if any(re.search(r'^' + re.escape(h), body, re.M) for h in hooks.split('|')):
                    defs.add(os.path.relpath(os.path.join(r, f), src))
bad = []
if listed != have: bad.append('files: listed but not there %s, there but not listed %s' % (sorted(listed - have), sorted(have - listed)))
if named != defs: bad.append('hook: named %s, defined in %s' % (sorted(named), sorted(defs)))
print('\n'.join(bad) or 'match: %d files, hook %s' % (len(have), sorted(defs)))
sys.exit(1 if bad else 0)
PY
  echo $? >"$tmp/rc"
  check "CONTRIBUTING.md's \"$sect\" list: exactly tests/toy_${what%%:*}'s files and the hook" \
    '[ "$(rc)" = 0 ]'
done
tap_end
