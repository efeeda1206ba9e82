/* The collectives Team Shift uses (MPI_Bcast within a team, MPI_Gatherv
 * at its leader), costed as the MPI library that measured hockney.json runs
 * them (docs/MODEL.md "Collectives").
 *
 * Open MPI 4.1's tuned component picks a broadcast algorithm from the
 * communicator's size and the bytes (coll_tuned_decision_fixed.c) and runs
 * it without segments.  SimGrid's SMPI with smpi/bcast:ompi (what
 * tools/smpi-run.sh sets) takes the same decision but runs its own
 * implementations: "basic linear" is a chain and the binary tree send 8 KiB
 * segments, the pipeline 16-128 KiB ones.  Either way the algorithm is a
 * tree: a rank forwards to its children in order once it holds the data,
 * its j-th send (from 0) arriving s(m) + j f(m) later and the rank free
 * after its n sends, n f(m); s is the one-way MPI_Send time and f the gap
 * of one more message one way (hockney.h).  Segments flow through the tree
 * one after another, each further segment costing the busiest forwarder's
 * sends of it.  A gather's root takes its parts one after another as they
 * come, f(m) apart. */
#include "model.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TREE 64 /* teams larger than this are costed as a binomial tree's depth */

enum bcast_alg {
    LINEAR = 1,
    CHAIN,
    PIPELINE,
    SPLIT_BINTREE,
    BINTREE,
    BINOMIAL,
    KNOMIAL,
    SCATTER_ALLGATHER,
    SCATTER_ALLGATHER_RING
};

/* Open MPI 4.1's fixed decision (ompi_coll_tuned_bcast_intra_dec_fixed),
 * which SMPI's ompi selector copies. */
static enum bcast_alg bcast_decision(int size, double bytes)
{
    static const struct {
        int below;        /* communicator sizes below this */
        double upto[10];  /* byte bounds (exclusive), ascending; 0 ends */
        int alg[11];      /* the algorithm below each bound, then above the last */
    } table[] = {
        {4, {32, 256, 512, 1024, 32768, 131072, 262144, 524288, 1048576}, {3, 5, 3, 7, 1, 5, 2, 1, 6, 5}},
        {8, {64, 128, 2048, 8192, 1048576}, {5, 6, 5, 6, 1, 2}},
        {16, {8, 64, 4096, 16384, 32768}, {7, 5, 7, 5, 6, 1}},
        {32, {4096, 1048576}, {7, 6, 8}},
        {64, {2048}, {6, 7}},
        {128, {0}, {7}},
        {256, {2, 16384, 32768, 65536}, {6, 5, 1, 5, 7}},
        {1024, {16384, 32768}, {7, 4, 7}},
        {2048, {524288}, {7, 8}},
        {4096, {262144}, {7, 8}},
        {1 << 30, {8192, 16384, 262144}, {7, 5, 7, 8}},
    };
    for (size_t r = 0; r < sizeof table / sizeof table[0]; r++) {
        if (size >= table[r].below) continue;
        int i = 0;
        while (i < 10 && table[r].upto[i] > 0 && bytes >= table[r].upto[i])
            i++;
        return (enum bcast_alg)table[r].alg[i];
    }
    return BINOMIAL;
}

/* A broadcast tree: each rank's children in the order it sends to them. */
struct tree {
    int n;
    int nchildren[MAX_TREE];
    int child[MAX_TREE][MAX_TREE];
};

static void add_child(struct tree *t, int parent, int child)
{
    t->child[parent][t->nchildren[parent]++] = child;
}

static void build_tree(struct tree *t, enum bcast_alg alg, int n)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    switch (alg) {
    case LINEAR: /* the root sends to everyone */
        for (int r = 1; r < n; r++)
            add_child(t, 0, r);
        break;
    case CHAIN:
    case PIPELINE: /* 0 -> 1 -> 2 ... */
        for (int r = 1; r < n; r++)
            add_child(t, r - 1, r);
        break;
    case BINTREE:
    case SPLIT_BINTREE: /* rank i feeds 2i+1, then 2i+2 */
        for (int r = 1; r < n; r++)
            add_child(t, (r - 1) / 2, r);
        break;
    case KNOMIAL: { /* radix 4: at each level a rank feeds r + mask k, k = 1..3 */
        int top = 1;
        while (top * 4 < n)
            top *= 4;
        for (int r = 0; r < n; r++) {
            int low = 1; /* the level r itself was reached at */
            while (low <= top && r % (low * 4) == 0)
                low *= 4;
            int mask = r == 0 ? top : low / 4;
            for (; mask > 0; mask /= 4)
                for (int k = 1; k < 4; k++)
                    if (r + mask * k < n) add_child(t, r, r + mask * k);
        }
        break;
    }
    default: { /* binomial: rank r feeds r + mask for the masks below its lowest bit, largest first */
        int top = 1;
        while (top * 2 < n)
            top *= 2;
        for (int r = 0; r < n; r++) {
            int mask = r == 0 ? top : (r & -r) / 2;
            for (; mask > 0; mask /= 2)
                if (r + mask < n) add_child(t, r, r + mask);
        }
        break;
    }
    }
}

/* When each rank holds a message of m bytes (s: one send, g: the one-way
 * gap; the root: when its sends are done), and the most sends one rank
 * makes. */
static void tree_times(const struct tree *t, double s, double g, double *done, int *busiest)
{
    int order[MAX_TREE], head = 0, tail = 0;
    for (int r = 0; r < t->n; r++)
        done[r] = 0;
    *busiest = 0;
    order[tail++] = 0; /* breadth first: a parent is done before its children */
    while (head < tail) {
        int r = order[head++];
        if (t->nchildren[r] > *busiest) *busiest = t->nchildren[r];
        double start = done[r];
        for (int j = 0; j < t->nchildren[r]; j++) {
            int c = t->child[r][j];
            done[c] = start + s + j * g;
            order[tail++] = c;
        }
        if (r == 0) done[0] = t->nchildren[0] * g;
    }
}

/* SMPI's implementation of alg: its segment size (0: none), and whether a
 * remainder that fills no segment follows as another broadcast (the NTS
 * algorithms do that; the pipeline sends a shorter last segment). */
static double smpi_segment(enum bcast_alg alg, int n, double bytes, bool *remainder)
{
    *remainder = alg == LINEAR || alg == BINTREE;
    switch (alg) {
    case LINEAR: /* bcast__NTSL, a chain */
    case BINTREE: /* bcast__NTSB */
        return 8192;
    case CHAIN:
    case PIPELINE: /* bcast__ompi_pipeline's rule */
        if (n < 1.6134e-6 * bytes + 2.1102) return 131072;
        if (n < 2.3679e-6 * bytes + 1.1787) return 65536;
        if (n < 3.2118e-6 * bytes + 8.7936) return 16384;
        return 131072;
    default:
        return 0;
    }
}

double model_bcast_times(const struct hockney *h, int ranks, double bytes, double *done,
                         int *sends)
{
    *sends = 0;
    if (ranks <= 1) {
        if (ranks == 1) done[0] = 0;
        return 0;
    }
    enum bcast_alg alg = bcast_decision(ranks, bytes);
    if (ranks > MAX_TREE) { /* far beyond Team Shift's teams: a binomial tree's depth */
        *sends = (int)ceil(log2(ranks));
        return *sends * hockney_send(h, bytes);
    }
    bool remainder = false;
    double segment = h->smpi ? smpi_segment(alg, ranks, bytes, &remainder) : 0;
    struct tree tree;
    build_tree(&tree, h->smpi && alg == LINEAR ? CHAIN : alg, ranks); /* NTSL is a chain */
    double nseg = 1, piece = bytes, rest = 0;
    if (segment > 0 && bytes > segment) {
        nseg = remainder ? floor(bytes / segment) : ceil(bytes / segment);
        piece = remainder ? segment : bytes / nseg;
        rest = remainder ? bytes - nseg * segment : 0;
    }
    double gap = hockney_fan(h, piece), last = 0;
    int busiest;
    tree_times(&tree, hockney_send(h, piece), gap, done, &busiest);
    double after[MAX_TREE];
    int more = 0;
    if (rest > 0) model_bcast_times(h, ranks, rest, after, &more);
    for (int r = 0; r < ranks; r++) { /* later segments follow, one busiest-forwarder apart */
        done[r] += (nseg - 1) * busiest * gap + (rest > 0 ? after[r] : 0.0);
        if (done[r] > last) last = done[r];
    }
    *sends = busiest * (int)nseg + more;
    return last;
}

void model_bcast(struct model_terms *t, const struct hockney *h, int ranks, double bytes)
{
    double done[MAX_TREE];
    int sends;
    t->time += model_bcast_times(h, ranks, bytes, ranks <= MAX_TREE ? done : NULL, &sends);
    t->messages += sends;
    t->bytes += sends * bytes;
}

static int earlier(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double model_gatherv_time(const struct hockney *h, int ranks, const double *ready,
                          const double *bytes)
{
    /* The root's receives are posted at once; it takes the parts one after
       another as they arrive, each one one-way gap after the one before.  A
       part sent before the root is ready still crosses the root's port:
       eager, sharing it with the root's own messages; rendezvous, once the
       root posts.  Either way the root is that part's bandwidth later. */
    double arrive[ranks > 1 ? ranks - 1 : 1], gap = 0, last = ready[0];
    for (int j = 1; j < ranks; j++) {
        arrive[j - 1] = ready[j] + hockney_send(h, bytes[j]);
        gap += hockney_fan(h, bytes[j]) / (ranks - 1);
        double bandwidth = hockney_send(h, bytes[j]) - hockney_send(h, 0.0);
        if (ready[j] < ready[0] && bandwidth > 0) last += bandwidth;
    }
    qsort(arrive, (size_t)(ranks - 1), sizeof *arrive, earlier);
    /* a part already there when the root comes to it still costs the root
       its receive (SMPI's or; MPI's matching): the one-way gap of nothing */
    for (int j = 0; j < ranks - 1; j++)
        last = (arrive[j] > last ? arrive[j] : last + (j == 0 ? hockney_fan(h, 0.0) : 0.0)) +
               (j > 0 ? gap : 0.0);
    double own = h->smp.have ? smp_copy_time(&h->smp, bytes[0]) : hockney_copy(h, bytes[0]);
    return last + own;
}

void model_gatherv(struct model_terms *t, const struct hockney *h, int ranks, const double *bytes)
{
    if (ranks <= 1) return;
    double ready[ranks];
    for (int j = 0; j < ranks; j++)
        ready[j] = 0;
    t->time += model_gatherv_time(h, ranks, ready, bytes);
    t->messages += ranks - 1;
    for (int j = 1; j < ranks; j++)
        t->bytes += bytes[j];
}
