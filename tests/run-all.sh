#!/usr/bin/env bash
# Runs every test: the cmocka unit tests (in TAP form), then the shell suites
# (command line, MPI matrix).  The last line is what CI reads:
#   N passed, N failed
set -u
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
: "${SHIFTBOX:=$BUILD/shiftbox}"
export SHIFTBOX
# Open MPI keeps some memory until exit; only ASan builds look at leaks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

passed=0
failed=0
skipped=()
timings=()
started=$SECONDS

for t in "$BUILD"/tests/test_*; do
    [[ -x $t && $t != *.d ]] || continue
    out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1)
    rc=$?
    # a test that skips itself: cmocka 1.1's TAP writes "not ok N # SKIP name",
    # later versions "ok N # SKIP name": listed as skipped, neither passed nor failed
    p=$(grep '^ok ' <<<"$out" | grep -Evc '^ok [0-9]+ # SKIP')
    f=$(grep '^not ok ' <<<"$out" | grep -Evc '^not ok [0-9]+ # SKIP')
    while IFS= read -r line; do
        skipped+=("$(basename "$t"): ${line#* # SKIP } (a unit test that skipped itself)")
    done < <(grep -E '^(not )?ok [0-9]+ # SKIP' <<<"$out")
    [[ $rc -ne 0 && $f -eq 0 ]] && f=1 # crashed before reporting
    echo "unit $(basename "$t"): $p passed, $f failed"
    [[ $f -ne 0 ]] && sed 's/^/    | /' <<<"$out"
    passed=$((passed + p))
    failed=$((failed + f))
done

for suite in tests/cli.sh tests/md.sh tests/checkpoint.sh tests/faults.sh tests/model.sh tests/smpi.sh tests/stencil.sh \
    tests/smpcost.sh tests/cuda_emu.sh tests/mpi-exchange.sh tests/regression.sh tests/cluster.sh tests/report.sh tests/schema.sh tests/bundle.sh; do
    echo "== $suite"
    log=$(mktemp)
    suite_started=$SECONDS
    "$suite" 2>&1 | tee "$log"
    last=$(tail -n 1 "$log")
    timings+=("$(basename "$suite") $((SECONDS - suite_started)) s")
    while IFS= read -r line; do skipped+=("${line#SKIP - }"); done < <(grep '^SKIP - ' "$log")
    rm -f "$log"
    if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
    else
        echo "not ok - $suite ended without a result line"
        failed=$((failed + 1))
    fi
done

echo "all tests took $((SECONDS - started)) s ($(IFS=,; echo "${timings[*]}" | sed 's/,/, /g'))"
if [[ ${#skipped[@]} -gt 0 ]]; then
    echo "${#skipped[@]} skipped (neither passed nor failed):"
    printf '  SKIP %s\n' "${skipped[@]}"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
