#!/usr/bin/env bash
# Soak: many random valid runs, each under a time limit (issue 13, case 8).
#
#   tools/soak.sh N SECONDS [SEED]
#
# Runs N random configurations, each under a limit of SECONDS: shiftbox
# exchange (1-9 ranks, oversubscribed; every module; k 1-4; Team Shift
# sizes that divide the ranks; uniform and uneven payloads; phases), md
# (short runs, any module and team size) and stencil (2D and 3D, sync and
# async, overlap, verified against a single-rank reference).  Every run
# verifies what it moved.  Classifies each by its exit code:
#   0 ok · 1 wrong bytes (a verification failed: the worst outcome) ·
#   2 refused (the generator made an invalid configuration: a soak bug) ·
#   3 runtime failure · 124 hang (the limit) · other (a signal): crash
# and prints one line per run and the totals.  Exit 0 when every run ended
# 0, else 1.  SEED (default: from the clock) makes a soak repeatable;
# SOAK_INJECT=1 makes run 1 inject a wrong byte (exchange.inject_fault),
# which the soak must count (tests/faults.sh checks that it does).
# Logs: $SOAK_DIR (default a new folder under /tmp), one file per run.
set -uo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHIFTBOX=${SHIFTBOX:-$ROOT/build/shiftbox}
if [[ $# -lt 2 || ! $1 =~ ^[0-9]+$ || ! $2 =~ ^[0-9]+$ || $1 -lt 1 || $2 -lt 1 ]]; then
    echo "usage: tools/soak.sh N SECONDS [SEED]   (N runs, each under SECONDS)" >&2
    exit 2
fi
N=$1 LIMIT=$2 SEED=${3:-$(date +%s)}
[[ -x $SHIFTBOX ]] || { echo "soak: $SHIFTBOX not built (make)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DIR=${SOAK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/shiftbox-soak.XXXXXX")}
mkdir -p "$DIR"
RANDOM=$SEED

pick() { # pick WORD...: one of the words
    local a=("$@")
    echo "${a[RANDOM % ${#a[@]}]}"
}
divisor() { # divisor N: a random divisor of N
    local n=$1 ds=() d
    for ((d = 1; d <= n; d++)); do ((n % d == 0)) && ds+=("$d"); done
    pick "${ds[@]}"
}

# One random command line for run $1: sets NP and ARGS.
generate() {
    NP=$((RANDOM % 9 + 1))
    local module team=1
    module=$(pick shift shift-isend teamshift direct)
    [[ $module == teamshift ]] && team=$(divisor "$NP")
    case $((RANDOM % 10)) in
    [0-5])
        local k=$((RANDOM % 4 + 1)) bytes
        # k = 3, 4 move (2k+1)^3 slots: keep them small
        if ((k >= 3)); then bytes=$(pick 0 1 7 100 1000); else bytes=$(pick 0 1 7 100 1000 4093 4096 5000 65536); fi
        ARGS=(exchange -s exchange.module="$module" -s exchange.team_size="$team"
            -s exchange.k="$k" -s exchange.bytes="$bytes"
            -s exchange.payload="$(pick uniform varied)" -s exchange.phases="$(pick xyz xyz xy x yz)"
            -s exchange.repetitions=2 -s exchange.warmup=1 -s run.seed=$RANDOM)
        ;;
    [6-7])
        local c=$((RANDOM % 5 + 4))
        ARGS=(md -s md.cells=$c,$((RANDOM % 5 + 4)),$((RANDOM % 5 + 4)) -s md.steps=$((RANDOM % 16 + 5))
            -s exchange.module="$module" -s exchange.team_size="$team"
            -s md.ghost_filter="$(pick slab none)" -s run.seed=$RANDOM)
        ;;
    *)
        local dim size
        dim=$(pick 2 3)
        if [[ $dim == 2 ]]; then size=$((RANDOM % 64 + 48)); else size=$((RANDOM % 16 + 24)); fi
        ARGS=(stencil -s stencil.dim="$dim" -s stencil.size="$size" -s stencil.depth="$(pick 1 2 4)"
            -s stencil.iterations=$((RANDOM % 8 + 4)) -s stencil.exchange="$(pick sync async)"
            -s stencil.overlap="$(pick 0 1)" -s stencil.backend=cpu -s stencil.verify=1)
        ;;
    esac
    if [[ ${SOAK_INJECT:-0} == 1 && $1 == 1 ]]; then
        NP=2
        ARGS=(exchange -s exchange.k=1 -s exchange.bytes=100 -s exchange.repetitions=2
            -s exchange.inject_fault=1)
    fi
}

declare -A total=([ok]=0 [wrong]=0 [refused]=0 [runtime]=0 [hang]=0 [crash]=0)
echo "soak: $N runs, each under $LIMIT s, seed $SEED, logs in $DIR"
for ((i = 1; i <= N; i++)); do
    generate "$i"
    log=$DIR/run-$i.log
    echo "mpirun -np $NP $SHIFTBOX ${ARGS[*]}" >"$log"
    timeout -k 5 "$LIMIT" mpirun --oversubscribe -np "$NP" "$SHIFTBOX" "${ARGS[@]}" >>"$log" 2>&1
    rc=$?
    case $rc in
    0) what=ok ;;
    1) what=wrong ;;
    2) what=refused ;;
    3) what=runtime ;;
    124 | 137) what=hang ;;
    *) what=crash ;;
    esac
    total[$what]=$((total[$what] + 1))
    printf 'soak %4d/%d: %-7s (exit %3d) np %d %s\n' "$i" "$N" "$what" "$rc" "$NP" "${ARGS[*]}"
done
echo "soak: $N runs: ${total[ok]} ok, ${total[hang]} hangs, ${total[wrong]} wrong bytes," \
    "${total[crash]} crashes, ${total[runtime]} runtime failures, ${total[refused]} refused" \
    "(seed $SEED, logs $DIR)"
[[ ${total[ok]} -eq $N ]]
