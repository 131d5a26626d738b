#!/bin/sh
# cli_test.sh ULPGATE SRCDIR - the command line as a user meets it: exit codes, messages, the
# canary's failure report and its rerun line, the report file, the oracle subcommand.  TAP.
ug="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; sed 's/^/# /' "$tmp/out" "$tmp/err" 2>/dev/null | head -20; fi; }
run() { "$ug" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
rc() { cat "$tmp/rc"; }

echo "TAP version 13"
run list
check "list exits 0 and names the canary" '[ "$(rc)" = 0 ] && grep -q "canary/fails" "$tmp/out"'
run
check "no command: exit 2 with usage" '[ "$(rc)" = 2 ] && grep -q usage "$tmp/err"'
run run --no-such-flag
check "unknown flag: exit 2, named on stderr" '[ "$(rc)" = 2 ] && grep -q "unknown option .--no-such-flag." "$tmp/err"'
run run --n abc
check "bad --n: exit 2, named on stderr" '[ "$(rc)" = 2 ] && grep -q -- "--n: .abc." "$tmp/err"'
run run --seed
check "missing value: exit 2" '[ "$(rc)" = 2 ] && grep -q -- "--seed needs a value" "$tmp/err"'
run run --filter 'no_such_case/*'
check "filter matching nothing: exit 2" '[ "$(rc)" = 2 ] && grep -q "no case matches" "$tmp/err"'

run run --filter 'canary/*'
check "canary: exit 1" '[ "$(rc)" = 1 ]'
check "canary: not ok line, file:line of the assertion" 'grep -q "^not ok 1 - canary/fails serial_f32@default n=10000" "$tmp/out" && grep -q "# cases/canary.c:[0-9]*: UG_EXPECT_ULP_MAX(r, 0.5) failed: max" "$tmp/out"'
check "canary: worst element in hex, seed and rerun line" 'grep -q "worst: trial 0, element 0: got 0x" "$tmp/out" && grep -q "seed 0x5eed" "$tmp/out" && grep -q "rerun: .* run --filter canary/fails --kernel serial_f32@default --n 10000 --trial 0 --seed 0x5eed" "$tmp/out"'
worst=$(grep "worst:" "$tmp/out")
rerun=$(sed -n 's/^#   rerun: //p' "$tmp/out")
# the rerun line names the binary as it was invoked: run it as printed
$rerun >"$tmp/out2" 2>&1
check "rerun line replays the same failure" '[ $? = 1 ] || true; grep -qF "$worst" "$tmp/out2"'

run run --filter 'reduce/constant' --report "$tmp/rep" --tap
check "report run passes" '[ "$(rc)" = 0 ]'
check "results.json is valid JSON with the documented fields" 'python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
m=d[\"meta\"]; assert all(k in m for k in (\"version\",\"git\",\"date\",\"host\",\"compiler\",\"cflags\"))
r=d[\"results\"]; assert r
for k in (\"case\",\"kernel\",\"n\",\"trials\",\"ulp_max\",\"ulp_mean\",\"rel_max\",\"rel_mean\",\"abs_err_sum\",\"rel_err_sum\",\"bound_ratio_max\",\"passed\",\"id\"):
    assert all(k in x for x in r), k
assert len({x[\"id\"] for x in r}) == len(r)
" "$tmp/rep/results.json"'
check "no temporary file left beside the report" '[ "$(ls "$tmp/rep")" = results.json ]'

run run --filter 'gpu_reduce/*' --n 1 --tap
check "GPU cases: run, or a clean TAP skip without a device" '[ "$(rc)" = 0 ] && { grep -q "^1..0 # SKIP" "$tmp/out" || grep -q "^ok" "$tmp/out"; }'

# the oracle subcommand
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
check "oracle: unknown option -> exit 2" '[ "$(rc)" = 2 ]'

echo "1..$n"
exit $fail
