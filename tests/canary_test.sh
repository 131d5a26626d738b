#!/bin/sh
# canary_test.sh ULPGATE SRCDIR - the canary must fail, and fail the intended way: exit status 1,
# a "not ok" point named after it, the failed assertion at the file:line where cases/canary.c
# writes it, the worst element, and a rerun line that reproduces the same failure.  A canary
# renamed, passing, or failing for another reason (a kernel error, a usage error) fails here.
# TAP on stdout.
ug="$1"
src="$2"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
line=$(grep -n 'UG_EXPECT_ULP_MAX(r, 0.5);' "$src/cases/canary.c" | cut -d: -f1)
check "the canary's assertion is in cases/canary.c" '[ -n "$line" ]'
"$ug" run --filter 'canary/*' >"$tmp/out" 2>"$tmp/err"
rc=$?
check "exit status 1 (a test failure, not 0 or a usage error 2)" '[ "$rc" = 1 ]'
check "one failed point: canary/fails serial_f32@default n=10000" \
  '[ "$(grep -c "^not ok" "$tmp/out")" = 1 ] && grep -q "^not ok 1 - canary/fails serial_f32@default n=10000$" "$tmp/out"'
check "the intended assertion failed, at cases/canary.c:$line" \
  'grep -q "^# cases/canary.c:$line: UG_EXPECT_ULP_MAX(r, 0.5) failed: max [0-9.]* ulp > 0.5$" "$tmp/out"'
check "no other failure on the point (kernel error, unwritten output, unchecked row)" \
  '[ "$(grep -c "^# [a-z_/.]*:[0-9]*: .* failed" "$tmp/out")" = 1 ]'
check "the worst element: got and exact in hex, the seed" \
  'grep -q "^#   worst: trial 0, element 0: got 0x[0-9a-f.p+-]* (.*) exact 0x" "$tmp/out" && grep -q "seed 0x5eed$" "$tmp/out"'
worst=$(grep "^#   worst:" "$tmp/out")
rerun=$(sed -n 's/^#   rerun: //p' "$tmp/out")
check "a rerun line" '[ -n "$rerun" ]'
# the rerun line names the binary as it was invoked: run it as printed
$rerun >"$tmp/out2" 2>&1
rc2=$?
check "the rerun line reproduces the same failure (exit 1, same worst element)" \
  '[ "$rc2" = 1 ] && grep -qF "$worst" "$tmp/out2"'
tap_end
