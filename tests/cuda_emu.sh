#!/usr/bin/env bash
# The CUDA backend without a GPU: gpu/backend_cuda.cu, built with
# `make CUDA_EMU=1` against the host emulation of the CUDA runtime
# (tests/cuda_emu/), runs the stencil in both policies of the emulation --
# eager and adversarial (stream work deferred to the synchronisation that
# forces it, independent streams in a random order) -- over 2D and 3D, float
# and double, sync/async, overlap on/off, depths 1-8, 1/2/4 ranks, pinned
# on/off, and must give 0 differing points against the CPU backend and the
# same-backend reference.  Then the synchronisations the backend relies on
# are taken out, one at a time, in a copy of the source: the adversarial
# policy must see wrong data (exit 1), so these runs can fail; so must a
# sweep kernel whose strips of rows (stencil.cuda_rows) read one row off.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
EMU=${SHIFTBOX_EMU:-$ROOT/build/emu/shiftbox}
if [[ ! -x $EMU ]]; then
    fail "the emulated CUDA build $EMU exists (make CUDA_EMU=1)"
    echo "$PASSED passed, $FAILED failed"
    exit 1
fi

# every point: verified against the same backend and identical to the CPU
all_identical() {
    $PY - "$1" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
pts = s["results"]["points"]
bad = [p for p in pts if p["verified"] != "true" or p.get("cpu_agrees") is not True
       or p.get("cpu_differing_points") != 0 or p.get("differing_points") != 0]
assert pts and not bad, f"{len(bad)} of {len(pts)} points differ: {bad[:1]}"
assert "emulation" in s["results"]["device"], s["results"]["device"]
EOF
}

# every point's cuda_blocking names the places its batches should have run
# in (the driver's schedule, src/stencil/run.c): WHERE for batches of 2 up
# to the shared-memory tile's limit (16 sweeps in float, 12 in double), l2
# for longer ones; none reported when no batch ran
points_ran() { # DIR WHERE
    $PY - "$@" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
where, cfg = sys.argv[2], s["config"]["stencil"]
limit = 16 if cfg["precision"] == "float" else 12
iterations = int(cfg["iterations"])
for p in s["results"]["points"]:
    depth, places, i = p["depth"], set(), 0
    while i < iterations:
        j = 1 if p["overlap"] else 0
        i += j
        left = min(iterations - i, depth - j)
        if left > 1:
            places.add("l2" if where == "shared" and left > limit else where)
            i += left
        else:
            i += max(min(iterations - i, depth - j), 0)
    want = "+".join(sorted(places, key=["shared", "l2"].index)) or None
    assert p.get("cuda_blocking") == want, (depth, p["overlap"], p.get("cuda_blocking"), want)
EOF
}

matrix() { # POLICY DIM PRECISION RANKS PINNED
    local policy=$1 dim=$2 prec=$3 np=$4 pinned=$5
    local name="emulated CUDA $policy: ${dim}D $prec np=$np pinned=$pinned, depths 1-8 x sync/async x overlap 0/1"
    local out="$TEST_TMP/m-$policy-$dim-$prec-$np-$pinned" size=72,40
    [[ $dim == 3 ]] && size=24,20,18
    if SHIFTBOX_CUDA_EMU=$policy "${MPIRUN[@]}" -np "$np" "$EMU" stencil -s stencil.backend=cuda \
        -s stencil.dim="$dim" -s stencil.size=$size -s stencil.precision="$prec" \
        -s stencil.pinned="$pinned" -s stencil.depth=1-8 -s stencil.exchange=all \
        -s stencil.overlap=0,1 -s stencil.iterations=17 -s stencil.verify=1 \
        --out "$out" >"$out.log" 2>&1 && all_identical "$out" >>"$out.log" 2>&1; then
        pass "$name: 0 differing points against the CPU backend"
    else
        fail "$name" "$out.log"
    fi
}

# stencil.sweep=full: every sweep on the whole extended subdomain, the same bits
for dim in 2 3; do
    out="$TEST_TMP/full-$dim" size=72,40
    [[ $dim == 3 ]] && size=24,20,18
    if SHIFTBOX_CUDA_EMU=adversarial "${MPIRUN[@]}" -np 2 "$EMU" stencil -s stencil.backend=cuda \
        -s stencil.dim="$dim" -s stencil.size=$size -s stencil.sweep=full -s stencil.depth=1-5 \
        -s stencil.exchange=all -s stencil.overlap=0,1 -s stencil.iterations=17 \
        -s stencil.verify=1 --out "$out" >"$out.log" 2>&1 && all_identical "$out" >>"$out.log" 2>&1; then
        pass "emulated CUDA, stencil.sweep=full, ${dim}D np=2: 0 differing points against the CPU backend"
    else
        fail "emulated CUDA, stencil.sweep=full, ${dim}D np=2" "$out.log"
    fi
done

# stencil.cuda_rows: each thread of the sweep kernel computes 1, 2, 4 or 8
# rows (37 x 141 points leave partial strips at every depth, and with the
# emulation's grid of one block in y every R strides over the rows more than
# once), the same bits, and summary.json names the rows that ran
for case in "1 float" "2 float" "4 float" "8 float" "8 double"; do
    read -r rows prec <<<"$case"
    for dim in 2 3; do
        out="$TEST_TMP/rows-$rows-$prec-$dim" size=37,141
        [[ $dim == 3 ]] && size=19,17,13
        if SHIFTBOX_CUDA_EMU=adversarial "${MPIRUN[@]}" -np 2 "$EMU" stencil -s stencil.backend=cuda \
            -s stencil.cuda_rows="$rows" -s stencil.dim="$dim" -s stencil.size=$size \
            -s stencil.precision="$prec" -s stencil.depth=1,3,8 -s stencil.exchange=all \
            -s stencil.overlap=0,1 -s stencil.iterations=17 -s stencil.verify=1 --out "$out" \
            >"$out.log" 2>&1 && all_identical "$out" >>"$out.log" 2>&1 &&
            [[ $(md_value "$out" results.cuda_rows) == "$rows" ]]; then
            pass "emulated CUDA, stencil.cuda_rows=$rows, ${dim}D $prec np=2: 0 differing points against the CPU backend"
        else
            fail "emulated CUDA, stencil.cuda_rows=$rows, ${dim}D $prec np=2" "$out.log"
        fi
    done
done
expect "stencil.cuda_rows=auto runs 8 rows in float" 0 'CUDA sweep kernel: 8 rows per thread' -- \
    "$EMU" stencil -s stencil.backend=cuda -s stencil.size=64,48 -s stencil.iterations=2
expect "stencil.cuda_rows=auto runs 4 rows in double" 0 'CUDA sweep kernel: 4 rows per thread' -- \
    "$EMU" stencil -s stencil.backend=cuda -s stencil.size=64,48 -s stencil.iterations=2 \
    -s stencil.precision=double
expect "stencil.cuda_rows=3: exit 2 naming the accepted values" 2 'accepted: auto[|]1[|]2[|]4[|]8' -- \
    "$EMU" stencil -s stencil.backend=cuda -s stencil.cuda_rows=3

# stencil.blocking=temporal: the sweeps between two exchanges tile by tile,
# in the L2 (tiles of 2 or 3 planes: many tiles; 0: sized to the emulated
# 1 MiB L2, one tile here) or in 2D in shared memory (one kernel a batch;
# 400 x 260 points are several tiles, 16 sweeps the most a float batch
# takes, 17 more than it does: those run in the L2), the same bits, and
# summary.json says what ran
for dim in 2 3; do
    for np in 1 2; do
        for tiled in "2 shrink float l2 72,40 1-6" "3 full double l2 72,40 1-6" \
            "2 full float l2 72,40 1-6" "0 shrink float auto 72,40 1-6" \
            "0 shrink float shared 400,260 1-4,8,16,17" "0 full double shared 400,260 1-3,12,13"; do
            read -r tile sweep prec where size depths <<<"$tiled"
            ran=$where
            [[ $where == auto ]] && { ran=shared; [[ $dim == 3 ]] && ran=l2; }
            [[ $dim == 3 ]] && { [[ $where == shared ]] && continue; size=24,20,18; }
            name="emulated CUDA, stencil.blocking=temporal, ${dim}D np=$np, cuda_blocking=$where, tile=$tile, sweep=$sweep, $prec, $size"
            out="$TEST_TMP/temporal-$dim-$np-$tile-$sweep-$where-$prec"
            if SHIFTBOX_CUDA_EMU=adversarial "${MPIRUN[@]}" -np "$np" "$EMU" stencil \
                -s stencil.backend=cuda -s stencil.dim="$dim" -s stencil.size=$size \
                -s stencil.blocking=temporal -s stencil.tile="$tile" -s stencil.sweep="$sweep" \
                -s stencil.precision="$prec" -s stencil.cuda_blocking="$where" \
                -s stencil.depth="$depths" -s stencil.overlap=0,1 -s stencil.iterations=17 \
                -s stencil.verify=1 --out "$out" >"$out.log" 2>&1 &&
                all_identical "$out" >>"$out.log" 2>&1 &&
                [[ $(md_value "$out" results.blocking) == temporal ]] &&
                points_ran "$out" "$ran" >>"$out.log" 2>&1; then
                pass "$name: 0 differing points against the CPU backend"
            else
                fail "$name" "$out.log"
            fi
        done
    done
done

for policy in eager adversarial; do
    for dim in 2 3; do
        for prec in float double; do
            for np in 1 2 4; do
                for pinned in 0 1; do
                    matrix $policy $dim $prec $np $pinned
                done
            done
        done
    done
done

# ---- the device's memory is shared by the ranks on it --------------------------
# 400 kB of device memory: one rank's two fields of half a 256 x 256 grid
# (2 x 137 kB) fit alone, not twice over on 2 ranks that share the GPU.
expect "2 ranks sharing a GPU with room for one: exit 2 with the numbers" 2 \
    'on 2 rank\(s\) sharing this GPU need' -- \
    env SHIFTBOX_CUDA_EMU_MEMORY=400000 "${MPIRUN[@]}" -np 2 "$EMU" stencil \
    -s stencil.backend=cuda -s stencil.size=256,256 -s stencil.depth=2 -s stencil.iterations=2
expect "1 rank with the same fields and room runs" 0 'field hash' -- \
    env SHIFTBOX_CUDA_EMU_MEMORY=400000 "$EMU" stencil -s stencil.backend=cuda \
    -s stencil.size=256,128 -s stencil.depth=2 -s stencil.iterations=2
expect "stencil.cuda_blocking=shared in 3D: exit 2 naming the accepted values" 2 \
    'stencil.cuda_blocking = shared: tiles in shared memory are 2D only; accepted for stencil.dim = 3: auto or l2' -- \
    "$EMU" stencil -s stencil.backend=cuda -s stencil.dim=3 -s stencil.blocking=temporal \
    -s stencil.cuda_blocking=shared
# the third field of shared-memory tiles is counted before anything runs:
# 3 x 137 kB do not fit in 400 kB, 2 x 137 kB (L2 tiles) do
expect "temporal blocking in shared memory without room for the third field: exit 2 naming it" 2 \
    'three fields of .* need .*writes into a third field; stencil.cuda_blocking=l2 needs none' -- \
    env SHIFTBOX_CUDA_EMU_MEMORY=400000 "$EMU" stencil -s stencil.backend=cuda \
    -s stencil.size=256,128 -s stencil.depth=2 -s stencil.iterations=2 -s stencil.blocking=temporal
expect "the same with stencil.cuda_blocking=l2 runs" 0 'field hash' -- \
    env SHIFTBOX_CUDA_EMU_MEMORY=400000 "$EMU" stencil -s stencil.backend=cuda \
    -s stencil.size=256,128 -s stencil.depth=2 -s stencil.iterations=2 -s stencil.blocking=temporal \
    -s stencil.cuda_blocking=l2
expect "SHIFTBOX_CUDA_EMU=lazy: exit 2 naming the accepted policies" 2 \
    "SHIFTBOX_CUDA_EMU = 'lazy': accepted: eager or adversarial" -- \
    env SHIFTBOX_CUDA_EMU=lazy "$EMU" stencil -s stencil.backend=cuda -s stencil.iterations=1
# this Open MPI is not CUDA-aware: asked for device pointers, every rank stops
expect "stencil.cuda_aware=1 on an MPI without CUDA support: exit 2 on both ranks" 2 \
    'stencil.cuda_aware = 1: this MPI library cannot take device pointers \(rank 0\)' -- \
    timeout 60 "${MPIRUN[@]}" -np 2 "$EMU" stencil -s stencil.backend=cuda -s stencil.cuda_aware=1 \
    -s stencil.iterations=1

# ---- each synchronisation taken out is caught ---------------------------------
# A copy of the sources with one change, built beside the real build (only
# gpu/backend_cuda.cu recompiles); `change` fails when the text is not found,
# so a test whose fault no longer applies fails instead of passing quietly.
variant() { # NAME OLD NEW [OLD NEW ...]
    local dir="$TEST_TMP/variant-$1"
    mkdir -p "$dir/build"
    cp -a "$ROOT/Makefile" "$ROOT/src" "$ROOT/comm" "$ROOT/gpu" "$ROOT/tests" "$dir/"
    cp -a "$ROOT/build/emu" "$dir/build/"
    $PY - "$dir/gpu/backend_cuda.cu" "${@:2}" <<'EOF' || return 1
import sys
path, pairs = sys.argv[1], sys.argv[2:]
text = open(path).read()
for old, new in zip(pairs[::2], pairs[1::2]):
    if text.count(old) != 1:
        sys.exit(f"the text to change occurs {text.count(old)} times in {path}: {old!r}")
    text = text.replace(old, new)
open(path, "w").write(text)
EOF
    # BUILD named here: one inherited from the environment (make check sets
    # it) would send the variant's objects elsewhere and leave the copied
    # binary, unchanged, to be tested.
    make -C "$dir" --no-print-directory CUDA_EMU=1 ASAN=0 BUILD=build/emu >"$dir.build.log" 2>&1 || {
        cat "$dir.build.log"
        return 1
    }
    if [[ ! "$dir/build/emu/shiftbox" -nt "$ROOT/build/emu/shiftbox" ]]; then
        echo "the variant $1 was not relinked: $dir/build/emu/shiftbox" >&2
        return 1
    fi
    echo "$dir/build/emu/shiftbox"
}

fault_case() { # NAME RANKS BINARY ARGS...
    local name=$1 np=$2 bin=$3
    shift 3
    expect "$name: the adversarial policy sees wrong data (exit 1)" 1 'verified: false' \
        'points differ' -- \
        env SHIFTBOX_CUDA_EMU=adversarial "${MPIRUN[@]}" -np "$np" "$bin" stencil \
        -s stencil.backend=cuda -s stencil.verify=1 "$@"
}

# 1. the upload as it was: a plain cudaMemcpy from pageable memory, which the
#    non-blocking streams do not wait for
if bin=$(variant upload '    cuda_state *s = state(b);
    CHECK_CUDA(cudaMemcpyAsync(s->in, host, field_bytes(b), cudaMemcpyHostToDevice, s->copy));
    CHECK_CUDA(cudaStreamSynchronize(s->copy));' \
    '    CHECK_CUDA(cudaMemcpy(state(b)->in, host, field_bytes(b), cudaMemcpyHostToDevice));'); then
    fault_case "upload without ordering (the race of issue 14)" 1 "$bin" -s stencil.size=64,48 \
        -s stencil.depth=1,3 -s stencil.iterations=8
    expect "the same race under the eager policy goes unseen (why adversarial is the default)" \
        0 'verified: true' -- env SHIFTBOX_CUDA_EMU=eager "$bin" stencil -s stencil.backend=cuda \
        -s stencil.verify=1 -s stencil.size=64,48 -s stencil.depth=1,3 -s stencil.iterations=8
else
    fail "the upload-race variant builds"
fi

# 2. pack returns before its copies are done: MPI sends stale halo buffers
if bin=$(variant pack '    CHECK_CUDA(cudaEventRecord(s->t1[S_COPY], s->copy));
    return timed_wait(s, S_COPY, seconds);' '    CHECK_CUDA(cudaEventRecord(s->t1[S_COPY], s->copy));
    *seconds = 0;
    return SB_OK;'); then
    fault_case "pack and unpack without waiting for the copy stream" 2 "$bin" \
        -s stencil.size=64,48 -s stencil.depth=2 -s stencil.iterations=8 -s stencil.pinned=1
else
    fail "the pack variant builds"
fi

# 3. the interior sweep not waited for before the fields swap
if bin=$(variant inner 'int cuda_sweep_wait(stencil_backend *b, double *seconds)
{
    return timed_wait(state(b), S_INNER, seconds);' 'int cuda_sweep_wait(stencil_backend *b, double *seconds)
{
    *seconds = 0;
    (void)b;
    return SB_OK;'); then
    fault_case "overlap without waiting for the interior sweep" 2 "$bin" -s stencil.size=64,48 \
        -s stencil.depth=2 -s stencil.overlap=1 -s stencil.iterations=8
else
    fail "the interior-sweep variant builds"
fi

# 4. temporal blocking without the skew: a tile's later sweeps read planes
#    the next tile has not made yet
if bin=$(variant skew '            part.lo[wa] = std::max(part.lo[wa], w0 - t);
            part.hi[wa] = std::min(part.hi[wa], w0 + tile - t);' '            part.lo[wa] = std::max(part.lo[wa], w0);
            part.hi[wa] = std::min(part.hi[wa], w0 + tile);'); then
    fault_case "temporal blocking without the skew" 1 "$bin" -s stencil.size=64,48 \
        -s stencil.depth=4 -s stencil.blocking=temporal -s stencil.cuda_blocking=l2 \
        -s stencil.tile=2 -s stencil.iterations=8
else
    fail "the unskewed temporal-blocking variant builds"
fi

# 5. the sweep kernel's whole strips (stencil.cuda_rows > 1) with the centre
#    column one row off: every strip but the partial ones computes wrong
if bin=$(variant rows '                    q[j * (long long)sy] = point(below[j], col[j], west[j], col[j + 1], east[j],' \
    '                    q[j * (long long)sy] = point(below[j], col[j], west[j], col[j], east[j],'); then
    fault_case "the sweep kernel's strips of rows with the centre one row off" 2 "$bin" \
        -s stencil.size=64,48 -s stencil.depth=1,3 -s stencil.iterations=8
else
    fail "the strip-of-rows variant builds"
fi

# 6. temporal blocking in shared memory without the barrier between two
#    sweeps: threads read their neighbours' points before these are made
#    (the emulation runs a block's threads as fibers, in a new order after
#    each barrier)
if bin=$(variant barrier '            sweep_tile(copy, t, boxes.box[t], o, w);
            __syncthreads();' '            sweep_tile(copy, t, boxes.box[t], o, w);'); then
    fault_case "shared-memory tiles without the barrier between sweeps" 1 "$bin" \
        -s stencil.size=200,150 -s stencil.depth=4 -s stencil.blocking=temporal \
        -s stencil.iterations=8
else
    fail "the barrier-less shared-memory variant builds"
fi

# 7. shared-memory tiles that store field 0 in place, where the tiles after
#    them still load it (the reason for the third field; the emulation runs
#    the blocks in a random order)
if bin=$(variant in-place \
    'launch_shared_typed<float>(l, boxes, n, s->in, s->out, s->spare, s->main)' \
    'launch_shared_typed<float>(l, boxes, n, s->in, s->out, s->in, s->main)' \
    'launch_shared_typed<double>(l, boxes, n, s->in, s->out, s->spare, s->main)' \
    'launch_shared_typed<double>(l, boxes, n, s->in, s->out, s->in, s->main)' \
    '    std::swap(s->in, s->spare); // field 0 is now the third field' ''); then
    fault_case "shared-memory tiles storing field 0 in place" 1 "$bin" -s stencil.size=200,150 \
        -s stencil.depth=4 -s stencil.blocking=temporal -s stencil.iterations=8
else
    fail "the in-place shared-memory variant builds"
fi

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
