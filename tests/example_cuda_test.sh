#!/bin/bash
# example_cuda_test.sh SRC BUILD - examples/cuda_gemm_plugin, a CUDA kernel as a plugin: built by
# nvcc (Meson's CUDA language) against a `meson install --destdir` of BUILD alone, loaded by the
# installed ulpgate; on a machine with a CUDA device, run through every suite with --no-builtin
# (the GPU GEMM cases measure it; it must pass), else that part is skipped.  TAP on stdout.
src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
ug=true
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
meson install -C "$build" --no-rebuild --destdir "$tmp/root" >"$tmp/out" 2>"$tmp/err"
pc=$(find "$tmp/root" -name ulpgate.pc | head -n 1)
prefix=$(cd "$(dirname "$pc")/../.." && pwd -P)
ug="$prefix/bin/ulpgate"
env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" meson setup "$tmp/b" "$src/examples/cuda_gemm_plugin" \
  >"$tmp/out" 2>"$tmp/err" && ninja -C "$tmp/b" >>"$tmp/out" 2>>"$tmp/err"
check "examples/cuda_gemm_plugin builds with nvcc against the installed prefix" \
  '[ $? = 0 ] && [ -f "$tmp/b/libgemmkernels.so" ] && ! grep -q -- "-I$src" "$tmp/b/compile_commands.json"'
run --plugin "$tmp/b/libgemmkernels.so" list
check "the installed ulpgate loads it: my_gemm, a CUDA GEMM kernel" \
  '[ "$(rc)" = 0 ] && grep -q "my_gemm@default *gemm *cuda .*tree" "$tmp/out"'
ndev=$("$ug" devices 2>/dev/null | head -n 1)
if [ "${ndev:-0}" = 0 ]; then
  ok "# SKIP no CUDA device: the plugin's run needs a GPU"
else
  run run --tap --plugin "$tmp/b/libgemmkernels.so" --no-builtin --report "$tmp/report"
  check "on the GPU: the suites measure my_gemm@default and it passes (exit 0)" \
    '[ "$(rc)" = 0 ] && grep "^ok .* my_gemm@default" "$tmp/out" | grep -qv "# SKIP"'
fi
tap_end
