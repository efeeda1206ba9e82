#include "migrate.h"
#include "../log.h"

#include <stdlib.h>
#include <string.h>

/* A particle on the move: position, velocity, id. */
struct traveller {
    double x[3], v[3];
    int64_t id;
};

struct movers {
    struct traveller *t;
    int n, cap;
};

static void movers_push(struct movers *m, const struct particles *p, int i)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->t = sb_realloc(m->t, (size_t)m->cap * sizeof *m->t, "migrating particles");
    }
    struct traveller *t = &m->t[m->n++];
    memcpy(t->x, p->x + 3 * (size_t)i, sizeof t->x);
    memcpy(t->v, p->v + 3 * (size_t)i, sizeof t->v);
    t->id = p->id[i];
}

static void particles_append(struct particles *p, const struct traveller *t)
{
    particles_reserve(p, p->n + 1);
    memcpy(p->x + 3 * (size_t)p->n, t->x, sizeof t->x);
    memcpy(p->v + 3 * (size_t)p->n, t->v, sizeof t->v);
    memset(p->f + 3 * (size_t)p->n, 0, 3 * sizeof(double));
    p->id[p->n++] = t->id;
}

/* Sends `out` to `to` and receives from `from` (tag keeps the two
 * directions apart on a ring of two), appending what arrives to `in`. */
static int swap(const struct movers *out, int to, struct movers *in, int from, int tag,
                MPI_Comm comm)
{
    int count = out->n, incoming;
    CHECK_MPI(MPI_Sendrecv(&count, 1, MPI_INT, to, tag, &incoming, 1, MPI_INT, from, tag, comm,
                           MPI_STATUS_IGNORE));
    if (in->cap < in->n + incoming) {
        in->cap = in->n + incoming + 16;
        in->t = sb_realloc(in->t, (size_t)in->cap * sizeof *in->t, "migrating particles");
    }
    int bytes = (int)(sizeof(struct traveller) * (size_t)count);
    int expected = (int)(sizeof(struct traveller) * (size_t)incoming);
    CHECK_MPI(MPI_Sendrecv(out->t, bytes, MPI_BYTE, to, tag + 1, in->t + in->n, expected, MPI_BYTE,
                           from, tag + 1, comm, MPI_STATUS_IGNORE));
    in->n += incoming;
    return SB_OK;
}

/* Moves along dimension d: out through the lower face goes to the box at
 * -1, out through the upper face to the box at +1. */
static int migrate_dim(struct particles *p, const struct md_geometry *g, const struct topology *t,
                       int d, struct movers *down, struct movers *up, struct movers *arrived)
{
    double edge = g->edge[d];
    down->n = up->n = arrived->n = 0;
    int kept = 0;
    for (int i = 0; i < p->n; i++) {
        double pos = p->x[3 * i + d];
        if (pos < -edge || pos >= 2 * edge) {
            log_rank_error("md: particle %lld moved more than one box (%c = %.6g in a box of "
                           "edge %.6g, box %d,%d,%d); a smaller md.dt or larger boxes",
                           (long long)p->id[i], "xyz"[d], pos, edge, t -> coords[0], t -> coords[1],
                           t -> coords[2]);
            return SB_ERUNTIME;
        }
        if (pos < 0.0 || pos >= edge) {
            struct movers *m = pos < 0.0 ? down : up;
            movers_push(m, p, i);
            m->t[m->n - 1].x[d] += pos < 0.0 ? edge : -edge; /* the new box's frame */
            continue;
        }
        if (kept != i) { /* keep the order of those that stay */
            memcpy(p->x + 3 * kept, p->x + 3 * i, 3 * sizeof(double));
            memcpy(p->v + 3 * kept, p->v + 3 * i, 3 * sizeof(double));
            p->id[kept] = p->id[i];
        }
        kept++;
    }
    p->n = kept;
    if (t->dims[d] == 1) { /* a ring of one: leaving is arriving */
        for (int i = 0; i < down->n; i++)
            particles_append(p, &down->t[i]);
        for (int i = 0; i < up->n; i++)
            particles_append(p, &up->t[i]);
        return SB_OK;
    }
    int below[3] = {0, 0, 0}, above[3] = {0, 0, 0};
    below[d] = -1;
    above[d] = +1;
    int lower = box_at(t->dims, t->coords, below).rank;
    int upper = box_at(t->dims, t->coords, above).rank;
    CHECK(swap(up, upper, arrived, lower, 10 + 4 * d, t->leaders));
    CHECK(swap(down, lower, arrived, upper, 12 + 4 * d, t->leaders));
    for (int i = 0; i < arrived->n; i++)
        particles_append(p, &arrived->t[i]);
    return SB_OK;
}

int migrate(struct particles *p, const struct md_geometry *g, const struct topology *t)
{
    struct movers down = {0}, up = {0}, arrived = {0};
    int rc = SB_OK;
    for (int d = 0; d < 3 && rc == SB_OK; d++)
        rc = migrate_dim(p, g, t, d, &down, &up, &arrived);
    free(down.t);
    free(up.t);
    free(arrived.t);
    return rc;
}
