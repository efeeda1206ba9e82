/* Team Shift (Driscoll et al. 2013, as seed 000 sec. 2.3 and Fig. 3-4
 * describe it), wrapped around the window of k layers instead of the whole
 * ring, once per dimension.
 *
 * P = c T ranks hold T boxes, c ranks (a team) per box; member 0 leads.
 * Per dimension x, y, z, from the block the leader has gathered so far (the
 * own slot, then the row, then the plane):
 *   1. the leader broadcasts the block to its team (MPI_Bcast);
 *   2. skew: member i fetches the block of the team at window offset
 *      o_i = -k + i along the dimension (members i > 2k rest);
 *   3. shift: in each of ceil((2k+1)/c) - 1 steps, member i passes its
 *      newest block to the team c boxes back and takes the one from the team
 *      c boxes ahead, while o_i + s c <= k (teamshift.h); at offset 0 the
 *      block is the team's own, kept from the broadcast (keep_own);
 *   4. gather: the leader collects every member's blocks (MPI_Gatherv) and
 *      lays them out by offset -k..k, which is the next block.
 * With exchange.team_deliver=all the leader then broadcasts the slots to its
 * team.  Skew and shift messages travel on the layer of equal members
 * (MPI_Isend/MPI_Recv); where the ring's length divides the step the
 * partner is the box itself and the block is copied, not sent.  c = 1 is a
 * skew by k and then 2k one-box steps one way (the one at offset 0 a copy):
 * a one-directional Shift over the window, whose blocks arrive in offset
 * order, so the gather is skipped.  On a ring of one every block of the
 * window is the team's own, on a ring of two the neighbour's or the own
 * one: there a member makes one pass at most and copies the rest
 * (walk_window).
 * With varied payloads blocks are records (slots.h): sizes travel with
 * MPI_Probe, and a member's count before the gather. */
#include "teamshift.h"
#include "exchange.h"
#include "replicate.h"
#include "../src/log.h"
#include "../src/model.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A growable byte buffer. */
struct bytes {
    unsigned char *p;
    size_t len, cap;
};

/* Extends b by n bytes and returns where they go.  When the buffer moves,
 * the old block is handed back in *old (for sends still reading it) instead
 * of being freed. */
static unsigned char *bytes_extend(struct bytes *b, size_t n, unsigned char **old)
{
    *old = NULL;
    if (!b->p || b->len + n > b->cap) {
        size_t cap = (b->len + n) * 3 / 2 + 64;
        unsigned char *p = sb_malloc(cap, "a Team Shift buffer");
        if (b->len) memcpy(p, b->p, b->len);
        *old = b->p;
        b->p = p;
        b->cap = cap;
    }
    b->len += n;
    return b->p + b->len - n;
}

static void swap_bytes(struct bytes *a, struct bytes *b)
{
    struct bytes t = *a;
    *a = *b;
    *b = t;
}

/* Empties b with room for n bytes (what it held is dropped). */
static void bytes_empty(struct bytes *b, size_t n)
{
    b->len = 0;
    if (b->p && b->cap >= n) return;
    free(b->p);
    b->cap = n + n / 2 + 64;
    b->p = sb_malloc(b->cap, "a Team Shift buffer");
}

struct teamshift {
    struct bytes acc;      /* the block gathered so far; at the end, all slots */
    struct bytes mine;     /* this member's blocks of the current dimension */
    struct bytes gathered; /* leader: every member's blocks, as they arrive */
    struct bytes next;     /* leader: those blocks laid out by offset */
    int acc_slots;         /* slots in acc */
    /* The leader with uniform payloads, until its first phase is gathered:
     * the caller's payload, which acc stands for without a copy of it
     * (own_block; write_own makes the copy where one is needed). */
    const unsigned char *own;
    int *counts, *displs; /* leader: the gather's layout */
    /* Trimming (trim.h): what each skew or step carries, and each block
     * keeps before the gather, per dimension. */
    struct trim_choice *send_choice, *gather_choice; /* [3][TEAM_STEPS] */
    struct bytes stage;                              /* a trimmed block in flight */
    /* acc's swaps in the last run (swapped_with), undone as the next run
     * starts (teamshift_run) */
    int swaps;
};

#define TEAM_STEPS (2 * EXCHANGE_MAX_K + 2)
_Static_assert(TEAM_STEPS >= 2 * EXCHANGE_MAX_K + 1, "a member holds up to 2k + 1 blocks");

/* The team's own block (acc.len bytes) as the broadcast, the passes and the
 * copies read it: from acc, or where the leader's acc stands for the
 * caller's payload (the first phase, uniform payloads), from that payload.
 * A pass reads it there rather than from the copy keep_own has just made
 * (flow_send_from in shift_flow.h says why), and with nothing copied into
 * acc first, a phase on a ring of two makes the Shift's copies, not one
 * more (at 100 kB, k = 1, c = 1 on 2 ranks, 1.08-1.11x shift-isend's
 * time instead of 1.25-1.29x: docs/results/teamshift-own-copy-ab.txt). */
static const unsigned char *own_block(const struct teamshift *s)
{
    return s->own ? s->own : s->acc.p;
}

/* Where the own block must lie in acc itself: a first phase on a ring of
 * one makes its window of copies of acc (appended to acc with c = 1, to
 * mine with c > 1).  The copy of the caller's payload that own_block
 * spared. */
static void write_own(struct teamshift *s)
{
    if (s->own) memcpy(s->acc.p, s->own, s->acc.len);
    s->own = NULL;
}

/* With trimming: writes at `to` (which may be `block`, trimmed in place)
 * the items of a block of acc_slots records that `need` keeps along axis d;
 * *written bytes. */
static int trim_to(struct exchange *x, struct teamshift *s, int d, struct trim_need need,
                   struct trim_choice *choice, const unsigned char *block, size_t len,
                   unsigned char *to, size_t *written)
{
    struct trim_need needs[3] = {trim_need_all(), trim_need_all(), trim_need_all()};
    needs[d] = need;
    struct sb_msg m;
    if (trim_records(x->opts.trim, choice, x->reselect, block, len, s->acc_slots, needs, to,
                     written, &m) != SB_OK) {
        log_rank_error("teamshift: %s", m.text);
        return SB_ERUNTIME; /* mid-exchange: see exchange.h */
    }
    return SB_OK;
}

/* The same appended to `into`. */
static int trim_block(struct exchange *x, struct teamshift *s, int d, struct trim_need need,
                      struct trim_choice *choice, const unsigned char *block, size_t len,
                      struct bytes *into)
{
    unsigned char *old;
    unsigned char *at = bytes_extend(into, len, &old);
    free(old);
    size_t written;
    CHECK(trim_to(x, s, d, need, choice, block, len, at, &written));
    into->len -= len - written;
    return SB_OK;
}

static size_t in_use(const struct teamshift *s)
{
    return s->acc.len + s->mine.len + s->gathered.len + s->next.len + s->stage.len;
}

static int count_of(size_t n, int *out)
{
    if (n > INT_MAX) {
        log_rank_error("teamshift: a block of %zu bytes exceeds MPI's int count", n);
        return SB_ERUNTIME;
    }
    *out = (int)n;
    return SB_OK;
}

/* The leader's acc to every member (its length first when sizes vary). */
static int broadcast_acc(struct exchange *x, struct teamshift *s, size_t uniform_len)
{
    const struct topology *t = x->topo;
    if (t->team_size == 1) return SB_OK; /* the leader alone: nothing to share */
    uint64_t len = x->opts.uniform ? uniform_len : s->acc.len;
    if (!x->opts.uniform) CHECK_MPI(MPI_Bcast(&len, 1, MPI_UINT64_T, 0, t->team));
    if (t->member != 0) {
        bytes_empty(&s->acc, (size_t)len);
        s->acc.len = (size_t)len;
    }
    int n;
    CHECK(count_of(s->acc.len, &n));
    /* the root's buffer is only read: the leader's may be the caller's payload */
    CHECK_MPI(MPI_Bcast((void *)own_block(s), n, MPI_BYTE, 0, t->team));
    if (t->member == 0) {
        x->last.messages += t->team_size - 1;
        x->last.bytes += (long long)(t->team_size - 1) * (long long)s->acc.len;
    }
    return SB_OK;
}

/* A block each way at once along the team's layer: n bytes from src to
 * rank `to`, n bytes from rank `from` at `at`. */
static int swap_blocks(struct exchange *x, int to, int from, int tag, const unsigned char *src,
                       unsigned char *at, int n)
{
    MPI_Request req[2];
    CHECK_MPI(MPI_Irecv(at, n, MPI_BYTE, from, tag, x->topo->layer, &req[0]));
    CHECK_MPI(MPI_Isend(src, n, MPI_BYTE, to, tag, x->topo->layer, &req[1]));
    x->last.messages++;
    x->last.bytes += n;
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    return SB_OK;
}

/* Sends `len` bytes at src (or the newest block of mine, when src is NULL)
 * to the team `step` boxes back along dimension d and appends the block
 * from the team `step` boxes ahead to mine. */
static int pass_block(struct exchange *x, struct teamshift *s, int d, int step, int tag,
                      const unsigned char *src, size_t len, struct trim_need need,
                      struct trim_choice *choice)
{
    const struct topology *t = x->topo;
    int ahead[3] = {0, 0, 0}, back[3] = {0, 0, 0};
    ahead[d] = step;
    back[d] = -step;
    int to = box_at(t->dims, t->coords, back).rank;
    int from = box_at(t->dims, t->coords, ahead).rank;
    if (!src) src = s->mine.p + s->mine.len - len;
    if (x->opts.trim) { /* only what the holders still to come need */
        s->stage.len = 0;
        CHECK(trim_block(x, s, d, need, choice, src, len, &s->stage));
        src = s->stage.p;
        len = s->stage.len;
    }
    int n;
    CHECK(count_of(len, &n));
    if (to == t->box) { /* the ring divides the step: the block comes from this box itself */
        unsigned char *old;
        unsigned char *at = bytes_extend(&s->mine, len, &old);
        memcpy(at, src, len); /* src may lie in the old buffer */
        free(old);
        return SB_OK;
    }
    if (x->opts.uniform) {
        /* Sizes are known: the receive first (MPI's expected path), then
         * the send, from where the block lies now that mine may have moved. */
        uintptr_t from_at = (uintptr_t)src, mine_at = (uintptr_t)s->mine.p;
        bool in_mine = s->mine.p && from_at >= mine_at && from_at < mine_at + s->mine.len;
        size_t src_at = in_mine ? (size_t)(from_at - mine_at) : 0;
        unsigned char *old;
        unsigned char *at = bytes_extend(&s->mine, len, &old);
        if (in_mine) src = s->mine.p + src_at;
        int rc = swap_blocks(x, to, from, tag, src, at, n);
        free(old);
        return rc;
    }
    MPI_Request req[2];
    CHECK_MPI(MPI_Isend(src, n, MPI_BYTE, to, tag, t->layer, &req[1]));
    x->last.messages++;
    x->last.bytes += (long long)len;
    int incoming;
    MPI_Status status;
    CHECK_MPI(MPI_Probe(from, tag, t->layer, &status));
    CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &incoming));
    unsigned char *old;
    unsigned char *at = bytes_extend(&s->mine, (size_t)incoming, &old);
    CHECK_MPI(MPI_Recv(at, incoming, MPI_BYTE, from, tag, t->layer, &status));
    int rc = MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    free(old);
    CHECK_MPI(rc);
    return SB_OK;
}

/* The one buffer acc swaps with, phase after phase: a phase's blocks, the
 * member's own with c = 1, the leader's next (in offset order) with c > 1. */
static struct bytes *swapped_with(struct teamshift *s, int team_size)
{
    return team_size == 1 ? &s->mine : &s->next;
}

/* acc takes the phase's blocks, which take acc's buffer. */
static void swap_acc(struct teamshift *s, int team_size)
{
    swap_bytes(&s->acc, swapped_with(s, team_size));
    s->swaps++;
    s->own = NULL; /* acc is no longer the own block */
}

/* Bytes of the block of `records` records at p, or 0 when it runs past end. */
static size_t records_length(const unsigned char *p, const unsigned char *end, int records)
{
    const unsigned char *at = p;
    for (int r = 0; r < records; r++) {
        uint64_t n;
        if (end - at < SLOT_RECORD_HEADER) return 0;
        memcpy(&n, at, sizeof n);
        if (n > (uint64_t)(end - at) || record_bytes(n) > (size_t)(end - at)) return 0;
        at += record_bytes(n);
    }
    return (size_t)(at - p);
}

/* The leader collects every member's blocks and lays them out by offset. */
/* With trimming: each of this member's blocks cut down to what its own
 * offset needs, so that the leader's slots are exactly what every module
 * delivers; in place in mine (a block only shrinks, so what is written
 * never passes what is still to be read; a second buffer cost a copy of
 * every block, the own one whole, per phase). */
static int trim_for_gather(struct exchange *x, struct teamshift *s, int d, int k)
{
    const struct topology *t = x->topo;
    int c = t->team_size, i = t->member;
    if (!x->opts.trim || !s->mine.p) return SB_OK; /* no blocks at all */
    const unsigned char *at = s->mine.p, *end = s->mine.p + s->mine.len;
    unsigned char *to = s->mine.p;
    for (int b = 0; b < teamshift_blocks(k, c, i); b++) {
        size_t len = records_length(at, end, s->acc_slots), written;
        if (len == 0 && s->acc_slots > 0) {
            log_rank_error("teamshift: block %d of member %d is malformed", b, i);
            return SB_ERUNTIME; /* mid-exchange: see exchange.h */
        }
        CHECK(trim_to(x, s, d, trim_need_one(-k + i + b * c), &s->gather_choice[d * TEAM_STEPS + b],
                      at, len, to, &written));
        at += len;
        to += written;
    }
    s->mine.len = (size_t)(to - s->mine.p);
    return SB_OK;
}

static int gather_blocks(struct exchange *x, struct teamshift *s, int d, int k, size_t block_len)
{
    const struct topology *t = x->topo;
    int c = t->team_size, mine;
    CHECK(trim_for_gather(x, s, d, k));
    if (c == 1) { /* one member walked the window in offset order: its blocks are the next acc */
        exchange_note_buffers(x, in_use(s));
        swap_acc(s, c);
        s->mine.len = 0;
        return SB_OK;
    }
    CHECK(count_of(s->mine.len, &mine));
    if (x->opts.uniform) {
        for (int j = 0; j < c; j++)
            s->counts[j] = teamshift_blocks(k, c, j) * (int)block_len;
    } else {
        CHECK_MPI(MPI_Gather(&mine, 1, MPI_INT, s->counts, 1, MPI_INT, 0, t->team));
    }
    size_t total = 0;
    for (int j = 0; j < c; j++) {
        s->displs[j] = (int)total;
        total += (size_t)s->counts[j];
    }
    if (t->member == 0) {
        int all;
        CHECK(count_of(total, &all));
        bytes_empty(&s->gathered, total);
    }
    if (t->member == 0) s->gathered.len = total;
    CHECK_MPI(MPI_Gatherv(s->mine.p, mine, MPI_BYTE, s->gathered.p, s->counts, s->displs, MPI_BYTE,
                          0, t->team));
    exchange_note_buffers(x, in_use(s));
    if (t->member != 0) {
        x->last.messages++;
        x->last.bytes += mine;
        return SB_OK;
    }
    /* Offsets -k..k in order; member j's blocks come in its order. */
    bytes_empty(&s->next, total);
    for (int o = -k; o <= k; o++) {
        int j = teamshift_holder(k, c, o);
        const unsigned char *at = s->gathered.p + s->displs[j];
        const unsigned char *end = at + s->counts[j];
        size_t len = block_len;
        if (!x->opts.uniform && (len = records_length(at, end, s->acc_slots)) == 0) {
            log_rank_error("teamshift: member %d's blocks are malformed", j);
            return SB_ERUNTIME; /* mid-exchange: see exchange.h */
        }
        memcpy(s->next.p + s->next.len, at, len);
        s->next.len += len;
        exchange_note_buffers(x, in_use(s));
        s->displs[j] += (int)len;
        s->counts[j] -= (int)len;
    }
    swap_acc(s, c);
    s->next.len = s->gathered.len = 0;
    return SB_OK;
}

/* The block at window offset 0 is the team's own, which every member holds
 * after the broadcast: appended to mine from acc, not passed.  Member i
 * reaches offset 0 at the same skew or step on every team, so both ends of
 * that pass skip it (c = 1: one of the 2k + 1 passes of a phase).  Kept
 * whole, as the skew at offset 0 always kept it: the next pass and the
 * gather trim it to what they need. */
static void keep_own(struct teamshift *s)
{
    unsigned char *old;
    memcpy(bytes_extend(&s->mine, s->acc.len, &old), own_block(s), s->acc.len);
    free(old);
}

/* Appends `copies` copies of what `of` holds to `into` (which may be `of`:
 * its length is taken before it grows, its bytes after). */
static void append_copies(struct bytes *into, size_t copies, const struct bytes *of)
{
    size_t len = of->len;
    unsigned char *old;
    unsigned char *at = bytes_extend(into, copies * len, &old);
    free(old);
    replicate(&at, 1, copies, of->p, len);
}

/* On a ring of two, once the neighbour's block (`theirs_len` bytes at
 * `theirs_at` in mine) has come: the member's blocks `from`..blocks - 1,
 * at offsets first + b c, are copies, the own block at even offsets and
 * the neighbour's at odd ones.  Mine grows once for all of them: with a
 * call per block, Team Shift's exchange of 10 B at k = 8 on 2 ranks took
 * 1.31-1.43x direct's, 1.19-1.30x so (docs/results/teamshift-pair-images-ab.txt). */
static void pair_images(struct teamshift *s, int from, int blocks, int first, int c,
                        size_t theirs_at, size_t theirs_len)
{
    size_t total = 0;
    for (int b = from; b < blocks; b++)
        total += (first + b * c) % 2 == 0 ? s->acc.len : theirs_len;
    unsigned char *old;
    unsigned char *to = bytes_extend(&s->mine, total, &old);
    free(old);
    for (int b = from; b < blocks; b++) {
        bool own = (first + b * c) % 2 == 0;
        size_t len = own ? s->acc.len : theirs_len;
        memcpy(to, own ? own_block(s) : s->mine.p + theirs_at, len);
        to += len;
    }
}

/* What a pass that brings the block of window offset `offset` carries with
 * trimming: what its holders need, this one and those it is passed on to
 * (offset + c, ... <= last), but not past offset 0: there the member keeps
 * its own block and passes that one on instead (keep_own), so a block that
 * reaches 0 goes no further.  (Counting the holders past 0 made every pass
 * before it carry the whole box: in md on 1 rank Team Shift's exchange took
 * several times the Shift's.) */
static struct trim_need chain_need(int offset, int c, int last)
{
    if (offset < 0 && offset % c == 0) last = -c; /* the chain meets 0 */
    return trim_need_of(offset, c, last);
}

/* walk_window on a ring of two with uniform payloads, where every block's
 * size is known: the own block's copies (the even offsets) are written
 * first, then the one pass brings the neighbour's block to the first odd
 * offset, then its copies fill the later ones.  With the own payload
 * copied after the message, Team Shift's exchange at c = 1 on 2 ranks took
 * 1.07-1.18x shift-isend's at 10 and 100 kB (k <= 4), copied before it
 * (as the Shifts copy it) 0.92-1.01x (docs/results/teamshift-own-first-ab.txt).
 * Each block's copies go a part at a time to every place (copy_to_places):
 * at 100 kB and k = 8 Team Shift / direct 1.079 -> 1.018 in the same runs
 * (medians, docs/results/direct-replicate-ab.txt). */
static int walk_pair_uniform(struct exchange *x, struct teamshift *s, int d, int tag, int blocks)
{
    const struct topology *t = x->topo;
    int first = -x->kdim[d] + t->member, c = t->team_size, pass = -1, n;
    size_t len = s->acc.len;
    CHECK(count_of(len, &n));
    unsigned char *old;
    unsigned char *at = bytes_extend(&s->mine, (size_t)blocks * len, &old);
    free(old);
    unsigned char *places[TEAM_STEPS]; /* blocks <= 2k + 1 (teamshift_blocks) */
    int copies = 0;
    for (int b = 0; b < blocks; b++) {
        if ((first + b * c) % 2 == 0)
            places[copies++] = at + (size_t)b * len;
        else if (pass < 0)
            pass = b;
    }
    copy_to_places(places, copies, own_block(s), len);
    if (pass < 0) return SB_OK;
    int ahead[3] = {0, 0, 0};
    ahead[d] = 1; /* the neighbour, at every odd offset */
    int other = box_at(t->dims, t->coords, ahead).rank;
    unsigned char *theirs = at + (size_t)pass * len;
    CHECK(swap_blocks(x, other, other, tag + pass, own_block(s), theirs, n));
    copies = 0;
    for (int b = pass + 1; b < blocks; b++)
        if ((first + b * c) % 2) places[copies++] = at + (size_t)b * len;
    copy_to_places(places, copies, theirs, len);
    return SB_OK;
}

/* Member i's blocks of the window along d: the skew to offset -k + i, then
 * a step of c boxes at a time (keep_own at offset 0).  On a ring of two,
 * untrimmed, the box at an odd offset is the neighbour and at an even one
 * this box: the first pass that reaches an odd offset brings the
 * neighbour's block, every later one is a copy of it (the neighbour's
 * member i walks the same offsets, so both ends of that pass agree), every
 * even offset a copy of the own block (those after it: pair_images); with
 * uniform payloads walk_pair_uniform makes those copies first. */
static int walk_window(struct exchange *x, struct teamshift *s, int d, int tag, int blocks)
{
    const struct topology *t = x->topo;
    int k = x->kdim[d], c = t->team_size, i = t->member;
    int last = -k + i + (blocks - 1) * c; /* the farthest offset this member holds */
    bool pair = t->dims[d] == 2 && !x->opts.trim, theirs = false, kept = false;
    if (pair && x->opts.uniform) return walk_pair_uniform(x, s, d, tag, blocks);
    size_t theirs_at = 0, theirs_len = 0, newest = 0;
    for (int b = 0; b < blocks; b++) {
        size_t before = s->mine.len;
        int offset = -k + i + b * c;
        bool keep = offset == 0 || (pair && offset % 2 == 0);
        if (pair && theirs) { /* the rest are copies */
            pair_images(s, b, blocks, -k + i, c, theirs_at, theirs_len);
            break;
        }
        if (keep) {
            keep_own(s); /* offset 0: on every team at this skew or step */
        } else {         /* the skew from acc, each step on the newest block */
            CHECK(pass_block(x, s, d, b == 0 ? offset : c, tag + b,
                             b == 0 || kept ? own_block(s) : NULL, b == 0 ? s->acc.len : newest,
                             chain_need(offset, c, last),
                             s->send_choice ? &s->send_choice[d * TEAM_STEPS + b] : NULL));
            theirs = pair;
            theirs_at = before;
            theirs_len = s->mine.len - before;
        }
        kept = keep;
        newest = s->mine.len - before;
    }
    return SB_OK;
}

static int teamshift_phase(struct exchange *x, struct teamshift *s, int d, size_t payload)
{
    const struct topology *t = x->topo;
    int k = x->kdim[d], c = t->team_size, i = t->member;
    size_t block_len = (size_t)s->acc_slots * payload; /* uniform payloads */
    CHECK(broadcast_acc(x, s, block_len));
    s->mine.len = 0;
    int blocks = teamshift_blocks(k, c, i);
    int tag = exchange_tag(x, 1 + d * (2 * EXCHANGE_MAX_K + 2));
    if (t->dims[d] == 1 && !x->opts.trim) { /* every block of the window the team's own */
        write_own(s);                       /* the window: copies of acc */
        if (c == 1) {
            /* A ring of one walked alone: the window is the own block 2k + 1
             * times, which is acc with 2k copies of itself after it. */
            append_copies(&s->acc, (size_t)(2 * k), &s->acc);
            exchange_note_buffers(x, in_use(s));
            s->acc_slots *= 2 * k + 1;
            return SB_OK;
        }
        append_copies(&s->mine, (size_t)blocks, &s->acc);
    } else {
        CHECK(walk_window(x, s, d, tag, blocks));
    }
    CHECK(gather_blocks(x, s, d, k, x->opts.uniform ? block_len : 0));
    s->acc_slots *= 2 * k + 1;
    return SB_OK;
}

static int teamshift_setup(struct exchange *x)
{
    struct teamshift *s = sb_calloc(1, sizeof *s, "Team Shift's state");
    s->counts = sb_calloc((size_t)x->topo->team_size, sizeof *s->counts, "gather counts");
    s->displs = sb_calloc((size_t)x->topo->team_size, sizeof *s->displs, "gather displacements");
    if (x->opts.trim) {
        s->send_choice = sb_calloc(3 * TEAM_STEPS, sizeof *s->send_choice, "trim choices");
        s->gather_choice = sb_calloc(3 * TEAM_STEPS, sizeof *s->gather_choice, "trim choices");
    }
    x->state = s;
    x->delivers = x->topo->member == 0 || x->opts.deliver_all;
    return SB_OK;
}

static int teamshift_run(struct exchange *x, const struct payload *own, struct slots *out)
{
    struct teamshift *s = x->state;
    const struct topology *t = x->topo;
    /* Every run swaps the same buffers (a phase's blocks become acc): with
       the last run's swaps undone, each run ends in the same buffer, so
       that the slots, the largest writes, stay where the cache has them.
       With the buffers alternating, 100 kB at k = 1 on 2x1x1 took 1.9x
       shift-isend with the modules interleaved (its z phase 178 us against
       72 us run alone); now about as long. */
    if (s->swaps % 2) {
        swap_acc(s, t->team_size);
        swapped_with(s, t->team_size)->len = 0; /* the last run's slots: not in use */
    }
    s->swaps = 0;
    s->acc_slots = 1;
    s->acc.len = 0;
    s->own = x->opts.uniform && t->member == 0 && own->bytes ? own->data : NULL;
    if (t->member == 0) { /* the leader's payload is the box's */
        size_t len = x->opts.uniform ? own->bytes : record_bytes(own->bytes);
        bytes_empty(&s->acc, len);
        s->acc.len = len; /* uniform: the payload's copy waits (own_block, write_own) */
        if (!x->opts.uniform) record_write(s->acc.p, own->data, own->bytes);
    }
    for (int d = 0; d < 3; d++) /* at least one (exchange_create); each ends with own NULL */
        if (x->kdim[d] > 0) CHECK(teamshift_phase(x, s, d, own->bytes));
    if (x->opts.deliver_all) CHECK(broadcast_acc(x, s, (size_t)out->count * own->bytes));
    exchange_note_buffers(x, in_use(s));
    if (!x->delivers) return SB_OK;
    if (x->opts.uniform) {
        slots_index_uniform(out, s->acc.p, own->bytes);
        return SB_OK;
    }
    struct sb_msg why;
    if (slots_index_records(out, s->acc.p, s->acc.len, &why) != SB_OK) {
        log_rank_error("teamshift: the slots are malformed: %s", why.text);
        return SB_EVERIFY;
    }
    return SB_OK;
}

static void teamshift_destroy(struct exchange *x)
{
    struct teamshift *s = x->state;
    if (!s) return;
    free(s->acc.p);
    free(s->mine.p);
    free(s->gathered.p);
    free(s->next.p);
    for (int i = 0; s->send_choice && i < 3 * TEAM_STEPS; i++) {
        trim_choice_free(&s->send_choice[i]);
        trim_choice_free(&s->gather_choice[i]);
    }
    free(s->send_choice);
    free(s->gather_choice);
    free(s->stage.p);
    free(s->counts);
    free(s->displs);
    free(s);
}

/* A pass to the box `distance` away along a ring of `ring` boxes: a
 * message each way at once (MPI_Irecv, MPI_Isend, MPI_Waitall; MPI_Isend,
 * MPI_Probe, MPI_Recv with varied payloads), sending on the block the pass
 * before received, with partners that pass at the same moment
 * (model_lockstep), or a copy where the ring's length divides the
 * distance.  own: the pass sends the caller's payload (own_block), as
 * direct's one step does (x0, model_start).  `load`: messages on the
 * busiest port or link while every member passes (model_net_load; 2
 * without model.torus). */
static double pass_time(struct model_terms *t, const struct hockney *h, int ring, int distance,
                        double load, double bytes, bool own)
{
    struct model_terms one = {0};
    if (distance % ring == 0) {
        one.time = model_copy_time(h, 1.0, bytes);
    } else {
        model_pass(&one, h, bytes, own);
        model_contention(&one, h, 1.0, load, bytes);
    }
    t->messages += one.messages;
    t->bytes += one.bytes;
    return one.time;
}

/* On a torus (model.torus): the busiest port or link while every member
 * makes its skew (step 0) or a step (step > 0) along dimension d, all teams
 * at once; each passes to the box `back` boxes behind. */
static double pass_load(const struct hockney *h, const struct model_case *c, int d, int step)
{
    if (!model_torus(h)) return 2.0;
    int team = c->team_size;
    int(*back)[3] = sb_calloc((size_t)team, sizeof *back, "pass offsets");
    for (int i = 0; i < team; i++) {
        int blocks = teamshift_blocks(c->k, team, i);
        if (step == 0 && blocks > 0) back[i][d] = c->k - i;
        if (step > 0 && blocks > step && -c->k + i + step * team != 0) /* else kept */
            back[i][d] = -team;
    }
    double load = model_net_load(h, c, team, 1, (const int(*)[3])back);
    free(back);
    return load;
}

#define MODEL_TEAM 64 /* teams larger than this are costed as if of this size */

/* Per dimension, member by member (docs/MODEL.md): the broadcast reaches
 * member i at b_i (the algorithm the MPI library picks, src/model_coll.c);
 * member i then makes its skew and steps, each a pass (a copy at offset 0);
 * the leader gathers the members' blocks as they finish (linear) and copies
 * them into offset order.  The phase ends when the leader holds the next
 * block.  c = 1 walks the window in order: no broadcast, no gather.  On a
 * torus (model.torus) the passes share links and ports (pass_load); the
 * broadcast and the gather stay inside a team, costed as without.  The
 * leader's payload is read where it lies in the first phase (own_block),
 * except on a ring of one, whose window grows from a copy of it
 * (write_own).  Messages counted are the leader's: its broadcast sends, its
 * passes, the parts it gathers. */
static void teamshift_model(const struct hockney *h, const struct model_case *c,
                            struct model_terms *t)
{
    int team = c->team_size < MODEL_TEAM ? c->team_size : MODEL_TEAM, k = c->k;
    double total = c->bytes;
    for (int d = 0; d < 3; d++) {
        if (!(c->phases & (1u << d))) continue;
        double m = model_block_bytes(c, d);
        bool own = model_first_phase(c, d); /* the leader's acc is its payload */
        total = m * (2 * k + 1);
        double arrive[MODEL_TEAM], ready[MODEL_TEAM], parts[MODEL_TEAM];
        double skew_load = pass_load(h, c, d, 0), step_load = pass_load(h, c, d, 1);
        int sends;
        model_bcast_times(h, team, m, arrive, &sends);
        t->messages += sends;
        t->bytes += sends * m;
        for (int i = 0; i < team; i++) {
            struct model_terms counted = {0};
            int skew = -k + i, blocks = teamshift_blocks(k, team, i);
            ready[i] = arrive[i];
            parts[i] = blocks * m;
            if (blocks == 0) continue;
            /* on a ring of two one pass brings the neighbour's block, the
               rest copy it or the own one (walk_window) */
            bool pair = c->dims[d] == 2, theirs = false, was_kept = false;
            int kept = 0;
            if (c->dims[d] == 1) /* every block the own one (c = 1: acc grown in place) */
                kept = (team == 1 ? 2 * k : blocks) + (own && i == 0); /* + write_own */
            else
                for (int step = 0; step < blocks; step++) {
                    int offset = skew + step * team;
                    bool ours = offset == 0 || (pair && offset % 2 == 0); /* the own block */
                    if (ours || (pair && theirs)) {
                        kept++;
                        was_kept = ours;
                        continue;
                    }
                    int distance = step == 0 ? (skew < 0 ? -skew : skew) : team;
                    /* the leader's skew, and a pass after the own block was
                       kept, send the own block: in the first phase its payload */
                    bool payload = own && i == 0 && (step == 0 || was_kept);
                    ready[i] += pass_time(&counted, h, c->dims[d], distance,
                                          step == 0 ? skew_load : step_load, m, payload);
                    was_kept = false;
                    theirs = pair;
                }
            /* the own block kept at offset 0 (keep_own) and, on a ring of two,
               the images (walk_window): copies, costed together */
            ready[i] += model_copy_time(h, kept, m);
            if (i == 0) {
                t->messages += counted.messages;
                t->bytes += counted.bytes;
            }
        }
        if (team == 1) {
            t->time += ready[0];
            continue;
        }
        t->time += model_gatherv_time(h, team, ready, parts);
        t->messages += team - 1;
        t->bytes += (parts[0] > 0 ? total - parts[0] : total);
        model_copy(t, h, 1.0, total); /* every block into offset order */
    }
    if (c->deliver_all) model_bcast(t, h, team, total);
}

const exchange_ops teamshift_ops = {
    .name = "teamshift",
    .summary = "Team Shift (Driscoll et al. 2013, seed 000 sec. 2.3): c ranks per box; "
               "broadcast, skew, shift by c boxes, gather, per dimension",
    .teams = true,
    .setup = teamshift_setup,
    .run = teamshift_run,
    .destroy = teamshift_destroy,
    .model = teamshift_model,
};
