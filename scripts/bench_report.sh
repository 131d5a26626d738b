#!/bin/sh
# bench_report.sh ULPGATE RESULTS.json [FACTOR [BASE_ULPGATE]] - the report at scale: a run's
# results.json and a stress copy of FACTOR (default 10) times its rows (scripts/report_stress.py),
# side by side in one run, and with BASE_ULPGATE (another build, before a change) both builds: `ulpgate report` (time, peak memory, index.html size), `compare` of each file with itself,
# and, where Chromium is installed, how long index.html takes to open (loaded, laid out and
# painted, in a headless browser: a probe page loads it in a frame and logs the time).  Prints a
# Markdown table; timings are reported, never gated.
set -u
ug=$(realpath "$1")
src=$(realpath "$2")
factor=${3:-10}
base=${4:+$(realpath "$4")}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$here/report_stress.py" "$src" "$tmp/x1" 1 || exit 1
"$py" "$here/report_stress.py" "$src" "$tmp/x$factor" "$factor" || exit 1
browser=""
for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && browser=$(command -v "$b") && break
done
cat >"$tmp/probe.html" <<'HTML'
<!DOCTYPE html><html><body><iframe id="f" style="width:1400px;height:2000px"></iframe><script>
const t0 = performance.now(), f = document.getElementById('f');
f.onload = () => { f.contentDocument.body.scrollHeight;
  requestAnimationFrame(() => requestAnimationFrame(() =>
    console.log('UGOPEN ' + (performance.now() - t0).toFixed(0)))); };
f.src = location.hash.slice(1);
</script></body></html>
HTML
open_ms() { # the median of 5 loads
    [ -n "$browser" ] || { echo "-"; return; }
    for i in 1 2 3 4 5; do
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
            --no-first-run --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
            --allow-file-access-from-files --virtual-time-budget=60000 \
            --dump-dom "file://$tmp/probe.html#$1/index.html" 2>&1 >/dev/null |
            sed -n 's/.*UGOPEN \([0-9]*\).*/\1/p' | head -1
    done | sort -n | sed -n 3p
}
echo "| build | rows | results.json | report | its peak memory | index.html | open in Chromium | compare (same file) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for bin in "$ug" $base; do
    name=this
    [ "$bin" = "$ug" ] || name=base
    for x in x1 "x$factor"; do
        d="$tmp/$name-$x"
        mkdir -p "$d"
        cp "$tmp/$x/results.json" "$d/"
        printf 'ulpgate report folder: `ulpgate run --report` writes results.json, summary.md and index.html here\n' >"$d/.ulpgate-report"
        rows=$("$py" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['results']))" "$d/results.json")
        /usr/bin/time -f "%e %M" -o "$tmp/t" "$bin" report "$d" --baseline none >/dev/null 2>&1 || echo "report failed on $x ($bin)" >&2
        read -r rs rk <"$tmp/t"
        /usr/bin/time -f "%e" -o "$tmp/c" "$bin" compare "$d/results.json" "$d/results.json" >/dev/null 2>&1
        echo "| $name | $rows | $(wc -c <"$d/results.json") B | $rs s | $((rk / 1024)) MB | $(wc -c <"$d/index.html") B | $(open_ms "$d") ms | $(cat "$tmp/c") s |"
    done
done
echo
echo "$(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores, ulpgate $("$ug" --version 2>/dev/null | head -1), browser: ${browser:-none}"
