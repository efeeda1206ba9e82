#!/usr/bin/env bash
# The deep-halo stencil on the CPU backend (CI has no GPU): every variant
# (1-8 ranks, 2D/3D, depths 1-8, sync/async, overlap on/off, uneven sizes)
# verified bit for bit against a single-rank depth-1 run, a corrupted halo
# value caught, the same field hash on any decomposition, the outputs a
# plotting script reads, and the errors a user can meet.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ALL_VARIANTS=(-s stencil.depth=1,2,3,5,8 -s stencil.exchange=sync,async -s stencil.overlap=0,1
    -s stencil.verify=1 -s stencil.backend=cpu)

# ---- the acceptance runs of the issue ------------------------------------------
expect "2D 512x384, 4 ranks, depth 4, sync, overlap: verified" 0 \
    'verified: true \(every point bit for bit' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" stencil -s stencil.dim=2 -s stencil.size=512,384 \
    -s stencil.depth=4 -s stencil.iterations=40 -s stencil.exchange=sync -s stencil.overlap=1 \
    -s stencil.backend=cpu -s stencil.verify=1
expect "3D 512x384x384, 8 ranks, depth 4, async, overlap: verified" 0 \
    'verified: true \(every point bit for bit' '512 x 384 x 384 grid on 8 ranks \(2 x 2 x 2\)' -- \
    "${MPIRUN[@]}" -np 8 "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=512,384 \
    -s stencil.depth=4 -s stencil.iterations=40 -s stencil.exchange=async -s stencil.overlap=1 \
    -s stencil.backend=cpu -s stencil.verify=1

# ---- every variant, uneven sizes ------------------------------------------------
# 20 points per run (5 depths x sync/async x overlap 0/1), each verified.
for np in 1 2 3 4 6 8; do
    expect "2D 101x77 np=$np: 20 variants bit for bit" 0 'verified: true' -- \
        "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" stencil -s stencil.dim=2 -s stencil.size=101,77 \
        -s stencil.iterations=17 "${ALL_VARIANTS[@]}"
    expect "3D 37x29x23 np=$np: 20 variants bit for bit" 0 'verified: true' -- \
        "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=37,29,23 \
        -s stencil.iterations=11 "${ALL_VARIANTS[@]}"
done
expect "double precision, custom weights, 2 threads per rank: verified" 0 'verified: true' \
    'cpu double' -- \
    "${MPIRUN[@]}" -np 3 "$SHIFTBOX" stencil -s stencil.size=90,61 -s stencil.precision=double \
    -s stencil.weights=0.1,0.2,0.3,0.25,0.15 -s stencil.threads=2 -s stencil.iterations=13 \
    -s stencil.depth=2,6 -s stencil.overlap=0,1 -s stencil.verify=1
expect "an explicit 1 x 4 rank grid (decomp.dims), with warm-up" 0 'verified: true' \
    '\(1 x 4\)' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" stencil -s stencil.size=64,64 -s decomp.dims=1,4,1 \
    -s stencil.depth=3 -s stencil.warmup=5 -s stencil.iterations=10 -s stencil.verify=1

# ---- faults are caught ------------------------------------------------------------
expect "one corrupted halo value fails verification (exit 1)" 1 'verified: false' \
    'points differ from the single-rank depth-1 run' 'fault injected after exchange 1' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" stencil -s stencil.size=64,64 -s stencil.depth=3 \
    -s stencil.iterations=12 -s stencil.verify=1 -s stencil.inject_fault=1
expect "a corrupted 3D async halo is caught too" 1 'verified: false' -- \
    "${MPIRUN[@]}" -np 8 "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=24 \
    -s stencil.depth=2 -s stencil.exchange=async -s stencil.iterations=6 -s stencil.verify=1 \
    -s stencil.inject_fault=0

# ---- the same field on any decomposition (hash), without verify ----------------
hash_of() { grep -Eo 'field hash [0-9a-f]+' "$1" | awk '{print $3}'; }
for np in 1 4 6; do
    "${MPIRUN[@]}" -np $np "$SHIFTBOX" stencil -s stencil.size=70,50 -s stencil.depth=$np \
        -s stencil.iterations=9 >"$TEST_TMP/hash-$np.log" 2>&1
done
h1=$(hash_of "$TEST_TMP/hash-1.log")
h4=$(hash_of "$TEST_TMP/hash-4.log")
h6=$(hash_of "$TEST_TMP/hash-6.log")
if [[ -n $h1 && $h1 == "$h4" && $h1 == "$h6" ]]; then
    pass "field hash $h1 alike on 1, 4 and 6 ranks with depths 1, 4, 6"
else
    fail "field hashes differ: 1 rank $h1, 4 ranks $h4, 6 ranks $h6" "$TEST_TMP/hash-4.log"
fi
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=70,50 -s stencil.iterations=9 \
    -s stencil.weights=0.125,0.125,0.5,0.125,0.126 >"$TEST_TMP/hash-w.log" 2>&1
if [[ $(hash_of "$TEST_TMP/hash-w.log") != "$h1" ]]; then
    pass "the hash sees a change of one weight in the last bits"
else
    fail "the hash did not change with the weights" "$TEST_TMP/hash-w.log"
fi

# ---- outputs and plots --------------------------------------------------------------
out=$TEST_TMP/sweep
expect "a sweep writes summary.json and stencil.csv" 0 'results: .*stencil.csv' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=128,96 -s stencil.depth=1,2,4 \
    -s stencil.exchange=sync,async -s stencil.overlap=0,1 -s stencil.iterations=8 \
    -s stencil.calibrate=1 --out "$out"
rows=$(($(wc -l <"$out/stencil.csv") - 1))
cols=$(head -1 "$out/stencil.csv")
if [[ $rows -eq 12 && $cols == *execution,pack,unpack,inner,outer,primary,message,desync* ]]; then
    pass "stencil.csv: 12 rows, seed 004 Appendix C's columns"
else
    fail "stencil.csv: $rows rows, columns $cols" "$out/stencil.csv"
fi
ratio=$(md_value "$out" results.calibration.ratio)
if $PY -c "import sys; sys.exit(not 0 < $ratio < 100)"; then
    pass "calibrate reports a sweep/copy bandwidth ratio ($ratio)"
else
    fail "calibration ratio $ratio"
fi
expect "plot_stencil.py draws time against depth, the breakdown and the hidden share" 0 \
    'hidden' -- $PY "$ROOT/tools/plot_stencil.py" "$out/stencil.csv" --out "$TEST_TMP/plot"
if [[ -s $TEST_TMP/plot/stencil-depth.png && -s $TEST_TMP/plot/stencil-breakdown.png ]]; then
    pass "plots written"
else
    fail "plots missing"
fi
expect "the CI config runs and verifies" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -c "$ROOT/configs/stencil-ci.ini"

# ---- what a user can get wrong -----------------------------------------------------
expect "a depth deeper than a subdomain: exit 2 with the numbers" 2 \
    'stencil.depth = 40: larger than the smallest subdomain \(32 points along x = 64 / 2' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=64,64 -s stencil.depth=40
expect "too many size values: exit 2" 2 "stencil.size = '4,4,4': 3 values for stencil.dim = 2" \
    -- "$SHIFTBOX" stencil -s stencil.size=4,4,4
expect "weights of the wrong count: exit 2" 2 'accepted: 7 for stencil.dim = 3' -- \
    "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.weights=1,2,3,4,5
expect "a 2D stencil on a 3D rank grid: exit 2" 2 'a 2D stencil needs 1 \(or 0\) ranks along z' \
    -- "$SHIFTBOX" stencil -s decomp.dims=1,1,2
expect "verify of a field too big for rank 0: exit 2" 2 'stencil.verify = 1: the global field' \
    -- "$SHIFTBOX" stencil -s stencil.size=20000,20000 -s stencil.verify=1
expect "a field larger than the node's memory: exit 2" 2 'this node has' -- \
    "$SHIFTBOX" stencil -s stencil.size=200000,200000
expect "stencil.backend=cuda without a GPU: exit 2 naming the reason" 2 \
    'stencil.backend = cuda: no usable GPU' -- "$SHIFTBOX" stencil -s stencil.backend=cuda
expect "backend auto without a GPU: one line, then the CPU" 0 \
    'stencil: no usable GPU .*: using the CPU backend' -- \
    "$SHIFTBOX" stencil -s stencil.size=64 -s stencil.iterations=4
expect "stencil --help lists the keys" 0 'stencil.depth' 'stencil.cuda_aware' -- \
    "$SHIFTBOX" stencil --help

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
