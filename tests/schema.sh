#!/usr/bin/env bash
# The JSON Schemas of docs/schema/ against real outputs: every command that
# writes summary.json (and pingpong's hockney.json) run small, with the
# settings that make its optional keys appear (predictions, exchange.module =
# auto, verification off, a failed run, md's checkpoints, trajectory and
# restart, stencil's CUDA fields through the emulated build), each file
# validated by tools/schema_check.py; then copies broken on purpose -- a
# required key removed, a wrong type, an unknown key, a key forbidden in that
# case -- must fail naming the JSON pointer, and the usage errors exit 2.
# Needs python3-jsonschema (make deps); the CUDA fields need build/emu
# (make CUDA_EMU=1, which make check builds), skipped visibly without it.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CHECK=("$PY" "$ROOT/tools/schema_check.py")
EMU=${SHIFTBOX_EMU:-$ROOT/build/emu/shiftbox}
T=$TEST_TMP
FAST=(-s timer.samples=1000)

if ! $PY -c 'from jsonschema.validators import Draft202012Validator' 2>/dev/null; then
    fail "python3-jsonschema 4.10 or later is installed for $PY (make deps installs it)"
    echo "$PASSED passed, $FAILED failed"
    exit 1
fi

# valid NAME FILE...: every file passes its schema
valid() {
    local name=$1
    shift
    expect "$name" 0 ': ok$' -- "${CHECK[@]}" "$@"
}

# ---- real outputs, one command at a time ------------------------------------------------
PP=(-s pingpong.bytes=0,100,10000 -s pingpong.trials=20 -s pingpong.warmup=2
    -s pingpong.copy_bytes=0,1000 -s pingpong.loop_seconds=0.001 -s pingpong.max_seconds=2)
expect "pingpong on 2 ranks, small" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" pingpong "${PP[@]}" "${FAST[@]}" --out "$T/pp"
valid "... its summary.json passes pingpong.schema.json" "$T/pp/summary.json"
valid "... its hockney.json passes hockney.schema.json" "$T/pp/hockney.json"
expect "pingpong with MPI_Send and the lowest 20 % (no send_s)" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" pingpong "${PP[@]}" "${FAST[@]}" -s pingpong.mode=send \
    -s stats.statistic=lowest20 --out "$T/pp-send"
valid "... both files pass" "$T/pp-send/summary.json" "$T/pp-send/hockney.json"

EX=(-s exchange.k=1,2 -s exchange.bytes=10,1000 -s exchange.repetitions=3 -s exchange.warmup=1)
expect "exchange, every module, with model.hockney (predictions in every point)" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" exchange "${EX[@]}" "${FAST[@]}" -s exchange.module=all \
    -s model.hockney="$T/pp/hockney.json" --out "$T/ex-model"
valid "... passes exchange.schema.json" "$T/ex-model/summary.json"
expect "exchange without a model and with exchange.verify = 0 (no verdict keys)" 0 'verification: off' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" exchange "${EX[@]}" "${FAST[@]}" -s exchange.verify=0 \
    --out "$T/ex-off"
valid "... passes" "$T/ex-off/summary.json"
expect "exchange.module = auto, uniform and varied payloads" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" exchange "${EX[@]}" "${FAST[@]}" -s exchange.module=auto \
    -s exchange.payload=uniform,varied -s model.hockney="$T/pp/hockney.json" --out "$T/ex-auto"
valid "... passes" "$T/ex-auto/summary.json"
expect "exchange with a flipped byte: exit 1, verified false" 1 'verified: false' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" exchange -s exchange.k=1 -s exchange.bytes=100 \
    -s exchange.repetitions=2 -s exchange.warmup=0 -s exchange.inject_fault=1 "${FAST[@]}" \
    --out "$T/ex-fault"
valid "... the failed run's summary passes too" "$T/ex-fault/summary.json"

MD=(-s md.cells=4,4,4 -s md.steps=20 -s md.thermo=5)
expect "md with a checkpoint every 10 steps and a trajectory every 5" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${MD[@]}" "${FAST[@]}" -s checkpoint.every=10 \
    -s trajectory.every=5 --out "$T/md"
valid "... passes md.schema.json (checkpoints written, trajectory)" "$T/md/summary.json"
expect "md restarted from its step-10 checkpoint" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" md "${MD[@]}" "${FAST[@]}" \
    --restart "$T/md/md-00000010.h5md" --out "$T/md-restart"
valid "... passes (restart)" "$T/md-restart/summary.json"
expect "... the optional keys did appear" 0 -- $PY - "$T" <<'PYEOF'
import json, sys
a = json.load(open(f"{sys.argv[1]}/md/summary.json"))["md"]
b = json.load(open(f"{sys.argv[1]}/md-restart/summary.json"))["md"]
assert a["checkpoints"]["written"] == 2 and a["trajectory"]["frames"] == 5, a
assert "restart" not in a and "trajectory" not in b and b["restart"]["step"] == 10, b
PYEOF

expect "model from pingpong's hockney.json" 0 'trade-off' -- \
    "$SHIFTBOX" model -s model.hockney="$T/pp/hockney.json" -s model.dims=2,1,1 \
    -s exchange.k=1,2 -s exchange.bytes=100,10000 -s exchange.team_size=1,2 "${FAST[@]}" \
    --out "$T/model"
expect "model from a hockney.json with the one-way curve only" 0 'holds the one-way times only' -- \
    "$SHIFTBOX" model -s model.hockney="$ROOT/docs/results/hockney-2ranks.json" \
    -s model.dims=2,1,1 "${FAST[@]}" --out "$T/model-oneway"
valid "... both pass model.schema.json" "$T/model/summary.json" "$T/model-oneway/summary.json"

expect "stencil 2D on the CPU, verified, sync/async x overlap 0/1" 0 'verified: true' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=64,48 -s stencil.iterations=8 \
    -s stencil.depth=1,2 -s stencil.exchange=all -s stencil.overlap=0,1 -s stencil.verify=1 \
    "${FAST[@]}" --out "$T/stencil"
expect "stencil 3D unchecked" 0 'verified: unchecked' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=24,20,18 \
    -s stencil.iterations=4 "${FAST[@]}" --out "$T/stencil-3d"
expect "stencil 2D with calibrate" 0 'calibrate: in the cache' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" stencil -s stencil.size=64,48 -s stencil.iterations=4 \
    -s stencil.calibrate=1 "${FAST[@]}" --out "$T/stencil-calibrated"
valid "... all three pass stencil.schema.json" "$T/stencil/summary.json" "$T/stencil-3d/summary.json" \
    "$T/stencil-calibrated/summary.json"
if l2_known; then
    expect "stencil 3D temporal blocking, the tile tuned" 0 'tile: [0-9]* y lines, the fastest of' -- \
        "${MPIRUN[@]}" -np 1 "$SHIFTBOX" stencil -s stencil.dim=3 -s stencil.size=16,8192,8 \
        -s stencil.depth=8 -s stencil.iterations=8 -s stencil.blocking=temporal "${FAST[@]}" \
        --out "$T/stencil-tuned"
    valid "... passes (tile, tile_tuning)" "$T/stencil-tuned/summary.json"
else
    skip "stencil's tile and tile_tuning" "no L2 size in sysfs or getconf: one tile, nothing to tune"
fi
if [[ -x $EMU ]]; then
    expect "stencil on the emulated CUDA backend, verified (the cpu_* keys)" 0 'verified: true' -- \
        env SHIFTBOX_CUDA_EMU=eager "${MPIRUN[@]}" -np 2 "$EMU" stencil -s stencil.backend=cuda \
        -s stencil.size=72,40 -s stencil.depth=1,2 -s stencil.iterations=5 -s stencil.verify=1 \
        "${FAST[@]}" --out "$T/stencil-cuda"
    valid "... passes, cpu_agrees and all" "$T/stencil-cuda/summary.json"
else
    skip "stencil's CUDA fields" "$EMU missing (make CUDA_EMU=1)"
fi

SMP=(-s smpcost.cache_bytes=2000000 -s smpcost.per_set=3 -s smpcost.reps=1
    -s smpcost.bad_bytes=67108864 -s smpcost.pattern_ints=50000)
expect "smpcost on 2 ranks, small sets" 0 'best: good family' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" smpcost "${SMP[@]}" "${FAST[@]}" --out "$T/smpcost"
expect "smpcost with a bad-mode array too small for any superstep: exit 1, not fitted" 1 \
    'too few supersteps' -- \
    "${MPIRUN[@]}" -np 2 "$SHIFTBOX" smpcost "${SMP[@]/smpcost.bad_bytes=67108864/smpcost.bad_bytes=65536}" \
    "${FAST[@]}" --out "$T/smpcost-none"
valid "... both pass smpcost.schema.json (fitted false, score null)" "$T/smpcost/summary.json" \
    "$T/smpcost-none/summary.json"

all_ok() { # every summary.json and hockney.json above: exit 0, one ok line each
    local files=("$T"/*/summary.json "$T"/*/hockney.json) out
    out=$("${CHECK[@]}" "${files[@]}") || return 1
    [[ ${#files[@]} -ge 16 && $(grep -c ': ok$' <<<"$out") -eq ${#files[@]} ]]
}
expect "every file at once: one ok line each, exit 0" 0 -- all_ok

# ---- broken on purpose: each must fail, naming where ------------------------------------
mkdir -p "$T/broken"
# broken NAME SOURCE PYTHON: a copy of SOURCE after PYTHON changed d, as NAME
broken() {
    $PY - "$2" "$T/broken/$1" "$3" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PYEOF
}
# rejected NAME SOURCE PYTHON POINTER MESSAGE: exit 1 and a single line, naming POINTER
rejected() {
    broken "$1" "$2" "$3"
    local name="$1: exit 1 at $4"
    expect "$name" 1 "^$T/broken/$1: $4: $5" -- "${CHECK[@]}" "$T/broken/$1" || return
    local log
    log="$TEST_TMP/$(echo "$name" | tr -c 'A-Za-z0-9._-' '_').log" # expect's log of it
    if [[ $(wc -l <"$log") -eq 1 ]]; then
        pass "... one line: the error, not echoes of it"
    else
        fail "... more than one line for one fault" "$log"
    fi
}
rejected exchange-no-median.json "$T/ex-model/summary.json" 'del d["points"][3]["time_s"]["median"]' \
    /points/3/time_s "'median' is a required property"
rejected exchange-no-exit-code.json "$T/ex-model/summary.json" 'del d["exit_code"]' \
    / "'exit_code' is a required property"
rejected exchange-ranks-text.json "$T/ex-model/summary.json" 'd["environment"]["ranks"] = "2"' \
    /environment/ranks "'2' is not of type 'integer'"
rejected exchange-mean-text.json "$T/ex-model/summary.json" 'd["points"][0]["filtered_time_s"]["mean"] = "1e-6"' \
    /points/0/filtered_time_s/mean "'1e-6' is not of type 'number'"
rejected exchange-node-extra.json "$T/ex-model/summary.json" 'd["environment"]["placement"]["node"][0]["cores"] = 4' \
    /environment/placement/node/0 "Additional properties are not allowed \('cores' was unexpected\)"
rejected exchange-stats-extra.json "$T/ex-model/summary.json" 'd["points"][1]["time_s"]["p99"] = 1.0' \
    /points/1/time_s "Unevaluated properties are not allowed \('p99' was unexpected\)"
rejected exchange-module.json "$T/ex-model/summary.json" 'd["points"][2]["module"] = "auto"' \
    /points/2/module "'auto' is not valid under any of the given schemas"
rejected exchange-half-prediction.json "$T/ex-model/summary.json" 'del d["points"][0]["prediction_error"]' \
    /points/0 "'prediction_error' is a dependency of 'predicted_s'"
rejected exchange-verdict-when-off.json "$T/ex-off/summary.json" 'd["verified"] = True' \
    /verified "'verified' must not be present in this case"
rejected exchange-placement-missing.json "$T/ex-off/summary.json" 'del d["environment"]["placement"]' \
    /environment "'placement' is a required property"
rejected md-no-checkpoint-dir.json "$T/md/summary.json" 'del d["md"]["checkpoints"]["dir"]' \
    /md/checkpoints "'dir' is a required property"
rejected md-segment-extra.json "$T/md/summary.json" 'd["md"]["time_s"]["io"] = d["md"]["time_s"]["other"]' \
    /md/time_s "Additional properties are not allowed \('io' was unexpected\)"
rejected md-restart-step.json "$T/md-restart/summary.json" 'd["md"]["restart"]["step"] = "10"' \
    /md/restart/step "'10' is not of type 'integer'"
rejected pingpong-series-extra.json "$T/pp/summary.json" 'd["sizes"][1]["duplex_s"]["filtered"]["x"] = 0' \
    /sizes/1/duplex_s/filtered "Unevaluated properties are not allowed \('x' was unexpected\)"
rejected pingpong-send-with-send-mode.json "$T/pp-send/summary.json" \
    'd["sizes"][0]["send_s"] = d["sizes"][0]["duplex_s"]' \
    /sizes/0/send_s "'send_s' must not be present in this case"
rejected hockney-no-alpha.json "$T/pp/hockney.json" 'del d["alpha_s"]' \
    / "'alpha_s' is a required property"
rejected hockney-segments.json "$T/pp/hockney.json" 'd["gap"]["segments"] *= 3' \
    /gap/segments "an array of 3 items is too long"
rejected model-tradeoff-k.json "$T/model/summary.json" 'd["tradeoffs"][0]["smallest_k"] = "none"' \
    /tradeoffs/0/smallest_k "'none' is not of type 'integer', 'null'"
rejected stencil-verdict-bool.json "$T/stencil/summary.json" 'd["results"]["verified"] = True' \
    /results/verified "True is not of type 'string'"
rejected stencil-unchecked-diff.json "$T/stencil-3d/summary.json" 'd["results"]["points"][0]["differing_points"] = 0' \
    /results/points/0/differing_points "'differing_points' must not be present in this case"
if l2_known; then
    rejected stencil-tuning-batch.json "$T/stencil-tuned/summary.json" \
        'del d["results"]["points"][0]["tile_tuning"]["batch"]' \
        /results/points/0/tile_tuning "'batch' is a required property"
fi
rejected smpcost-terms.json "$T/smpcost/summary.json" 'd["smpcost"]["good"]["functions"][0]["coefficients_s"]["g_M"] = 0.0' \
    /smpcost/good/functions/0/coefficients_s "'g_M' is not one of \['L', 'g_h'\]"
rejected smpcost-pattern.json "$T/smpcost/summary.json" 'd["smpcost"]["patterns"][0]["pattern"] = "copy"' \
    /smpcost/patterns/0/pattern "'copy' is not one of"
broken md-as-exchange.json "$T/md/summary.json" 'd["command"] = "exchange"'
expect "md's summary claiming to be exchange's: checked as exchange's, exit 1" 1 \
    "md-as-exchange.json: /: 'points' is a required property" \
    "md-as-exchange.json: /: Additional properties are not allowed \('md' was unexpected\)" -- \
    "${CHECK[@]}" "$T/broken/md-as-exchange.json"

expect "a valid and an invalid file together: exit 1, both reported" 1 \
    "$T/pp/summary.json: ok" "$T/broken/md-no-checkpoint-dir.json: /md/checkpoints: " -- \
    "${CHECK[@]}" "$T/pp/summary.json" "$T/broken/md-no-checkpoint-dir.json"
printf '{"command": "exchange", "points": [' >"$T/broken/truncated.json"
expect "a truncated file is invalid, at /" 1 "truncated.json: /: not JSON" -- \
    "${CHECK[@]}" "$T/broken/truncated.json"

# ---- usage errors: exit 2 ------------------------------------------------------------------
expect "a file that does not exist: exit 2" 2 "$T/none.json: cannot read" -- \
    "${CHECK[@]}" "$T/pp/summary.json" "$T/none.json"
broken no-command.json "$T/md/summary.json" 'del d["command"]'
expect "a file without a command (and not a hockney.json): exit 2" 2 \
    'no-command.json: no schema: no "command" field' -- "${CHECK[@]}" "$T/broken/no-command.json"
broken bogus-command.json "$T/md/summary.json" 'd["command"] = "bogus"'
expect "a command without a schema: exit 2, even beside an invalid file" 2 \
    "no schema for command 'bogus'" "md-no-checkpoint-dir.json: /md/checkpoints" -- \
    "${CHECK[@]}" "$T/broken/bogus-command.json" "$T/broken/md-no-checkpoint-dir.json"
expect "no file given: exit 2" 2 'usage: schema_check.py' -- "${CHECK[@]}"
expect "an unknown option: exit 2" 2 'unrecognized arguments' -- \
    "${CHECK[@]}" --strict "$T/pp/summary.json"
expect "a schema directory that is not there: exit 2" 2 'not a directory' -- \
    "${CHECK[@]}" --schema-dir "$T/nowhere" "$T/pp/summary.json"
expect "--help: usage, output and exit status" 0 'usage: schema_check.py' 'FILE: ok' \
    'exit status: 0 all valid, 1 some invalid' -- "${CHECK[@]}" --help
expect "the schemas themselves are valid draft 2020-12" 0 -- $PY - "$ROOT/docs/schema" <<'PYEOF'
import json, pathlib, sys
from jsonschema.validators import Draft202012Validator
files = sorted(pathlib.Path(sys.argv[1]).glob("*.schema.json"))
assert len(files) == 8, files
for f in files:
    s = json.load(open(f))
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema", f
    Draft202012Validator.check_schema(s)
PYEOF

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
