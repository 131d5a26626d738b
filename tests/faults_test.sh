#!/bin/bash
# faults_test.sh SELFTEST [COMPUTE_SANITIZER] - the GPU's failure modes fail exactly as intended
# (the `faults` meson suite; the kernels are tests/gpu_faults.cu, the cases tests/gpu_faults.c):
#   - an illegal address: exit 1, the faulty kernel's point fails naming cudaErrorIllegalAddress,
#     and the correct kernel measured after it fails fast, saying the context is poisoned;
#   - a kernel that never ends: the per-case time limit ends the run (exit 124), with the failed
#     point, the plan, "Bail out!" and a report marked interrupted, and no temporary file;
#   - compute-sanitizer memcheck (when found) reports the illegal write.
# Without a CUDA device: "1..0 # SKIP".  TAP on stdout.
ug="$1"
cs="${2:-}"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
"$ug" run --tap --filter 'faults/out_of_bounds_write' --report "$tmp/oob" >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q '^1\.\.0 # SKIP' "$tmp/out"; then
  echo "1..0 # SKIP no CUDA device ($(sed -n 's/^1\.\.0 # SKIP //p' "$tmp/out"))"
  exit 0
fi
check "out of bounds: exit status 1 (a test failure)" '[ "$rc" = 1 ]'
check "out of bounds: the faulty kernel's point fails, naming cudaErrorIllegalAddress" \
  'grep -q "^not ok 1 - faults/out_of_bounds_write sum_oob_write@default n=1000$" "$tmp/out" && grep -q "kernel failed: .*cudaErrorIllegalAddress" "$tmp/out"'
check "out of bounds: the correct kernel after it fails fast: the context is poisoned" \
  'grep -q "^not ok 2 - faults/out_of_bounds_write reduce_sequential@default n=1000$" "$tmp/out" && grep -q "an earlier CUDA error poisoned the context" "$tmp/out"'
check "out of bounds: the run ends normally (plan 1..2, no Bail out)" \
  'grep -q "^1\.\.2$" "$tmp/out" && ! grep -q "^Bail out!" "$tmp/out"'

start=$(date +%s)
timeout 120 "$ug" run --tap --filter 'faults/hang' --timeout 5 --report "$tmp/hang" >"$tmp/out" 2>"$tmp/err"
rc=$?
took=$(( $(date +%s) - start ))
check "hang: exit status 124 after the 5 s limit (took ${took} s)" '[ "$rc" = 124 ] && [ "$took" -lt 60 ]'
check "hang: the failed point says it timed out, then the plan and Bail out!" \
  'grep -q "^not ok 1 - faults/hang$" "$tmp/out" && grep -q "^# faults/hang: timed out: faults/hang still running after 5 s (--timeout 5)" "$tmp/out" && [ "$(tail -2 "$tmp/out" | head -1)" = "1..1" ] && tail -1 "$tmp/out" | grep -q "^Bail out! timed out"'
check "hang: the report is written, marked interrupted, with the hung case failed" \
  'json "$tmp/hang/results.json" "
m=d[\"meta\"]; assert m[\"interrupted\"] is True and \"timed out\" in m[\"stop_reason\"], m
r=d[\"results\"]; assert len(r)==1 and r[0][\"case\"]==\"faults/hang\" and r[0][\"status\"]==\"fail\", r"'
check "hang: no temporary file beside the report" '[ "$(ls "$tmp/hang")" = results.json ]'

if [ -n "$cs" ] && [ -x "$cs" ]; then
  "$cs" --tool memcheck --error-exitcode 99 "$ug" run --tap --filter 'faults/out_of_bounds_write' >"$tmp/out" 2>"$tmp/err"
  rc=$?
  check "memcheck catches the illegal write (Invalid __global__ write, exit 99)" \
    '[ "$rc" = 99 ] && grep -q "Invalid __global__ write of size 4 bytes" "$tmp/out" "$tmp/err" && grep -q "sum_oob_write_kernel" "$tmp/out" "$tmp/err"'
else
  n=$((n + 1)); echo "ok $n - memcheck catches the illegal write # SKIP compute-sanitizer not found"
fi
tap_end
