#!/bin/sh
# op_names_test.sh ULPGATE SRCDIR - every operation's name round-trips whole (the row
# once held it in char[8], and "layernorm" came back as "layerno"): a run of one case of every
# operation (*/normal, one trial) -> results.json -> baseline update -> compare -> report.
# TAP on stdout.
ug="$1"
src="$2"
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
ops=$("$ug" list | sed -n '/^operations/,/^kernels/p' | sed -n 's/^  \([a-z0-9_]*\) .*/\1/p')
check "ulpgate list names the operations" '[ -n "$ops" ] && echo "$ops" | grep -qx layernorm'
"$ug" run --filter '*/normal' --trials 1 --report "$tmp/r" >"$tmp/run.out" 2>&1
check "a run of */normal, one trial, with a report" '[ -f "$tmp/r/results.json" ]'
rows_ops() { python3 -c "import sys; sys.path.insert(0, '$src/scripts'); from same_rows import rows
print(' '.join(sorted({r['op'] for r in rows(sys.argv[1]).values() if 'op' in r})))" "$1"; }
for op in $ops; do
  check "results.json: rows of $op, the name whole" 'rows_ops "$tmp/r/results.json" | tr " " "\n" | grep -qx "$op"'
done
mkdir -p "$tmp/bl"
key=$("$ug" baseline key --from "$tmp/r/results.json")
run baseline update --from "$tmp/r/results.json" --dir "$tmp/bl" --device "$key" --reason "test"
check "baseline update from the run" '[ "$(rc)" = 0 ] && [ -f "$tmp/bl/$key/index.json" ]'
for op in $ops; do
  check "the baseline: rows of $op, the name whole" 'rows_ops "$tmp/bl/$key" | tr " " "\n" | grep -qx "$op"'
done
run compare "$tmp/bl/$key" "$tmp/r/results.json" --fail-on-regression
check "compare the baseline with the run: every row the same" \
  '[ "$(rc)" = 0 ] && grep -Eq "^([0-9]+) rows compared: 0 regressed, 0 improved, \1 same" "$tmp/out"'
run report "$tmp/r" --baseline "$tmp/bl/$key"
check "report against the baseline" '[ "$(rc)" = 0 ] && [ -f "$tmp/r/summary.md" ]'
for op in $ops; do
  check "summary.md: a row of $op in its op column" 'grep -q "^| [^|]* | $op | " "$tmp/r/summary.md"'
done
tap_end
