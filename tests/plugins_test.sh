#!/bin/bash
# plugins_test.sh ULPGATE PLUGIN_DIR SRC - kernels ulpgate's authors did not write, built
# as plugins against the public header alone (tests/plugins/*.c, shared modules of
# tests/meson.build):
#   - the correct kernels of each bound class pass a default `run --no-builtin` with no xfail
#     file: every suite, the corpus's stronger checks reported as information;
#   - each wrong kernel (tests/plugins/wrong_kernels.c) fails, its point naming it and why (a
#     GEMM declaring .batch_invariant falsely: the invariance case);
#   - the plugin of docs/your-own-kernel.md, as printed, compiles without a warning under
#     -Wall -Wextra.
# TAP on stdout.
ug=$1
dir=$2
src=$3
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"

ok_so="$dir/libcorrect_kernels.so"
run run --tap --plugin "$ok_so" --no-builtin --report "$tmp/rep"
check "correct kernels of each bound class pass a default run with no xfail file (exit 0)" \
  '[ "$(rc)" = 0 ] && ! grep -q "^not ok" "$tmp/out"'
for k in ok_serial_sum ok_pairwise_sum ok_kahan_sum ok_neumaier_sum ok_wide_sum ok_fma_dot ok_naive_gemm; do
  check "$k: measured, every point passed or skipped with its reason" \
    'grep -q "^ok .* $k@default" "$tmp/out" && ! grep -q "^not ok .* $k@default" "$tmp/out"'
done
check "a corpus check stronger than the class is information, not a failure (serial sum, 1e8 + ones)" \
  'grep -A3 "corpus/absorb_1e8_thousand_ones ok_serial_sum" "$tmp/out" | grep -q "information: .*check ulp_max 1"'
check "partial sums that overflow (exact result in range): out of range, a skip for every kernel alike" \
  'grep "corpus/range_partial_overflow ok_serial_sum" "$tmp/out" | grep -q "# SKIP out of range (partial-sum overflow): "'

# ---- wrong kernels: each fails, naming itself and why -------------------------------------------
bad_so="$dir/libwrong_kernels.so"
bad() { run run --tap --plugin "$bad_so" --no-builtin --kernel "$@"; }
bad bad_alternating --filter 'reduce/normal'
check "a result that alternates with a call counter: the deterministic kernel's rerun (fresh buffers) fails, naming both results" \
  '[ "$(rc)" = 1 ] && grep -q "determinism (a deterministic kernel, run again) failed: bad_alternating@default declares itself deterministic, but trial 0 run again .* gave -*0x.* where its first run gave -*0x" "$tmp/out"'
run hunt --plugin "$bad_so" --no-builtin --kernel bad_alternating --op sum --n 64 --evals 3000 --out "$tmp/alt.txt"
check "hunt on that kernel: its shrink is not fooled (exit 1, not deterministic, both scores, no file written)" \
  '[ "$(rc)" = 1 ] && grep -q "shrink   stopped: bad_alternating@default declares itself deterministic, but one input evaluated twice gave bound ratio .* then bound ratio" "$tmp/out" && [ ! -e "$tmp/alt.txt" ]'
for k in bad_reads_past_end bad_reads_before bad_writes_past_end; do
  for size in 1 17 1023 12345; do
    bad $k --filter "adversarial/expuniform_abs_asc" --n $size
    check "$k, n=$size: one element outside the buffer faults at its fence: a failed point naming the kernel and the signal" \
      '[ "$(rc)" = 1 ] && grep -q "^not ok 1 - adversarial/expuniform_abs_asc" "$tmp/out" && grep -q "kernel $k@default crashed (SIGSEGV)" "$tmp/out"'
  done
done
# each of these wrong in a way a corpus point shows, on more than one point
corpus_fails() { bad "$1" --filter 'corpus/*'; [ "$(rc)" = 1 ] && [ "$(grep -c "^not ok .* $1@default" "$tmp/out")" -ge 2 ]; }
check "flush-to-zero of subnormal inputs fails more than one corpus point" 'corpus_fails bad_ftz_inputs'
check "an accumulator started at +0 (a sum of -0 is +0) fails more than one corpus point" 'corpus_fails bad_plus_zero_start'
check "-0 for an exact cancellation fails more than one corpus point (the sign of an exact zero)" \
  'corpus_fails bad_minus_zero_end && grep -q "the sign of an exact zero (every corpus point) failed: bad_minus_zero_end@default returned -0" "$tmp/out"'
check "a serial sum claiming a tree depth ceil(log2 n) + 1 breaches its bound at n = 16 and n = 64" \
  'bad bad_shallow_serial --filter "corpus/order_round_up_staircase_*"; [ "$(rc)" = 1 ] &&
   grep -q "^not ok .* corpus/order_round_up_staircase_16 bad_shallow_serial@default n=16" "$tmp/out" &&
   grep -q "^not ok .* corpus/order_round_up_staircase_64 bad_shallow_serial@default n=64" "$tmp/out"'
check "a plugin GEMM declaring .batch_invariant whose order follows M fails the invariance case, naming the row and both batches" \
  'bad bad_batch_gemm --filter "invariance/*" --report "$tmp/inv"; [ "$(rc)" = 1 ] &&
   grep -q "^not ok .* batch bad_batch_gemm@default declared" "$tmp/out" &&
   grep -q "bad_batch_gemm@default is declared batch-invariant, but row 0 differs, first at out\[0\]: batch 1 -*0x.* vs batch 64 (the row at 10) -*0x" "$tmp/out"'
check "... and summary.md's Batch invariance table says so: declared, differs, a failure, the row" \
  'grep -q "^## Batch invariance" "$tmp/inv/summary.md" &&
   grep -q "^| \`bad_batch_gemm@default\` | yes | \*\*differs: FAIL\*\* | - | - | row 0 differs, first at out\\\\\[0\\\\\]: batch 1 " "$tmp/inv/summary.md"'

# ---- the quick start's plugin, as printed -------------------------------------------------------
python3 -c 'import re, sys; print(re.search(r"```c\n(.*?)```", open(sys.argv[1]).read(), re.S).group(1))' \
  "$src/docs/your-own-kernel.md" >"$tmp/snippet.c"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$src/include" "$tmp/snippet.c" >"$tmp/out" 2>"$tmp/err"
check "the plugin printed in docs/your-own-kernel.md compiles under -Wall -Wextra -Werror" '[ $? = 0 ]'
tap_end
