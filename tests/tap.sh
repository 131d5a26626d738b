# tap.sh - the TAP helpers the shell tests share: `. "$(dirname "$0")/tap.sh"` after setting ug
# (the program `run` starts) and, to keep its files, tmp (otherwise a fresh scratch directory,
# removed at exit).
#   ok NAME, notok NAME     one test point (notok: the script's status 1, and the head of
#                           $tmp/out and $tmp/err as diagnostics)
#   check NAME EXPR         eval EXPR: ok, or notok
#   run ARGS...             "$ug" ARGS with stdout, stderr and the exit status in $tmp/out,
#                           $tmp/err and $tmp/rc; rc prints that status
#   json FILE STATEMENT     a Python statement over d, FILE's JSON (fails on an exception)
#   tap_end                 the plan, then exit with the script's status
if [ -z "${tmp:-}" ]; then
    tmp=$(mktemp -d)
    # Only the shell that made it removes it: a background job signalled before its exec runs
    # this trap too (bash, in the forked child), and would take $tmp from under the test.
    ug_tap_owner=${BASHPID:-$$}
    trap '[ "${BASHPID:-$$}" = "$ug_tap_owner" ] && rm -rf "$tmp"' EXIT
fi
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
    n=$((n + 1))
    echo "not ok $n - $1"
    fail=1
    sed 's/^/# /' "$tmp/out" "$tmp/err" 2>/dev/null | head -n "${TAP_SHOW:-30}"
}
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
run() { "$ug" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
rc() { cat "$tmp/rc"; }
# json FILE CODE: CODE with d, the document; a results.json's rows in full (same_rows.py)
ug_scripts="$(cd "$(dirname "$0")/../scripts" && pwd)"
json() { python3 -c "import json,sys; sys.path.insert(0, '$ug_scripts'); from same_rows import results_rows; d=json.load(open(sys.argv[1])); d['results']=results_rows(d) if 'results' in d else None; $2" "$1"; }
tap_end() { echo "1..$n"; exit $fail; }
