#!/usr/bin/env bash
# Faults and bad input (issue 13): every rank ends with the same code within
# 60 s, nothing hangs, nothing is silently accepted, and the files that were
# there before are byte-identical afterwards.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIMIT=60 # seconds: a case that takes longer has hung

# fingerprint DIR: every file below DIR with its checksum, sorted
fingerprint() { (cd "$1" && find . -type f ! -name '*.log' -print0 | sort -z | xargs -0r sha256sum); }

# ranks_agree NAME CODE NP ARGS...: every one of NP ranks ends with CODE within
# $LIMIT s.  Each rank runs under a shell that records its code and exits 0,
# so that mpirun does not end the others early.  (Runtime failures, exit 3,
# end through MPI_Abort, which ends every rank of the job with that code:
# there the job's code is the ranks' code.)
ranks_agree() {
    local name=$1 code=$2 np=$3
    shift 3
    local dir=$TEST_TMP/agree-$RANDOM
    mkdir -p "$dir"
    timeout $LIMIT "${MPIRUN[@]}" -np "$np" bash -c \
        '"$0" "$@" >/dev/null 2>&1; echo $? >"'"$dir"'/rank-$OMPI_COMM_WORLD_RANK"' \
        "$SHIFTBOX" "$@"
    local codes
    codes=$(cat "$dir"/rank-* 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ';')
    if [[ $(ls "$dir" | wc -l) -eq $np && $(sort -u "$dir"/rank-*) == "$code" ]]; then
        pass "$name: all $np ranks exit $code within ${LIMIT} s"
    else
        fail "$name: all $np ranks exit $code within ${LIMIT} s (got:$codes)"
    fi
}

# ---- 1. checkpoints on a full disk, a failing rank, a killed run's leftovers -------------
MD=("${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -s md.steps=20 -s checkpoint.every=5)
SMALL=$TEST_TMP/small
mkdir -p "$SMALL"
if [[ $(id -u) -ne 0 ]] || ! command -v mount >/dev/null; then
    skip "a full disk during a checkpoint" "mounting a small tmpfs needs root and mount"
elif ! mount -t tmpfs -o size=2M tmpfs "$SMALL" 2>/dev/null; then
    skip "a full disk during a checkpoint" "mount -t tmpfs was refused here"
else
    mkdir -p "$SMALL/a"
    echo "an earlier result" >"$SMALL/a/keep.txt"
    before=$(fingerprint "$SMALL")
    expect "a full disk: exit 3 on every rank within ${LIMIT} s, naming the file and the room" 3 \
        'md-00000005.h5md: needs about .* MB free \(statvfs\)' -- \
        timeout $LIMIT "${MD[@]}" -s md.cells=16,16,16 --out "$SMALL/a"
    if [[ $(fingerprint "$SMALL") == "$before" ]] && ! ls "$SMALL"/a/*.tmp >/dev/null 2>&1; then
        pass "... the files there before are byte-identical, no partial file left"
    else
        fail "... the files there before are byte-identical, no partial file left"
    fi
    umount "$SMALL"
fi

CK=$TEST_TMP/ck
mkdir -p "$CK"
echo "left by a killed run" >"$CK/md-00000007.h5md.tmp"
expect "one rank alone fails a checkpoint write: exit 3 within ${LIMIT} s, no hang" 3 \
    'rank 1: checkpoint .*md-00000010.h5md.tmp: writing velocity' \
    'md-00000010.h5md.tmp removed, earlier checkpoints untouched' \
    'removed .*md-00000007.h5md.tmp, an unfinished checkpoint of an earlier run' -- \
    timeout $LIMIT "${MD[@]}" -s md.cells=6,6,6 -s checkpoint.fault=write-fails-on-one-rank \
    --out "$CK"
if [[ $(cd "$CK" && ls *.h5md* | tr '\n' ' ') == "md-00000005.h5md " ]]; then
    pass "... the first checkpoint stays, the partial and the stale .tmp are gone"
else
    fail "... the first checkpoint stays, the partial and the stale .tmp are gone ($(ls "$CK"))"
fi
expect "... and the first checkpoint restarts" 0 'verified: true' -- \
    timeout $LIMIT "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -s md.cells=6,6,6 -s md.steps=20 \
    --restart "$CK/md-00000005.h5md" --out "$TEST_TMP/ck-restart"

# ---- 2. md's memory: refused before it allocates, and the estimate holds ---------------
expect "md larger than the node: exit 2 at once, with the numbers" 2 \
    'md.cells = 4096,4096,4096: 274877906944 atoms need an estimated .* GB on the largest rank' \
    'ranks share .* GB on this node \(MemAvailable' -- \
    timeout 20 "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -s md.cells=4096,4096,4096 --out "$TEST_TMP/huge"
ranks_agree "md larger than the node" 2 3 md -s md.cells=4096,4096,4096
if [[ ! -e $TEST_TMP/huge ]]; then
    pass "... and wrote nothing"
else
    fail "... and wrote nothing"
fi
# estimate_vs_peak NAME NP ARGS...: the estimate within 25 % of VmHWM (largest rank);
# the energy drift is not what this checks (md.drift_bound = 1)
estimate_vs_peak() {
    local name=$1 np=$2
    shift 2
    local dir=$TEST_TMP/mem-$name
    if ! timeout $LIMIT "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" md -s md.steps=10 -s md.drift_bound=1 "$@" \
        --out "$dir" >"$dir.log" 2>&1; then
        fail "md memory estimate, $name: the run failed ($dir.log)"
        return
    fi
    local est peak
    est=$(md_value "$dir" md.memory.estimate_bytes)
    peak=$(md_value "$dir" md.memory.peak_rss_bytes)
    if $PY -c "import sys; e, p = $est, $peak; sys.exit(abs(e - p) > 0.25 * p)"; then
        pass "md memory estimate within 25 % of the peak RSS, $name ($est vs $peak bytes)"
    else
        fail "md memory estimate within 25 % of the peak RSS, $name ($est vs $peak bytes)"
    fi
}
estimate_vs_peak "60x60x60 cells on 2 ranks" 2 -s md.cells=60,60,60
estimate_vs_peak "whole boxes (ghost_filter none)" 2 -s md.cells=30,30,30 -s md.ghost_filter=none
estimate_vs_peak "direct, whole boxes" 2 -s md.cells=32,32,32 -s md.ghost_filter=none \
    -s exchange.module=direct
estimate_vs_peak "teams of 2 on 4 ranks" 4 -s md.cells=32,32,32 -s exchange.module=teamshift \
    -s exchange.team_size=2

# ---- 3. a damaged checkpoint: exit 3 naming what, or a harmless byte --------------------
FLIP=$TEST_TMP/flip
if "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md -s md.cells=6,6,6 -s md.steps=10 -s md.drift_bound=1 \
    -s checkpoint.at_end=1 --out "$FLIP/w" >"$FLIP.log" 2>&1; then
    before=$(fingerprint "$FLIP/w")
    expect "one flipped byte at each of 50 offsets: exit 3 naming the file, or the same state" 0 \
        '50 flipped bytes in a .*-byte checkpoint: .* caught \(exit 3\), .* harmless .*, 0 other' -- \
        timeout 600 $PY "$ROOT/tests/checkpoint_flip.py" "$SHIFTBOX" "$FLIP/w/md-00000010.h5md" \
        "$FLIP/work" --offsets 50
    if [[ $(fingerprint "$FLIP/w") == "$before" ]]; then
        pass "... the intact checkpoint is byte-identical afterwards"
    else
        fail "... the intact checkpoint is byte-identical afterwards"
    fi
else
    fail "writing the checkpoint to damage ($FLIP.log)"
fi
printf 'not HDF5\n' >"$TEST_TMP/text.h5md"
expect "a file that is not HDF5 at all: bad input, exit 2" 2 'not an HDF5 file' -- \
    "$SHIFTBOX" md -s md.cells=6,6,6 --restart "$TEST_TMP/text.h5md"

# ---- 4. configuration that must be refused, naming file:line or the option --------------
CFG=$TEST_TMP/cfg
mkdir -p "$CFG"
printf '[exchange]\nk = 2\nbytes = 8\x00\nrepetitions = 3\n' >"$CFG/nul.ini"
expect "a NUL byte in the file: exit 2 at its line" 2 'nul.ini:3: a NUL byte' -- \
    "$SHIFTBOX" exchange -c "$CFG/nul.ini"
{ echo '[exchange]'; echo "bytes = $(seq -s, 1 80)"; } >"$CFG/long.ini"
expect "a line longer than inih takes: exit 2 at that line" 2 'long.ini:2: longer than 197' -- \
    "$SHIFTBOX" exchange -c "$CFG/long.ini"
printf '[model]\nrendezvous = 1\n[exchange ; not closed]\nk = 2\n' >"$CFG/open.ini"
expect "a section left open: exit 2 at its line (was: its keys blamed on the section before)" 2 \
    "open.ini:3: '\\[exchange ; not closed\\]' opens a section it does not close" -- \
    "$SHIFTBOX" exchange -c "$CFG/open.ini"
printf '[exchange]\nk = 2\nbytes = 8\nk = 3\n' >"$CFG/twice.ini"
expect "a key given twice in the file: exit 2 naming both lines" 2 \
    'twice.ini:4: exchange.k given twice \(first at line 2\)' -- \
    "$SHIFTBOX" exchange -c "$CFG/twice.ini"
expect "a key given twice with -s: exit 2" 2 'exchange.k given twice' -- \
    "$SHIFTBOX" exchange -s exchange.k=1 -s exchange.k=2
printf '[exchange]\nk = 2\n' >"$CFG/k2.ini"
expect "-s may override the file once" 0 'k += 1 +; from -s' 'verified: true' -- \
    "$SHIFTBOX" exchange -c "$CFG/k2.ini" -s exchange.k=1 -s exchange.bytes=8 \
    -s exchange.repetitions=1 -s exchange.warmup=0
printf '[exchange]\nk = 3\n' >"$CFG/md.ini"
expect "md with a key it never reads (exchange.k): exit 2, listing what md reads" 2 \
    'md.ini:2: exchange.k: md does not read this key' 'md reads \[run\], \[decomp\], exchange.module' -- \
    "$SHIFTBOX" md -c "$CFG/md.ini"
expect "... also with -s" 2 '^shiftbox: error: -s exchange.k: md does not read' -- \
    "$SHIFTBOX" md -s exchange.k=3
ranks_agree "a key md does not read" 2 3 md -s exchange.k=3
printf '[config]\nignore = exchange.k\n[exchange]\nk = 3\n' >"$CFG/shared.ini"
expect "... unless config.ignore names it" 0 'verified: true' -- \
    "$SHIFTBOX" md -c "$CFG/shared.ini" -s md.cells=4,4,4 -s md.steps=2
expect "--out given twice: exit 2" 2 '\-\-out given twice' -- \
    "$SHIFTBOX" exchange --out "$CFG/a" --out "$CFG/b"
expect "--restart given twice: exit 2" 2 '\-\-restart given twice' -- \
    "$SHIFTBOX" md --restart a.h5md --restart b.h5md
expect "--restart beside -s checkpoint.restart: exit 2 naming both" 2 \
    'checkpoint.restart given by -s and by --restart; accepted: one of them' -- \
    "$SHIFTBOX" md -s checkpoint.restart=a.h5md --restart b.h5md
mkfifo "$CFG/fifo.ini"
expect "a FIFO as -c: exit 2 at once, not a wait" 2 'not a regular file' -- \
    timeout 10 "$SHIFTBOX" exchange -c "$CFG/fifo.ini"
if [[ ! -e $CFG/a && ! -e $CFG/b ]]; then
    pass "... and the refused runs wrote nothing"
else
    fail "... and the refused runs wrote nothing"
fi

# ---- 5. signals: 128 + the signal, nothing that looks complete -------------------------
# (the signal reaches the ranks, as with Slurm's scancel; Open MPI's mpirun
# itself exits 1 whatever its ranks do when it is signalled: docs/RESULTS.md, "Signals")
signalled() { # SIGNAL DIR LAUNCH...: starts LAUNCH, signals the ranks after 3 s, returns its code
    local sig=$1 dir=$2
    shift 2
    "$@" -s md.cells=8,8,8 -s md.steps=1000000 -s checkpoint.every=200 --out "$dir" \
        >"$dir.log" 2>&1 &
    local pid=$!
    sleep 3
    pkill -"$sig" -f "^$SHIFTBOX md -s md.cells=8,8,8 -s md.steps=1000000"
    wait $pid
    local rc=$?
    cat "$dir.log"
    return $rc
}
expect "SIGTERM to the ranks under mpirun: exit 143" 143 \
    'terminated by a signal; no summary written, an unfinished checkpoint stays NAME.tmp' -- \
    timeout $LIMIT bash -c "$(declare -f signalled); SHIFTBOX='$SHIFTBOX'; \
        signalled TERM '$TEST_TMP/sigterm' mpirun -np 2 '$SHIFTBOX' md"
expect "SIGINT to a rank run without mpirun: exit 130" 130 \
    'terminated by a signal; no summary written, an unfinished checkpoint stays NAME.tmp' -- \
    timeout $LIMIT bash -c "$(declare -f signalled); SHIFTBOX='$SHIFTBOX'; \
        signalled INT '$TEST_TMP/sigint' '$SHIFTBOX' md"
# A run that writes no checkpoints does not speak of them: the signal comes
# once the command has started (its first line printed), and md without
# checkpoint.every or at_end says the same as exchange.
interrupted() { # LOG COMMAND...: SIGINT once LOG shows the command's first line; its code
    local log=$1
    shift
    "$@" >"$log" 2>&1 &
    local pid=$! waited=0
    until grep -Eq '^(exchange|md): ' "$log" || ((waited++ >= 300)); do sleep 0.1; done
    kill -INT $pid
    wait $pid
    local rc=$?
    cat "$log"
    return $rc
}
expect "SIGINT to an exchange run: exit 130, no word of checkpoints" 130 \
    'terminated by a signal; no summary written$' -- timeout $LIMIT bash -c "$(declare -f interrupted); \
        interrupted '$TEST_TMP/sigint-exchange.log' '$SHIFTBOX' exchange \
        -s exchange.repetitions=10000000 -s exchange.k=4 -s exchange.bytes=10000"
expect "SIGINT to an md run without checkpoints: the same" 130 \
    'terminated by a signal; no summary written$' -- timeout $LIMIT bash -c "$(declare -f interrupted); \
        interrupted '$TEST_TMP/sigint-md.log' '$SHIFTBOX' md -s md.cells=8,8,8 -s md.steps=1000000"
if [[ ! -e $TEST_TMP/sigterm/summary.json && ! -e $TEST_TMP/sigint/summary.json ]] &&
    ! ls "$TEST_TMP"/sig*/*.csv >/dev/null 2>&1; then
    pass "... no summary.json or CSV that looks complete"
else
    fail "... no summary.json or CSV that looks complete ($(ls "$TEST_TMP"/sig*))"
fi
complete=1
for f in "$TEST_TMP"/sig*/md-*.h5md; do
    [[ -e $f ]] || continue
    $PY "$ROOT/tools/h5check.py" "$f" >/dev/null 2>&1 || complete=0
done
if [[ $complete == 1 ]]; then
    pass "... every checkpoint under its final name is complete (the unfinished one is NAME.tmp)"
else
    fail "... every checkpoint under its final name is complete"
fi

# ---- 6. the energy drift: no false failure, a wrong force caught ------------------------
for run in "8 20" "4 10" "4 1000" "16 100" "40 10"; do
    set -- $run
    expect "a correct run of $1^3 cells and $2 steps passes the derived drift bound" 0 \
        'verified: true \(energy drift .* from dt, steps and atoms' -- \
        timeout $LIMIT "$SHIFTBOX" md -s md.cells=$1,$1,$1 -s md.steps=$2 -s md.thermo=0
done
expect "forces wrong by 0.1 % (md.inject_force_scale = 1.001): exit 1" 1 'verified: false' -- \
    timeout $LIMIT "$SHIFTBOX" md -s md.cells=8,8,8 -s md.steps=100 -s md.inject_force_scale=1.001
ranks_agree "forces wrong by 0.1 %" 1 2 md -s md.cells=8,8,8 -s md.steps=100 \
    -s md.inject_force_scale=1.001

# ---- 7. a verdict only where something was compared -----------------------------------
expect "model predicts, and claims no verdict" 0 'no verdict' -- \
    bash -c "'$SHIFTBOX' model -s model.hockney='$ROOT/docs/results/hockney-2ranks.json' \
        | tee /dev/stderr | grep -q 'verified' && exit 9 || exit 0"

# ---- 8. soak: random valid runs, none hangs, none is wrong --------------------------------
expect "a short soak: 10 random runs, each ok" 0 \
    'soak: 10 runs: 10 ok, 0 hangs, 0 wrong bytes, 0 crashes, 0 runtime failures, 0 refused' -- \
    env SOAK_DIR="$TEST_TMP/soak" "$ROOT/tools/soak.sh" 10 $LIMIT 2026
expect "... and a soak counts a wrong byte (SOAK_INJECT=1): exit 1" 1 \
    'soak: 3 runs: 2 ok, 0 hangs, 1 wrong bytes' -- \
    env SOAK_DIR="$TEST_TMP/soak-inject" SOAK_INJECT=1 "$ROOT/tools/soak.sh" 3 $LIMIT 2026

# ---- 9. a file only one rank can read: every rank stops, rank 0 prints why ---------------
# (a node-local path: each rank runs in a folder of its own, rank 1's without the file)
HK=$TEST_TMP/rank-dirs
mkdir -p "$HK/w0/pp" "$HK/w1"
cp "$ROOT/docs/results/hockney-2ranks.json" "$HK/w0/pp/hockney.json"
in_rank_dirs() { # COMMAND...: rank R of a 2-rank job runs COMMAND in $HK/wR
    timeout $LIMIT "${MPIRUN[@]}" -np 2 bash -c 'cd "$0/w$OMPI_COMM_WORLD_RANK" && exec "$@"' \
        "$HK" "$@"
}
for cmd in "md -s md.cells=4,4,4 -s md.steps=5 -s exchange.module=auto" \
    "exchange -s exchange.module=auto -s exchange.repetitions=3" "model"; do
    expect "model.hockney that rank 1 cannot read, ${cmd%% *}: exit 2 within ${LIMIT} s, naming the key and the rank" \
        2 'model.hockney = pp/hockney.json: cannot open.*\(rank 1\)' -- \
        in_rank_dirs "$(realpath "$SHIFTBOX")" $cmd -s model.hockney=pp/hockney.json
done

# ---- 10. memory that runs out on rank 0 alone, wherever it runs out --------------------
# rank 0 under a data limit (ulimit -d) from where the run fits down to where
# its own subdomain nearly does not, in 15 MB steps: most of the allocations a verified
# stencil run makes on rank 0 fail in one of them (its fields, the gathered
# field, the reference run's fields and copies; the map is in docs/RESULTS.md).
# Each run must end within $LIMIT s: verified, or exit 2 on both ranks with
# the message, or exit 3 naming the allocation; never a hang.
MEM=$TEST_TMP/memory
mkdir -p "$MEM"
mem_case() { # LIMIT_KB: the job's code; each rank's code in $MEM/L/rank-R
    mkdir -p "$MEM/$1"
    timeout $LIMIT "${MPIRUN[@]}" -np 2 bash -c '[[ $OMPI_COMM_WORLD_RANK == 0 ]] && ulimit -d "$1"
        "$0" stencil -s stencil.backend=cpu -s stencil.size=2048 -s stencil.iterations=1 \
            -s stencil.depth=1 -s stencil.verify=1 -s timer.samples=1000 >"$2/log-$OMPI_COMM_WORLD_RANK" 2>&1
        rc=$?; echo $rc >"$2/rank-$OMPI_COMM_WORLD_RANK"; exit $rc' "$SHIFTBOX" "$1" "$MEM/$1" \
        >"$MEM/$1/mpirun.log" 2>&1
}
mem_seen=" "
mem_bad=""
for kb in $(seq 160000 -15000 40000); do
    mem_case "$kb"
    rc=$?
    logs=$(cat "$MEM/$kb"/log-* 2>/dev/null)
    ranks=$(cat "$MEM/$kb"/rank-* 2>/dev/null | sort -u | tr '\n' ' ')
    case $rc in
    0) [[ $logs == *"verified: true"* ]] || mem_bad+=" $kb KB: exit 0 without verified: true;" ;;
    2) [[ $ranks == "2 " && $logs == *"do not fit in host memory"* ]] ||
        mem_bad+=" $kb KB: exit 2 but ranks ended ${ranks:-?}or no message;" ;;
    3) [[ $logs == *"rank 0: out of memory allocating"* ]] ||
        mem_bad+=" $kb KB: exit 3 without naming the allocation;" ;;
    *) mem_bad+=" $kb KB: exit $rc (124: a hang);" ;;
    esac
    [[ $rc == 2 && $logs == *"single-rank reference run"* ]] && rc=2r
    [[ $mem_seen == *" $rc "* ]] || mem_seen+="$rc "
done
if [[ -z $mem_bad && $mem_seen == *" 0 "* && $mem_seen == *" 2r "* && $mem_seen == *" 3 "* ]]; then
    pass "rank 0 out of memory at 9 limits: verified, exit 2 on both ranks or exit 3 naming the allocation, never a hang (seen:$mem_seen; 2r: the reference run)"
else
    fail "rank 0 out of memory:${mem_bad:- every run clean, but not every outcome reached} (seen:$mem_seen; logs in $MEM)"
fi

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
