#!/usr/bin/env bash
# Does the copy cost of seed 003 bring the exchange model closer to what is
# measured?  One ping-pong (Hockney alpha, beta), one smpcost run (the copy
# cost functions), one measured 1D sweep of every module on NP ranks, and the
# model's predictions for the same points without and with model.smp; prints
# the median and largest relative error of each module both ways.
#   NP=2 tools/smpcost_bench.sh [OUT]      (default OUT: results/bench/smpcost)
set -euo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
cd "$(dirname "$0")/.."
: "${SHIFTBOX:=build/shiftbox}"
: "${NP:=2}"
OUT=${1:-results/bench/smpcost}
mkdir -p "$OUT"
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
run() { # LOG COMMAND...: runs quietly, shows the log when it fails
    local log=$1
    shift
    "$@" >"$log" 2>&1 || { cat "$log"; exit 1; }
}
run "$OUT/pingpong.log" mpirun -np "$NP" "$SHIFTBOX" pingpong --out "$OUT/pingpong"
start=$SECONDS
run "$OUT/smpcost.log" mpirun -np "$NP" "$SHIFTBOX" smpcost --out "$OUT/smp"
echo "smpcost took $((SECONDS - start)) s (target: under 120)"
grep -E '^best:' "$OUT/smpcost.log"
/usr/bin/python3 tools/smpcost_accuracy.py "$OUT/smp" || true
POINTS=(-s exchange.phases=x -s exchange.module=all -s exchange.k=1,2,4,8
    -s exchange.bytes=10,1000,10000,100000 -s model.hockney="$OUT/pingpong/hockney.json")
run "$OUT/exchange.log" mpirun -np "$NP" "$SHIFTBOX" exchange -s decomp.dims="$NP",1,1 \
    "${POINTS[@]}" -s exchange.repetitions=300 -s exchange.warmup=50 --out "$OUT/exchange"
run "$OUT/model-without.log" "$SHIFTBOX" model -s model.dims="$NP",1,1 "${POINTS[@]}" \
    --out "$OUT/without"
run "$OUT/model-with.log" "$SHIFTBOX" model -s model.dims="$NP",1,1 "${POINTS[@]}" \
    -s model.smp="$OUT/smp/summary.json" --out "$OUT/with"
/usr/bin/python3 - "$OUT" <<'PY'
import csv, statistics, sys
out = sys.argv[1]
measured = {(r["module"], r["k"], r["bytes"]): float(r["median_s"])
            for r in csv.DictReader(open(f"{out}/exchange/exchange.csv"))}
def errors(name):
    e = {}
    for r in csv.DictReader(open(f"{out}/{name}/model.csv")):
        key = (r["module"], r["k"], r["bytes"])
        if key in measured:
            e.setdefault(r["module"], []).append(abs(float(r["predicted_s"]) - measured[key]) / measured[key])
    return e
without, with_ = errors("without"), errors("with")
print("model against the measured sweep: median |error| (largest), without -> with model.smp")
for m in sorted(without):
    a, b = without[m], with_[m]
    ma, mb = statistics.median(a), statistics.median(b)
    verdict = "unchanged (no copies inside a rank)" if a == b else "closer" if mb < ma else "not closer"
    print(f"  {m:12} {100*statistics.median(a):6.1f} % ({100*max(a):5.1f} %) -> "
          f"{100*statistics.median(b):6.1f} % ({100*max(b):5.1f} %)  {verdict}")
PY
