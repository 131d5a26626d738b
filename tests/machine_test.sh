#!/bin/sh
# machine_test.sh ULPGATE [FASTMATH_LIB] - rows whose bits depend on the CPU model, end to end without a second
# machine: a run's rows carry machine "cpu-model" exactly where `list` names the evidence; a
# baseline made from the run, replayed as if measured on another CPU model (its fingerprint's
# "cpu" rewritten, a machine-dependent row's figures changed as another model's rsqrt table would
# change them), passes the gate on status and bound; the same change under the same model, or
# to a row with no machine dependence, is a regression.  TAP on stdout.
ug="$1"
. "$(dirname "$0")/tap.sh"

run run --filter layernorm/normal --kernel 'rmsnorm_cpu@*' --report "$tmp/a"
check "the run passes" '[ "$(rc)" = 0 ]'
check "meta records the CPU model" \
    'json "$tmp/a/results.json" "assert d[\"meta\"][\"cpu\"] or d[\"meta\"][\"arch\"] != \"x86_64\""'
"$ug" list >"$tmp/list"
# the evidence read independently of the build's scan: approximate instructions in the object
lib="${2:-}"
approx=0
if [ -n "$lib" ] && command -v objdump >/dev/null; then
    approx=$(objdump -d --no-show-raw-insn "$lib" | awk '/file format/ {o = $1} /\tv?rsqrt|\tv?rcp/ && o ~ /cpu_layernorm/ {n++} END {print n + 0}')
fi
if [ "$approx" -gt 0 ]; then
    check "list names cpu_layernorm@fastmath's $approx approximate instructions" \
        'grep -q "^  cpu_layernorm@fastmath: .*rsqrt" "$tmp/list"'
    check "rmsnorm_cpu@fastmath rows are machine-dependent, @default rows are not" \
        'json "$tmp/a/results.json" "r=d[\"results\"]; f=[x for x in r if x.get(\"kernel\",\"\").endswith(\"@fastmath\")]; g=[x for x in r if x.get(\"kernel\",\"\").endswith(\"@default\")]; assert f and g and all(x.get(\"machine\")==\"cpu-model\" for x in f) and not any(x.get(\"machine\") for x in g)"'
else
    # another compiler may emit no approximate instruction there
    check "no rmsnorm row is machine-dependent: its objects hold no approximate instruction" \
        'json "$tmp/a/results.json" "assert not any(x.get(\"machine\") for x in d[\"results\"])"'
fi

# a baseline of the run, then its twin as measured on another CPU model
mkdir -p "$tmp/bl"
run baseline update --from "$tmp/a/results.json" --dir "$tmp/bl" --reason "machine test"
check "baseline created" '[ "$(rc)" = 0 ]'
key=$("$ug" baseline key --from "$tmp/a/results.json")
# replay: the baseline's fingerprints on model CPU, one row's ulp figures scaled by F
replay() { # CPU ROWKERNEL F
    python3 - "$tmp/bl/$key" "$1" "$2" "$3" <<'PY'
import json, os, sys
d, cpu, kern, f = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
FIELDS = ["seed", "oracle", "arch", "compiler", "cflags", "nvcc", "nvcc_flags", "gpu.name",
          "gpu.cc", "gpu.sm_count", "gpu.driver", "gpu.runtime", "gpu.cublas", "gpu.cccl", "build",
          "cpu"]
def fnv(fp):  # harness/gate/fingerprint.c's ug_fingerprint_hash: a fingerprint's name
    h = 0xcbf29ce484222325
    for k in FIELDS:
        v = fp.get(k, "")
        if k in ("build", "cpu") and not v:
            continue
        for ch in (k + "=" + v + "\n").encode():
            h = ((h ^ ch) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h
idx = json.load(open(os.path.join(d, "index.json")))
renamed = {}
for old, fp in list(idx["fingerprints"].items()):
    fp["cpu"] = cpu
    renamed[old] = fnv(fp)
idx["fingerprints"] = {renamed[k]: v for k, v in idx["fingerprints"].items()}
json.dump(idx, open(os.path.join(d, "index.json"), "w"))
for name in idx["files"]:
    p = os.path.join(d, name)
    text = open(p).read()
    for old, new in renamed.items():
        text = text.replace('"%s"' % old, '"%s"' % new)
    doc = json.loads(text)
    cols = doc["columns"]
    for g in doc.get("groups", []):
        if g["kernel"] != kern:
            continue
        for row in g["rows"]:
            for c in ("ulp_max", "ulp_mean", "rel_max", "bound_ratio_max"):
                row[cols.index(c)] *= f
    json.dump(doc, open(p, "w"))
PY
}
other="OtherVendor family 99, x86-64-v2"
same=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['meta'].get('cpu',''))" "$tmp/a/results.json")

cp -r "$tmp/bl" "$tmp/bl0"
# the baseline as measured on model CPU with KERNEL's figures scaled, compared with the run
replay_compare() { # CPU KERNEL
    rm -rf "$tmp/bl" && cp -r "$tmp/bl0" "$tmp/bl"
    replay "$1" "$2" 0.5
    run compare "$tmp/bl/$key" "$tmp/a/results.json" --fail-on-regression
}
if [ "$approx" -gt 0 ]; then
    replay_compare "$other" rmsnorm_cpu@fastmath
    check "another CPU model: the machine-dependent rows pass on status and bound" \
        '[ "$(rc)" = 0 ] && grep -q "machine-dependent row.* judged on status and bound only" "$tmp/out"'
else
    # (a sanitizer build's -ffast-math objects may hold none: then those rows are exact rows)
    ok "another CPU model # SKIP this build's fastmath objects hold no approximate instruction"
fi

replay_compare "$other" rmsnorm_cpu@default
check "another CPU model: a row with no machine dependence is still compared bit for bit" \
    '[ "$(rc)" = 1 ] && grep -q "^REGRESSION .*rmsnorm_cpu@default.*\[deterministic: exact\]" "$tmp/out"'

if [ -n "$same" ] && [ "$approx" -gt 0 ]; then
    replay_compare "$same" rmsnorm_cpu@fastmath
    check "the same CPU model: a machine-dependent row is compared bit for bit" \
        '[ "$(rc)" = 1 ] && grep -q "^REGRESSION .*rmsnorm_cpu@fastmath.*same CPU model: exact" "$tmp/out"'
else
    ok "the same CPU model # SKIP this machine records no CPU model, or no row depends on it"
fi
tap_end
