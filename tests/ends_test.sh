#!/bin/bash
# ends_test.sh ULPGATE SRC - abnormal ends and lost data (docs/troubleshooting.md,
# docs/reports.md).  The kernels are tests/plugins/abnormal.c, built here with cc against the
# source tree's public header.  TAP on stdout.
#   - a kernel that calls exit(0), _exit(0), quick_exit(0) or execv, aborts, overflows its
#     stack: its point fails, the run ends
#     with exit 1, "Bail out!" and a report marked interrupted naming the kernel;
#   - a heap overrun by a kernel is never a silent death (the crash is named on stderr);
#   - a report folder is marked in progress while a run writes it: `kill -9` of a second run
#     into a finished report leaves it marked, and compare, report, merge and baseline show
#     refuse it; a finished or stopped run leaves no marker;
#   - `run --report DIR` refuses a folder holding an index.html or summary.md ulpgate did not
#     write, and reruns into its own folders (and a folder with a TAP stream redirected into
#     it, or a report older than the marker) go on working;
#   - `merge OUT IN...` with OUT among the inputs is refused, the input untouched; merge
#     without --junit leaves a junit.xml that is not ulpgate's as it is.
ug="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
src="$2"
. "$(dirname "$0")/tap.sh"
cc_plugin() { # cc_plugin OUT END
  cc -shared -fPIC -std=gnu11 -O0 -w -I"$src/include" -DEND=$2 -o "$1" "$src/tests/plugins/abnormal.c" 2>>"$tmp/cc.err"
}
F='corpus/special_*'
echo "TAP version 13"

# --- kernels that end abnormally ----------------------------------------------------------------
abnormal() { # abnormal END LABEL WANT: the run fails (exit 1), names WANT, writes its report
  local end=$1 want=$3
  cc_plugin "$tmp/end$end.so" $end
  run run --plugin "$tmp/end$end.so" --no-builtin --filter "$F" --report "$tmp/r$end"
  check "$2: exit 1, its point fails, Bail out!, '$want'" \
    '[ "$(rc)" = 1 ] && grep -q "^not ok 1 - corpus/.* ab_sum@default\|^not ok 1 - corpus/" "$tmp/out" && grep -q "^Bail out! kernel ab_sum@default $want" "$tmp/out"'
  check "$2: the report is written, marked interrupted, no in-progress marker" \
    'json "$tmp/r$end/results.json" "m=d[\"meta\"]; assert m[\"interrupted\"] is True and \"ab_sum@default\" in m[\"stop_reason\"], m" && [ ! -e "$tmp/r$end/.ulpgate-in-progress" ]'
}
abnormal 1 "a kernel that calls exit(0)" "called exit(0) while it ran"
abnormal 19 "a kernel that calls _exit(0)" "called _exit(0) while it ran"
abnormal 20 "a kernel that calls quick_exit(0)" "called quick_exit() while it ran"
abnormal 21 "a kernel that calls execv" "called execv() while it ran"
abnormal 2 "a kernel that aborts" "crashed (SIGABRT"
cc_plugin "$tmp/end22.so" 22
run run --tap --plugin "$tmp/end22.so" --no-builtin --filter "reduce/normal" --report "$tmp/r22"
check "a kernel that forks children ending in _exit(0) and execv: the run goes on and passes (the children are not the run)" \
  '[ "$(rc)" = 0 ] && ! grep -q "Bail out" "$tmp/out" && [ "$(grep -c "^1\.\." "$tmp/out")" = 1 ] && json "$tmp/r22/results.json" "assert d[\"meta\"].get(\"interrupted\") is not True"'
abnormal 3 "a kernel that overflows its stack" "crashed (SIGSEGV)"
cc_plugin "$tmp/end4.so" 4
run run --plugin "$tmp/end4.so" --no-builtin --filter "$F" --report "$tmp/r4"
# glibc: the overrun is found at free (abort), the handler names the kernel; under ASan its
# own report names the bad free.  Never a death by a signal with nothing said.
check "a heap overrun by a kernel: not a silent death (exit $(rc); the crash named on stderr)" \
  '[ "$(rc)" != 0 ] && [ "$(rc)" -lt 128 ] && grep -q "kernel ab_sum@default crashed: SIGABRT\|AddressSanitizer" "$tmp/err"'

# --- a report folder marked in progress ---------------------------------------------------------
run run --filter "$F" --kernel 'serial_f32*' --report "$tmp/rep"
check "a finished run: exit 0, its folder marked as ulpgate's, no in-progress marker" \
  '[ "$(rc)" = 0 ] && [ -f "$tmp/rep/.ulpgate-report" ] && [ ! -e "$tmp/rep/.ulpgate-in-progress" ]'
run compare "$tmp/rep/results.json" "$tmp/rep/results.json"
check "compare reads the finished report" '[ "$(rc)" = 0 ]'
cc_plugin "$tmp/end5.so" 5
"$ug" run --plugin "$tmp/end5.so" --filter "$F" --report "$tmp/rep" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 600); do grep -q "^pid $pid$" "$tmp/rep/.ulpgate-in-progress" 2>/dev/null && break; sleep 0.05; done
sleep 0.5
kill -9 $pid
wait $pid 2>/dev/null
check "kill -9 of a second run into the report: the folder stays marked in progress" \
  'grep -q "^pid $pid$" "$tmp/rep/.ulpgate-in-progress"'
run compare "$tmp/rep/results.json" "$tmp/rep/results.json"
check "compare refuses it: exit 2, 'marked in progress, and its process is gone'" \
  '[ "$(rc)" = 2 ] && grep -q "rep/results.json: a run into its folder is marked in progress, and its process is gone (killed?) (.ulpgate-in-progress: pid $pid" "$tmp/err"'
run report "$tmp/rep"
check "report refuses it: exit 2, the same reason" '[ "$(rc)" = 2 ] && grep -q "marked in progress" "$tmp/err"'
run baseline show "$tmp/rep/results.json"
check "baseline show refuses it: exit 2" '[ "$(rc)" = 2 ] && grep -q "marked in progress" "$tmp/err"'
run merge "$tmp/merged.json" "$tmp/rep/results.json"
check "merge refuses it as an input: exit 2" '[ "$(rc)" = 2 ] && grep -q "marked in progress" "$tmp/err"'
run run --filter "$F" --kernel 'serial_f32*' --report "$tmp/rep"
check "a run into it again: exit 0, the marker gone, compare reads it" \
  '[ "$(rc)" = 0 ] && [ ! -e "$tmp/rep/.ulpgate-in-progress" ] && "$ug" compare "$tmp/rep/results.json" "$tmp/rep/results.json" >/dev/null 2>&1'
run run --filter 'no_such_case/*' --report "$tmp/rep"
check "a run refused before it measures (exit 2) leaves no marker" \
  '[ "$(rc)" = 2 ] && [ ! -e "$tmp/rep/.ulpgate-in-progress" ] && [ -f "$tmp/rep/results.json" ]'

# --- a folder of someone else's files ------------------------------------------------------------
for page in index.html summary.md; do
  mkdir -p "$tmp/foreign-$page"
  echo "precious $page" >"$tmp/foreign-$page/$page"
  run run --filter "$F" --kernel 'serial_f32*' --report "$tmp/foreign-$page"
  check "run --report into a folder holding an unrelated $page: exit 2, refused, the file kept" \
    '[ "$(rc)" = 2 ] && grep -q "the folder holds $page, which ulpgate did not write" "$tmp/err" && [ "$(cat "$tmp/foreign-$page/$page")" = "precious $page" ] && [ ! -e "$tmp/foreign-$page/results.json" ]'
done
mkdir -p "$tmp/tapdir"
"$ug" run --tap --filter "$F" --kernel 'serial_f32*' --report "$tmp/tapdir" >"$tmp/tapdir/run.tap" 2>"$tmp/tapdir/run.err"
check "a folder with a TAP stream redirected into it is accepted (exit $?)" '[ -s "$tmp/tapdir/results.json" ]'
mkdir -p "$tmp/legacy" && cp "$tmp/rep/results.json" "$tmp/rep/summary.md" "$tmp/legacy/"
run run --filter "$F" --kernel 'serial_f32*' --report "$tmp/legacy"
check "a report older than the marker (ulpgate's results.json, no marker) is accepted" '[ "$(rc)" = 0 ]'

# --- merge ----------------------------------------------------------------------------------------
"$ug" run --filter "$F" --kernel 'serial_f32*' --shard 0/2 --report "$tmp/s0" >/dev/null 2>&1
"$ug" run --filter "$F" --kernel 'serial_f32*' --shard 1/2 --report "$tmp/s1" >/dev/null 2>&1
sum0=$(md5sum <"$tmp/s0/results.json")
run merge "$tmp/s0/results.json" "$tmp/s0/results.json" "$tmp/s1/results.json"
check "merge OUT IN... with OUT among the inputs: exit 2, the shard untouched" \
  '[ "$(rc)" = 2 ] && grep -q "s0/results.json is also input 1: merging into it would overwrite a shard" "$tmp/err" && [ "$(md5sum <"$tmp/s0/results.json")" = "$sum0" ]'
mkdir -p "$tmp/m"
echo "precious junit" >"$tmp/m/junit.xml"
run merge "$tmp/m/all.json" "$tmp/s0/results.json" "$tmp/s1/results.json"
check "merge without --junit: an existing junit.xml not ulpgate's is kept, and said so" \
  '[ "$(rc)" = 0 ] && [ "$(cat "$tmp/m/junit.xml")" = "precious junit" ] && grep -q "junit.xml exists and ulpgate did not write it: left as it is" "$tmp/err" && [ -s "$tmp/m/all.json" ]'
run merge "$tmp/m2/all.json" "$tmp/s0/results.json" "$tmp/s1/results.json"
mkdir -p "$tmp/m2"
run merge "$tmp/m2/all.json" "$tmp/s0/results.json" "$tmp/s1/results.json"
run merge "$tmp/m2/all.json" "$tmp/s0/results.json" "$tmp/s1/results.json"
check "merge without --junit writes (and rewrites) its own junit.xml beside OUT" \
  '[ "$(rc)" = 0 ] && grep -q "<testsuites" "$tmp/m2/junit.xml"'
tap_end
