#!/bin/bash
# cli_conventions.sh ULPGATE - the command-line conventions people know (getopt_long's), on
# every subcommand and every option ("CLI"): --opt=value and --opt value; -h/--help
# prints the subcommand's own usage (exit 0); --version and `version`; an unknown option or
# subcommand is exit 2 naming the closest one; a missing option value is exit 2 naming the
# option; an option given twice is refused (exit 2) unless it adds up (--corpus, --plugin);
# `devices` says why it sees no device; the default output of `run` is compact (a progress
# line per case, failures in full, a summary) and the TAP stream comes with --tap.  TAP on
# stdout.
ug=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
# in the scratch directory: an option the CLI mishandles must not write into the source tree
# (a repeated --dir or --device of `baseline update` would run an update there)
cd "$tmp" || exit 1

# Every subcommand with its value options and its flags: the table of harness/cli/cli_opts.c.
cmds=(
  "list||"
  "devices||"
  "version||"
  "costs||"
  "merge|--junit|--parts"
  "run|--filter --kernel --format --n --trial --trials --seed --report --oracle --oracle-check --threads --shard --gpus --xfail --timeout|--tap --detail --slow --slow-only"
  "oracle|--op --got --oracle|--json"
  "check|--op --got --dtype --ulp-max --rel-max --depth --bound --oracle --axis|--json --correctly-rounded"
  "probe|--kernel --model --gpu-model --table --format --out-format|"
  "hunt|--kernel --op --n --out --objective --budget --evals --seed --check-ulp --threads|--compare-random"
  "bench||"
  "bench oracle|--threads|--big --gpu"
  "bench check|--n --op --reps --dir|"
  "bench rows|--rows --n --mpfr-rows --threads|"
  "compare|--slack --time-slack --max-rows --full-report|--fail-on-regression --markdown --all"
  "baseline||"
  "baseline update|--device --from --reason --dir --slack|--prune --dry-run"
  "baseline show|--device --dir|--all"
  "baseline key|--from|"
  "baseline migrate|--device --dir --reason|"
  "report|--baseline|"
  "summary|--metric --width|"
)

# ---- --help on every subcommand, --opt=value accepted, missing value, repeated option ---------
# One job per subcommand, in parallel (each invocation of a CUDA build maps cuBLAS and
# cuBLASLt: ~0.5 s, some 600 of them), each in its own scratch folder; the verdicts are joined.
cli_job() {
  local sub=$1 vals=$2 flags=$3 o
  tmp="$tmp/job_${sub// /_}"
  mkdir -p "$tmp"
  help_bad= eq_bad= miss_bad= twice_bad= flag_bad= unknown_bad=
  # shellcheck disable=SC2086
  run $sub --help
  { [ "$(rc)" = 0 ] && grep -q "^usage: ulpgate $sub" "$tmp/out" && [ ! -s "$tmp/err" ]; } || help_bad="$help_bad [$sub]"
  run $sub -h
  { [ "$(rc)" = 0 ] && grep -q "^usage: ulpgate $sub" "$tmp/out"; } || help_bad="$help_bad [$sub -h]"
  for o in $vals; do
    # the form --opt=value is taken as --opt value: --help after it still answers
    run $sub "$o=x" --help
    { [ "$(rc)" = 0 ] && grep -q "^usage: ulpgate $sub" "$tmp/out"; } || eq_bad="$eq_bad [$sub $o=x]"
    run $sub "$o"
    { [ "$(rc)" = 2 ] && grep -q -- "$o needs a value" "$tmp/err"; } || miss_bad="$miss_bad [$sub $o]"
    run $sub "$o=a" "$o" b
    { [ "$(rc)" = 2 ] && grep -q -- "$o given twice" "$tmp/err"; } || twice_bad="$twice_bad [$sub $o]"
    run $sub "${o}x"
    { [ "$(rc)" = 2 ] && grep -q -- "unknown option '${o}x'; did you mean '$o'?" "$tmp/err"; } || unknown_bad="$unknown_bad [$sub ${o}x]"
  done
  for o in $flags; do
    run $sub "$o" "$o" --help
    { [ "$(rc)" = 0 ] && grep -q "^usage: ulpgate $sub" "$tmp/out"; } || flag_bad="$flag_bad [$sub $o $o]"
    run $sub "$o=1"
    { [ "$(rc)" = 2 ] && grep -q -- "$o takes no value" "$tmp/err"; } || flag_bad="$flag_bad [$sub $o=1]"
  done
  printf '%s\n' "$help_bad" "$eq_bad" "$miss_bad" "$twice_bad" "$unknown_bad" "$flag_bad" >"$tmp/verdict"
}
for entry in "${cmds[@]}"; do
  IFS='|' read -r sub vals flags <<<"$entry"
  cli_job "$sub" "$vals" "$flags" &
done
wait
help_bad= eq_bad= miss_bad= twice_bad= flag_bad= unknown_bad=
for entry in "${cmds[@]}"; do
  IFS='|' read -r sub vals flags <<<"$entry"
  v="$tmp/job_${sub// /_}/verdict"
  [ -f "$v" ] || { help_bad="$help_bad [$sub: its job left no verdict]"; continue; }
  { read -r a; read -r b; read -r c; read -r d; read -r e; read -r f; } <"$v"
  help_bad="$help_bad$a" eq_bad="$eq_bad$b" miss_bad="$miss_bad$c" twice_bad="$twice_bad$d"
  unknown_bad="$unknown_bad$e" flag_bad="$flag_bad$f"
done
check "-h and --help on every subcommand: exit 0, its own usage on stdout${help_bad:+ (wrong:$help_bad)}" '[ -z "$help_bad" ]'
check "--opt=value on every value option of every subcommand${eq_bad:+ (wrong:$eq_bad)}" '[ -z "$eq_bad" ]'
check "a missing value: exit 2 naming the option, on every value option${miss_bad:+ (wrong:$miss_bad)}" '[ -z "$miss_bad" ]'
check "a one-value option given twice: exit 2, never silently replaced${twice_bad:+ (wrong:$twice_bad)}" '[ -z "$twice_bad" ]'
check "a mistyped option: exit 2 naming the closest, on every option${unknown_bad:+ (wrong:$unknown_bad)}" '[ -z "$unknown_bad" ]'
check "a flag repeated changes nothing; a flag given =value: exit 2${flag_bad:+ (wrong:$flag_bad)}" '[ -z "$flag_bad" ]'

# ---- the two forms do the same -----------------------------------------------------------------
run run --filter canary/fails --kernel serial_f32 --seed 0x5eed
cp "$tmp/out" "$tmp/spaced"
run run --filter=canary/fails --kernel=serial_f32 --seed=0x5eed
check "run --opt=value and --opt value: the same run (exit 1, the same failure)" \
  '[ "$(rc)" = 1 ] && diff <(grep -v " s$\| s,\|time:" "$tmp/spaced") <(grep -v " s$\| s,\|time:" "$tmp/out") >/dev/null && grep -q "not ok 1 - canary/fails" "$tmp/out"'
run --commit=abc --data-dir="$tmp/nowhere" list
check "the options of every command take =value too (--data-dir=DIR is read: its corpus is missing)" \
  '[ "$(rc)" = 0 ] && grep -q "canary/fails" "$tmp/out" && ! grep -q "\[corpus\]" "$tmp/out"'
run --commit a --commit b list
check "--commit given twice: exit 2" '[ "$(rc)" = 2 ] && grep -q -- "--commit given twice" "$tmp/err"'
run run --filt=canary/fails
check "an unambiguous prefix is the option (--filt=...: --filter)" '[ "$(rc)" = 1 ] && grep -q "canary/fails" "$tmp/out"'
run run --slo
check "an ambiguous prefix: exit 2 naming the candidates" \
  '[ "$(rc)" = 2 ] && grep -q -- "--slo. is ambiguous: --slow, --slow-only" "$tmp/err"'
run run --filter reduce/normal --filter dot/normal
check "--filter twice: refused (exit 2), not the last one silently" \
  '[ "$(rc)" = 2 ] && grep -q -- "--filter given twice" "$tmp/err" && [ ! -s "$tmp/out" ]'
mkdir -p "$tmp/c1" "$tmp/c2"
printf '# op: sum\n# why: a test\n# check: ulp_max 1\n1\n2\n' >"$tmp/c1/one.txt"
printf '# op: sum\n# why: a test\n# check: ulp_max 1\n3\n4\n' >"$tmp/c2/two.txt"
run run --corpus "$tmp/c1" --corpus="$tmp/c2" --filter 'corpus/*' --kernel serial_f32 --tap
check "--corpus repeats and adds up: both directories' files run" \
  '[ "$(rc)" = 0 ] && grep -q "corpus/one" "$tmp/out" && grep -q "corpus/two" "$tmp/out"'

# ---- version, commands -------------------------------------------------------------------------
run --version
v=$(cat "$tmp/out")
run version
check "--version and version: exit 0, the same 'ulpgate X.Y.Z'" \
  '[ "$(rc)" = 0 ] && grep -qE "^ulpgate [0-9]+\.[0-9]+\.[0-9]+" "$tmp/out" && [ "$(cat "$tmp/out")" = "$v" ]'
run rn --filter x
check "a mistyped subcommand: exit 2, did you mean 'run'" '[ "$(rc)" = 2 ] && grep -q "unknown command .rn.; did you mean .run.?" "$tmp/err"'
run --versoin
check "a mistyped --version: exit 2, did you mean '--version'" '[ "$(rc)" = 2 ] && grep -q "did you mean .--version.?" "$tmp/err"'
run baseline shwo
check "a mistyped baseline subcommand: exit 2, did you mean 'show'" '[ "$(rc)" = 2 ] && grep -q "did you mean .show.?" "$tmp/err"'
run bench orcle
check "a mistyped bench subcommand: exit 2, did you mean 'oracle'" '[ "$(rc)" = 2 ] && grep -q "did you mean .oracle.?" "$tmp/err"'

# ---- devices -----------------------------------------------------------------------------------
run devices
check "devices: the count first; with none, why (no CUDA build, no driver, the CUDA error)" \
  '[ "$(rc)" = 0 ] && { [ "$(head -1 "$tmp/out")" != 0 ] || grep -qE "^no CUDA device: (built without CUDA|cudaGetDeviceCount: .+|.+)" "$tmp/out"; }'

# ---- the default output is compact; --tap is the TAP stream ------------------------------------
sel="--filter reduce/* --n 1000"
# shellcheck disable=SC2086
run run $sel
cases=$(sed -n 's/^ulpgate .*: \([0-9]*\) cases$/\1/p' "$tmp/out")
lines=$(grep -c '^\[[0-9]*/[0-9]* cases\] reduce/' "$tmp/out")
check "run without --tap, not a terminal: progress at each tenth of the $cases cases ($lines lines), saying what it counts" \
  '[ "$(rc)" = 0 ] && [ "$cases" -gt 3 ] && [ "$lines" -le 11 ] && grep -qE "^\[$cases/$cases cases\] reduce/[^:]+: [0-9]+ points?, 0 failed; run: [0-9]+ points, 0 failed, [0-9.]+ s$" "$tmp/out"'
check "... no TAP stream (no 'TAP version', no 'ok N' line, no plan) and a summary" \
  '! grep -qE "^(TAP version|ok [0-9]|1\.\.[0-9])" "$tmp/out" && grep -qE "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" "$tmp/out"'
compact=$(wc -l <"$tmp/out")
# shellcheck disable=SC2086
run run $sel --tap
tapn=$(wc -l <"$tmp/out")
check "run --tap: the full TAP stream ($tapn lines; $compact without --tap)" \
  '[ "$(rc)" = 0 ] && head -1 "$tmp/out" | grep -q "^TAP version 13" && grep -qE "^1\.\.[0-9]+$" "$tmp/out" && [ "$compact" -le $((lines + 8)) ] && [ "$tapn" -gt "$((compact * 3))" ]'
run run --filter 'canary/*'
check "a failure in full without --tap: file:line, the worst element in hex, the seed, the rerun line" \
  '[ "$(rc)" = 1 ] && grep -q "^not ok 1 - canary/fails" "$tmp/out" && grep -q "cases/canary.c:[0-9]*: " "$tmp/out" && grep -q "got 0x1\.[0-9a-f]*p+9" "$tmp/out" && grep -q "seed 0x5eed" "$tmp/out" && grep -q "rerun: .* run --filter canary/fails" "$tmp/out" && grep -q "^\[1/1 cases\] canary/fails: 1 point, 1 failed; run: 1 point, 1 failed" "$tmp/out" && grep -q "^0 passed, 1 failed, 0 skipped$" "$tmp/out"'
if command -v script >/dev/null 2>&1; then
  script -qec "$ug run --filter 'reduce/normal' --n 1000" /dev/null >"$tmp/tty" 2>&1 </dev/null
  check "on a terminal the progress line is rewritten in place (CR, erase line)" \
    'grep -q "$(printf "\r\033\\[K")" "$tmp/tty" && grep -q "0 failed" "$tmp/tty"'
else
  ok "on a terminal the progress line is rewritten in place # SKIP no script(1)"
fi

tap_end
