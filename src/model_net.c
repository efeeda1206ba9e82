/* The network beyond the ports (docs/MODEL.md, "model.torus"): how many
 * messages cross the busiest host port or link of a 3D torus when every
 * rank sends a step's messages at once.
 *
 * The torus is SimGrid's (TorusZone, configs/platforms/torus-*.xml): host h
 * at coordinates (h mod A, h / A mod B, h / AB) of an A x B x C torus, rank
 * r on host r; a message travels dimension by dimension, first one first,
 * each the shorter way round (a tie, half the ring, as SimGrid breaks it);
 * each host has one port (SimGrid's limiter link) that carries what it
 * sends, what it receives, and what it forwards: SimGrid charges a host's
 * port at every hop that leaves it.  Torus links carry each direction
 * apart, at the port's bandwidth. */
#include "model.h"
#include "decomp.h"
#include "../comm/ring.h"

#include <stdlib.h>

/* Up (towards larger coordinates) or down along a ring of n hosts from
 * coordinate s to t (s != t): the shorter way, ties as SimGrid breaks them. */
static bool route_up(int s, int t, int n)
{
    return (t > s && t <= s + n / 2) || (s > n / 2 && (s + n / 2) % n >= t);
}

/* Charges the ports and links the message from host `src` to host `dst`
 * crosses. */
static void route(const int torus[3], int src, int dst, int *port, int *up, int *down)
{
    int s[3], t[3], stride[3] = {1, torus[0], torus[0] * torus[1]};
    for (int j = 0; j < 3; j++) {
        s[j] = src / stride[j] % torus[j];
        t[j] = dst / stride[j] % torus[j];
    }
    int here = src;
    for (int j = 0; j < 3; j++) {
        if (s[j] == t[j]) continue;
        bool go_up = route_up(s[j], t[j], torus[j]);
        for (int at = s[j]; at != t[j];) {
            int next = go_up ? (at + 1) % torus[j] : (at + torus[j] - 1) % torus[j];
            int there = here + (next - at) * stride[j];
            port[here]++;
            if (go_up)
                up[3 * here + j]++;
            else
                down[3 * there + j]++;
            here = there;
            at = next;
        }
    }
    port[dst]++;
}

bool model_torus(const struct hockney *h)
{
    return h->torus[0] > 0;
}

/* The messages on each port and link of the torus, as route() counts them. */
struct net_load {
    int *port, *up, *down;
    int hosts;
};

static void net_load_init(struct net_load *l, const struct hockney *h)
{
    l->hosts = h->torus[0] * h->torus[1] * h->torus[2];
    l->port = sb_calloc((size_t)l->hosts, sizeof *l->port, "the torus' port loads");
    l->up = sb_calloc(3 * (size_t)l->hosts, sizeof *l->up, "the torus' link loads");
    l->down = sb_calloc(3 * (size_t)l->hosts, sizeof *l->down, "the torus' link loads");
}

static void net_load_send(struct net_load *l, const struct hockney *h, int src, int dst)
{
    if (src != dst) route(h->torus, src, dst, l->port, l->up, l->down);
}

/* The busiest port or link; frees the counts. */
static double net_load_most(struct net_load *l)
{
    int most = 0;
    for (int x = 0; x < l->hosts; x++)
        if (l->port[x] > most) most = l->port[x];
    for (int x = 0; x < 3 * l->hosts; x++) {
        if (l->up[x] > most) most = l->up[x];
        if (l->down[x] > most) most = l->down[x];
    }
    free(l->port);
    free(l->up);
    free(l->down);
    return most;
}

double model_net_load(const struct hockney *h, const struct model_case *c, int members, int n,
                      const int (*offsets)[3])
{
    struct net_load l;
    net_load_init(&l, h);
    int boxes = c->dims[0] * c->dims[1] * c->dims[2];
    for (int b = 0; b < boxes; b++) {
        int at[3];
        coords_of_rank(c->dims, b, at);
        for (int i = 0; i < members; i++)
            for (int j = 0; j < n; j++) {
                struct box_ref to = box_at(c->dims, at, offsets[i * n + j]);
                net_load_send(&l, h, b * c->team_size + i, to.rank * c->team_size + i);
            }
    }
    return net_load_most(&l);
}

double model_net_turn_load(const struct hockney *h, const struct model_case *c, int d, int dir,
                           int colour)
{
    struct net_load l;
    net_load_init(&l, h);
    int boxes = c->dims[0] * c->dims[1] * c->dims[2], step[3] = {0, 0, 0};
    step[d] = dir;
    for (int b = 0; b < boxes; b++) {
        int at[3];
        coords_of_rank(c->dims, b, at);
        if (ring_colour(at[d], c->dims[d]) != colour) continue;
        struct box_ref to = box_at(c->dims, at, step);
        net_load_send(&l, h, b * c->team_size, to.rank * c->team_size);
    }
    return net_load_most(&l);
}

void model_contention(struct model_terms *t, const struct hockney *h, double n, double load,
                      double bytes)
{
    /* the bandwidth part of a message in flight: its gap less the gap of an
     * empty one; a port carries sends and receives at once, so each message
     * on it costs half of that (g is measured with one each way) */
    double each = hockney_gap(h, bytes) - hockney_gap(h, 0.0);
    if (load > 2 * n && each > 0) t->time += (load - 2 * n) * 0.5 * each;
}

void model_turn_contention(struct model_terms *t, const struct hockney *h, double count,
                           double load, double bytes)
{
    /* the bandwidth part of a one-way message, once more for each further
     * message on the busiest port or link */
    double each = hockney_time(h, bytes) - hockney_time(h, 0.0);
    if (load > 1 && each > 0) t->time += count * (load - 1) * each;
}

int model_torus_fits(const struct hockney *h, long long ranks, struct sb_msg *m)
{
    long long hosts = (long long)h->torus[0] * h->torus[1] * h->torus[2];
    if (!model_torus(h) || ranks <= hosts) return SB_OK;
    return sb_fail(m, SB_EUSAGE,
                   "model.torus = %d,%d,%d has %lld hosts, fewer than the %lld ranks to place "
                   "(one per host); accepted: a torus of at least %lld hosts, or none",
                   h->torus[0], h->torus[1], h->torus[2], hosts, ranks, ranks);
}
