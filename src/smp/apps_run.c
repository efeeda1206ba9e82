#include "apps_run.h"
#include "../log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int smp_app_sizes(int p, int per_set, double scale, long *out)
{
    int n = 0;
    for (int i = 1; i <= per_set; i++)
        out[n++] = (long)(scale * 5000.0 * p * 10.0 * i / per_set);
    for (int i = 1; i <= per_set; i++)
        out[n++] = (long)(scale * 50000.0 * p * 10.0 * i / per_set);
    for (int i = 0; i < per_set; i++)
        out[n++] =
            (long)(scale * (550000.0 + 150000.0 * p * 9.0 * i / (per_set > 1 ? per_set - 1 : 1)));
    int kept = 0; /* N0's last is N1's first: once */
    for (int i = 0; i < n; i++) {
        long v = out[i] < p ? p : out[i];
        bool seen = false;
        for (int j = 0; j < kept; j++)
            seen = seen || out[j] == v;
        if (!seen) out[kept++] = v;
    }
    return kept;
}

static void add_sample(struct smp_app_runs *r, const struct smp_app_sample *s)
{
    if (r->nsamples == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->samples = sb_realloc(r->samples, (size_t)r->cap * sizeof *r->samples, "app supersteps");
    }
    r->samples[r->nsamples++] = *s;
}

/* One superstep: copy-in, the local computation, copy-out, each closed by
 * a barrier; the copies timed as worker 0 sees them. */
static int run_step(struct smp_memory *mem, struct smp_app *a, struct smp_app_sample *s)
{
    const size_t *in, *out;
    s->row = smp_app_row(a);
    s->step = a->step;
    size_t nr = smp_app_reads(a, &in);
    CHECK(smp_fence(mem));
    double t0 = MPI_Wtime();
    for (size_t k = 0; k < nr; k++)
        mem->local[k] = mem->global[in[k]];
    CHECK(smp_fence(mem));
    double t1 = MPI_Wtime();
    size_t nw = smp_app_compute(a, mem->local, &out);
    CHECK(smp_fence(mem));
    double t2 = MPI_Wtime();
    for (size_t k = 0; k < nw; k++)
        mem->global[out[k]] = mem->local[k];
    CHECK(smp_fence(mem));
    double t = (t1 - t0) + (MPI_Wtime() - t2), most[2] = {(double)nr, (double)nw},
           total = (double)(nr + nw);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_DOUBLE, MPI_MAX, mem->comm));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, mem->comm));
    CHECK_MPI(MPI_Bcast(&t, 1, MPI_DOUBLE, 0, mem->comm));
    s->hr = most[0];
    s->hw = most[1];
    s->M = total;
    s->seconds = t;
    return SB_OK;
}

/* One sort of n keys; *sorted says whether it came out right. */
static int run_app(struct smp_memory *mem, int p, enum smp_app_kind app, long n, uint64_t seed,
                   struct smp_app_runs *runs, bool *sorted)
{
    struct smp_app a;
    int ok = smp_app_init(&a, app, n, mem->me, p, seed, mem->global);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, mem->comm));
    if (!ok) {
        smp_app_free(&a);
        log_rank_error("smpcost: no memory for the %s sort's indices", smp_app_names[app]);
        return SB_ERUNTIME;
    }
    int rc = SB_OK;
    for (int s = 0; rc == SB_OK && s < smp_app_steps(&a); s++) {
        struct smp_app_sample x = {.app = app, .n = n};
        rc = run_step(mem, &a, &x);
        if (rc == SB_OK) add_sample(runs, &x);
    }
    int good = rc == SB_OK && mem->me == 0
                   ? smp_app_sorted(mem->global + smp_app_result(&a), n, seed, p)
                   : 1;
    smp_app_free(&a);
    CHECK(rc);
    CHECK_MPI(MPI_Bcast(&good, 1, MPI_INT, 0, mem->comm));
    *sorted = good;
    return SB_OK;
}

int smp_apps_measure(struct smp_memory *mem, int p, const bool apps[NAPPS], const long *ns, int nn,
                     uint64_t seed, double deadline, struct smp_app_runs *runs)
{
    memset(runs, 0, sizeof *runs);
    for (int app = 0; app < NAPPS; app++) {
        if (!apps[app]) continue;
        for (int i = 0; i < nn; i++) {
            long n = smp_app_fit_n((enum smp_app_kind)app, ns[i], p);
            int late = MPI_Wtime() > deadline;
            CHECK_MPI(MPI_Bcast(&late, 1, MPI_INT, 0, mem->comm));
            if (late || smp_app_global_ints(app, n, p) > mem->global_ints ||
                smp_app_local_ints(app, n, p) > mem->local_ints) {
                runs->skipped[app]++;
                continue;
            }
            log_progress(i, nn, "sorts", "smpcost %s sort", smp_app_names[app]);
            bool sorted = false;
            CHECK(run_app(mem, p, (enum smp_app_kind)app, n, seed + (uint64_t)i, runs, &sorted));
            if (runs->runs[app]++ == 0) runs->first_n[app] = n;
            runs->last_n[app] = n;
            runs->sorted[app] += sorted;
        }
    }
    log_progress_done();
    return SB_OK;
}

/* Loc of seed 003 sec. 5.2. */
static double locality(const struct smp_app_sample *s)
{
    return s->bad > s->good ? 1.0 - (s->seconds - s->good) / (s->bad - s->good) : NAN;
}

static bool inside(const struct smp_app_sample *s)
{
    return s->seconds >= s->good && s->seconds <= s->bad;
}

/* A table row's supersteps: how many, inside, mean Loc (over those whose
 * interval is not empty) and M/G, mean hr. */
struct row_summary {
    int count, inside, located;
    double loc, mg, hr;
};

static struct row_summary summarise(const struct smp_app_runs *r, int app, int row)
{
    struct row_summary x = {0};
    int mg = 0;
    for (int i = 0; i < r->nsamples; i++) {
        const struct smp_app_sample *s = &r->samples[i];
        if ((int)s->app != app || s->row != row) continue;
        x.count++;
        x.inside += inside(s);
        double loc = locality(s);
        if (isfinite(loc)) {
            x.loc += loc;
            x.located++;
        }
        x.hr += s->hr;
        if (s->good > 0) {
            x.mg += s->seconds / s->good;
            mg++;
        }
    }
    if (x.count) x.hr /= x.count;
    x.loc = x.located ? x.loc / x.located : NAN;
    x.mg = mg ? x.mg / mg : NAN;
    return x;
}

/* Runs of an app whose summed copies lie inside the summed interval. */
static int runs_inside(const struct smp_app_runs *r, int app)
{
    int in = 0;
    for (int i = 0; i < r->nsamples;) {
        long n = r->samples[i].n;
        double t = 0, good = 0, bad = 0;
        int j = i;
        for (; j < r->nsamples && r->samples[j].n == n && (int)r->samples[j].app == app; j++) {
            t += r->samples[j].seconds;
            good += r->samples[j].good;
            bad += r->samples[j].bad;
        }
        if (j == i) {
            i++;
            continue;
        }
        in += t >= good && t <= bad;
        i = j;
    }
    return in;
}

/* M/G is given for the supersteps whose work grows with n (seed 003 gives
 * it for the "significant" ones only). */
static bool significant(const struct row_summary *x)
{
    return x->hr >= 1000;
}

void smp_apps_report(struct smp_app_runs *r, smp_predictor predict, const void *ctx)
{
    for (int i = 0; i < r->nsamples; i++) {
        struct smp_app_sample *s = &r->samples[i];
        predict(ctx, s->hr, s->hw, s->M, &s->good, &s->bad);
    }
    for (int app = 0; app < NAPPS; app++) {
        if (r->runs[app] == 0 && r->skipped[app] == 0) continue;
        log_info("\n%s sort (seed 003 sec. 5, Table %d in form): %d runs, n = %ld .. %ld (%d "
                 "skipped); Good = the good family's HrHwM-c, Bad = the bad family's HrHwM",
                 smp_app_names[app], 9 + app, r->runs[app], r->first_n[app], r->last_n[app],
                 r->skipped[app]);
        log_info("  %-3s %-12s %-26s %10s %8s %6s %6s", "SS#", "superstep", "hr, hw, M",
                 "supersteps", "inside", "Loc", "M/G");
        int empty = 0;
        for (int row = 0; row < smp_app_kinds((enum smp_app_kind)app); row++) {
            struct row_summary x = summarise(r, app, row);
            char mg[16] = "-", loc[16] = "-";
            if (significant(&x) && isfinite(x.mg)) snprintf(mg, sizeof mg, "%.2f", x.mg);
            if (isfinite(x.loc)) snprintf(loc, sizeof loc, "%.2f", x.loc);
            empty += x.count - x.located;
            log_info("  %-3d %-12s %-26s %10d %8d %6s %6s", row + 1,
                     smp_app_kind_name((enum smp_app_kind)app, row),
                     smp_app_kind_counts((enum smp_app_kind)app, row), x.count, x.inside, loc, mg);
        }
        if (empty)
            log_info("  (%d supersteps have no interval: the Bad prediction is not above the "
                     "Good one there; the fits were made on the suites' h and their constants "
                     "decide far below it; Loc is averaged over the others)",
                     empty);
        log_info("  keys sorted in %d of %d runs; each run's copies, summed, inside the summed "
                 "interval in %d of %d",
                 r->sorted[app], r->runs[app], runs_inside(r, app), r->runs[app]);
    }
}

cJSON *smp_apps_json(const struct smp_app_runs *r)
{
    cJSON *list = cJSON_CreateArray();
    for (int app = 0; app < NAPPS; app++) {
        if (r->runs[app] == 0 && r->skipped[app] == 0) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "app", smp_app_names[app]);
        cJSON_AddNumberToObject(o, "runs", r->runs[app]);
        cJSON_AddNumberToObject(o, "skipped", r->skipped[app]);
        cJSON_AddNumberToObject(o, "sorted_runs", r->sorted[app]);
        cJSON_AddNumberToObject(o, "runs_inside", runs_inside(r, app));
        cJSON *rows = cJSON_AddArrayToObject(o, "supersteps");
        for (int row = 0; row < smp_app_kinds((enum smp_app_kind)app); row++) {
            struct row_summary x = summarise(r, app, row);
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "number", row + 1);
            cJSON_AddStringToObject(e, "superstep", smp_app_kind_name((enum smp_app_kind)app, row));
            cJSON_AddStringToObject(e, "hr_hw_M", smp_app_kind_counts((enum smp_app_kind)app, row));
            cJSON_AddNumberToObject(e, "count", x.count);
            cJSON_AddNumberToObject(e, "inside", x.inside);
            if (isfinite(x.loc)) cJSON_AddNumberToObject(e, "loc", x.loc);
            if (significant(&x) && isfinite(x.mg)) cJSON_AddNumberToObject(e, "m_over_g", x.mg);
            cJSON_AddItemToArray(rows, e);
        }
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

void smp_apps_csv(const struct smp_app_runs *r, FILE *f)
{
    fprintf(f, "app,n,step,superstep,hr,hw,M,measured_s,good_s,bad_s,loc,inside\n");
    for (int i = 0; i < r->nsamples; i++) {
        const struct smp_app_sample *s = &r->samples[i];
        fprintf(f, "%s,%ld,%d,%s,%.0f,%.0f,%.0f,%.6g,%.6g,%.6g,%.4f,%d\n", smp_app_names[s->app],
                s->n, s->step, smp_app_kind_name(s->app, s->row), s->hr, s->hw, s->M, s->seconds,
                s->good, s->bad, locality(s), inside(s));
    }
}

void smp_apps_free(struct smp_app_runs *r)
{
    free(r->samples);
    memset(r, 0, sizeof *r);
}
