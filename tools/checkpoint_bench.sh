#!/usr/bin/env bash
# Checkpoint throughput against dd, in one run (issue 6).
#
#   tools/checkpoint_bench.sh [CELLS ...]     (default: 20 100, i.e. 32 000
#                                              and 4 000 000 atoms)
#
# For each system, REPS times (default 3) and in turn:
#  - shiftbox md writes its initial state as a checkpoint (md.steps=0,
#    checkpoint.at_end=1: parallel HDF5, row digests on the particle tables
#    and Fletcher32 on the rest, flushed to disk before the rename);
#  - shiftbox md restarts from it (the read, the checks, the particles placed);
#  - dd writes the same number of bytes to the same folder with conv=fsync,
#    three times:
#    1. zeros (/dev/zero), the usual yardstick;
#    2. the checkpoint's own bytes, from a copy in /dev/shm (this VM writes
#       zero pages into its page cache several times faster than other data);
#    3. zeros while a second process holds as much touched memory as the
#       ranks held (summary.json's peak_rss_bytes times the ranks).
# The third is the yardstick of the target. On a VM whose host backs guest
# memory lazily (Firecracker here), a page cache filled beside a large
# process gets fresh pages, and each costs the host's first touch; dd alone
# reuses the pages just freed. On the Xeon VM of 2026-11-28, dd of 403 MiB
# ran at 1.3 GB/s alone and at 0.20 GB/s beside 1.6 GB of touched memory
# (docs/results/README.md).
# The page cache is dropped before each step when this machine lets us
# (root, /proc/sys/vm/drop_caches), so that the read comes from the disk
# and no write pays for another's dirty pages; the last lines say which.
# Prints the medians in MB/s and the write's ratios to each dd; the target
# is write >= 0.6 x dd beside the ranks' memory.
set -euo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
cd "$(dirname "$0")/.."
: "${SHIFTBOX:=build/shiftbox}"
: "${NP:=2}"
: "${REPS:=3}"
: "${OUT:=results/bench/checkpoint}"
PY=/usr/bin/python3
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(20 100)
mkdir -p "$OUT"

cache=kept
drop_caches() {
    sync
    if [[ -w /proc/sys/vm/drop_caches ]] && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
        cache="page cache dropped before each"
    else
        cache="page cache NOT dropped (no permission): reads may come from memory"
    fi
}

value() { # value FILE KEY.KEY...
    $PY -c "
import json
v = json.load(open('$1'))
for k in '$2'.split('.'):
    v = v[k]
print(v)"
}

printf '# %d ranks, folder %s, median of %d\n' "$NP" "$OUT" "$REPS"
# dd of FROM into FILE (MB megabytes, or all of FROM), flushed to disk;
# prints dd's last line and removes FILE; returns 3 when dd failed.
dd_into() { # dd_into FROM FILE [MB]
    local line
    line=$(dd if="$1" of="$2" bs=1M ${3:+count="$3"} conv=fsync 2>&1 | tail -n 1) || {
        echo "checkpoint_bench.sh: dd of $1 into $2 failed: $line" >&2
        rm -f "$2"
        return 3
    }
    rm -f "$2"
    echo "$line"
}

# dd writing zeros while a second process holds BYTES of touched memory.
# That process reads its stdin until it closes: when this function closes
# its end, or when the script ends in any way, it exits.  Prints dd's last
# line; returns 3 when the holder did not start, died before dd was done,
# or dd failed.
dd_beside() { # dd_beside BYTES FILE MB
    local ready line
    coproc BALLAST { exec $PY -c "
import sys
held = bytearray(b'\\x01') * $1  # every page touched
print('ready', flush=True)
sys.stdin.read()"; }
    local from=${BALLAST[0]} to=${BALLAST[1]} pid=$BALLAST_PID
    if ! read -r ready <&"$from" || [[ $ready != ready ]]; then
        echo "checkpoint_bench.sh: the process that holds $1 bytes did not start" >&2
        return 3
    fi
    line=$(dd_into /dev/zero "$2" "$3") || return 3
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "checkpoint_bench.sh: the process that holds $1 bytes ended before dd did" >&2
        return 3
    fi
    exec {to}>&-
    wait "$pid" 2>/dev/null || true
    echo "$line"
}

printf '%10s %9s %10s %10s %10s %8s %8s %12s %13s %11s %12s\n' atoms MB write_MB/s read_MB/s dd_MB/s \
    write/dd read/dd dd_same_MB/s write/dd_same dd_mem_MB/s write/dd_mem
for cells in "${sizes[@]}"; do
    dir=$OUT/atoms-$cells
    system=(-s md.cells="$cells,$cells,$cells" -s md.steps=0)
    samples=()
    for ((rep = 0; rep < REPS; rep++)); do
        rm -rf "$dir"
        drop_caches
        mpirun -np "$NP" "$SHIFTBOX" md "${system[@]}" -s checkpoint.at_end=1 --out "$dir" \
            >"$dir.write.log" 2>&1 || { cat "$dir.write.log"; exit 1; }
        bytes=$(value "$dir/summary.json" md.checkpoints.bytes)
        wsec=$(value "$dir/summary.json" md.checkpoints.seconds)
        held=$(($(value "$dir/summary.json" md.memory.peak_rss_bytes) * NP))
        drop_caches
        mpirun -np "$NP" "$SHIFTBOX" md "${system[@]}" --restart "$dir/md-00000000.h5md" \
            --out "$dir/restart" >"$dir.read.log" 2>&1 || { cat "$dir.read.log"; exit 1; }
        rsec=$(value "$dir/restart/summary.json" md.restart.read_seconds)
        same=/dev/shm/checkpoint_bench.$$
        cp "$dir/md-00000000.h5md" "$same"
        drop_caches
        mb=$((${bytes%.*} / 1048576 + 1))
        zeros_line=$(dd_into /dev/zero "$dir/dd.bin" "$mb") || exit 3
        drop_caches
        same_line=$(dd_into "$same" "$dir/dd.bin") || exit 3
        rm -f "$same"
        drop_caches
        mem_line=$(dd_beside "$held" "$dir/dd.bin" "$mb") || exit 3
        samples+=("$bytes $wsec $rsec $zeros_line|$same_line|$mem_line")
    done
    printf '%s\n' "${samples[@]}" | $PY -c "
import re, statistics, sys
w, r, d, ds, dm = [], [], [], [], []
def rate(text):
    m = re.match(r'(\d+) bytes .* copied, ([0-9.]+) s', text)
    return int(m.group(1)) / float(m.group(2)) / 1e6
for line in sys.stdin:
    nbytes, wsec, rsec, rest = line.split(' ', 3)
    zeros, same, beside = rest.split('|')
    d.append(rate(zeros))
    ds.append(rate(same))
    dm.append(rate(beside))
    w.append(float(nbytes) / float(wsec) / 1e6)
    r.append(float(nbytes) / float(rsec) / 1e6)
med = statistics.median
print(f'{4 * $cells**3:10d} {float(nbytes) / 1e6:9.1f} {med(w):10.0f} {med(r):10.0f} '
      f'{med(d):10.0f} {med(w) / med(d):8.2f} {med(r) / med(d):8.2f} {med(ds):12.0f} '
      f'{med(w) / med(ds):13.2f} {med(dm):11.0f} {med(w) / med(dm):12.2f}')"
done
echo "# $cache; write: create, write, close, fsync, rename; read: open, read, check, place;"
echo "# dd_mem: dd of zeros while another process holds the ranks' peak resident memory"
