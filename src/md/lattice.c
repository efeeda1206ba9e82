/* The initial state: an FCC lattice at the set density, and velocities
 * that depend on the particle's id and the seed only.  Velocities start as
 * integers, so that the sums that remove the total momentum and set the
 * temperature are exact whatever the rank count; the run then starts from
 * bit-identical particles however it is decomposed. */
#include "md.h"
#include "../../comm/verify.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void md_geometry_init(struct md_geometry *g, const struct md_params *p, const struct topology *t)
{
    g->lattice = cbrt(4.0 / p->density);
    g->reach = p->cutoff + p->skin;
    double smallest = INFINITY;
    for (int d = 0; d < 3; d++) {
        g->length[d] = p->cells[d] * g->lattice;
        g->edge[d] = g->length[d] / t->dims[d];
        g->corner[d] = t->coords[d] * g->edge[d];
        if (g->edge[d] < smallest) smallest = g->edge[d];
    }
    g->k = (int)ceil(g->reach / smallest);
}

void particles_reserve(struct particles *p, int n)
{
    if (n <= p->cap) return;
    int cap = n + n / 2 + 16;
    size_t three = 3 * (size_t)cap * sizeof(double);
    if (cap > p->xcap) {
        p->x = sb_realloc(p->x, three, "positions");
        p->xcap = cap;
    }
    p->v = sb_realloc(p->v, three, "velocities");
    p->f = sb_realloc(p->f, three, "forces");
    p->id = sb_realloc(p->id, (size_t)cap * sizeof *p->id, "particle ids");
    p->cap = cap;
}

void particles_reserve_positions(struct particles *p, int n)
{
    if (n <= p->xcap && p->x) return;
    long long cap = (long long)n + n / 4 + 16;
    p->xcap = cap > INT_MAX ? INT_MAX : (int)cap;
    p->x = sb_realloc(p->x, 3 * (size_t)p->xcap * sizeof(double), "positions and ghosts");
}

void particles_free(struct particles *p)
{
    free(p->x);
    free(p->v);
    free(p->f);
    free(p->x0);
    free(p->id);
    memset(p, 0, sizeof *p);
}

int md_box_of(double pos, double edge, int n)
{
    int b = (int)floor(pos / edge);
    return b < 0 ? 0 : b >= n ? n - 1 : b;
}

long long md_lattice(struct particles *p, const struct md_params *prm, const struct md_geometry *g,
                     const struct topology *t)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int lo[3], hi[3];
    for (int d = 0; d < 3; d++) { /* the cells that can reach into this box */
        lo[d] = (int)floor(g->corner[d] / g->lattice) - 1;
        hi[d] = (int)ceil((g->corner[d] + g->edge[d]) / g->lattice) + 1;
        if (lo[d] < 0) lo[d] = 0;
        if (hi[d] > prm->cells[d]) hi[d] = prm->cells[d];
    }
    p->n = 0;
    for (int i = lo[0]; i < hi[0]; i++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int l = lo[2]; l < hi[2]; l++)
                for (int b = 0; b < 4; b++) {
                    const int cell[3] = {i, j, l};
                    double pos[3];
                    bool mine = true;
                    for (int d = 0; d < 3 && mine; d++) {
                        pos[d] = (cell[d] + basis[b][d]) * g->lattice;
                        mine = md_box_of(pos[d], g->edge[d], t->dims[d]) == t->coords[d];
                    }
                    if (!mine) continue;
                    particles_reserve(p, p->n + 1);
                    for (int d = 0; d < 3; d++) {
                        p->x[3 * p->n + d] = pos[d] - g->corner[d];
                        p->v[3 * p->n + d] = 0.0;
                        p->f[3 * p->n + d] = 0.0;
                    }
                    p->id[p->n] = (((int64_t)i * prm->cells[1] + j) * prm->cells[2] + l) * 4 + b;
                    p->n++;
                }
    return 4LL * prm->cells[0] * prm->cells[1] * prm->cells[2];
}

void md_raw_velocity(uint64_t seed, int64_t id, int32_t raw[3])
{
    uint64_t h = splitmix64(seed ^ splitmix64((uint64_t)id));
    for (int d = 0; d < 3; d++)
        raw[d] = (int32_t)((h >> (16 * d)) & 0xFFFF) - 32768;
}

int md_velocities(struct particles *p, const struct md_params *prm, long long total, MPI_Comm comm)
{
    /* sums[0..2]: the components, sums[3]: their squares; exact in int64 */
    int64_t sums[4] = {0, 0, 0, 0};
    for (int i = 0; i < p->n; i++) {
        int32_t raw[3];
        md_raw_velocity(prm->seed, p->id[i], raw);
        for (int d = 0; d < 3; d++) {
            sums[d] += raw[d];
            sums[3] += (int64_t)raw[d] * raw[d];
        }
    }
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_INT64_T, MPI_SUM, comm));
    double n = (double)total, mean[3], kinetic = (double)sums[3]; /* in raw units, x2 */
    for (int d = 0; d < 3; d++) {
        mean[d] = (double)sums[d] / n;
        kinetic -= (double)sums[d] * (double)sums[d] / n;
    }
    /* T = sum v^2 / (3N - 3), the degrees of freedom miniMD uses */
    double raw_temperature = kinetic / (3.0 * n - 3.0);
    double scale = raw_temperature > 0 ? sqrt(prm->temperature / raw_temperature) : 0.0;
    for (int i = 0; i < p->n; i++) {
        int32_t raw[3];
        md_raw_velocity(prm->seed, p->id[i], raw);
        for (int d = 0; d < 3; d++)
            p->v[3 * i + d] = ((double)raw[d] - mean[d]) * scale;
    }
    return SB_OK;
}

/* Moves particle i to dest[i] for every i by following the permutation's
 * cycles, so that sorting needs no second copy of the arrays; dest ends as
 * the identity.  Forces and the positions at the last build are not moved:
 * the step that sorts computes both afresh. */
static void permute(struct particles *p, int *dest)
{
    for (int i = 0; i < p->n; i++)
        while (dest[i] != i) {
            int j = dest[i];
            double t[3];
            memcpy(t, p->x + 3 * j, sizeof t);
            memcpy(p->x + 3 * j, p->x + 3 * i, sizeof t);
            memcpy(p->x + 3 * i, t, sizeof t);
            memcpy(t, p->v + 3 * j, sizeof t);
            memcpy(p->v + 3 * j, p->v + 3 * i, sizeof t);
            memcpy(p->v + 3 * i, t, sizeof t);
            int64_t id = p->id[j];
            p->id[j] = p->id[i];
            p->id[i] = id;
            dest[i] = dest[j];
            dest[j] = j;
        }
}

void particles_sort(struct particles *p, const struct md_geometry *g, double cell)
{
    int n[3];
    for (int d = 0; d < 3; d++) {
        n[d] = (int)(g->edge[d] / cell);
        if (n[d] < 1) n[d] = 1;
    }
    int ncells = n[0] * n[1] * n[2];
    /* the keys and the cells' counts in the forces' array, which nothing
       reads until the step computes them again (md.h); in a block of their
       own only where it is too small */
    size_t ints = (size_t)p->n + (size_t)ncells + 1;
    bool in_forces = p->f && ints * sizeof(int) <= 3 * sizeof(double) * (size_t)p->cap;
    int *dest = in_forces ? (int *)(void *)p->f : sb_malloc(ints * sizeof *dest, "sort keys");
    int *start = dest + p->n;
    memset(start, 0, ((size_t)ncells + 1) * sizeof *start);
    for (int i = 0; i < p->n; i++) {
        int c[3];
        for (int d = 0; d < 3; d++) {
            c[d] = (int)(p->x[3 * i + d] / g->edge[d] * n[d]);
            c[d] = c[d] < 0 ? 0 : c[d] >= n[d] ? n[d] - 1 : c[d];
        }
        dest[i] = (c[0] * n[1] + c[1]) * n[2] + c[2]; /* the cell, until the counts are summed */
        start[dest[i] + 1]++;
    }
    for (int c = 0; c < ncells; c++)
        start[c + 1] += start[c];
    for (int i = 0; i < p->n; i++) /* stable: in index order within a cell */
        dest[i] = start[dest[i]]++;
    permute(p, dest);
    if (!in_forces) free(dest);
}
