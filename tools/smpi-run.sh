#!/usr/bin/env bash
# Runs build/smpi/shiftbox (make SIMGRID=1) on a simulated platform with
# SimGrid's smpirun: the unmodified exchange code, its messages timed by the
# platform's network model.
#
#   tools/smpi-run.sh -np N [--platform FILE] [--shared-malloc BYTES] [--bcast ALG]
#                     COMMAND [ARGS...]
#
#   -np N                  simulated ranks, one per host (rank r on node-r)
#   --platform FILE        a SimGrid platform (default configs/platforms/fattree.xml,
#                          4096 hosts); configs/platforms/README.md lists them
#   --shared-malloc BYTES  allocations of BYTES or more share one copy across ranks
#                          (SMPI's auto shared malloc): what makes large payloads fit
#                          in memory.  Payloads then alias, so the byte check cannot
#                          hold: give -s exchange.verify=0 too (refused without it).
#   --bcast ALG            SMPI's broadcast algorithm (default ompi: Open MPI's choice
#                          by size, what Team Shift's model follows; the driver's own
#                          broadcasts are MPI_Ibcast, which SMPI runs far faster
#                          on large communicators: src/coll.h)
#   COMMAND ARGS           exchange, pingpong or model and their arguments, as for
#                          build/shiftbox; --out DIR writes the same files as a real
#                          run, plus DIR/simulation.json (platform, wall time, memory)
#
# Defaults that make the simulation follow the platform's figures: the CM02
# network model without SMPI's empirical latency and bandwidth factors, no
# cross traffic, the host's computation not simulated (only messages take
# simulated time: copies and the byte check are free), Open MPI's choice of
# broadcast algorithm (smpi/bcast:ompi), and a barrier that releases every
# rank at once (ompi_bruck), so that the barrier before a timed exchange
# does not skew its start; gathers by Open MPI's choice too (smpi/gather:ompi,
# binomial on large communicators: MPI_Gather serves the driver's results,
# for which SMPI's linear default took 19 s of host time on 1024 ranks, and
# Team Shift's block sizes with varied payloads, which no sweep simulates).
# timer.samples defaults to 100 (each simulated MPI_Wtime costs real time:
# 1000 took 5 s on 1024 ranks).  Environment: SHIFTBOX_SMPI (the binary),
# SMPI_EXTRA (more smpirun options, e.g. --cfg=smpi/display-timing:1).
#
# Exit codes are shiftbox's (0, 1, 2, 3); 2 also for bad arguments here.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SHIFTBOX_SMPI:-$ROOT/build/smpi/shiftbox}
PLATFORM=$ROOT/configs/platforms/fattree.xml
NP=
SHARED=
BCAST=ompi

usage() {
    sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
}
die() {
    echo "smpi-run: $*" >&2
    exit 2
}

while [[ $# -gt 0 ]]; do
    case $1 in
    -np | --platform | --shared-malloc | --bcast)
        [[ $# -ge 2 ]] || die "$1 needs a value (--help)" ;;&
    -np) NP=${2:-}; shift 2 ;;
    --platform) PLATFORM=${2:-}; shift 2 ;;
    --shared-malloc) SHARED=${2:-}; shift 2 ;;
    --bcast) BCAST=${2:-}; shift 2 ;;
    -h | --help) usage ;;
    -*) die "unknown option '$1'; accepted: -np N, --platform FILE, --shared-malloc BYTES, --bcast ALG (--help)" ;;
    *) break ;;
    esac
done
[[ $# -ge 1 ]] || die "no command; accepted: exchange, pingpong, model (--help)"
[[ $NP =~ ^[1-9][0-9]*$ ]] || die "-np '$NP': accepted: a positive number of ranks"
[[ -z $SHARED || $SHARED =~ ^[1-9][0-9]*$ ]] || die "--shared-malloc '$SHARED': accepted: bytes, a positive integer"
[[ $BCAST =~ ^[a-z0-9_]+$ ]] || die "--bcast '$BCAST': accepted: an SMPI broadcast algorithm (ompi, default, binomial_tree, ...)"
[[ -r $PLATFORM ]] || die "--platform $PLATFORM: cannot read it; accepted: a SimGrid platform file (configs/platforms/)"
[[ -x $BIN ]] || die "$BIN is missing: build it with 'make SIMGRID=1'"
command -v smpirun >/dev/null || die "smpirun not found: install libsimgrid-dev (make deps)"

# Hosts of the platform: node-0 .. node-(count-1), from its cluster's radical.
hosts=$(sed -n 's/.*radical="0-\([0-9]*\)".*/\1/p' "$PLATFORM" | head -n 1)
[[ -n $hosts ]] || die "--platform $PLATFORM: no cluster radical=\"0-N\" of hosts node-0..node-N found"
hosts=$((hosts + 1))
((NP <= hosts)) || die "-np $NP: the platform $PLATFORM has $hosts hosts"

args=("$@")
out=
verify_off=0
timer_set=0
for ((i = 0; i < ${#args[@]}; i++)); do
    a=${args[i]}
    case $a in
    --out | -o) out=${args[i + 1]:-} ;;
    --out=*) out=${a#--out=} ;;
    -c | --config) # verify = off in the file's [exchange] section
        awk '/^[ \t]*\[/ { s = $0; gsub(/[][ \t]/, "", s); sub(/[;#].*/, "", s) }
             s == "exchange" && tolower($0) ~ /^[ \t]*verify[ \t]*=[ \t]*(0|false|no|off)[ \t]*([;#].*)?\r?$/ { f = 1 }
             END { exit !f }' "${args[i + 1]:-/dev/null}" 2>/dev/null && verify_off=1 ;;
    # every form shiftbox reads as off: -s KEY=V, --set KEY=V, --set=KEY=V, any case
    *exchange.verify=*)
        v=${a##*exchange.verify=}
        v=${v//[[:space:]]/}
        [[ ${v,,} =~ ^(0|false|no|off)$ ]] && verify_off=1 ;;
    timer.samples=*) timer_set=1 ;;
    esac
done
if [[ -n $SHARED && $verify_off -eq 0 ]]; then
    die "--shared-malloc $SHARED lets the ranks' payloads share memory, so no byte could be checked; add -s exchange.verify=0 to run timings only (recorded in summary.json as verification: off)"
fi
((timer_set)) || args+=(-s timer.samples=100)

work=$(mktemp -d "${TMPDIR:-/tmp}/smpi-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
for ((h = 0; h < NP; h++)); do echo "node-$h"; done >"$work/hosts"

if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0
    --cfg=smpi/simulate-computation:no --cfg=smpi/bcast:"$BCAST" --cfg=smpi/barrier:ompi_bruck
    --cfg=smpi/gather:ompi
    --cfg=smpi/tmpdir:"$work" --log=smpi_colls.thres:warning --log=xbt_cfg.thres:warning)
# Shared blocks fold onto one region of this size: large, so that terabytes
# of simulated buffers need few mappings (vm.max_map_count).
[[ -n $SHARED ]] && cfg+=(--cfg=smpi/auto-shared-malloc-thresh:"$SHARED"
    --cfg=smpi/shared-malloc-blocksize:268435456)
# shellcheck disable=SC2206
extra=(${SMPI_EXTRA:-})

start=$EPOCHREALTIME
/usr/bin/time -f '%M' -o "$work/rss" \
    smpirun -np "$NP" -platform "$PLATFORM" -hostfile "$work/hosts" "${cfg[@]}" "${extra[@]}" \
    "$BIN" "${args[@]}" 2> >(tee "$work/stderr" | grep -v -e 'You did not set the power of the host' \
        -e 'smpi_config/INFO' >&2)
rc=$?
wait # for the stderr filter
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
rss=$(tail -n 1 "$work/rss" 2>/dev/null)
[[ $rss =~ ^[0-9]+$ ]] || rss=0
# A simulation whose ranks wait for each other forever ends "stalling" with
# smpirun's exit 0: that is a runtime failure, never a success.
if grep -q 'Stalling SMPI instance' "$work/stderr"; then
    echo "smpi-run: the simulated ranks deadlocked (SimGrid: 'Stalling SMPI instance'); exit 3" >&2
    rc=3
fi
# smpirun reports a rank's exit code, or 128+signal; pass shiftbox's codes through.
if [[ -n $out && -d $out ]]; then
    /usr/bin/python3 - "$out/simulation.json" "$PLATFORM" "$NP" "$wall" "$rss" "$rc" "${SHARED:-0}" "${cfg[*]} ${extra[*]}" <<'EOF'
import json, os, subprocess, sys
path, platform, np, wall, rss, rc, shared, cfg = sys.argv[1:]
version = subprocess.run(["smpirun", "-version"], capture_output=True, text=True).stdout.strip()
json.dump({"platform": os.path.abspath(platform), "ranks": int(np), "wall_seconds": float(wall),
           "peak_rss_bytes": int(rss) * 1024, "exit_code": int(rc),
           "shared_malloc_bytes": int(shared), "smpirun_options": cfg.split(),
           "simgrid": version.splitlines()[0] if version else "unknown"},
          open(path, "w"), indent=1)
EOF
fi
echo "smpi-run: $NP ranks on $(basename "$PLATFORM"): ${wall%.*} s wall, $((rss / 1024)) MiB peak, exit $rc" >&2
exit "$rc"
