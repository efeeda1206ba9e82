#!/usr/bin/env bash
# The run-time bundle for machines without MPI (tools/bundle-runtime.sh)
# runs a verified exchange with the system's Open MPI hidden.  Needs root
# for a private mount namespace; says so and counts nothing without it.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)

if ! unshare -m true 2>/dev/null; then
    echo "skip - bundle self-test (unshare -m is not permitted here)"
else
    export DEVRT=$TEST_TMP/devrt
    expect "bundle-runtime.sh collects the run-time closure" 0 'in .*devrt' -- \
        "$ROOT/tools/bundle-runtime.sh" "$SHIFTBOX"
    expect "the bundle alone runs a verified exchange" 0 'verified: true' -- \
        "$ROOT/tools/bundle-selftest.sh"
fi
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
