#!/bin/sh
# gate_history_gpu.sh ULPGATE OUTDIR FILTER [HISTORY] [TESTS] - the gate's rule for
# nondeterministic rows (docs/gate.md, "the history rule") measured on a GPU, as
# tests/gate_history_test.sh measures it on the CPU's simulation of atomics: HISTORY (default
# 10) honest runs of the cases FILTER names build the history of a scratch baseline
# (`baseline update`, OUTDIR/bl); then each of TESTS (default 20) more honest runs is compared
# with it twice: as it is (a red is a false alarm) and with its nondeterministic rows' error
# figures doubled (scripts/plant_regression.py: a planted 2x regression on top of the run's own
# spread; a green is a miss).  Same seed every run: the inputs are the same, the spread is the
# GPU's.  Prints a line a run and the two rates; exit 0.  Cost: HISTORY + TESTS runs of FILTER.
set -u
ug=$1 out=$2 filter=$3 hist=${4:-10} tests=${5:-20}
here=$(dirname "$0")
mkdir -p "$out/bl"
one() { "$ug" run --filter "$filter" --baseline-dir "$out/bl" --report "$1" >"$1.log" 2>&1; }
for i in $(seq 1 "$hist"); do
    t0=$(date +%s)
    one "$out/h$i"
    "$ug" baseline update --from "$out/h$i/results.json" --dir "$out/bl" >>"$out/update.log" 2>&1
    echo "history run $i: $(($(date +%s) - t0)) s"
done
key=$("$ug" baseline key --from "$out/h1/results.json")
red=0 caught=0
for i in $(seq 1 "$tests"); do
    one "$out/r"
    "$ug" compare "$out/bl/$key" "$out/r/results.json" --fail-on-regression >"$out/honest$i.txt" 2>&1 ||
        red=$((red + 1))
    python3 "$here/plant_regression.py" "$out/r/results.json" "$out/planted.json" 2 >/dev/null
    "$ug" compare "$out/bl/$key" "$out/planted.json" --fail-on-regression >"$out/planted$i.txt" 2>&1 ||
        caught=$((caught + 1))
    echo "test run $i: honest $(grep -o '[0-9]* regressed' "$out/honest$i.txt" | head -1), planted x2 $(grep -o '[0-9]* regressed' "$out/planted$i.txt" | head -1)"
done
echo "honest runs red: $red of $tests"
echo "planted 2x regressions caught: $caught of $tests"
grep -h "REGRESSION" "$out"/honest*.txt | sort | uniq -c | sort -rn | head -5
grep -h "REGRESSION (kernel-wide" "$out"/planted*.txt | sort | uniq -c | sort -rn | head -5
