#!/usr/bin/env bash
# The regression suite users run after an upgrade (configs/regression.ini)
# passes on 8 ranks: every module, grid and team size.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
expect "configs/regression.ini on 8 ranks: every module, grid and team size" 0 \
    'teamshift +8 1x1x1 +40 +40 +0' 'direct +1 2x2x2 +40 +40 +0' 'verified: true' -- \
    "${MPIRUN[@]}" -np 8 "$SHIFTBOX" exchange -c "$ROOT/configs/regression.ini"
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
