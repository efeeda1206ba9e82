#!/usr/bin/env bash
# make bench: what can be measured on this machine in one run, as ratios.
#
# 1. Seed 000 Eq. 1: the 1D Shift's time is linear in k.  Two ranks in a row,
#    x phase only, k = 1..8, payloads below and above Open MPI's 4 KiB
#    shared-memory eager limit; prints T(k) / (k T(1)) per payload.  The
#    points take turns (10 exchanges each), so that the machine's drift
#    (seen here: a shared VM slowing 2-3x for seconds) hits every k alike.
# 2. The modules against the Shift: every module on the same boxes, points
#    taking turns, k = 1..3, 100 B and 10 kB; prints each median over the
#    Shift's.
# 2b. The modules against the hand-written baselines (exchange.baseline=all:
#    Isend/Irecv per distinct peer, Neighbor_alltoallv, LAMMPS-style staged
#    Sendrecv), k = 1..4, 10 B .. 100 kB; prints each module over the
#    fastest baseline (target 1.3) and the Shift's excess taken apart,
#    against baseline-ssend (the same messages with its rendezvous) among
#    others (tools/baseline_check.py).
# 3. The MD proxy beside LAMMPS (Debian's lmp, plain and -sf opt) and miniMD
#    (from MINIMD_DIR, skipped without it) on the same LJ benchmark, 32 000
#    and 256 000 atoms, 1 and NP ranks: medians of RUNS_MD runs, ShiftBox's
#    ratios with its exact rebuild trigger and with the peers' policy, its
#    peak memory per atom over LAMMPS's, and step 0's energies agreeing
#    (tools/md_peers.sh).
# 4. The models' honesty: tools/model_check.py run, three times (pingpong
#    with every pattern the models use, then a 2-rank 1D sweep of every
#    module against their prediction, then the pingpong again to tell
#    whether the machine kept its speed, and the yardstick baseline-p2p
#    against direct's prediction from the sweep's own turns, in one run;
#    target: median |error| <= 10 % per module in each run), and
#    tools/auto_check.py --repeats (how
#    often exchange.module=auto would have picked the fastest module, in
#    every run and at the points where the three runs agree which module is
#    fastest, and what a wrong pick cost; targets 90 % and 20 %).
# 5. Checkpoints (issue 6): 32 000 and 4 M atoms written and read back,
#    against dd writing as many bytes (tools/checkpoint_bench.sh; target
#    0.6 for the write, against dd beside the ranks' resident memory).
# 6. Seed 003's copy cost: smpcost's time (target under 120 s), its fits'
#    accuracy (tools/smpcost_accuracy.py: target 10 %, a miss above 15 %
#    said so) and whether model.smp brings the exchange model closer to the
#    measured sweep (tools/smpcost_bench.sh).
# 7. The CPU stencil against the memory (tools/stencil_bench.py): one plain
#    sweep over the copy bandwidth (target 0.8) and temporal blocking at
#    depth >= 4 over the single-sweep roofline (target 2), 2D and 3D, 1 and
#    NP ranks, plain and blocked taking turns.
# Ends with one table of every ratio and target above (tools/bench_table.py,
# read from results/bench/bench.log, where everything printed also goes).
# At most 2 ranks: more than the cores would oversubscribe and time nothing.
set -euo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
[[ $# -eq 0 ]] || { echo "bench.sh: takes no arguments, got '$*' (--help)" >&2; exit 2; }
cd "$(dirname "$0")/.."
: "${RUNS_MD:=3}"
: "${SHIFTBOX:=build/shiftbox}"
: "${NP:=2}"
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
benches() {
out=results/bench/shift-1d
echo "== bench 1: 1D Shift, $NP ranks, time against k (seed 000 Eq. 1)"
mpirun -np "$NP" "$SHIFTBOX" exchange -s decomp.dims="$NP",1,1 -s exchange.phases=x \
    -s exchange.k=1-8 -s exchange.bytes=10,1000,10000,100000 -s exchange.repetitions=300 \
    -s exchange.warmup=50 -s exchange.interleave=10 --out "$out" >"$out.log" 2>&1 ||
    { cat "$out.log"; exit 1; }
grep -E '^verified' "$out.log"
/usr/bin/python3 tools/shift_scaling.py "$out"

out=results/bench/modules
echo
echo "== bench 2: every module against the Shift, $NP ranks, one run"
mpirun -np "$NP" "$SHIFTBOX" exchange -s exchange.module=all -s exchange.k=1-3 \
    -s exchange.bytes=100,10000 -s exchange.repetitions=200 -s exchange.warmup=20 \
    --out "$out" >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
grep -E '^verified' "$out.log"
/usr/bin/python3 tools/compare_modules.py "$out"

out=results/bench/baselines
echo
echo "== bench 2b: every module against hand-written MPI (comm/baseline.c), $NP ranks, one run"
mpirun -np "$NP" "$SHIFTBOX" exchange -s exchange.module=all -s exchange.baseline=all \
    -s exchange.k=1-4 -s exchange.bytes=10,1000,100000 -s exchange.repetitions=200 \
    -s exchange.warmup=20 --out "$out" >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
grep -E '^verified' "$out.log"
/usr/bin/python3 tools/baseline_check.py "$out"

echo
echo "== bench 3: MD proxy beside LAMMPS and miniMD, 32 000 and 256 000 atoms, 1 and $NP ranks"
NPS="1 $NP" RUNS="$RUNS_MD" SHIFTBOX="$SHIFTBOX" tools/md_peers.sh 20 40

echo
echo "== bench 4: the models against measurement, $NP ranks (target: median |error| <= 10 % per module)"
# pingpong (every pattern the models use), then the 1D sweep of every
# module with those costs, in one run, three times; then how often auto chose
# the fastest module, in each run and where the runs agree on it
for run in 1 2 3; do
    echo "# model check, run $run of 3"
    /usr/bin/python3 tools/model_check.py run "results/bench/model-check-$run" --np "$NP" || true
done
/usr/bin/python3 tools/auto_check.py --repeats results/bench/model-check-{1,2,3}/sweep || true
/usr/bin/python3 tools/plot_model.py results/bench/model-check-1/sweep/exchange.csv >/dev/null

echo
echo "== bench 5: checkpoints against dd, $NP ranks (target: write >= 0.6 x dd beside the ranks' memory)"
NP="$NP" SHIFTBOX="$SHIFTBOX" tools/checkpoint_bench.sh 20 100

echo
echo "== bench 6: seed 003's copy cost: smpcost's time (target < 120 s), and the exchange model"
echo "   without and with model.smp against one measured sweep, $NP ranks"
NP="$NP" SHIFTBOX="$SHIFTBOX" tools/smpcost_bench.sh results/bench/smpcost

echo
echo "== bench 7: the CPU stencil against the memory, 1 and $NP ranks (targets: one sweep >= 0.8"
echo "   x copy; temporal blocking at depth >= 4 >= 2 x the single-sweep roofline)"
/usr/bin/python3 tools/stencil_bench.py results/bench/stencil --np "1,$NP" --shiftbox "$SHIFTBOX"
}

# everything printed goes to bench.log too; the table at the end is read
# from it once the benchmarks (and tee) are done
mkdir -p results/bench
benches 2>&1 | tee results/bench/bench.log
/usr/bin/python3 tools/bench_table.py results/bench/bench.log
