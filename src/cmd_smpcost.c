/* shiftbox smpcost: what copies through shared memory cost on this node,
 * measured and modelled the way of seed 003 (sec. 3-5).
 *
 * The ranks are the workers: they share one array from
 * MPI_Win_allocate_shared and run supersteps of copy-in, local computation
 * and copy-out separated by barriers.  Good mode: worker i touches its own
 * contiguous run, caches primed; bad mode: worker i touches integer i of
 * consecutive cache lines, so every line is shared by all workers.  Three
 * suites (sec. 4.1) are timed in both modes; the cost functions of sec. 4.2
 * are fitted on one suite and validated on the other two; the good and bad
 * predictions bound any superstep (sec. 5), and ShiftBox's own copy
 * patterns are placed inside that interval. */
#include "command.h"
#include "cpu_cache.h"
#include "log.h"
#include "report.h"
#include "smp/apps_run.h"
#include "smp/fit.h"
#include "smp/locality.h"
#include "smp/shared.h"
#include "vectorize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum smp_mode { MODE_GOOD, MODE_BAD, NMODES };
static const char *const mode_names[NMODES] = {"good", "bad"};

/* The average validation error of HrHwM-c (good) and HrHwM (bad) aimed at
 * (issue 18; the paper reports 1.4-6.9 % for p = 2-12, Tables 5-8). */
static const double ACCURACY_TARGET = 0.10;

/* Which suite each family is fitted on (sec. 4.2.1 and 4.2.2); the other
 * two validate. */
static const int fit_suite[NMODES] = {1, 2};
enum { FAMILY_FUNCTIONS = 5 };
static const enum smp_function family_functions[NMODES][FAMILY_FUNCTIONS] = {
    {FN_H, FN_HM, FN_HRHW, FN_HRHWM, FN_HRHWMC},
    {FN_H, FN_HM, FN_HRHW, FN_HRHWM, FN_HRHWMC},
};

/* smp.fit: seed 003's own method, or the split searched in the data. */
enum smp_fit_method { FIT_PAPER, FIT_SEARCHED, NFITS };
static const char *const fit_names[NFITS] = {"paper", "searched"};

struct smp_plan {
    enum smp_fit_method fit; /* the one whose best functions predict (patterns, model.smp) */
    int p;
    int reps, per_set;
    double long_seconds; /* a superstep longer than this: LONG_REPS repetitions */
    long line_ints;      /* t_line: integers in a cache line */
    long cache_ints;     /* a worker's share of the last-level cache, in integers */
    long tmax;           /* integers in each worker's good-mode run */
    long bad_max;        /* largest h the bad-mode array holds */
    long pattern_ints;
    double max_seconds;
    uint64_t seed;
    char cache_source[128];
    bool apps[NAPPS]; /* smp.apps */
    bool any_app;
};

/* One timed superstep. */
struct smp_sample {
    struct superstep s;
    enum smp_mode mode;
    struct smp_features f;
    double seconds; /* median over repetitions: copy-in + copy-out */
    int reps;       /* its repetitions (reps_of) */
};

/* A function fitted to one family.  With smp.fit = paper the good family's
 * supersteps are two sets, R0 (h <= split) and R1 (h > split), each with
 * its own coefficients (seed 003 sec. 4.2.1). */
struct smp_fitted {
    double coef[SMP_MAX_TERMS];    /* all supersteps, or R0's */
    double coef_r1[SMP_MAX_TERMS]; /* R1's when `sets` */
    bool sets;
    long split; /* HrHwM-c: accesses counted as "in cache" (hrc, hwc); the R0/R1 boundary */
    bool ok;
    double avg, max;               /* relative errors on the validation suites */
    double set_avg[2], set_max[2]; /* the same per set (R0, R1) */
    int set_n[2];                  /* validation supersteps per set */
};

struct smp_results {
    struct smp_sample *samples;
    int nsamples, skipped;
    struct smp_fitted fit[NFITS][NMODES][NFUNCTIONS];
    enum smp_function best[NFITS][NMODES];
    enum smp_fit_method use; /* smp.fit */
    double pattern_seconds[NPATTERNS], pattern_good[NPATTERNS], pattern_bad[NPATTERNS];
    long pattern_count[NPATTERNS];
    struct smp_app_runs apps;
};

/* Whether ShiftBox's copy patterns find room for at least one copy each in
 * a worker's region of `tmax` integers (measure_patterns). */
static bool patterns_fit(long tmax)
{
    for (int pat = 0; pat < NPATTERNS; pat++)
        if (smp_pattern_count((enum smp_pattern)pat, tmax, 1) < 1) return false;
    return true;
}

static int read_plan(struct smp_plan *p, const struct config *c, int nranks, struct sb_msg *m)
{
    memset(p, 0, sizeof *p);
    p->p = nranks;
    if (nranks > SMP_MAX_WORKERS)
        return sb_fail(m, SB_EUSAGE, "smpcost: %d ranks; accepted: at most %d workers", nranks,
                       SMP_MAX_WORKERS);
    p->fit = strcmp(cfg_text(c, "smp.fit"), "paper") ? FIT_SEARCHED : FIT_PAPER;
    char app[32];
    for (int i = 0; cfg_choice_item(c, "smp.apps", i, app, sizeof app); i++)
        for (int a = 0; a < NAPPS; a++)
            if (!strcmp(app, smp_app_names[a])) p->apps[a] = p->any_app = true;
    p->reps = (int)cfg_int(c, "smpcost.reps");
    p->long_seconds = cfg_real(c, "smpcost.long_seconds");
    p->per_set = (int)cfg_int(c, "smpcost.per_set");
    p->pattern_ints = (long)cfg_int(c, "smpcost.pattern_ints");
    p->max_seconds = cfg_real(c, "smpcost.max_seconds");
    p->seed = (uint64_t)cfg_int(c, "run.seed");
    struct cpu_caches caches;
    cpu_caches_read(&caches);
    long line = caches.line, llc = caches.llc;
    int level = caches.llc_level;
    if (cfg_int(c, "smpcost.line_bytes") > 0) line = (long)cfg_int(c, "smpcost.line_bytes");
    if (line <= 0)
        return sb_fail(m, SB_EUSAGE,
                       "smpcost.line_bytes: the cache-line size cannot be read from sysfs; "
                       "accepted: set it (e.g. 64)");
    snprintf(p->cache_source, sizeof p->cache_source, "L%d of %ld bytes (%s)", abs(level), llc,
             level < 0 ? "sysconf" : "sysfs");
    if (cfg_int(c, "smpcost.cache_bytes") > 0) {
        llc = (long)cfg_int(c, "smpcost.cache_bytes");
        snprintf(p->cache_source, sizeof p->cache_source, "%ld bytes (smpcost.cache_bytes)", llc);
    }
    if (llc <= 0)
        return sb_fail(
            m, SB_EUSAGE,
            "smpcost.cache_bytes: the last-level cache cannot be read from sysfs or sysconf; "
            "accepted: set it in bytes");
    p->line_ints = line / (long)sizeof(int);
    if (p->line_ints < 1) p->line_ints = 1;
    p->cache_ints = llc / (long)sizeof(int) / nranks;
    long hs[64];
    int nh = smp_h_values(p->cache_ints, p->per_set, hs);
    p->tmax = hs[nh - 1];
    if (!patterns_fit(p->tmax)) {
        long need = p->cache_ints; /* the smallest cache share whose largest h fits them */
        while (!patterns_fit(hs[smp_h_values(need, p->per_set, hs) - 1]))
            need++;
        return sb_fail(m, SB_EUSAGE,
                       "smpcost.cache_bytes: %s gives each of the %d workers %ld integers, too "
                       "few for ShiftBox's copy patterns; accepted: a cache of at least %ld bytes",
                       p->cache_source, nranks, p->cache_ints, need * (long)sizeof(int) * nranks);
    }
    p->bad_max = (long)cfg_int(c, "smpcost.bad_bytes") / line;
    if (p->bad_max > p->tmax) p->bad_max = p->tmax;
    return SB_OK;
}

/* ---- the shared array ------------------------------------------------------------ */

static int memory_init(struct smp_memory *mem, const struct smp_plan *p, MPI_Comm world,
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

static void memory_free(struct smp_memory *mem)
{
    if (mem->win != MPI_WIN_NULL && mem->global) {
        MPI_Win_unlock_all(mem->win);
        MPI_Win_free(&mem->win);
    }
    if (mem->comm != MPI_COMM_NULL && mem->comm) MPI_Comm_free(&mem->comm);
    free(mem->local);
}

/* ---- supersteps ------------------------------------------------------------ */

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
static int reps_of(const struct smp_plan *p, double seconds)
{
    bool long_one = p->long_seconds > 0 && seconds > p->long_seconds;
    return long_one && p->reps > LONG_REPS ? LONG_REPS : p->reps;
}

/* Times one superstep: copy-in and copy-out, each closed by a barrier, as
 * rank 0 sees them; the median over repetitions on every rank.  `reps`
 * repetitions; a suite's superstep (`made` given) fewer where the first
 * shows a long one (reps_of: rank 0's time decides, so that every rank
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
            int fewer = reps_of(p, t[0]);
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
static struct superstep *suites_build(const struct smp_plan *p, int *n)
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
 * (reps_of, the copies a share of the whole); the bad mode only where its
 * array holds the superstep. */
static double suites_time(const struct smp_plan *p, const struct superstep *steps, int n,
                          enum smp_mode mode, double whole, double copies)
{
    double seconds = 0.0;
    for (int i = 0; i < n; i++) {
        if (mode == MODE_BAD && !bad_mode_holds(p, &steps[i])) continue;
        double accesses =
            (double)(max_count(steps[i].hr, steps[i].p) + max_count(steps[i].hw, steps[i].p));
        seconds += reps_of(p, copies * accesses) * whole * accesses;
    }
    return seconds;
}

/* The suites' time on this node, before they run: one superstep in each
 * mode with every worker at the largest h the mode takes (most of the
 * suites' accesses are in their largest supersteps), timed whole (priming,
 * copies, local computation, barriers), scaled by the suites' accesses.
 * Every rank gets rank 0's figure. */
static int estimate_suites(struct smp_memory *mem, const struct smp_plan *p,
                           const struct superstep *steps, int n, double *seconds)
{
    *seconds = 0.0;
    for (int mode = 0; mode < NMODES; mode++) {
        struct access a = {(enum smp_mode)mode, NULL, NULL};
        long h = mode == MODE_BAD ? p->bad_max : p->tmax; /* read_plan: bad_max <= tmax */
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
static int measure_suites(struct smp_memory *mem, const struct smp_plan *p,
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

/* ---- fits ------------------------------------------------------------ */

/* Which set a superstep of parameter h belongs to: 0 (R0) or 1 (R1). */
static int set_of(const struct smp_fitted *x, long h)
{
    return x->sets && h > x->split;
}

/* The fitted function's prediction for counts hr, hw, M of a superstep of
 * parameter h. */
static double fitted_predict(enum smp_function fn, const struct smp_fitted *x, long h, double hr,
                             double hw, double M)
{
    struct smp_features f = smp_features_counts(hr, hw, M, x->split);
    return smp_predict(fn, set_of(x, h) ? x->coef_r1 : x->coef, &f);
}

/* The samples of one family, fitting (suite == fit) or validating, with
 * the cache split at `split` accesses; set -1: all, 0: h <= split (R0),
 * 1: h > split (R1). */
static int select_samples(const struct smp_results *r, enum smp_mode mode, int suite, bool equal,
                          long split, int set, struct smp_features *f, double *t)
{
    int n = 0;
    for (int i = 0; i < r->nsamples; i++) {
        const struct smp_sample *x = &r->samples[i];
        if (x->mode != mode || (x->s.suite == suite) != equal) continue;
        if (set >= 0 && (x->s.h > split) != (set == 1)) continue;
        f[n] = smp_features_counts(x->f.hr, x->f.hw, x->f.M, split);
        t[n++] = x->seconds;
    }
    return n;
}

/* smp.fit = searched: fits fn on the family's fitting suite by relative
 * least squares, HrHwM-c's split between cache and memory accesses found
 * in the data as the eager limit of the Hockney fit is: each h of the
 * suite (and the cache share) is tried, and the one whose fit leaves the
 * least squared relative residual on the fitting suite is kept. */
static void fit_searched(const struct smp_plan *p, const struct smp_results *r, enum smp_mode mode,
                         enum smp_function fn, struct smp_features *f, double *t,
                         struct smp_fitted *out)
{
    long candidates[64 * 4 + 1];
    int nc = 0;
    candidates[nc++] = p->cache_ints;
    if (fn == FN_HRHWMC) {
        long hs[64];
        int nh = smp_h_values(p->cache_ints, p->per_set, hs);
        for (int i = 0; i < nh && nc < 64 * 4; i++)
            candidates[nc++] = hs[i];
    }
    double best = INFINITY;
    out->ok = false;
    for (int c = 0; c < nc; c++) {
        double coef[SMP_MAX_TERMS];
        int n = select_samples(r, mode, fit_suite[mode], true, candidates[c], -1, f, t);
        if (smp_fit(fn, f, t, n, true, coef) != 0) continue;
        double sse = 0;
        for (int i = 0; i < n; i++) {
            double e = (smp_predict(fn, coef, &f[i]) - t[i]) / t[i];
            sse += e * e;
        }
        if (sse < best) {
            best = sse;
            out->ok = true;
            out->split = candidates[c];
            memcpy(out->coef, coef, sizeof coef);
        }
    }
}

/* smp.fit = paper (seed 003 sec. 4.2): plain least squares on the fitting
 * suite; the good family in two sets split at this machine's cache share
 * per worker (R0: h <= cache_ints, whose accesses all stay in cache, as
 * the paper's h <= 2^19 integers did in the SGI's 2 MB L2), each fitted
 * apart; HrHwM-c counts accesses beyond that share as memory accesses. */
static void fit_paper(const struct smp_plan *p, const struct smp_results *r, enum smp_mode mode,
                      enum smp_function fn, struct smp_features *f, double *t,
                      struct smp_fitted *out)
{
    out->split = p->cache_ints;
    out->sets = mode == MODE_GOOD;
    out->ok = true;
    for (int set = 0; set < (out->sets ? 2 : 1); set++) {
        int n =
            select_samples(r, mode, fit_suite[mode], true, out->split, out->sets ? set : -1, f, t);
        if (smp_fit(fn, f, t, n, false, set ? out->coef_r1 : out->coef) != 0) out->ok = false;
    }
}

/* Errors on the validation suites, in all and per set. */
static void validate(const struct smp_results *r, enum smp_mode mode, enum smp_function fn,
                     struct smp_fitted *x)
{
    double sum = 0, set_sum[2] = {0, 0};
    int n = 0;
    x->max = 0;
    for (int i = 0; i < r->nsamples; i++) {
        const struct smp_sample *y = &r->samples[i];
        if (y->mode != mode || y->s.suite == fit_suite[mode]) continue;
        double e =
            fabs(fitted_predict(fn, x, y->s.h, y->f.hr, y->f.hw, y->f.M) - y->seconds) / y->seconds;
        int set = y->s.h > x->split;
        sum += e;
        n++;
        x->max = fmax(x->max, e);
        set_sum[set] += e;
        x->set_n[set]++;
        x->set_max[set] = fmax(x->set_max[set], e);
    }
    x->ok = x->ok && n > 0;
    x->avg = n ? sum / n : 0;
    for (int set = 0; set < 2; set++)
        x->set_avg[set] = x->set_n[set] ? set_sum[set] / x->set_n[set] : 0;
}

static void fit_families(const struct smp_plan *p, struct smp_results *r)
{
    struct smp_features *f = sb_malloc((size_t)(r->nsamples + 1) * sizeof *f, "features");
    double *t = sb_malloc((size_t)(r->nsamples + 1) * sizeof *t, "times");
    r->use = p->fit;
    for (int method = 0; method < NFITS; method++)
        for (int mode = 0; mode < NMODES; mode++) {
            double best = INFINITY;
            r->best[method][mode] = family_functions[mode][0];
            for (int j = 0; j < FAMILY_FUNCTIONS; j++) {
                enum smp_function fn = family_functions[mode][j];
                struct smp_fitted *out = &r->fit[method][mode][fn];
                if (method == FIT_PAPER)
                    fit_paper(p, r, (enum smp_mode)mode, fn, f, t, out);
                else
                    fit_searched(p, r, (enum smp_mode)mode, fn, f, t, out);
                validate(r, (enum smp_mode)mode, fn, out);
                if (out->ok && out->avg < best) {
                    best = out->avg;
                    r->best[method][mode] = fn;
                }
            }
        }
    free(f);
    free(t);
}

/* The chosen fit's best function of a family at counts of n integers. */
static double family_predict(const struct smp_results *r, enum smp_mode mode, long n, double hr,
                             double hw, double M)
{
    enum smp_function fn = r->best[r->use][mode];
    return fitted_predict(fn, &r->fit[r->use][mode][fn], n, hr, hw, M);
}

/* ---- ShiftBox's own patterns ------------------------------------------------------ */

static int measure_patterns(struct smp_memory *mem, const struct smp_plan *p, struct smp_results *r)
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
            family_predict(r, MODE_GOOD, n, (double)n, (double)n, 2.0 * n * p->p);
        r->pattern_bad[pat] = family_predict(r, MODE_BAD, n, (double)n, (double)n, 2.0 * n * p->p);
    }
    return SB_OK;
}

/* ---- seed 003's applications (smp.apps) ---------------------------------------------- */

/* Good: the good family's HrHwM-c; Bad: the bad family's HrHwM (seed 003
 * Tables 9-11), both of the predicting fit. */
static void predict_app(const void *ctx, double hr, double hw, double M, double *good, double *bad)
{
    const struct smp_results *r = ctx;
    long h = (long)(hr > hw ? hr : hw);
    *good = fitted_predict(FN_HRHWMC, &r->fit[r->use][MODE_GOOD][FN_HRHWMC], h, hr, hw, M);
    *bad = fitted_predict(FN_HRHWM, &r->fit[r->use][MODE_BAD][FN_HRHWM], h, hr, hw, M);
}

static int measure_apps(struct smp_memory *mem, const struct smp_plan *p, struct smp_results *r)
{
    long ns[64];
    int nn = smp_app_sizes(p->p, p->per_set, (double)p->cache_ints / 524288.0, ns);
    return smp_apps_measure(mem, p->p, p->apps, ns, nn, p->seed, MPI_Wtime() + p->max_seconds,
                            &r->apps);
}

/* Where t lies between the good (0) and the bad (1) prediction. */
static double locality_score(double t, double good, double bad)
{
    return bad > good ? (t - good) / (bad - good) : NAN;
}

/* ---- output ------------------------------------------------------------ */

/* "L=... g_h=..." of one coefficient set, L in us and g in ns per access. */
static void format_terms(enum smp_function fn, const double *coef, char *text, size_t size)
{
    size_t len = 0;
    double row[SMP_MAX_TERMS];
    struct smp_features zero = {0};
    int m = smp_terms(fn, &zero, row);
    text[0] = '\0';
    for (int t = 0; t < m && len < size; t++)
        len += (size_t)snprintf(text + len, size - len, "%s=%.4g ", smp_term_name(fn, t),
                                coef[t] * (t == 0 ? 1e6 : 1e9));
}

static void print_fits(const struct smp_results *r, enum smp_fit_method method)
{
    log_info("\nsmp.fit = %s%s", fit_names[method],
             method == FIT_PAPER ? ": plain least squares, the good family's R0 (h <= the cache "
                                   "share) and R1 fitted apart (seed 003 sec. 4.2)"
                                 : ": relative least squares, HrHwM-c's cache split searched in "
                                   "the data");
    for (int mode = 0; mode < NMODES; mode++) {
        log_info("%s family: fitted on suite %d, validated on the other two (seed 003 "
                 "Tables %s)",
                 mode_names[mode], fit_suite[mode], mode == MODE_GOOD ? "1, 5, 6" : "3, 7, 8");
        log_info("  %-8s %9s %9s  coefficients (L in us, g in ns per access)", "function",
                 "avg err", "max err");
        for (int j = 0; j < FAMILY_FUNCTIONS; j++) {
            enum smp_function fn = family_functions[mode][j];
            const struct smp_fitted *x = &r->fit[method][mode][fn];
            if (!x->ok) {
                log_info("  %-8s  (too few samples to fit)", smp_function_names[fn]);
                continue;
            }
            char terms[256], split[64] = "";
            format_terms(fn, x->coef, terms, sizeof terms);
            if (fn == FN_HRHWMC || x->sets) snprintf(split, sizeof split, "split=%ld ", x->split);
            log_info("  %-8s %8.1f%% %8.1f%%  %s%s%s%s", smp_function_names[fn], 100 * x->avg,
                     100 * x->max, x->sets ? "R0: " : "", terms, split,
                     fn == r->best[method][mode] ? " <- best" : "");
            if (!x->sets) continue;
            format_terms(fn, x->coef_r1, terms, sizeof terms);
            log_info("  %-8s %9s %9s  R1: %s", "", "", "", terms);
            for (int set = 0; set < 2; set++)
                log_info("  %-8s %8.1f%% %8.1f%%  R%d alone (%d supersteps)", "",
                         100 * x->set_avg[set], 100 * x->set_max[set], set, x->set_n[set]);
        }
    }
}

static void print_patterns(const struct smp_results *r)
{
    log_info("\nShiftBox's copy patterns inside the prediction interval (seed 003 sec. 5; "
             "score 0 = good prediction, 1 = bad):");
    log_info("  %-13s %10s %11s %11s %11s %7s", "pattern", "ints", "measured", "good", "bad",
             "score");
    for (int pat = 0; pat < NPATTERNS; pat++)
        log_info(
            "  %-13s %10ld %9.1fus %9.1fus %9.1fus %7.2f", smp_pattern_names[pat],
            r->pattern_count[pat], 1e6 * r->pattern_seconds[pat], 1e6 * r->pattern_good[pat],
            1e6 * r->pattern_bad[pat],
            locality_score(r->pattern_seconds[pat], r->pattern_good[pat], r->pattern_bad[pat]));
}

static cJSON *coefficients_json(enum smp_function fn, const double *coef)
{
    cJSON *c = cJSON_CreateObject();
    double row[SMP_MAX_TERMS];
    struct smp_features zero = {0};
    int m = smp_terms(fn, &zero, row);
    for (int t = 0; t < m; t++)
        cJSON_AddNumberToObject(c, smp_term_name(fn, t), coef[t]);
    return c;
}

static cJSON *fitted_json(enum smp_function fn, const struct smp_fitted *x)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "function", smp_function_names[fn]);
    cJSON_AddBoolToObject(o, "fitted", x->ok);
    cJSON_AddItemToObject(o, "coefficients_s", coefficients_json(fn, x->coef));
    if (fn == FN_HRHWMC) cJSON_AddNumberToObject(o, "split_ints", (double)x->split);
    if (x->sets) { /* coefficients_s are R0's (h <= r0_max_h); R1's beside them */
        cJSON_AddNumberToObject(o, "r0_max_h", (double)x->split);
        cJSON_AddItemToObject(o, "r1_coefficients_s", coefficients_json(fn, x->coef_r1));
        cJSON *sets = cJSON_AddArrayToObject(o, "sets");
        for (int set = 0; set < 2; set++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "set", set ? "R1" : "R0");
            cJSON_AddNumberToObject(e, "validation_supersteps", x->set_n[set]);
            cJSON_AddNumberToObject(e, "average_relative_error", x->set_avg[set]);
            cJSON_AddNumberToObject(e, "maximum_relative_error", x->set_max[set]);
            cJSON_AddItemToArray(sets, e);
        }
    }
    cJSON_AddNumberToObject(o, "average_relative_error", x->avg);
    cJSON_AddNumberToObject(o, "maximum_relative_error", x->max);
    return o;
}

/* The families' fits of one method: {good: {fit_suite, best, functions}, bad: ...}. */
static void add_families(cJSON *to, const struct smp_results *r, enum smp_fit_method method)
{
    for (int mode = 0; mode < NMODES; mode++) {
        cJSON *fam = cJSON_AddObjectToObject(to, mode_names[mode]);
        cJSON_AddNumberToObject(fam, "fit_suite", fit_suite[mode]);
        cJSON_AddStringToObject(fam, "best", smp_function_names[r->best[method][mode]]);
        cJSON *list = cJSON_AddArrayToObject(fam, "functions");
        for (int j = 0; j < FAMILY_FUNCTIONS; j++) {
            enum smp_function fn = family_functions[mode][j];
            cJSON_AddItemToArray(list, fitted_json(fn, &r->fit[method][mode][fn]));
        }
    }
}

static int write_outputs(const struct run_ctx *ctx, const struct smp_plan *p,
                         const struct smp_results *r)
{
    cJSON *root = report_summary_begin("smpcost", ctx->cfg, ctx->cmd->sections, ctx->nranks,
                                       &ctx->timer, &ctx->placement);
    cJSON *res = cJSON_AddObjectToObject(root, "smpcost");
    cJSON_AddNumberToObject(res, "workers", p->p);
    cJSON_AddNumberToObject(res, "line_ints", (double)p->line_ints);
    cJSON_AddNumberToObject(res, "cache_ints", (double)p->cache_ints);
    cJSON_AddStringToObject(res, "cache", p->cache_source);
    cJSON_AddNumberToObject(res, "samples", r->nsamples);
    cJSON_AddNumberToObject(res, "skipped", r->skipped);
    cJSON_AddStringToObject(res, "fit", fit_names[r->use]);
    add_families(res, r, r->use); /* the fit that predicts; the other beside it */
    cJSON *other = cJSON_AddObjectToObject(res, "other_fit");
    cJSON_AddStringToObject(other, "fit", fit_names[!r->use]);
    add_families(other, r, (enum smp_fit_method) !r->use);
    cJSON *acc = cJSON_AddObjectToObject(res, "accuracy");
    cJSON_AddNumberToObject(acc, "target", ACCURACY_TARGET);
    cJSON_AddNumberToObject(acc, "good_HrHwM-c_average", r->fit[r->use][MODE_GOOD][FN_HRHWMC].avg);
    cJSON_AddNumberToObject(acc, "bad_HrHwM_average", r->fit[r->use][MODE_BAD][FN_HRHWM].avg);
    if (p->any_app) cJSON_AddItemToObject(res, "apps", smp_apps_json(&r->apps));
    cJSON *pats = cJSON_AddArrayToObject(res, "patterns");
    for (int pat = 0; pat < NPATTERNS; pat++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "pattern", smp_pattern_names[pat]);
        cJSON_AddNumberToObject(o, "ints", (double)r->pattern_count[pat]);
        cJSON_AddNumberToObject(o, "measured_s", r->pattern_seconds[pat]);
        cJSON_AddNumberToObject(o, "good_s", r->pattern_good[pat]);
        cJSON_AddNumberToObject(o, "bad_s", r->pattern_bad[pat]);
        cJSON_AddNumberToObject(
            o, "score",
            locality_score(r->pattern_seconds[pat], r->pattern_good[pat], r->pattern_bad[pat]));
        cJSON_AddItemToArray(pats, o);
    }
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));

    struct report_text csv;
    CHECK(report_text_open(&csv));
    fprintf(csv.f, "suite,mode,kind,x,h,hr,hw,M,hrc,hrm,hwc,hwm,measured_s,reps");
    for (int fn = 0; fn < NFUNCTIONS; fn++)
        fprintf(csv.f, ",%s", smp_function_names[fn]);
    fprintf(csv.f, "\n");
    for (int i = 0; i < r->nsamples; i++) {
        const struct smp_sample *x = &r->samples[i];
        const struct smp_features *f = &x->f;
        fprintf(csv.f, "%d,%s,%s,%d,%ld,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.6g,%d", x->s.suite,
                mode_names[x->mode], smp_kind_names[x->s.kind], x->s.x, x->s.h, f->hr, f->hw, f->M,
                f->hrc, f->hrm, f->hwc, f->hwm, x->seconds, x->reps);
        for (int fn = 0; fn < NFUNCTIONS; fn++) {
            const struct smp_fitted *y = &r->fit[r->use][x->mode][fn];
            if (y->ok)
                fprintf(csv.f, ",%.6g",
                        fitted_predict((enum smp_function)fn, y, x->s.h, f->hr, f->hw, f->M));
            else
                fprintf(csv.f, ",");
        }
        fprintf(csv.f, "\n");
    }
    CHECK(report_text_commit(&csv, ctx->out_dir, "smpcost.csv"));
    if (!p->any_app) return SB_OK;
    struct report_text apps;
    CHECK(report_text_open(&apps));
    smp_apps_csv(&r->apps, apps.f);
    return report_text_commit(&apps, ctx->out_dir, "smpcost-apps.csv");
}

/* Seed 003's accuracy (Tables 5-8: HrHwM-c and HrHwM within 5-7 % on
 * average) against this machine's, for both fits. */
static void print_accuracy(const struct smp_results *r)
{
    for (int method = 0; method < NFITS; method++) {
        if (!r->fit[method][MODE_GOOD][FN_HRHWMC].ok || !r->fit[method][MODE_BAD][FN_HRHWM].ok) {
            log_info("accuracy (smp.fit = %s): HrHwM-c or HrHwM not fitted (too few supersteps, "
                     "or a term the supersteps cannot determine)",
                     fit_names[method]);
            continue;
        }
        double good = r->fit[method][MODE_GOOD][FN_HRHWMC].avg,
               bad = r->fit[method][MODE_BAD][FN_HRHWM].avg;
        log_info("accuracy (smp.fit = %s): HrHwM-c (good) average %.1f%%, HrHwM (bad) average "
                 "%.1f%% on the validation suites; target %.0f%%: %s%s",
                 fit_names[method], 100 * good, 100 * bad, 100 * ACCURACY_TARGET,
                 good <= ACCURACY_TARGET && bad <= ACCURACY_TARGET ? "met" : "missed",
                 method == (int)r->use ? "" : " (reported beside)");
    }
}

int cmd_smpcost(struct run_ctx *ctx)
{
    struct smp_plan p;
    struct sb_msg m = {""};
    struct smp_memory mem = {.comm = MPI_COMM_NULL, .win = MPI_WIN_NULL};
    struct smp_results r;
    memset(&r, 0, sizeof r);
    int rc = read_plan(&p, ctx->cfg, ctx->nranks, &m);
    if (rc == SB_OK) rc = memory_init(&mem, &p, ctx->world, &m);
    if (rc != SB_OK) {
        if (rc == SB_EUSAGE) log_error("%s", m.text);
        memory_free(&mem);
        return rc;
    }
    log_info("\nsmpcost: %d workers sharing one array; cache line %ld integers; %s, %ld "
             "integers per worker; h up to %ld (bad mode up to %ld); %d repetitions each, "
             "%d of a superstep over smpcost.long_seconds = %g s%s",
             p.p, p.line_ints, p.cache_source, p.cache_ints, p.tmax, p.bad_max, p.reps,
             reps_of(&p, HUGE_VAL), p.long_seconds, p.long_seconds > 0 ? "" : " (off)");
    double estimate = 0.0;
    int nsteps = 0;
    struct superstep *steps = suites_build(&p, &nsteps);
    rc = estimate_suites(&mem, &p, steps, nsteps, &estimate);
    if (rc == SB_OK && estimate > p.max_seconds) {
        /* long before the limit would stop it: say so now, with what helps */
        log_error("smpcost.max_seconds = %g: the suites would take about %.3g s on this node "
                  "(h up to %ld integers, scaled to the %s; estimated from one superstep of "
                  "each mode at the largest h); accepted: raise smpcost.max_seconds above "
                  "that, or lower smpcost.cache_bytes (the h values and the time scale with "
                  "it), smpcost.reps or smpcost.per_set",
                  p.max_seconds, estimate, p.tmax, p.cache_source);
        rc = SB_EUSAGE;
    } else if (rc == SB_OK) {
        log_info("the suites: about %.3g s here (estimated from one superstep of each mode at "
                 "the largest h; limit smpcost.max_seconds = %g)",
                 estimate, p.max_seconds);
        rc = measure_suites(&mem, &p, steps, nsteps, &r);
    }
    if (rc == SB_OK) {
        fit_families(&p, &r);
        rc = measure_patterns(&mem, &p, &r);
        if (rc == SB_OK && p.any_app) rc = measure_apps(&mem, &p, &r);
    }
    if (rc == SB_OK) {
        log_info("%d supersteps timed, %d skipped (beyond the bad-mode array or the time limit)",
                 r.nsamples, r.skipped);
        print_fits(&r, r.use);
        print_fits(&r, (enum smp_fit_method) !r.use);
        print_patterns(&r);
        if (p.any_app) smp_apps_report(&r.apps, predict_app, &r);
        const enum smp_function *best = r.best[r.use];
        const struct smp_fitted *good = &r.fit[r.use][MODE_GOOD][best[MODE_GOOD]],
                                *bad = &r.fit[r.use][MODE_BAD][best[MODE_BAD]];
        bool fitted = good->ok && bad->ok;
        if (fitted)
            log_info("\nbest: good family %s (average %.1f%%, maximum %.1f%%), bad family %s "
                     "(average %.1f%%, maximum %.1f%%) on the validation suites (smp.fit = %s)",
                     smp_function_names[best[MODE_GOOD]], 100 * good->avg, 100 * good->max,
                     smp_function_names[best[MODE_BAD]], 100 * bad->avg, 100 * bad->max,
                     fit_names[r.use]);
        print_accuracy(&r);
        if (!fitted) {
            log_error("smpcost: too few supersteps to fit both families (%d timed, %d skipped: "
                      "beyond the bad-mode array of smpcost.bad_bytes, or past "
                      "smpcost.max_seconds = %g); the h values scale with the cache (%s); "
                      "accepted: raise smpcost.bad_bytes or smpcost.max_seconds, or lower "
                      "smpcost.cache_bytes",
                      r.nsamples, r.skipped, p.max_seconds, p.cache_source);
            rc = SB_EVERIFY;
        }
        for (int app = 0; app < NAPPS; app++)
            if (r.apps.sorted[app] != r.apps.runs[app]) {
                log_error("smpcost: the %s sort left keys out of order or lost some in %d of %d "
                          "runs (smp.apps)",
                          smp_app_names[app], r.apps.runs[app] - r.apps.sorted[app],
                          r.apps.runs[app]);
                rc = SB_EVERIFY;
            }
        if (ctx->out_dir && ctx->rank == 0 && write_outputs(ctx, &p, &r) != SB_OK) rc = SB_ERUNTIME;
        if (ctx->out_dir && rc != SB_ERUNTIME)
            log_info("results: %s/summary.json, %s/smpcost.csv%s%s", ctx->out_dir, ctx->out_dir,
                     p.any_app ? ", " : "", p.any_app ? "smpcost-apps.csv" : "");
    }
    if (rc != SB_ERUNTIME) MPI_Bcast(&rc, 1, MPI_INT, 0, ctx->world);
    free(r.samples);
    free(steps);
    smp_apps_free(&r.apps);
    memory_free(&mem);
    return rc;
}
