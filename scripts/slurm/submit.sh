#!/bin/sh
# submit.sh ULPGATE OUT_DIR N [RUN OPTIONS...] - an ulpgate run over a Slurm cluster: a job array
# of N tasks, one shard each (shard.sbatch), then a merge job that starts only if every task
# succeeded (--dependency=afterok) and writes OUT_DIR/results.json (merge.sbatch), then the gate
# when ULPGATE_GATE names its command (it gets the merged results.json as its last argument).
# Prints the two job ids ("array JOBID", "merge JOBID").  Extra sbatch options: SBATCH_OPTS
# (e.g. "--partition=gpu --gres=gpu:1").
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 ULPGATE OUT_DIR N [RUN OPTIONS...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
ULPGATE=$(readlink -f "$1")
ULPGATE_OUT=$(mkdir -p "$2" && cd "$2" && pwd)
ULPGATE_SHARDS=$3
shift 3
# each run option single-quoted ('\'' for a quote): shard.sbatch reads them back as the same
# words, so that "--filter reduce/*" is not globbed against the job's directory and an argument
# with a blank stays one
ULPGATE_RUN_ARGS=""
for a in "$@"; do
    ULPGATE_RUN_ARGS="$ULPGATE_RUN_ARGS '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done
export ULPGATE ULPGATE_OUT ULPGATE_SHARDS ULPGATE_RUN_ARGS
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_OPTS:-} --array=0-$((ULPGATE_SHARDS - 1)) \
    --output="$ULPGATE_OUT/shard-%a.log" --export=ALL "$here/shard.sbatch")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTS:-} --dependency=afterok:"$array" \
    --output="$ULPGATE_OUT/merge.log" --export=ALL "$here/merge.sbatch")
echo "array $array"
echo "merge ${merge%%;*}"
