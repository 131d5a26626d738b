#!/bin/bash
# results_strict_test.sh ULPGATE SRCDIR - a results.json whose values contradict each other or
# have the wrong type is refused with the file, the row and the field named, never read as a
# default that the gate would accept: "interrupted": "true" (a string), a negative
# error figure (an "improvement"), "status": "pass" with "failures": 1, a summary count that is
# a string.  And two builds whose recorded cflags read the same but that compiled differently
# (meta.build: the configuration's arguments and the compiler's predefined macros, hashed) are
# not compared as one build; a run or baseline from before meta.build stays comparable.  TAP.
ug="$1"
src="$2"
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
"$ug" run --filter reduce/normal --kernel 'serial_f32@default' --n 1000 --report "$tmp/r" >/dev/null 2>&1
good="$tmp/r/results.json"
# edit FILE OUT PYTHON: OUT is FILE with PYTHON run over d (the document) and row (its first
# result as an object row, which a format 5 file reads as in format 3: written back so)
edit() {
    python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
cols, shapes = d["columns"], d["shapes"]
raw = d["results"][0]
row = {cols[c]: v for c, v in zip(shapes[raw[0]], raw[1:])}
exec(sys.argv[3])
d["results"][0] = row
json.dump(d, open(sys.argv[2], "w"))
EOF
}

# ---- meta and summary typed -------------------------------------------------------------------
edit "$good" "$tmp/int.json" 'd["meta"]["interrupted"] = "true"'
run compare "$good" "$tmp/int.json"
check '"interrupted": "true": exit 2, the file and the key named' \
  '[ "$(rc)" = 2 ] && grep -q "int.json: meta: \"interrupted\" is a string, not a bool" "$tmp/err"'
run merge "$tmp/m.json" "$tmp/int.json"
check '... and merge refuses it too (not merged as "not interrupted")' \
  '[ "$(rc)" = 2 ] && grep -q "\"interrupted\" is a string" "$tmp/err" && [ ! -e "$tmp/m.json" ]'
edit "$good" "$tmp/sum.json" 'd["summary"]["passed"] = "1"'
run compare "$good" "$tmp/sum.json"
check 'summary "passed": "1": exit 2, the count named' \
  '[ "$(rc)" = 2 ] && grep -q "sum.json: summary: \"passed\" is the string \"1\", not a number" "$tmp/err"'
edit "$good" "$tmp/seed.json" 'd["meta"]["seed"] = 24301'
run summary "$tmp/seed.json"
check 'meta "seed" a number: exit 2' '[ "$(rc)" = 2 ] && grep -q "meta: \"seed\" is a number, not a string" "$tmp/err"'

# ---- a row's fields agree -----------------------------------------------------------------------
edit "$good" "$tmp/neg.json" 'row["ulp_max"] = -3'
run compare "$good" "$tmp/neg.json"
check 'a negative ulp_max: exit 2 naming the row and the field, not an improvement' \
  '[ "$(rc)" = 2 ] && grep -q "neg.json: result 0 (reduce/normal serial_f32@default normal(0,1) 1000): \"ulp_max\" is -3: negative" "$tmp/err"'
edit "$good" "$tmp/neginf.json" 'row["bound_ratio_max"] = "-inf"'
run compare "$good" "$tmp/neginf.json"
check 'bound_ratio_max "-inf": exit 2' '[ "$(rc)" = 2 ] && grep -q "\"bound_ratio_max\" is -inf: negative" "$tmp/err"'
edit "$good" "$tmp/passfail.json" 'row["failures"] = 1'
run compare "$good" "$tmp/passfail.json"
check '"status": "pass" with "failures": 1: exit 2 naming the row' \
  '[ "$(rc)" = 2 ] && grep -q "passfail.json: result 0 (reduce/normal serial_f32@default normal(0,1) 1000): \"status\" is \"pass\" with \"failures\": 1" "$tmp/err"'
edit "$good" "$tmp/passed.json" 'row["status"] = "fail"; row["failures"] = 1; row["passed"] = True'
run compare "$good" "$tmp/passed.json"
check '"passed": true on a failed row: exit 2' \
  '[ "$(rc)" = 2 ] && grep -q "\"passed\" is true but \"status\" is \"fail\"" "$tmp/err"'
edit "$good" "$tmp/same.json" 'pass'
run compare "$good" "$tmp/same.json" --fail-on-regression
check 'the file written back unchanged (an object row) still compares the same: exit 0' \
  '[ "$(rc)" = 0 ] && grep -q "1 rows compared: 0 regressed, 0 improved, 1 same" "$tmp/out"'

# ---- the build: what really compiled the CPU kernels --------------------------------------------
check 'meta.build: the arguments, the predefined macros and their hash are recorded' \
  'json "$good" "b = d[\"meta\"][\"build\"]; assert \"b_ndebug=\" in b[\"args\"] and \"c_args=\" in b[\"args\"] and b[\"hash\"].startswith(\"0x\") and \"__FLT_EVAL_METHOD__\" in b[\"defines\"]"'
edit "$good" "$tmp/fast.json" 'd["meta"]["build"]["hash"] = "0x0123456789abcdef"; d["meta"]["build"]["defines"] += " __FAST_MATH__"'
run compare "$good" "$tmp/fast.json" --fail-on-regression
check 'the same cflags, another build (-ffast-math from CFLAGS): not accepted, the difference named' \
  '[ "$(rc)" = 1 ] && grep -q "NOT ACCEPTED: NEW is of another build (build .0x[0-9a-f]* __OPTIMIZE__.* -> .0x0123456789abcdef .*__FAST_MATH__., 1 compared rows)" "$tmp/out"'
edit "$good" "$tmp/old.json" 'del d["meta"]["build"]'
run compare "$tmp/old.json" "$good" --fail-on-regression
check 'a run from before meta.build against a new one: compared as before (exit 0)' \
  '[ "$(rc)" = 0 ] && ! grep -q "another build" "$tmp/out"'
# a baseline from before meta.build (written from such a run: no build part) against a new run
mkdir -p "$tmp/blold"
"$ug" baseline update --from "$tmp/old.json" --dir "$tmp/blold" --reason "a baseline of before" >/dev/null 2>&1
run compare "$tmp/blold/cpu-x86_64" "$good"
check 'a baseline with no build part (written before meta.build) is not refused for the build' \
  '[ -d "$tmp/blold/cpu-x86_64" ] && ! grep -q "another build" "$tmp/out"'
# a baseline written from a run keeps the build part, and refuses another build later
mkdir -p "$tmp/bl"
run baseline update --from "$good" --dir "$tmp/bl" --reason "a test baseline"
run compare "$tmp/bl/cpu-x86_64" "$tmp/fast.json" --fail-on-regression
check 'a baseline updated from a run keeps its build: another build is refused against it' \
  '[ "$(rc)" = 1 ] && grep -q "NOT ACCEPTED: NEW is of another build (build" "$tmp/out"'
tap_end
