#!/usr/bin/env bash
# Checkpoints: restart bit for bit on the same grid, to 1e-10 on other rank
# counts; a crash while writing leaves the previous checkpoint whole; a
# corrupted byte, a file that is not a checkpoint and other physics are
# refused; tools/h5check.py passes a checkpoint and catches a damaged one;
# checkpoints and trajectories conform to H5MD 1.1 (tools/h5md_check.py).
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LJ=(-c "$ROOT/configs/md-lj.ini")
SMALL=(-s md.cells=6,6,6 -s md.steps=100 -s md.thermo=50)
H5CHECK=("$PY" "$ROOT/tools/h5check.py")
have_h5py() { $PY -c 'import h5py' 2>/dev/null; }


# same_state DIR DIR: the same final energies (17 digits) and position and velocity digests
same_state() {
    local a b
    a="$(md_value "$1" md.final.total) $(md_value "$1" md.final.potential) $(md_value "$1" md.position_digest) $(md_value "$1" md.velocity_digest)"
    b="$(md_value "$2" md.final.total) $(md_value "$2" md.final.potential) $(md_value "$2" md.position_digest) $(md_value "$2" md.velocity_digest)"
    echo "$1: $a"
    echo "$2: $b"
    [[ $a == "$b" ]]
}
# close_energies DIR DIR: final totals within 1e-10 relative
close_energies() {
    $PY - "$1" "$2" <<'PYEOF'
import json, sys
e = [json.load(open(f"{d}/summary.json"))["md"]["final"]["total"] for d in sys.argv[1:]]
rel = abs(e[1] - e[0]) / abs(e[0])
print(f"final totals {e[0]!r} and {e[1]!r}: relative difference {rel:.2e}")
sys.exit(rel > 1e-10)
PYEOF
}

# ---- the acceptance run: md-lj.ini on 2 ranks, checkpoint at 50, restart --------------
T=$TEST_TMP
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" --out "$T/plain" >"$T/plain.log" 2>&1
expect "md-lj.ini with checkpoint.every=50 writes md-00000050.h5md and md-00000100.h5md" 0 \
    'checkpoint: .*md-00000050.h5md, [0-9.]+ MB' 'checkpoint: .*md-00000100.h5md' \
    'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" -s checkpoint.every=50 --out "$T/ck"
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" --restart "$T/ck/md-00000050.h5md" \
    --out "$T/restart" >"$T/restart.log" 2>&1
expect "restart from step 50: the same grid, lists restored" 0 \
    'restart: .*step 50, written by 2 ranks on grid 2x1x1' 'the same grid of boxes' \
    'restart += .*md-00000050.h5md +; from --restart' 'verified: true' -- cat "$T/restart.log"
expect "restart: final energies and state bit-identical to the uninterrupted run" 0 -- \
    same_state "$T/plain" "$T/restart"
same_final_line() {
    local a b
    a=$(grep '^final:' "$T/plain.log")
    b=$(grep '^final:' "$T/restart.log")
    printf 'uninterrupted %s\nrestarted     %s\n' "$a" "$b"
    [[ -n $a && $a == "$b" ]]
}
expect "restart: the same final line, digit for digit" 0 'uninterrupted final: temperature' -- \
    same_final_line
expect "checkpointing does not change the run (bits with and without)" 0 -- \
    same_state "$T/plain" "$T/ck"
expect "restart with another module on the same grid: still bit-identical" 0 'the same grid' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" -s exchange.module=direct \
    -s checkpoint.restart="$T/ck/md-00000050.h5md" --out "$T/restart-direct"
expect "... the same bits" 0 -- same_state "$T/plain" "$T/restart-direct"
expect "summary.json records the restart and the checkpoints" 0 -- $PY - "$T" <<'PYEOF'
import json, sys
t = sys.argv[1]
ck = json.load(open(f"{t}/ck/summary.json"))["md"]
assert ck["checkpoints"]["written"] == 2 and ck["checkpoints"]["bytes"] > 0, ck["checkpoints"]
assert "checkpoint" in ck["time_s"]
r = json.load(open(f"{t}/restart/summary.json"))["md"]
assert r["start_step"] == 50 and r["restart"]["step"] == 50 and r["restart"]["exact"]
assert r["restart"]["written_by_ranks"] == 2 and r["restart"]["bytes"] > 0
assert r["conserved_energy_at_step_0"] == ck["conserved_energy_at_step_0"]
PYEOF

# ---- other rank counts: particles redistributed ----------------------------------------
expect "restart 2 -> 1 rank: redistributed" 0 'particles redistributed' 'verified: true' -- \
    "$SHIFTBOX" md "${LJ[@]}" --restart "$T/ck/md-00000050.h5md" --out "$T/restart-1"
expect "2 -> 1 rank: energies agree to 1e-10" 0 'relative difference' -- \
    close_energies "$T/plain" "$T/restart-1"
expect "1 rank writes a checkpoint" 0 'checkpoint: ' -- \
    "$SHIFTBOX" md "${SMALL[@]}" -s checkpoint.every=50 --out "$T/one"
expect "restart 1 -> 3 ranks: redistributed" 0 'particles redistributed' 'verified: true' -- \
    "${MPIRUN[@]}" -np 3 "$SHIFTBOX" md "${SMALL[@]}" --restart "$T/one/md-00000050.h5md" \
    --out "$T/restart-3"
expect "1 -> 3 ranks: energies agree to 1e-10" 0 'relative difference' -- \
    close_energies "$T/one" "$T/restart-3"
TEAM=(-s exchange.module=teamshift -s exchange.team_size=2)
expect "teams: teamshift c=2 on 4 ranks writes checkpoints" 0 'checkpoint: ' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" md "${SMALL[@]}" "${TEAM[@]}" -s checkpoint.every=50 \
    --out "$T/team"
expect "teams: the restart finds the same grid" 0 'the same grid' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" md "${SMALL[@]}" "${TEAM[@]}" \
    --restart "$T/team/md-00000050.h5md" --out "$T/team-restart"
expect "... the same bits as the uninterrupted team run" 0 -- same_state "$T/team" "$T/team-restart"

# ---- schedule and names ------------------------------------------------------------------
kept() { # checkpoint.every=20, keep=2: what the folder holds after 100 steps
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${SMALL[@]}" -s checkpoint.every=20 \
        -s checkpoint.keep=2 -s checkpoint.dir="$T/keep" >/dev/null 2>&1 || return
    local files
    files=$(cd "$T/keep" && echo *)
    echo "kept: $files"
    [[ $files == "md-00000080.h5md md-00000100.h5md" ]]
}
expect "checkpoint.keep=2: only the two newest remain" 0 'kept: ' -- kept
expect "checkpoint.at_end with md.steps=0 writes the initial state" 0 'md-00000000.h5md' -- \
    "$SHIFTBOX" md -s md.cells=4,4,4 -s md.steps=0 -s checkpoint.at_end=1 --out "$T/zero"

# ---- crashes and damage -------------------------------------------------------------------
expect "abort-during-write kills the job in the second checkpoint (exit 3)" 3 \
    'abort-during-write: aborting the job halfway through writing .*md-00000100.h5md.tmp' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${SMALL[@]}" -s checkpoint.every=50 \
    -s checkpoint.fault=abort-during-write --out "$T/crash"
expect "... md-00000050 is complete, md-00000100 exists only as .tmp" 0 -- bash -c "
    cd '$T/crash' && [[ -f md-00000050.h5md && -f md-00000100.h5md.tmp && ! -e md-00000100.h5md ]]"
expect "... and the previous checkpoint restarts" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${SMALL[@]}" --restart "$T/crash/md-00000050.h5md"

# flip_byte FILE DATASET: one byte inside the dataset's first chunk
flip_byte() {
    $PY - "$1" "$2" <<'PYEOF'
import sys, h5py
path, name = sys.argv[1:]
with h5py.File(path, "r") as f:
    chunk = f[name].id.get_chunk_info(0)
at = chunk.byte_offset + chunk.size // 2
with open(path, "r+b") as g:
    g.seek(at)
    b = g.read(1)[0]
    g.seek(at)
    g.write(bytes([b ^ 0x10]))
print(f"flipped byte {at} of {path} ({name})")
PYEOF
}
cp "$T/ck/md-00000050.h5md" "$T/root-header.h5md" # byte 152: inside the root group's header
$PY -c "
f = open('$T/root-header.h5md', 'r+b'); f.seek(152); b = f.read(1)[0]; f.seek(152)
f.write(bytes([b ^ 0xff]))"
expect "a damaged root group header is a damaged checkpoint (exit 3), not another program's file" 3 \
    'root-header.h5md: .*incorrect metadata checksum' -- \
    "$SHIFTBOX" md "${LJ[@]}" --restart "$T/root-header.h5md"
if have_h5py; then
    cp "$T/ck/md-00000050.h5md" "$T/corrupt.h5md"
    flip_byte "$T/corrupt.h5md" particles/trajectory/velocity/value >/dev/null
    expect "a corrupted byte is caught on restart (exit 3, row digest)" 3 \
        'corrupt.h5md is damaged: particles/trajectory/velocity/value: its rows do not match their digest' -- \
        "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" --restart "$T/corrupt.h5md" \
        --out "$T/corrupt-out"
    expect "... also on another rank grid (the rows read in blocks)" 3 \
        'velocity/value: its rows do not match their digest' -- \
        "$SHIFTBOX" md "${LJ[@]}" --restart "$T/corrupt.h5md"
    expect "... and on 3 ranks, whose digests add up across ranks" 3 \
        'velocity/value: its rows do not match their digest' -- \
        "${MPIRUN[@]}" -np 3 "$SHIFTBOX" md "${LJ[@]}" --restart "$T/corrupt.h5md"
    cp "$T/ck/md-00000050.h5md" "$T/corrupt-exact.h5md"
    flip_byte "$T/corrupt-exact.h5md" parameters/restart/position_at_build >/dev/null
    expect "... also in the exact-restart data" 3 'position_at_build: its rows do not match' -- \
        "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" --restart "$T/corrupt-exact.h5md"
    cp "$T/ck/md-00000050.h5md" "$T/swapped.h5md"
    $PY -c "
import h5py
with h5py.File('$T/swapped.h5md', 'r+') as f:
    v = f['particles/trajectory/velocity/value']
    a, b = v[0, 10], v[0, 11]
    v[0, 10], v[0, 11] = b, a"
    expect "... two rows that trade places (exit 3)" 3 'velocity/value: its rows do not match' -- \
        "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" --restart "$T/swapped.h5md"
    cp "$T/ck/md-00000050.h5md" "$T/corrupt-small.h5md"
    flip_byte "$T/corrupt-small.h5md" parameters/restart/particles_per_rank >/dev/null
    expect "... and a byte of a small dataset, which keeps Fletcher32" 3 \
        'particles_per_rank: .*Fletcher32 checksum' -- \
        "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" --restart "$T/corrupt-small.h5md"
    expect "h5check passes a checkpoint" 0 '^h5check: .*: ok \(H5MD 1.1, 32000 particles' -- \
        "${H5CHECK[@]}" "$T/ck/md-00000050.h5md"
    expect "h5check catches the corrupted byte" 1 \
        'FAILED: /particles/trajectory/velocity/value: its rows do not match their row digest' -- \
        "${H5CHECK[@]}" "$T/corrupt.h5md"
    expect "h5check catches the rows that traded places" 1 'FAILED: .*velocity/value: its rows' -- \
        "${H5CHECK[@]}" "$T/swapped.h5md"
    expect "h5check catches the small dataset's byte (Fletcher32)" 1 \
        'FAILED: .*data error detected by Fletcher32 checksum' -- \
        "${H5CHECK[@]}" "$T/corrupt-small.h5md"
    cp "$T/ck/md-00000050.h5md" "$T/twice.h5md"
    $PY -c "
import h5py
with h5py.File('$T/twice.h5md', 'r+') as f:
    ids = f['particles/trajectory/id/value']
    ids[0, 1] = ids[0, 0]
    f['parameters/restart/particles_per_rank'][0] += 0"
    expect "h5check catches an id stored twice" 1 'FAILED: ids are not 0..N-1 once each' -- \
        "${H5CHECK[@]}" "$T/twice.h5md"
    expect "a restart catches it too (exit 3, before it looks at the ids)" 3 \
        'id/value: its rows do not match their digest' -- \
        "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" --restart "$T/twice.h5md"
    cp "$T/ck/md-00000050.h5md" "$T/fixedunit.h5md"
    $PY -c "
import h5py, numpy as np
with h5py.File('$T/fixedunit.h5md', 'r+') as f:
    v = f['particles/trajectory/position/value']
    del v.attrs['unit']
    v.attrs['unit'] = np.bytes_('nm')"
    expect "h5check catches a break of the H5MD rules (a fixed-length unit)" 1 \
        'FAILED: not H5MD 1.1: .*unit-type' -- "${H5CHECK[@]}" "$T/fixedunit.h5md"
    expect "units=none writes no unit attributes" 0 -- bash -c "
        '$SHIFTBOX' md -s md.cells=4,4,4 -s md.steps=0 -s checkpoint.at_end=1 \
            -s checkpoint.units=none --out '$T/nounits' >/dev/null &&
        $PY -c \"
import h5py, sys
f = h5py.File('$T/nounits/md-00000000.h5md', 'r')
units = []
f.visititems(lambda n, o: units.append(n) if 'unit' in o.attrs else None)
g = h5py.File('$T/zero/md-00000000.h5md', 'r')
assert g['particles/trajectory/position/value'].attrs['unit'] == 'nm'
assert 'modules' not in f['h5md'] and 'units' in g['h5md/modules']
sys.exit(1 if units else 0)\""
else
    echo "# h5py missing: the corruption and h5check tests are skipped"
fi
if $PY -c 'import MDAnalysis' 2>/dev/null; then
    # one line, no topology: the reduced numbers labelled nm and ps, which
    # MDAnalysis converts to its own units (nm -> Angstrom: x 10)
    expect "MDAnalysis.Universe(path) opens a checkpoint; positions, velocities, box, time equal the run's" \
        0 'MDAnalysis: 32000 atoms at t = 0.25' -- \
        $PY -W ignore - "$T/ck/md-00000050.h5md" <<'PYEOF'
import sys
import h5py, numpy as np, MDAnalysis as mda
path = sys.argv[1]
u = mda.Universe(path)
g = h5py.File(path, "r")["particles/trajectory"]
ten = np.float32(10)  # nm -> Angstrom, in MDAnalysis' own float32
x = g["position/value"][0].astype(np.float32) * ten
v = g["velocity/value"][0].astype(np.float32) * ten
assert np.array_equal(u.atoms.positions, x), "positions differ"
assert np.array_equal(u.atoms.velocities, v), "velocities differ"
L = 20 * (4 / 0.8442) ** (1 / 3)  # md.cells = 20 fcc cells at density 0.8442
assert np.allclose(u.dimensions, [10 * L] * 3 + [90] * 3, rtol=1e-6), u.dimensions
assert u.trajectory.time == 50 * 0.005, u.trajectory.time  # ps = tau
print(f"MDAnalysis: {u.atoms.n_atoms} atoms at t = {u.trajectory.time:g}")
PYEOF
    expect "MDAnalysis opens a checkpoint written with checkpoint.units=none (convert_units=False)" \
        0 'MDAnalysis: 256' -- $PY -W ignore - "$T/nounits/md-00000000.h5md" <<'PYEOF'
import sys
import h5py, numpy as np, MDAnalysis as mda
path = sys.argv[1]
u = mda.Universe.empty(256, trajectory=True)  # Universe(path, convert_units=False) fails in 2.4.2
u.load_new(path, format="H5MD", convert_units=False)
x = h5py.File(path, "r")["particles/trajectory/position/value"][0]
assert np.array_equal(u.atoms.positions, x.astype(np.float32)), "positions differ"
print(f"MDAnalysis: {u.atoms.n_atoms} atoms, box {u.dimensions[:3]}")
PYEOF
else
    skip "MDAnalysis tests" "python3-mdanalysis missing (make deps installs it)"
fi

# ---- the trajectory (trajectory.every) --------------------------------------------------
"${MPIRUN[@]}" -np 3 "$SHIFTBOX" md -s md.cells=6,6,6 -s md.steps=60 -s trajectory.every=20 \
    -s trajectory.forces=1 -s checkpoint.every=40 --out "$T/traj" >"$T/traj.log" 2>&1
expect "trajectory.every=20 on 3 ranks: 4 frames (steps 0, 20, 40, 60) in trajectory.h5md" 0 \
    'frames 4' -- $PY -c "
import json; t = json.load(open('$T/traj/summary.json'))['md']['trajectory']
print('frames', t['frames'])"
if $PY -c 'import MDAnalysis' 2>/dev/null; then
    expect "MDAnalysis iterates the trajectory; the frame of step 40 equals the checkpoint of step 40" \
        0 'frames 4, times \[0.0, 0.1, 0.2, 0.3\]' -- $PY -W ignore - "$T/traj" <<'PYEOF'
import sys
import h5py, numpy as np, MDAnalysis as mda
d = sys.argv[1]
u = mda.Universe(f"{d}/trajectory.h5md")
times = [round(float(ts.time), 12) for ts in u.trajectory]
assert [int(ts.data["step"]) for ts in u.trajectory] == [0, 20, 40, 60]
u.trajectory[2]
c = h5py.File(f"{d}/md-00000040.h5md", "r")["particles/trajectory"]
order = np.argsort(c["id/value"][0])  # a checkpoint keeps the ranks' order; a frame, the ids'
t = h5py.File(f"{d}/trajectory.h5md", "r")["particles/trajectory"]
assert np.array_equal(t["position/value"][2], c["position/value"][0][order]), "positions"
assert np.array_equal(t["velocity/value"][2], c["velocity/value"][0][order]), "velocities"
ten = np.float32(10)
assert np.array_equal(u.atoms.positions, c["position/value"][0][order].astype(np.float32) * ten)
assert u.trajectory.ts.has_forces and t["position/value"].compression == "gzip"
print(f"frames {len(u.trajectory)}, times {times}")
PYEOF
    expect "tools/md_rdf.py: g(r) of the trajectory, CSV and plot" 0 'first peak g = .* at r = 1\.[0-9]* sigma' -- \
        bash -c "tools/md_rdf.py '$T/traj/trajectory.h5md' --out '$T/rdf' --rmax 2.5 &&
                 test -s '$T/rdf/rdf.png' && test \$(wc -l <'$T/rdf/rdf.csv') -eq 161"
    expect "tools/md_rdf.py refuses an --rmax beyond half the box (exit 2)" 2 'accepted: 0 < rmax' -- \
        tools/md_rdf.py "$T/traj/trajectory.h5md" --out "$T/rdf" --rmax 50
else
    skip "MDAnalysis reads the trajectory" "python3-mdanalysis missing (make deps installs it)"
fi
# ---- H5MD 1.1 conformance (tools/h5md_check.py, one broken file per rule) ------------------
if have_h5py; then
    $PY "$ROOT/tests/h5md_conformance.py" "$T/zero/md-00000000.h5md" "$T/nounits/md-00000000.h5md" \
        "$T/traj/trajectory.h5md" "$T/traj/md-00000040.h5md" >"$T/conformance.log" 2>&1
    grep -E '^(not )?ok - |^    \| ' "$T/conformance.log"
    PASSED=$((PASSED + $(grep -c '^ok - ' "$T/conformance.log")))
    FAILED=$((FAILED + $(grep -c '^not ok - ' "$T/conformance.log")))
    grep -q '^[0-9]* passed, [0-9]* failed$' "$T/conformance.log" ||
        fail "tests/h5md_conformance.py ended without a result line" "$T/conformance.log"
else
    skip "H5MD conformance" "h5py missing (make deps installs python3-h5py)"
fi
cp "$T/traj/trajectory.h5md" "$T/traj-before.h5md"
expect "an existing trajectory file is refused (exit 2) and left as it was" 2 \
    'trajectory.file = .*trajectory.h5md: the file exists' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${SMALL[@]}" -s trajectory.every=20 --out "$T/traj"
expect "... byte for byte" 0 -- cmp "$T/traj/trajectory.h5md" "$T/traj-before.h5md"
expect "... and the checkpoint.dir made for the refused run goes again" 2 'the file exists' -- \
    bash -c '"$0" "$@"; rc=$?; [[ -e "'"$T/ck-refused"'" ]] && exit 9; exit $rc' \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${SMALL[@]}" -s trajectory.every=20 \
    -s checkpoint.every=50 -s checkpoint.dir="$T/ck-refused" --out "$T/traj"
expect "a trajectory.file in a folder that does not exist is refused (exit 2), naming the key" 2 \
    'trajectory.file = .*/nofolder/t.h5md: its folder does not exist' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${SMALL[@]}" -s trajectory.every=20 \
    -s trajectory.file="$T/nofolder/t.h5md" --out "$T/traj-nofolder"

# ---- refused restarts: exit 2, nothing written ---------------------------------------------
refused() { # NAME PATTERN ARGS...: exit 2, the message, and no file in the --out folder
    local name=$1 pattern=$2 out=$T/refused-$RANDOM
    shift 2
    expect "$name" 2 "$pattern" -- "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${LJ[@]}" "$@" --out "$out"
    expect "$name: nothing written" 0 -- bash -c "[[ -z \$(ls -A '$out' 2>/dev/null) ]]"
}
refused "a missing checkpoint" 'checkpoint.restart = /nonexistent.h5md: No such file' \
    --restart /nonexistent.h5md
echo "[run]" >"$T/text.h5md"
refused "a file that is not HDF5" 'text.h5md: not an HDF5 file' --restart "$T/text.h5md"
refused "ShiftBox's own trajectory, not a checkpoint" \
    'traj-before.h5md: not a ShiftBox MD checkpoint \(no /parameters group: a ShiftBox trajectory' \
    --restart "$T/traj-before.h5md"
if have_h5py; then
    $PY -c "import h5py; h5py.File('$T/foreign.h5', 'w').create_group('h5md')"
    refused "an HDF5 file that is not a ShiftBox checkpoint" 'not a ShiftBox MD checkpoint' \
        --restart "$T/foreign.h5"
fi
refused "another cut-off" 'md.cutoff = 2.5 in the checkpoint but 3 in this run' \
    --restart "$T/ck/md-00000050.h5md" -s md.cutoff=3
refused "another time step" 'md.dt = 0.005 in the checkpoint but 0.004' \
    --restart "$T/ck/md-00000050.h5md" -s md.dt=0.004
refused "another lattice" 'md.cells = 20,20,20 in the checkpoint but 10,10,10' \
    --restart "$T/ck/md-00000050.h5md" -s md.cells=10,10,10
refused "md.steps before the checkpoint" "md.steps = 40 ends before the checkpoint's step 50" \
    --restart "$T/ck/md-00000050.h5md" -s md.steps=40
expect "--restart is for md only" 2 '--restart: exchange writes no checkpoints' -- \
    "$SHIFTBOX" exchange --restart "$T/ck/md-00000050.h5md"
expect "checkpoint.dir that cannot be a folder" 2 "checkpoint.dir '$T/text.h5md': exists and is not a directory" -- \
    "$SHIFTBOX" md -s md.cells=4,4,4 -s md.steps=1 -s checkpoint.every=1 -s checkpoint.dir="$T/text.h5md"

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
