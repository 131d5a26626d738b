#!/bin/sh
# shard_test.sh ULPGATE [shards|parts] - shards, merge and worker processes as a user meets them:
# four shards merged give the figures of one unsharded run (every row equal); a missing or
# doubled shard, or shards of another configuration, are refused naming what is wrong; the plan
# is the same on every run; `--gpus` workers give the unsharded figures too (mode shards, the
# default); per-file runs merged with --parts are the default run, row for row (mode parts: two
# default runs' work, a meson test of its own so that the two halves run side by side).  TAP on
# stdout.
ug="$1"
mode="${2:-shards}"
case "$mode" in shards|parts) ;; *) echo "shard_test.sh: mode '$mode' is not shards or parts" >&2; exit 2 ;; esac
. "$(dirname "$0")/tap.sh"
# every row of B equal to A's, timing aside
same_rows() { UG_SCRIPTS="$ug_scripts" python3 - "$1" "$2" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["UG_SCRIPTS"])
from same_rows import results_rows
a = {r["id"]: r for r in results_rows(json.load(open(sys.argv[1])))}
b = {r["id"]: r for r in results_rows(json.load(open(sys.argv[2])))}
assert set(a) == set(b), sorted(set(a) ^ set(b))[:5]
skip = {"time_ms", "gbps", "gflops"}
bad = [(i, k) for i in a for k in a[i] if k not in skip and a[i][k] != b[i].get(k)]
assert not bad, bad[:5]
print("# %d rows equal" % len(a))
PY
}
sel="--filter reduce/* --trials 3"

echo "TAP version 13"
if [ "$mode" = shards ]; then
$ug run $sel --report "$tmp/full" --tap >"$tmp/out" 2>"$tmp/err"
check "the unsharded run passes" '[ $? = 0 ]'
for k in 0 1 2 3; do
  $ug run $sel --shard $k/4 --report "$tmp/s$k" --tap >"$tmp/out" 2>"$tmp/err"
  check "shard $k/4 passes" '[ $? = 0 ]'
done
$ug merge "$tmp/merged.json" "$tmp"/s0/results.json "$tmp"/s1/results.json "$tmp"/s2/results.json "$tmp"/s3/results.json >"$tmp/out" 2>"$tmp/err"
check "merge of the four shards: exit 0, JUnit XML beside it" '[ $? = 0 ] && grep -q "<testsuites" "$tmp/junit.xml"'
check "the merged report has every row of the unsharded run, equal" 'same_rows "$tmp/full/results.json" "$tmp/merged.json" >"$tmp/out" 2>&1'
check "every unit is in exactly one shard" 'python3 -c "
import json,sys
s=[json.load(open(\"$tmp/s%d/results.json\" % k)) for k in range(4)]
u=[x[\"name\"] for d in s for x in d[\"units\"]]
assert len(u)==len(set(u))==len(s[0][\"shard\"][\"units\"]), (len(u), len(set(u)))"'
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['meta'].update(interrupted=True, stop_reason='SIGTERM'); json.dump(d, open(sys.argv[2], 'w'))" "$tmp/s2/results.json" "$tmp/s2i.json"
$ug merge "$tmp/mi.json" "$tmp"/s0/results.json "$tmp"/s1/results.json "$tmp/s2i.json" "$tmp"/s3/results.json >"$tmp/out" 2>"$tmp/err"
check "merge carries an interrupted shard through: the merged report is marked interrupted, naming it" \
  'python3 -c "import json,sys; m=json.load(open(sys.argv[1]))[\"meta\"]; assert m[\"interrupted\"] is True and \"SIGTERM\" in m[\"stop_reason\"] and \"s2i.json\" in m[\"stop_reason\"], m" "$tmp/mi.json" && grep -q "s2i.json was interrupted (SIGTERM)" "$tmp/err"'
$ug compare "$tmp/merged.json" "$tmp/mi.json" --fail-on-regression >"$tmp/out" 2>"$tmp/err"
check "... and the gate does not accept it" '[ $? = 1 ] && grep -q "^NOT ACCEPTED: NEW was interrupted" "$tmp/out"'
# outputs that are not regular files: a symlink is written through, a full device says ENOSPC
ln -s "$tmp/target.json" "$tmp/link.json"
$ug merge "$tmp/link.json" "$tmp"/s0/results.json "$tmp"/s1/results.json "$tmp"/s2/results.json "$tmp"/s3/results.json >"$tmp/out" 2>"$tmp/err"
check "merge into a symlink: written through to its target, the link kept" \
  '[ $? = 0 ] && [ -L "$tmp/link.json" ] && [ -f "$tmp/target.json" ] && [ ! -L "$tmp/target.json" ] && cmp -s "$tmp/target.json" "$tmp/merged.json"'
if mknod "$tmp/fulldev" c 1 7 2>/dev/null; then
  $ug merge "$tmp/fulldev" "$tmp"/s0/results.json "$tmp"/s1/results.json "$tmp"/s2/results.json "$tmp"/s3/results.json --junit "$tmp/fulldev" >"$tmp/out" 2>"$tmp/err"
  check "merge into a full device (a /dev/full node): exit 2, ENOSPC named, the node left a device" \
    '[ $? = 2 ] && grep -q "cannot write $tmp/fulldev: No space left on device" "$tmp/err" && [ -c "$tmp/fulldev" ]'
else
  ok "merge into a full device # SKIP mknod not permitted here"
fi
# merge --parts's rules on small parts (the whole default run is mode parts' work): a part
# narrowed by --trials, units in no part, a unit in two parts; each named, exit 2
$ug run --filter 'dot/normal' --report "$tmp/pp-dot" >/dev/null 2>&1
$ug merge --parts "$tmp/pp.json" "$tmp/pp-dot/results.json" "$tmp/full/results.json" "$tmp/pp-dot/results.json" >"$tmp/out" 2>"$tmp/err"
check "merge --parts of parts that are not the default run: exit 2, each fault named" \
  '[ $? = 2 ] && grep -q "full/results.json is not a part of the default run: its selection is narrowed" "$tmp/err" && grep -q "^ulpgate merge: unit dot/normal of the default run is in 2 parts" "$tmp/err" && grep -q "^ulpgate merge: unit gemm/normal of the default run is in 0 parts" "$tmp/err" && [ ! -e "$tmp/pp.json" ]'
$ug merge "$tmp/m3.json" "$tmp"/s0/results.json "$tmp"/s1/results.json "$tmp"/s3/results.json >"$tmp/out" 2>"$tmp/err"
check "a missing shard: exit 2 naming the shard and its units" \
  '[ $? = 2 ] && grep -q "shard 2/4 is missing; its units: reduce/" "$tmp/err"'
$ug merge "$tmp/m5.json" "$tmp"/s0/results.json "$tmp"/s1/results.json "$tmp"/s2/results.json "$tmp"/s3/results.json "$tmp"/s3/results.json >"$tmp/out" 2>"$tmp/err"
check "a doubled shard: exit 2" '[ $? = 2 ] && grep -q "shard 3/4 is given 2 times" "$tmp/err"'
$ug run $sel --shard 3/4 --seed 7 --report "$tmp/other" --tap >"$tmp/out" 2>"$tmp/err"
$ug merge "$tmp/mx.json" "$tmp"/s0/results.json "$tmp"/s1/results.json "$tmp"/s2/results.json "$tmp"/other/results.json >"$tmp/out" 2>"$tmp/err"
check "a shard of another seed: exit 2 naming meta.seed" '[ $? = 2 ] && grep -q "meta.seed" "$tmp/err"'
$ug run $sel --shard 1/4 --report "$tmp/again" --tap >"$tmp/out" 2>"$tmp/err"
check "the plan is the same on every run (same fingerprint, same units)" 'python3 -c "
import json
a=json.load(open(\"$tmp/s1/results.json\")); b=json.load(open(\"$tmp/again/results.json\"))
assert a[\"shard\"]==b[\"shard\"] and [u[\"name\"] for u in a[\"units\"]]==[u[\"name\"] for u in b[\"units\"]]"'
$ug run --shard 4/4 >"$tmp/out" 2>"$tmp/err"
check "--shard 4/4: exit 2" '[ $? = 2 ] && grep -q -- "--shard: .4/4. is not K/N" "$tmp/err"'
# two workers where there are two GPUs or none (the CPU cases), one on a machine with one GPU
ndev=$($ug devices 2>/dev/null | head -1)
if [ "${ndev:-0}" = 1 ]; then gpus=0; last=1/2; else gpus=0,1; last=3/4; fi
# (without a GPU, ULPGATE_FAKE_GPUS=2 lets the workers run the CPU cases: the machinery tested)
ULPGATE_FAKE_GPUS=2 $ug run $sel --gpus $gpus --report "$tmp/workers" --tap >"$tmp/out" 2>"$tmp/err"
check "--gpus $gpus --tap: worker processes, one TAP stream, exit 0" \
  '[ $? = 0 ] && grep -q "^# shard $last on GPU [01]$" "$tmp/out" && [ "$(grep -c "^ok " "$tmp/out")" = "$(sed -n "s/^1\.\.//p" "$tmp/out")" ]'
if [ "${ndev:-0}" -gt 0 ]; then
  $ug run $sel --gpus "$ndev" >"$tmp/out" 2>"$tmp/err"
  check "--gpus naming a GPU that does not exist: exit 2 naming it" '[ $? = 2 ] && grep -q "GPU $ndev does not exist" "$tmp/err"'
else
  $ug run $sel --gpus 7 >"$tmp/out" 2>"$tmp/err"
  check "--gpus 7 on a machine without GPUs: exit 2, nothing run, saying there are none" \
    '[ $? = 2 ] && [ ! -s "$tmp/out" ] && grep -q "GPU 7 does not exist: this machine has no GPU" "$tmp/err"'
fi
# (with GPUs, the workers' report also has the cross-GPU check's rows: compared without them)
python3 -c "import json,sys; sys.path.insert(0, '$ug_scripts'); from same_rows import results_rows; d=json.load(open(sys.argv[1])); d['results']=[r for r in results_rows(d) if not r['id'].startswith('crossgpu ')]; json.dump(d, open(sys.argv[2], 'w'))" "$tmp/workers/results.json" "$tmp/workers_nox.json"
check "--gpus: the merged report equals the unsharded run" 'same_rows "$tmp/full/results.json" "$tmp/workers_nox.json" >"$tmp/out" 2>&1'
check "--gpus: summary.md and index.html beside the merged results.json" \
  '[ -s "$tmp/workers/summary.md" ] && [ -s "$tmp/workers/index.html" ]'
# the compact output without --tap: a line per shard, failures in full, a summary; no TAP
ULPGATE_FAKE_GPUS=2 $ug run --filter "reduce/constant" --trials 3 --gpus $gpus >"$tmp/out" 2>"$tmp/err"
check "--gpus without --tap: a line per shard and a summary, no TAP stream, exit 0" \
  '[ $? = 0 ] && grep -q "^\[[1-4]/[24]\] shard [0-3]/[24] on GPU [01]: [0-9]* points, 0 failures" "$tmp/out" && grep -q "^[0-9]* shards, [0-9]* test points in" "$tmp/out" && ! grep -q "^ok \|^TAP version" "$tmp/out"'
# a stop signal: the finished shards and the workers' interrupted reports are merged and written,
# marked interrupted, exit 128 + 15 (before: the parent died, its workers ran on, nothing written)
ULPGATE_FAKE_GPUS=2 $ug run $sel --gpus $gpus --report "$tmp/stopped" >"$tmp/out" 2>"$tmp/err" &
gpid=$!
for i in $(seq 1 600); do grep -q "^\[1/" "$tmp/out" && break; sleep 0.1; done
kill -TERM $gpid
wait $gpid
grc=$?
check "--gpus stopped by SIGTERM after a shard finished: exit 143, a report marked interrupted with its rows" \
  '[ $grc = 143 ] && python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); m=d[\"meta\"]
assert m[\"interrupted\"] is True and \"run --gpus: SIGTERM\" in m[\"stop_reason\"], m
assert len(d[\"results\"]) > 0" "$tmp/stopped/results.json" && grep -q "stopped by a signal" "$tmp/out"'

# scripts/slurm with a stand-in sbatch (it runs the array's one task at once): the run options
# reach the shard as the words given, unglobbed, from a directory where 'reduce/*' matches a file
mkdir -p "$tmp/fakebin" "$tmp/cwd/reduce/zz"
cat >"$tmp/fakebin/sbatch" <<'SB'
#!/bin/sh
for a; do last=$a; done
case "$last" in *shard.sbatch) SLURM_ARRAY_TASK_ID=0 sh "$last" >"$ULPGATE_OUT/shard-0.log" 2>&1 ;; esac
echo 42
SB
chmod +x "$tmp/fakebin/sbatch"
(cd "$tmp/cwd" && PATH="$tmp/fakebin:$PATH" sh "$(dirname "$0")/../scripts/slurm/submit.sh" "$ug" "$tmp/sl" 1 \
  --filter 'reduce/*' --kernel kahan_f32 --trials 3) >"$tmp/out" 2>"$tmp/err"
check "slurm: the run options reach the shard unglobbed ('reduce/*' with a reduce/zz in the job's directory)" \
  'python3 -c "import json,sys; s=json.load(open(sys.argv[1]))[\"meta\"][\"selection\"]; assert s[\"filter\"]==\"reduce/*\" and s[\"kernel\"]==\"kahan_f32\", s" "$tmp/sl/shard-0/results.json"'
fi

if [ "$mode" = parts ]; then
# ---- merge --parts: per-file runs (one of them sharded) that together are the default run ------
# (on the CPU alone: this checks merge's rules, and twice the GPU suite would only cost time)
CUDA_VISIBLE_DEVICES=""
export CUDA_VISIBLE_DEVICES
# The default run and the per-file runs are independent processes: all started at once and
# waited for (the default run and the adversarial part, ~35 s each, set the time; one after the
# other they took ~90 s of wall time on a 16-core GPU machine, on the default GPU suite's
# critical path; on 2 cores the work is the same).
$ug run --report "$tmp/default" >"$tmp/default.out" 2>"$tmp/default.err" &
# (groups of slow cases alone are not in the default run, nor the canaries, which must fail: no part)
prefixes=$($ug list | grep -v "\[slow\]" | grep -v "\[canary: must fail\]" | sed -n 's/^  \([a-z0-9_]*\)\/.*/\1/p' | sort -u | grep -vx canary)
parts=""
for p in $prefixes; do
  if [ "$p" = reduce ]; then
    for k in 0 1; do $ug run --filter "reduce/*" --shard $k/2 --report "$tmp/p-reduce$k" >/dev/null 2>&1 & parts="$parts $tmp/p-reduce$k/results.json"; done
  else
    $ug run --filter "$p/*" --report "$tmp/p-$p" >/dev/null 2>&1 & parts="$parts $tmp/p-$p/results.json"
  fi
done
wait
# The default run's results.json at most 3 MB (format 4: one array a row; the bytes a
# row, what a GPU machine's three times as many rows need, are asserted in report_size)
rj=$(wc -c <"$tmp/default/results.json")
check "the default run's results.json is at most 3 MB, 3,000,000 bytes ($rj bytes)" '[ "$rj" -le 3000000 ]'
$ug merge --parts "$tmp/parts.json" $parts >"$tmp/out" 2>"$tmp/err"
check "merge --parts of every case file's run (reduce in 2 shards): exit 0" '[ $? = 0 ] && grep -q "parts into" "$tmp/err"'
check "... every row equal to the default run's" 'same_rows "$tmp/default/results.json" "$tmp/parts.json" >"$tmp/out" 2>&1'
$ug merge --parts "$tmp/x.json" $(echo $parts | tr " " "\n" | grep -v /p-dot/) >"$tmp/out" 2>"$tmp/err"
check "a file's part missing: exit 2 naming its units" '[ $? = 2 ] && grep -q "unit dot/normal of the default run is in 0 parts" "$tmp/err"'
$ug run --filter "dot/*" --n 1000 --report "$tmp/p-dotn" >/dev/null 2>&1
$ug merge --parts "$tmp/x.json" $(echo $parts | tr " " "\n" | grep -v /p-dot/) "$tmp/p-dotn/results.json" >"$tmp/out" 2>"$tmp/err"
check "a narrowed part (--n): exit 2 naming it" '[ $? = 2 ] && grep -q "p-dotn/results.json is not a part of the default run" "$tmp/err"'
$ug merge --parts "$tmp/x.json" $parts "$tmp/p-dot/results.json" >"$tmp/out" 2>"$tmp/err"
check "a part given twice: exit 2" '[ $? = 2 ] && grep -q "unit dot/normal of the default run is in 2 parts" "$tmp/err"'
fi
tap_end
