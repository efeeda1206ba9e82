#!/usr/bin/env bash
# ShiftBox's MD proxy beside LAMMPS and miniMD on the same Lennard-Jones
# benchmark, in one run (issue 16).
#
#   tools/md_peers.sh [CELLS ...]     (default: 20 40, i.e. 32 000 and 256 000 atoms)
#
# The problem of LAMMPS's bench/in.lj and miniMD's in.lj.miniMD, which
# configs/md-lj.ini also is: FCC at density 0.8442, T = 1.44, cut-off 2.5,
# skin 0.3, dt 0.005, STEPS steps, 4 x CELLS^3 atoms.  For each size and
# each rank count of NPS, RUNS times and in turn, each program alone:
#   shiftbox          md.reneighbor_check=1, the exact trigger (default)
#   shiftbox-every20  md.reneighbor_check=0: rebuild every 20 steps only,
#                     the peers' policy (LAMMPS "check no", miniMD)
#   lammps            Debian's lmp, lj/cut, neigh_modify every 20 check no
#   lammps-opt        the same with -sf opt
#   shiftbox-skin     only with EXACT_SKIN=S: the exact trigger with md.skin=S
#                     (fewer rebuilds for longer lists: does a larger skin pay?)
#   minimd            miniMD's ref/ (half lists), built from MINIMD_DIR with
#                     `make openmpi` into OUT; without MINIMD_DIR, skipped
#                     with a line
# Prints the medians in M atom-steps/s, ShiftBox's ratios over LAMMPS-opt
# and miniMD with the issue's targets (>= 1.5 with the peers' policy, >= 1.2
# with the exact trigger), and step 0's T, U, P and E of every program
# against ShiftBox's: they must agree to 1e-9 (miniMD prints 7 significant
# digits, so 1e-6 there); exit 1 when they do not.
# Memory: every run's peak resident set (the largest rank's, GNU time's %M
# of mpirun, which takes its children's), less the same program's peak on
# 4^3 cells (256 atoms: its empty baseline), in bytes per atom of one rank;
# the median of the RUNS runs less the median of RUNS baselines (one peak
# swings by about 1 MB between runs here: 60 bytes per atom at 32 000 atoms
# on 2 ranks), with the runs' range; ShiftBox's against LAMMPS's (the
# issue's target: no more).
#
# Environment: NPS ("1 2"), RUNS (3), STEPS (100), MINIMD_DIR, EXACT_SKIN, LMP (lmp),
# SHIFTBOX (build/shiftbox), OUT (results/bench/peers).  Rank counts above
# this machine's cores time nothing; keep NPS within them.
set -euo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
cd "$(dirname "$0")/.."
: "${SHIFTBOX:=build/shiftbox}"
: "${NPS:=1 2}"
: "${RUNS:=3}"
: "${STEPS:=100}"
: "${LMP:=lmp}"
: "${OUT:=results/bench/peers}"
PY=/usr/bin/python3
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMP_NUM_THREADS=1
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(20 40)
for v in "${sizes[@]}"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] ||
        { echo "md_peers: size '$v': accepted: FCC cells per edge, positive integers (e.g. 20 40)" >&2; exit 2; }
done
[[ $RUNS =~ ^[1-9][0-9]*$ && $STEPS =~ ^[1-9][0-9]*$ ]] ||
    { echo "md_peers: RUNS='$RUNS' STEPS='$STEPS': accepted: positive integers" >&2; exit 2; }
for np in $NPS; do
    [[ $np =~ ^[1-9][0-9]*$ ]] || { echo "md_peers: NPS='$NPS': accepted: rank counts, e.g. \"1 2\"" >&2; exit 2; }
done
mkdir -p "$OUT"

programs=(shiftbox shiftbox-every20)
[[ -z ${EXACT_SKIN:-} ]] || programs+=(shiftbox-skin)
if command -v "$LMP" >/dev/null; then
    programs+=(lammps lammps-opt)
else
    echo "# LAMMPS skipped: no '$LMP' (Debian: apt install lammps; make deps installs it)"
fi
minimd=""
if [[ -n ${MINIMD_DIR:-} ]]; then
    [[ -f $MINIMD_DIR/ref/Makefile.openmpi ]] ||
        { echo "md_peers: MINIMD_DIR=$MINIMD_DIR has no ref/Makefile.openmpi (a miniMD source tree)" >&2; exit 2; }
    rm -rf "$OUT/minimd-src"
    cp -r "$MINIMD_DIR/ref" "$OUT/minimd-src"
    make -C "$OUT/minimd-src" openmpi >"$OUT/minimd-build.log" 2>&1 ||
        { cat "$OUT/minimd-build.log"; exit 1; }
    minimd=$OUT/minimd-src/miniMD_openmpi
    programs+=(minimd)
else
    echo "# miniMD skipped: MINIMD_DIR is not set (a miniMD source tree, e.g. a clone of github.com/Mantevo/miniMD)"
fi

lammps_input() { # lammps_input CELLS FILE
    cat >"$2" <<EOF
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 $1 0 $1 0 $1
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
thermo_style custom step temp pe ke etotal press
thermo_modify norm yes format float %.17g
thermo $STEPS
run $STEPS
EOF
}

[[ -x /usr/bin/time ]] ||
    { echo "md_peers: /usr/bin/time is missing (Debian: apt install time; make deps installs it)" >&2; exit 2; }

# mpirun under GNU time: the run's peak resident set, KiB, into $dir/maxrss.
measured_mpirun() {
    /usr/bin/time -f %M -o "$dir/maxrss" mpirun "$@"
}

run_one() { # run_one PROGRAM NP CELLS DIR
    local program=$1 np=$2 cells=$3 dir=$4
    rm -rf "$dir"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd) # miniMD runs from its own folder
    [[ $program != lammps* ]] || lammps_input "$cells" "$dir/in.lj"
    local md=(md -c configs/md-lj.ini -s md.cells="$cells,$cells,$cells" -s md.steps="$STEPS"
        -s md.thermo="$STEPS" --out "$dir")
    case $program in
    shiftbox) measured_mpirun -np "$np" "$SHIFTBOX" "${md[@]}" ;;
    shiftbox-every20) measured_mpirun -np "$np" "$SHIFTBOX" "${md[@]}" -s md.reneighbor_check=0 ;;
    shiftbox-skin) measured_mpirun -np "$np" "$SHIFTBOX" "${md[@]}" -s md.skin="$EXACT_SKIN" ;;
    lammps) measured_mpirun -np "$np" "$LMP" -in "$dir/in.lj" -log "$dir/log.lammps" -screen none ;;
    lammps-opt) measured_mpirun -np "$np" "$LMP" -sf opt -in "$dir/in.lj" -log "$dir/log.lammps" -screen none ;;
    minimd) (cd "$OUT/minimd-src" && measured_mpirun -np "$np" ./miniMD_openmpi -i in.lj.miniMD -s "$cells" \
        -n "$STEPS" -t 1) ;;
    esac >"$dir/out.log" 2>&1 || { echo "md_peers: $program failed:"; tail -20 "$dir/out.log"; exit 1; }
}


for np in $NPS; do # the empty baselines of memory, RUNS times (a peak swings by about 1 MB)
    for ((run = 1; run <= RUNS; run++)); do
        for program in "${programs[@]}"; do
            run_one "$program" "$np" 4 "$OUT/4-$np-$program-baseline-$run"
        done
    done
done
for cells in "${sizes[@]}"; do
    for np in $NPS; do
        for ((run = 1; run <= RUNS; run++)); do
            for program in "${programs[@]}"; do
                run_one "$program" "$np" "$cells" "$OUT/$cells-$np-$program-$run"
            done
        done
    done
done

$PY - "$OUT" "$RUNS" "$STEPS" "${sizes[*]}" "$NPS" "${programs[*]}" <<'PYEOF'
import csv, json, re, statistics, sys
out, runs, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sizes, nps, programs = sys.argv[4].split(), sys.argv[5].split(), sys.argv[6].split()


def peak_bytes(d):
    """The run's peak resident set, bytes (GNU time's last line: KiB)."""
    return 1024 * int(open(f"{d}/maxrss").read().split()[-1])


def measure(program, d):
    """(atom-steps/s, {T, U, P, E} at step 0) of one run."""
    text = open(f"{d}/out.log").read()
    if program.startswith("shiftbox"):
        rate = json.load(open(f"{d}/summary.json"))["md"]["atom_steps_per_second"]
        row = next(csv.DictReader(open(f"{d}/md-thermo.csv")))
        return rate, {"T": float(row["temperature"]), "U": float(row["potential"]),
                      "P": float(row["pressure"]), "E": float(row["total"])}
    if program.startswith("lammps"):
        log = open(f"{d}/log.lammps").read()
        loop = re.search(r"Loop time of ([0-9.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms", log)
        row = re.search(r"Step\s+Temp\s+PotEng\s+KinEng\s+TotEng\s+Press\s*\n\s*0\s+(\S+)\s+(\S+)"
                        r"\s+(\S+)\s+(\S+)\s+(\S+)", log)
        if not loop or not row:
            sys.exit(f"md_peers: {d}/log.lammps has no step-0 thermo line or loop time this script "
                     "reads (another LAMMPS version?)")
        t, u, ke, e, p = map(float, row.groups())
        return int(loop.group(3)) * int(loop.group(2)) / float(loop.group(1)), \
            {"T": t, "U": u, "P": p, "E": e}
    perf = re.search(r"^\d+ \d+ \d+ \d+ \S+ \S+ \S+ \S+ \S+ (\S+) \S+ PERF_SUMMARY", text, re.M)
    parts = text.split("# Timestep T U P Time")
    row = re.search(r"^0 (\S+) (\S+) (\S+)", parts[1].strip(), re.M) if len(parts) > 1 else None
    if not perf or not row:
        sys.exit(f"md_peers: {d}/out.log has no step-0 line or PERF_SUMMARY this script reads")
    return float(perf.group(1)), {"T": float(row.group(1)), "U": float(row.group(2)),
                                  "P": float(row.group(3))}


bad = False
for cells in sizes:
    atoms = 4 * int(cells) ** 3
    for np in nps:
        rates, step0 = {}, {}
        for program in programs:
            got = [measure(program, f"{out}/{cells}-{np}-{program}-{r}") for r in range(1, runs + 1)]
            rates[program] = [g[0] for g in got]
            step0[program] = got[0][1]
        print(f"\n# {atoms} atoms, {steps} steps, {np} rank(s), median of {runs} "
              "(M atom-steps/s, range)")
        for program in programs:
            r = rates[program]
            print(f"{program:>17} {statistics.median(r) / 1e6:8.3f}  ({min(r) / 1e6:.3f}-"
                  f"{max(r) / 1e6:.3f})")
        med = {p: statistics.median(rates[p]) for p in programs}
        for mine, target in (("shiftbox-every20", 1.5), ("shiftbox", 1.2),
                             ("shiftbox-skin", 1.2)):
            for peer in ("lammps-opt", "minimd"):
                if peer in med and mine in med:
                    ratio = med[mine] / med[peer]
                    print(f"{mine} / {peer}: {ratio:.2f} (target {target}: "
                          f"{'met' if ratio >= target else 'missed'})")
        print("memory above the program's own 256-atom run, bytes per atom of the largest rank "
              f"(median of {runs} peaks less the median of {runs} baselines; range):")
        per_atom = {}
        for program in programs:
            base = statistics.median(peak_bytes(f"{out}/4-{np}-{program}-baseline-{r}")
                                     for r in range(1, runs + 1))
            grown = [(peak_bytes(f"{out}/{cells}-{np}-{program}-{r}") - base) * int(np) / atoms
                     for r in range(1, runs + 1)]
            per_atom[program] = statistics.median(grown)
            print(f"{program:>17} {per_atom[program]:8.0f}  ({min(grown):.0f}-{max(grown):.0f})")
        if "lammps" in per_atom and per_atom["lammps"] <= 0:
            print("memory / lammps: not measured (LAMMPS's peak did not grow past its 256-atom "
                  "run at this size)")
        elif "lammps" in per_atom:
            for mine in ("shiftbox", "shiftbox-every20"):
                ratio = per_atom[mine] / per_atom["lammps"]
                print(f"{mine} memory / lammps: {ratio:.2f} (target 1.0: "
                      f"{'met' if ratio <= 1.0 else 'missed'})")
        ref = step0["shiftbox"]
        print("step 0 against shiftbox's " +
              ", ".join(f"{q} {v!r}" for q, v in ref.items()) + ":")
        for program in programs[1:]:
            tolerance = 1e-6 if program == "minimd" else 1e-9
            worst = max(abs(v - ref[q]) / abs(ref[q]) for q, v in step0[program].items())
            bad |= worst > tolerance
            print(f"{program:>17} largest relative difference {worst:.1e} (must be <= "
                  f"{tolerance:.0e}: {'agrees' if worst <= tolerance else 'DIFFERS'})")
sys.exit(1 if bad else 0)
PYEOF
