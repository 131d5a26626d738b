#!/bin/bash
# plugin_test.sh ULPGATE SRC BUILD - what a plugin can do to a run, and what must come of it
# (docs/your-own-kernel.md, docs/troubleshooting.md).  The plugins are tests/plugins/*.c, built
# here with cc against the source tree's public header.  TAP on stdout.
#   - the floating-point environment: a plugin built with -ffast-math (FTZ/DAZ set at load by
#     crtfastmath.o) and one whose kernel leaves the rounding mode upward change no other
#     kernel's figures and no exact value (bit for bit against a run without them, every row
#     of `run --detail` on the corpus), and their own points fail, saying why;
#   - a library without an entry point, one built for another API version (99, 1, 2), a file
#     that is not there: exit 2 naming the file (and both versions); a plugin's own corpus
#     (UG_PLUGIN_CORPUS) runs on its kernel;
#   - forged tables (the entry point is data, a NULL table, a count that lies, a kernel_size
#     that differs, an unknown operation, format, backend or bound class, .run in data, NULL
#     from the entry point) are refused with exit 2, naming the plugin and the row, no crash;
#   - a kernel name holding a newline or ESC is refused at load (it would reach the TAP stream);
#   - a plugin file named like a built-in family (the last one of BUILD's kernels/ug_families.h)
#     is its own family: no crash, its kernel listed once, the built-in family whole.
ug="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
src="$2"
build="$3"
. "$(dirname "$0")/tap.sh"
cc_plugin() { # cc_plugin OUT SRC FLAGS...
  local out=$1 file=$2
  shift 2
  cc -shared -fPIC -std=c11 -I"$src/include" "$@" -o "$out" "$src/tests/plugins/$file" 2>>"$tmp/cc.err"
}
echo "TAP version 13"

# --- libraries the loader refuses (kernels/plugin.c), each naming the file -----------------------
cc_src() { cc -shared -fPIC -std=c11 -I"$src/include" -o "$tmp/$1.so" -x c - 2>>"$tmp/cc.err"; }
printf 'int nothing(void) { return 0; }\n' | cc_src noentry
run --plugin "$tmp/noentry.so" list
check "a library without an entry point: exit 2, naming the file and UG_PLUGIN" \
  '[ "$(rc)" = 2 ] && grep -q "noentry.so: no entry point ulpgate_plugin_entry .*UG_PLUGIN" "$tmp/err"'
printf '#undef ULPGATE_API_VERSION\n#include <ulpgate/ulpgate.h>\n#undef ULPGATE_API_VERSION\n#define ULPGATE_API_VERSION 99\nstatic int f(const ug_kernel *k, ug_call *c) { (void)k; (void)c; return 0; }\nUG_PLUGIN({.name = "v99", .run = f},)\n' | cc_src v99
run --plugin "$tmp/v99.so" list
check "another API version: exit 2, naming the file and both versions" \
  '[ "$(rc)" = 2 ] && grep -q "v99.so: built for ulpgate API version 99, this ulpgate has API version 3" "$tmp/err"'
# a plugin of the version before (its ug_call had n, gemm_n, gemm_k and one output): the entry
# point reports 1, and the loader refuses it before reading a row
printf '#undef ULPGATE_API_VERSION\n#include <ulpgate/ulpgate.h>\n#undef ULPGATE_API_VERSION\n#define ULPGATE_API_VERSION 1\nstatic int f(const ug_kernel *k, ug_call *c) { (void)k; (void)c; return 0; }\nUG_PLUGIN({.name = "v1", .run = f},)\n' | cc_src v1
run --plugin "$tmp/v1.so" list
check "a plugin built against API version 1 (one shape, one output): exit 2, naming both" \
  '[ "$(rc)" = 2 ] && grep -q "v1.so: built for ulpgate API version 1, this ulpgate has API version 3: rebuild" "$tmp/err"'
# API 2: ug_kernel before .batch_invariant (the row's layout changed): refused the same way
printf '#undef ULPGATE_API_VERSION\n#include <ulpgate/ulpgate.h>\n#undef ULPGATE_API_VERSION\n#define ULPGATE_API_VERSION 2\nstatic int f(const ug_kernel *k, ug_call *c) { (void)k; (void)c; return 0; }\nUG_PLUGIN({.name = "v2", .run = f},)\n' | cc_src v2
run --plugin "$tmp/v2.so" list
check "a plugin built against API version 2 (ug_kernel without .batch_invariant): exit 2, naming both" \
  '[ "$(rc)" = 2 ] && grep -q "v2.so: built for ulpgate API version 2, this ulpgate has API version 3: rebuild" "$tmp/err"'
run --plugin "$tmp/missing.so" list
check "a file that is not there: exit 2, naming it" '[ "$(rc)" = 2 ] && grep -q "missing.so: no such file" "$tmp/err"'

mkdir -p "$tmp/own/corpus"
printf '#define UG_PLUGIN_CORPUS "corpus"\n#include <ulpgate/ulpgate.h>\nstatic int f(const ug_kernel *k, ug_call *c) { (void)k; const float *x = ug_in_f32(c, 0); float s = x[0]; for (size_t i = 1; i < ug_dim(c, 0); i++) s += x[i]; ug_out_f32(c)[0] = s; return 0; }\nUG_PLUGIN({.name = "my_serial", .op = UG_OP_SUM, .bound = UG_BOUND_TREE, .run = f},)\n' | cc_src own/libown
printf '# op: sum\n# why: three terms whose partial sums are exact\n# source: hand-made\n# kernels: my_serial\n# check: ulp_max 0 every partial sum is exact\n1\n2\n4\n' >"$tmp/own/corpus/exact_small.txt"
run run --tap --plugin "$tmp/own/libown.so" --no-builtin --filter 'corpus/exact_small'
check "a plugin's own cases (UG_PLUGIN_CORPUS: corpus files beside the library) run on its kernel" \
  '[ "$(rc)" = 0 ] && grep -q "^ok 1 - corpus/exact_small my_serial@default n=3$" "$tmp/out"'

# --- the floating-point environment ----------------------------------------------------------
cc_plugin "$tmp/fastmath.so" fastmath.c -O2 -ffast-math
cc_plugin "$tmp/upward.so" upward.c -O2
run run --detail --filter 'corpus/*' --report "$tmp/plain"
plain_rc=$(rc)
run run --detail --filter 'corpus/*' --plugin "$tmp/fastmath.so" --plugin "$tmp/upward.so" --report "$tmp/fenv"
check "fenv: the run with both plugins fails (exit 1), the plain run passes" '[ "$(rc)" = 1 ] && [ "$plain_rc" = 0 ]'
check "fenv: the -ffast-math plugin is named at load: FTZ and DAZ set, restored" \
  'grep -q "fastmath.so: the plugin changed the floating-point environment when it was loaded (MXCSR 0x9fc0: FTZ (flush to zero) set, DAZ (denormals are zero) set (was 0x1f80)" "$tmp/err"'
check "fenv: every point of fm_sum fails, saying its plugin changed the environment" \
  'grep -q "^not ok .* fm_sum@default" "$tmp/out" && ! grep -q "^ok .* fm_sum@default" "$tmp/out" && grep -q "fm_sum@default failed: kernel failed: the plugin changed the floating-point environment" "$tmp/out"'
check "fenv: every point of up_sum fails: it left the rounding mode upward" \
  'grep -q "^not ok .* up_sum@default" "$tmp/out" && ! grep -q "^ok .* up_sum@default" "$tmp/out" && grep -q "up_sum@default left the floating-point environment changed: rounding mode upward (was to nearest); ulpgate restored it" "$tmp/out"'
# every row of the other kernels, every field but the timings, the same bit for bit (the
# figures are %.17g, the exact values hex)
cat >"$tmp/same.py" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
from same_rows import results_rows
def rows(path):
    d = json.load(open(path))
    out = {}
    for r in results_rows(d):
        if r.get("kernel", "").split("@")[0] in ("fm_sum", "up_sum"):
            continue
        if r.get("backend") == "cuda":  # a GPU's rows: some kernels are nondeterministic
            continue                      # (reduce_atomic); the environment is the host's
        out[r["id"]] = {k: v for k, v in r.items() if k not in ("time_ms", "gbps", "gflops")}
    return out
a, b = rows(sys.argv[1]), rows(sys.argv[2])
diff = [i for i in a if a[i] != b.get(i)] + [i for i in b if i not in a]
measured = sum(1 for r in a.values() if r.get("measured"))
print("%d rows, %d measured, %d differ%s" % (len(a), measured, len(diff), (": " + diff[0]) if diff else ""))
sys.exit(1 if diff or measured < 100 else 0)
PY
same=$(python3 "$tmp/same.py" "$tmp/plain/results.json" "$tmp/fenv/results.json" "$src/scripts" 2>&1)
check "fenv: every other kernel's figures and exact values bit-identical to the plain run ($same)" '[ $? = 0 ]'
run run --filter 'corpus/special_subnormal_inputs' --plugin "$tmp/upward.so" --plugin "$tmp/fastmath.so" --kernel 'serial_f32*'
check "fenv: loaded in the other order, the built-in serial sums of subnormals still pass" \
  'grep -q "^[0-9]* passed, 0 failed" "$tmp/out"'

# --- forged tables ----------------------------------------------------------------------------
forged() { # forged N WANT NAME: the plugin forged.c -DFORGE=N is refused, exit 2, saying WANT
  local forge=$1 want=$2
  cc_plugin "$tmp/forged$forge.so" forged.c -DFORGE=$forge
  run --plugin "$tmp/forged$forge.so" list
  check "forged table: $3: exit 2, '$want'" \
    '[ "$(rc)" = 2 ] && grep -q -- "--plugin .*forged$forge.so: $want" "$tmp/err" && ! grep -q "^kernels" "$tmp/out"'
}
forged 1 "its entry point ulpgate_plugin_entry is not a function" "the entry point is data"
forged 2 "declares 1 kernels and a NULL table" "a NULL table"
forged 3 "declares 3000 kernels, but at most [0-9]* rows fit in the memory its table lies in" "a count that lies"
forged 4 "its ug_kernel is [0-9]* bytes, this ulpgate's [0-9]*" "kernel_size mismatch"
forged 6 "kernel row 0 (forged_sum): .op 4242 is no operation" "an unknown operation"
forged 7 "kernel row 0 (forged_sum): .out_fmt 99 is no format" "an unknown format"
forged 8 "kernel row 0 (forged_sum): .backend 7 is neither UG_CPU nor UG_CUDA" "an unknown backend"
forged 9 "kernel row 0 (forged_sum): .bound 999 is no bound class" "an unknown bound class"
forged 10 "kernel row 0 (forged_sum): .run is not code" ".run in data"
forged 11 "its entry point returned NULL" "NULL from the entry point"
forged 12 "kernel row 0 (forged_sum): .in_store\\[2\\] 99 is no format" "an unknown format of input 2"
# not forged: an attention row of the last bound class loads (the check once stopped at the
# row operations' classes and refused every attention plugin)
cc_plugin "$tmp/forged13.so" forged.c -DFORGE=13
run --plugin "$tmp/forged13.so" list
check "an attention row declaring UG_BOUND_ATTN_SPLIT_COUNT loads (exit 0, listed)" \
  '[ "$(rc)" = 0 ] && grep -q "attention_row@default *attention *cpu .*attn_split_count" "$tmp/out"'
# --- a name with a newline and ESC --------------------------------------------------------------
forged 5 "kernel row 0 has byte 0x0a at column 5 of its name" "a kernel name with a newline and ESC"
check "a name with a newline: nothing of it reaches stdout or stderr raw (no ESC byte)" \
  '! grep -q "$(printf "\033")" "$tmp/out" "$tmp/err" && ! grep -q "^# TODO" "$tmp/out" "$tmp/err"'

# --- a plugin file named like a built-in family -------------------------------------------------
# A plugin's family is named after its path: named as the last built-in family (the registry
# merged families of one name that sit side by side as build variants of one table, and read
# the plugin's one row as far as that family's count)
last=$(sed -n 's/^#define UG_FAMILIES(X) .*X(\([a-z_0-9]*\), *[a-z_0-9]*) *$/\1/p' "$build/kernels/ug_families.h")
mkdir -p "$tmp/named"
cc_plugin "$tmp/named/$last" upward.c
(cd "$tmp/named" && "$ug" --plugin "$last" list) >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
"$ug" list >"$tmp/builtin" 2>/dev/null
check "a plugin file named '$last' (the last built-in family): up_sum listed once beside every built-in kernel, exit 0" \
  '[ -n "$last" ] && [ "$(rc)" = 0 ] && [ "$(grep -c "^  up_sum@default " "$tmp/out")" = 1 ] && [ "$(grep -c "@" "$tmp/out")" = $(( $(grep -c "@" "$tmp/builtin") + 1 )) ]'
(cd "$tmp/named" && "$ug" run --plugin "$last" --filter 'corpus/special_subnormal_inputs' --kernel 'serial_f32@*') >"$tmp/out" 2>"$tmp/err"
check "a plugin file named '$last': the built-in kernels run as before" \
  '[ $? = 0 ] && grep -q "^[1-9][0-9]* passed, 0 failed" "$tmp/out"'
mkfifo "$tmp/fifo.so"  # no writer: dlopen's open would wait for ever
timeout 30 "$ug" list --plugin "$tmp/fifo.so" >"$tmp/out" 2>"$tmp/err"; fifo_rc=$?
check "a FIFO given as --plugin: exit 2 at once, naming it" \
  '[ "$fifo_rc" = 2 ] && grep -q "fifo.so: a FIFO, not a shared object" "$tmp/err"'
tap_end
