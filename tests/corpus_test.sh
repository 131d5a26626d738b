#!/bin/sh
# corpus_test.sh ULPGATE - corpus files and `ulpgate hunt` as a user meets them: a file dropped
# into a --corpus directory runs against every kernel it selects with no build step; a malformed
# one fails with FILE:LINE while the others run; an expected failure that passes is reported;
# hunt finds a breach, shrinks it, writes a corpus file that reproduces it, deterministically
# for a seed.  TAP on stdout.  Every check asserts an exit status and what was printed.
ug="$1"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
mkdir -p "$tmp/c/sub"

# ---- a valid file runs against every kernel it selects, no build step ------------------------
cat >"$tmp/c/t_good.txt" <<'EOF'
# why: a well-conditioned sum of three terms
# check: ulp_max 1 three positive terms, every kernel is within an ulp
1.5
0x1p-3
2.25
EOF
# the kernels of binary32 buffers (the corpus's data): f32 in and out, any accumulator
sums=$("$ug" list | grep -c '^  [a-z0-9_]*@[a-z0-9_]* *sum  *[a-z]*  *f32>[a-z0-9]*>f32 ')
run run --corpus "$tmp/c" --filter 'corpus/t_good' --tap
check "a valid file: exit 0, one point per sum kernel ($sums), each named after the file" \
  '[ "$(rc)" = 0 ] && [ "$(grep -c "^ok [0-9]* - corpus/t_good [a-z0-9_]*@[a-z0-9_]* n=3" "$tmp/out")" = "$sums" ]'
check "... CPU kernels measured and passing" \
  'grep -q "^ok [0-9]* - corpus/t_good serial_f32@default n=3$" "$tmp/out" && grep -q "^ok [0-9]* - corpus/t_good kahan_f32@default n=3$" "$tmp/out"'

# ---- kernels: globs with exclusions -----------------------------------------------------------
cat >"$tmp/c/sub/t_some.txt" <<'EOF'
# why: only two kernels
# kernels: serial_* !serial_f64acc kahan_f32
1
2
EOF
run run --corpus "$tmp/c" --filter 'corpus/sub/*' --tap
check "a file in a subdirectory is corpus/sub/NAME; kernels: globs select, '!' excludes" \
  '[ "$(rc)" = 0 ] && [ "$(grep -c "^ok" "$tmp/out")" -ge 2 ] && ! grep "^ok" "$tmp/out" | grep -qv "corpus/sub/t_some \(serial_f32\|kahan_f32\)@" && grep -q "corpus/sub/t_some serial_f32@default" "$tmp/out" && grep -q "corpus/sub/t_some kahan_f32@default" "$tmp/out"'

# ---- a malformed file fails with FILE:LINE while the others run --------------------------------
printf '# why: broken\n# op: sum\n# chek: ulp_max 1\n1\n' >"$tmp/c/t_bad.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_*' --tap
check "a malformed file: exit 1, one failed point naming FILE:LINE and the key" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok [0-9]* - corpus/t_bad$" "$tmp/out" && grep -q "^# $tmp/c/t_bad.txt:3: unknown header key .chek." "$tmp/out"'
check "... while the other files still run and pass" \
  '[ "$(grep -c "^ok [0-9]* - corpus/t_good" "$tmp/out")" = "$sums" ] && [ "$(grep -c "^not ok" "$tmp/out")" = 1 ]'
rm "$tmp/c/t_bad.txt"

# ---- "# format:": the values' format, checked, and the kernels of that format -------------------
printf '# why: bf16 values\n# format: bf16\n1.5\n0x1p-9\n3.015625\n' >"$tmp/c/t_fmt_bf16.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_fmt_bf16' --tap
check "# format: bf16 runs the bfloat16 sum kernels on the file, and only them" \
  '[ "$(rc)" = 0 ] && grep -q "^ok [0-9]* - corpus/t_fmt_bf16 serial_bf16_f32acc@default n=3$" "$tmp/out" && ! grep "^ok" "$tmp/out" | grep -v "t_fmt_bf16 [a-z0-9_]*bf16[a-z0-9_]*@" | grep -q .'
printf '# why: not bf16\n# format: bf16\n1.5\n\n## a comment\n1.001\n' >"$tmp/c/t_fmt_bf16.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_fmt_bf16' --tap
check "# format: a value that is not of the format: exit 1, FILE:LINE of the value" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_fmt_bf16.txt:6: value 1.00100005 is not a bf16 value" "$tmp/out"'
printf '# why: e4m3 has no infinity\n# format: e4m3\n1\ninf\n' >"$tmp/c/t_fmt_bf16.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_fmt_bf16' --tap
check "# format: e4m3 refuses an infinity, at its line" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_fmt_bf16.txt:4: value inf is not a e4m3 value" "$tmp/out"'
printf '# why: e2m1 has no NaN\n# format: e2m1\n1.5\nnan\n' >"$tmp/c/t_fmt_bf16.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_fmt_bf16' --tap
check "# format: e2m1 (FP4) refuses a NaN, at its line" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_fmt_bf16.txt:4: value nan is not a e2m1 value" "$tmp/out"'
printf '# why: no such format\n# format: bf17\n1\n' >"$tmp/c/t_fmt_bf16.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_fmt_bf16' --tap
check "# format: an unknown format: exit 1, FILE:LINE naming it" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_fmt_bf16.txt:2: format: .bf17. is not a format of corpus values" "$tmp/out"'
printf '# why: e5m2 has 2 significant bits\n# format: e5m2\n0.75\n0x1.8p-15\n0x1p-16\n0.5625\n' >"$tmp/c/t_fmt_bf16.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_fmt_bf16' --tap
check "# format: e5m2 checks each value (0.5625 needs 4 bits, e5m2 has 3), at its line" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_fmt_bf16.txt:6: value 0.5625 is not a e5m2 value" "$tmp/out"'
printf '# why: f16 subnormal\n# format: f16\n0x1p-24\n0x1p-25\n' >"$tmp/c/t_fmt_bf16.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_fmt_bf16' --tap
check "# format: f16 takes its subnormals, refuses half the smallest one, at its line" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_fmt_bf16.txt:4: value 2.98023224e-08 is not a f16 value" "$tmp/out"'
rm "$tmp/c/t_fmt_bf16.txt"

# ---- "# format: f64": binary64 values, the binary64 kernels, the binary64 oracle --------------
printf '# why: 1 absorbed by 1e300\n# format: f64\n1e300\n1\n-1e300\n0x1p-1074\n' >"$tmp/c/t_f64.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_f64' --tap
check "# format: f64 reads values beyond binary32 and runs the binary64 sum kernels, only them" \
  '[ "$(rc)" = 0 ] && grep -q "^ok [0-9]* - corpus/t_f64 serial_f64@default n=4$" "$tmp/out" && grep -q "^ok [0-9]* - corpus/t_f64 kahan_f64@default n=4$" "$tmp/out" && ! grep "^ok" "$tmp/out" | grep -v "t_f64 [a-z0-9_]*f64[a-z0-9_]*@" | grep -q .'
check "... graded against the exact binary64 sum 1 + 2^-1074: serial_f64 returns 2^-1074, 2^52 ulps off" \
  'grep -A1 "^ok [0-9]* - corpus/t_f64 serial_f64@default n=4$" "$tmp/out" | grep -q "figures: ulp_max 4.5036e+15, ulp_mean 4.5036e+15, rel_max 1,"'
printf '# why: beyond binary64\n# format: f64\n1\n1e309\n' >"$tmp/c/t_f64.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_f64' --tap
check "# format: f64: a value beyond binary64's range is an error at FILE:LINE" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_f64.txt:4: .1e309. overflows binary64" "$tmp/out"'
printf '# why: binary64 dot\n# op: dot\n# format: f64\n1e200 1e-200\n3 0.1\n' >"$tmp/c/t_f64.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_f64' --tap
check "# format: f64 dot files run the binary64 dot kernels" \
  '[ "$(rc)" = 0 ] && grep -q "^ok [0-9]* - corpus/t_f64 [a-z0-9_]*dot[a-z0-9_]*f64[a-z0-9_]*@default n=2$" "$tmp/out" && ! grep "^ok" "$tmp/out" | grep -v "t_f64 [a-z0-9_]*f64[a-z0-9_]*@" | grep -q .'
run oracle --op dot "$tmp/c/t_f64.txt"
check "ulpgate oracle (binary32) refuses a binary64 file instead of rounding it" \
  '[ "$(rc)" = 2 ] && grep -q "t_f64.txt: a binary64 file (# format: f64)" "$tmp/err"'
rm "$tmp/c/t_f64.txt"

# ---- a result beyond the output format's range: a skip that counts the outputs, never a pass --
printf '# why: beyond binary16\n# format: f16\n# kernels: serial_f16acc\n60000\n60000\n1\n' \
  >"$tmp/c/t_f16_range.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_f16_range' --tap --report "$tmp/rng"
check "binary16 sum 120001: out of range, a skip saying 1 of 1 outputs, the row's out_of_range 1" \
  '[ "$(rc)" = 0 ] && grep -q "^ok [0-9]* - corpus/t_f16_range serial_f16acc@default n=3 # SKIP out of range: 1 of 1 outputs; first: trial 0 element 0: exact result 120001 leaves f16" "$tmp/out" && json "$tmp/rng/results.json" "assert [r.get(\"out_of_range\") for r in d[\"results\"]] == [1], d[\"results\"]" && grep -q "out of range: 1 of 1 outputs" "$tmp/rng/summary.md"'
rm "$tmp/c/t_f16_range.txt"

# ---- a check stronger than the class: information, unless it names the kernel ------
cat >"$tmp/c/t_cancel.txt" <<'EOF'
# why: 1e8 + 1 - 1e8: the 1 is absorbed
# kernels: serial_f32 serial_f64acc
# check: ulp_max 1 an integer sum
1e8
1
-1e8
EOF
run run --corpus "$tmp/c" --filter 'corpus/t_cancel' --kernel '*@default' --tap
check "ulp_max 1 on a serial binary32 sum (tree bound: 2e8 ulp here), naming no kernel: information, exit 0" \
  '[ "$(rc)" = 0 ] && grep -A1 "^ok [0-9]* - corpus/t_cancel serial_f32@default n=3$" "$tmp/out" | grep -q "^# information: $tmp/c/t_cancel.txt:3: check ulp_max 1 not met (measured 8.389e+06): stronger than serial_f32@default.s tree bound on this input (it allows 2e+08 times the limit)"'
check "... and asserted where the class implies it (binary64 accumulation: wide_acc's bound is within an ulp)" \
  'grep -A1 "^ok [0-9]* - corpus/t_cancel serial_f64acc@default n=3$" "$tmp/out" | grep -v -q information'
sed -i 's/^# check: ulp_max 1 an integer sum/# check: ulp_max 1 for=class:tree an integer sum/' "$tmp/c/t_cancel.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_cancel' --kernel serial_f32@default --tap
check "for=class:tree names the class: the check fails the serial sum" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok [0-9]* - corpus/t_cancel serial_f32@default n=3$" "$tmp/out"'
printf '# why: x\n# check: ulp_max 1 for=\n1\n' >"$tmp/c/t_for.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_for' --tap
check "'for=' naming nothing: an error at its line" \
  '[ "$(rc)" = 1 ] && grep -q "t_for.txt:2: check ulp_max 1: for= names no kernel or class" "$tmp/out"'
rm "$tmp/c/t_for.txt"

# ---- a failing check: file:line of the check, the terms that matter, a rerun line ---------------
cat >"$tmp/c/t_cancel.txt" <<'EOF'
# why: 1e8 + 1 - 1e8: the 1 is absorbed
# kernels: serial_f32
# check: ulp_max 1 for=serial_f32 an integer sum
1e8
1
-1e8
EOF
run run --corpus "$tmp/c" --filter 'corpus/t_cancel' --tap
check "a breach: exit 1, the check's FILE:LINE, the worst element" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_cancel.txt:3: check ulp_max 1 failed: max 8.389e+06 ulp > 1" "$tmp/out" && grep -q "^#   worst: trial 0, element 0: got 0x0p+0" "$tmp/out"'
check "the terms that matter: removing x[1] = 1 changes the error most" \
  'grep -A1 "^#   terms that matter" "$tmp/out" | grep -q "^#     x\[1\] = 0x1p+0 (1): without it 0 ulp"'
check "the serial view: the largest rounding adds x[1]" \
  'grep -q "^#   in index order .*the largest rounding, 1, adding x\[1\]" "$tmp/out"'
rerun=$(sed -n 's/^#   rerun: //p' "$tmp/out" | head -1)  # serial_f32@default's (variants follow)
check "the rerun line names the --corpus directory" 'echo "$rerun" | grep -q -- "--filter corpus/t_cancel --kernel serial_f32@default --n 3 --trial 0 --corpus $tmp/c"'
$rerun >"$tmp/out2" 2>&1
rc2=$?
check "... and reproduces the failure" '[ "$rc2" = 1 ] && grep -q "check ulp_max 1 failed: max 8.389e+06 ulp" "$tmp/out2"'

# ---- strict expected failures: the declared one, and one that passes ---------------------------
cat >"$tmp/c/t_cancel.txt" <<'EOF'
# why: 1e8 + 1 - 1e8: the 1 is absorbed
# kernels: serial_f32 serial_f64acc
# check: ulp_max 1 an integer sum
# xfail: serial_f32 fl(1e8 + 1) = 1e8
# xfail: serial_f64acc declared, but binary64 gets it right
1e8
1
-1e8
EOF
run run --corpus "$tmp/c" --filter 'corpus/t_cancel' --tap
check "xfail: the declared failure is a not-ok line with a TODO directive and its reason" \
  'grep -q "^not ok [0-9]* - corpus/t_cancel serial_f32@default n=3 # TODO fl(1e8 + 1) = 1e8$" "$tmp/out"'
check "xfail that passes: an ok line with a TODO directive, stale, exit 1" \
  '[ "$(rc)" = 1 ] && grep -q "^ok [0-9]* - corpus/t_cancel serial_f64acc@default n=3 # TODO" "$tmp/out" && grep -q "the declaration is stale" "$tmp/out"'
printf '# why: x\n# xfail: no_such_kernel it fails\n1\n' >"$tmp/c/t_stale.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_stale' --tap
# (a build without CUDA knows the GPU kernels' names too, UG_CUDA_KERNEL_NAMES: a glob that
# names none of them is stale there as well; one that names a GPU kernel is a note there)
check "an xfail naming no kernel at all: a failure at its line, in every build" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_stale.txt:2: xfail: .no_such_kernel. matches no kernel" "$tmp/out" && ! grep -q "t_stale.txt:2: .*(built without CUDA)" "$tmp/out"'
printf '# why: x\n# xfail: reduce_atomic* a GPU kernel\n1\n' >"$tmp/c/t_stale.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_stale' --tap
if "$ug" list | grep -q " cuda "; then
  ok "an xfail naming a GPU kernel, built without CUDA: a note # SKIP CUDA built here"
else
  check "an xfail naming a GPU kernel, built without CUDA: a note at its line, no failure" \
    '[ "$(rc)" = 0 ] && grep -q "^# $tmp/c/t_stale.txt:2: xfail: .reduce_atomic\*. matches no kernel this file runs .*(built without CUDA)" "$tmp/out"'
fi
rm "$tmp/c/t_stale.txt" "$tmp/c/t_cancel.txt"

# ---- no directive is silently ignored: misplaced, misspelled, without its colon ----------------
mkdir -p "$tmp/d"
printf '# why: x\n1\n2\n# check: ulp_max 0 after the values\n' >"$tmp/d/t_after.txt"
printf '# why: x\n# Check: ulp_max 0\n1\n' >"$tmp/d/t_upper.txt"
printf '# why: x\n# check : ulp_max 0\n1\n' >"$tmp/d/t_space.txt"
printf '# why: x\n# check ulp_max 0\n1\n' >"$tmp/d/t_nocolon.txt"
printf '# why: x\n1 # xfail: serial_f32 inline\n' >"$tmp/d/t_inline.txt"
printf '# why: x\n1\n# note: not a key\n' >"$tmp/d/t_unknown.txt"
printf '# why: plain comments stay allowed\n# a plain comment, with a colon: here\n## check: a comment\n1 # one\n# the end\n2\n' >"$tmp/d/t_plain.txt"
run run --corpus "$tmp/d" --filter 'corpus/t_*' --kernel serial_f32 --tap
check "a directive after the values: an error at its line" \
  'grep -q "^# $tmp/d/t_after.txt:4: .# check:. after the values (line 2): directives come before the first value" "$tmp/out"'
check "'# Check:' (not lowercase): an error at its line" \
  'grep -q "^# $tmp/d/t_upper.txt:2: .# Check:. is not a directive: keys are lowercase" "$tmp/out"'
check "'# check :' (blank before the colon): an error at its line" \
  'grep -q "^# $tmp/d/t_space.txt:2: .# check :. is not a directive: write .# check:." "$tmp/out"'
check "'# check ulp_max 0' (no colon): an error at its line" \
  'grep -q "^# $tmp/d/t_nocolon.txt:2: .# check. without its colon" "$tmp/out"'
check "a directive in a comment after a value: an error at its line" \
  'grep -q "^# $tmp/d/t_inline.txt:2: .# xfail:. after the values (line 2)" "$tmp/out"'
check "an unknown directive after the values: an error at its line" \
  'grep -q "^# $tmp/d/t_unknown.txt:3: .# note:. is not a directive" "$tmp/out"'
check "six files fail, the file of plain comments passes" \
  '[ "$(rc)" = 1 ] && [ "$(grep -c "^not ok [0-9]* - corpus/t_[a-z]*$" "$tmp/out")" = 6 ] && grep -q "^ok [0-9]* - corpus/t_plain serial_f32@default n=2$" "$tmp/out"'

# ---- a directory reached twice (symlinks to '.') is walked once ---------------------------------
mkdir -p "$tmp/loop"
printf '# why: reached through two links to .\n1\n2\n' >"$tmp/loop/t_loop.txt"
ln -s . "$tmp/loop/a" && ln -s . "$tmp/loop/b"
start=$(date +%s)
timeout 60 "$ug" run --corpus "$tmp/loop" --filter 'corpus/*t_loop' --kernel serial_f32 --tap >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
took=$(( $(date +%s) - start ))
check "two symlinks to . under --corpus: the walk ends (took ${took} s), the file runs once" \
  '[ "$(rc)" = 0 ] && [ "$took" -lt 30 ] && [ "$(grep -c "^ok [0-9]* - corpus/[a-z/]*t_loop serial_f32@default" "$tmp/out")" = 1 ]'

# ---- a directory too deep for unit names: a failed unit, not files silently lost ----------------
# (the walk's paths were cut at 511 bytes: a file 631 characters below the corpus directory was
# never found, and the run passed)
deep="$tmp/deep"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do deep="$deep/dddddddddddddddddddddddddddddddddddddddddddddddddd$i"; done
mkdir -p "$deep"
printf '# why: far below the corpus directory\n1\n2\n' >"$deep/t_deep.txt"
run run --corpus "$tmp/deep" --filter 'corpus/d*' --kernel serial_f32
check "a directory too deep for unit names fails its unit, naming the directory (exit 1)" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/deep/d*1/d*2/d*3: directory too deep for unit names (155 characters below the corpus directory; a unit name has at most 120): its files are not read" "$tmp/out"'

# ---- names from outside: no TAP injection, rerun lines quoted -----------------------------------
mkdir -p "$tmp/q d"
python3 -c "
import sys
d = sys.argv[1]
for name in ['x # TODO y', 'z' + chr(10) + 'ok 99 - fake', 'a b', 'a_b']:
    open(d + '/' + name + '.txt', 'w').write('# why: x' + chr(10) + '1' + chr(10) + '2' + chr(10))
" "$tmp/q d"
printf '# why: 1e8 + 1 - 1e8\n# kernels: serial_f32\n# check: ulp_max 1 for=serial_f32 an integer sum\n1e8\n1\n-1e8\n' >"$tmp/q d/t_q.txt"
run run --corpus "$tmp/q d" --filter 'corpus/*' --kernel serial_f32 --tap
check "a file named 'x (hash) TODO y': its point fails naming why, the hash escaped (no TODO directive)" \
  'grep -q "^not ok [0-9]* - corpus/x \\\\# TODO y$" "$tmp/out" && grep -q "x # TODO y.txt: file name holds . . (unit names are letters" "$tmp/out"'
check "a newline in a file name starts no TAP line of its own" \
  '! grep -q "^ok 99" "$tmp/out" && grep -q "^not ok [0-9]* - corpus/z\\\\nok 99 - fake$" "$tmp/out"'
check "'a b' is refused, 'a_b' runs: ids cannot collide" \
  'grep -q "^not ok [0-9]* - corpus/a b$" "$tmp/out" && grep -q "^ok [0-9]* - corpus/a_b serial_f32@default n=2" "$tmp/out"'
rerun=$(grep -A30 "^not ok [0-9]* - corpus/t_q serial_f32@default" "$tmp/out" | sed -n "s/^#   rerun: //p" | head -1)
check "the rerun line quotes a --corpus directory with a space" \
  'echo "$rerun" | grep -q -- "--filter corpus/t_q --kernel serial_f32@default --n 3 --trial 0 --corpus .$tmp/q d."'
eval "$rerun" >"$tmp/out2" 2>&1
rc2=$?
check "... and, run as printed, reproduces the failure" '[ "$rc2" = 1 ] && grep -q "check ulp_max 1 failed: max 8.389e+06 ulp" "$tmp/out2"'

# ---- lazy: a file is read when its unit runs, never at discovery --------------------
# inotify (tests/opened.py) names the files a run opened: exact, no timing, no memory figure.
mkdir -p "$tmp/lazy"
printf '# why: the one selected\n# kernels: serial_f32\n1\n2\n' >"$tmp/lazy/t_sel.txt"
# a valid head, 200000 values, a malformed one far below it
{ printf '# why: long, broken at the end\n# kernels: serial_f32\n'; seq 1 200000; echo abc; } >"$tmp/lazy/t_long.txt"
# a head of 100000 "#a:" lines (kept whole, 1 KiB each, they were 100 MB of headers)
{ i=0; while [ $i -lt 1000 ]; do printf '#a:\n'; i=$((i + 1)); done; } >"$tmp/lazy/a1k"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$tmp/lazy/a1k"; done >"$tmp/lazy/a10k"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$tmp/lazy/a10k"; done >"$tmp/lazy/t_hdr.txt"
printf '1\n' >>"$tmp/lazy/t_hdr.txt"
rm "$tmp/lazy/a1k" "$tmp/lazy/a10k"
opened() { python3 "$(dirname "$0")/opened.py" "$tmp/lazy" "$tmp/opened" "$ug" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
opened run --corpus "$tmp/lazy" --filter 'corpus/t_sel' --tap
if [ "$(rc)" = 77 ]; then
  ok "an unselected corpus file is never opened # SKIP inotify unavailable here"
else
  check "an unselected corpus file is never opened: --filter corpus/t_sel opens t_sel.txt alone" \
    '[ "$(rc)" = 0 ] && [ "$(cat "$tmp/opened")" = "t_sel.txt" ] && grep -q "^ok [0-9]* - corpus/t_sel serial_f32@default n=2$" "$tmp/out"'
  opened run --corpus "$tmp/lazy" --filter 'nothing*'
  check "... nor by a run that selects none of them (exit 2, nothing opened)" \
    '[ "$(rc)" = 2 ] && [ ! -s "$tmp/opened" ]'
fi
run run --corpus "$tmp/lazy" --filter 'corpus/t_long' --tap
check "selected, the malformed value far below the head: exit 1, FILE:LINE" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok [0-9]* - corpus/t_long$" "$tmp/out" && grep -q "^# $tmp/lazy/t_long.txt:200003: .abc. is not a number" "$tmp/out"'
run run --corpus "$tmp/lazy" --filter 'corpus/t_hdr' --tap
check "selected, 100000 '#a:' header lines: the first is the error, at line 1" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/lazy/t_hdr.txt:1: unknown header key .a." "$tmp/out"'
# the memory check comes before the values are read: 4.5e6 records (18 MB as binary32) against
# a 10 MiB limit are refused, naming the file, and the bad value after them is never reached
{ printf '# why: more values than the limit allows\n# kernels: serial_f32\n'; yes 1 | head -n 4499999; echo abc; } >"$tmp/lazy/t_mem.txt"
ULPGATE_MEM_LIMIT=10MiB run run --corpus "$tmp/lazy" --filter 'corpus/t_mem' --tap
check "ULPGATE_MEM_LIMIT: a selected file too large is refused before its values are read" \
  '[ "$(rc)" = 1 ] && grep -q "memory for the input failed: file(t_mem.txt) n=4500000, 1 trials need" "$tmp/out" && ! grep -q "is not a number" "$tmp/out"'
rm -r "$tmp/lazy"

# ---- usage --------------------------------------------------------------------------------------
run run --corpus "$tmp/nosuch" --filter 'corpus/*'
check "--corpus DIR that does not exist: exit 2 naming it" '[ "$(rc)" = 2 ] && grep -q -- "--corpus $tmp/nosuch: not a readable directory" "$tmp/err"'
run list
check "list names the corpus files" '[ "$(rc)" = 0 ] && grep -q "corpus/cancel_float_index_post .*\[corpus\] (cases/corpus/cancel_float_index_post.txt)" "$tmp/out"'

# ---- a LayerNorm's x w b a line (input 1 is [w | b], ops/layernorm.c) ----------------
printf '# op: layernorm\n# why: equal values: x - mean = 0, every output is its bias\n# kernels: layernorm_*_cpu\n# check: ulp_max 0 y_i = b_i exactly\n3 1.25 0.5\n3 0.75 -0.25\n3 -1.5 0x1p-7\n3 1 -3\n' >"$tmp/c/t_ln.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_ln' --tap
check "layernorm x w b lines: every CPU LayerNorm returns the bias exactly on a row of equal values" \
  '[ "$(rc)" = 0 ] && grep -q "^ok [0-9]* - corpus/t_ln layernorm_twopass_cpu@default n=4$" "$tmp/out" && grep -q "^ok [0-9]* - corpus/t_ln layernorm_welford_cpu@default n=4$" "$tmp/out" && [ "$(grep -c "^ok" "$tmp/out")" -ge 3 ] && ! grep -q "^not ok" "$tmp/out"'
printf '# op: layernorm\n# why: x w only\n1 1\n2 1\n' >"$tmp/c/t_ln.txt"
run run --corpus "$tmp/c" --filter 'corpus/t_ln' --tap
check "a layernorm file of two values a line: exit 1 at its first line, three wanted" \
  '[ "$(rc)" = 1 ] && grep -q "^# $tmp/c/t_ln.txt:3: op layernorm takes 3 values a line, found 2" "$tmp/out"'
rm "$tmp/c/t_ln.txt"

# ---- hunt ----------------------------------------------------------------------------------------
run hunt --kernel serial_f32 --n 8 --evals 10 --causal
check "hunt --causal for an operation without a mask: exit 2, said why" \
  '[ "$(rc)" = 2 ] && grep -q "^ulpgate hunt: --causal: serial_f32@default computes sum, which takes no mask$" "$tmp/err"'
mkdir -p "$tmp/h"
# --out that cannot be written: refused before the search (an hour's hunt would lose its input)
run hunt --kernel serial_f32 --n 64 --evals 50 --out "$tmp"
check "hunt --out DIRECTORY: exit 2 before searching, said why" \
  '[ "$(rc)" = 2 ] && grep -q "^ulpgate hunt: --out $tmp: a directory, not a file$" "$tmp/err" && ! grep -q "^search" "$tmp/out"'
run hunt --kernel serial_f32 --n 64 --evals 50 --out "$tmp/no/such/dir/h.txt"
check "hunt --out in a missing folder: exit 2 before searching, naming the folder" \
  '[ "$(rc)" = 2 ] && grep -q "cannot write into $tmp/no/such/dir: " "$tmp/err" && ! grep -q "^search" "$tmp/out"'

run hunt --kernel serial_f32 --op sum --n 512 --evals 20000 --seed 7 --out "$tmp/h/h1.txt" --compare-random
check "hunt serial_f32: exit 0, search and random bests, their ratio" \
  '[ "$(rc)" = 0 ] && grep -q "^search   best bound ratio" "$tmp/out" && grep -q "^random   best bound ratio" "$tmp/out" && grep -q "^search / random: " "$tmp/out"'
check "... the search beats random sampling by 10x at the same evaluation count" \
  'awk "/^search \/ random:/ { exit !(\$4 + 0 >= 10) }" "$tmp/out"'
check "... shrinks to at most 64 values that still breach the 1-ulp check" \
  'grep -q "^shrink   512 -> [0-9]* values" "$tmp/out" && [ "$(grep -vc "^#" "$tmp/h/h1.txt")" -le 64 ] && grep -q "reproduces the breach" "$tmp/out"'
check "... the file's header: op, why, source with the command line and seed, kernels, check, xfail" \
  'grep -q "^# op: sum$" "$tmp/h/h1.txt" && grep -q "^# why: found by ulpgate hunt" "$tmp/h/h1.txt" && grep -q "^# source: hunt: ulpgate hunt --kernel serial_f32 .*--seed 7 .*(seed 0x7)$" "$tmp/h/h1.txt" && grep -q "^# kernels: serial_f32@default$" "$tmp/h/h1.txt" && grep -q "^# check: ulp_max 1 " "$tmp/h/h1.txt" && grep -q "^# xfail: serial_f32@default " "$tmp/h/h1.txt"'
run run --corpus "$tmp/h" --filter 'corpus/h1' --tap
check "the written file runs as a regression point: the breach, as declared (exit 0)" \
  '[ "$(rc)" = 0 ] && grep -q "^not ok 1 - corpus/h1 serial_f32@default n=[0-9]* # TODO" "$tmp/out" && grep -q "h1.txt:[0-9]*: check ulp_max 1 failed" "$tmp/out"'
run hunt --kernel serial_f32 --n 512 --evals 20000 --seed 7 --threads 1 --out "$tmp/h/h2.txt"
check "hunt is deterministic for a seed and an evaluation budget (another thread count too)" \
  '[ "$(rc)" = 0 ] && [ "$(grep -v "^#" "$tmp/h/h1.txt")" = "$(grep -v "^#" "$tmp/h/h2.txt")" ] && [ "$(grep "^# why" "$tmp/h/h1.txt")" = "$(grep "^# why" "$tmp/h/h2.txt")" ]'
run hunt --kernel serial_f32 --n 512 --evals 20000 --seed 8 --out "$tmp/h/h3.txt"
check "another seed searches elsewhere" '[ "$(rc)" = 0 ] && [ "$(grep "^# why" "$tmp/h/h1.txt")" != "$(grep "^# why" "$tmp/h/h3.txt")" ]'
run hunt --kernel dot_serial_f32 --n 64 --evals 5000 --out "$tmp/h/d.txt"
check "hunt a dot product: pairs written and reproduced" \
  '[ "$(rc)" = 0 ] && grep -q "^# op: dot$" "$tmp/h/d.txt" && grep -q "reproduces the breach" "$tmp/out"'
run hunt --kernel layernorm_twopass_cpu --n 32 --evals 2000 --out "$tmp/h/ln.txt"
check "hunt a LayerNorm: x w b lines (its bias) written and reproduced" \
  '[ "$(rc)" = 0 ] && grep -q "^# op: layernorm$" "$tmp/h/ln.txt" && grep -q "^## x w b$" "$tmp/h/ln.txt" && [ "$(grep -c "^[-0-9][^ ]*  *[-0-9][^ ]*  *[-0-9][^ ]*  *#" "$tmp/h/ln.txt")" -ge 1 ] && grep -q "reproduces the breach" "$tmp/out"'
run hunt --kernel gemm_naive_cpu --n 4x3x8 --evals 3000 --out "$tmp/h/g.txt"
check "hunt a GEMM: its shape shrunk, written and reproduced" \
  '[ "$(rc)" = 0 ] && grep -q "^# op: gemm [0-9]*x[0-9]*x[0-9]*$" "$tmp/h/g.txt" && grep -q "reproduces the breach" "$tmp/out"'
# attention: Q, K, V searched as one vector, the worst output's bound ratio (O and lse
# each against its own bound); the unshifted softmax's exp overflow (scores past 88.7: inf/inf)
# is a breach the search finds within its domain (|v| <= 2^6), the shifted kernels are not
run hunt --kernel attn_unshifted_cpu --n 2x16x8x8 --evals 512 --seed 1
check "hunt attention's unshifted kernel: the exp overflow found (bound ratio inf), exit 0, no file" \
  '[ "$(rc)" = 0 ] && grep -q "^search   best bound ratio inf (ulp inf), 512 evaluations" "$tmp/out" && grep -q "^breach   attn_unshifted_cpu@default: bound ratio inf, .* no corpus file (a corpus file holds two inputs at most; attention has 3)$" "$tmp/out"'
run hunt --kernel attn_unshifted_cpu --n 2x16x8x8 --evals 512 --seed 1 --threads 1
check "... deterministic for a seed and an evaluation budget (one thread): the same evaluation found it" \
  '[ "$(rc)" = 0 ] && grep -q "^search   best bound ratio inf (ulp inf), 512 evaluations in .*found by range halving at evaluation 4$" "$tmp/out"'
run hunt --kernel attn_online_cpu --n 2x16x8x8 --evals 512 --seed 1 --causal
check "hunt attention's online kernel, --causal: a finite best bound ratio in (0, 1], within its bound" \
  'r=$(sed -n "s/^search   best bound ratio \([0-9.e+-]*\) .*/\1/p" "$tmp/out"); [ -n "$r" ] && awk -v r="$r" "BEGIN{exit !(r > 0 && r <= 1)}"'
# --out that is not a regular file: a symlink is written through (the link kept), a full device
# says ENOSPC (a rename would have replaced /dev/full with a regular file, as root)
ln -s "$tmp/h/target.txt" "$tmp/h/link.txt"
run hunt --kernel serial_f32 --n 64 --evals 3000 --seed 7 --out "$tmp/h/link.txt"
check "hunt --out a symlink: written through to its target, the link kept, the breach reproduced" \
  '[ "$(rc)" = 0 ] && [ -L "$tmp/h/link.txt" ] && [ -f "$tmp/h/target.txt" ] && [ ! -L "$tmp/h/target.txt" ] && grep -q "^# op: sum$" "$tmp/h/target.txt" && grep -q "reproduces the breach" "$tmp/out"'
if mknod "$tmp/h/fulldev" c 1 7 2>/dev/null; then
  run hunt --kernel serial_f32 --n 64 --evals 3000 --seed 7 --out "$tmp/h/fulldev"
  check "hunt --out a full device (a /dev/full node): exit 2, ENOSPC named, the node left a device" \
    '[ "$(rc)" = 2 ] && grep -q "cannot write $tmp/h/fulldev: No space left on device" "$tmp/err" && [ -c "$tmp/h/fulldev" ]'
else
  ok "hunt --out a full device # SKIP mknod not permitted here"
fi
run hunt --kernel serial_f32 --n 1 --evals 500 --out "$tmp/h/none.txt"
check "nothing to find (one term is always exact): exit 1, no file" \
  '[ "$(rc)" = 1 ] && grep -q "no input breached ulp_max 1" "$tmp/out" && [ ! -e "$tmp/h/none.txt" ]'
run hunt --kernel reduce_warp_shuffle_grid --n 300 --evals 640 --out "$tmp/h/gpu.txt"
check "hunt a GPU kernel: one launch a candidate where there is a GPU, else exit 2 naming why" \
  '{ [ "$(rc)" = 2 ] && grep -q "needs a CUDA device\|is not a kernel" "$tmp/err"; } || { [ "$(rc)" -le 1 ] && grep -q "^search   best bound ratio" "$tmp/out"; }'
run hunt --kernel serial_f3 --n 8
check "hunt: an unknown kernel is a usage error naming the nearest" '[ "$(rc)" = 2 ] && grep -q "nearest: serial_f32@default" "$tmp/err"'
run hunt --kernel serial_f32 --op dot --n 8
check "hunt: --op that is not the kernel's: exit 2" '[ "$(rc)" = 2 ] && grep -q "serial_f32@default computes sum" "$tmp/err"'
run hunt --kernel serial_f32 --n 8 --budget 1 --evals 10
check "hunt: --budget and --evals together: exit 2" '[ "$(rc)" = 2 ] && grep -q "give one" "$tmp/err"'
run hunt --kernel serial_f32
check "hunt: --n is required" '[ "$(rc)" = 2 ] && grep -q -- "--n is required" "$tmp/err"'

tap_end
