#!/bin/sh
# gate_history_test.sh ULPGATE PLUGIN - the gate's rule for nondeterministic rows measured on the
# CPU: PLUGIN is tests/plugins/simulated_nondet.c, a sum whose block sums arrive in a seeded
# random order as a GPU's atomics make them.  Ten honest runs build the history of a baseline
# (`baseline update`); then twenty more honest runs are compared with it (false reds: none
# allowed), twenty runs with the kernel's error planted twice as large (ULPGATE_SIM_WORSE=2:
# caught in at least 19), and one lucky run (its error x0.3) given to `baseline update` leaves
# every row it is lucky on as it was.  The rates are printed; docs/gate.md quotes them.  TAP.
ug="$1"
lib="$2"
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
sim() { # SEED WORSE OUT: one run of the reduce cases, --threads 1 (reproducible from the seed)
    ULPGATE_SIM_SEED=$1 ULPGATE_SIM_WORSE=$2 "$ug" run --plugin "$lib" --no-builtin --threads 1 \
        --filter 'reduce/*' --baseline-dir "$tmp/bl" --report "$3" >"$3.log" 2>&1
}
mkdir -p "$tmp/bl"
for s in 1 2 3 4 5 6 7 8 9 10; do
    sim $s 1 "$tmp/h$s"
    "$ug" baseline update --from "$tmp/h$s/results.json" --dir "$tmp/bl" >>"$tmp/hist.log" 2>&1
done
# the run's last lines: the gate's word on it, the skips' reasons, what to do next
check "run --report ends with the gate's word, the skips' reasons" \
    'grep -q "^ulpgate: gate: no baseline for " "$tmp/h1.log" && tail -1 "$tmp/h1.log" | grep -q "^ulpgate: skipped [0-9]*: [0-9]* "'
check "... the second run against the baseline the first made: what to do next (nothing)" \
    'grep -q "^ulpgate: gate: against .*: [0-9]* rows compared, 0 regressed" "$tmp/h2.log" && grep -q "^ulpgate: next: nothing to do for the gate" "$tmp/h2.log"'
key=$("$ug" baseline key --from "$tmp/h1/results.json")
bl="$tmp/bl/$key"
check "ten honest runs: every nondeterministic row with a history of >= 5 of them" \
    'python3 - "$bl" "$ug_scripts" <<PY
import sys
sys.path.insert(0, sys.argv[2])
from same_rows import rows
r = [x for x in rows(sys.argv[1]).values() if x.get("measured") and not x.get("deterministic", True)]
short = [x for x in r if len(x.get("history", [0])) < 5]
print("# %d nondeterministic rows, %d with a history shorter than 5" % (len(r), len(short)))
assert r and not short
PY'
# count the runs of one kind that the gate fails: SEED0 WORSE -> "reds of 20"
reds() {
    red=0
    for i in $(seq 1 20); do
        sim $(($1 + i)) "$2" "$tmp/r"
        "$ug" compare "$bl" "$tmp/r/results.json" --fail-on-regression >"$tmp/cmp$i.txt" 2>&1 ||
            red=$((red + 1))
    done
    echo "$red"
}
fr=$(reds 100 1)
echo "# honest runs (seeds 101..120): $fr of 20 red"
check "honest runs: 0 of 20 go red" '[ "$fr" = 0 ]'
[ "$fr" = 0 ] || grep -h "REGRESSION" "$tmp"/cmp*.txt | head -5 | sed 's/^/# /'
caught=$(reds 200 2)
echo "# planted regression, mean error x2 (seeds 201..220): $caught of 20 red"
check "a planted 2x regression is caught in >= 19 of 20 runs" '[ "$caught" -ge 19 ]'
check "and the gate says why: a kernel-wide drift beyond the history, with its probability" \
    'grep -q "REGRESSION (kernel-wide drift) sim_atomic_sum@default: .* p [0-9.e-]* (the rule flags below" "$tmp/cmp1.txt"'

# a lucky run: better than the history on every row it moves; baseline update takes none of them
sim 301 0.3 "$tmp/lucky"
cp -r "$bl" "$tmp/before"
run baseline update --from "$tmp/lucky/results.json" --dir "$tmp/bl"
check "baseline update on a lucky run: rows better than their history are kept, not tightened" \
    '[ "$(rc)" = 0 ] && grep -q "^kept .* not taken from one run" "$tmp/out" && ! grep -q "^tightened" "$tmp/out"'
check "... and those rows are as they were, history included" 'python3 - "$tmp/before" "$bl" "$tmp/out" "$ug_scripts" <<PY
import sys
sys.path.insert(0, sys.argv[4])
from same_rows import rows
a, b = rows(sys.argv[1]), rows(sys.argv[2])
kept = [l.split(":")[0][5:] for l in open(sys.argv[3]) if l.startswith("kept ")]
ids = {" ".join(str(p) for p in k[:4]): k for k in a if a[k].get("measured")}
found = [ids[i] for i in kept if i in ids]
moved = [k for k in found if a[k] != b.get(k)]
print("# %d rows kept as lucky (%d found), %d of them changed" % (len(kept), len(found), len(moved)))
assert kept and len(found) == len(kept) and not moved
PY'
tap_end
