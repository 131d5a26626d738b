#!/bin/bash
# measured_test.sh ULPGATE SRCDIR - "nothing measured" is never green, on every path
# other than a --kernel that matches no case's kernels (the cli test has that one):
#   - --no-builtin with cases that run none of the plugin's kernels: exit 2, said why;
#   - --kernel / --format honoured by cases that name their kernel (ug_builtin_kernel): the
#     cases about another kernel are skipped, not measured and passed;
#   - a plugin kernel, or one --kernel names, unsupported on every call: a failed point;
#   - a corpus file whose kernels and format select no kernel of the build: a failed point;
#   - a --data-dir that is not one, or holds no cases/corpus: exit 2 naming it;
#   - ULPGATE_MAX_ELEMENTS recorded in results.json (meta.limits) and said by summary.md and
#     `ulpgate summary`;
# and at the gate a row of BASE that NEW skipped (pass -> skip) or dropped from a case it ran
# fails, until taken out of the baseline with a reason (`baseline update --prune --reason`).
# A test plugin is compiled with the C compiler (CC, else cc) against include/ulpgate.  TAP.
ug="$1"
src="$2"
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
cc="${CC:-cc}"
# t_sum: a binary64 accumulation; t_never: unsupported on every call; t_flip: unsupported
# when T_FLIP_UNSUPPORTED is set (the same kernel, skipped in one run and measured in another);
# t_attn_d64: attention as FlashAttention-2's plugin declares it (bf16 Q K V, bf16 O, binary32
# lse), a binary64 three-pass computation that offers d = 64 alone and declines others as
# unsupported (a skip that says why, not a failure)
cat >"$tmp/p.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ulpgate/ulpgate.h>
static double t_bf(unsigned short b)
{
    unsigned u = (unsigned)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static unsigned short t_to_bf(double v)
{
    float f = (float)v; /* double rounding is within the naive class's bound */
    unsigned u;
    memcpy(&u, &f, 4);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static int t_attn_d64(const ug_kernel *k, ug_call *c)
{
    (void)k;
    size_t L = ug_dim(c, 0), S = ug_dim(c, 1), d = ug_dim(c, 2), dv = ug_dim(c, 3);
    if (d != 64) {
        c->unsupported = true;
        snprintf(c->err, sizeof c->err, "head dim %zu: this kernel is built for d = 64", d);
        return 1;
    }
    const unsigned short *q = ug_in_bf16(c, 0), *kk = ug_in_bf16(c, 1), *v = ug_in_bf16(c, 2);
    unsigned short *o = ug_output_as(c, 0, UG_BF16);
    float *lse = ug_output_f32(c, 1);
    if (!q || !kk || !v || !o || !lse) {
        snprintf(c->err, sizeof c->err, "buffers not bf16 in, bf16 O, f32 lse");
        return 1;
    }
    size_t B = c->shape.batch ? c->shape.batch : 1, H = c->shape.heads ? c->shape.heads : 1;
    size_t KH = c->shape.kv_heads ? c->shape.kv_heads : H;
    double sc = c->opts.scale > 0 ? (float)c->opts.scale : (float)(1 / sqrt((double)d));
    double *s = malloc(S * sizeof *s);
    for (size_t p = 0; p < B * H; p++) {
        size_t kv = (p / H) * KH + (p % H) / (H / KH);
        for (size_t i = 0; i < L; i++) {
            size_t n = (c->opts.flags & UG_OPT_CAUSAL) ? i + S + 1 - L : S;
            double m = -INFINITY, l = 0;
            for (size_t j = 0; j < n; j++) {
                s[j] = 0;
                for (size_t t = 0; t < d; t++)
                    s[j] += t_bf(q[(p * L + i) * d + t]) * t_bf(kk[(kv * S + j) * d + t]);
                s[j] *= sc;
                if (s[j] > m) m = s[j];
            }
            for (size_t j = 0; j < n; j++) l += exp(s[j] - m);
            for (size_t t = 0; t < dv; t++) {
                double a = 0;
                for (size_t j = 0; j < n; j++) a += exp(s[j] - m) * t_bf(v[(kv * S + j) * dv + t]);
                o[(p * L + i) * dv + t] = t_to_bf(a / l);
            }
            lse[p * L + i] = (float)(m + log(l));
        }
    }
    free(s);
    if (getenv("T_OVERRUN")) o[B * H * L * dv] = 0; /* one element past O (lse follows it) */
    return 0;
}
static int t_sum(const ug_kernel *k, ug_call *c)
{
    (void)k;
    const float *x = ug_in_f32(c, 0);
    double s = 0;
    for (size_t i = 0; i < ug_dim(c, 0); i++) s += x[i];
    ug_out_f32(c)[0] = (float)s;
    return 0;
}
static int t_never(const ug_kernel *k, ug_call *c)
{
    (void)k;
    c->unsupported = true;
    snprintf(c->err, sizeof c->err, "needs a unit this machine lacks");
    return 1;
}
static int t_flip(const ug_kernel *k, ug_call *c)
{
    if (getenv("T_FLIP_UNSUPPORTED")) return t_never(k, c);
    return t_sum(k, c);
}
UG_PLUGIN(
    {.name = "t_sum", .op = UG_OP_SUM, .bound = UG_BOUND_WIDE_ACC, .run = t_sum, .doc = "binary64 sum"},
    {.name = "t_never", .op = UG_OP_SUM, .bound = UG_BOUND_WIDE_ACC, .run = t_never, .doc = "never supported"},
    {.name = "t_flip", .op = UG_OP_SUM, .bound = UG_BOUND_WIDE_ACC, .run = t_flip, .doc = "supported unless T_FLIP_UNSUPPORTED"},
    {.name = "t_attn_d64", .op = UG_OP_ATTENTION, .out_fmt = UG_BF16, .in_store = {UG_BF16, UG_BF16, UG_BF16},
     .bound = UG_BOUND_ATTN_NAIVE_BF16, .run = t_attn_d64, .doc = "binary64 attention, d = 64 alone"},
)
EOF
if ! command -v "$cc" >/dev/null; then
    echo "1..0 # SKIP no C compiler to build the test plugin ($cc)"
    exit 0
fi
if ! "$cc" -shared -fPIC -I"$src/include" -o "$tmp/p.so" "$tmp/p.c" 2>"$tmp/err"; then
    # a compiler that refuses the plugin is the header's fault (or the test's), never a skip
    echo "Bail out! the test plugin does not compile against include/ulpgate/ulpgate.h:"
    sed 's/^/# /' "$tmp/err"
    exit 1
fi
p="$tmp/p.so"

# ---- nothing measured ----------------------------------------------------------------------------
run run --plugin "$p" --no-builtin --filter 'dot/*'
check "--no-builtin, cases that run none of the plugin's kernels: exit 2, said why" \
  '[ "$(rc)" = 2 ] && grep -q "filter .dot/\*. selects 7 cases .*no kernel was measured and no check evaluated; --no-builtin leaves the plugins. 4 kernels, and no selected case runs one: nothing was measured" "$tmp/err"'
run run --plugin "$p" --no-builtin --filter 'reduce/normal' --kernel 't_never'
check "--kernel naming a kernel unsupported on every call: a failed point naming it and why" \
  '[ "$(rc)" = 1 ] && grep -q "t_never@default was unsupported on every one of its 8 calls (needs a unit this machine lacks): nothing of it was measured" "$tmp/out"'
run run --plugin "$p" --filter 'reduce/normal'
check "a plugin kernel unsupported everywhere, beside kernels that ran: the run fails (coverage selected_kernels_measured)" \
  '[ "$(rc)" = 1 ] && grep -q "coverage selected_kernels_measured" "$tmp/out" && grep -q "t_never@default was unsupported on every one" "$tmp/out"'
run run --kernel 'serial_f32@default' --filter 'reduce/finding_*'
check "--kernel honoured by cases that name their kernels: the others skipped, not measured" \
  '[ "$(rc)" = 0 ] && ! grep -q "sorted_abs_serial\|neumaier_f32\|kahan_f32" "$tmp/out" && grep -q "skipped" "$tmp/out"'
run run --tap --kernel 'serial_f32@default' --filter 'reduce/finding_*'
check "... each such case a skip that says which kernel --kernel leaves out" \
  'grep -q "# SKIP about the kernel [a-z_0-9]*@default, which --kernel .serial_f32@default. leaves out" "$tmp/out"'
run run --format bf16 --filter 'reduce/finding_*'
check "--format with cases that name f32 kernels: exit 2, nothing measured (they are skipped)" \
  '[ "$(rc)" = 2 ] && grep -q -- "--format bf16: no selected case runs a kernel with that format" "$tmp/err"'

# ---- an attention plugin kernel that offers d = 64 alone ---------------------------------
run run --plugin "$p" --no-builtin --filter 'attention/normal' --kernel t_attn_d64 --tap --report "$tmp/attn"
check "an attention plugin kernel: d = 64 measured and passing, d = 128 a skip saying why; exit 0" \
  '[ "$(rc)" = 0 ] && grep -q "^ok [0-9]* - attention/normal t_attn_d64@default n=32x512x64x64$" "$tmp/out" && grep -q "^ok [0-9]* - attention/normal t_attn_d64@default n=32x512x128x128 # SKIP head dim 128: this kernel is built for d = 64$" "$tmp/out"'
check "... its measured row in results.json: op attention, both outputs counted (O and lse)" \
  'json "$tmp/attn/results.json" "
import sys; sys.path.insert(0, \"$src/scripts\"); from same_rows import rows
r = [x for x in rows(\"$tmp/attn/results.json\").values() if x.get(\"kernel\") == \"t_attn_d64@default\" and x.get(\"status\") == \"pass\"]
assert len(r) == 1 and r[0][\"op\"] == \"attention\" and r[0][\"count\"] == 32 * 64 + 32, r"'
T_OVERRUN=1 run run --plugin "$p" --no-builtin --filter 'attention/normal' --kernel t_attn_d64 --tap
check "... one element written past O faults (each output fenced apart), a failed point naming the signal" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok 1 - attention/normal$" "$tmp/out" && grep -q "kernel t_attn_d64@default crashed (SIGSEGV)" "$tmp/out"'

# ---- corpus files that select nothing -------------------------------------------------------------
mkdir -p "$tmp/c"
printf '# op: sum\n# format: bf16\n# kernels: serial_f32\n# why: a test\n# source: made up\n1\n2\n3\n' >"$tmp/c/fmt.txt"
run run --corpus "$tmp/c" --filter 'corpus/fmt'
check "a corpus file whose format no selected kernel has: a failed point naming the file and its line" \
  '[ "$(rc)" = 1 ] && grep -q "c/fmt.txt:3: no kernel runs this file: kernels serial_f32 and format bf16 select none of this build.s sum kernels" "$tmp/out"'

# ---- the data folder -------------------------------------------------------------------------------
run --data-dir "$tmp/none" run --filter 'reduce/normal' --kernel serial_f32
check "--data-dir that does not exist: exit 2 naming it" \
  '[ "$(rc)" = 2 ] && grep -q -- "--data-dir .*/none (ULPGATE_DATA_DIR): not a directory: the built-in corpus (cases/corpus) would be left out" "$tmp/err"'
mkdir -p "$tmp/empty"
run --data-dir "$tmp/empty" run --filter 'reduce/normal' --kernel serial_f32
check "--data-dir without cases/corpus: exit 2 naming it" \
  '[ "$(rc)" = 2 ] && grep -q -- "--data-dir .*/empty (ULPGATE_DATA_DIR): holds no cases/corpus" "$tmp/err"'

# ---- ULPGATE_MAX_ELEMENTS leaves a trace -------------------------------------------------------------
ULPGATE_MAX_ELEMENTS=1000 run run --filter 'reduce/normal' --kernel 'serial_f32@default' --report "$tmp/red"
check "ULPGATE_MAX_ELEMENTS=1000: meta.limits records the cap and the sizes left out" \
  'json "$tmp/red/results.json" "l = d[\"meta\"][\"limits\"]; assert l[\"max_elements\"] == 1000 and l[\"sizes_left_out\"] >= 1, l"'
check "... summary.md says it is a reduced run" \
  'grep -q "\*\*A reduced run\*\*: ULPGATE_MAX_ELEMENTS=1000 ([0-9]* sizes\? left out)" "$tmp/red/summary.md"'
run summary "$tmp/red/results.json"
check "... and so does ulpgate summary" \
  '[ "$(rc)" = 0 ] && grep -q "a reduced run: ULPGATE_MAX_ELEMENTS=1000" "$tmp/out"'
"$ug" run --filter 'reduce/normal' --kernel 'serial_f32@default' --report "$tmp/whole" >/dev/null 2>&1
run compare "$tmp/whole/results.json" "$tmp/red/results.json" --fail-on-regression
check "... and the gate refuses it" \
  '[ "$(rc)" = 1 ] && grep -q "NOT ACCEPTED: NEW is a reduced run (ULPGATE_MAX_ELEMENTS=1000" "$tmp/out"'

# ---- the gate: pass -> skip, and rows gone --------------------------------------------------------
"$ug" run --plugin "$p" --filter 'reduce/normal' --kernel 't_flip' --report "$tmp/flip0" >/dev/null 2>&1
T_FLIP_UNSUPPORTED=1 "$ug" run --plugin "$p" --filter 'reduce/normal' --kernel 't_flip' --report "$tmp/flip1" >/dev/null 2>&1
run compare "$tmp/flip0/results.json" "$tmp/flip1/results.json" --fail-on-regression
check "a row that passed and is skipped now: a regression, with the skip's reason" \
  '[ "$(rc)" = 1 ] && grep -q "REGRESSION (skipped now: needs a unit this machine lacks) reduce/normal t_flip@default normal(0,1) 1$" "$tmp/out" && grep -q "8 rows skipped now" "$tmp/out"'
"$ug" run --filter 'reduce/normal' --report "$tmp/all" >/dev/null 2>&1
python3 - "$tmp/all/results.json" "$tmp/less.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["results"].pop(5)
d["summary"]["passed"] -= 1
json.dump(d, open(sys.argv[2], "w"))
EOF
run compare "$tmp/all/results.json" "$tmp/less.json" --fail-on-regression
check "a row gone from a case NEW ran: a regression, with how to accept it" \
  '[ "$(rc)" = 1 ] && grep -q "^REGRESSION (gone: NEW ran its case, the row is not there) reduce/normal " "$tmp/out" && grep -q "baseline update --from NEW --prune --reason" "$tmp/out" && grep -q "; 1 row gone" "$tmp/out"'
run compare "$tmp/all/results.json" "$tmp/less.json" --markdown
check "... the merge-request comment counts it as a regression" \
  'grep -q "^### ulpgate: \*\*1 regression\*\* (0 new failures, 0 bounds loosened, 1 skipped or gone)" "$tmp/out" && grep -q ": \*\*gone\*\*" "$tmp/out"'
run compare "$tmp/all/results.json" "$tmp/whole/results.json" --fail-on-regression
check "rows outside NEW's selection (--kernel) are only listed: exit 0" \
  '[ "$(rc)" = 0 ] && grep -q "rows compared: 0 regressed.* [1-9][0-9]* only in base" "$tmp/out"'
# accepted with a reason: the baseline drops the rows, and the gate passes again
mkdir -p "$tmp/bl"
"$ug" baseline update --from "$tmp/all/results.json" --dir "$tmp/bl" --reason "a test" >/dev/null 2>&1
run baseline update --from "$tmp/less.json" --dir "$tmp/bl" --prune
check "taking the row out without a reason is refused" '[ "$(rc)" != 0 ]'
run baseline update --from "$tmp/less.json" --dir "$tmp/bl" --prune --reason "the row was removed on purpose"
run compare "$tmp/bl/$("$ug" baseline key --from "$tmp/less.json")" "$tmp/less.json" --fail-on-regression
check "... with a reason the baseline drops it, and the gate passes" \
  '[ "$(rc)" = 0 ] && ! grep -q "gone" "$tmp/out"'
# the quantizers (kernels/quantize.h, graded by name, not in the kernel registry) follow --kernel
# and --no-builtin as the registry's kernels do, and --kernel may name them: its run measured
# them (not "nothing was measured", which quantize/cuda's skip hid on a machine without a GPU:
# the CPU cases alone here)
run run --filter 'quantize/[mns]*' --kernel 'mxfp4_ocp*' --tap
check "--kernel naming a quantizer: its points alone run (3 data sets)" \
  '[ "$(rc)" = 0 ] && [ "$(grep -c "^ok .* mxfp4_ocp_cpu on " "$tmp/out")" = 3 ] && ! grep -q "^ok .*nvfp4_cpu on" "$tmp/out"'
run run --filter 'quantize/*' --kernel 'serial_f32@default' --tap
check "... --kernel naming another kernel: no quantizer measured, the cases skipped naming the selection" \
  '! grep -q "_cpu on " "$tmp/out" && grep -q "^ok .* quantize/normal # SKIP the run.s selection (--kernel .serial_f32@default.)" "$tmp/out"'
run run --plugin "$p" --no-builtin --filter 'quantize/*' --tap
check "... --no-builtin: no built-in quantizer measured" '! grep -q "_cpu on " "$tmp/out"'
# a run narrowed to a kernel whose case also needs another one (tf32_canary/cpu compares
# gemm_tf32_cpu with gemm_naive_cpu): the case skips saying so, and the gate does not call the
# selected kernel's rows of it "gone"
# (a baseline of this build's own whole run of those cases: the committed one is gcc's)
"$ug" run --filter '[gt][ef]*' --report "$tmp/tf32all" >/dev/null 2>&1
mkdir -p "$tmp/bltf"
"$ug" baseline update --from "$tmp/tf32all/results.json" --dir "$tmp/bltf" >/dev/null 2>&1
run run --filter '[gt][ef]*' --kernel 'gemm_tf32_cpu@default' --report "$tmp/tf32k"
run compare "$tmp/bltf/$("$ug" baseline key --from "$tmp/tf32all/results.json")" "$tmp/tf32k/results.json" --fail-on-regression
check "--kernel leaving out a kernel its case needs: the case's rows only in base, not gone (exit 0)" \
  '[ "$(rc)" = 0 ] && grep -q " 0 regressed" "$tmp/out" && ! grep -q "REGRESSION (gone" "$tmp/out"'
# --format: no whole-run coverage check (every registered kernel measured) on a narrowed run
run run --format tf32 --trials 1
check "--format over every case: the run passes, no 'registered but no case measures it' point" \
  '[ "$(rc)" = 0 ] && ! grep -q "no case measures it" "$tmp/out"'
# a part of a run is no baseline: interrupted, truncated (fewer rows than its summary counts) or
# without a summary, refused by baseline update as the gate refuses it, whatever --reason says
for part in interrupted truncated nosummary; do
  python3 - "$tmp/all/results.json" "$tmp/$part.json" "$part" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
if sys.argv[3] == "interrupted": d["meta"]["interrupted"] = True; d["meta"]["stop_reason"] = "SIGINT"
if sys.argv[3] == "truncated": d["results"].pop()
if sys.argv[3] == "nosummary": del d["summary"]
json.dump(d, open(sys.argv[2], "w"))
EOF
  mkdir -p "$tmp/blp-$part"
  run baseline update --from "$tmp/$part.json" --dir "$tmp/blp-$part" --prune --reason "a test"
  check "baseline update refuses a results.json that is $part, naming why; nothing written" \
    '[ "$(rc)" = 2 ] && grep -q "holds part of a run, it \(was interrupted (SIGINT)\|is truncated: its summary counts\|has no summary\)" "$tmp/err" && [ -z "$(ls "$tmp/blp-$part")" ]'
done
# a narrowed run (--kernel, --n, --format, --no-builtin): a case whose kernels it leaves out
# entirely is a skip that says so, not a pass; and its check points (a table over the kernels
# it measured) are neither added to a baseline nor change one (an H200 history built from
# `run --kernel '*atomic*'` once added 205 such points, then "gone" from every default run)
run run --filter 'adversarial/*normal_shapes' --kernel 'serial_f32@default' --tap
check "a case whose kernels --kernel leaves out: a skip naming the selection, not a pass" \
  'grep -q "^ok 1 - adversarial/dot_normal_shapes # SKIP the run.s selection (--kernel .serial_f32@default.) leaves out every kernel and size it has" "$tmp/out"'
"$ug" run --filter 'fastmath/*' --report "$tmp/ok_all" >/dev/null 2>&1
"$ug" run --filter 'fastmath/*' --kernel 'kahan_f32@*' --report "$tmp/ok_kahan" >/dev/null 2>&1
mkdir -p "$tmp/blk" "$tmp/blk2"
"$ug" baseline update --from "$tmp/ok_all/results.json" --dir "$tmp/blk" >/dev/null 2>&1
run baseline update --from "$tmp/ok_kahan/results.json" --dir "$tmp/blk"
check "update from a --kernel run: its table point left as stored, the baseline unchanged" \
  '[ "$(rc)" = 0 ] && grep -q "^3 check points of this run left as stored: its selection (--kernel" "$tmp/out" && grep -q "^baseline unchanged" "$tmp/out"'
run baseline update --from "$tmp/ok_kahan/results.json" --dir "$tmp/blk2"
check "... nor added to a new baseline" \
  'grep -q "^3 check points of this run left as stored" "$tmp/out" && grep -q "^6 added" "$tmp/out" && grep -q "\"checks\":\[\]" "$tmp/blk2"/*/fastmath.json'
tap_end
