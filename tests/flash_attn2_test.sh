#!/bin/bash
# flash_attn2_test.sh ULPGATE PLUGIN - FlashAttention-2's own forward kernel as a plugin
# (examples/flash_attn2_plugin, built only with -Dflash_attn_src and -Dcutlass_src): the
# installed row is listed with the commits it was built from; where a CUDA device is the attention
# case measures it (cases/attention.c: every input kind, d = 64 and 128, causal and not, grouped
# heads; O in bf16 ULPs and lse, each within UG_BOUND_ATTN_FA2_MMA) and it passes, run on every
# point (no point answered unsupported).  TAP on stdout.
ug=$1
lib=$2
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
run --plugin "$lib" list
check "ulpgate loads libflash_attn2.so: flash_attn2_fwd_bf16, a CUDA attention kernel" \
  '[ "$(rc)" = 0 ] && grep -q "flash_attn2_fwd_bf16@default *attention *cuda" "$tmp/out"'
# a commit each, or "unrecorded" for a source that is no git checkout (a release tarball, a
# vendored copy: examples/flash_attn2_plugin/meson.build)
check "its doc line names the flash-attention and CUTLASS sources it was built from" \
  'grep -Eq "flash_attn2_fwd_bf16.*Dao-AILab/flash-attention ([0-9a-f]+|unrecorded) *, CUTLASS ([0-9a-f]+|unrecorded)" "$tmp/out"'
# the attention case measures the plugin like every kernel (cases/attention.c, the run loop): one
# TAP point a shape and input kind; without a device each is a skip that says so
run run --tap --plugin "$lib" --no-builtin --filter 'attention/*' --report "$tmp/report"
[ -n "${UG_FA2_LOG:-}" ] && cp "$tmp/out" "$UG_FA2_LOG"
pt='^ok [0-9]* - attention/[A-Za-z0-9_]* flash_attn2_fwd_bf16@default n=[0-9x_bhkv]*'
if grep -q "$pt.* # SKIP no CUDA device" "$tmp/out"; then
  check "no CUDA device: every point a skip that says so, none fails, none measured" \
    '! grep -q "^not ok" "$tmp/out" && ! grep -q "$pt\$" "$tmp/out"'
  ok "# SKIP no CUDA device: FlashAttention-2 runs on the GPU"
else
  check "on the GPU: the attention case grades flash_attn2_fwd_bf16 on >= 17 points and it passes (exit 0)" \
    '[ "$(rc)" = 0 ] && [ "$(grep -c "$pt\$" "$tmp/out")" -ge 17 ] && ! grep -q "^not ok" "$tmp/out"'
  check "every point ran FlashAttention-2 (none skipped: none answered unsupported)" \
    '! grep -q "$pt.* # SKIP" "$tmp/out"'
  grep -A1 "$pt\$" "$tmp/out" | grep "figures:" | sed 's/^#* */# /'
fi
tap_end
