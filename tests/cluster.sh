#!/usr/bin/env bash
# The cluster scripts (tools/slurm/, docs/CLUSTER.md) as far as one machine
# can try them: the srun and mpirun lines they would run under Slurm, with
# a hostfile and with --host (dry runs), then real runs with
# mpirun --host localhost:2, a fault among them, and the placement that
# summary.json reports.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
S=$ROOT/tools/slurm
export SHIFTBOX_RESULTS=$TEST_TMP/results

# ---- dry runs: what would run ----------------------------------------------------------
slurm() { env SLURM_JOB_ID=1 SLURM_JOB_NUM_NODES=4 SLURM_NTASKS_PER_NODE=4 SHIFTBOX_DRY_RUN=1 "$@"; }
expect "sweep under Slurm: alpha/beta between 2 nodes, then 1, 2 and 4 nodes of 4 ranks" 0 \
    'srun --nodes=2 --ntasks=2 --ntasks-per-node=1 .*shiftbox pingpong --out .*/sweep-hockney' \
    'srun --nodes=1 --ntasks=4 --ntasks-per-node=4 --distribution=block:block --cpu-bind=cores .*shift-vs-teamshift.ini' \
    'srun --nodes=2 --ntasks=8 .*sweep-hockney/hockney.json --out .*/sweep-2-nodes' \
    'srun --nodes=4 --ntasks=16 .*--out .*/sweep-4-nodes' -- slurm "$S/sweep.sbatch"
expect "... and no run for 8 nodes the job does not have" 1 -- \
    bash -c "$(declare -f slurm); slurm '$S/sweep.sbatch' | grep -- '--nodes=8'"
expect "hockney under Slurm: between nodes (one rank each) and inside one" 0 \
    'srun --nodes=2 --ntasks=2 --ntasks-per-node=1 .*--out .*/hockney-inter' \
    'srun --nodes=1 --ntasks=2 --ntasks-per-node=2 .*--out .*/hockney-intra' -- slurm "$S/hockney.sbatch"
printf 'n001 slots=4\n# a comment\nn002 slots=4\n\n' >"$TEST_TMP/hosts"
expect "regression with an Open MPI hostfile: one node, then both" 0 \
    "mpirun -np 4 --map-by ppr:4:node --bind-to core --hostfile $TEST_TMP/hosts .*regression.ini --out .*/regression-1-node" \
    'mpirun -np 8 --map-by ppr:4:node .*--out .*/regression-2-nodes' -- \
    env SHIFTBOX_DRY_RUN=1 HOSTFILE="$TEST_TMP/hosts" "$S/regression.sbatch"
expect "hockney with --host: one rank per node between them" 0 \
    'mpirun -np 2 --map-by ppr:1:node --bind-to core --host n1:2,n2:2 .*pingpong' -- \
    env SHIFTBOX_DRY_RUN=1 HOSTS=n1:2,n2:2 "$S/hockney.sbatch"
expect "an unknown launcher is refused, naming it" 2 'LAUNCHER=qsub; accepted: srun or mpirun' -- \
    env LAUNCHER=qsub SHIFTBOX_DRY_RUN=1 "$S/hockney.sbatch"
expect "a hostfile that is not there is refused" 2 'HOSTFILE=/nonexistent cannot be read' -- \
    env HOSTFILE=/nonexistent SHIFTBOX_DRY_RUN=1 "$S/hockney.sbatch"

# ---- real runs on this machine: mpirun --host localhost:2 ------------------------------
local2() { env HOSTS=localhost:2 PER_NODE=2 "$@"; }
expect "hockney on one node: says what it cannot measure, measures inside the node" 0 \
    'one node only \(1\): alpha and beta between nodes not measured' 'verified: true' -- \
    local2 SHIFTBOX_EXTRA="-s pingpong.bytes=0,1000 -s pingpong.trials=2 -s pingpong.warmup=1 \
-s pingpong.loop_seconds=0.01 -s timer.samples=1000" "$S/hockney.sbatch"
expect "... summary.json gives the placement: one node, ranks 0-1" 0 -- \
    $PY -c "import json, socket; p = json.load(open('$SHIFTBOX_RESULTS/hockney-intra/summary.json'))\
['environment']['placement']; assert p['nodes'] == 1 and p['ranks_per_node'] == [2], p; \
assert p['node'][0]['ranks'] == '0-1', p"
expect "sweep on one node of 2 ranks: predictions beside every point" 0 'verified: true' -- \
    local2 SHIFTBOX_EXTRA="-s config.ignore=exchange,pingpong -s exchange.team_size=1,2 -s exchange.k=1 -s exchange.bytes=100 \
-s exchange.repetitions=2 -s exchange.warmup=1 -s exchange.interleave=1 -s timer.samples=1000 \
-s pingpong.bytes=0,100 -s pingpong.trials=2 -s pingpong.warmup=1 -s pingpong.loop_seconds=0.01" \
    "$S/sweep.sbatch"
expect "... every point of the sweep has its prediction" 0 -- \
    $PY -c "import json; s = json.load(open('$SHIFTBOX_RESULTS/sweep-1-nodes/summary.json')); \
assert s['points'] and all(p.get('predicted_s', 0) > 0 for p in s['points'])"
small_regression="-s exchange.k=1 -s exchange.bytes=0,4096 -s exchange.payload=uniform -s timer.samples=1000"
expect "regression on one node of 2 ranks passes" 0 'regression: passed on 1 node' -- \
    local2 SHIFTBOX_EXTRA="$small_regression" "$S/regression.sbatch"
expect "... and a flipped byte fails it: exit 1, no pass claimed" 1 'verified: false' -- \
    bash -c "local2() { env HOSTS=localhost:2 PER_NODE=2 \"\$@\"; }; \
local2 SHIFTBOX_EXTRA='$small_regression -s exchange.inject_fault=1' '$S/regression.sbatch' \
>'$TEST_TMP/bad.log' 2>&1; rc=\$?; cat '$TEST_TMP/bad.log'; \
! grep -q 'regression: passed' '$TEST_TMP/bad.log' && exit \$rc"

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
