#!/usr/bin/env bash
# One call validates ShiftBox's CUDA backend on a machine with a GPU (CI
# runs the same backend on an emulated runtime: tests/cuda_emu.sh).
#
#   tools/gpu-check.sh OUTDIR [BINARY]        (make gpu-check: results/gpu-check)
#
# Lines, each PASS, FAIL or SKIP with its reason (INFO: a measurement only):
#   smoke       a verified 2D run on the CUDA backend
#   matrix      2D/3D x float/double x pinned 0/1 on 1, 2 and 4 ranks, each
#               with depths 1-8, sync/async, overlap 0/1: every point bit for
#               bit equal to the CPU backend and to the single-rank reference
#   sanitizer   compute-sanitizer memcheck, racecheck and synccheck on a small
#               run, plain and with temporal blocking in shared memory
#               (SKIP when compute-sanitizer is not on PATH)
#   bandwidth   the sweep kernel's bandwidth against the device's copy
#               bandwidth at two field sizes, each at least 4 x the L2 cache
#               (PASS: ratio >= 0.5), and as INFO the same at one point per
#               thread (stencil.cuda_rows=1, seed 004 Listing 2)
#   overlap     configs/valen-2d.ini (depths 1-64, sync/async, overlap) on
#               one rank per GPU, 256 iterations (the file's 2048 took 4
#               minutes on an H200, most of it setting up the 28 points)
#   temporal    stencil.blocking=temporal (gpu/backend_cuda.cu: the sweeps
#               of an exchange tile by tile in the L2 cache, and in 2D in
#               shared memory, stencil.cuda_blocking) in 2D/3D on 1 and 2
#               ranks, L2 tiles of 2 planes and sized to the L2, depths 1-8
#               (shared memory: also 12, 16 and 17), overlap 0/1: every
#               point bit for bit equal to the CPU backend
#   speed       tools/stencil_bench.py --backend cuda (plain against
#               blocked sweeps and the device's copy roofline, 512 and 256
#               sweeps a run) as INFO lines: no target has been set
#               for a GPU (on one H200, whole runs: 2D shared-memory
#               tiles 1.32x and 1.59x the plain sweeps at depths 4 and 8,
#               3D L2 tiles 0.86-0.88x: docs/results/gpu-h200.md)
# and OUTDIR/gpu-check.txt, OUTDIR/gpu-check.json (one object per line),
# each run's own output under OUTDIR/runs/, also when the smoke test fails
# (its FAIL line then quotes the run's error).  Exit 0 when nothing failed,
# 1 when a check failed, 2 on bad usage.  OUTDIR and BINARY are taken
# relative to where the script is called; the runs start in the checkout.
#
# Without MPI or HDF5 on the GPU machine: on a machine with them, `make
# CUDA=1 && tools/bundle-runtime.sh`, copy the checkout (with .devrt/) over,
# and there run `source .devrt/env.sh && tools/gpu-check.sh results/gpu-check`.
# STEPS (default "smoke matrix sanitizer bandwidth overlap temporal speed")
# runs the named steps in the order given (smoke always runs, first: without
# a working backend nothing else is tried), e.g. STEPS="temporal speed" to
# repeat the last two.  MATRIX_RANKS (default "1 2 4") and OVERLAP_RANKS
# (default: the GPU count) change the rank counts; OVERLAP_ARGS replaces
# the -s options added to the overlap run (default "-s
# stencil.iterations=256 -s stencil.warmup=8"; "" runs the file as it is);
# BENCH_ARGS adds options to tools/stencil_bench.py (e.g. --sizes 2048,128
# for a quick look).  On one H200 the whole script
# took 251 s: 35 passed, 0 failed (docs/results/gpu-h200-check.txt).
set -uo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: tools/gpu-check.sh OUTDIR [BINARY]   (STEPS, MATRIX_RANKS, OVERLAP_RANKS," >&2
    echo "       OVERLAP_ARGS, BENCH_ARGS: see the comment at the top of this file)" >&2
    exit 2
fi
# OUTDIR and BINARY as the caller named them, before moving to the checkout
out=$1
[[ $out == /* ]] || out=$PWD/$out
bin=${2:-}
[[ -z $bin || $bin == /* ]] || bin=$PWD/$bin
cd "$(dirname "$0")/.." || exit 2
bin=${bin:-build/shiftbox}
ALL_STEPS="smoke matrix sanitizer bandwidth overlap temporal speed"
steps=${STEPS:-$ALL_STEPS}
for step in $steps; do
    [[ " $ALL_STEPS " == *" $step "* ]] || {
        echo "gpu-check: STEPS names '$step'; accepted: $ALL_STEPS" >&2
        exit 2
    }
done
PY=$(command -v python3 || true)
mkdir -p "$out/runs"
: >"$out/gpu-check.tsv"
[[ $(id -u) -eq 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe)

# The report so far: OUTDIR/gpu-check.txt and gpu-check.json from the records.
write_summary() {
    {
        echo "gpu-check $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname): $(nvidia-smi -L 2>/dev/null | head -1)"
        awk -F'\t' '{printf "%-4s %s: %s\n", $1, $2, $3}' "$out/gpu-check.tsv"
        awk -F'\t' '{n[$1]++} END {printf "%d passed, %d failed, %d skipped\n", n["PASS"], n["FAIL"], n["SKIP"]}' \
            "$out/gpu-check.tsv"
    } >"$out/gpu-check.txt"
    awk -F'\t' 'BEGIN {print "["} {gsub(/"/, "\\\"", $3); printf "%s{\"status\": \"%s\", \"check\": \"%s\", \"detail\": \"%s\"}", (NR > 1 ? ",\n" : ""), $1, $2, $3} END {print "\n]"}' \
        "$out/gpu-check.tsv" >"$out/gpu-check.json"
    tail -n 1 "$out/gpu-check.txt"
}

record() { # STATUS NAME DETAIL
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$out/gpu-check.tsv"
    printf '%-4s %s: %s\n' "$1" "$2" "$3"
}

# Every point of DIR/summary.json equal to the CPU backend and the reference.
identical() {
    [[ -n $PY ]] || return 0
    "$PY" - "$1" <<'EOF'
import json, sys
pts = json.load(open(sys.argv[1] + "/summary.json"))["results"]["points"]
bad = [p for p in pts if p["verified"] != "true" or p.get("cpu_differing_points") != 0]
if not pts or bad:
    sys.exit(f"{len(bad)} of {len(pts)} points differ")
EOF
}

if [[ ! -x $bin ]]; then
    record FAIL build "$bin not found (make CUDA=1)"
    write_summary
    exit 1
fi
if ! gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); then gpus=0; fi
[[ $gpus -gt 0 ]] || gpus=1

# ---- smoke ------------------------------------------------------------------
if "$bin" stencil -s stencil.backend=cuda -s stencil.size=256,256 -s stencil.depth=1,4 \
    -s stencil.iterations=16 -s stencil.verify=1 --out "$out/runs/smoke" \
    >"$out/runs/smoke.log" 2>&1; then
    record PASS smoke "$(grep -m1 -o 'cuda [a-z]*, [0-9]* iterations' "$out/runs/smoke.log")"
else
    rc=$?
    why=$(grep -m1 -iE 'error|no usable|not found' "$out/runs/smoke.log" | cut -c1-200)
    record FAIL smoke "exit $rc: ${why:-see runs/smoke.log} (the other checks are left out)"
    write_summary
    exit 1
fi

# ---- the bitwise matrix -------------------------------------------------------
step_matrix() {
    for np in ${MATRIX_RANKS:-1 2 4}; do
        for dim in 2 3; do
            for prec in float double; do
                for pinned in 0 1; do
                    name="matrix ${dim}D $prec np=$np pinned=$pinned"
                    dir="$out/runs/matrix-$dim-$prec-$np-$pinned"
                    size=512,384
                    [[ $dim == 3 ]] && size=96,80,64
                    if "${MPIRUN[@]}" -np "$np" "$bin" stencil -s stencil.backend=cuda \
                        -s stencil.dim=$dim -s stencil.size=$size -s stencil.precision=$prec \
                        -s stencil.pinned=$pinned -s stencil.depth=1-8 -s stencil.exchange=all \
                        -s stencil.overlap=0,1 -s stencil.iterations=33 -s stencil.verify=1 \
                        --out "$dir" >"$dir.log" 2>&1 && identical "$dir" >>"$dir.log" 2>&1; then
                        record PASS "$name" "32 points, 0 differing against the CPU backend"
                    else
                        record FAIL "$name" "see runs/$(basename "$dir").log"
                    fi
                done
            done
        done
    done
}

# ---- compute-sanitizer ----------------------------------------------------------
step_sanitizer() {
    for tool in memcheck racecheck synccheck; do
        if ! command -v compute-sanitizer >/dev/null; then
            record SKIP "sanitizer $tool" "compute-sanitizer not on PATH"
            continue
        fi
        # plain sweeps with every exchange mode, then temporal blocking in
        # shared memory over several tiles (racecheck: its barriers)
        for run in plain shared; do
            log="$out/runs/sanitizer-$tool-$run.log"
            args=(-s stencil.size=128,96 -s stencil.depth=1,3 -s stencil.exchange=all)
            [[ $run == shared ]] && args=(-s stencil.size=300,200 -s stencil.depth=3,8
                -s stencil.blocking=temporal -s stencil.cuda_blocking=shared)
            if compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin" stencil \
                -s stencil.backend=cuda "${args[@]}" -s stencil.overlap=0,1 \
                -s stencil.iterations=8 >"$log" 2>&1; then
                record PASS "sanitizer $tool, $run" "$(grep -m1 -oE '(ERROR|RACECHECK) SUMMARY: .*' "$log")"
            else
                record FAIL "sanitizer $tool, $run" "exit $? (see runs/sanitizer-$tool-$run.log)"
            fi
        done
    done
}

# ---- bandwidth against the device's copies ----------------------------------------
step_bandwidth() {
    # SIZE ROWS: the default kernel is judged; one point per thread is shown.
    for point in "4096,4096 auto" "16384,8192 auto" "16384,8192 1"; do
        read -r size rows <<<"$point"
        dir="$out/runs/bandwidth-${size/,/x}-rows-$rows"
        name="bandwidth at ${size}"
        [[ $rows == auto ]] || name="$name, stencil.cuda_rows=$rows"
        if "$bin" stencil -s stencil.backend=cuda -s stencil.size="$size" -s stencil.iterations=1 \
            -s stencil.cuda_rows="$rows" -s stencil.calibrate=1 --out "$dir" >"$dir.log" 2>&1 &&
            [[ -n $PY ]]; then
            read -r verdict detail < <("$PY" - "$dir" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1] + "/summary.json"))["results"]
c = r["calibration"]
ok = c["ratio"] >= 0.5 and c["field_bytes_per_rank"] >= 4 * c["cache_bytes"]
print("PASS" if ok else "FAIL",
      f"sweep {c['sweep_gb_per_s']:.0f} GB/s, copy {c['copy_gb_per_s']:.0f} GB/s, "
      f"ratio {c['ratio']:.3f}, rows per thread {r['cuda_rows']}, field "
      f"{c['field_bytes_per_rank'] / 1e6:.0f} MB (L2 {c['cache_bytes'] / 1e6:.0f} MB)")
EOF
            )
            [[ $rows == auto ]] || verdict=INFO
            record "$verdict" "$name" "$detail"
        else
            record FAIL "$name" "see runs/$(basename "$dir").log (python3 needed)"
        fi
    done
}

# ---- the overlap run of the paper's 2D case -----------------------------------------
step_overlap() {
    np=${OVERLAP_RANKS:-$gpus}
    dir="$out/runs/valen-2d"
    overlap_args=${OVERLAP_ARGS--s stencil.iterations=256 -s stencil.warmup=8}
    # shellcheck disable=SC2086 # a list of words
    if "${MPIRUN[@]}" -np "$np" "$bin" stencil -c configs/valen-2d.ini -s stencil.backend=cuda \
        $overlap_args --out "$dir" >"$dir.log" 2>&1; then
        record PASS "overlap configs/valen-2d.ini np=$np" "see runs/valen-2d/stencil.csv"
    else
        record FAIL "overlap configs/valen-2d.ini np=$np" "exit $? (see runs/valen-2d.log)"
    fi
}

# ---- temporal blocking ---------------------------------------------------------------
step_temporal() {
    for np in 1 2; do
        for dim in 2 3; do
            name="temporal ${dim}D np=$np"
            dir="$out/runs/temporal-$dim-$np"
            size=512,384
            [[ $dim == 3 ]] && size=96,80,64
            ok=1
            # WHERE TILE: L2 tiles of 2 planes and sized to the L2; in 2D also
            # shared-memory tiles, with batches of up to 17 sweeps (17: in the L2)
            runs="l2:2 l2:0"
            [[ $dim == 2 ]] && runs="$runs shared:0"
            for run in $runs; do
                where=${run%:*} tile=${run#*:} depths=1-8
                [[ $where == shared ]] && depths=1-8,12,16,17
                "${MPIRUN[@]}" -np "$np" "$bin" stencil -s stencil.backend=cuda -s stencil.dim=$dim \
                    -s stencil.size=$size -s stencil.blocking=temporal -s stencil.tile=$tile \
                    -s stencil.cuda_blocking=$where -s stencil.depth=$depths -s stencil.overlap=0,1 \
                    -s stencil.iterations=33 -s stencil.verify=1 --out "$dir-$where-$tile" \
                    >"$dir-$where-$tile.log" 2>&1 &&
                    identical "$dir-$where-$tile" >>"$dir-$where-$tile.log" 2>&1 &&
                    grep -q 'temporal blocking: the sweeps between' "$dir-$where-$tile.log" || ok=0
            done
            if [[ $ok == 1 ]]; then
                what="L2 tiles of 2 planes and sized to the L2"
                [[ $dim == 2 ]] && what="$what, shared-memory tiles (depths up to 17)"
                record PASS "$name" "$what: 0 differing against the CPU backend"
            else
                record FAIL "$name" "see runs/$(basename "$dir")-*.log"
            fi
        done
    done
}

# ---- the speed of temporal blocking (INFO lines) ----------------------------
step_speed() {
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of words
    if [[ -n $PY ]] && "$PY" tools/stencil_bench.py "$out/runs/stencil-bench" --backend cuda --np 1 \
        --rounds 1 --iterations 512,256 --warmup 8 --shiftbox "$bin" ${BENCH_ARGS:-} >"$out/runs/stencil-bench.log" 2>&1; then
        infos=0
        while read -r line; do
            record INFO "temporal speed" "$line"
            infos=$((infos + 1))
        done < <(grep -E '^(# )?stencil cuda' "$out/runs/stencil-bench.log" | sed 's/^# //; s/; GCells\/s, the medians.*//')
        [[ $infos -gt 0 ]] ||
            record FAIL "temporal speed" "no 'stencil cuda' line in runs/stencil-bench.log"
    else
        record FAIL "temporal speed" "tools/stencil_bench.py --backend cuda failed (see runs/stencil-bench.log; python3 needed)"
    fi
}

for step in $steps; do
    [[ $step == smoke ]] || "step_$step"
done

write_summary
! grep -q '^FAIL' "$out/gpu-check.tsv"
