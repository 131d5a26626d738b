#!/bin/bash
# flash_attn2_test.sh ULPGATE PLUGIN - FlashAttention-2's own forward kernel as a plugin
# (examples/flash_attn2_plugin, built only with -Dflash_attn_src and -Dcutlass_src): the
# installed row is listed with the commits it was built from; where the plugin finds a CUDA device
# the attention case grades it (cases/attention.c: every input kind, d = 64 and 128, causal and not,
# grouped heads; O in bf16 ULPs and lse, each within UG_BOUND_ATTN_FA2_BF16) and it passes, run
# on every point (no point answered unsupported).  TAP on stdout.
ug=$1
lib=$2
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
run --plugin "$lib" list
check "ulpgate loads libflash_attn2.so: flash_attn2_fwd_bf16, a CUDA attention kernel" \
  '[ "$(rc)" = 0 ] && grep -q "flash_attn2_fwd_bf16@default *attention *cuda" "$tmp/out"'
check "its doc line names the flash-attention and CUTLASS sources it was built from" \
  'grep -q "flash_attn2_fwd_bf16.*Dao-AILab/flash-attention [0-9a-f]* *, CUTLASS [0-9a-f]*" "$tmp/out"'
# the case runs the plugin, which asks the CUDA runtime itself (ulpgate may be a CPU build): with no
# device every point answers unsupported, saying so, and the GPU checks are skipped
run run --tap --plugin "$lib" --no-builtin --filter 'attention/*' --report "$tmp/report"
[ -n "${UG_FA2_LOG:-}" ] && cp "$tmp/out" "$UG_FA2_LOG"
if grep -q "flash_attn2_fwd_bf16 d [0-9]*: not run: FlashAttention-2: no CUDA device" "$tmp/out"; then
  # no point graded: the run says nothing was measured (exit 2), and no point failed
  check "no CUDA device: every point says so, none fails, the run says nothing was measured" \
    '[ "$(rc)" = 2 ] && grep -q "nothing was measured" "$tmp/err" && ! grep -q "^not ok" "$tmp/out" &&
     ! grep -q "max error O" "$tmp/out"'
  ok "# SKIP no CUDA device: FlashAttention-2 runs on the GPU"
else
  check "on the GPU: the attention case grades flash_attn2_fwd_bf16 and it passes (exit 0)" \
    '[ "$(rc)" = 0 ] && [ "$(grep -c "flash_attn2_fwd_bf16 d [0-9]*: max error O" "$tmp/out")" -ge 17 ]'
  check "every point ran FlashAttention-2 (none answered unsupported)" \
    '! grep -q "flash_attn2_fwd_bf16 d [0-9]*: not run" "$tmp/out"'
  grep "flash_attn2_fwd_bf16 d [0-9]*:" "$tmp/out" | sed 's/^#* */# /'
fi
tap_end
