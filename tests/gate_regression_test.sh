#!/bin/sh
# gate_regression_test.sh ULPGATE ULPGATE_NOKAHAN SRCDIR OUTDIR - the gate catches a real
# regression.  ULPGATE_NOKAHAN is ulpgate built from a copy of kernels/cpu/reduce.c in which
# kahan_f32 drops its compensation (tests/meson.build makes the copy with sed): the same kernel
# made worse for real, not a results file edited.  Both binaries run the reduce cases of
# kahan_f32; compare must pass the real one against itself and fail the mutant, naming the kernel
# and its figures; the gate itself (gate_test.sh) must fail with the mutant where this device
# has a baseline.  TAP on stdout.
ug="$1"
mut="$2"
src="$3"
out="$4"
rm -rf "$out"
mkdir -p "$out" || exit 1
tmp="$out"
. "$(dirname "$0")/tap.sh"
run() { "$@" >"$out/out" 2>"$out/err"; echo $? >"$out/rc"; }

echo "TAP version 13"
"$ug" run --filter 'reduce/*' --kernel kahan_f32 --report "$out/ref" --tap >"$out/ref.tap" 2>&1
refrc=$?
check "the real kahan_f32 passes its reduce cases" '[ "$refrc" = 0 ] && [ -f "$out/ref/results.json" ]'
"$mut" run --filter 'reduce/*' --kernel kahan_f32 --report "$out/mut" --tap >"$out/mut.tap" 2>&1
check "the mutant ran and reported (its own checks may fail)" '[ -f "$out/mut/results.json" ]'
run "$ug" compare "$out/ref/results.json" "$out/ref/results.json" --fail-on-regression
check "compare of the real run with itself: exit 0" '[ "$(rc)" = 0 ] && grep -q " 0 regressed" "$out/out"'
run "$ug" compare "$out/ref/results.json" "$out/mut/results.json" --fail-on-regression
check "compare of the real run with the mutant: exit 1 (if not: did the sed in tests/meson.build stop matching kernels/cpu/reduce.c?)" \
  '[ "$(rc)" = 1 ]'
check "it names the kernel and its figures: ulp_max old -> new, worse" \
  'grep -q "^REGRESSION reduce/normal kahan_f32@default normal(0,1) 10000" "$out/out" && grep -Eq "^  ulp_max +[0-9.e+-]+ -> [0-9.e+-]+ +x[0-9.e+]+ +worse$" "$out/out"'
echo "# $(tail -1 "$out/out")"
run "$ug" compare "$out/ref/results.json" "$out/mut/results.json" --markdown --max-rows 500
check "the Markdown comment lists it under Regressions" \
  'grep -q "^#### Regressions" "$out/out" && grep -q "^- \`reduce/normal kahan_f32@default normal(0,1) 10000\`: error grew x" "$out/out"'
run sh "$src/tests/gate_test.sh" "$mut" "$src" "$out/gate" --filter 'reduce/*'
if grep -q "^1..0 # SKIP" "$out/out"; then
    ok "the gate with the mutant # SKIP $(sed -n 's/^1..0 # SKIP //p' "$out/out")"
else
    check "the gate (gate_test.sh) with the mutant fails with the regression table" \
      '[ "$(rc)" = 1 ] && grep -q "^not ok 2 - regressions against" "$out/out" && grep -q "^# REGRESSION reduce/.* kahan_f32@default" "$out/out"'
fi
tap_end
