#!/bin/bash
# install_subproject_test.sh SRC BUILD - examples/cpu_sum_plugin with ulpgate as a Meson
# subproject (its wrap, docs/your-own-kernel.md): dependency('ulpgate') resolves to it, none of
# ulpgate's tests enter the parent project, and the plugin builds against the subproject's
# header.  Apart from tests/install_test.sh so that the two compile at the same time.  TAP.
src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
ug=true
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
# the system's package path, without the source and build trees (as install_test.sh's qs_pkg)
qs_pkg=$(printf '%s' "${PKG_CONFIG_PATH:-}" | tr ':' '\n' |
         grep -v -F -e "$src" -e "$build" | paste -sd: -)

# --- ulpgate as a Meson subproject ---------------------------------------------------------------
mkdir -p "$tmp/sub/subprojects"
cp "$src/examples/cpu_sum_plugin/meson.build" "$src/examples/cpu_sum_plugin/sum_plugin.c" "$tmp/sub/"
cp "$src/examples/cpu_sum_plugin/ulpgate.wrap" "$tmp/sub/subprojects/"
ln -s "$src" "$tmp/sub/subprojects/ulpgate" # the wrap's folder is there: nothing is downloaded
# (the system's package path alone: the subproject's MPFR is found where the system has it, on
# the GPU machine under /opt; the installed ulpgate.pc is not on it, and --force-fallback-for
# takes the subproject anyway)
env PKG_CONFIG_PATH="$qs_pkg" meson setup "$tmp/sub/b" "$tmp/sub" --force-fallback-for=ulpgate \
  -Dulpgate:cuda=disabled >"$tmp/out" 2>"$tmp/err"
check "as a subproject: dependency('ulpgate') resolves to it" \
  '[ $? = 0 ] && grep -q "Dependency ulpgate .*found: YES.*(overridden)\|ulpgate| Project name: ulpgate" "$tmp/out"'
check "as a subproject: none of ulpgate's tests enter the parent project" \
  '[ "$(meson introspect --tests "$tmp/sub/b")" = "[]" ]'
ninja -C "$tmp/sub/b" libmykernels.so >"$tmp/out" 2>"$tmp/err"
check "as a subproject: the plugin builds against the subproject's header" '[ $? = 0 ]'
tap_end
