#!/bin/sh
# report_browser_test.sh ULPGATE SRCDIR OUTDIR - index.html as a browser shows it: a report of
# the reduce cases rendered by headless Chromium (Debian's `chromium`), which must load
# it with no console message (a probe page with a thrown error shows that such messages are
# seen), keep every plot in its DOM, load nothing from the network, and draw a screenshot that
# is not blank and shows the plots' colours (tests/png_check.py); and, measured by a script on a
# copy of the page, no two series of a plot drawn alike, legends outside the plot area, titles
# inside their svg.  Skips where no Chromium is installed.  The screenshot stays in OUTDIR/index.png.  TAP on stdout.
ug="$1"
src="$2"
out="$3"
browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then
        browser=$(command -v "$b")
        break
    fi
done
echo "TAP version 13"
if [ -z "$browser" ]; then
    echo "1..0 # SKIP no Chromium installed (Debian: apt-get install chromium)"
    exit 0
fi
rm -rf "$out"
mkdir -p "$out/profile" || exit 1
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; sed 's/^/# /' "$out/log" 2>/dev/null | grep -v dbus | head -20; fi; }
# no network, no first-run work, a throw-away profile; console messages on stderr
chrome() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --disable-background-networking --disable-component-update --disable-sync --no-first-run \
        --disable-extensions --user-data-dir="$out/profile" --enable-logging=stderr --v=0 \
        --hide-scrollbars "$@"
}

"$ug" run --filter 'reduce/*' --report "$out/rep" --tap >"$out/run.tap" 2>"$out/run.err"
check "a report to render: index.html written by run --report" '[ -s "$out/rep/index.html" ]'
# the rendering is tested, not the regressions: no comparison, so the plots start near the top
"$ug" report "$out/rep" --baseline none 2>"$out/report.err"
reprc=$?
check "ulpgate report rewrites it (--baseline none)" '[ "$reprc" = 0 ] && [ -s "$out/rep/index.html" ]'

printf '<!DOCTYPE html><html><body><p>probe</p><script>throw new Error("ulpgate-probe");</script></body></html>\n' >"$out/probe.html"
chrome --dump-dom "file://$out/probe.html" >"$out/probe.dom" 2>"$out/log"
check "the console check sees a thrown error on a probe page ($browser)" \
  'grep -q "CONSOLE.*Uncaught Error: ulpgate-probe" "$out/log"'

chrome --dump-dom "file://$out/rep/index.html" >"$out/dom.html" 2>"$out/log"
check "index.html loads with no console message (no error, no failed load)" \
  '[ -s "$out/dom.html" ] && ! grep -q "CONSOLE" "$out/log"'
svgs=$(grep -o "<svg " "$out/rep/index.html" | wc -l)
check "every plot is in the rendered DOM ($svgs SVG elements): lines, markers, bars" \
  '[ "$svgs" -ge 10 ] && [ "$(grep -o "<svg " "$out/dom.html" | wc -l)" = "$svgs" ] && grep -q "<polyline" "$out/dom.html" && grep -q "class=\"bar\"" "$out/dom.html"'
check "nothing in the DOM loads from the network (no src, href or url() to a remote scheme)" \
  '! grep -Eiq "(src|href)=\"(https?:)?//|url\((\"|'"'"')?(https?:)?//|<script|<link|<img|<iframe" "$out/dom.html"'

# The plots' layout as the browser lays it out: a copy of index.html with a script that measures
# every plot (index.html itself has none) and leaves its findings in an attribute of <body>:
# no two legend keys (line and marker, drawn at the entry's origin) alike in one plot, every
# legend clear of its plot's frame, every title inside its svg.
python3 - "$out/rep/index.html" "$out/check.html" <<'EOF'
import sys
js = r"""<script>
document.querySelectorAll('details').forEach(d => { d.open = true; }); // every figure laid out
let plots = 0, most = 0, same = [], inside = [], clipped = [];
document.querySelectorAll('svg.plot').forEach((svg, i) => {
  plots++;
  const w = svg.viewBox.baseVal.width, name = svg.getAttribute('aria-label');
  const t = svg.querySelector('text.title');
  if (t) { const b = t.getBBox(); if (b.x < -0.5 || b.x + b.width > w + 0.5) clipped.push(name); }
  const f = svg.querySelector('rect.frame'), lg = svg.querySelector('g.legend-box');
  if (f && lg && lg.childElementCount) {
    const a = f.getBBox(), b = lg.getBBox();
    if (!(b.x >= a.x + a.width || b.y >= a.y + a.height || b.x + b.width <= a.x || b.y + b.height <= a.y))
      inside.push(name);
  }
  const keys = new Set(); let n = 0;
  svg.querySelectorAll('g.legend-entry > g.key').forEach(k => { n++; keys.add(k.innerHTML); });
  if (keys.size !== n) same.push(name + ' (' + keys.size + ' styles for ' + n + ' series)');
  if (n > most) most = n;
});
document.body.setAttribute('data-ugcheck', 'plots=' + plots + ' most=' + most +
  ' same=' + (same.join('; ') || 'none') + ' inside=' + (inside.join('; ') || 'none') +
  ' clipped=' + (clipped.join('; ') || 'none'));
</script>"""
html = open(sys.argv[1], encoding="utf-8").read()
open(sys.argv[2], "w", encoding="utf-8").write(html.replace("</body>", js + "</body>"))
EOF
chrome --dump-dom "file://$out/check.html" >"$out/check.dom" 2>"$out/log"
res=$(sed -n 's/.*data-ugcheck="\([^"]*\)".*/\1/p' "$out/check.dom" | head -1)
most=$(echo "$res" | sed -n 's/.* most=\([0-9]*\).*/\1/p')
check "the plots were measured in the browser ($(echo "$res" | cut -d' ' -f1-2)), one with more than 16 series" \
  '[ -n "$res" ] && [ "${most:-0}" -gt 16 ]'
check "no style repeats inside a plot (legend keys all distinct): $(echo "$res" | sed -n 's/.* same=\(.*\) inside=.*/\1/p' | cut -c1-300)" \
  'echo "$res" | grep -q " same=none "'
check "every legend lies outside its plot area: $(echo "$res" | sed -n 's/.* inside=\(.*\) clipped=.*/\1/p' | cut -c1-300)" \
  'echo "$res" | grep -q " inside=none "'
check "no title is clipped (each inside its svg): $(echo "$res" | sed -n 's/.* clipped=\(.*\)$/\1/p' | cut -c1-300)" \
  'echo "$res" | grep -q " clipped=none$"'

chrome --screenshot="$out/index.png" --window-size=1200,3000 "file://$out/rep/index.html" >/dev/null 2>"$out/log"
check "a screenshot was written" '[ -s "$out/index.png" ]'
python3 "$src/tests/png_check.py" "$out/index.png" >"$out/png.txt" 2>&1
prc=$?
check "the screenshot is not blank and shows the plots: $(cat "$out/png.txt" | head -1)" '[ "$prc" = 0 ]'
echo "1..$n"
exit $fail
