#!/usr/bin/env bash
# What one message each way between two ranks costs, written four ways
# (tools/duplex_variants.c says which): on one node the call pattern and
# who touched the bytes last move a "duplex step" far enough that one x(m)
# cannot fit every module (docs/MODEL.md, "How good it is", gives one
# run's figures).
#
#   tools/duplex_variants.sh [BYTES ...]     (default: 10 1000 10000 100000)
#
# Builds build/duplex_variants with mpicc when it is missing or older than
# its source, then runs it on 2 ranks (mpirun; MPIRUN overrides, e.g.
# MPIRUN="srun -n 2").  Exit 1 when a message arrived wrong, 2 on bad sizes.
set -euo pipefail
source "$(dirname "$0")/script_help.sh"
script_help "$0" "$@"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT/tools/duplex_variants.c
BIN=$ROOT/build/duplex_variants
if [ ! -x "$BIN" ] || [ "$SRC" -nt "$BIN" ]; then
    mkdir -p "$ROOT/build"
    mpicc -O2 -Wall -Wextra -Werror -o "$BIN" "$SRC"
fi
[ $# -gt 0 ] || set -- 10 1000 10000 100000
read -r -a launch <<< "${MPIRUN:-mpirun -np 2}"
exec "${launch[@]}" "$BIN" "$@"
