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

double model_net_load(const struct hockney *h, const struct model_case *c, int members, int n,
                      const int (*offsets)[3])
{
    int boxes = c->dims[0] * c->dims[1] * c->dims[2];
    int hosts = h->torus[0] * h->torus[1] * h->torus[2];
    int *port = sb_calloc((size_t)hosts, sizeof *port, "the torus' port loads");
    int *up = sb_calloc(3 * (size_t)hosts, sizeof *up, "the torus' link loads");
    int *down = sb_calloc(3 * (size_t)hosts, sizeof *down, "the torus' link loads");
    for (int b = 0; b < boxes; b++) {
        int at[3];
        coords_of_rank(c->dims, b, at);
        for (int i = 0; i < members; i++)
            for (int j = 0; j < n; j++) {
                const int *d = offsets[i * n + j];
                struct box_ref to = box_at(c->dims, at, d);
                int src = b * c->team_size + i, dst = to.rank * c->team_size + i;
                if (src != dst) route(h->torus, src, dst, port, up, down);
            }
    }
    int most = 0;
    for (int x = 0; x < hosts; x++)
        if (port[x] > most) most = port[x];
    for (int x = 0; x < 3 * hosts; x++) {
        if (up[x] > most) most = up[x];
        if (down[x] > most) most = down[x];
    }
    free(port);
    free(up);
    free(down);
    return most;
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

int model_torus_fits(const struct hockney *h, long long ranks, struct sb_msg *m)
{
    long long hosts = (long long)h->torus[0] * h->torus[1] * h->torus[2];
    if (!model_torus(h) || ranks <= hosts) return SB_OK;
    return sb_fail(m, SB_EUSAGE,
                   "model.torus = %d,%d,%d has %lld hosts, fewer than the %lld ranks to place "
                   "(one per host); accepted: a torus of at least %lld hosts, or none",
                   h->torus[0], h->torus[1], h->torus[2], hosts, ranks, ranks);
}
