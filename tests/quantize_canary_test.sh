#!/bin/sh
# quantize_canary_test.sh ULPGATE OUTDIR - the quantizers against their scale rules
# (cases/quantize.c, cases/quantize_canary.c):
# every correct quantizer passes on the maxima, specials and normal data with no expected
# failure; the CUDA case passes or skips cleanly (no device); each wrong quantizer fails (exit
# 1) the intended way: the wrong E8M0 rounding and the dropped NVFP4 tensor scale name the block,
# the scale byte got and the rule's, and the other rule the byte follows; the quantizer that does
# not saturate names the block, both scale bytes and the element.  TAP on stdout.
ug="$1"
out="$2"
rm -rf "$out"
mkdir -p "$out" || exit 1
tmp="$out"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
run list
check "list: the quantizers with their block format and rule, the canaries marked" \
  '[ "$(rc)" = 0 ] && grep -Eq "^  mxfp4_ocp_cpu +cpu +mxfp4 +ocp " "$tmp/out" && grep -Eq "^  nvfp4_no_tensor_cpu +cpu +nvfp4 +nvfp4 +\[canary: must fail\]" "$tmp/out" && grep -Eq "^  mxfp8_e4m3_ocp_cuda +cuda " "$tmp/out"'

run run --tap --filter 'quantize/*' --report "$out/good"
check "the correct quantizers pass on maxima, specials, normal (exit 0)" \
  '[ "$(rc)" = 0 ] && ! grep -q "^not ok" "$tmp/out" && grep -q "^ok .* quantize/maxima nvfp4_cpu on maxima" "$tmp/out"'
check "no expected failure among them" '! grep -q "# TODO" "$tmp/out"'
check "a point per correct CPU quantizer and data set (9 x 3)" \
  '[ "$(grep -c "^ok .* - quantize/[mns]" "$tmp/out")" = 27 ]'
check "the figure: the share of blocks whose scale differs from the rule" \
  'grep -q "^# mxfp4_ocp_cpu on normal: 0 of 1024 block scales differ from the rule (0.00%)" "$tmp/out"'

run run --tap --filter 'quantize/cuda'
check "the CUDA quantizers pass, or skip without a device" \
  '[ "$(rc)" = 0 ] && ! grep -q "^not ok" "$tmp/out"'

run run --tap --filter 'quantize_canary/scale_up'
check "scale rounded up: fails (exit 1)" '[ "$(rc)" = 1 ] && grep -q "^not ok" "$tmp/out"'
check "naming the block and both E8M0 bytes" \
  'grep -Eq "first: block [0-9]+: scale 0x[0-9a-f]{2}, the rule \(ocp\) says 0x[0-9a-f]{2} \(matches" "$tmp/out"'
check "and that the byte follows the round-up rule where it does" \
  'grep -Eq "the rule \(ocp\) says 0x[0-9a-f]{2} \(matches ceil\)" "$tmp/out"'

run run --tap --filter 'quantize_canary/nosat'
check "no saturation: fails (exit 1)" '[ "$(rc)" = 1 ] && grep -q "^not ok" "$tmp/out"'
check "naming the block, both scale bytes and the NaN element where 448 was due" \
  'grep -Eq "first: block [0-9]+ \(scale 0x[0-9a-f]{2}, the rule.s 0x[0-9a-f]{2}\): element [0-9]+ \(x = .*\): 0x[7f]f \(-?nan\), want 0x[7f]e \(-?448\)" "$tmp/out"'

run run --tap --filter 'quantize_canary/no_tensor'
check "tensor scale dropped: fails (exit 1)" '[ "$(rc)" = 1 ] && grep -q "^not ok" "$tmp/out"'
check "naming the block, both E4M3 bytes and the rule it follows" \
  'grep -Eq "first: block [0-9]+: scale 0x[0-9a-f]{2}, the rule \(nvfp4\) says 0x[0-9a-f]{2} \(matches nvfp4 without its tensor scale\)" "$tmp/out"'
tap_end
