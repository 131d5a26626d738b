#!/bin/bash
# install_test.sh SRC BUILD - ulpgate as a user outside its tree meets it (docs/your-own-kernel.md):
#   - `meson install --destdir` of BUILD; the installed, stripped binary holds no path of the
#     source or build tree, and a copy of the prefix elsewhere finds its built-in corpus;
#   - the quick start's commands (the blocks marked <!-- run --> of docs/your-own-kernel.md, by
#     tests/doc_commands.py), with $HOME/.local the installed prefix: the example plugin built
#     against the prefix alone (pkg-config), run with --no-builtin --report, its rows in the
#     report; the broken build fails (exit 1) with the assertion and a rerun line; the gate;
#   - examples/cmake_pkgconfig configured and built by CMake through pkg-config, and run;
#   - two installed plugins declaring one kernel (refused) and one that crashes, each with its
#     message (the loader's other refusals and a plugin's own corpus: tests/plugin_test.sh,
#     which the sanitizer tree of CI runs; this test it leaves out).
# ulpgate as a Meson subproject is tests/install_subproject_test.sh (a test of its own: it
# compiles the library again, and beside this one it runs at the same time).
# TAP on stdout.
src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
ug=true
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"

root="$tmp/root"
meson install -C "$build" --no-rebuild --destdir "$root" >"$tmp/out" 2>"$tmp/err"
check "meson install --destdir succeeds" '[ $? = 0 ]'
pc=$(find "$root" -name ulpgate.pc | head -n 1)
prefix=$(cd "$(dirname "$pc")/../.." 2>/dev/null && pwd -P)
ug="$prefix/bin/ulpgate"
check "the prefix has bin/ulpgate, the header, the libraries, pkg-config files and the data" \
  '[ -x "$prefix/bin/ulpgate" ] && [ -f "$prefix/include/ulpgate/ulpgate.h" ] &&
   [ -f "$prefix/lib/libulpgate.a" ] && [ -f "$prefix/lib/libulpgate.so" ] &&
   [ -f "$prefix/lib/pkgconfig/ulpgate-harness.pc" ] &&
   [ -f "$prefix/share/ulpgate/reports/unit_costs.json" ] &&
   ls "$prefix"/share/ulpgate/cases/corpus/*.txt >/dev/null'
check "ulpgate.pc is relocatable (a fresh setup's default; else: meson configure -Dlibdir=lib -Dpkgconfig.relocatable=true)" \
  'grep -q "^prefix=\${pcfiledir}" "$pc"'
check "the header includes only standard headers" \
  '! grep "^#[[:space:]]*include" "$prefix/include/ulpgate/ulpgate.h" | grep -v "<std\(bool\|def\)\.h>"'
strip -o "$tmp/stripped" "$prefix/bin/ulpgate"
# nvcc -lineinfo writes the source tree's path into the device line tables (nvcc has no prefix
# map for them): a build with it (-Dgpu_lineinfo=true, for compute-sanitizer's line numbers) is
# not an installable one, and says so; every other path is checked in every build.
if strings "$tmp/stripped" | grep -q -e ' -lineinfo '; then
  ok "the stripped binary names no path of the source or build tree # SKIP built with -Dgpu_lineinfo=true: nvcc's device line tables name the source tree (configure -Dgpu_lineinfo=false to install)"
else
  check "the stripped binary names no path of the source or build tree" \
    '! strings "$tmp/stripped" | grep -F -e "$src" -e "$build" >"$tmp/out"'
fi
# Meson names a source by its path from the build directory (absolute, or relative from an
# out-of-tree build: ../../src/cases/x.c), and __FILE__ is that path: every C compile maps the
# prefix it uses away (meson.build), with gcc and clang alike, in-tree or not.
check "every C compile maps the source tree's prefix away (__FILE__ names no build-machine path)" \
  'python3 - "$build/compile_commands.json" "$src" "$build" <<"PYEOF"
import json, os, sys
src, build = sys.argv[2], sys.argv[3]
bad = []
for e in json.load(open(sys.argv[1])):
    f = e["file"]
    full = os.path.realpath(os.path.join(e["directory"], f))
    if not f.endswith(".c") or not full.startswith(src + "/") or full.startswith(build + "/"):
        continue  # a generated file, or not ours
    written = f[:len(f) - len(os.path.relpath(full, src))]  # the prefix as the command names it
    if "-ffile-prefix-map=" + written + "=" not in e["command"]:
        bad.append(f)
assert not bad, bad[:5]
PYEOF'
# nvcc's compiles are custom targets (not in compile_commands.json): each names its .cu input
# from the build directory as build.ninja runs it, and must map that prefix away, host and
# device __FILE__ alike (meson.build's nvcc_prefix_map).
if grep -q 'nvcc.* -c [^ ]*\.cu ' "$build/build.ninja"; then
  check "every nvcc compile maps the source tree's prefix away (__FILE__ names no build-machine path)" \
    'python3 - "$build/build.ninja" "$src" "$build" <<"PYEOF"
import os, re, shlex, sys
src, build = sys.argv[2], sys.argv[3]
bad, seen = [], 0
for line in open(sys.argv[1]):
    m = re.match(r"\s*COMMAND = (.*\bnvcc\b.*)$", line)
    if not m:
        continue
    args = shlex.split(m.group(1))
    for i, a in enumerate(args[:-1]):
        if a != "-c" or not args[i + 1].endswith(".cu"):
            continue
        f = args[i + 1]
        full = os.path.realpath(os.path.join(build, f))
        if not full.startswith(src + "/") or full.startswith(build + "/"):
            continue  # a generated file, or not ours
        seen += 1
        written = f[:len(f) - len(os.path.relpath(full, src))]
        if "-Xcompiler=-ffile-prefix-map=" + written + "=" not in args:
            bad.append(f)
assert seen and not bad, (seen, bad[:5])
PYEOF'
else
  ok "every nvcc compile maps the source tree's prefix away # SKIP no CUDA compile in this build"
fi
mkdir -p "$tmp/oot/src/cases" "$tmp/oot/b/x"
printf '#include <stdio.h>\nint main(void) { puts(__FILE__); return 0; }\n' >"$tmp/oot/src/cases/f.c"
(cd "$tmp/oot/b/x" && ${CC:-cc} -ffile-prefix-map=../../src/= -o f ../../src/cases/f.c && ./f) >"$tmp/out" 2>"$tmp/err"
check "... and the compiler honours it for an out-of-tree path (__FILE__ = cases/f.c)" \
  '[ "$(cat "$tmp/out")" = "cases/f.c" ]'
cp -r "$prefix" "$tmp/copied"
"$tmp/copied/bin/ulpgate" run --tap --filter 'corpus/cancel_1e8_plus_1' --kernel serial_f32 >"$tmp/out" 2>"$tmp/err"
check "a copied prefix finds its built-in corpus" \
  'grep -q "corpus/cancel_1e8_plus_1 serial_f32@default" "$tmp/out"'
env -u ULPGATE_DATA_DIR "$tmp/copied/bin/ulpgate" --data-dir "$tmp/nowhere" run --filter 'corpus/*' >"$tmp/out" 2>"$tmp/err"
check "--data-dir elsewhere: the built-in corpus is not found" '! grep -q "^ok.* corpus/" "$tmp/out"'

# --- the quick start, as written --------------------------------------------------------------
mkdir -p "$tmp/home" "$tmp/work"
ln -s "$prefix" "$tmp/home/.local"
ln -s "$src" "$tmp/work/ulpgate"
python3 "$src/tests/doc_commands.py" "$src/docs/your-own-kernel.md" test >"$tmp/quick.sh"
# A newcomer's environment: the system PATH, then the directories of the build tools this
# machine has elsewhere (a GPU machine with meson under /opt finds it, as its user would); the
# package search path keeps what the system set up (MPFR under a non-standard prefix) but nothing
# of the source, build or install trees, so ulpgate itself is found through ~/.local only.
qs_path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
for t in meson ninja cc c++ pkg-config nvcc; do
  d=$(command -v "$t" 2>/dev/null) && qs_path="$qs_path:$(dirname "$d")"
done
qs_pkg=$(printf '%s' "${PKG_CONFIG_PATH:-}" | tr ':' '\n' |
         grep -v -F -e "$src" -e "$build" -e "$prefix" | paste -sd: -)
(cd "$tmp/work" && env -u ULPGATE_DATA_DIR PKG_CONFIG_PATH="$qs_pkg" HOME="$tmp/home" \
   PATH="$qs_path" bash "$tmp/quick.sh") \
  >"$tmp/out" 2>"$tmp/err"
check "every command of the quick start runs with the status it shows" \
  'grep -q "^doc_commands: done" "$tmp/out"'
mk="$tmp/work/my-kernels"
check "the plugin was built against the prefix alone" \
  'grep -q -- "-I$tmp/[^ ]*include" "$mk/build/compile_commands.json" &&
   ! grep -q -- "-I$src" "$mk/build/compile_commands.json"'
check "the report holds my_sum@default's rows, and only its" \
  'json "$mk/report/results.json" "k = [r.get(\"kernel\") for r in d[\"results\"] if r.get(\"kernel\")]; assert set(k) == {\"my_sum@default\"}, set(k); assert len(k) > 100, len(k)"'
check "the correct kernel passes with no xfail file: 0 failed, no expected failure declared" \
  'grep -q "^[0-9]* passed, 0 failed, [0-9]* skipped$" "$tmp/out" && [ ! -e "$mk/xfail.txt" ]'
check "the broken kernel fails the usual assertion with a rerun line that loads the plugin" \
  'grep -q "^not ok .* - reduce/[a-z0-9_]* my_sum@default n=" "$tmp/out" &&
   grep -q "UG_EXPECT_BOUND_RATIO_MAX(r, 1.0) failed" "$tmp/out" &&
   grep -q "rerun: ulpgate run --filter reduce/.* --kernel my_sum@default .* --plugin build-broken/libmykernels.so --no-builtin --seed" "$tmp/out"'
check "the gate: a baseline in the user's repository, and the run compared with it" \
  'ls "$mk"/reports/baselines/*/index.json >/dev/null && grep -q "rows compared: 0 regressed" "$tmp/out"'
check "results.json records the user's commit as git, ulpgate's as ulpgate_git" \
  'json "$mk/report/results.json" "m = d[\"meta\"]; assert m[\"git\"] == \"unknown\" or m[\"git\"] != m[\"ulpgate_git\"], m; assert m[\"ulpgate_git\"]"'

# On a GPU machine the quick start's plugin (a CPU sum) leaves the GPU cases nothing to measure:
# they are skipped, saying so, rather than drawing their inputs and exact results for no point
# (three such runs above took ~80 s of the default GPU suite before).
ndev=$("$ug" devices 2>/dev/null | head -n 1)
if [ "${ndev:-0}" = 0 ]; then
  ok "a CPU plugin alone: the GPU cases skip, naming the reason # SKIP no CUDA device here"
else
  run run --tap --plugin "$mk/build/libmykernels.so" --no-builtin --filter 'gpu_reduce/*'
  check "a CPU plugin alone on a GPU machine: the GPU cases skip (no CUDA kernel loaded), exit 0" \
    '[ "$(rc)" = 0 ] && grep -q "^1\.\.0 # SKIP no CUDA kernel loaded (--no-builtin, and no plugin kernel runs on CUDA)" "$tmp/out"'
fi

export PATH="$prefix/bin:$PATH"
# the prefix first, then what the system set up (MPFR under /opt on the GPU machine)
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${qs_pkg:+:$qs_pkg}"
ulpgate() { "$prefix/bin/ulpgate" "$@"; }

# --- CMake through pkg-config -----------------------------------------------------------------
if command -v cmake >/dev/null; then
  cmake -S "$src/examples/cmake_pkgconfig" -B "$tmp/cmake" >"$tmp/out" 2>"$tmp/err" &&
    cmake --build "$tmp/cmake" >>"$tmp/out" 2>>"$tmp/err"
  check "examples/cmake_pkgconfig builds with CMake's pkg_check_modules" '[ $? = 0 ] && [ -f "$tmp/cmake/libmydot.so" ]'
  ulpgate run --tap --plugin "$tmp/cmake/libmydot.so" --no-builtin --filter 'dot/*' >"$tmp/out" 2>"$tmp/err"
  check "its dot kernel runs through the dot suite and passes" \
    '[ $? = 0 ] && grep -q "^ok .* dot/normal my_dot@default" "$tmp/out"'
else
  ok "# SKIP cmake not found (CI installs it)"
fi

# --- plugins that must be refused (the loader's refusals: tests/plugin_test.sh), and one that
# --- crashes
cc_plugin() { cc -shared -fPIC -std=c11 -I"$prefix/include" -o "$tmp/$1.so" -x c - 2>>"$tmp/err"; }
cp "$mk/build/libmykernels.so" "$tmp/again.so"
run --plugin "$mk/build/libmykernels.so" --plugin "$tmp/again.so" --no-builtin list
check "two plugins declaring the same kernel: exit 2, naming the kernel and both" \
  '[ "$(rc)" = 2 ] && grep -q "kernel my_sum@default is declared twice .*again.so.*libmykernels.so" "$tmp/err"'
run --plugin "$mk/build/libmykernels.so" list
check "a plugin's kernel beside the built-in ones in ulpgate list" \
  'grep -q "my_sum" "$tmp/out" && grep -q "serial_f32" "$tmp/out"'
printf '#include <ulpgate/ulpgate.h>\nstatic int boom(const ug_kernel *k, ug_call *c) { (void)k; volatile float *p = 0; ug_out_f32(c)[0] = *p; return 0; }\nUG_PLUGIN({.name = "my_crash", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = boom},)\n' | cc_plugin crash
run run --plugin "$tmp/crash.so" --no-builtin --filter 'reduce/normal' --report "$tmp/crash-report"
check "a kernel that crashes: its point fails naming it and the signal, exit 1, a report" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok 1 - reduce/normal" "$tmp/out" &&
   grep -q "kernel my_crash@default crashed (SIGSEGV)" "$tmp/out" && [ -f "$tmp/crash-report/results.json" ]'

tap_end
