#!/bin/bash
# readers_test.sh ULPGATE SRCDIR - every JSON reader is bounded: compare, merge,
# report, summary, costs, baseline show/update, a baseline folder's row files and the unit
# costs of --shard read through one helper (base/sys.h ug_read_bounded, base/json.h
# ug_json_parse_file) that refuses /dev/zero at its first byte, a file over the limit before it
# is read, and a FIFO that never ends once the limit has passed: each a clear error naming the
# file and the limit, exit 2, never memory running out.  The limit is 128 MiB by default and
# ULPGATE_JSON_LIMIT sets it; the tests lower it to keep their files small.  TAP on stdout.
ug="$1"
src="$2"
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
# a process that would read without end is stopped by its own limit of memory, not the machine's
# A cap on the address space, so that a reader that does not stop ends in an error, not the OOM
# killer.  Not under AddressSanitizer, whose shadow memory alone is terabytes of address space
# (the bounded reader is what is tested; the cap is only the safety net).
if grep -q __asan_init "$ug" 2>/dev/null; then
    mem_cap() { "$@"; }
else
    mem_cap() { ulimit -v 2000000; "$@"; }
fi

# ---- /dev/zero: a NUL byte is refused where it is read ------------------------------------------
for cmd in "compare /dev/zero /dev/zero" "summary /dev/zero" "costs /dev/zero" \
           "baseline show /dev/zero" "baseline key --from /dev/zero"; do
    # shellcheck disable=SC2086 # the words of the command
    (mem_cap timeout 60 "$ug" $cmd >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
    check "$cmd: exit 2 at the first byte, the file named" \
      '[ "$(rc)" = 2 ] && grep -q "/dev/zero: NUL byte at byte 1: not a text file" "$tmp/err"'
done
(mem_cap timeout 60 "$ug" merge "$tmp/m.json" /dev/zero >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
check "merge OUT /dev/zero: exit 2, nothing written" \
  '[ "$(rc)" = 2 ] && grep -q "/dev/zero: NUL byte" "$tmp/err" && [ ! -e "$tmp/m.json" ]'
mkdir -p "$tmp/rep"
ln -s /dev/zero "$tmp/rep/results.json"
(mem_cap timeout 60 "$ug" report "$tmp/rep" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
check "report DIR whose results.json is /dev/zero: exit 2" \
  '[ "$(rc)" = 2 ] && grep -q "results.json: NUL byte" "$tmp/err"'

# ---- a file over the limit: refused before it is read -------------------------------------------
truncate -s 300M "$tmp/big.json"
(mem_cap timeout 60 "$ug" compare "$tmp/big.json" "$tmp/big.json" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
check "a 300 MB results.json: exit 2, its size and the 128 MiB limit named" \
  '[ "$(rc)" = 2 ] && grep -q "big.json: 314572800 bytes, larger than 128 MiB, the limit of a JSON file ulpgate reads (ULPGATE_JSON_LIMIT raises it): not read" "$tmp/err"'
# a real file over a lowered limit, and the same file read under the default one
"$ug" run --filter reduce/normal --kernel serial_f32 --n 1000 --report "$tmp/r" >/dev/null 2>&1
size=$(wc -c <"$tmp/r/results.json" | tr -d ' ')
ULPGATE_JSON_LIMIT=1000 run summary "$tmp/r/results.json"
check "ULPGATE_JSON_LIMIT=1000: a $size-byte results.json refused, the limit named" \
  '[ "$(rc)" = 2 ] && grep -q "results.json: $size bytes, larger than 1000 bytes, the limit of a JSON file ulpgate reads (ULPGATE_JSON_LIMIT): not read" "$tmp/err"'
run summary "$tmp/r/results.json"
check "the same file under the default limit: read (exit 0)" '[ "$(rc)" = 0 ]'
ULPGATE_JSON_LIMIT=1XB run summary "$tmp/r/results.json"
check "ULPGATE_JSON_LIMIT=1XB: exit 2, the variable named" \
  '[ "$(rc)" = 2 ] && grep -q "ULPGATE_JSON_LIMIT=.1XB. is not a size" "$tmp/err"'
# a baseline folder's row file over the limit (index.json itself under it)
cp -r "$src/reports/baselines/cpu-x86_64" "$tmp/bl"
ULPGATE_JSON_LIMIT=64K run compare "$tmp/bl" "$tmp/r/results.json"
check "a baseline row file over ULPGATE_JSON_LIMIT=64K: exit 2, the file named" \
  '[ "$(rc)" = 2 ] && grep -q "bl/[a-z_]*\.json: [0-9]* bytes, larger than 65536 bytes" "$tmp/err"'

# ---- a FIFO that never ends (yes): read up to the limit, then refused ---------------------------
mkfifo "$tmp/fifo"
# the writer's stdout is /dev/null before the FIFO's open blocks: it never holds the test's own
# output open (meson waits for that), and it is ended below whatever the reader did
yes '[' </dev/null 2>/dev/null >/dev/null >"$tmp/fifo" &
ypid=$!
(ULPGATE_JSON_LIMIT=1M mem_cap timeout 60 "$ug" summary "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
check "a FIFO fed without end: exit 2 once 1 MiB has come, not a hang or out of memory" \
  '[ "$(rc)" = 2 ] && grep -q "fifo: larger than 1 MiB, the limit of a JSON file ulpgate reads (ULPGATE_JSON_LIMIT): not read" "$tmp/err"'
kill "$ypid" 2>/dev/null
# the writer ends on SIGPIPE once the reader has gone
ULPGATE_UNIT_COSTS=/dev/zero run run --filter reduce/normal --kernel serial_f32 --n 1000 --shard 0/2
check "ULPGATE_UNIT_COSTS=/dev/zero: said on stderr, the shards balanced by equal costs" \
  '[ "$(rc)" = 0 ] && grep -q "ULPGATE_UNIT_COSTS: /dev/zero: NUL byte at byte 1: not a text file: the shards are balanced by equal costs" "$tmp/err"'
# ---- a FIFO no one writes to, given where a text file is read line by line ---------------------
mkfifo "$tmp/silent"
ug_t() { timeout 30 "$ug" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }  # a hang fails
ug_t oracle --op sum "$tmp/silent"
check "oracle on a FIFO no one writes to: exit 2 after 5 s, not a hang" \
  '[ "$(rc)" = 2 ] && grep -q "silent: cannot open: a FIFO that no one wrote to within 5 s" "$tmp/err"'
ug_t run --xfail "$tmp/silent" --filter nothing
check "run --xfail on a FIFO no one writes to: exit 2 after 5 s, not a hang" \
  '[ "$(rc)" = 2 ] && grep -q "xfail .*silent: a FIFO that no one wrote to within 5 s" "$tmp/err"'
tap_end
