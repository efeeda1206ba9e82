#!/usr/bin/env bash
# The Shift over a matrix of rank counts and grid shapes (1-wide dimensions,
# odd rings, rings of two), k = 1..4 (so k >= dims on small rings), payloads
# of 0, 1, 4095, 4096 and 100000 bytes, uniform and varied: every byte of
# every slot is verified on every rank.
source "$(dirname "$0")/lib.sh"

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

for entry in "${SHAPES[@]}"; do
    np=${entry%%:*} dims=${entry#*:}
    for payload in uniform varied; do
        expect "shift np=$np dims=$dims $payload k=1-4 bytes=0,1,4095,4096,100000" 0 \
            'verified: true' -- \
            "${MPIRUN[@]}" -np "$np" "$SHIFTBOX" exchange -s decomp.dims="$dims" \
            -s exchange.k=1-4 -s exchange.bytes=0,1,4095,4096,100000 \
            -s exchange.payload=$payload -s exchange.repetitions=2 -s exchange.warmup=1
    done
done

# Single phases and pairs: seed 000's 1D row experiment and its relatives.
for phases in x y z xy xz yz; do
    expect "shift np=6 dims=3,2,1 phases=$phases varied" 0 'verified: true' -- \
        "${MPIRUN[@]}" -np 6 "$SHIFTBOX" exchange -s decomp.dims=3,2,1 -s exchange.k=1-3 \
        -s exchange.bytes=0,1000 -s exchange.payload=varied -s exchange.phases=$phases \
        -s exchange.repetitions=2 -s exchange.warmup=0
done

# The grid MPI chooses by itself.
expect "shift np=8 dims=auto" 0 'grid 2x2x2' 'verified: true' -- \
    "${MPIRUN[@]}" -np 8 "$SHIFTBOX" exchange -s exchange.k=1-2 -s exchange.bytes=100 \
    -s exchange.repetitions=2

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
