/* The supersteps of shiftbox smpcost (smpcost.h): the workers' shared
 * array, copy-in and copy-out in good and bad mode (seed 003 sec. 3-4.1),
 * the three suites, ShiftBox's own copy patterns and seed 003's
 * applications. */
#include "smpcost.h"
#include "../log.h"
#include "../vectorize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int smp_memory_init(struct smp_memory *mem, const struct smp_plan *p, MPI_Comm world,
                    struct sb_msg *m)
{
    memset(mem, 0, sizeof *mem);
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int here = 0, all = 0;
    MPI_Comm_size(node, &here);
    MPI_Comm_size(world, &all);
    int agreed = here;
    CHECK_MPI(MPI_Allreduce(&here, &agreed, 1, MPI_INT, MPI_MIN, world));
    if (agreed != all) {
        MPI_Comm_free(&node);
        return sb_fail(m, SB_EUSAGE,
                       "smpcost: the workers share memory, so all %d ranks must run on one node; "
                       "a node here has %d of them",
                       all, agreed);
    }
    mem->comm = node;
    MPI_Comm_rank(node, &mem->me);
    size_t good = (size_t)p->p * (size_t)p->tmax;
    size_t bad = (size_t)p->p + (size_t)p->bad_max * (size_t)p->line_ints;
    mem->global_ints = good > bad ? good : bad;
    double bytes = (double)mem->global_ints * sizeof(int) + (double)p->p * p->tmax * sizeof(int);
    double node_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (bytes > 0.5 * node_bytes)
        return sb_fail(m, SB_EUSAGE,
                       "smpcost: the shared array and local copies need %.3g GB, more than half "
                       "of this node's %.3g GB; reduce smpcost.cache_bytes or smpcost.bad_bytes",
                       bytes / 1e9, node_bytes / 1e9);
    MPI_Aint size = mem->me == 0 ? (MPI_Aint)(mem->global_ints * sizeof(int)) : 0;
    unsigned *mine = NULL;
    CHECK_MPI(MPI_Win_allocate_shared(size, sizeof(int), MPI_INFO_NULL, node, &mine, &mem->win));
    MPI_Aint got;
    int unit;
    CHECK_MPI(MPI_Win_shared_query(mem->win, 0, &got, &unit, &mem->global));
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, mem->win));
    mem->local_ints = (size_t)p->tmax;
    mem->local = sb_malloc(mem->local_ints * sizeof(int), "a worker's local memory");
    /* Touch everything once so that no measurement pays for first faults. */
    for (size_t k = (size_t)mem->me; k < mem->global_ints; k += (size_t)p->p)
        mem->global[k] = (unsigned)k;
    for (long k = 0; k < p->tmax; k++)
        mem->local[k] = (unsigned)k;
    CHECK_MPI(MPI_Win_sync(mem->win));
    CHECK_MPI(MPI_Barrier(node));
    return SB_OK;
}

void smp_memory_free(struct smp_memory *mem)
{
    if (mem->win != MPI_WIN_NULL && mem->global) {
        MPI_Win_unlock_all(mem->win);
        MPI_Win_free(&mem->win);
    }
    if (mem->comm != MPI_COMM_NULL && mem->comm) MPI_Comm_free(&mem->comm);
    free(mem->local);
}

/* Index arrays, or NULL for the good and bad families' own loops. */
struct access {
    enum smp_mode mode;
    const size_t *reads, *writes;
};

/* Good mode copies integer by integer, as seed 003's supersteps do, in a
 * loop the compiler vectorises but does not turn into memcpy
 * (SB_PLAIN_LOOPS): glibc's memcpy stores past the cache above a size it
 * derives from the reported last-level cache, which made good supersteps
 * of 12-42 M integers cost 0.59-0.68 ns an integer here and those of 48 M
 * and more 0.40-0.43 (480 MiB L3 reported, 2 workers). */
SB_PLAIN_LOOPS static void copy_run(unsigned *restrict to, const unsigned *restrict from, long n)
{
    for (long k = 0; k < n; k++)
        to[k] = from[k];
}

static void copy_in(struct smp_memory *mem, const struct smp_plan *p, const struct access *a,
                    long n)
{
    unsigned *local = mem->local;
    const unsigned *g = mem->global;
    if (a->reads) {
        for (long k = 0; k < n; k++)
            local[k] = g[a->reads[k]];
    } else if (a->mode == MODE_GOOD) {
        copy_run(local, g + (size_t)mem->me * (size_t)p->tmax, n);
    } else {
        for (long k = 0; k < n; k++)
            local[k] = g[(size_t)mem->me + (size_t)k * (size_t)p->line_ints];
    }
}

static void copy_out(struct smp_memory *mem, const struct smp_plan *p, const struct access *a,
                     long n)
{
    const unsigned *local = mem->local;
    unsigned *g = mem->global;
    if (a->writes) {
        for (long k = 0; k < n; k++)
            g[a->writes[k]] = local[k];
    } else if (a->mode == MODE_GOOD) {
        copy_run(g + (size_t)mem->me * (size_t)p->tmax, local, n);
    } else {
        for (long k = 0; k < n; k++)
            g[(size_t)mem->me + (size_t)k * (size_t)p->line_ints] = local[k];
    }
}

/* Good mode primes the caches with what the superstep will touch: every
 * value read once, summed where the compiler may keep the sum in registers
 * (a volatile sum per value made priming three quarters of a default run's
 * time on a node whose h values reach 228 M integers). */
static void prime(struct smp_memory *mem, const struct smp_plan *p, const struct access *a, long hr,
                  long hw)
{
    if (a->mode != MODE_GOOD) return;
    unsigned sum = 0;
    const unsigned *g = mem->global;
    if (a->reads || a->writes) {
        for (long k = 0; a->reads && k < hr; k++)
            sum += g[a->reads[k]];
        for (long k = 0; a->writes && k < hw; k++)
            sum += g[a->writes[k]];
    } else {
        const unsigned *mine = g + (size_t)mem->me * (size_t)p->tmax;
        for (long k = 0, n = hr > hw ? hr : hw; k < n; k++)
            sum += mine[k];
    }
    volatile unsigned sink = sum; /* the reads must happen */
    (void)sink;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Repetitions of a superstep whose first one took longer than
 * smpcost.long_seconds (at most smpcost.reps). */
#define LONG_REPS 3

/* How often a superstep of `seconds` (copy-in plus copy-out) is repeated. */
int smp_reps_of(const struct smp_plan *p, double seconds)
{
    bool long_one = p->long_seconds > 0 && seconds > p->long_seconds;
    return long_one && p->reps > LONG_REPS ? LONG_REPS : p->reps;
}

/* Times one superstep: copy-in and copy-out, each closed by a barrier, as
 * rank 0 sees them; the median over repetitions on every rank.  `reps`
 * repetitions; a suite's superstep (`made` given) fewer where the first
 * shows a long one (smp_reps_of: rank 0's time decides, so that every rank
 * repeats alike), *made saying how many.  The patterns and the estimate
 * (made NULL) always make `reps`. */
static int run_superstep(struct smp_memory *mem, const struct smp_plan *p, const struct access *a,
                         long hr, long hw, int reps, double *seconds, int *made)
{
    double t[64];
    reps = reps < 64 ? reps : 64;
    for (int r = 0; r < reps; r++) {
        prime(mem, p, a, hr, hw);
        CHECK(smp_fence(mem));
        double t0 = MPI_Wtime();
        copy_in(mem, p, a, hr);
        CHECK(smp_fence(mem));
        double t1 = MPI_Wtime();
        for (long k = 0; k < hr; k++) /* the local computation: not timed */
            mem->local[k] += 1;
        CHECK(smp_fence(mem));
        double t2 = MPI_Wtime();
        copy_out(mem, p, a, hw);
        CHECK(smp_fence(mem));
        t[r] = (t1 - t0) + (MPI_Wtime() - t2);
        if (r == 0 && reps > 1 && made) {
            int fewer = smp_reps_of(p, t[0]);
            CHECK_MPI(MPI_Bcast(&fewer, 1, MPI_INT, 0, mem->comm));
            reps = fewer < reps ? fewer : reps;
        }
    }
    qsort(t, (size_t)reps, sizeof *t, compare_double);
    double median = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    CHECK_MPI(MPI_Bcast(&median, 1, MPI_DOUBLE, 0, mem->comm));
    *seconds = median;
    if (made) *made = reps;
    return SB_OK;
}

static long max_count(const long *v, int n)
{
    long m = 0;
    for (int i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* Whether the bad-mode array holds superstep s (the good mode holds all). */
static bool bad_mode_holds(const struct smp_plan *p, const struct superstep *s)
{
    return max_count(s->hr, s->p) <= p->bad_max && max_count(s->hw, s->p) <= p->bad_max;
}

/* The supersteps of the three suites, suite after suite (*n of them). */
struct superstep *smp_suites_build(const struct smp_plan *p, int *n)
{
    long hs[64];
    int nh = smp_h_values(p->cache_ints, p->per_set, hs);
    int per_suite = suite_size(p->p, nh);
    struct superstep *steps = sb_malloc(3 * (size_t)per_suite * sizeof *steps, "supersteps");
    *n = 0;
    for (int suite = 1; suite <= 3; suite++)
        *n += suite_build(suite, p->p, hs, nh, p->tmax, p->seed, steps + *n, per_suite);
    return steps;
}

/* The suites' time in one mode, from its cost per access: each
 * superstep's accesses by its busiest worker, times its repetitions
 * (smp_reps_of, the copies a share of the whole); the bad mode only where its
 * array holds the superstep. */
static double suites_time(const struct smp_plan *p, const struct superstep *steps, int n,
                          enum smp_mode mode, double whole, double copies)
{
    double seconds = 0.0;
    for (int i = 0; i < n; i++) {
        if (mode == MODE_BAD && !bad_mode_holds(p, &steps[i])) continue;
        double accesses =
            (double)(max_count(steps[i].hr, steps[i].p) + max_count(steps[i].hw, steps[i].p));
        seconds += smp_reps_of(p, copies * accesses) * whole * accesses;
    }
    return seconds;
}

/* The suites' time on this node, before they run: one superstep in each
 * mode with every worker at the largest h the mode takes (most of the
 * suites' accesses are in their largest supersteps), timed whole (priming,
 * copies, local computation, barriers), scaled by the suites' accesses.
 * Every rank gets rank 0's figure. */
int smp_estimate_suites(struct smp_memory *mem, const struct smp_plan *p,
                        const struct superstep *steps, int n, double *seconds)
{
    *seconds = 0.0;
    for (int mode = 0; mode < NMODES; mode++) {
        struct access a = {(enum smp_mode)mode, NULL, NULL};
        long h = mode == MODE_BAD ? p->bad_max : p->tmax; /* smp_plan_read: bad_max <= tmax */
        if (h <= 0 || suites_time(p, steps, n, (enum smp_mode)mode, 1.0, 0.0) <= 0) continue;
        double copies;
        CHECK(smp_fence(mem));
        double t0 = MPI_Wtime();
        CHECK(run_superstep(mem, p, &a, h, h, 1, &copies, NULL));
        double whole = (MPI_Wtime() - t0) / (2.0 * (double)h);
        *seconds += suites_time(p, steps, n, (enum smp_mode)mode, whole, copies / (2.0 * h));
    }
    CHECK_MPI(MPI_Bcast(seconds, 1, MPI_DOUBLE, 0, mem->comm));
    return SB_OK;
}

/* Every superstep of the suites in both modes, until smpcost.max_seconds. */
int smp_measure_suites(struct smp_memory *mem, const struct smp_plan *p,
                       const struct superstep *steps, int n, struct smp_results *r)
{
    r->samples = sb_malloc((size_t)(n * NMODES) * sizeof *r->samples, "samples");
    double start = MPI_Wtime();
    int total = n * NMODES, done = 0;
    for (int i = 0; i < n; i++)
        for (int mode = 0; mode < NMODES; mode++, done++) {
            const struct superstep *s = &steps[i];
            long hr = s->hr[mem->me], hw = s->hw[mem->me];
            bool fits = mode == MODE_GOOD || bad_mode_holds(p, s);
            int stop = MPI_Wtime() - start > p->max_seconds;
            CHECK_MPI(MPI_Bcast(&stop, 1, MPI_INT, 0, mem->comm));
            if (!fits || stop) {
                r->skipped++;
                continue;
            }
            log_progress(done, total, "supersteps", "smpcost");
            struct access a = {(enum smp_mode)mode, NULL, NULL};
            struct smp_sample *x = &r->samples[r->nsamples++];
            x->s = *s;
            x->mode = (enum smp_mode)mode;
            x->f = smp_features_of(s, p->cache_ints);
            CHECK(run_superstep(mem, p, &a, hr, hw, p->reps, &x->seconds, &x->reps));
        }
    log_progress_done();
    return SB_OK;
}

int smp_measure_patterns(struct smp_memory *mem, const struct smp_plan *p, struct smp_results *r)
{
    for (int pat = 0; pat < NPATTERNS; pat++) {
        long n = smp_pattern_count((enum smp_pattern)pat, p->tmax, p->pattern_ints);
        size_t *reads = sb_malloc((size_t)n * sizeof *reads + 1, "read indices");
        size_t *writes = sb_malloc((size_t)n * sizeof *writes + 1, "write indices");
        smp_pattern_indices((enum smp_pattern)pat, mem->me, p->p, p->tmax, n, reads, writes);
        /* Warm, like data a real exchange has just touched. */
        struct access a = {MODE_GOOD, reads, writes};
        CHECK(run_superstep(mem, p, &a, n, n, p->reps, &r->pattern_seconds[pat], NULL));
        free(reads);
        free(writes);
        r->pattern_count[pat] = n;
        r->pattern_good[pat] =
            smp_family_predict(r, MODE_GOOD, n, (double)n, (double)n, 2.0 * n * p->p);
        r->pattern_bad[pat] =
            smp_family_predict(r, MODE_BAD, n, (double)n, (double)n, 2.0 * n * p->p);
    }
    return SB_OK;
}

int smp_measure_apps(struct smp_memory *mem, const struct smp_plan *p, struct smp_results *r)
{
    long ns[64];
    int nn = smp_app_sizes(p->p, p->per_set, (double)p->cache_ints / 524288.0, ns);
    return smp_apps_measure(mem, p->p, p->apps, ns, nn, p->seed, MPI_Wtime() + p->max_seconds,
                            &r->apps);
}
