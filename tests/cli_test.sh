#!/bin/sh
# cli_test.sh ULPGATE SRCDIR - the command line as a user meets it: exit codes and messages, the
# seed and the rerun line, selections that select nothing, the report file and what it says,
# the oracle subcommand.  TAP on stdout.  Every check asserts an exit status and a message.
ug="$1"
src="$2"
selftest="$3"
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"

# ---- usage errors -----------------------------------------------------------------------------
run list
check "list exits 0, names the canary and every kernel with its variant" \
  '[ "$(rc)" = 0 ] && grep -q "canary/fails" "$tmp/out" && grep -q "serial_f32@default" "$tmp/out"'
check "list shows each kernel's formats (inputs>accumulator>output)" \
  'grep -q "serial_f64acc@default *sum *cpu *f32>f64>f32 " "$tmp/out" && grep -q "gemm_tf32_cpu@default.*f32>f32>f32 op tf32" "$tmp/out"'
run run --format f8
check "--format naming no format: exit 2, the formats listed" \
  '[ "$(rc)" = 2 ] && grep -q -- "--format: .f8. is not a format (f32 f64" "$tmp/err"'
run run --filter 'reduce/normal' --format f64 --n 1000
check "--format f64 selects the kernels with a binary64 format (the binary64 accumulator)" \
  '[ "$(rc)" = 0 ] && grep -q "serial_f64acc@default" "$tmp/out" && ! grep -q "serial_f32@default" "$tmp/out"'
run run --filter 'reduce/normal' --format e4m3
check "--format that selects no measured kernel: exit 2, said so" \
  '[ "$(rc)" = 2 ] && grep -q -- "--format e4m3: no selected case runs a kernel with that format" "$tmp/err"'
run
check "no command: exit 2 with usage" '[ "$(rc)" = 2 ] && grep -q usage "$tmp/err"'
run run --no-such-flag
check "unknown flag: exit 2, named on stderr" '[ "$(rc)" = 2 ] && grep -q "unknown option .--no-such-flag." "$tmp/err"'
run run --n abc
check "bad --n: exit 2, named on stderr" '[ "$(rc)" = 2 ] && grep -q -- "--n: .abc." "$tmp/err"'
run run --seed
check "missing value: exit 2" '[ "$(rc)" = 2 ] && grep -q -- "--seed needs a value" "$tmp/err"'
run run --filter 'reduce/normall'
check "filter matching nothing: exit 2, nearest case named" \
  '[ "$(rc)" = 2 ] && grep -q "no case matches" "$tmp/err" && grep -q "nearest: reduce/normal" "$tmp/err"'
run run --filter 'reduce/normal' --kernel serial_f3
check "--kernel matching no kernel: exit 2, nearest kernel named" \
  '[ "$(rc)" = 2 ] && grep -q "matches no kernel; nearest: serial_f32@default" "$tmp/err"'
run run --filter 'reduce/normal' --kernel dot_serial_f32
check "--filter and --kernel that select no measurement together: exit 2, what each matched" \
  '[ "$(rc)" = 2 ] && grep -q -- "--filter .reduce/normal. selects 1 case (reduce/normal) and --kernel .dot_serial_f32. matches [0-9]* kernels* (dot_serial_f32@default[^)]*), but no selected case runs a matched kernel" "$tmp/err"'
run run --filter 'reduce/norm*' --kernel 'dot_*'
check "... with globs: the counts and the first names" \
  '[ "$(rc)" = 2 ] && grep -q -- "--filter .reduce/norm\*. selects [0-9]* cases* (reduce/normal[^)]*) and --kernel .dot_\*. matches [0-9]* kernels (dot_" "$tmp/err"'
run run --filter 'reduce/normal' --kernel serial_f32 --n 999
check "--n that no selected case measures: exit 2, its sizes listed" \
  '[ "$(rc)" = 2 ] && grep -q -- "--n 999: no selected case measures that size; its sizes: .*1000" "$tmp/err"'
run run --filter 'reduce/constant' --kernel serial_f32 --trial 3
check "--trial beyond the case's trials: exit 2" '[ "$(rc)" = 2 ] && grep -q -- "--trial 3: beyond" "$tmp/err"'

# ---- what a plain run selects ------------------------------------------------------------------
run run --tap --kernel serial_f32 --n 10000 --trial 0
check "a plain run (no --filter) leaves the canary out and passes" \
  '[ "$(rc)" = 0 ] && ! grep -q -- "- canary/" "$tmp/out" && grep -q "^ok .* reduce/normal serial_f32@default n=10000" "$tmp/out"'

# ---- the seed: it changes seed-dependent inputs, and the rerun line replays it -----------------
seed=0xdeadbeefcafebabf
run run --filter 'reduce/normal' --kernel serial_f32 --n 1000 --trial 2 --report "$tmp/a" --detail --tap
check "report run passes" '[ "$(rc)" = 0 ]'
run run --filter 'reduce/normal' --kernel serial_f32 --n 1000 --trial 2 --seed $seed --report "$tmp/b" --detail --tap
check "a run with --seed $seed passes and prints the seed" '[ "$(rc)" = 0 ] && grep -q "seed $seed" "$tmp/out"'
check "another seed gives other inputs (another result for the same case, kernel, n, trial)" \
  'json "$tmp/b/results.json" "
a=results_rows(json.load(open(\"$tmp/a/results.json\")))[0]; b=d[\"results\"][0]
assert a[\"id\"]==b[\"id\"] and a[\"worst_ulp\"][\"got\"]!=b[\"worst_ulp\"][\"got\"], (a[\"worst_ulp\"], b[\"worst_ulp\"])"'
check "the seed round-trips through results.json as a hex string, every bit" \
  'json "$tmp/b/results.json" "assert d[\"meta\"][\"seed\"]==\"$seed\" and all(r[\"seed\"]==\"$seed\" for r in d[\"results\"])"'
# a failure under that seed: its rerun line carries the seed and reproduces the failure
run run --filter 'canary/fails' --seed $seed
rerun=$(sed -n 's/^#   rerun: //p' "$tmp/out")
worst=$(grep "^#   worst:" "$tmp/out")
check "the canary under --seed $seed: exit 1, rerun line with the seed" \
  '[ "$(rc)" = 1 ] && echo "$rerun" | grep -q -- "--seed $seed\$"'
$rerun >"$tmp/out2" 2>&1
rc2=$?
check "that rerun line reproduces the failure (exit 1, same worst element)" \
  '[ "$rc2" = 1 ] && grep -qF "$worst" "$tmp/out2"'

# ---- the report says what the TAP stream says --------------------------------------------------
run run --filter 'reduce/uniform01' --kernel 'serial_f32*' --report "$tmp/rep" --detail --tap
check "report run passes" '[ "$(rc)" = 0 ]'
check "results.json: valid JSON with the documented fields" 'json "$tmp/rep/results.json" "
m=d[\"meta\"]; assert all(k in m for k in (\"version\",\"git\",\"date\",\"host\",\"compiler\",\"cflags\",\"seed\",\"oracle\"))
r=[x for x in d[\"results\"] if x[\"measured\"]]; assert r
for k in (\"id\",\"case\",\"kernel\",\"variant\",\"dist\",\"n\",\"trials\",\"ulp_max\",\"ulp_mean\",\"rel_max\",\"rel_mean\",\"abs_err_sum\",\"bound_ratio_max\",\"apriori_ratio_max\",\"status\",\"passed\",\"ulp_hist\"):
    assert all(k in x for x in r), k
assert len({x[\"id\"] for x in d[\"results\"]}) == len(d[\"results\"])
assert d[\"summary\"][\"passed\"] == len([x for x in d[\"results\"] if x[\"status\"]==\"pass\"])"'
check "results.json figures equal the TAP figures lines, row by row" 'json "$tmp/rep/results.json" "
import re
tap=open(\"$tmp/out\").read().split(\"\\n\")
rows=[x for x in d[\"results\"] if x[\"measured\"]]
figs=[l for l in tap if l.startswith(\"#   figures:\")]
assert len(figs)==len(rows), (len(figs), len(rows))
for x,l in zip(rows, figs):
    v=dict(re.findall(r\"(\\w+) ([-+0-9.e]+|inf|nan)\", l))
    for k in (\"ulp_max\",\"ulp_mean\",\"bound_ratio_max\"):
        assert abs(float(v[k]) - float(x[k])) <= 1e-5*abs(float(x[k])) + 1e-300, (k, v[k], x[k])"'
check "the row ids name case, kernel@variant, distribution and n" \
  'json "$tmp/rep/results.json" "assert any(x[\"id\"]==\"reduce/uniform01 serial_f32@default uniform(0,1) 1000\" for x in d[\"results\"])"'
check "no temporary file left beside the report (results.json, summary.md, index.html, junit.xml)" \
  '[ "$(ls "$tmp/rep" | tr "\n" " ")" = "index.html junit.xml results.json summary.md " ]'
run run --filter 'reduce/specials' --kernel kahan_f32 --n 1000 --report "$tmp/sp" --tap
check "non-finite figures are written as strings JSON readers keep" \
  'json "$tmp/sp/results.json" "r=[x for x in d[\"results\"] if x[\"measured\"]][0]; assert r[\"ulp_max\"]==0 or isinstance(r[\"ulp_max\"], (int,float)); assert \"1e999\" not in open(sys.argv[1]).read()"'

# ---- figures do not depend on the thread count (outputs are accounted in fixed chunks) --------
"$ug" run --filter 'gemm/normal' --threads 1 --report "$tmp/t1" --tap >"$tmp/out" 2>"$tmp/err"
"$ug" run --filter 'gemm/normal' --threads 3 --report "$tmp/t3" --tap >"$tmp/out" 2>"$tmp/err"
check "--threads 1 and --threads 3 give the same figures, bit for bit" 'python3 -c "
import json, sys
sys.path.insert(0, \"$ug_scripts\")
from same_rows import results_rows
a={r[\"id\"]:r for r in results_rows(json.load(open(\"$tmp/t1/results.json\")))}
b={r[\"id\"]:r for r in results_rows(json.load(open(\"$tmp/t3/results.json\")))}
skip={\"time_ms\",\"gbps\",\"gflops\"}
assert a.keys()==b.keys() and all(a[i][k]==b[i][k] for i in a for k in a[i] if k not in skip)"'

# ---- a stale expected-failure declaration fails the run (an unexpected pass) ---------------------
"$selftest" run --filter 'harness_xpass/*' >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "a point declared to fail that passes: an ok line with a TODO directive, exit 1, the stale declaration named" \
  '[ "$(rc)" = 1 ] && grep -q "^ok 1 - harness_xpass/stale_declaration serial_f32@default n=2 # TODO" "$tmp/out" && grep -q "the declaration is stale" "$tmp/out" && grep -q "1 passed unexpectedly" "$tmp/out"'

"$selftest" run --tap --filter 'harness_dup/*' >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"
check "two test points with one id: the second fails naming the id, exit 1" \
  '[ "$(rc)" = 1 ] && grep -q "^ok 1 - harness_dup/same_point_twice the same name" "$tmp/out" && grep -q "^not ok 2 - harness_dup/same_point_twice the same name" "$tmp/out" && grep -q "duplicate test point: an earlier point of this run has the id" "$tmp/out"'

run run --filter 'gpu_reduce/*' --n 1 --tap
check "GPU cases: run, or a clean TAP skip without a device" \
  '[ "$(rc)" = 0 ] && { grep -q "^1..0 # SKIP" "$tmp/out" || grep -q "^ok" "$tmp/out"; }'

# ---- the GPU oracle: selection and cross-checks (its host model stands in without a GPU) ------
run run --oracle gpu-ish
check "--oracle: an unknown oracle -> exit 2 naming the choices" \
  '[ "$(rc)" = 2 ] && grep -q "not gpu, fast or mpfr" "$tmp/err"'
run run --oracle gpu --filter 'dot/normal' --tap
check "--oracle gpu: passes on a GPU, else exit 2 saying why" \
  '[ "$(rc)" = 0 ] || { [ "$(rc)" = 2 ] && grep -q "oracle gpu: .*\(no CUDA device\|built without CUDA\)" "$tmp/err"; }'
export UG_GPU_ORACLE=model
run run --oracle gpu --filter 'dot/normal' --report "$tmp/g" --tap
check "--oracle gpu (host model): passes, a sample cross-checked against the fast oracle, none differs" \
  '[ "$(rc)" = 0 ] && grep -q "^# gpu oracle (model): [0-9]* results, [1-9][0-9]* cross-checked against the fast oracle, 0 differ" "$tmp/out"'
check "the report's meta says which oracle and what the GPU oracle did" \
  'json "$tmp/g/results.json" "m=d[\"meta\"]; g=m[\"oracle_gpu\"]
assert m[\"oracle\"]==\"gpu\" and g[\"impl\"]==\"model\" and g[\"checked\"]>0 and g[\"differ\"]==0, m"'
run run --oracle gpu --oracle-check all --filter 'gemm/normal' --tap
check "--oracle-check all: every result of the GPU oracle redone by the fast one" \
  '[ "$(rc)" = 0 ] && grep -q "^# gpu oracle (model): \([0-9]*\) results, \1 cross-checked against the fast oracle, 0 differ" "$tmp/out"'
run run --oracle-check most
check "--oracle-check: anything but all or sample -> exit 2" '[ "$(rc)" = 2 ] && grep -q "not all or sample" "$tmp/err"'
run bench oracle --gpu
check "bench oracle --gpu without a device to time: exit 2 saying so" \
  '[ "$(rc)" = 2 ] && grep -q "no GPU oracle to time" "$tmp/err"'
# bench check and bench rows at small sizes (docs/check.md shows them at 10^8 terms; the docs
# test runs that): their code, its temporary .npy files and the fast/MPFR comparison, in every
# tree this test runs in (the sanitizer tree of CI leaves the docs test out)
mkdir -p "$tmp/bc"
run bench check --n 100000 --reps 1 --op dot --dir "$tmp/bc"
check "bench check --op dot: both sides timed on the same data, the ratio printed" \
  '[ "$(rc)" = 0 ] && grep -q "^  oracle (fast, values in memory) " "$tmp/out" && grep -q "^  check / oracle " "$tmp/out"'
run bench check --n 0
check "bench check --n 0: exit 2 naming the option and its range" '[ "$(rc)" = 2 ] && grep -q "^ulpgate bench check: 0: --n: a count of terms from 1 to 2^34" "$tmp/err"'
run bench check --n 4611686018427387905
check "... as --n 2^62 + 1, whose bytes would wrap a size_t (it overflowed the buffer)" '[ "$(rc)" = 2 ] && grep -q "from 1 to 2^34" "$tmp/err"'
run bench rows --rows 4 --n 300 --mpfr-rows 2 --threads 2
check "bench rows: the fast softmax and log-sum-exp references equal MPFR's on every row timed" \
  '[ "$(rc)" = 0 ] && [ "$(grep -cE "^  (softmax|logsumexp) .* yes$" "$tmp/out")" = 2 ]'
export UG_GPU_ORACLE=model-faulty
run run --oracle gpu --filter 'dot/normal'
check "a GPU oracle one ulp off: the cross-check fails the case, naming the element, with a rerun line" \
  '[ "$(rc)" = 1 ] && grep -q "GPU oracle cross-check failed: dot normal(0,1) n=1 trial [0-9]* element 0" "$tmp/out" && grep -q "rerun: .* --oracle gpu" "$tmp/out"'
run run --oracle gpu --filter 'gemm/*'
check "... and in a GEMM, naming its row and column" \
  '[ "$(rc)" = 1 ] && grep -q "GPU oracle cross-check failed: gemm .* (row [0-9]*, column [0-9]*)" "$tmp/out"'
unset UG_GPU_ORACLE

# ---- the oracle subcommand ----------------------------------------------------------------------
printf '# 1e8 + 1 - 1e8\n1e8\n1\n-1e8\n' >"$tmp/s.txt"
run oracle --op sum "$tmp/s.txt"
check "oracle: 1e8 + 1 - 1e8 = 1 exactly" '[ "$(rc)" = 0 ] && grep -q "0x1p+0" "$tmp/out"'
run oracle --op sum --json --got 0x1.000002p+0 "$tmp/s.txt"
check "oracle --json --got: one line, 1 + 2^-23 is 1 ulp from 1" '[ "$(rc)" = 0 ] && [ "$(wc -l <"$tmp/out")" = 1 ] && python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); assert d[\"op\"]==\"sum\" and d[\"n\"]==3 and d[\"ulp_error\"]==1, d" "$tmp/out"'
printf '1.0\n2.0 junk\n' >"$tmp/bad.txt"
run oracle --op sum "$tmp/bad.txt"
check "oracle: malformed line -> exit 2 with FILE:LINE" '[ "$(rc)" = 2 ] && grep -q "bad.txt:2:" "$tmp/err"'
run oracle --op sum "$tmp/missing.txt"
check "oracle: missing file -> exit 2 naming it" '[ "$(rc)" = 2 ] && grep -q "missing.txt" "$tmp/err"'
: >"$tmp/empty.txt"
run oracle --op sum --json "$tmp/empty.txt"
check "oracle: empty file is the empty sum +0" '[ "$(rc)" = 0 ] && grep -q "\"rounded\":\"0x0p+0\"" "$tmp/out"'
run oracle --op dot --bogus "$tmp/s.txt"
check "oracle: unknown option -> exit 2 naming it" '[ "$(rc)" = 2 ] && grep -q -- "--bogus" "$tmp/err"'

# probe tensor-core (docs/tensor-core-probe.md): the model recovers its own row; a differing
# published row is exit 1 naming the figure; bad options and tables exit 2 naming them
run probe tensor-core --model H100 --format e4m3
check "probe --model H100 e4m3: every figure agrees, exit 0" \
    '[ "$(rc)" = 0 ] && grep -q "8 agree with the published model" "$tmp/out" && grep -q "^  block (products fused) *32 *32 *=" "$tmp/out"'
run probe tensor-core --model B200 --format e4m3 --gpu-model H100
check "probe: the B200 fp8 model against the H100's row: exit 1, neab DIFFERS" \
    '[ "$(rc)" = 1 ] && grep -q "^  extra alignment bits (neab) *2 *-10 *DIFFERS" "$tmp/out"'
run probe tensor-core --model H100 --format f32
check "probe --format f32: exit 2 naming it" '[ "$(rc)" = 2 ] && grep -q -- "--format .f32." "$tmp/err"'
printf 'gpu\tin\n' >"$tmp/bad.tsv"
run probe tensor-core --model H100 --table "$tmp/bad.tsv"
check "probe --table malformed: exit 2 with FILE:LINE" '[ "$(rc)" = 2 ] && grep -q "bad.tsv:1:" "$tmp/err"'
run probe gpu-core
check "probe of something unknown: exit 2" '[ "$(rc)" = 2 ] && grep -q "tensor-core" "$tmp/err"'

tap_end
