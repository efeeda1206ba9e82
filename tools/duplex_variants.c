/* One message each way between two ranks, timed four ways: what a "duplex
 * step" costs depends on how it is written and on who touched the bytes
 * last, which is why one x(m) cannot fit every module on one node
 * (docs/MODEL.md, "How good it is": the figures of one run).
 *
 *   tools/duplex_variants.sh [BYTES...]      (builds this file, runs 2 ranks)
 *
 * Each variant is timed `TRIALS` times after a barrier, each trial `STEPS`
 * steps (1 for the single step); the table gives the median over both
 * ranks' times per step, pooled, as shiftbox exchange pools its ranks':
 *   chain-forward  MPI_Irecv, MPI_Isend, MPI_Waitall; each step sends what
 *                  the one before received (shiftbox pingpong's duplex)
 *   chain-fixed    the same from one buffer into another, never swapped
 *   pass-forward   MPI_Isend, MPI_Recv, MPI_Wait, forwarding what came
 *                  (a Team Shift pass)
 *   one-fresh      one MPI_Irecv, MPI_Isend, MPI_Waitall after a barrier,
 *                  the payload written anew before it (direct's exchange)
 * After each variant and size, the last message each rank received from
 * the other (and, for the forwarding chains, its own payload come back) is
 * compared byte for byte with what was sent (DUPLEX_VARIANTS_INJECT=1 first
 * flips a byte of rank 1's received and rank 0's returned one:
 * tests/model.sh sees every one caught). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TRIALS = 2000, WARMUP = 100, STEPS = 16 /* even */, NVARIANTS = 4 };
static const char *const names[NVARIANTS] = {"chain-forward", "chain-fixed", "pass-forward",
                                             "one-fresh"};

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u + 1u);
}

static void check(int rc, const char *call)
{
    if (rc == MPI_SUCCESS) return;
    fprintf(stderr, "duplex_variants: %s failed (code %d)\n", call, rc);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* One trial of variant v; returns its time per step.  *seed numbers the
 * payload (one-fresh writes a new one); a and b are this rank's buffers. */
static double trial(int v, int n, int other, unsigned char **a, unsigned char **b, unsigned seed)
{
    MPI_Request r[2];
    int steps = v == 3 ? 1 : STEPS;
    if (v == 3) fill(*a, (size_t)n, seed);
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double t0 = MPI_Wtime();
    for (int s = 0; s < steps; s++) {
        if (v == 2) {
            check(MPI_Isend(*a, n, MPI_BYTE, other, 1, MPI_COMM_WORLD, &r[0]), "MPI_Isend");
            check(MPI_Recv(*b, n, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Recv");
            check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "MPI_Wait");
        } else {
            check(MPI_Irecv(*b, n, MPI_BYTE, other, 1, MPI_COMM_WORLD, &r[0]), "MPI_Irecv");
            check(MPI_Isend(*a, n, MPI_BYTE, other, 1, MPI_COMM_WORLD, &r[1]), "MPI_Isend");
            check(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), "MPI_Waitall");
        }
        if (v == 0 || v == 2) { /* forward: the next step sends what came */
            unsigned char *t = *a;
            *a = *b;
            *b = t;
        }
    }
    return (MPI_Wtime() - t0) / steps;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "duplex_variants: needs 2 ranks, has %d\n", size);
        MPI_Finalize();
        return 2;
    }
    int other = 1 - rank, wrong = 0;
    const char *flip = getenv("DUPLEX_VARIANTS_INJECT"); /* tests: a flipped byte must be caught */
    int inject = flip && *flip == '1';
    long *sizes = malloc((size_t)argc * sizeof *sizes);
    for (int i = 1; i < argc; i++) {
        char *end;
        sizes[i - 1] = strtol(argv[i], &end, 10);
        if (*end || end == argv[i] || sizes[i - 1] < 1 || sizes[i - 1] > (1L << 28)) {
            if (rank == 0)
                fprintf(stderr, "duplex_variants: bytes '%s': give 1 .. 268435456\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    double *mine = malloc(TRIALS * sizeof *mine), *all = malloc(2 * TRIALS * sizeof *all);
    if (rank == 0)
        printf("# median per step over both ranks, us (%d trials; chains of %d steps)\n%9s", TRIALS,
               STEPS, "bytes");
    for (int v = 0; rank == 0 && v < NVARIANTS; v++)
        printf(" %14s", names[v]);
    if (rank == 0) printf("\n");
    for (int i = 1; i < argc; i++) {
        long n = sizes[i - 1];
        if (rank == 0) printf("%9ld", n);
        for (int v = 0; v < NVARIANTS; v++) {
            unsigned char *a = malloc((size_t)n), *b = malloc((size_t)n);
            if (!a || !b) check(MPI_ERR_NO_MEM, "malloc");
            fill(a, (size_t)n, (unsigned)rank);
            memset(b, 0, (size_t)n);
            for (int t = 0; t < WARMUP + TRIALS; t++) {
                unsigned seed = v == 3 ? (unsigned)(2 * t + rank) : (unsigned)rank;
                double each = trial(v, (int)n, other, &a, &b, seed);
                if (t >= WARMUP) mine[t - WARMUP] = each;
            }
            /* b holds the other rank's payload: numbered by its rank, or for
             * one-fresh by the last trial.  A forwarding chain of an even
             * number of steps ends where it began: its last message, this
             * rank's own payload come back, lies in a. */
            unsigned last =
                v == 3 ? (unsigned)(2 * (WARMUP + TRIALS - 1) + other) : (unsigned)other;
            unsigned char *want = malloc((size_t)n);
            if (!want) check(MPI_ERR_NO_MEM, "malloc");
            fill(want, (size_t)n, last);
            if (inject && rank == 1) b[n / 2] ^= 0x01;
            wrong += memcmp(want, b, (size_t)n) != 0;
            if (v == 0 || v == 2) {
                fill(want, (size_t)n, (unsigned)rank);
                if (inject && rank == 0) a[n / 2] ^= 0x01;
                wrong += memcmp(want, a, (size_t)n) != 0;
            }
            free(want);
            check(MPI_Gather(mine, TRIALS, MPI_DOUBLE, all, TRIALS, MPI_DOUBLE, 0, MPI_COMM_WORLD),
                  "MPI_Gather");
            if (rank == 0) {
                qsort(all, 2 * TRIALS, sizeof *all, compare);
                printf(" %14.3f", 1e6 * 0.5 * (all[TRIALS - 1] + all[TRIALS]));
                fflush(stdout);
            }
            free(a);
            free(b);
        }
        if (rank == 0) printf("\n");
    }
    int wrong_all = 0;
    check(MPI_Reduce(&wrong, &wrong_all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
    if (rank == 0) {
        if (wrong_all)
            printf("WRONG: %d checks of the last message failed\n", wrong_all);
        else
            printf("verified: the last messages of every variant and size arrived intact\n");
    }
    free(sizes);
    free(mine);
    free(all);
    MPI_Finalize();
    return wrong_all ? 1 : 0;
}
