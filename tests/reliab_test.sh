#!/bin/bash
# reliab_test.sh ULPGATE SELFTEST - no lost results: what a hostile user or a broken machine does
# to a run, and what must come of it (docs/troubleshooting.md).  TAP on stdout; every
# check asserts an exit status and what was written.
#   - stdout that cannot be written (/dev/full): exit 2 naming stdout (1 when a test failed);
#   - SIGINT, SIGTERM, SIGHUP during `run --report`, and SIGPIPE (`| head`): the run stops, the
#     TAP stream ends with its plan and "Bail out!", the report holds what was measured, marked
#     interrupted, no temporary file is left, exit 128 + the signal;
#   - the report directory is checked before the run; a report that cannot be written never
#     hides a failure; a path beyond PATH_MAX is refused;
#   - more trials than memory holds: refused before the run, or as a failed point;
#   - a case that never returns: the per-case time limit ends the run (exit 124), and a signal
#     ends it within the watchdog's grace.
ug="$1"
selftest="$2"
. "$(dirname "$0")/tap.sh"
# started: wait (up to 60 s) until the run in the background has begun (its TAP header is
# flushed once its signal handlers are in place), then a second more; a loaded machine can take
# seconds to start a process, and a signal before that would meet no handler.
started() {
    local i=0
    while [ $i -lt 600 ] && ! grep -q "^TAP version" "$tmp/out" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
    sleep 1
}
set -m # background jobs keep SIGINT (a shell without job control would ignore it for them)
# Start a run in the background; wait until its TAP has point $1 (or it ended); send signal $2.
# The previous run's output goes first: were it left, its "ok $point" could end the wait before
# the new job has even exec'd, and the signal would reach the forked shell instead (whose
# inherited EXIT trap, in that window, removes $tmp: seen in CI as checks 8-16 failing).
run_and_kill() {
  local point=$1 sig=$2
  shift 2
  rm -f "$tmp/out" "$tmp/err"
  "$@" >"$tmp/out" 2>"$tmp/err" &
  local pid=$!
  for _ in $(seq 600); do
    grep -q "^ok $point " "$tmp/out" 2>/dev/null && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.05
  done
  kill -"$sig" $pid 2>/dev/null
  wait $pid
  echo $? >"$tmp/rc"
}

echo "TAP version 13"

# ---- stdout write errors --------------------------------------------------------------------------
"$ug" run --filter 'reduce/normal' --kernel serial_f32 --n 1000 >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
check "run > /dev/full: exit 2, stdout named" '[ "$(rc)" = 2 ] && grep -q "stdout: write error: No space left on device" "$tmp/err"'
"$ug" run --filter 'canary/*' >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
check "a failing run > /dev/full: exit 1, the failure stated beside the write error" \
  '[ "$(rc)" = 1 ] && grep -q "stdout: write error" "$tmp/err" && grep -q "1 failed" "$tmp/err"'
printf '1\n2\n' >"$tmp/s.txt"
"$ug" oracle --json "$tmp/s.txt" >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
check "oracle --json > /dev/full: exit 2, stdout named" '[ "$(rc)" = 2 ] && grep -q "stdout: write error" "$tmp/err"'
"$ug" list >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
check "list > /dev/full: exit 2" '[ "$(rc)" = 2 ] && grep -q "stdout: write error" "$tmp/err"'

# ---- signals during a run with --report -----------------------------------------------------------
# Whether signal $1 (a number) was ignored when this shell started (nohup ignores SIGHUP): such a
# signal cannot be reset by a shell, and ulpgate keeps it ignored by design.
sig_ignored() { python3 -c "import sys; print((int(sys.argv[1], 16) >> ($1 - 1)) & 1)" "$(awk '/^SigIgn:/{print $2}' /proc/$$/status)"; }
for sig in INT TERM HUP; do
  num=$(kill -l $sig)
  if [ "$(sig_ignored $num)" = 1 ]; then
    for what in "during run --report" "the TAP stream" "results.json"; do
      n=$((n + 1)); echo "ok $n - SIG$sig: $what # SKIP SIG$sig is ignored in this environment (ulpgate keeps an ignored signal ignored)"
    done
    continue
  fi
  rm -rf "$tmp/rep"
  run_and_kill 5 $sig "$ug" run --tap --trials 20 --report "$tmp/rep"
  check "SIG$sig during run --report: exit $((128 + num))" '[ "$(rc)" = $((128 + num)) ]'
  check "SIG$sig: the TAP stream ends with its plan and Bail out!" \
    'plan=$(grep -c "^\(not \)\?ok " "$tmp/out"); [ "$plan" -ge 5 ] && [ "$(tail -3 "$tmp/out" | head -1)" = "1..$plan" ] && tail -1 "$tmp/out" | grep -q "^Bail out! interrupted by SIG$sig"'
  check "SIG$sig: results.json holds every point the TAP stream shows, marked interrupted, no temporary file" \
    'json "$tmp/rep/results.json" "
m=d[\"meta\"]; assert m[\"interrupted\"] is True and m[\"stop_reason\"]==\"SIG$sig\", m
tap=[l for l in open(\"$tmp/out\") if l.startswith((\"ok \", \"not ok \"))]
assert len(d[\"results\"])==len(tap), (len(d[\"results\"]), len(tap))
assert d[\"summary\"][\"failed\"]==0 and d[\"summary\"][\"passed\"]>=4" && [ "$(ls "$tmp/rep" | tr "\n" " ")" = "index.html results.json summary.md " ]'
done
rm -rf "$tmp/rep"
"$ug" run --report "$tmp/rep" 2>"$tmp/err" | head -3 >"$tmp/out"
echo "${PIPESTATUS[0]}" >"$tmp/rc"
check "run --report | head -3: exit 141 (SIGPIPE), the report written and marked interrupted" \
  '[ "$(rc)" = 141 ] && json "$tmp/rep/results.json" "assert d[\"meta\"][\"interrupted\"] is True and d[\"meta\"][\"stop_reason\"]==\"SIGPIPE\""'
rm -rf "$tmp/rep"
"$ug" run --filter 'reduce/normal' --kernel serial_f32 --report "$tmp/rep" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "an uninterrupted run's report says interrupted: false" \
  '[ "$(rc)" = 0 ] && json "$tmp/rep/results.json" "assert d[\"meta\"][\"interrupted\"] is False and \"stop_reason\" not in d[\"meta\"]"'

# ---- the report target ------------------------------------------------------------------------------
"$ug" run --report /dev/full/reports >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "a report directory that cannot be made: exit 2 before the run (no TAP written)" \
  '[ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "--report /dev/full/reports: cannot create directory: Not a directory" "$tmp/err"'
mkdir -p "$tmp/isdir/results.json"
"$ug" run --report "$tmp/isdir" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "results.json a directory: exit 2 before the run" '[ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] && grep -q "exists and is not a file" "$tmp/err"'
long="$tmp/$(printf 'd%.0s' $(seq 4100))"
"$ug" run --report "$long" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "a report path beyond PATH_MAX: exit 2, said, not cut short" '[ "$(rc)" = 2 ] && grep -q -- "--report: the directory name is .* characters long" "$tmp/err"'
# a file size limit lets the probe byte through and stops the report itself (EFBIG)
rm -rf "$tmp/small"
(ulimit -f 1; exec "$ug" run --filter 'canary/*' --report "$tmp/small") 2>"$tmp/err" | cat >"$tmp/out"
echo "${PIPESTATUS[0]}" >"$tmp/rc"
check "a report that cannot be written does not hide a failure: exit 1, both stated, no temporary file" \
  '[ "$(rc)" = 1 ] && grep -q "cannot write .*results.json: File too large" "$tmp/err" && grep -q "no report was written, and test points failed" "$tmp/err" && grep -q "^not ok 1 - canary/fails" "$tmp/out" && [ -z "$(ls "$tmp/small")" ]'
(ulimit -f 1; exec "$ug" run --filter 'reduce/normal' --kernel serial_f32 --n 1000 --report "$tmp/small") 2>"$tmp/err" | cat >"$tmp/out"
echo "${PIPESTATUS[0]}" >"$tmp/rc"
check "a passing run whose report cannot be written: exit 2" '[ "$(rc)" = 2 ] && grep -q "File too large" "$tmp/err"'

# ---- messages: an argument's control bytes never reach the terminal raw --------------------------
"$ug" run --filter "$(printf 'x\033[2J\ry')" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "control bytes of an argument are escaped in its message (no ESC, no CR on stderr)" \
  '[ "$(rc)" = 2 ] && grep -qF "no case matches --filter '"'"'x\x1b[2J\ry'"'"'" "$tmp/err" && ! grep -q "$(printf "\033")" "$tmp/err" && ! grep -q "$(printf "\r")" "$tmp/err"'
"$ug" run "$(printf -- '--bad\001')" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "an unknown option with a control byte: exit 2, escaped" '[ "$(rc)" = 2 ] && grep -qF "unknown option '"'"'--bad\x01'"'"'" "$tmp/err"'

# ---- memory ------------------------------------------------------------------------------------------
# vmem KB: a cap on the address space (the safety net of the tests below), except in a build under
# AddressSanitizer, whose shadow memory alone reserves terabytes of address space
asan=0
{ ldd "$ug" 2>/dev/null | grep -q libasan || nm "$ug" 2>/dev/null | grep -q __asan_init; } && asan=1
vmem() { [ "$asan" = 1 ] || ulimit -v "$1"; }
ULPGATE_MEM_LIMIT=1G "$ug" run --trials 16777216 >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "--trials 16777216 beyond memory: exit 2 before the run, needed vs available" \
  '[ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "--trials 16777216: .* needs 2.5 GiB .* and 1 GiB is available (ULPGATE_MEM_LIMIT" "$tmp/err"'
ULPGATE_MEM_LIMIT=600M "$ug" run --tap --filter 'reduce/normal' --kernel serial_f32 --trials 200000 >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "an input beyond memory: a failed point with needed vs available, the case ends, exit 1" \
  '[ "$(rc)" = 1 ] && grep -q "memory for the input failed: normal(0,1) n=1000, 200000 trials need .* MiB .* and 600 MiB is available (ULPGATE_MEM_LIMIT" "$tmp/out" && grep -q "^ok 1 - reduce/normal serial_f32@default n=1$" "$tmp/out"'
for lim in 1GB 954MiB 0.93G 1000000000; do
  # (ulimit -v: were the limit not read, the run would stop at once rather than fill the machine)
  (vmem 3000000; ULPGATE_MEM_LIMIT=$lim exec "$ug" run --trials 16777216) >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
  check "ULPGATE_MEM_LIMIT=$lim is read (GB: powers of 1000, G and MiB: of 1024): exit 2 before the run" \
    '[ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "--trials 16777216: .* needs 2.5 GiB .* and 95[0-9] MiB is available (ULPGATE_MEM_LIMIT" "$tmp/err"'
done
ULPGATE_MEM_LIMIT=1XB "$ug" run --filter 'reduce/normal' --kernel serial_f32 --n 1000 >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "a malformed ULPGATE_MEM_LIMIT is a usage error, not no limit" \
  '[ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] && grep -q "ULPGATE_MEM_LIMIT=.1XB. is not a size" "$tmp/err"'
# a corpus GEMM whose output cannot fit: refused before it is allocated, a failed point naming it
mkdir -p "$tmp/bigc"
python3 -c "
print('# why: 65536 x 65536 outputs from 2^17 values'); print('# op: gemm 65536x65536x1'); print('# kernels: gemm_naive_cpu')
print('1\n' * 131072, end='')" >"$tmp/bigc/big.txt"
(vmem 8000000; ULPGATE_MEM_LIMIT=1G exec "$ug" run --tap --corpus "$tmp/bigc" --filter 'corpus/big') >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "a corpus GEMM beyond memory: exit 1, a failed point naming the file's input, needed vs available" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok 1 - corpus/big" "$tmp/out" && grep -q "memory for the input failed: file(big.txt) .* and 1 GiB is available (ULPGATE_MEM_LIMIT" "$tmp/out"'
ULPGATE_MAX_ELEMENTS=20 ULPGATE_MAX_TRIALS=2 "$ug" run --tap --filter 'dot/normal' --kernel dot_serial_f32 --report "$tmp/capped" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "ULPGATE_MAX_ELEMENTS / ULPGATE_MAX_TRIALS: larger inputs skipped, trials cut" \
  '[ "$(rc)" = 0 ] && grep -q "# SKIP .*above ULPGATE_MAX_ELEMENTS=20" "$tmp/out" && json "$tmp/capped/results.json" "
r=[x for x in d[\"results\"] if x[\"measured\"]]; assert r and all(x[\"trials\"]<=2 and 2*x[\"n\"]<=20 for x in r), r"'

# ---- a case that never returns (the CPU stand-in for a hung kernel) ------------------------------------
# (the folder holds an earlier run's report and pages: the cut-short run must not leave them
# beside its own results.json)
"$ug" run --filter 'reduce/constant' --kernel serial_f32 --n 10 --report "$tmp/stuck" >/dev/null 2>&1
[ -f "$tmp/stuck/summary.md" ] && [ -f "$tmp/stuck/index.html" ] || echo "# (no earlier pages to replace)"
start=$(date +%s)
"$selftest" run --tap --filter 'guard/stuck' --timeout 1 --report "$tmp/stuck" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
took=$(( $(date +%s) - start ))
check "--timeout 1 on a stuck case: exit 124 within seconds (took ${took} s)" '[ "$(rc)" = 124 ] && [ "$took" -lt 10 ]'
check "--timeout: the stuck case fails with a clear message, then the plan and Bail out!" \
  'grep -q "^not ok 1 - guard/stuck$" "$tmp/out" && grep -q "^# guard/stuck: timed out: guard/stuck still running after 1 s (--timeout 1)" "$tmp/out" && [ "$(tail -2 "$tmp/out" | head -1)" = "1..1" ] && tail -1 "$tmp/out" | grep -q "^Bail out! timed out"'
check "--timeout: the report is marked interrupted and names the stuck case, no temporary file, no earlier run's pages" \
  'json "$tmp/stuck/results.json" "assert d[\"meta\"][\"interrupted\"] is True and \"timed out\" in d[\"meta\"][\"stop_reason\"] and d[\"results\"][0][\"status\"]==\"fail\"" && [ "$(ls "$tmp/stuck")" = results.json ]'
rm -rf "$tmp/stuck"
rm -f "$tmp/out"
"$selftest" run --tap --filter 'guard/stuck' --report "$tmp/stuck" >"$tmp/out" 2>"$tmp/err" &
pid=$!
started
"$ug" run --filter 'reduce/constant' --kernel serial_f32 --n 10 --report "$tmp/stuck" >"$tmp/out2" 2>"$tmp/err2"; echo $? >"$tmp/rc2"
check "a second run into a report folder another run is writing: exit 2, nothing run, saying so" \
  '[ "$(cat "$tmp/rc2")" = 2 ] && [ ! -s "$tmp/out2" ] && grep -q "another ulpgate process is writing there (one run per report folder)" "$tmp/err2"'
start=$(date +%s)
kill -TERM $pid
wait $pid; echo $? >"$tmp/rc"
took=$(( $(date +%s) - start ))
check "SIGTERM to a stuck case: the watchdog ends the run after its grace (exit 143, took ${took} s)" \
  '[ "$(rc)" = 143 ] && [ "$took" -lt 10 ] && grep -q "did not stop within 3 s" "$tmp/err" && json "$tmp/stuck/results.json" "assert d[\"meta\"][\"interrupted\"] is True and d[\"results\"][0][\"status\"]==\"skip\""'
rm -f "$tmp/out"
"$selftest" run --tap --filter 'guard/stuck' >"$tmp/out" 2>"$tmp/err" &
pid=$!
started
start=$(date +%s)
kill -INT $pid; sleep 0.2; kill -INT $pid
wait $pid; echo $? >"$tmp/rc"
took=$(( $(date +%s) - start ))
check "a second SIGINT ends a stuck run at once (exit 130, took ${took} s)" \
  '[ "$(rc)" = 130 ] && [ "$took" -lt 3 ] && grep -q "a second signal ended the run at once" "$tmp/err" && tail -1 "$tmp/out" | grep -q "^Bail out!"'

tap_end
