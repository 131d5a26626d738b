#!/bin/sh
# report_size_test.sh ULPGATE - the sizes of a run's report on a representative subset (the
# adversarial suite: about 40% of a default CPU run's ~8300 rows, in ~15 s; the whole default
# run is measured against 3 MB in shard_test.sh, which runs it anyway), extrapolated per row:
#   summary.md   <= 100 KB: failures in full, then one line per kernel, no per-size tables;
#   results.json compact by default (format 5, docs/results-schema.md): passing rows without
#                detail fields or worst elements, the file's "defaults" and derivable values left
#                out, one array a row of its shape's columns (repeated values in "tables"), at
#                most 96 bytes a row (the 32,637 rows of an H100's default run in 3 MiB; this
#                subset measured 92 with format 5's shapes, the H100 run 131 bytes a row with
#                format 4's nulls and 342 with format 3), and at most half the size of the same
#                run with --detail.
ug="$1"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
"$ug" run --filter 'adversarial/*' --report "$tmp/c" >"$tmp/run.out" 2>&1
"$ug" run --filter 'adversarial/*' --report "$tmp/d" --detail >"$tmp/run.out" 2>&1
size() { wc -c <"$1" | tr -d ' '; }
rows=$(json "$tmp/c/results.json" "print(len(d['results']))")
echo "# subset: $rows rows; summary.md $(size "$tmp/c/summary.md") B; results.json $(size "$tmp/c/results.json") B compact, $(size "$tmp/d/results.json") B with --detail"
check "the subset is representative (over 2000 rows)" '[ "$rows" -gt 2000 ]'
check "summary.md <= 100 KB" '[ "$(size "$tmp/c/summary.md")" -le 102400 ]'
check "summary.md: failures first, then the kernel rollup, no per-case tables" \
  'awk "/^## Failures/{f=NR} /^## Kernels/{k=NR} END{exit !(f && k && f < k)}" "$tmp/c/summary.md" && ! grep -q "^| kernel | n |" "$tmp/c/summary.md"'
check "summary.md: one line per kernel, as many as the run's distinct kernels" \
  'json "$tmp/c/results.json" "
import re
k={r[\"kernel\"] for r in d[\"results\"] if r[\"measured\"]}
s=open(\"$tmp/c/summary.md\").read()
lines=[l for l in s.splitlines() if l.startswith(\"| \") and l.split(\" | \")[0][2:] in k]
assert len(lines)==len(k), (len(lines), len(k))"'
check "results.json compact: <= 96 bytes a row (<= 3 MiB for a GPU default run's ~32,600 rows)" \
  '[ "$(size "$tmp/c/results.json")" -le $((rows * 96)) ]'
check "results.json compact: at most half of the --detail file" \
  '[ $(( 2 * $(size "$tmp/c/results.json") )) -le "$(size "$tmp/d/results.json")" ]'
check "compact and --detail files give the gate the same figures (compare: 0 regressed, 0 improved)" \
  '"$ug" compare "$tmp/d/results.json" "$tmp/c/results.json" >"$tmp/out" 2>&1 && grep -q " 0 regressed, 0 improved, [0-9]* same" "$tmp/out"'
# index.html at 10x the rows (scripts/report_stress.py: every case copied nine times under another
# name), of the subset above and of the reduce cases (one-signed inputs at several sizes: a figure
# of error against n per case): the views over the whole run come first, the per-case figures in
# one <details> per suite, open in a short report, closed once a section has more than 24 figures
# (none of these rows failed); every figure still in the page; a series' markers at one pixel are
# drawn once, so a kappa plot of ten copies of each case has the markers of one (the copies'
# points coincide)
"$ug" run --filter 'reduce/*' --report "$tmp/r" >"$tmp/run.out" 2>&1
for d in c r; do
    python3 "$ug_scripts/report_stress.py" "$tmp/$d/results.json" "$tmp/${d}10" 10
    cp "$tmp/$d/.ulpgate-report" "$tmp/${d}10/"
    "$ug" report "$tmp/${d}10" --baseline none >"$tmp/out" 2>&1 || echo "# report of $d x10 failed"
done
nfig() { sed -n '/<h2 id="error-n">/,$p' "$1" | grep -c "^<figure>"; }
check "ulpgate report writes the 10x stress reports ($((rows * 10)) rows and the reduce cases')" \
  '[ -s "$tmp/c10/index.html" ] && [ -s "$tmp/r10/index.html" ] && [ "$(json "$tmp/c10/results.json" "print(len(d[\"results\"]))")" = $((rows * 10)) ]'
check "index.html: the aggregate views (kappa, histograms, time) before the per-case figures" \
  'awk "/<h2 id=\"error-kappa\">/{k=NR} /<h2 id=\"histograms\">/{h=NR} /<h2 id=\"time\">/{t=NR} /<h2 id=\"error-n\">/{n=NR} END{exit !(k && h && t && n && k < h && h < t && t < n)}" "$tmp/r10/index.html"'
check "index.html at 10x: every per-case figure there, 10x those of the run ($(nfig "$tmp/r/index.html") -> $(nfig "$tmp/r10/index.html"))" \
  '[ "$(nfig "$tmp/r/index.html")" -gt 2 ] && [ "$(nfig "$tmp/r10/index.html")" = $((10 * $(nfig "$tmp/r/index.html"))) ]'
check "index.html: the reduce group open in the short report, closed at 10x (over 24 figures)" \
  'grep -q "^<details class=\"group\" open><summary>reduce: " "$tmp/r/index.html" && grep -q "^<details class=\"group\"><summary>reduce: " "$tmp/r10/index.html" && ! grep -q "^<details class=\"group\" open>" "$tmp/r10/index.html"'
kmark() { python3 -c "
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<svg[^>]*aria-label=\"adversarial: relative error against the condition number.*?</svg>', s, re.S)
print(len(re.findall(r'<(circle|rect x|path d=\"M[^\"]*Z)', m.group(0))) if m else -1)" "$1"; }
check "a kappa plot of ten copies of each case draws the markers of one ($(kmark "$tmp/c/index.html") and $(kmark "$tmp/c10/index.html"))" \
  '[ "$(kmark "$tmp/c/index.html")" -gt 10 ] && [ "$(kmark "$tmp/c/index.html")" = "$(kmark "$tmp/c10/index.html")" ]'
# a GPU run skips ~160 GEMM points each for its own "operands up to <its maximum> exceed ..."
# (117,538 B of summary.md on the H100, 75,597 of them skips): reasons alike but for their
# numbers are one line, the points of one shape named 8 at most
mkdir -p "$tmp/sk"
json "$tmp/c/results.json" "
m=[r for r in d['results'] if r['measured']][:600]
for i, r in enumerate(m):
    r['status'] = 'skip'
    r['note'] = 'operands up to %d.%03de+06 exceed the f16 class\'s range (65504): they may overflow' % (1 + i % 7, i)
d['results'] = m
json.dump(d, open('$tmp/sk/results.json', 'w'))"
"$ug" report "$tmp/sk" --baseline none >"$tmp/out" 2>&1
check "summary.md: 600 skip reasons alike but for their numbers are one line" \
  'grep -c "^- operands up to" "$tmp/sk/summary.md" | grep -qx 1 && grep -q "^- operands up to 1.000e+06 exceed the f16 class.s range (65504): they may overflow (and 599 more reasons alike but for their numbers): .* and 592 more$" "$tmp/sk/summary.md"'
# text from outside in summary.md (an expected-failure reason of a corpus file): no
# raw HTML, no code span, link or table cell it opens; shown as written once rendered
mkdir -p "$tmp/inj"
printf '# op: sum\n# why: a reason that tries markup\n# check: ulp_max 0.1\n# xfail: serial_f32 <img src=x onerror=alert(1)> `tick` [link](http://x) *b* | cell\n1e8\n1\n-1e8\n' >"$tmp/inj/markup.txt"
"$ug" run --corpus "$tmp/inj" --filter 'corpus/markup' --kernel 'serial_f32' --report "$tmp/inj/r" >"$tmp/out" 2>&1
check "summary.md: a reason's HTML, backquotes, link, emphasis and '|' are escaped" \
  'grep -qF -- "- \`corpus/markup serial_f32@default n=3\`: &lt;img src=x onerror=alert(1)&gt; \\\`tick\\\` \\[link\\](http://x) \\*b\\* \\| cell" "$tmp/inj/r/summary.md" && ! grep -q "<img" "$tmp/inj/r/summary.md"'
tap_end
