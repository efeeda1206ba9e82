/* A simulator of one hop of blocking rendezvous sends around a ring, for
 * the tests: how many turns the Shift's schedule takes (tests/test_ring.c),
 * and so how many messages lie on its critical path, counted without the
 * cost model's formulas (tests/test_model.c). */
#ifndef SB_TEST_RING_SIM_H
#define SB_TEST_RING_SIM_H

#include "../comm/ring.h"

#include <stdbool.h>

typedef bool (*first_fn)(int coord, int n, int dir);

static bool shift_rule(int coord, int n, int dir)
{
    return ring_sends_first(coord, n, dir);
}

/* Simulates one hop of blocking Ssend/Recv: each rank sends to coord + dir
 * and receives from coord - dir, in the order `first` gives.  A send
 * completes only together with the matching receive; all pairs ready at
 * the start of a turn complete in that turn.  Returns the number of turns,
 * or -1 on deadlock. */
static int hop_turns(int n, int dir, first_fn first)
{
    enum { SEND, RECV };
    int ops[64][2], next[64];
    for (int c = 0; c < n; c++) {
        bool send_first = first(c, n, dir);
        ops[c][0] = send_first ? SEND : RECV;
        ops[c][1] = send_first ? RECV : SEND;
        next[c] = 0;
    }
    int turns = 0;
    for (int done = 0; done < 2 * n; turns++) {
        bool ready[64] = {false};
        for (int c = 0; c < n; c++) {
            int to = ((c + dir) % n + n) % n;
            ready[c] = next[c] < 2 && ops[c][next[c]] == SEND && next[to] < 2 &&
                       ops[to][next[to]] == RECV && (to != c || n > 1);
            if (n == 1) ready[c] = false; /* an Ssend to oneself never meets its receive */
        }
        int progress = 0;
        for (int c = 0; c < n; c++) {
            if (!ready[c]) continue;
            next[c]++;
            next[((c + dir) % n + n) % n]++;
            progress += 2;
        }
        if (progress == 0) return -1;
        done += progress;
    }
    return turns;
}

#endif
