/* Colouring of a ring for blocking neighbour exchanges (seed 000 sec. 4.2, Fig. 5).
 *
 * With MPI_Ssend a rank cannot send and receive at once, so ranks take
 * turns: a rank sends in the turn of its colour, receives in the turn of the
 * neighbour it receives from, and does first whichever comes first.
 * Neighbours never share a colour, so each pair meets in a known turn and a
 * hop takes as many turns as there are colours.  Even rings alternate 0,1.
 * An odd ring closes with two ranks of equal parity (the case seed 000 could
 * skip with 64 nodes); its last rank gets colour 2, which names the turn in
 * which that pair meets: a hop of an odd ring takes three turns.
 *
 * tests/test_ring.c simulates the schedule on rings of 2..64 ranks.  The
 * simulation also shows what the colours do not do: a one-way hop deadlocks
 * only when every rank sends first (or on a ring of one, which the Shift
 * therefore copies locally); plain parity on an odd ring would also finish
 * in three turns, only with the clashing pair's order left implicit. */
#ifndef SB_RING_H
#define SB_RING_H

/* Colour of position `coord` in a ring of n ranks (n >= 1). */
static inline int ring_colour(int coord, int n)
{
    if (n % 2 == 1 && n > 1 && coord == n - 1) return 2;
    return coord % 2;
}

/* Number of colours a ring of n ranks needs. */
static inline int ring_colours(int n)
{
    if (n == 1) return 1;
    return n % 2 ? 3 : 2;
}

/* Whether the rank at `coord` sends before it receives in a hop that moves
 * data by `dir` (+1: to the right) around a ring of n: it receives from
 * coord - dir, and the lower colour goes first. */
static inline int ring_sends_first(int coord, int n, int dir)
{
    int from = ((coord - dir) % n + n) % n;
    return ring_colour(coord, n) < ring_colour(from, n);
}

#endif
