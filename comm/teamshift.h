/* Team Shift's schedule, exposed for tests (comm/teamshift.c).
 *
 * Along one dimension, member i of a team of c starts at window offset
 * o_i = -k + i (the skew) and then steps c boxes at a time, so it holds the
 * blocks of offsets o_i, o_i + c, o_i + 2c, ... up to k.  Together the
 * members hold every offset in [-k, k] exactly once, after
 * ceil((2k + 1) / c) - 1 steps. */
#ifndef SB_TEAMSHIFT_H
#define SB_TEAMSHIFT_H

/* How many blocks member i holds (0 when i > 2k: nothing to fetch). */
static inline int teamshift_blocks(int k, int c, int i)
{
    return i > 2 * k ? 0 : (2 * k - i) / c + 1;
}

/* Shift steps per dimension: ceil((2k + 1) / c) - 1. */
static inline int teamshift_steps(int k, int c)
{
    return (2 * k + 1 + c - 1) / c - 1;
}

/* The member holding window offset o, and the place of o among its blocks. */
static inline int teamshift_holder(int k, int c, int o)
{
    return (o + k) % c;
}

static inline int teamshift_block_index(int k, int c, int o)
{
    return (o + k) / c;
}

#endif
