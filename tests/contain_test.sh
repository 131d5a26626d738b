#!/bin/bash
# contain_test.sh ULPGATE SRC - kernels contained outside `run` too (docs/hunting.md,
# docs/tensor-core-probe.md, docs/troubleshooting.md).  The kernels are tests/plugins/abnormal.c,
# built here with cc against the source tree's public header.  TAP on stdout.
#   - hunt and probe tensor-core: a kernel that calls exit(0), aborts, writes one element past
#     its output (fenced) or never returns (the limit of a kernel call) ends the command naming
#     the kernel, exit 3 (124 for the time limit), never 0 ("breach") or 1 ("none");
#   - hunt: a kernel that returns an error ends the hunt naming it (exit 3), never "no breach";
#   - hunt --budget: a batch of slow evaluations stops at the budget;
#   - hunt on causal attention with L > S: the rows without a key are not scored, the others are;
#   - hunt --threads on a kernel that is not reentrant: named as such, not a breach;
#   - run: exit(0) from a thread a kernel left running fails the run (plan line, Bail out!); a
#     kernel that exits after passing points too; without --timeout a hung kernel is ended by
#     the limit of a kernel call; a plugin that exits while it is loaded is refused (exit 2);
#   - determinism measured: a kernel declared nondeterministic that is not is graded as
#     deterministic (its note says so); base and new rows whose determinism differs compared;
#     a kernel whose second output alone changes between calls fails the determinism rerun;
#   - invariance: calls fenced; a kernel declared nondeterministic and batch-invariant checked;
#     the chunked check's own configuration: its decode steps and its prefill chunks both run;
#   - ULPGATE_UNIT_COSTS: a FIFO no one writes to is not waited for; a plugin that changes the
#     x87 control word alone; the in-progress mark after a failed results.json write; a file of
#     exactly the size limit (a regular file, a FIFO) read, one byte more refused; a summary
#     that counts one row more or fewer than the file holds;
#   - a baseline whose fingerprint this ulpgate cannot know (a part it does not know, no seed)
#     is refused by compare and baseline show.
ug="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
src="$2"
. "$(dirname "$0")/tap.sh"
cc_plugin() { # cc_plugin OUT END [CFLAGS...]
  local out=$1 end=$2
  shift 2
  cc -shared -fPIC -std=gnu11 -O0 -w -pthread -I"$src/include" -DEND=$end "$@" -o "$out" \
    "$src/tests/plugins/abnormal.c" 2>>"$tmp/cc.err"
}
# trun ARGS...: run, killed after 40 s (what this test asserts must never hang it)
trun() { timeout -s KILL 40 "$ug" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
echo "TAP version 13"
for e in 0 1 2 5 6 7 8 9 10 11 14 15 16 17 18; do cc_plugin "$tmp/end$e.so" $e; done
for e in 0 1 2 5 9 12 13; do cc_plugin "$tmp/gemm$e.so" $e -DGEMM; done

# --- hunt ---------------------------------------------------------------------------------------
hunt() { trun hunt --plugin "$tmp/end$1.so" --kernel ab_sum --n 16 --evals 200 --out "$tmp/h$1.txt" "${@:2}"; }
hunt 1 --threads 2
check "hunt, a kernel that calls exit(0): exit 3, named, no file" \
  '[ "$(rc)" = 3 ] && grep -q "^ulpgate hunt: kernel ab_sum@default called exit(0) while it ran: the hunt ends" "$tmp/err" && [ ! -e "$tmp/h1.txt" ]'
hunt 18 --threads 2
check "hunt, a kernel that returns an error from its 41st call: exit 3, its message and the count named, no file" \
  '[ "$(rc)" = 3 ] && grep -q "^kernel   failed: ab_sum@default returned an error on 160 of 200 search evaluations; the first input.s: ab_sum@default: the device lost its context (a planted error)" "$tmp/out" && [ ! -e "$tmp/h18.txt" ]'
for e in 19 20 21; do
  cc_plugin "$tmp/end$e.so" $e
  hunt $e --threads 2
  how=$(case $e in 19) echo "_exit(0)" ;; 20) echo "quick_exit(0)" ;; *) echo "execv" ;; esac)
  check "hunt, a kernel that calls $how (no exit handler runs): exit 3, named, no file" \
    '[ "$(rc)" = 3 ] && grep -q "^ulpgate hunt: kernel ab_sum@default called \(_exit(0)\|quick_exit()\|execv()\) while it ran" "$tmp/err" && [ ! -e "$tmp/h$e.txt" ]'
done
hunt 2 --threads 4
check "hunt, a kernel that aborts: exit 3, SIGABRT named" \
  '[ "$(rc)" = 3 ] && grep -q "^ulpgate hunt: kernel ab_sum@default crashed (SIGABRT" "$tmp/err"'
hunt 9 --threads 4
check "hunt, a kernel that writes one element past its output: the fence faults, exit 3" \
  '[ "$(rc)" = 3 ] && grep -q "^ulpgate hunt: kernel ab_sum@default crashed (SIGSEGV)" "$tmp/err"'
t0=$(date +%s)
ULPGATE_CALL_TIMEOUT=1 trun hunt --plugin "$tmp/end5.so" --kernel ab_sum --n 16 --evals 200
t1=$(date +%s)
check "hunt, a kernel that never returns: ended by the limit of a call (exit 124, $((t1 - t0)) s)" \
  '[ "$(rc)" = 124 ] && [ $((t1 - t0)) -lt 30 ] && grep -q "^ulpgate hunt: timed out: kernel ab_sum@default still running after 1 s in one call" "$tmp/err"'
t0=$(date +%s.%N)
trun hunt --plugin "$tmp/end7.so" --kernel ab_sum --n 16 --budget 0.3 --threads 1
t1=$(date +%s.%N)
evals=$(sed -n 's/^search .*, \([0-9]*\) evaluations in .*/\1/p' "$tmp/out")
# awk, not bc: bc is not on every machine (the GPU machine has none)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
check "hunt --budget 0.3 on a kernel of 100 ms: stops at the budget ($evals evaluations, $wall s; a batch is 64)" \
  '[ -n "$evals" ] && [ "$evals" -le 8 ] && awk -v w="$wall" "BEGIN { exit !(w < 4) }"'
run hunt --kernel attn_online_cpu --n 8x4x4x4 --causal --evals 128 --seed 1
check "hunt, causal attention with L > S: scored by the rows that have keys, the others reported" \
  'grep -q "^search   best bound ratio [0-9.e-]* (ulp" "$tmp/out" && ! grep -q "best bound ratio -1" "$tmp/out" && grep -q "up to 20 outputs of an evaluation not scored: their exact value is not finite" "$tmp/out"'
trun hunt --plugin "$tmp/end6.so" --kernel ab_sum --n 64 --evals 3000 --threads 4 --out "$tmp/h6.txt"
check "hunt --threads 4, a kernel that is not reentrant: named (exit 3), no breach written" \
  '[ "$(rc)" = 3 ] && grep -q "^not reentrant: ab_sum@default scored its best input" "$tmp/out" && [ ! -e "$tmp/h6.txt" ]'
trun hunt --plugin "$tmp/end6.so" --kernel ab_sum --n 64 --evals 3000 --threads 1 --out "$tmp/h6.txt"
check "hunt --threads 1, the same kernel: no such finding" \
  '[ "$(rc)" != 3 ] && ! grep -q "not reentrant" "$tmp/out" && ! grep -q "best bound ratio [0-9.]*e+" "$tmp/out"'

# --- probe tensor-core --------------------------------------------------------------------------
run probe tensor-core --plugin "$tmp/gemm0.so" --kernel ab_gemm
check "probe tensor-core, a CPU GEMM on TF32 operands: probed (exit 0)" \
  '[ "$(rc)" = 0 ] && grep -q "accumulator precision (bits)  *24 " "$tmp/out"'
probe() { trun probe tensor-core --plugin "$tmp/gemm$1.so" --kernel ab_gemm; }
probe 1
check "probe, a kernel that calls exit(0): exit 3, named" \
  '[ "$(rc)" = 3 ] && grep -q "^ulpgate probe: kernel ab_gemm@default called exit(0) while it ran: the probe ends" "$tmp/err"'
cc_plugin "$tmp/gemm19.so" 19 -DGEMM
probe 19
check "probe, a kernel that calls _exit(0): exit 3, named" \
  '[ "$(rc)" = 3 ] && grep -q "^ulpgate probe: kernel ab_gemm@default called _exit(0) while it ran: the probe ends" "$tmp/err"'
probe 2
check "probe, a kernel that aborts: exit 3, SIGABRT named" \
  '[ "$(rc)" = 3 ] && grep -q "^ulpgate probe: kernel ab_gemm@default crashed (SIGABRT" "$tmp/err"'
probe 9
check "probe, a kernel that writes one element past its output: the fence faults, exit 3" \
  '[ "$(rc)" = 3 ] && grep -q "^ulpgate probe: kernel ab_gemm@default crashed (SIGSEGV)" "$tmp/err"'
ULPGATE_CALL_TIMEOUT=1 probe 5
check "probe, a kernel that never returns: exit 124, the limit of a call named" \
  '[ "$(rc)" = 124 ] && grep -q "^ulpgate probe: timed out: kernel ab_gemm@default still running after 1 s" "$tmp/err"'

# --- run ----------------------------------------------------------------------------------------
trun run --tap --plugin "$tmp/end8.so" --no-builtin --report "$tmp/r8"
check "run, a kernel that calls exit(0) after passing points: exit 1, plan line, Bail out!" \
  '[ "$(rc)" = 1 ] && grep -q "^ok 1 " "$tmp/out" && grep -q "^1\.\.[0-9]" "$tmp/out" && grep -q "^Bail out! kernel ab_sum@default called exit(0) while it ran" "$tmp/out" && json "$tmp/r8/results.json" "assert d[\"meta\"][\"interrupted\"] is True"'
trun run --tap --plugin "$tmp/end10.so" --no-builtin --report "$tmp/r10"
# (the thread's exit(0) lands between two calls or during one, as the scheduler has it: between
# them it is outside any kernel call; during one it is taken for the running kernel's, whose
# worker threads may exit too; either way the run fails)
check "run, exit(0) from a thread a kernel left running: exit 1, plan line, Bail out!, report marked" \
  '[ "$(rc)" = 1 ] && grep -q "^ok 1 " "$tmp/out" && grep -q "^1\.\.[0-9]" "$tmp/out" && grep -Eq "^Bail out! (exit\(0\) was called while the run went on, outside any kernel call \(the last kernel run: ab_sum@default|kernel ab_sum@default called exit\(0\) while it ran)" "$tmp/out" && json "$tmp/r10/results.json" "assert d[\"meta\"][\"interrupted\"] is True"'
ULPGATE_CALL_TIMEOUT=1 trun run --plugin "$tmp/end5.so" --no-builtin --filter 'corpus/special_*' --report "$tmp/r5"
check "run without --timeout, a kernel that never returns: ended by the limit of a call (124), report marked" \
  '[ "$(rc)" = 124 ] && grep -q "timed out: kernel ab_sum@default still running after 1 s in one call" "$tmp/err" && json "$tmp/r5/results.json" "assert d[\"meta\"][\"interrupted\"] is True"'
for cmd in list run; do
  run $cmd --plugin "$tmp/end11.so"
  check "$cmd, a plugin whose constructor calls exit(0): exit 2, refused, said why" \
    '[ "$(rc)" = 2 ] && grep -q "^ulpgate: --plugin .*end11.so: it called exit(0) while it was loaded" "$tmp/err"'
done

cc -shared -fPIC -std=c11 -O2 -I"$src/include" -o "$tmp/lse_flip.so" "$src/tests/plugins/lse_flip.c" -lm 2>>"$tmp/cc.err"
trun run --plugin "$tmp/lse_flip.so" --no-builtin --filter 'attention/normal'
check "attention whose second output (lse) alone changes between calls: the determinism rerun fails it" \
  '[ "$(rc)" = 1 ] && [ "$(grep -c "^not ok .* lse_flip@default" "$tmp/out")" = 2 ] && grep -q "determinism (a deterministic kernel, run again) failed: lse_flip@default declares itself deterministic" "$tmp/out"'

# --- declarations measured: invariance --------------------------------------------------------------
trun run --plugin "$tmp/gemm12.so" --no-builtin --filter 'invariance/*'
check "invariance, a declared kernel that writes past its output in a call of 3 rows: fenced, named (exit 1)" \
  '[ "$(rc)" = 1 ] && grep -q "^Bail out! kernel ab_gemm@default crashed (SIGSEGV)" "$tmp/out"'
trun run --plugin "$tmp/gemm13.so" --no-builtin --filter 'invariance/*'
check "invariance, a kernel declared nondeterministic and batch-invariant: checked, its difference fails" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok .* batch ab_gemm@default declared" "$tmp/out" && grep -q "ab_gemm@default is declared batch-invariant, but row 0 differs" "$tmp/out"'

# --- declarations measured: determinism ---------------------------------------------------------------
for e in 0 14 15 16; do
  "$ug" run --plugin "$tmp/end$e.so" --no-builtin --filter 'reduce/normal' --report "$tmp/det$e" >/dev/null 2>&1
done
check "a kernel declared nondeterministic that is deterministic: its rows deterministic, one run's count, a note" \
  'json "$tmp/det14/results.json" "
r = d[\"results\"]; b = json.load(open(\"$tmp/det0/results.json\"))
assert len(r) == 8 and all(x[\"deterministic\"] is True and x[\"repeats\"] == 9 and x[\"distinct_results\"] == 1 and \"declared nondeterministic, but each of its 9 runs of every trial gave the same bits\" in x[\"note\"] for x in r), r[0]
from same_rows import results_rows
assert [x[\"count\"] for x in r] == [x[\"count\"] for x in results_rows(b)], [x[\"count\"] for x in r]"'
run compare "$tmp/det14/results.json" "$tmp/det0/results.json" --fail-on-regression
check "compared with the same kernel declared deterministic: every row the same, none 'inputs changed'" \
  '[ "$(rc)" = 0 ] && grep -q "^8 rows compared: 0 regressed, 0 improved, 8 same, 0 within slack; 0 inputs changed" "$tmp/out"'
check "a kernel declared nondeterministic that is (two orders): its rows of n >= 3 nondeterministic" \
  "json \"\$tmp/det15/results.json\" \"assert sum(not x['deterministic'] for x in d['results']) == 6\""
run compare "$tmp/det15/results.json" "$tmp/det16/results.json" --fail-on-regression
check "base nondeterministic, new deterministic and worse: compared (not 'inputs changed'), 4 regressions" \
  '[ "$(rc)" = 1 ] && grep -q "^8 rows compared: 4 regressed, .* 0 inputs changed" "$tmp/out"'

for step in 1 2; do
  cc -shared -fPIC -std=c11 -O2 -DSTEP=$step -I"$src/include" -o "$tmp/step$step.so" "$src/tests/plugins/lse_flip.c" -lm 2>>"$tmp/cc.err"
  trun run --plugin "$tmp/step$step.so" --no-builtin --filter 'invariance/*'
  what=$([ $step = 1 ] && echo "decode step (query 256 over 257 keys)" || echo "chunk 1 (queries 64..127 over 128 keys)")
  check "invariance, attention that differs in $([ $step = 1 ] && echo "a decode step's call" || echo "a prefill chunk's call") alone: the chunked check runs it and fails it" \
    '[ "$(rc)" = 1 ] && grep -q "^not ok .* chunked lse_flip@default declared" "$tmp/out" && ! grep -q "^not ok .* batch lse_flip@default declared" "$tmp/out" && grep -q "lse_flip@default is declared batch-invariant, but row .* differs, first at O\[0\]: one prefill (L = S = 320) .* vs $what" "$tmp/out"'
done

# --- the unit costs -----------------------------------------------------------------------------
mkfifo "$tmp/costs.fifo"
t0=$(date +%s)
ULPGATE_UNIT_COSTS="$tmp/costs.fifo" trun run --shard 0/2 --filter 'reduce/normal' --kernel 'serial_f32@default' --n 1000
t1=$(date +%s)
check "ULPGATE_UNIT_COSTS a FIFO no one writes to: not waited for ($((t1 - t0)) s), equal costs, the run goes on" \
  '[ "$(rc)" = 0 ] && [ $((t1 - t0)) -lt 30 ] && grep -q "costs.fifo: a FIFO that no one wrote to within 5 s: not read" "$tmp/err"'
ULPGATE_UNIT_COSTS=/dev/zero run run --shard 0/2 --filter 'reduce/normal' --kernel 'serial_f32@default' --n 1000
check "ULPGATE_UNIT_COSTS=/dev/zero: refused at its first byte, the run goes on" \
  '[ "$(rc)" = 0 ] && grep -q "/dev/zero: NUL byte at byte 1: not a text file" "$tmp/err"'
ULPGATE_UNIT_COSTS="$tmp/no-such-costs.json" run run --shard 0/2 --filter 'reduce/normal' --kernel 'serial_f32@default' --n 1000
check "ULPGATE_UNIT_COSTS a missing file: said, the run goes on" \
  '[ "$(rc)" = 0 ] && grep -q "no-such-costs.json: No such file or directory" "$tmp/err"'

# --- a plugin that changes the x87 control word alone ---------------------------------------------
if [ "$(uname -m)" = x86_64 ]; then
  run run --plugin "$tmp/end17.so" --no-builtin --filter 'corpus/special_*'
  check "a plugin that sets the x87 precision to 24 bits at load (MXCSR untouched): said, its kernels fail" \
    '[ "$(rc)" = 1 ] && grep -q "end17.so: the plugin changed the floating-point environment when it was loaded (x87 control word 0x007f (was 0x037f)" "$tmp/err" && ! grep -q "^ok " "$tmp/out"'
else
  ok "a plugin that changes the x87 control word alone # SKIP not x86_64"
fi

# --- a report whose results.json cannot be written; a file of exactly the size limit ---------------
"$ug" run --filter 'corpus/special_*' --kernel 'serial_f32@default' --report "$tmp/rep" >/dev/null 2>&1
size=$(stat -c %s "$tmp/rep/results.json")
(ulimit -f 1; exec "$ug" run --filter 'corpus/special_*' --kernel 'serial_f32@default' --report "$tmp/rep" >/dev/null 2>"$tmp/err")
check "a second run whose results.json cannot be written (ulimit -f): exit 2, the folder left marked in progress" \
  '[ $? = 2 ] && grep -q "cannot write .*rep/results.json: File too large" "$tmp/err" && [ -e "$tmp/rep/.ulpgate-in-progress" ]'
run compare "$tmp/rep/results.json" "$tmp/rep/results.json"
check "compare refuses the earlier run's results.json there (exit 2, marked in progress)" \
  '[ "$(rc)" = 2 ] && grep -q "marked in progress" "$tmp/err"'
"$ug" run --filter 'corpus/special_*' --kernel 'serial_f32@default' --report "$tmp/lim" >/dev/null 2>&1
size=$(stat -c %s "$tmp/lim/results.json")
size_rows=$(python3 -c "import json, sys; print(sum(json.load(open(sys.argv[1]))['summary'].values()))" "$tmp/lim/results.json")
ULPGATE_JSON_LIMIT=$size run compare "$tmp/lim/results.json" "$tmp/lim/results.json"
check "a results.json of exactly ULPGATE_JSON_LIMIT bytes ($size) is read" '[ "$(rc)" = 0 ]'
ULPGATE_JSON_LIMIT=$((size - 1)) run compare "$tmp/lim/results.json" "$tmp/lim/results.json"
check "one byte over the limit: refused before it is read (exit 2)" \
  '[ "$(rc)" = 2 ] && grep -q "lim/results.json: $size bytes, larger than $((size - 1)) bytes, the limit of a JSON file" "$tmp/err"'
# the unit costs, read once (compare reads its inputs twice: a FIFO is read by one of them)
mkfifo "$tmp/lim.fifo"
echo '{"units":{"reduce/normal":1.5}}' >"$tmp/costs.json"
csize=$(stat -c %s "$tmp/costs.json")
(cat "$tmp/costs.json" >"$tmp/lim.fifo" &)
ULPGATE_JSON_LIMIT=$csize ULPGATE_UNIT_COSTS="$tmp/lim.fifo" trun run --shard 0/2 --filter 'reduce/normal' --kernel 'serial_f32@default' --n 1000
check "a FIFO of exactly the limit ($csize bytes): read (nothing said)" '[ "$(rc)" = 0 ] && ! grep -q "ULPGATE_UNIT_COSTS" "$tmp/err"'
(cat "$tmp/costs.json" >"$tmp/lim.fifo" &)
ULPGATE_JSON_LIMIT=$((csize - 1)) ULPGATE_UNIT_COSTS="$tmp/lim.fifo" trun run --shard 0/2 --filter 'reduce/normal' --kernel 'serial_f32@default' --n 1000
check "a FIFO one byte over: refused once the byte comes, said" \
  '[ "$(rc)" = 0 ] && grep -q "lim.fifo: larger than $((csize - 1)) bytes, the limit of a JSON file" "$tmp/err"'

# --- a results.json whose summary lies by one row -------------------------------------------------
for delta in 1 -1; do
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); d['summary']['passed'] += $delta; json.dump(d, open(sys.argv[2], 'w'))" \
    "$tmp/lim/results.json" "$tmp/lies$delta.json"
  run compare "$tmp/lim/results.json" "$tmp/lies$delta.json" --fail-on-regression
  check "NEW whose summary counts one row $([ $delta = 1 ] && echo more || echo fewer) than it holds: not accepted (exit 1)" \
    '[ "$(rc)" = 1 ] && grep -q "^NOT ACCEPTED: NEW is truncated: its summary counts $((size_rows + delta)) test points, it holds $size_rows$" "$tmp/out"'
done

# --- baselines of an unknown fingerprint ----------------------------------------------------------
base="$src/reports/baselines/cpu-x86_64"
"$ug" run --filter 'dot/alternating' --kernel 'dot_kahan_f32@default' --report "$tmp/dot" >/dev/null 2>&1
for what in part seed; do
  cp -r "$base" "$tmp/bl-$what"
  python3 - "$tmp/bl-$what/index.json" $what <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for fp in d["fingerprints"].values():
    if sys.argv[2] == "part": fp["mystery"] = "x"
    else: del fp["seed"]
json.dump(d, open(sys.argv[1], "w"))
PY
  run baseline show "$tmp/bl-$what"
  check "baseline show, a fingerprint with $([ $what = part ] && echo "a part it does not know" || echo "no seed"): exit 2, refused" \
    '[ "$(rc)" = 2 ] && grep -q "bl-$what/index.json: fingerprint \"[0-9a-f]*\" has .*: refused" "$tmp/err"'
  run compare "$tmp/bl-$what" "$tmp/dot/results.json"
  check "compare against it: exit 2, refused" '[ "$(rc)" = 2 ] && grep -q ": refused$" "$tmp/err"'
done
run compare "$base" "$tmp/dot/results.json"
check "compare against the committed baseline: read (exit 0 or 1, not 2)" '[ "$(rc)" != 2 ]'
tap_end
