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
# 3. The MD proxy, 32 000 atoms, 100 steps (configs/md-lj.ini) on 1 and 2
#    ranks: atom-steps/s, the median of RUNS runs (this VM's speed drifts by
#    10-20 % between runs) with their range, over miniMD's reference build on
#    the same problem (half lists, reneighbouring every 20, -O3), which
#    measured 2.40 M atom-steps/s on one core of this kind of machine.
# 4. The models' honesty: tools/model_check.py run (pingpong with every
#    pattern the models use, then a 2-rank 1D sweep of every module against
#    their prediction, in one run; target: median |error| <= 10 % per
#    module), and tools/auto_check.py (how often exchange.module=auto would
#    have picked the fastest module, and what a wrong pick cost).
# 5. Checkpoints (issue 6): 32 000 and 4 M atoms written and read back,
#    against dd writing as many bytes (tools/checkpoint_bench.sh).
# At most 2 ranks: more than the cores would oversubscribe and time nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RUNS:=5}"
MINIMD_REFERENCE=2.40e6
: "${SHIFTBOX:=build/shiftbox}"
: "${NP:=2}"
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
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

echo
echo "== bench 3: MD proxy, 32 000 atoms, 100 steps, $RUNS runs per rank count"
for np in 1 2; do
    for run in $(seq "$RUNS"); do
        mpirun -np "$np" "$SHIFTBOX" md -c configs/md-lj.ini --out "results/bench/md-$np-$run" \
            >"results/bench/md-$np-$run.log" 2>&1 || { cat "results/bench/md-$np-$run.log"; exit 1; }
    done
done
/usr/bin/python3 - "$RUNS" "$MINIMD_REFERENCE" <<'PYEOF'
import json, statistics, sys
runs, reference = int(sys.argv[1]), float(sys.argv[2])
for np in (1, 2):
    rates = [json.load(open(f"results/bench/md-{np}-{r}/summary.json"))["md"]["atom_steps_per_second"]
             for r in range(1, runs + 1)]
    median = statistics.median(rates)
    print(f"{np} rank(s): {median / 1e6:.3f} M atom-steps/s median (range {min(rates) / 1e6:.3f}"
          f"-{max(rates) / 1e6:.3f}); per rank over miniMD's 2.40 M on one core: "
          f"{median / np / reference:.2f}")
PYEOF

echo
echo "== bench 4: the models against measurement, $NP ranks (target: median |error| <= 10 % per module)"
# pingpong (every pattern the models use), then the 1D sweep of every
# module with those costs, in one run; then how often auto chose the fastest
/usr/bin/python3 tools/model_check.py run results/bench/model-check --np "$NP" || true
/usr/bin/python3 tools/auto_check.py results/bench/model-check/sweep || true
/usr/bin/python3 tools/plot_model.py results/bench/model-check/sweep/exchange.csv >/dev/null

echo
echo "== bench 5: checkpoints against dd, $NP ranks (target: write and read >= 0.5 x dd)"
NP="$NP" SHIFTBOX="$SHIFTBOX" tools/checkpoint_bench.sh 20 100

echo
echo "== bench 6: seed 003's copy cost: smpcost's time (target < 120 s), and the exchange model"
echo "   without and with model.smp against one measured sweep, $NP ranks"
NP="$NP" SHIFTBOX="$SHIFTBOX" tools/smpcost_bench.sh results/bench/smpcost
