#!/usr/bin/env bash
# The regression suite users run after an upgrade (configs/regression.ini)
# passes: every module, grid and team size.  Here on 4 ranks (8 on this
# 2-core machine oversubscribe 4x and took two minutes of make check);
# tests/mpi-exchange.sh covers 8 ranks, 3D grids and teams of 2, 4 and 8.
# One verified exchange a point (repetitions 1, no warmup): every point is
# still checked byte for byte, and the suite takes 75 s instead of 126 on
# the Zen 5 VM of 2026-12-07, where make check came to 19.6 minutes.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
expect "configs/regression.ini on 4 ranks: every module, grid and team size" 0 \
    'teamshift +4 1x1x1 +40 +40 +0' 'direct +1 2x2x1 +40 +40 +0' 'shift +2 1x1x2 +40 +40 +0' \
    'verified: true \(1600 points, 0 failed' -- \
    "${MPIRUN[@]}" -np 4 "$SHIFTBOX" exchange -c "$ROOT/configs/regression.ini" \
    -s exchange.repetitions=1 -s exchange.warmup=0
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
