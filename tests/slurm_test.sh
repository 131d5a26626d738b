#!/bin/sh
# slurm_test.sh ULPGATE SRCDIR - the Slurm path for real: a single-node Slurm cluster started
# here (munged with a generated key, slurmctld and slurmd with a configuration written for the
# test, state and spool in a temporary directory), scripts/slurm/submit.sh submits a job array
# of 4 shards and the merge job that depends on them, and the merged report must equal an
# unsharded run's figures.  Skips (TAP) where Slurm or munge is not installed or cannot start
# (not root).  The daemons are stopped by their pid files whatever happens.
ug=$(readlink -f "$1")
src="$2"
tmp=$(mktemp -d /tmp/ulpgate-slurm-XXXXXX)
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; for f in $3; do sed "s|^|# $(basename "$f"): |" "$f" 2>/dev/null | tail -12; done; fi; }
skip_all() { echo "1..0 # SKIP $1"; rm -rf "$tmp"; exit 0; }
stop() {
    for p in slurmd slurmctld munged; do
        [ -f "$tmp/$p.pid" ] && kill "$(cat "$tmp/$p.pid")" 2>/dev/null
    done
    sleep 1
    rm -rf "$tmp"
}

for b in slurmctld slurmd munged sbatch squeue sinfo; do
    command -v "$b" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin"
    command -v "$b" >/dev/null 2>&1 || skip_all "$b not installed (Debian: slurm-wlm, munge)"
done
[ "$(id -u)" = 0 ] || skip_all "a private single-node cluster needs root here"
trap stop EXIT

echo "TAP version 13"
host=$(hostname)
base=$((20000 + $$ % 20000))
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out"
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge.key"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=ulpgate
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$tmp/slurm.conf"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
    --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed" >"$tmp/munged.out" 2>&1
check "munged starts with a generated key" '[ -s "$tmp/munged.pid" ]' "$tmp/munged.out $tmp/munged.log"
slurmctld >"$tmp/slurmctld.out" 2>&1
slurmd >"$tmp/slurmd.out" 2>&1
up=no
for i in $(seq 1 60); do
    if sinfo -h -o "%t" 2>/dev/null | grep -q "idle"; then up=yes; break; fi
    sleep 1
done
check "slurmctld and slurmd start; the node is idle" '[ $up = yes ]' "$tmp/slurmctld.log $tmp/slurmd.log"
[ $up = yes ] || { echo "1..$n"; exit 1; }

sel="--filter reduce/* --trials 3"
"$ug" run $sel --report "$tmp/full" --tap >"$tmp/full.tap" 2>&1
check "the unsharded run passes" '[ $? = 0 ]' "$tmp/full.tap"
# shellcheck disable=SC2086
"$src/scripts/slurm/submit.sh" "$ug" "$tmp/out" 4 $sel >"$tmp/submit.txt" 2>&1
check "submit.sh submits the array and the merge job" 'grep -q "^array [0-9]" "$tmp/submit.txt" && grep -q "^merge [0-9]" "$tmp/submit.txt"' "$tmp/submit.txt"
merge=$(sed -n 's/^merge //p' "$tmp/submit.txt")
for i in $(seq 1 300); do
    [ -n "$merge" ] && squeue -h -j "$merge" 2>/dev/null | grep -q . || break
    sleep 1
done
check "the four shards and the merge ran: merged results.json and junit.xml" \
  '[ -s "$tmp/out/results.json" ] && [ -s "$tmp/out/junit.xml" ] && [ -s "$tmp/out/shard-3/results.json" ]' \
  "$tmp/out/merge.log $tmp/out/shard-0.log $tmp/slurmctld.log"
check "the merged report equals the unsharded run, row by row" 'python3 - "$tmp/full/results.json" "$tmp/out/results.json" <<PY
import json, sys
sys.path.insert(0, "$src/scripts")
from same_rows import results_rows
a = {r["id"]: r for r in results_rows(json.load(open(sys.argv[1])))}
b = {r["id"]: r for r in results_rows(json.load(open(sys.argv[2])))}
assert set(a) == set(b), sorted(set(a) ^ set(b))[:5]
skip = {"time_ms", "gbps", "gflops"}
bad = [(i, k) for i in a for k in a[i] if k not in skip and a[i][k] != b[i].get(k)]
assert not bad, bad[:5]
PY' "$tmp/out/merge.log"
echo "1..$n"
exit $fail
