#!/usr/bin/env bash
# Checks that .devrt/ (tools/bundle-runtime.sh) is all shiftbox needs: in a
# private mount namespace, hides Open MPI's and PMIx's trees, /etc/openmpi,
# mpirun/orted and the system's copy of every bundled library, then runs a
# verified 2-rank exchange from the bundle.  Needs root (unshare -m).
set -euo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
[[ $# -eq 0 ]] || { echo "bundle-selftest.sh: takes no arguments, got '$*' (--help)" >&2; exit 2; }
cd "$(dirname "$0")/.."
dest=${DEVRT:-.devrt}
[[ -f $dest/env.sh ]] || { echo "bundle-selftest: no $dest/env.sh (tools/bundle-runtime.sh)" >&2; exit 2; }
arch=$(gcc -print-multiarch)
binary=${SHIFTBOX:-build/shiftbox}
exec unshare -m bash -s "$dest" "$arch" "$binary" <<'INNER'
set -euo pipefail
dest=$1 arch=$2 binary=$3
empty=$(mktemp -d)
for dir in /usr/lib/$arch/openmpi /usr/lib/$arch/pmix2 /usr/share/openmpi /etc/openmpi; do
    [[ -d $dir ]] && mount --bind "$empty" "$dir"
done
for f in /usr/bin/orterun /usr/bin/orted; do mount --bind /dev/null "$f"; done
for lib in "$dest"/lib/*.so*; do
    for system in /usr/lib/$arch/$(basename "$lib") /lib/$arch/$(basename "$lib"); do
        [[ -e $system ]] && mount --bind /dev/null "$(readlink -f "$system")" 2>/dev/null || true
    done
done
# What the system still offers no longer works: the bundle must do it all.
if /usr/bin/mpirun --version >/dev/null 2>&1; then echo "system mpirun still runs" >&2; exit 1; fi
source "$dest/env.sh"
mpirun -np 2 "$binary" exchange -s exchange.k=1-2 -s exchange.bytes=0,5000 \
    -s exchange.repetitions=3 | tail -n 2
INNER
