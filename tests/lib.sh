# Shared by the shell tests: run a case, check its exit code and output,
# count passes and failures.  Source it; it needs SHIFTBOX (the binary).
: "${SHIFTBOX:=build/shiftbox}"
# The cases' logs and outputs: a folder of this suite's own, removed when
# the suite ends with no failure and kept (fail names the log) otherwise; a
# TEST_TMP given from outside is left alone.  Removed quietly: a message
# after the suite's last line would hide its "N passed, N failed" from
# tests/run-all.sh.
if [[ -z ${TEST_TMP:-} ]]; then
    TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/shiftbox-tests.XXXXXX")
    trap '[[ ${FAILED:-0} -eq 0 ]] && rm -rf -- "$TEST_TMP" 2>/dev/null' EXIT
fi
PASSED=${PASSED:-0}
FAILED=${FAILED:-0}

if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# More ranks than cores: Open MPI then yields when idle (correctness only).
MPIRUN=(mpirun --oversubscribe)

# One value of a run's summary.json (floats to 17 digits): md_value DIR KEY.KEY...
md_value() {
    /usr/bin/python3 -c "
import json
v = json.load(open('$1/summary.json'))
for k in '$2'.split('.'):
    v = v[k]
print(repr(v) if isinstance(v, float) else v)"
}

# skip NAME REASON: a case that cannot run here; counted apart, never passed.
SKIPPED=${SKIPPED:-0}
skip() {
    SKIPPED=$((SKIPPED + 1))
    echo "SKIP - $1 ($2)"
}

# l2_known: the CPU's L2 size is known (sysfs or getconf), so that
# stencil.tile=0 has more than one temporal-blocking tile to time on a field
# of many lines (src/stencil/tune.c); where it is not, those cases skip.
l2_known() {
    grep -qx 2 /sys/devices/system/cpu/cpu0/cache/index*/level 2>/dev/null ||
        [[ $(getconf LEVEL2_CACHE_SIZE 2>/dev/null || echo 0) -gt 0 ]]
}

pass() {
    PASSED=$((PASSED + 1))
    echo "ok - $1"
}

fail() {
    FAILED=$((FAILED + 1))
    echo "not ok - $1"
    if [[ -n ${2:-} && -f $2 ]]; then
        sed 's/^/    | /' "$2" | tail -25
        echo "    | (the whole log: $2)"
    fi
}

# expect NAME RC [PATTERN ...] -- COMMAND ...
# Runs COMMAND; passes when it exits RC and its output (stdout + stderr)
# matches every PATTERN (grep -E).
expect() {
    local name=$1 want=$2
    shift 2
    local patterns=()
    while [[ $1 != -- ]]; do
        patterns+=("$1")
        shift
    done
    shift
    local log="$TEST_TMP/$(echo "$name" | tr -c 'A-Za-z0-9._-' '_').log"
    "$@" >"$log" 2>&1
    local rc=$?
    if [[ $rc -ne $want ]]; then
        fail "$name (exit $rc, expected $want)" "$log"
        return 1
    fi
    for p in "${patterns[@]}"; do
        if ! grep -Eq -- "$p" "$log"; then
            fail "$name (output lacks /$p/)" "$log"
            return 1
        fi
    done
    pass "$name"
}
