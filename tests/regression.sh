#!/usr/bin/env bash
# The regression suite users run after an upgrade (configs/regression.ini)
# passes: every module, grid and team size.  Here on 4 ranks (8 on this
# 2-core machine oversubscribe 4x and took two minutes of make check);
# tests/mpi-exchange.sh covers 8 ranks, 3D grids and teams of 2, 4 and 8.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
expect "configs/regression.ini on 4 ranks: every module, grid and team size" 0 \
    'teamshift +4 1x1x1 +40 +40 +0' 'direct +1 2x2x1 +40 +40 +0' 'shift +2 1x1x2 +40 +40 +0' \
    'verified: true \(1600 points, 0 failed' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" exchange -c "$ROOT/configs/regression.ini"
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
