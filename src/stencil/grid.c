#include "grid.h"

#include <string.h>

void split_even(int global, int parts, int index, int *count, int *first)
{
    int base = global / parts, extra = global % parts;
    *count = base + (index < extra ? 1 : 0);
    *first = index * base + (index < extra ? index : extra);
}

void grid_init(struct stencil_grid *g, int dim, const int global[3], const int dims[3],
               const int coords[3], int depth)
{
    memset(g, 0, sizeof *g);
    g->dim = dim;
    for (int a = 0; a < 3; a++) {
        bool used = a < dim;
        g->global[a] = used ? global[a] : 1;
        g->dims[a] = used ? dims[a] : 1;
        g->coords[a] = used ? coords[a] : 0;
        split_even(g->global[a], g->dims[a], g->coords[a], &g->n[a], &g->origin[a]);
        g->halo[a] = used ? depth : 0;
        g->ext[a] = g->n[a] + 2 * g->halo[a];
    }
}

int grid_check(int dim, const int global[3], const int dims[3], int depth, struct sb_msg *m)
{
    static const char axis_name[] = "xyz";
    for (int a = 0; a < dim; a++) {
        int smallest = global[a] / dims[a];
        if (smallest < 1)
            return sb_fail(m, SB_EUSAGE,
                           "stencil.size: %d points along %c cannot be shared by %d ranks; "
                           "accepted: at least one point per rank",
                           global[a], axis_name[a], dims[a]);
        if (depth > smallest)
            return sb_fail(m, SB_EUSAGE,
                           "stencil.depth = %d: larger than the smallest subdomain (%d points "
                           "along %c = %d / %d ranks); accepted: depths up to %d",
                           depth, smallest, axis_name[a], global[a], dims[a], smallest);
    }
    return SB_OK;
}

struct sbox grid_sweep_region(const struct stencil_grid *g, int j)
{
    struct sbox b;
    for (int a = 0; a < 3; a++) {
        int grow = a < g->dim ? g->halo[a] - 1 - (g->full_sweeps ? 0 : j) : 0;
        b.lo[a] = g->halo[a] - grow;
        b.hi[a] = g->halo[a] + g->n[a] + grow;
    }
    return b;
}

int grid_overlap_split(const struct stencil_grid *g, struct sbox *inner, struct sbox frame[6])
{
    struct sbox region = grid_sweep_region(g, 0);
    bool empty = false;
    for (int a = 0; a < 3; a++) {
        int shrink = a < g->dim ? 1 : 0;
        inner->lo[a] = g->halo[a] + shrink;
        inner->hi[a] = g->halo[a] + g->n[a] - shrink;
        empty = empty || inner->hi[a] <= inner->lo[a];
    }
    if (empty) { /* too thin for an interior: everything is frame */
        *inner = (struct sbox){{0, 0, 0}, {0, 0, 0}};
        frame[0] = region;
        return 1;
    }
    /* Slabs below and above the interior along the last axis first; each
     * later slab is limited to the interior in the axes already cut. */
    int count = 0;
    struct sbox rest = region;
    for (int a = g->dim - 1; a >= 0; a--) {
        struct sbox below = rest, above = rest;
        below.hi[a] = inner->lo[a];
        above.lo[a] = inner->hi[a];
        frame[count++] = below;
        frame[count++] = above;
        rest.lo[a] = inner->lo[a];
        rest.hi[a] = inner->hi[a];
    }
    return count;
}

/* Along one axis, the own layers sent towards side s (-1, 0, +1) and the
 * halo layers filled from that side. */
static void side_ranges(const struct stencil_grid *g, int a, int s, int *send_lo, int *send_hi,
                        int *recv_lo, int *recv_hi)
{
    int h = g->halo[a], n = g->n[a];
    if (s < 0) {
        *send_lo = h, *send_hi = 2 * h;
        *recv_lo = 0, *recv_hi = h;
    } else if (s > 0) {
        *send_lo = n, *send_hi = n + h;
        *recv_lo = n + h, *recv_hi = n + 2 * h;
    } else {
        *send_lo = *recv_lo = h;
        *send_hi = *recv_hi = h + n;
    }
}

/* Tags name the direction a message travels: 0..26 for offsets in
 * {-1,0,1}^3, so that two neighbours that are the same rank (a ring of two,
 * or of one) still match the right messages. */
static int direction_tag(const int offset[3])
{
    return (offset[0] + 1) + 3 * (offset[1] + 1) + 9 * (offset[2] + 1);
}

static struct halo_message message_towards(const struct stencil_grid *g, const int offset[3],
                                           int full_axes)
{
    struct halo_message msg;
    int back[3];
    for (int a = 0; a < 3; a++) {
        msg.offset[a] = offset[a];
        back[a] = -offset[a];
        side_ranges(g, a, offset[a], &msg.send.lo[a], &msg.send.hi[a], &msg.recv.lo[a],
                    &msg.recv.hi[a]);
        if (a < full_axes) { /* sync: earlier axes travel whole, halos included */
            msg.send.lo[a] = msg.recv.lo[a] = 0;
            msg.send.hi[a] = msg.recv.hi[a] = g->ext[a];
        }
    }
    msg.send_tag = direction_tag(offset);
    msg.recv_tag = direction_tag(back);
    return msg;
}

int grid_sync_messages(const struct stencil_grid *g, int axis, struct halo_message out[2])
{
    for (int i = 0; i < 2; i++) {
        int offset[3] = {0, 0, 0};
        offset[axis] = i == 0 ? -1 : 1;
        out[i] = message_towards(g, offset, axis);
    }
    return 2;
}

int grid_async_messages(const struct stencil_grid *g, struct halo_message out[26])
{
    int count = 0;
    int zrange = g->dim == 3 ? 1 : 0;
    for (int dz = -zrange; dz <= zrange; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (!dx && !dy && !dz) continue;
                int offset[3] = {dx, dy, dz};
                out[count++] = message_towards(g, offset, 0);
            }
    return count;
}
