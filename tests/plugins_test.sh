#!/bin/bash
# plugins_test.sh ULPGATE PLUGIN_DIR - kernels ulpgate's authors did not write (issue 33), built
# as plugins against the public header alone (tests/plugins/*.c, shared modules of
# tests/meson.build):
#   - the correct kernels of each bound class pass a default `run --no-builtin` with no xfail
#     file: every suite, the corpus's stronger checks reported as information;
#   - each wrong kernel (tests/plugins/wrong_kernels.c) fails, its point naming it and why.
# TAP on stdout.
ug=$1
dir=$2
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
tap_end
