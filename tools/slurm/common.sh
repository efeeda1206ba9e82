# Sourced by the batch scripts in tools/slurm/ (docs/CLUSTER.md): how one
# ShiftBox run is launched on a cluster.
#
#   launch NODES PER_NODE NAME shiftbox-arguments...
#
# runs build/shiftbox on NODES nodes with PER_NODE ranks on each, one rank
# per core, ranks numbered node by node (block placement: a team of
# consecutive ranks shares a node), writing results/NAME (SHIFTBOX_RESULTS
# to change the folder).  Inside a Slurm job it uses srun; elsewhere
# mpirun, on HOSTFILE (an Open MPI hostfile) or HOSTS (mpirun --host, e.g.
# n001:4,n002:4); LAUNCHER=srun|mpirun chooses.  SHIFTBOX_DRY_RUN=1 prints
# each command line instead of running it.  SHIFTBOX_EXTRA adds arguments
# to every run (e.g. "-s timer.samples=1000"; keys of one command only
# with -s config.ignore=exchange,pingpong beside them).

die() {
    echo "tools/slurm: $*" >&2
    exit 2
}

BIN=$ROOT/build/shiftbox
RESULTS=${SHIFTBOX_RESULTS:-$ROOT/results}
if [[ -z ${LAUNCHER:-} ]]; then
    if [[ -n ${SLURM_JOB_ID:-} ]]; then LAUNCHER=srun; else LAUNCHER=mpirun; fi
fi
case $LAUNCHER in
srun | mpirun) ;;
*) die "LAUNCHER=$LAUNCHER; accepted: srun or mpirun" ;;
esac
[[ -z ${HOSTFILE:-} || -r $HOSTFILE ]] || die "HOSTFILE=$HOSTFILE cannot be read; accepted: an Open MPI hostfile"

# The nodes this job may use: Slurm's count, else the hostfile's or HOSTS'.
available_nodes() {
    if [[ $LAUNCHER == srun ]]; then
        echo "${SLURM_JOB_NUM_NODES:-1}"
    elif [[ -n ${HOSTFILE:-} ]]; then
        grep -cv '^\s*\(#\|$\)' "$HOSTFILE"
    elif [[ -n ${HOSTS:-} ]]; then
        tr ',' '\n' <<<"$HOSTS" | grep -c .
    else
        echo 1
    fi
}

# Ranks per node: Slurm's, else PER_NODE, else 4 (the team sizes 1, 2, 4).
ranks_per_node() {
    echo "${SLURM_NTASKS_PER_NODE:-${PER_NODE:-4}}"
}

launch() {
    local nodes=$1 per_node=$2 name=$3
    shift 3
    local -a cmd
    if [[ $LAUNCHER == srun ]]; then
        cmd=(srun --nodes="$nodes" --ntasks=$((nodes * per_node)) --ntasks-per-node="$per_node"
            --distribution=block:block --cpu-bind=cores)
    else
        cmd=(mpirun -np $((nodes * per_node)) --map-by "ppr:$per_node:node" --bind-to core)
        if [[ -n ${HOSTFILE:-} ]]; then
            cmd+=(--hostfile "$HOSTFILE")
        elif [[ -n ${HOSTS:-} ]]; then
            cmd+=(--host "$HOSTS")
        fi
    fi
    # shellcheck disable=SC2086 # SHIFTBOX_EXTRA is a list of arguments
    cmd+=("$BIN" "$@" ${SHIFTBOX_EXTRA:-} --out "$RESULTS/$name")
    echo "+ ${cmd[*]}"
    [[ ${SHIFTBOX_DRY_RUN:-0} == 1 ]] && return 0
    [[ -x $BIN ]] || die "$BIN is missing: run make in $ROOT first"
    mkdir -p "$RESULTS"
    "${cmd[@]}"
}
