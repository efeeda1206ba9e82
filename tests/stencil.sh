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

# variants_agree NP LABEL "2D KEYS" "3D KEYS" [PATTERN...]: every variant on
# the uneven 2D and 3D fields with the keys given, verified bit for bit.
variants_agree() {
    local np=$1 label=$2 keys2=$3 keys3=$4
    shift 4
    expect "2D and 3D np=$np, $label: 20 variants bit for bit" 0 'verified: true' "$@" -- \
        bash -c "${MPIRUN[*]} -np $np $SHIFTBOX stencil -s stencil.dim=2 -s stencil.size=101,77 \
            -s stencil.iterations=17 $keys2 ${ALL_VARIANTS[*]} &&
            ${MPIRUN[*]} -np $np $SHIFTBOX stencil -s stencil.dim=3 -s stencil.size=37,29,23 \
            -s stencil.iterations=11 $keys3 ${ALL_VARIANTS[*]}"
}
# halo_fault_caught WHAT KEY: a corrupted 3D halo value fails verification.
halo_fault_caught() {
    expect "... and a corrupted halo value is caught with $1 too (exit 1)" 1 'verified: false' -- \
        "${MPIRUN[@]}" -np 4 "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=24 \
        -s stencil.depth=3 -s stencil.iterations=12 -s stencil.verify=1 -s stencil.inject_fault=1 \
        -s "$2"
}

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

# stencil.sweep=full (seed 004's sweeps on the whole extended subdomain): the same bits
for np in 2 3; do
    variants_agree $np stencil.sweep=full "-s stencil.sweep=full" "-s stencil.sweep=full"
done
expect "... and a corrupted halo value is caught with full sweeps too (exit 1)" 1 \
    'verified: false' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" stencil -s stencil.size=64,64 -s stencil.depth=3 \
    -s stencil.iterations=12 -s stencil.verify=1 -s stencil.inject_fault=1 -s stencil.sweep=full

# stencil.blocking=temporal (the d sweeps of an exchange in one pass, tile by
# tile): the same bits, with the smallest tiles (2 lines) and sized ones
for np in 2 3; do
    variants_agree $np stencil.blocking=temporal "-s stencil.blocking=temporal -s stencil.tile=2" \
        "-s stencil.blocking=temporal -s stencil.sweep=full" 'temporal blocking'
done
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=64,64 -s stencil.depth=1,4 \
    -s stencil.iterations=8 -s stencil.blocking=temporal --out "$TEST_TMP/temporal" >/dev/null 2>&1
if [[ $(md_value "$TEST_TMP/temporal" results.blocking) == temporal &&
    $(cut -d, -f24 "$TEST_TMP/temporal/stencil.csv" | sort -u | tr '\n' ' ') == "blocking temporal " ]]; then
    pass "summary.json and stencil.csv say temporal blocking ran"
else
    fail "results.blocking or stencil.csv's blocking column" "$TEST_TMP/temporal/stencil.csv"
fi
halo_fault_caught "temporal blocking" stencil.blocking=temporal

# stencil.tile=0 (the default): the tile is tuned on batches of the run's
# own shape (src/stencil/tune.c) where the CPU offers more than one (a 3D
# field of 8192 y lines, more than the tile of half an L2 of up to 40 MiB
# on 2 ranks); the point runs with the fastest; the tuning's sweeps leave no
# trace: the same hash as tiles of 2 and plain sweeps, with overlap, async
# exchanges, warmup and the uneven split of 3 ranks, and verified against
# a single-rank depth-1 run, where a corrupted halo value is still caught
tuned() { # NP DIMS NAME KEYS...
    "${MPIRUN[@]}" -np "$1" "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=16,8192,8 \
        -s decomp.dims="$2" -s stencil.depth=8 -s stencil.iterations=16 -s stencil.backend=cpu \
        -s stencil.overlap=0,1 "${@:4}" --out "$TEST_TMP/$3" >"$TEST_TMP/$3.log" 2>&1
}
tuning_right() { # TUNED TILE2 PLAIN: every point tuned, ran the fastest, one hash in all
    $PY - "$@" <<'PYEOF'
import json, sys
runs = [json.load(open(f"{d}/summary.json"))["results"]["points"] for d in sys.argv[1:]]
for p in runs[0]:
    t = p["tile_tuning"]
    tiles = [c["tile"] for c in t["timed"]]
    best = min(t["timed"], key=lambda c: c["seconds"])["tile"]
    assert len(tiles) >= 2 and tiles == sorted(set(tiles)) and t["chosen"] == best, t
    assert p["tile"] == best, (p["tile"], t)
    assert t["batch"] == 8 and t["sweeps"] == 8 - p["overlap"], t
assert all(p["tile"] == 2 for p in runs[1]), runs[1]
hashes = {p["field_hash"] for run in runs for p in run}
assert len(hashes) == 1, hashes
PYEOF
}
if l2_known; then
    for np in 1 2 3; do
        dims=1,$np,1
        more=()
        [[ $np == 3 ]] && more=(-s stencil.exchange=sync,async -s stencil.warmup=3)
        if tuned $np $dims tuned$np -s stencil.blocking=temporal "${more[@]}" &&
            tuned $np $dims tile2-$np -s stencil.blocking=temporal -s stencil.tile=2 "${more[@]}" &&
            tuned $np $dims plain$np "${more[@]}" &&
            grep -q 'tile: [0-9]* y lines, the fastest of' "$TEST_TMP/tuned$np.log" &&
            tuning_right "$TEST_TMP/tuned$np" "$TEST_TMP/tile2-$np" "$TEST_TMP/plain$np"; then
            pass "np=$np${more:+ (sync and async, warmup)}: stencil.tile=0 tunes the tile, runs the fastest and leaves the same field"
        else
            fail "np=$np: tile tuning" "$TEST_TMP/tuned$np.log"
        fi
    done
    for fault in -1 1; do # -1: none
        if [[ $fault == -1 ]]; then
            what="tuned tiles on 2 ranks: verified against a single-rank depth-1 run" rc=0
        else
            what="... and a corrupted halo value is caught with tuned tiles (exit 1)" rc=1
        fi
        expect "$what" $rc "verified: $([[ $rc == 0 ]] && echo true || echo false)" \
            'tile: [0-9]* y lines, the fastest of' -- \
            "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=16,8192,8 \
            -s decomp.dims=1,2,1 -s stencil.depth=8 -s stencil.iterations=16 \
            -s stencil.blocking=temporal -s stencil.verify=1 -s stencil.inject_fault=$fault
    done
    # a restart tunes before the load: checkpoint a tuned run half way, restart from it
    T3=(-s stencil.dim=3 -s stencil.size=16,8192,8 -s decomp.dims=1,2,1 -s stencil.depth=8
        -s stencil.iterations=16 -s stencil.blocking=temporal)
    expect "tuned tiles: a checkpoint at iteration 8 and a restart from it leave the plain sweeps' field" \
        0 "field hash $(grep -Eo 'field hash [0-9a-f]+' "$TEST_TMP/plain2.log" | awk '{print $3}')" \
        'restart: .*iteration 8 of 16' 'tile: [0-9]* y lines, the fastest of' -- bash -c "
        ${MPIRUN[*]} -np 2 '$SHIFTBOX' stencil ${T3[*]} -s checkpoint.every=8 \
            --out '$TEST_TMP/ck-tuned' >/dev/null 2>&1 &&
        ${MPIRUN[*]} -np 2 '$SHIFTBOX' stencil ${T3[*]} \
            --restart '$TEST_TMP/ck-tuned/stencil-00000008.h5'"
else
    skip "stencil.tile=0 tuning" "no L2 size in sysfs or getconf: one tile, nothing to tune"
fi

# stencil.stores=streaming (non-temporal stores, gpu/backend_cpu_simd.c):
# every variant the same bits; the outputs say which stores ran (streaming
# where the processor has AVX2 or AVX-512, else cached)
want_stores=$(grep -qw avx2 /proc/cpuinfo && echo streaming || echo cached)
first_hash() { $PY -c "import json; print(json.load(open('$1/summary.json'))['results']['points'][0]['field_hash'])"; }
for np in 1 3; do
    variants_agree $np stencil.stores=streaming "-s stencil.stores=streaming" \
        "-s stencil.stores=streaming -s stencil.sweep=full"
done
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=64,64 -s stencil.depth=1,4 \
    -s stencil.iterations=8 -s stencil.stores=streaming --out "$TEST_TMP/streaming" >/dev/null 2>&1
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=64,64 -s stencil.depth=1,4 \
    -s stencil.iterations=8 -s stencil.stores=cached --out "$TEST_TMP/cached" >/dev/null 2>&1
stores_of() { cut -d, -f25 "$1/stencil.csv" | sort -u | tr '\n' ' '; }
if [[ $(stores_of "$TEST_TMP/streaming") == $(printf '%s\n' stores "$want_stores" | sort | tr '\n' ' ') &&
    $(stores_of "$TEST_TMP/cached") == "cached stores " &&
    $(first_hash "$TEST_TMP/streaming") == $(first_hash "$TEST_TMP/cached") ]]; then
    pass "stencil.csv says which stores ran ($want_stores, cached), the same field hash"
else
    fail "stencil.csv's stores column or the field hashes" "$TEST_TMP/streaming/stencil.csv"
fi
halo_fault_caught "streaming stores" stencil.stores=streaming

# stencil.stores=auto: streaming where the two fields exceed an eighth of
# the last-level cache (gpu/backend_cpu.c, cpu_cache_bytes), cached below;
# one field twice that share and one a quarter of it, 1 rank
cache=$(getconf LEVEL3_CACHE_SIZE 2>/dev/null || echo 0)
[[ $cache -gt 0 ]] || cache=$(getconf LEVEL2_CACHE_SIZE 2>/dev/null || echo 0)
[[ $cache -gt 0 ]] || cache=$((32 << 20))
auto_stores() { # EDGE: the stores an auto 2D float run of EDGE^2 points chose
    "${MPIRUN[@]}" -np 1 "$SHIFTBOX" stencil -s stencil.size="$1" -s stencil.depth=1 \
        -s stencil.iterations=1 --out "$TEST_TMP/auto-$1" >/dev/null 2>&1 &&
        tail -n 1 "$TEST_TMP/auto-$1/stencil.csv" | cut -d, -f25
}
# two fields of 4 bytes a point: edge^2 * 8 = cache / 8 * share
large=$($PY -c "import math; print(math.ceil(math.sqrt($cache / 8 * 2 / 8)))")
small=$($PY -c "import math; print(math.ceil(math.sqrt($cache / 8 / 4 / 8)))")
got_large=$(auto_stores "$large") got_small=$(auto_stores "$small")
if [[ $got_large == "$want_stores" && $got_small == cached ]]; then
    pass "stencil.stores=auto: $want_stores at ${large}^2, cached at ${small}^2 (last-level cache $((cache >> 20)) MiB)"
else
    fail "stencil.stores=auto chose '$got_large' at ${large}^2 and '$got_small' at ${small}^2" \
        "$TEST_TMP/auto-$large/stencil.csv"
fi

# ---- faults are caught ------------------------------------------------------------
expect "one corrupted halo value fails verification (exit 1)" 1 'verified: false' \
    'points differ from the single-rank depth-1 run' 'fault injected after exchange 1' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" stencil -s stencil.size=64,64 -s stencil.depth=3 \
    -s stencil.iterations=12 -s stencil.verify=1 -s stencil.inject_fault=1
expect "a corrupted 3D async halo is caught too" 1 'verified: false' -- \
    "${MPIRUN[@]}" -np 8 "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=24 \
    -s stencil.depth=2 -s stencil.exchange=async -s stencil.iterations=6 -s stencil.verify=1 \
    -s stencil.inject_fault=0
expect "without stencil.verify, points whose field hashes disagree: exit 1, verified: false, not unchecked" \
    1 "verified: false \(the points' field hashes disagree" 'the variants disagree' -- \
    bash -c '"$0" "$@" && exit 9; rc=$?; /usr/bin/python3 -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"results\"][\"verified\"] != \"false\")" "'"$TEST_TMP/nover"'/summary.json" &&
        exit $rc' "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=64 \
    -s stencil.iterations=8 -s stencil.depth=1,2 -s stencil.inject_fault=1 --out "$TEST_TMP/nover"
expect "a fault after every point's last exchange is refused (exit 2), not a silent pass" 2 \
    'stencil.inject_fault = 8: the run.s points make at most 8 exchanges .*accepted: -1 \(none\) or 0..7' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=64 -s stencil.iterations=8 \
    -s stencil.depth=1,4 -s stencil.verify=1 -s stencil.inject_fault=8

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
# the sweeps in the L2: a rate, its ratio to the roofline of the same run,
# on a field whose two copies as stored (halo and padding) fit half of that
# cache, in 2D (the run above) and 3D
expect "calibrate in 3D, 2 ranks" 0 'calibrate: in the cache' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=24 \
    -s stencil.iterations=2 -s stencil.calibrate=1 --out "$TEST_TMP/calibrate-3d"
for run in "$out" "$TEST_TMP/calibrate-3d"; do
    if $PY - "$run/summary.json" <<'PYEOF'; then
import json, sys
c = json.load(open(sys.argv[1]))["results"]["calibration"]
near, roof = c["in_cache_gcells_per_s"], c["roofline_gcells_per_s"]
ok = (near > 0 and abs(roof - c["copy_gb_per_s"] / 8) < 1e-9 * roof
      and abs(c["in_cache_over_roofline"] - near / roof) < 1e-9 * near / roof
      and 2 * c["in_cache_field_bytes_per_rank"] <= c["near_cache_bytes"] / 2)
sys.exit(not ok)
PYEOF
        pass "calibrate times sweeps of a field in the L2 against the roofline of the same run ($(basename "$run"))"
    else
        fail "calibrate's in-cache figures ($(basename "$run"))" "$run/summary.json"
    fi
done
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

# ---- checkpoints of the field and restarts (checkpoint.every, --restart) ---------------
CK=(-s stencil.size=90,61 -s stencil.depth=3 -s stencil.backend=cpu -s stencil.iterations=40)
hash_of_run() { grep -Eo 'field hash [0-9a-f]+' "$1" | awk '{print $3}'; }
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil "${CK[@]}" >"$TEST_TMP/ck-plain.log" 2>&1
plain=$(hash_of_run "$TEST_TMP/ck-plain.log")
expect "checkpoint.every=16 on 2 ranks: stencil-16 and -32 (.h5 with .xmf), the same field hash" 0 \
    "field hash $plain" 'checkpoint: .*stencil-00000016.h5' 'checkpoint: .*stencil-00000032.h5' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil "${CK[@]}" -s checkpoint.every=16 --out "$TEST_TMP/ck"
expect "... with their XDMF sidecars" 0 -- test -s "$TEST_TMP/ck/stencil-00000016.xmf" -a \
    -s "$TEST_TMP/ck/stencil-00000032.xmf"
expect "restart from iteration 32 on 3 ranks: bit for bit (verified, same hash)" 0 \
    'restart: .*iteration 32 of 40' "field hash $plain" 'verified: true' -- \
    "${MPIRUN[@]}" -np 3 "$SHIFTBOX" stencil "${CK[@]}" -s stencil.verify=1 \
    --restart "$TEST_TMP/ck/stencil-00000032.h5"
expect "restart from iteration 16 on 1 rank, async with overlap and depth 5: same hash" 0 \
    "field hash $plain" -- "$SHIFTBOX" stencil -s stencil.size=90,61 -s stencil.depth=5 \
    -s stencil.exchange=async -s stencil.overlap=1 -s stencil.backend=cpu \
    -s stencil.iterations=40 --restart "$TEST_TMP/ck/stencil-00000016.h5"
D3=(-s stencil.dim=3 -s stencil.size=24,20,18 -s stencil.precision=double -s stencil.depth=2
    -s stencil.backend=cpu -s stencil.iterations=12)
"$SHIFTBOX" stencil "${D3[@]}" >"$TEST_TMP/ck3-plain.log" 2>&1
expect "3D double: checkpoint on 4 ranks, restart on 2, same hash as 1 rank uninterrupted" 0 \
    "field hash $(hash_of_run "$TEST_TMP/ck3-plain.log")" -- bash -c "
    ${MPIRUN[*]} -np 4 '$SHIFTBOX' stencil ${D3[*]} -s checkpoint.every=5 -s checkpoint.keep=1 \
        --out '$TEST_TMP/ck3' >/dev/null 2>&1 &&
    ${MPIRUN[*]} -np 2 '$SHIFTBOX' stencil ${D3[*]} --restart '$TEST_TMP/ck3/stencil-00000010.h5'"
expect "checkpoint.keep=1 removes the older checkpoint and its sidecar" 0 -- bash -c "
    test -e '$TEST_TMP/ck3/stencil-00000010.h5' -a -e '$TEST_TMP/ck3/stencil-00000010.xmf' &&
    test ! -e '$TEST_TMP/ck3/stencil-00000005.h5' -a ! -e '$TEST_TMP/ck3/stencil-00000005.xmf'"
"$SHIFTBOX" stencil "${CK[@]}" -s checkpoint.every=16 --out "$TEST_TMP/ck1" >/dev/null 2>&1
expect "the field a checkpoint holds does not depend on the rank grid (1 and 2 ranks, bit for bit)" 0 -- \
    $PY -c "
import h5py, numpy as np
a = h5py.File('$TEST_TMP/ck/stencil-00000016.h5', 'r')['field'][...]
b = h5py.File('$TEST_TMP/ck1/stencil-00000016.h5', 'r')['field'][...]
assert a.shape == (61, 90) and a.dtype == np.float32 and np.array_equal(a, b)"
expect "the XDMF sidecar names the dataset, its shape and precision (what ParaView reads)" 0 -- \
    $PY - "$TEST_TMP/ck3/stencil-00000010.xmf" <<'PYEOF'
import os, sys, xml.etree.ElementTree as ET
import h5py
xmf = sys.argv[1]
grid = ET.parse(xmf).getroot().find("Domain/Grid")
topo = grid.find("Topology")
item = grid.find("Attribute/DataItem")
name, dataset = item.text.split(":")
field = h5py.File(os.path.join(os.path.dirname(xmf), name), "r")[dataset]
shape = tuple(int(n) for n in item.get("Dimensions").split())
assert topo.get("TopologyType") == "3DCoRectMesh" and topo.get("Dimensions") == item.get("Dimensions")
assert shape == field.shape == (18, 20, 24), (shape, field.shape)
assert int(item.get("Precision")) == field.dtype.itemsize == 8
assert grid.find("Time").get("Value") == "10"
PYEOF
expect "a fault past a restarted run's exchanges is refused (exit 2), not a silent pass" 2 \
    'stencil.inject_fault = 10: the run.s points make at most 8 exchanges \(depth 3, iterations 16 to 40\)' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil "${CK[@]}" -s stencil.verify=1 -s stencil.inject_fault=10 \
    --restart "$TEST_TMP/ck/stencil-00000016.h5"
expect "... and the last exchange of a run cut by checkpoints is reachable (exit 1, caught)" 1 \
    'fault injected after exchange 14' 'verified: false' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil "${CK[@]}" -s stencil.verify=1 -s stencil.inject_fault=14 \
    -s checkpoint.every=16 -s checkpoint.dir="$TEST_TMP/ck-fault"
expect "a missing --restart file: exit 2, naming what stencil accepts (not md's checkpoints)" 2 \
    'checkpoint.restart = /nonexistent.h5: No such file .*accepted: a checkpoint \(.h5\) written by shiftbox stencil' -- \
    "$SHIFTBOX" stencil "${CK[@]}" --restart /nonexistent.h5
cp "$TEST_TMP/ck/stencil-00000016.h5" "$TEST_TMP/ck-flipped.h5"
$PY - "$TEST_TMP/ck-flipped.h5" <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    info = f["field"].id.get_chunk_info(0)
with open(sys.argv[1], "r+b") as g:
    g.seek(info.byte_offset + info.size // 2)
    b = g.read(1)[0]
    g.seek(info.byte_offset + info.size // 2)
    g.write(bytes([b ^ 0x10]))
PYEOF
expect "a flipped byte in the field: restart ends with 3 (Fletcher32)" 3 'reading field: .*Fletcher32' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil "${CK[@]}" --restart "$TEST_TMP/ck-flipped.h5"
expect "... on 4 ranks, one rank's damage is printed once, by that rank" 3 'reading field: .*Fletcher32' -- \
    bash -c '"$0" "$@" 2>&1 | tee /dev/stderr | grep -c "reading field" | grep -qx 1 || exit 9; exit 3' \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" stencil "${CK[@]}" --restart "$TEST_TMP/ck-flipped.h5"
cp "$TEST_TMP/ck/stencil-00000016.h5" "$TEST_TMP/ck-kind.h5"
$PY -c "import h5py; h5py.File('$TEST_TMP/ck-kind.h5', 'r+')['parameters'].attrs['kind'] = 'stenciX'"
expect "a damaged kind attribute: restart ends with 3 (the attributes' digest), not 2" 3 \
    'ck-kind.h5 is damaged: its attributes do not match their digest' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil "${CK[@]}" --restart "$TEST_TMP/ck-kind.h5"
expect "a restart of another stencil.size is refused (exit 2)" 2 'another stencil.size' -- \
    "$SHIFTBOX" stencil -s stencil.size=92,61 -s stencil.depth=3 -s stencil.backend=cpu \
    --restart "$TEST_TMP/ck/stencil-00000016.h5"
expect "a refused restart is refused before calibrating, and makes no checkpoint.dir" 2 \
    'another stencil.size' -- bash -c '"$0" "$@" >"'"$TEST_TMP/early.log"'" 2>&1; rc=$?
        cat "'"$TEST_TMP/early.log"'"; [[ -e "'"$TEST_TMP/ck-none"'" ]] && exit 9
        grep -q "^calibrate: copy" "'"$TEST_TMP/early.log"'" && exit 8; exit $rc' \
    "$SHIFTBOX" stencil -s stencil.size=92,61 -s stencil.depth=3 -s stencil.calibrate=1 \
    -s checkpoint.dir="$TEST_TMP/ck-none" --restart "$TEST_TMP/ck/stencil-00000016.h5"
expect "a restart past stencil.iterations is refused (exit 2)" 2 \
    'stencil.iterations = 20 ends before the checkpoint.s iteration 32' -- \
    "$SHIFTBOX" stencil -s stencil.size=90,61 -s stencil.depth=3 -s stencil.backend=cpu \
    -s stencil.iterations=20 --restart "$TEST_TMP/ck/stencil-00000032.h5"
expect "checkpoints of a sweep of several points are refused (exit 2)" 2 \
    'accepted: one \(single values of stencil.depth' -- \
    "$SHIFTBOX" stencil -s stencil.size=64,64 -s stencil.depth=1,2 -s checkpoint.every=4

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
