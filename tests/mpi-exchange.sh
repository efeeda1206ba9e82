#!/usr/bin/env bash
# Every exchange module over a matrix of rank counts and grid shapes (1-wide
# dimensions, odd rings, rings of two), k = 1..4 (so k >= dims on small
# rings) with payloads of 0, 1, 4095 and 4096 bytes and k = 1..2 with
# 100000 bytes (k = 4 with 64 KiB on every grid of 8 ranks is in
# configs/regression.ini, which make check also runs), uniform and varied;
# Team Shift with every team size the rank count allows.  Every byte of
# every slot is verified on every rank that receives slots, and the slots
# of all modules must hash alike (shiftbox exits 1 otherwise).
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

# ranks:shape ...
SHAPES=(
    1:1,1,1
    2:2,1,1 2:1,2,1 2:1,1,2
    3:3,1,1 3:1,3,1 3:1,1,3
    4:4,1,1 4:2,2,1 4:1,2,2 4:2,1,2
    5:5,1,1 5:1,5,1
    6:6,1,1 6:3,2,1 6:2,1,3 6:1,2,3
    8:2,2,2 8:8,1,1 8:4,2,1
)
COMMON=(-s exchange.module=all -s exchange.payload=uniform,varied -s exchange.repetitions=2
    -s exchange.warmup=1)
SMALL=(-s exchange.k=1-4 -s exchange.bytes=0,1,4095,4096)
LARGE=(-s exchange.k=1-2 -s exchange.bytes=100000)

for entry in "${SHAPES[@]}"; do
    np=${entry%%:*} dims=${entry#*:}
    expect "all modules np=$np dims=$dims k=1-4 bytes=0,1,4095,4096" 0 'verified: true' -- \
        "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" exchange -s decomp.dims="$dims" "${COMMON[@]}" \
        "${SMALL[@]}"
    expect "all modules np=$np dims=$dims k=1-2 bytes=100000" 0 'verified: true' -- \
        "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" exchange -s decomp.dims="$dims" "${COMMON[@]}" \
        "${LARGE[@]}"
done

# Team Shift (and the others on its teams' leaders) with c > 1: every team
# size each rank count allows, on MPI's grid of the boxes.
for entry in 2:2 3:3 4:2,4 6:2,3 8:2,4 9:3; do
    np=${entry%%:*} teams=${entry#*:}
    for deliver in leader all; do
        expect "teams np=$np c=$teams deliver=$deliver" 0 'verified: true' -- \
            "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" exchange -s exchange.team_size="$teams" \
            -s exchange.team_deliver=$deliver "${COMMON[@]}" "${SMALL[@]}"
    done
done

# The hand-written baselines (comm/baseline.c) on the same shapes' extremes:
# one box, rings of two and three, a plane, a cube; their slots must hash
# like the reference's (direct) and the Shift's.
for entry in 1:1,1,1 2:2,1,1 3:3,1,1 4:2,2,1 6:3,2,1 8:2,2,2; do
    np=${entry%%:*} dims=${entry#*:}
    expect "baselines beside direct and shift np=$np dims=$dims k=1-3 bytes=0,1,4096" 0 \
        'verified: true' -- "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" exchange -s decomp.dims="$dims" \
        -s exchange.module=direct,shift -s exchange.baseline=all -s exchange.k=1-3 \
        -s exchange.bytes=0,1,4096 -s exchange.repetitions=2 -s exchange.warmup=1
done

# Single phases and pairs: seed 000's 1D row experiment and its relatives.
for phases in x y z xy xz yz; do
    expect "all modules np=6 dims=3,2,1 phases=$phases" 0 'verified: true' -- \
        "${MPIRUN[@]}" -np 6 "$SHIFTBOX" exchange -s decomp.dims=3,2,1 -s exchange.k=1-3 \
        -s exchange.module=all -s exchange.bytes=0,1000 -s exchange.payload=uniform,varied \
        -s exchange.phases=$phases -s exchange.repetitions=2 -s exchange.warmup=0
done

# Team Shift keeps the block at window offset 0, the team's own, instead of
# passing it: on a row of 7 with c = 1, a phase is the skew and 2k - 1 steps
# that send (2k messages, as many as the Shift's hops), for uniform and
# varied payloads alike.
"${MPIRUN[@]}" -np 7 "$SHIFTBOX" exchange -s decomp.dims=7,1,1 -s exchange.phases=x \
    -s exchange.module=teamshift -s exchange.k=1-3 -s exchange.bytes=1000 \
    -s exchange.payload=uniform,varied -s exchange.repetitions=2 -s exchange.warmup=0 \
    --out "$TEST_TMP/own-block" >/dev/null 2>&1
expect "teamshift c=1 on a row of 7: the own block kept, 2k messages a phase" 0 -- $PY -c "
import json; s = json.load(open('$TEST_TMP/own-block/summary.json'))
assert s['verified'] is True and len(s['points']) == 6, s['points']
for p in s['points']:
    assert p['messages_per_exchange'] == 2 * p['k'], (p['k'], p['messages_per_exchange'])
print('messages per exchange', sorted({(p['k'], p['messages_per_exchange']) for p in s['points']}))"

# A ring of two: the Shifts send hop 1 to the right only and Team Shift
# (c = 1) one pass, to the first odd window offset (one message per
# exchange on a grid of 2x1x1, at every k); the rest are copies of the
# periodic images, every byte still verified; with md's trimmed blocks
# every hop stays a message.
"${MPIRUN[@]}" -np 2 "$SHIFTBOX" exchange -s decomp.dims=2,1,1 \
    -s exchange.module=shift,shift-isend,teamshift \
    -s exchange.k=1-4 -s exchange.bytes=10,5000 -s exchange.payload=uniform,varied \
    -s exchange.repetitions=2 -s exchange.warmup=0 --out "$TEST_TMP/ring-of-two" >/dev/null 2>&1
expect "shift, shift-isend, teamshift on a ring of two: one message an exchange, images copied, verified" 0 -- $PY -c "
import json; s = json.load(open('$TEST_TMP/ring-of-two/summary.json'))
assert s['verified'] is True and len(s['points']) == 48, s['points']
for p in s['points']:
    assert p['messages_per_exchange'] == 1, (p['module'], p['k'], p['messages_per_exchange'])
print('messages per exchange', sorted({(p['module'], p['k'], p['messages_per_exchange']) for p in s['points']}))"

# Images copied a 16 KiB part at a time (comm/replicate.c's copy_to_places):
# payloads at the part's size, one byte past it and with a short last part,
# on a ring of two (direct's and Team Shift's images) and a ring of one.
for np in 2 3; do
    expect "direct, teamshift np=$np: payloads around the copies' 16 KiB part" 0 'verified: true' -- \
        "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" exchange -s exchange.module=direct,teamshift,shift \
        -s exchange.k=1-3 -s exchange.bytes=16384,16385,40000 -s exchange.repetitions=2 \
        -s exchange.warmup=0
done

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
