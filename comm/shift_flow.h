/* The data flow the Shift variants share (seed 000 sec. 2.2, Fig. 2).
 *
 * Three phases, x then y then z.  In each, k hops move data to the right
 * neighbour and k hops to the left, each hop forwarding what arrived in the
 * hop before.  What a phase starts from is the block gathered so far: the
 * own slot in x, the row in y, the plane in z.  Blocks from the left are
 * prepended to the buffer and blocks from the right appended, so the
 * buffer finishes in [dz][dy][dx] slot order with nothing repacked: the row
 * and the plane a phase sends are already contiguous.  With uniform payloads
 * every block of a hop has the sender's size; otherwise slots travel as
 * records (slots.h) and receivers learn sizes with MPI_Probe.
 *
 * The variants differ in the message schedule only: comm/shift.c (blocking
 * MPI_Ssend in ring-colour order, one direction after the other) and
 * comm/shift_isend.c (both directions of a hop in flight at once). */
#ifndef SB_SHIFT_FLOW_H
#define SB_SHIFT_FLOW_H

#include "exchange.h"
#include "span.h"

struct shift_flow {
    struct span buf;
    int right[3], left[3];          /* neighbour boxes (leader ranks) per dimension */
    int ring[3];                    /* boxes around the ring of each dimension */
    int coord[3];                   /* this box's place in each ring */
    size_t prepended, appended;     /* bytes added at each end in this exchange */
    size_t hint_before, hint_after; /* most ever added at each end: room to keep */
    /* Trimming (trim.h): what each hop keeps, and where trimmed blocks wait. */
    struct trim_choice *choices; /* [3][2][EXCHANGE_MAX_K + 1] */
    int block_records;           /* records in the block the current phase forwards */
    unsigned char *stage[2];     /* one per direction */
    size_t stage_cap[2];
    /* prepended and appended as this phase began: the gathered block lies
     * between what the phase added at each end */
    size_t phase_prepended, phase_appended;
    const unsigned char *own; /* uniform payloads: the caller's own payload (flow_send_from) */
};

/* dir: +1 moves data to the right neighbour (it arrives from the left, in
 * front), -1 to the left (it arrives from the right, behind). */
static inline int shift_tag(int d, int dir, int hop)
{
    return 1 + (d * 2 + (dir > 0)) * (EXCHANGE_MAX_K + 1) + hop;
}

void flow_setup(struct shift_flow *f, const struct exchange *x);

/* Called as phase d starts: the block it forwards is what was gathered. */
void flow_phase_begin(struct shift_flow *f, const struct exchange *x, int d);

/* With trimming: the part of `block` (len bytes) that the receivers still
 * to come in hop `hop` of direction dir need, in stage[stage]; *out and
 * *out_len describe it.  Without trimming the block itself. */
int flow_trim(struct shift_flow *f, struct exchange *x, int d, int dir, int hop, int stage,
              const unsigned char *block, size_t len, const unsigned char **out, size_t *out_len);

/* Empties the buffer and puts the own payload in it, with room for the slots
 * to come (exact for uniform payloads, the most seen so far otherwise). */
void flow_begin(struct shift_flow *f, const struct exchange *x, const struct payload *own,
                const struct slots *out);

/* Makes room for a block of n bytes arriving in direction dir and returns
 * where it goes.  keep_old: see span_make_room. */
unsigned char *flow_receive_at(struct shift_flow *f, int dir, size_t n, unsigned char **keep_old);

/* Makes room for blocks of `before` and `after` bytes arriving from the
 * left and from the right in the same hop; *left_at and *right_at receive
 * where they go.  keep_old: see span_make_room. */
void flow_receive_both(struct shift_flow *f, size_t before, size_t after, unsigned char **left_at,
                       unsigned char **right_at, unsigned char **keep_old);

/* The block hop `hop` forwards in direction dir: the last that arrived
 * from that side (or the gathered block in hop 1), `behind` bytes in from
 * its end.  Hop 1 of the first phase forwards the own payload, and a
 * uniform one goes from the caller's payload rather than from its copy
 * that flow_begin has just written: on the 2-core EPYC VM a peer's
 * single-copy read of bytes just written took up to 1.5x as long, in some
 * runs and not others, as the read of bytes written before the exchange
 * (docs/results/shift-own-block-ab.txt). */
static inline const unsigned char *flow_send_from(const struct shift_flow *f, int dir, int hop,
                                                  size_t behind, size_t len)
{
    if (hop == 1 && f->own && f->phase_prepended == 0 && f->phase_appended == 0) return f->own;
    return dir > 0 ? f->buf.base + f->buf.front + behind : f->buf.base + f->buf.back - behind - len;
}

/* A ring of one with trimming (flow_replicate copies it without): the box
 * is its own neighbour on both sides, so the block of `len` bytes arrives
 * from itself, as the next periodic image, trimmed like a message; *copied
 * receives the bytes that arrived. */
int flow_copy_block(struct shift_flow *f, struct exchange *x, int d, int dir, int hop, size_t len,
                    size_t *copied);

/* A ring of one, untrimmed: the box is its own neighbour on both sides, so
 * every block the phase's 2k hops would bring is its gathered block (the
 * whole buffer as the phase begins).  Puts k copies of it ahead and k
 * behind, as the hops would, in one go (flow_copy_block does it hop by hop
 * where trimming makes each hop's block its own). */
void flow_replicate(struct shift_flow *f, int k);

/* A ring of two, untrimmed: the neighbour on the left is the one on the
 * right, so every block a hop brings is one of two -- that neighbour's
 * gathered block (in hop 1 from either side, and every odd hop) or this
 * box's own (every even hop) -- and only hop 1 from the left needs a
 * message; the rest are periodic images this box already holds. */
static inline bool flow_pair(const struct shift_flow *f, const struct exchange *x, int d)
{
    return f->ring[d] == 2 && !x->opts.trim;
}

/* A ring of two (flow_pair), once hop 1's message from the left has
 * arrived: puts the other 2k - 1 blocks of the phase where their hops
 * would, the neighbour's block at odd offsets and the gathered one at even
 * ones.  The two lie side by side at offsets -1 and 0, so that pair is
 * replicated to both sides in one go (replicate.h).  With a copy per hop,
 * shift-isend's exchange of 10 B at k = 8 on 2 ranks took 1.29-1.50x
 * direct's, and 1.07-1.09x in one go (docs/results/shift-pair-images-ab.txt). */
void flow_pair_images(struct shift_flow *f, int k);

/* Points `out` at the gathered slots.  SB_EVERIFY when they are malformed. */
int flow_finish(struct shift_flow *f, struct exchange *x, size_t own_bytes, struct slots *out);

void flow_free(struct shift_flow *f);

#endif
