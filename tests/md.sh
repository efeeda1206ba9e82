#!/usr/bin/env bash
# The proxy MD workload: the step-0 energy of a perfect lattice against an
# independent O(N^2) sum, energy conservation over 1000 steps, particle
# count, bit-identical results across modules and ghost filters, rank
# counts agreeing to 1e-10, k > 1, teams, and the errors a user can meet.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SMALL=(-s md.cells=4,4,4 -s md.steps=60 -s md.thermo=20)



# ---- physics --------------------------------------------------------------------
for case in "1 1,1,1 shift 1" "8 8,1,1 shift 1" "8 2,2,2 direct 1" "8 4,1,1 teamshift 2"; do
    read -r np dims module team <<<"$case"
    out=$TEST_TMP/lattice-$np-$dims-$module
    expect "md np=$np dims=$dims $module c=$team runs" 0 'verified: true' -- \
        "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" md "${SMALL[@]}" -s decomp.dims="$dims" \
        -s exchange.module="$module" -s exchange.team_size="$team" --out "$out"
    expect "step-0 energy = O(N^2) minimum-image sum to 1e-12 (np=$np $dims $module)" 0 \
        'relative difference' -- $PY "$ROOT/tests/lj_reference.py" "$out"
done
k=$(md_value "$TEST_TMP/lattice-8-8,1,1-shift" md.k)
if [[ $k -ge 3 ]]; then pass "k > 1 exercised (k = $k on 8 ranks in a row)"; else fail "k = $k"; fi

expect "NVE: 1000 steps of 500 atoms conserve energy to 1e-4" 0 'verified: true' -- \
    "$SHIFTBOX" md -s md.cells=5,5,5 -s md.steps=1000 -s md.thermo=100 --out "$TEST_TMP/nve"
drift=$(md_value "$TEST_TMP/nve" md.energy_drift)
count=$(md_value "$TEST_TMP/nve" md.atoms_final)
if $PY -c "import sys; sys.exit(not abs($drift) < 1e-4)" && [[ $count == 500 ]]; then
    pass "1000 steps: |drift| = $drift < 1e-4, 500 of 500 particles"
else
    fail "1000 steps: drift $drift, $count particles"
fi
expect "a drift over the bound fails the run (exit 1)" 1 'verified: false' -- \
    "$SHIFTBOX" md -s md.cells=4,4,4 -s md.steps=50 -s md.drift_bound=1e-12

# ---- determinism -----------------------------------------------------------------
same_bits() { # DIR... : equal final energies (17 digits) and position digests
    local first
    for d in "$@"; do
        local v
        v="$(md_value "$d" md.final.total) $(md_value "$d" md.position_digest)"
        [[ $v == *[0-9a-f]\ [0-9a-f]* ]] || { echo "$d: no finished run ($v)"; return 1; }
        [[ -z ${first:-} ]] && first=$v
        [[ $v == "$first" ]] || { echo "$d: $v differs from $first"; return 1; }
    done
    echo "all: $first"
}
for np in 4 8; do
    dirs=()
    for module in shift shift-isend teamshift direct; do
        dirs+=("$TEST_TMP/bits-$np-$module")
        "${MPIRUN[@]}" -np $np "$SHIFTBOX" md -s md.cells=6,6,6 -s md.steps=100 \
            -s exchange.module=$module --out "$TEST_TMP/bits-$np-$module" >/dev/null 2>&1
    done
    "${MPIRUN[@]}" -np $np "$SHIFTBOX" md -s md.cells=6,6,6 -s md.steps=100 \
        -s md.ghost_filter=none --out "$TEST_TMP/bits-$np-none" >/dev/null 2>&1
    dirs+=("$TEST_TMP/bits-$np-none")
    expect "np=$np: four modules and both ghost filters give the same bits" 0 -- same_bits "${dirs[@]}"
done
# Team Shift's trimmed passes carry what the holders along their chain need
# (a chain that reaches offset 0 stops there): with teams of 2 and 3 and
# k = 2 and 3 (chains that cross 0 and chains that stop at it) the slab
# filter gives the bits of untrimmed ghosts on the same teams.
# On 4x1x1 boxes narrower than cut-off + skin the holders two boxes away
# need items too: teams of 2 with k = 4 on 4 cells' width in all (member
# 0's chain -4, -2 stops at 0; the holder at -2 needs the items its forces
# reach, the one at -4 none) and teams of 1 with k = 2 (-2, -1).
for spec in "6 2 2 auto 6" "6 3 3 auto 6" "4 2 3 auto 6" "8 2 4 4,1,1 4" "4 1 2 4,1,1 6"; do
    set -- $spec # ranks, team size, k, boxes, cells along each axis
    for filter in slab none; do
        "${MPIRUN[@]}" -np "$1" "$SHIFTBOX" md -s md.cells="$5,$5,$5" -s md.steps=100 \
            -s md.k="$3" -s exchange.module=teamshift -s exchange.team_size="$2" \
            -s md.ghost_filter=$filter -s decomp.dims="$4" \
            --out "$TEST_TMP/chain-$1-$2-$3-$filter" >/dev/null 2>&1
    done
    expect "teamshift on $1 ranks, teams of $2, k = $3: trimmed ghosts give the untrimmed bits" 0 -- \
        same_bits "$TEST_TMP/chain-$1-$2-$3-slab" "$TEST_TMP/chain-$1-$2-$3-none"
done
agree() { # energies of runs on 1, 2, 4 and 8 ranks within 1e-10 relative
    "$SHIFTBOX" md -s md.cells=6,6,6 -s md.steps=100 --out "$TEST_TMP/ranks-1" >/dev/null 2>&1
    $PY - "$TEST_TMP"/ranks-1 "$TEST_TMP"/bits-4-shift "$TEST_TMP"/bits-8-shift <<'PYEOF'
import json, sys
e = [json.load(open(f"{d}/summary.json"))["md"]["final"]["total"] for d in sys.argv[1:]]
worst = max(abs(x - e[0]) / abs(e[0]) for x in e)
print(f"final totals {e}, worst relative difference {worst:.2e}")
sys.exit(worst > 1e-10)
PYEOF
}
expect "1, 4 and 8 ranks agree to 1e-10 after 100 steps" 0 'worst relative' -- agree

# ---- the acceptance check and errors ------------------------------------------------
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -c "$ROOT/configs/md-lj.ini" --out "$TEST_TMP/lj-shift" \
    >"$TEST_TMP/lj-shift.log" 2>&1
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -c "$ROOT/configs/md-lj.ini" -s exchange.module=direct \
    --out "$TEST_TMP/lj-direct" >"$TEST_TMP/lj-direct.log" 2>&1
expect "md-lj.ini: shift and direct print identical 17-digit final energies" 0 -- \
    diff <(grep '^final:' "$TEST_TMP/lj-shift.log") <(grep '^final:' "$TEST_TMP/lj-direct.log")
expect "md-lj.ini prints thermo lines, the breakdown and a verdict" 0 \
    '^ +100 +[0-9.]+ +-5\.[0-9]+' 'force +[0-9.]+' 'verified: true' 'atom-steps/s' -- \
    cat "$TEST_TMP/lj-shift.log"
expect "summary.json and md-thermo.csv" 0 -- $PY - "$TEST_TMP/lj-shift" <<'PYEOF'
import csv, json, sys
d = sys.argv[1]
s = json.load(open(f"{d}/summary.json"))
md = s["md"]
assert s["command"] == "md" and s["verified"] and md["atoms"] == md["atoms_final"] == 32000
assert md["k"] == 1 and md["dims"] == [2, 1, 1] and md["atom_steps_per_second"] > 0
assert set(md["time_s"]) == {"exchange", "force", "neighbor", "integrate", "migrate",
                           "checkpoint", "other"}
assert md["bytes_sent_per_step"]["mean"] > 0
rows = list(csv.DictReader(open(f"{d}/md-thermo.csv")))
assert [int(r["step"]) for r in rows] == list(range(0, 101, 10))
assert abs(float(rows[-1]["total"]) - md["final"]["total"]) < 1e-15
PYEOF
expect "a particle jumping two boxes stops the run naming it (exit 3)" 3 \
    'particle 17 moved more than one box' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" md "${SMALL[@]}" -s md.inject_jump=17
expect "... and a jump of a particle that does not exist is refused (exit 2), not a silent pass" 2 \
    'md.inject_jump = 256: no such particle .*accepted: -1 \(none\) or 0..255' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${SMALL[@]}" -s md.inject_jump=256
expect "... and a jump that no step would catch (md.steps = 0) is refused (exit 2)" 2 \
    'md.inject_jump = 17: .*accepted: md.steps >= 1 without --restart' -- \
    "$SHIFTBOX" md -s md.cells=4,4,4 -s md.steps=0 -s md.inject_jump=17
expect "more ghosts within reach than a list counts: exit 3 on every rank, naming the keys" 3 \
    'more than 65535 own partners or ghosts within reach .*lower md.cutoff or md.skin' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -s md.cells=4,4,4 -s md.cutoff=28 -s md.steps=2
expect "md.k too small" 2 'md.k = 1 is too small.*need k >= 2' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" md "${SMALL[@]}" -s decomp.dims=4,1,1 -s md.k=1
expect "md runs one module" 2 "exchange.module = 'shift,direct': md runs one module" -- \
    "$SHIFTBOX" md -s exchange.module=shift,direct
expect "teams need teamshift" 2 'exchange.team_size = 2 needs exchange.module = teamshift' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -s exchange.team_size=2
expect "md runs one grid" 2 'decomp.dims = all: md runs one grid' -- \
    "$SHIFTBOX" md -s decomp.dims=all
expect "md --help lists the md keys" 0 'md.cells +default 20,20,20' 'md.ghost_filter' -- \
    "$SHIFTBOX" md --help

# ---- the rebuild trigger: md.reneighbor_check ----------------------------------------------
for c in 1 0; do
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -s md.cells=12,12,12 -s md.reneighbor_check=$c \
        --out "$TEST_TMP/check$c" >"$TEST_TMP/check$c.log" 2>&1
done
if [[ $(md_value "$TEST_TMP/check0" md.rebuilds) == 5 && $(md_value "$TEST_TMP/check0" md.dangerous_builds) -ge 1 ]] &&
    grep -q 'verified: true' "$TEST_TMP/check0.log" && grep -q 'trigger unchecked' "$TEST_TMP/check0.log"; then
    pass "reneighbor_check=0: a build every md.reneighbor steps only (5 in 100), the dangerous ones counted, still verified"
else
    fail "reneighbor_check=0: $(md_value "$TEST_TMP/check0" md.rebuilds) builds, $(md_value "$TEST_TMP/check0" md.dangerous_builds) dangerous"
fi
if [[ $(md_value "$TEST_TMP/check1" md.rebuilds) -gt 5 && $(md_value "$TEST_TMP/check1" md.dangerous_builds) == 0 ]]; then
    pass "... the default checks every step: more builds, none dangerous"
else
    fail "... the default: $(md_value "$TEST_TMP/check1" md.rebuilds) builds, $(md_value "$TEST_TMP/check1" md.dangerous_builds) dangerous"
fi
expect "a negative md.reneighbor_check is refused, naming the key" 2 'md.reneighbor_check' -- \
    "$SHIFTBOX" md -s md.reneighbor_check=-1

# ---- tools/md_peers.sh: LAMMPS beside ShiftBox (issue 16) -----------------------------
if command -v lmp >/dev/null; then
    PEERS=(env NPS=1 RUNS=1 STEPS=10 SHIFTBOX="$SHIFTBOX" OUT="$TEST_TMP/peers"
        "$ROOT/tools/md_peers.sh" 4)
    expect "md_peers.sh: LAMMPS beside ShiftBox, ratios, step 0 agreeing to 1e-9" 0 \
        'shiftbox-every20 / lammps-opt: [0-9.]+ \(target 1.5' \
        'lammps largest relative difference .* agrees' '# miniMD skipped: MINIMD_DIR is not set' \
        'memory above the program.s own 256-atom run' ' +lammps +-?[0-9]+' -- \
        "${PEERS[@]}"
    # a LAMMPS that runs another density: step 0 must then differ
    printf '#!/bin/sh\nfor a; do [ -f "$a" ] && sed -i s/0.8442/0.85/ "$a"; done\nexec lmp "$@"\n' \
        >"$TEST_TMP/lmp-other"
    chmod +x "$TEST_TMP/lmp-other"
    expect "... and catches a peer whose step 0 differs (exit 1)" 1 'lammps .* DIFFERS' -- \
        env LMP="$TEST_TMP/lmp-other" "${PEERS[@]}"
    expect "... MINIMD_DIR that is not a miniMD tree: exit 2 naming it" 2 'MINIMD_DIR=' -- \
        env MINIMD_DIR="$TEST_TMP" "${PEERS[@]}"
else
    skip "md_peers.sh (no lmp: make deps installs Debian's lammps)"
fi

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
