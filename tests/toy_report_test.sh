#!/bin/sh
# toy_report_test.sh ULPGATE_TOYREPORT SRCDIR OUTDIR - a report section proven from the test tree
# alone: tests/toy_report/toy_reporter.c registers a reporter (harness/results/reporter.h) and
# ulpgate-toyreport, the CLI with it linked in, writes DIR/toy.txt on `run --report DIR` beside
# the built-in reports, the console's progress and junit.xml unchanged; CONTRIBUTING.md's
# "Adding a report section" names exactly the files it took.  TAP on stdout.
ug="$1"
src="$2"
out="$3"
rm -rf "$out"
mkdir -p "$out" || exit 1
tmp="$out"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
run run --filter 'reduce/normal' --n 1000 --report "$out/good"
check "run --report: exit 0, toy.txt beside results.json and junit.xml" \
  '[ "$(rc)" = 0 ] && [ -s "$out/good/toy.txt" ] && [ -s "$out/good/results.json" ] && [ -s "$out/good/junit.xml" ]'
points=$(grep -c "<testcase " "$out/good/junit.xml")
check "toy.txt in its own format: the header, the case, the end line counting junit.xml's $points points" \
  'head -1 "$out/good/toy.txt" | grep -qx "toy report: 1 cases" && grep -qx "case reduce/normal" "$out/good/toy.txt" && tail -1 "$out/good/toy.txt" | grep -qx "end: $points points, 0 failed"'
check "the console reporter is still there (the progress line and the summary)" \
  'grep -q "^\[1/1 cases\] reduce/normal: " "$tmp/out" && grep -qE "^[0-9]+ passed, 0 failed, 0 skipped$" "$tmp/out"'
run run --filter 'canary/fails' --report "$out/bad"
check "a failing run: its failed point in toy.txt, numbered as in TAP" \
  '[ "$(rc)" = 1 ] && grep -qx "fail 1 canary/fails serial_f32@default n=10000" "$out/bad/toy.txt" && tail -1 "$out/bad/toy.txt" | grep -qx "end: 1 points, 1 failed"'
run run --filter 'reduce/normal' --n 1000
check "without --report: no toy.txt anywhere, the run as usual" \
  '[ "$(rc)" = 0 ] && [ ! -e toy.txt ]'
# CONTRIBUTING.md's "Adding a report section": the files it names are the toy's
sec=$(sed -n '/^## Adding a report section$/,/^## /p' "$src/CONTRIBUTING.md")
named=$(printf '%s\n' "$sec" | grep -o '`tests/toy_report/[^`]\+`' | tr -d '`' | sort -u)
have=$(cd "$src" && ls tests/toy_report/* | sort)
check "CONTRIBUTING.md's \"Adding a report section\" names exactly tests/toy_report/'s files" \
  '[ -n "$have" ] && [ "$named" = "$have" ]'
tap_end
