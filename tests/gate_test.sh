#!/bin/sh
# gate_test.sh ULPGATE SRCDIR OUTDIR [--parts REPORTS STEM... --] [RUN OPTIONS...] - the merge
# gate, as `meson test --suite gate` runs it: the default case set (or the run options given)
# with --report OUTDIR (TAP kept in OUTDIR/run.tap, summary.md and index.html beside
# results.json), then `ulpgate compare` of the baseline of this device,
# SRCDIR/reports/baselines/<key>/ (a folder; <key>.json, a single file of an older format, where
# only that exists), with that run.  A regression fails with the regression
# table; no baseline for this device is a SKIP that names the command creating one.  TAP on
# stdout.  GATE_BASELINES=DIR reads the baselines from DIR instead.
#
# --parts: REPORTS/STEM/results.json are the reports the case tests of this meson test just
# wrote.  When every one exists and is newer than ULPGATE, they are merged (`ulpgate merge
# --parts`, which refuses unless together they are exactly one default run) instead of running
# the default case set again; otherwise (a test left out, a rebuilt ulpgate) the gate runs it.
ug="$1"
src="$2"
out="$3"
shift 3
parts=""
fresh=1
if [ "${1:-}" = "--parts" ]; then
    reports="$2"
    shift 2
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        f="$reports/$1/results.json"
        parts="$parts $f"
        [ -f "$f" ] && [ "$f" -nt "$ug" ] || fresh=0
        shift
    done
    [ "${1:-}" = "--" ] && shift
fi
dir="${GATE_BASELINES:-$src/reports/baselines}"
# the test's own folder, emptied: an earlier gate's pages (merge writes no owner mark) would
# otherwise make the run refuse the folder after a rebuild
rm -rf "$out"
mkdir -p "$out" || exit 1
how=""
if [ -n "$parts" ] && [ "$fresh" = 1 ] && [ $# = 0 ]; then
    # shellcheck disable=SC2086 # the part paths have no spaces (meson's build directory)
    "$ug" merge --parts "$out/results.json" $parts >"$out/run.tap" 2>"$out/run.err"
    rc=$?
    if [ "$rc" != 2 ] && "$ug" report "$out" >>"$out/run.err" 2>&1; then
        how="merged from the $(echo $parts | wc -w) case tests' reports"
        summary=$(sed -n 's/^ulpgate merge: .*: //p' "$out/run.err" | tail -1)
    else
        echo "# merging the case tests' reports failed; running the default case set" >"$out/merge.note"
        sed 's/^/# /' "$out/run.err" >>"$out/merge.note"
        rm -f "$out/results.json"
    fi
fi
if [ -z "$how" ]; then
    "$ug" run --tap --report "$out" "$@" >"$out/run.tap" 2>"$out/run.err"
    rc=$?
    how="TAP in $out/run.tap"
    summary=$(grep '^# [0-9]* passed' "$out/run.tap" | tail -1 | sed 's/^# //')
fi
echo "TAP version 13"
[ -f "$out/merge.note" ] && head -20 "$out/merge.note" && rm -f "$out/merge.note"
if [ "$rc" = 2 ] || [ ! -f "$out/results.json" ]; then
    echo "1..1"
    echo "not ok 1 - the run completed (exit $rc, no $out/results.json)"
    sed 's/^/# /' "$out/run.err" | head -20
    exit 1
fi
key=$("$ug" baseline key --from "$out/results.json" 2>"$out/key.err")
if [ -z "$key" ]; then
    echo "1..1"
    echo "not ok 1 - the device key of the run"
    sed 's/^/# /' "$out/key.err"
    exit 1
fi
base="$dir/$key"
[ ! -d "$base" ] && [ -f "$dir/$key.json" ] && base="$dir/$key.json"
if [ ! -e "$base" ]; then
    echo "1..0 # SKIP no baseline for $key: create it with: $ug baseline update --reason \"initial baseline for $key\" (writes $base; commit it)"
    exit 0
fi
# the text and the Markdown comparisons at once (--full-report only names the text's file): the
# gate runs alone, after every other test, so its seconds are the suite's
"$ug" compare "$base" "$out/results.json" --markdown --full-report "$out/compare.txt" >"$out/compare.md" 2>/dev/null &
mdpid=$!
"$ug" compare "$base" "$out/results.json" --fail-on-regression >"$out/compare.txt" 2>"$out/compare.err"
crc=$?
wait $mdpid
echo "1..3"
# the run's own failures are the case tests' business; the gate reports them as regressions
# of status when the baseline passed
echo "ok 1 - the run completed: $summary (exit $rc; $how)"
counts=$(tail -1 "$out/compare.txt")
fail=0
if [ "$crc" = 0 ]; then
    echo "ok 2 - no regression against $base: $counts"
    grep '^warning' "$out/compare.txt" | sed 's/^/# /'
else
    fail=1
    echo "not ok 2 - regressions against $base: $counts"
    sed 's/^/# /' "$out/compare.txt" "$out/compare.err" | head -400
    [ "$(wc -l <"$out/compare.txt")" -gt 400 ] && echo "# ... (400 lines shown; all of it in $out/compare.txt)"
    echo "# Markdown for the merge request: $out/compare.md; to accept a loosening on purpose:"
    echo "#   $ug baseline update --from $out/results.json --reason \"why\""
fi
# The default run's report stays small on every device (a GPU machine's run has three
# times the CPU's rows): results.json <= 3 MB, summary.md <= 100 KB.  The 3 MB were set for the
# 32,637 rows of the H100's default run then (88 bytes a row); a row added since (a new operation's
# kernels: attention's) may add at most the 96 bytes a row that report_size asserts on
# its subset: the limit is 3,000,000 + 96 (rows - 32,637) where a run has more rows, the bytes a
# row and not the file's total being what the compact format controls.
if [ $# != 0 ]; then
    echo "ok 3 - the report's size # SKIP not the default case set"
else
    rj=$(wc -c <"$out/results.json" | tr -d ' ')
    sm=$(wc -c <"$out/summary.md" 2>/dev/null | tr -d ' ')
    rows=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['results']))" "$out/results.json" 2>/dev/null)
    lim=3000000
    [ -n "$rows" ] && [ "$rows" -gt 32637 ] && lim=$((3000000 + 96 * (rows - 32637)))
    if [ -n "$rows" ] && [ "$rj" -le "$lim" ] && [ -n "$sm" ] && [ "$sm" -le 102400 ]; then
        echo "ok 3 - the default run's report: results.json $rj B of $rows rows (<= $lim), summary.md $sm B (<= 102,400)"
    else
        fail=1
        echo "not ok 3 - the default run's report: results.json $rj B of ${rows:-no readable} rows (<= $lim: 3,000,000 + 96 a row past 32,637), summary.md ${sm:-no} B (<= 102,400)"
    fi
fi
exit $fail
