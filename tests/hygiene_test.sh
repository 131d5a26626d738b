#!/bin/bash
# hygiene_test.sh ULPGATE - text and values from files reach no output raw and are never changed
# silently (docs/corpus.md, docs/gate.md).  TAP on stdout.
#   - a hexadecimal value in an f32 corpus file that binary32 cannot hold is refused at its
#     FILE:LINE (a decimal one is rounded, as a compiler rounds 0.1f), as a bf16 file refuses
#     one bfloat16 cannot hold; `ulpgate oracle FILE` refuses it the same way;
#   - the gate's Markdown comment is valid UTF-8 whatever bytes a path or a commit holds;
#   - a kernel name with ESC and a newline in a results.json (written by hand: a plugin's is
#     refused at load) reaches no terminal or page raw: report's index.html and summary.md,
#     compare's and summary's output hold no ESC byte.
ug="$1"
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"

mkdir -p "$tmp/c"
printf '# why: x\n0x1.000001p+0\n1\n' >"$tmp/c/t_inexact.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_inexact' --tap
check "an inexact hexadecimal value in an f32 corpus file: a failure naming FILE:LINE, exit 1" \
  '[ "$(rc)" = 1 ] && grep -q "t_inexact.txt:2: .0x1.000001p+0. is not a binary32 value: a hexadecimal value is read exactly" "$tmp/out"'
run oracle "$tmp/c/t_inexact.txt"
check "ulpgate oracle FILE refuses it: exit 2, FILE:LINE" \
  '[ "$(rc)" = 2 ] && grep -q "t_inexact.txt:2: .0x1.000001p+0. is not a binary32 value" "$tmp/err"'
printf '# why: x\n# format: bf16\n0x1.01p+0\n1\n' >"$tmp/c/t_inexact_bf16.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_inexact_bf16' --tap
check "the same in a bf16 file: refused at its line (as before)" \
  '[ "$(rc)" = 1 ] && grep -q "t_inexact_bf16.txt:3: value .* is not a bf16 value" "$tmp/out"'
printf '# why: x\n0.1\n0x1.fffffep+0\n-0x1p-149\n' >"$tmp/c/t_exact.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_exact' --tap
check "decimal values and exact hexadecimal ones (a subnormal too) are read: exit 0" '[ "$(rc)" = 0 ]'
printf '# why: x\n# format: f64\n0x1.0000000000001p+0\n1\n' >"$tmp/c/t_f64.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_f64' --tap
check "an f64 file's hexadecimal value with 53 bits is its own: not refused as binary32" \
  '! grep -q "is not a binary32 value" "$tmp/out" "$tmp/err"'

run run --filter 'corpus/special_inf' --kernel 'serial_f32*' --report "$tmp/a"
python3 - "$tmp" <<'PY'
import re, sys
t = sys.argv[1].encode()
b = open(t + b"/a/results.json", "rb").read()
b = re.sub(rb'"git":"[^"]*"', b'"git":"abc\xff\xfe\xc3(def\xed\xa0\x80"', b, count=1)
open(t + b"/new\xff.json", "wb").write(b)
PY
"$ug" compare "$tmp/a/results.json" "$tmp"/new*.json --markdown >"$tmp/md" 2>"$tmp/err"
echo $? >"$tmp/rc"
r=$(printf '\357\277\275') # U+FFFD
utf8=$(python3 -c "import sys; open(sys.argv[1], 'rb').read().decode('utf-8'); print('valid')" "$tmp/md" 2>&1 | tail -1)
check "compare --markdown of a path and a commit with invalid UTF-8: the comment is valid UTF-8 ($utf8), U+FFFD in their place" \
  '[ "$(rc)" = 0 ] && [ "$utf8" = valid ] && grep -qF "(git abc$r$r$r(def$r$r$r)" "$tmp/md" && grep -qF "new$r.json" "$tmp/md"'
mkdir -p "$tmp/esc"
python3 - "$tmp" <<'PY'
import sys
t = sys.argv[1]
b = open(t + "/a/results.json", "rb").read().replace(b"serial_f32@default", b"ser<b>x\\u001b[2J\\nial@default")
open(t + "/esc/results.json", "wb").write(b)
PY
"$ug" report "$tmp/esc" >"$tmp/out" 2>"$tmp/err"
"$ug" compare "$tmp/a/results.json" "$tmp/esc/results.json" >"$tmp/cmp" 2>&1
"$ug" summary "$tmp/esc/results.json" >"$tmp/sum" 2>&1
esc=$(printf '\033')
check "ESC and a newline in a kernel name: none in index.html, summary.md, compare's or summary's output" \
  '[ -s "$tmp/esc/index.html" ] && ! grep -q "$esc" "$tmp/esc/index.html" "$tmp/esc/summary.md" "$tmp/cmp" "$tmp/sum" && grep -qF "ser<b>x\x1b[2J\nial@default" "$tmp/cmp"'
tap_end
