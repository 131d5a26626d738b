#!/bin/sh
# gate_cli_test.sh ULPGATE SRCDIR - the merge gate's commands as a user meets them: compare
# (identical runs, a figure made worse in a copy, rows added and removed, an environment change,
# a nondeterministic row within and beyond its slack, Markdown, bad input), baseline update
# (created, unchanged, a loosening refused without --reason and stored with one, tightening,
# pruning), baseline show and key, report and summary.  TAP on stdout; every check asserts an
# exit status and what is printed.
ug="$1"
src="$2"
. "$(dirname "$0")/tap.sh"
# edit a results.json with a Python statement over d (the document) and rows (its results)
edit() { python3 -c "import json,sys; sys.path.insert(0, '$ug_scripts'); from same_rows import results_rows; d=json.load(open(sys.argv[1])); 'results' in d and d.update(results=results_rows(d)); rows=d['results']; $3; json.dump(d, open(sys.argv[2], 'w'))" "$1" "$2"; }
row='reduce/normal kahan_f32@default normal(0,1) 10000'

echo "TAP version 13"
"$ug" run --filter 'reduce/normal' --report "$tmp/a" --tap >"$tmp/run.tap" 2>&1
check "a run to compare: reduce/normal with a report" '[ -f "$tmp/a/results.json" ]'
# row counts come from the run itself (build variants multiply the rows)
count() { json "$tmp/a/results.json" "print(sum(1 for r in d['results'] if '$1' in r['id']))"; }
N=$(count '')
NSERIAL=$(count 'serial_f32@')
NKAHAN=$(count 'kahan_f32@')

# ---- compare ----------------------------------------------------------------------------------
run compare "$tmp/a/results.json" "$tmp/a/results.json" --fail-on-regression
check "compare a run with itself: exit 0, every row the same" \
  '[ "$(rc)" = 0 ] && grep -q "^$N rows compared: 0 regressed, 0 improved, $N same" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/worse.json" "
[r.update(ulp_max=r['ulp_max']*13) for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/worse.json"
check "a figure made worse: without --fail-on-regression exit 0, the regression listed" \
  '[ "$(rc)" = 0 ] && grep -q "^REGRESSION $row \[deterministic: exact\]" "$tmp/out"'
run compare "$tmp/a/results.json" "$tmp/worse.json" --fail-on-regression
check "--fail-on-regression: exit 1, the kernel and the figure named with old -> new and ratio" \
  '[ "$(rc)" = 1 ] && grep -q "^REGRESSION .*kahan_f32@default" "$tmp/out" && grep -Eq "^  ulp_max +[0-9.]+ -> [0-9.]+ +x13 +worse" "$tmp/out" && grep -q "1 regressed" "$tmp/out" && grep -q "1 regression" "$tmp/err"'
check "the other figures of that row say same" 'grep -Eq "^  ulp_mean .* same$" "$tmp/out"'
run compare "$tmp/a/results.json" "$tmp/worse.json" --explain "$row"
check "--explain ROW: exit 0, that row's verdict and rule" \
  '[ "$(rc)" = 0 ] && grep -q "^$row \[deterministic: exact\]" "$tmp/out" && grep -q "verdict: worse" "$tmp/out"'
run compare "$tmp/a/results.json" "$tmp/worse.json" --explain "no/such row"
check "--explain of a row no run has: exit 2, said so (not an empty explanation)" \
  '[ "$(rc)" = 2 ] && grep -q "^ulpgate: compare: --explain no/such row: no compared row matches it" "$tmp/err"'
edit "$tmp/a/results.json" "$tmp/tiny.json" "
[r.update(ulp_max=r['ulp_max']*(1+2**-52)) for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/tiny.json" --fail-on-regression
check "deterministic rows have no slack: one ulp of binary64 more is a regression" '[ "$(rc)" = 1 ]'
edit "$tmp/a/results.json" "$tmp/better.json" "
[r.update(correctly_rounded=r['correctly_rounded']+1, ulp_mean=r['ulp_mean']/2) for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/better.json" --fail-on-regression
check "an improvement: exit 0, said the baseline can be tightened" \
  '[ "$(rc)" = 0 ] && grep -q "^IMPROVEMENT (the baseline can be tightened) $row" "$tmp/out" && grep -Eq "^  correctly_rounded .* better$" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/status.json" "
[r.update(status='fail') for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/status.json" --fail-on-regression
check "a row that passed and now fails is a regression" \
  '[ "$(rc)" = 1 ] && grep -Eq "^  status +pass -> fail +worse" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/nan.json" "
[r.update(ulp_max='nan') for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/nan.json" --fail-on-regression
check "a NaN figure is worse than any number" '[ "$(rc)" = 1 ] && grep -Eq "^  ulp_max .* -> nan .* worse" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/rows.json" "
d['results']=[r for r in rows if 'serial_f32@' not in r['id']]+[dict(rows[0], id='reduce/normal new_kernel@default normal(0,1) 1000')]; d['summary']['passed']+=1-$NSERIAL"
run compare "$tmp/a/results.json" "$tmp/rows.json" --fail-on-regression
# A row gone from a case NEW ran fails (taken out of a baseline only with a reason);
# a row only in NEW is listed (tests/measured_test.sh: rows outside NEW's selection are listed)
check "rows gone from a case NEW ran are regressions; a row only in new is listed" \
  '[ "$(rc)" = 1 ] && grep -q "; $NSERIAL rows gone" "$tmp/out" && grep -q "^REGRESSION (gone: NEW ran its case, the row is not there) reduce/normal serial_f32@" "$tmp/out" && grep -q "^only in new (a case, kernel or size added) (1):" "$tmp/out" && grep -q "^  reduce/normal new_kernel@default" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/trials.json" "
[r.update(trials=1, ulp_max=1e9) for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/trials.json" --fail-on-regression
check "a row whose inputs changed (trials) is listed, not judged" \
  '[ "$(rc)" = 0 ] && grep -q "^inputs changed, not compared (1):" "$tmp/out" && grep -q "trials [0-9]* -> 1" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/env.json" "
d['meta']['compiler']='gcc 99.0'"
run compare "$tmp/a/results.json" "$tmp/env.json" --fail-on-regression
check "a changed fingerprint is a warning naming what changed and which rows" \
  '[ "$(rc)" = 0 ] && grep -q "^warning: the environment changed" "$tmp/out" && grep -q "compiler: .*. -> .gcc 99.0.: every CPU row ($N compared rows)" "$tmp/out"'
edit "$tmp/env.json" "$tmp/envworse.json" "
[r.update(ulp_max=r['ulp_max']*2) for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/envworse.json" --fail-on-regression
check "a changed fingerprint never turns a regression into a pass" \
  '[ "$(rc)" = 1 ] && grep -q "(environment changed for this row: compiler)" "$tmp/out"'
# a nondeterministic row: judged on its mean ULP error with a slack (x4 by default); its maxima,
# the worst of 9 random arrival orders, are reported, not gated
edit "$tmp/a/results.json" "$tmp/nd.json" "
[r.update(deterministic=False, repeats=9, distinct_results=3) for r in rows if r['id']=='$row']"
edit "$tmp/nd.json" "$tmp/nd_within.json" "
[r.update(ulp_mean=r['ulp_mean']*3, ulp_max=r['ulp_max']*10, distinct_results=5, correctly_rounded=r['correctly_rounded']+7) for r in rows if r['id']=='$row']"
edit "$tmp/nd.json" "$tmp/nd_beyond.json" "
[r.update(ulp_mean=r['ulp_mean']*5) for r in rows if r['id']=='$row']"
run compare "$tmp/nd.json" "$tmp/nd_within.json" --fail-on-regression --all
check "nondeterministic: mean x3 is within the default slack x4, stated; maxima (x10), distinct results and correctly rounded counts not gated" \
  '[ "$(rc)" = 0 ] && grep -q "^WITHIN SLACK $row \[nondeterministic: worst of 9 repeats, slack x4\]" "$tmp/out" && grep -q "1 within slack" "$tmp/out" && grep -Eq "^  ulp_max .* changed \(not gated\)$" "$tmp/out" && grep -Eq "^  distinct_results +3 -> 5 .* changed \(not gated\)$" "$tmp/out" && grep -Eq "^  correctly_rounded .* changed \(not gated\)$" "$tmp/out"'
run compare "$tmp/nd.json" "$tmp/nd_beyond.json" --fail-on-regression
check "nondeterministic: mean x5 is beyond the slack: a regression" \
  '[ "$(rc)" = 1 ] && grep -q "^REGRESSION $row \[nondeterministic: worst of 9 repeats, slack x4\]" "$tmp/out"'
run compare "$tmp/nd.json" "$tmp/nd_beyond.json" --fail-on-regression --slack 6
check "--slack 6: x5 is within it" '[ "$(rc)" = 0 ]'
edit "$tmp/a/results.json" "$tmp/slow.json" "
[r.update(time_ms=r['time_ms']*10) for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/slow.json" --fail-on-regression
check "timing is reported, not gated by default" \
  '[ "$(rc)" = 0 ] && grep -q "^timing (reported, not gated): $N rows timed on both sides" "$tmp/out"'
run compare "$tmp/a/results.json" "$tmp/slow.json" --fail-on-regression --time-slack 5
check "--time-slack 5 gates timing: x10 slower is a regression" \
  '[ "$(rc)" = 1 ] && grep -Eq "^  time_ms .* worse \(gated: x5\)" "$tmp/out"'
# ---- no silent green: a NEW that cannot stand for the run fails the gate, with the reason ---------
edit "$tmp/a/results.json" "$tmp/intr.json" "d['meta'].update(interrupted=True, stop_reason='SIGINT')"
run compare "$tmp/a/results.json" "$tmp/intr.json" --fail-on-regression
check "an interrupted NEW fails the gate, the reason printed" \
  '[ "$(rc)" = 1 ] && grep -q "^NOT ACCEPTED: NEW was interrupted (SIGINT): it holds part of the run" "$tmp/out" && grep -q "NEW cannot pass the gate" "$tmp/err"'
run compare "$tmp/a/results.json" "$tmp/intr.json"
check "... without --fail-on-regression: exit 0, still said" '[ "$(rc)" = 0 ] && grep -q "^NOT ACCEPTED: NEW was interrupted" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/empty.json" "d['results']=[]; d['summary']={k: 0 for k in d['summary']}"
run compare "$tmp/a/results.json" "$tmp/empty.json" --fail-on-regression
check "an empty NEW fails the gate" '[ "$(rc)" = 1 ] && grep -q "^NOT ACCEPTED: NEW has no rows" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/trunc.json" "d['results']=rows[:3]"
run compare "$tmp/a/results.json" "$tmp/trunc.json" --fail-on-regression
check "a truncated NEW (fewer rows than its summary counts) fails the gate" \
  '[ "$(rc)" = 1 ] && grep -q "^NOT ACCEPTED: NEW is truncated: its summary counts $N test points, it holds 3" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/dev.json" "d['meta']['gpu']={'name':'NVIDIA H100 80GB HBM3','cc':'9.0','sm_count':132}"
run compare "$tmp/a/results.json" "$tmp/dev.json" --fail-on-regression
check "a NEW of another device fails the gate" \
  '[ "$(rc)" = 1 ] && grep -q "^NOT ACCEPTED: NEW is of another device (cpu-[a-z0-9_]* -> h100-sm90)" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/seed.json" "d['meta']['seed']='0x7'; [r.update(seed='0x7') for r in rows]"
run compare "$tmp/a/results.json" "$tmp/seed.json" --fail-on-regression
check "a NEW of another seed fails the gate (no row compared)" \
  '[ "$(rc)" = 1 ] && grep -q "^NOT ACCEPTED: NEW ran another seed (0x5eed -> 0x7)" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/build.json" "d['meta']['cflags']='-O0 -ffast-math'"
run compare "$tmp/a/results.json" "$tmp/build.json" --fail-on-regression
check "a NEW of another build (cflags) fails the gate" \
  '[ "$(rc)" = 1 ] && grep -q "^NOT ACCEPTED: NEW is of another build (cflags .*. -> .-O0 -ffast-math., [0-9]* compared rows)" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/newfail.json" "
rows.append(dict(rows[0], id='reduce/normal new_kernel@default normal(0,1) 1000', status='fail')); d['summary']['failed']+=1"
run compare "$tmp/a/results.json" "$tmp/newfail.json" --fail-on-regression
check "a row only in NEW that fails is a regression" \
  '[ "$(rc)" = 1 ] && grep -q "^REGRESSION (a new row that fails) reduce/normal new_kernel@default normal(0,1) 1000" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/loose.json" "
[r.update(bound_ratio_max=r['bound_ratio_max']/4) for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/loose.json" --fail-on-regression
check "a bound loosened (ratio down, the error unchanged) is a regression, not an improvement" \
  '[ "$(rc)" = 1 ] && grep -q "^REGRESSION $row" "$tmp/out" && grep -Eq "^  bound_ratio_max .* x0.25 +worse \(the bound was loosened: the error did not improve\)" "$tmp/out"'
edit "$tmp/a/results.json" "$tmp/tight.json" "
[r.update(bound_ratio_max=r['bound_ratio_max']/4, ulp_mean=r['ulp_mean']/4) for r in rows if r['id']=='$row']"
run compare "$tmp/a/results.json" "$tmp/tight.json" --fail-on-regression
check "... while a ratio that fell with the error is an improvement" \
  '[ "$(rc)" = 0 ] && grep -q "^IMPROVEMENT (the baseline can be tightened) $row" "$tmp/out"'

run compare "$tmp/a/results.json" "$tmp/worse.json" --markdown
check "--markdown: regressions first (grouped by kernel, one line a row: error grew xk), then counts" \
  '[ "$(rc)" = 0 ] && grep -q "^### ulpgate: \*\*1 regression\*\*" "$tmp/out" && awk "/^#### Regressions/{r=NR} /^#### Counts/{c=NR} END{exit !(r && c && r < c)}" "$tmp/out" && grep -q "^- \`$row\`: error grew x13 (ulp_max " "$tmp/out"'
run compare "$tmp/a/results.json" "$tmp/better.json" --markdown
check "--markdown of an improvement: the baseline can be tightened" \
  'grep -q "^#### Improvements: the baseline can be tightened" "$tmp/out"'
# text from the files in the comment (a path, a refusal naming it) adds no markup: a path with
# a backquote stays one code span, the refusal's '<' '>' are entities
cp "$tmp/worse.json" "$tmp/we\`ird<b>.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['meta']['interrupted']=True; d['meta']['stop_reason']='SIGINT <b>'; json.dump(d, open(sys.argv[1], 'w'))" "$tmp/we\`ird<b>.json"
run compare "$tmp/a/results.json" "$tmp/we\`ird<b>.json" --markdown
check "--markdown: a path's backquote cannot end its code span, a reason's HTML is escaped" \
  'grep -qF "new \`$tmp/we'"'"'ird<b>.json\` (git" "$tmp/out" && grep -q "^> \*\*Not accepted\*\*: NEW was interrupted (SIGINT &lt;b&gt;)" "$tmp/out"'
run compare "$tmp/a/results.json"
check "compare with one file: usage error 2" '[ "$(rc)" = 2 ] && grep -q "compare needs two files" "$tmp/err"'
run compare "$tmp/a/results.json" "$tmp/missing.json"
check "a missing file: exit 2 naming it" '[ "$(rc)" = 2 ] && grep -q "missing.json" "$tmp/err"'
printf '{"meta": {}, "results": [' >"$tmp/bad.json"
run compare "$tmp/a/results.json" "$tmp/bad.json"
check "malformed JSON: exit 2 naming the file, line and column" \
  '[ "$(rc)" = 2 ] && grep -q "bad.json: line 1, column" "$tmp/err"'
python3 -c "import sys; t=open(sys.argv[1]).read(); i=t.index('\"ulp_max\":'); open(sys.argv[2],'w').write(t[:i]+'\"ulp_max\":1e9,'+t[i:])" "$tmp/a/results.json" "$tmp/dup.json"
run compare "$tmp/a/results.json" "$tmp/dup.json" --fail-on-regression
check "a duplicate key in an input file: exit 2 naming the file, where, and the key" \
  '[ "$(rc)" = 2 ] && grep -q "dup.json: line [0-9]*, column [0-9]*: duplicate member name .ulp_max." "$tmp/err"'
run compare "$tmp/a/results.json" "$tmp/a/results.json" --slack 0.5
check "--slack below 1: usage error" '[ "$(rc)" = 2 ] && grep -q -- "--slack: .0.5. is not a factor >= 1" "$tmp/err"'

# ---- baselines --------------------------------------------------------------------------------
bl="$tmp/bl"
mkdir -p "$bl"
run baseline key --from "$tmp/a/results.json"
check "baseline key of a CPU run: cpu-<arch>" '[ "$(rc)" = 0 ] && grep -Eq "^cpu-[a-z0-9_]+$" "$tmp/out"'
key=$(cat "$tmp/out")
edit "$tmp/a/results.json" "$tmp/h100.json" "
d['meta']['gpu']={'name':'NVIDIA H100 80GB HBM3','cc':'9.0','sm_count':132}"
run baseline key --from "$tmp/h100.json"
check "baseline key of an H100 run: h100-sm90" '[ "$(rc)" = 0 ] && [ "$(cat "$tmp/out")" = h100-sm90 ]'
edit "$tmp/a/results.json" "$tmp/h200.json" "
d['meta']['gpu']={'name':'NVIDIA H200','cc':'9.0','sm_count':132}"
run baseline key --from "$tmp/h200.json"
check "baseline key of an H200 run: h200-sm90" '[ "$(cat "$tmp/out")" = h200-sm90 ]'
run baseline update --from "$tmp/a/results.json" --dir "$bl"
check "baseline update creates the device's folder: its index and a file a case group" \
  '[ "$(rc)" = 0 ] && [ -f "$bl/$key/index.json" ] && [ -f "$bl/$key/reduce.json" ] && grep -q "^created with $N rows" "$tmp/out"'
rm -rf "$tmp/bl_orig"
cp -rp "$bl/$key" "$tmp/bl_orig"
run baseline update --from "$tmp/a/results.json" --dir "$bl"
check "the same run again: unchanged, folder untouched" \
  '[ "$(rc)" = 0 ] && grep -q "^baseline unchanged" "$tmp/out" && diff -r "$bl/$key" "$tmp/bl_orig" >/dev/null && [ ! "$bl/$key/index.json" -nt "$tmp/bl_orig/index.json" ]'
run compare "$bl/$key" "$tmp/a/results.json" --fail-on-regression
check "compare reads a baseline: no regression against the run it came from" \
  '[ "$(rc)" = 0 ] && grep -q "(baseline of $key, $N rows" "$tmp/out" && grep -q "$N same" "$tmp/out"'
run compare "$bl/$key" "$tmp/worse.json" --fail-on-regression
check "the gate against the baseline catches the figure made worse" '[ "$(rc)" = 1 ] && grep -q "^REGRESSION $row" "$tmp/out"'
run baseline update --from "$tmp/worse.json" --dir "$bl"
check "a loosening update without --reason is refused (exit 2), nothing written" \
  '[ "$(rc)" = 2 ] && grep -q "^LOOSENED $row: ulp_max .* (x13)" "$tmp/out" && grep -q "refused: 1 row would be loosened" "$tmp/err" && diff -r "$bl/$key" "$tmp/bl_orig" >/dev/null'
run baseline update --from "$tmp/worse.json" --dir "$bl" --reason "accepted on purpose: test"
check "with --reason it is accepted" '[ "$(rc)" = 0 ] && grep -q "^written: " "$tmp/out"'
check "the reason is stored with the loosened row" \
  'python3 -c "import json,sys; sys.path.insert(0, sys.argv[3]); from same_rows import load; r=[x for x in load(sys.argv[1])[\"rows\"] if \"loosened\" in x]; assert len(r)==1 and sys.argv[2].startswith(r[0][\"case\"]+\" \"+r[0][\"kernel\"]+\" \"), r; r=r[0]; assert r[\"loosened\"][0][\"reason\"]==\"accepted on purpose: test\" and \"ulp_max\" in r[\"loosened\"][0][\"changes\"], r" "$bl/$key" "$row" "$src/scripts"'
run baseline show --dir "$bl" "$bl/$key"
check "baseline show lists the loosened row with its reason" \
  '[ "$(rc)" = 0 ] && grep -q "rows ever loosened (1):" "$tmp/out" && grep -q "$row: .*\"accepted on purpose: test\": ulp_max" "$tmp/out"'
# a case group named "index" (pytest tests in an index/ folder): its row file is not index.json,
# which would overwrite the folder's own index (every reader then refused the baseline)
python3 -c "import sys; open(sys.argv[2], 'w').write(open(sys.argv[1]).read().replace('reduce/normal', 'index/normal'))" \
  "$tmp/a/results.json" "$tmp/index.json"
mkdir -p "$tmp/blx"
run baseline update --from "$tmp/index.json" --dir "$tmp/blx"
run compare "$tmp/blx/$key" "$tmp/index.json" --fail-on-regression
check "a case group named index: its own row file (%69ndex.json), the baseline read back whole" \
  '[ "$(rc)" = 0 ] && [ -f "$tmp/blx/$key/%69ndex.json" ] && grep -q "rows compared: 0 regressed" "$tmp/out"'
run baseline show --dir "$bl"
check "... and without a path, the baseline of this machine's key (the same here: no GPU in use)" \
  '[ "$(rc)" = 0 ] && grep -q "^baseline $bl/$key: device $key" "$tmp/out" || [ "$key" != "$("$ug" baseline key)" ]'
run compare "$bl/$key" "$tmp/worse.json" --fail-on-regression
check "after the accepted loosening the gate passes" '[ "$(rc)" = 0 ]'
run baseline update --from "$tmp/a/results.json" --dir "$bl"
check "the better figures again: tightened without a reason" \
  '[ "$(rc)" = 0 ] && grep -q "^tightened $row: ulp_max" "$tmp/out"'
# (a whole run of fewer kernels: its summary counts the rows it holds)
edit "$tmp/a/results.json" "$tmp/fewer.json" "
gone=[r for r in rows if 'kahan_f32@' in r['id']]
d['results']=[r for r in rows if 'kahan_f32@' not in r['id']]
st={'pass':'passed','fail':'failed','skip':'skipped','xfail':'xfailed','xpass':'xpassed'}
for r in gone: d['summary'][st[r['status']]] -= 1"
run baseline update --from "$tmp/fewer.json" --dir "$bl"
check "rows the run did not measure are kept" '[ "$(rc)" = 0 ] && grep -q ", $NKAHAN kept (not in this run)" "$tmp/out"'
run baseline update --from "$tmp/fewer.json" --dir "$bl" --prune
check "--prune drops them, which is a loosening: refused without a reason" \
  '[ "$(rc)" = 2 ] && grep -q "pruned (the run did not measure it)" "$tmp/out"'
# one update of a baseline folder at a time, from its read to its write (two at once would each
# write what it read plus its own rows: one's rows lost): a second waits for the folder's lock
( flock -x "$bl" sleep 2 ) &
lk=$!
sleep 0.5
run baseline update --from "$tmp/a/results.json" --dir "$bl"
wait $lk
check "baseline update waits while another process holds the baseline folder, then applies" \
  '[ "$(rc)" = 0 ] && grep -q "another ulpgate process is writing there; waiting for it" "$tmp/err"'
# a baseline folder is written whole or not at all: a writer killed after 2 of its files
rm -rf "$tmp/bl_before"
cp -rp "$bl/$key" "$tmp/bl_before"
export ULPGATE_CRASH_AFTER_FILES=2
run baseline update --from "$tmp/worse.json" --dir "$bl" --reason "killed on purpose"
unset ULPGATE_CRASH_AFTER_FILES
check "an update killed in the middle of writing leaves the old folder whole, not a mix" \
  '[ "$(rc)" = 137 ] && diff -r "$bl/$key" "$tmp/bl_before" >/dev/null && ls -a "$bl" | grep -q "^\.$key\.tmp\."'
run baseline update --from "$tmp/worse.json" --dir "$bl" --reason "accepted on purpose: test"
check "the next update removes what the killed one left, and writes" \
  '[ "$(rc)" = 0 ] && ! ls -a "$bl" | grep -q "^\.$key\." && grep -q "^written: " "$tmp/out"'
cp "$bl/$key/index.json" "$tmp/index.json"
echo '{"part":{"format":4,"device":"'"$key"'"},"columns":[],"checks":[],"groups":[]}' >"$bl/$key/stray.json"
run compare "$bl/$key" "$tmp/a/results.json"
check "a .json file the index does not list: exit 2 naming it, never rows silently left out" \
  '[ "$(rc)" = 2 ] && grep -q "stray.json: not listed in .*index.json" "$tmp/err"'
rm "$bl/$key/stray.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['files'].append('../x.json'); json.dump(d, open(sys.argv[2], 'w'))" "$tmp/index.json" "$bl/$key/index.json"
run compare "$bl/$key" "$tmp/a/results.json"
check "an index naming a file outside its folder: exit 2" \
  '[ "$(rc)" = 2 ] && grep -q "\"files\" entry .* (\"../x.json\") is not the name of a .json file inside the folder" "$tmp/err"'
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['files'].append('gone.json'); json.dump(d, open(sys.argv[2], 'w'))" "$tmp/index.json" "$bl/$key/index.json"
run compare "$bl/$key" "$tmp/a/results.json"
check "an index naming a file that is not there: exit 2 naming it" \
  '[ "$(rc)" = 2 ] && grep -q "gone.json" "$tmp/err"'
cp "$tmp/index.json" "$bl/$key/index.json"
run baseline update --from "$tmp/a/results.json" --dir "$bl"
run baseline update --from "$tmp/nd.json" --dir "$bl"
run baseline update --from "$tmp/nd_within.json" --dir "$bl"
check "a nondeterministic row within its slack keeps its figures (no upward drift)" \
  '[ "$(rc)" = 0 ] && grep -q "1 within slack" "$tmp/out" && grep -q "^baseline unchanged" "$tmp/out"'
run baseline update --from "$tmp/nd.json" --dir "$bl" --slack 5
check "raising a slack is a loosening: refused without a reason" \
  '[ "$(rc)" = 2 ] && grep -q "^LOOSENED $row: slack x4 -> x5" "$tmp/out"'
run baseline update --from "$tmp/bad.json" --dir "$bl"
check "update from a malformed file: exit 2 naming it" '[ "$(rc)" = 2 ] && grep -q "bad.json" "$tmp/err"'
run baseline update --from "$tmp/a/results.json" --dir "$bl" --reason ""
check "an empty --reason is refused" '[ "$(rc)" = 2 ] && grep -q "empty reason" "$tmp/err"'
# the baseline keeps 399 bytes of a reason (baseline.h): a longer one would come back cut
run baseline update --from "$tmp/a/results.json" --dir "$bl" --reason "$(printf 'x%.0s' $(seq 400))"
check "a --reason of 400 bytes is refused, naming the 399 a baseline keeps" \
  '[ "$(rc)" = 2 ] && grep -q "399 bytes" "$tmp/err"'
run baseline frobnicate
check "an unknown baseline subcommand: exit 2" '[ "$(rc)" = 2 ] && grep -q "not update, show, key or migrate" "$tmp/err"'

# ---- reports ----------------------------------------------------------------------------------
check "run --report wrote summary.md and index.html beside results.json" \
  '[ -s "$tmp/a/summary.md" ] && [ -s "$tmp/a/index.html" ]'
run report "$tmp/a" --baseline "$tmp/worse.json"
check "report against another run: summary.md has failures, then regressions, then the kernels" \
  '[ "$(rc)" = 0 ] && awk "/^## Failures/{f=NR} /^## Regressions/{r=NR} /^## Kernels/{c=NR} END{exit !(f && r && c && f < r && r < c)}" "$tmp/a/summary.md" && grep -q "^### ulpgate: 0 regressions, 1 improvement" "$tmp/a/summary.md"'
check "summary.md: one rollup line per kernel (points, statuses, worst ULP and bound ratio), no per-size tables" \
  'grep -q "^| kernel | op | points | pass | xfail | fail | skip | worst ULP | at | worst bound ratio | at |" "$tmp/a/summary.md" && grep -Eq "^\| kahan_f32@default \| sum \| [0-9]+ \| [0-9]+ \| 0 \| 0 \| 0 \| [0-9.e+-]+ \| reduce/" "$tmp/a/summary.md" && [ "$(grep -c "^| kahan_f32@default |" "$tmp/a/summary.md")" = 1 ] && ! grep -q "^### reduce/normal" "$tmp/a/summary.md"'
check "index.html: self-contained, inline SVG plots, no script, nothing from the network" \
  '[ "$(grep -c "<svg " "$tmp/a/index.html")" -ge 5 ] && ! grep -Eqi "<script|<link|<img|src=|@import|url\((http|//)" "$tmp/a/index.html" && ! grep -Eo "(href|src)=\"[a-z]+:" "$tmp/a/index.html" | grep -q .'
check "index.html: error against n with the a-priori bounds, histograms, accuracy against time" \
  'grep -q "reduce/normal, n = 10000: accuracy against time" "$tmp/a/index.html" && grep -q "kahan_f32 (" "$tmp/a/index.html"'
run report "$tmp/a" --baseline "$bl/$key"
check "report against a baseline folder (reports/baselines/KEY), as its help says: the regressions section names it" \
  '[ "$(rc)" = 0 ] && grep -q "^## Regressions against \`$bl/$key\`" "$tmp/a/summary.md" && "$ug" report --help | grep -q "PATH: a baseline folder or file"'
run report "$tmp/nowhere"
check "report of a directory without results.json: exit 2 naming it" \
  '[ "$(rc)" = 2 ] && grep -q "nowhere/results.json" "$tmp/err"'
run summary "$tmp/a/results.json" --width 100
check "summary: a kernel x distribution table on the terminal" \
  '[ "$(rc)" = 0 ] && grep -q "^reduce: ulp_max, worst over the sizes" "$tmp/out" && grep -Eq "^  kahan_f32@default +[0-9.e+-]+$" "$tmp/out"'
run summary "$tmp/a/results.json" --metric ulp_maxx
check "summary --metric unknown: exit 2" '[ "$(rc)" = 2 ] && grep -q -- "--metric: .ulp_maxx." "$tmp/err"'
tap_end
