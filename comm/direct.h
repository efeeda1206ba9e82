/* The direct exchange's neighbour lists, exposed for tests. */
#ifndef SB_DIRECT_H
#define SB_DIRECT_H

/* For the box at `coords` of a grid of `dims` and reach k[3]: edge e (slot
 * order, the centre left out) receives slot e's data from sources[e] and
 * sends this box's payload to destinations[e], the box that holds this one
 * at that same slot.  Both lists run in slot order, so where a partner
 * appears several times (periodic images, or this box itself) the j-th edge
 * to it at the sender meets the j-th edge from it at the receiver, which is
 * how MPI matches repeated edges: the slots agree.  Today every edge carries
 * the same payload, so only the partners matter; the order starts to matter
 * when what a box sends differs per partner (ghosts filtered per
 * neighbour), and tests/test_schedules.c keeps it right.  Returns the edge
 * count. */
int direct_partners(const int dims[3], const int coords[3], const int k[3], int *sources,
                    int *destinations);

#endif
