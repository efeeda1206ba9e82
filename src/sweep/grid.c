/* One grid of a shiftbox exchange run (grid.h).
 *
 * Within a grid every point -- each k, payload kind, size and module -- is
 * set up at once and the points take turns, exchange.interleave exchanges
 * each (after one untimed exchange of the point: sweep_grid_run), so that a
 * machine whose speed drifts during the run slows every point alike.
 * Every module of a point sees the same data in the same repetition, so the
 * slots after the last exchange must hash alike across modules; a point
 * whose modules disagree fails like a wrong byte. */
#include "grid.h"
#include "../log.h"
#include "../model.h"
#include "../splitmix.h"
#include "../../comm/verify.h"

#include <stdlib.h>
#include <string.h>

/* The model's case at a point (module unset). */
static struct model_case point_case(const struct sweep_plan *p, const struct topology *t, int k,
                                    long long bytes, bool varied)
{
    /* varied sizes run from 0 to 2 bytes, one box in four empty: 3/4 of bytes on average */
    return (struct model_case){.k = k,
                               .phases = p->phases,
                               .dims = {t->dims[0], t->dims[1], t->dims[2]},
                               .team_size = t->team_size,
                               .bytes = varied ? 0.75 * (double)bytes : (double)bytes,
                               .rendezvous = p->rendezvous,
                               .deliver_all = p->deliver_all};
}

/* The model's prediction for module `name` at a point. */
static double predict(const struct sweep_plan *p, const struct topology *t, const char *name, int k,
                      long long bytes, bool varied)
{
    struct model_case c = point_case(p, t, k, bytes, varied);
    c.module = name;
    struct model_terms out;
    return model_predict(&p->hockney, &c, &out, NULL) == SB_OK ? out.time : 0.0;
}

/* exchange.module = auto: the module with the smallest prediction, Team
 * Shift only by model.auto_margin (model_choose). */
static const exchange_ops *choose(const struct sweep_plan *p, const struct topology *t, int k,
                                  long long bytes, bool varied)
{
    struct model_case c = point_case(p, t, k, bytes, varied);
    char line[512];
    line[0] = '\0';
    const exchange_ops *best = exchange_modules[0];
    struct sb_msg m;
    if (model_choose(&p->hockney, &c, p->auto_margin, false, &best, line, sizeof line, &m) != SB_OK)
        log_warning("auto, k=%d %lld bytes: no prediction (%s); %s runs", k, bytes, m.text,
                    best->name);
    log_info("auto, k=%d %lld bytes %s:%s chosen: %s", k, bytes, varied ? "varied" : "uniform",
             line, best->name);
    return best;
}

/* Where ops sits among the modules, then the baselines. */
static int registry_index(const exchange_ops *ops)
{
    int i = 0;
    for (; exchange_modules[i]; i++)
        if (exchange_modules[i] == ops) return i;
    for (int j = 0; exchange_baselines[j]; j++)
        if (exchange_baselines[j] == ops) return i + j;
    return -1;
}

/* The grid's exchange of module ops at k = p->k[ik] and payload kind ip,
 * set up on first use (collective: every rank asks in the same order). */
static int grid_exchange(struct sweep_grid *g, const struct sweep_plan *p, int ik, int ip,
                         const exchange_ops *ops, int *index, struct sb_msg *m)
{
    *index = (ik * p->nkinds + ip) * g->nregistry + registry_index(ops);
    if (g->x[*index].ops) return SB_OK;
    struct exchange_opts o = {.k = (int)p->k[ik],
                              .phases = p->phases,
                              .uniform = !p->kinds[ip],
                              .deliver_all = p->deliver_all};
    CHECK(exchange_create(&g->x[*index], ops->name, &g->topo, &o, m));
    slots_init(&g->slots[*index], g->x[*index].kdim);
    return SB_OK;
}

/* Lists the grid's points: k, then payload kind, then size, then module,
 * so that a point's modules sit together; sets up the exchanges they use. */
int sweep_grid_init(struct sweep_grid *g, const struct sweep_plan *p, struct sweep_results *r,
                    struct sb_msg *m)
{
    const struct topology *t = &g->topo;
    g->nregistry = 0;
    while (exchange_modules[g->nregistry])
        g->nregistry++;
    for (int j = 0; exchange_baselines[j]; j++)
        g->nregistry++;
    g->nx = p->nk * p->nkinds * g->nregistry;
    g->x = sb_calloc((size_t)g->nx, sizeof *g->x, "exchanges");
    g->slots = sb_calloc((size_t)g->nx, sizeof *g->slots, "slot buffers");
    int first = r->npoints;
    for (int ik = 0; ik < p->nk; ik++)
        for (int ip = 0; ip < p->nkinds; ip++)
            for (int ib = 0; ib < p->nbytes; ib++)
                for (int im = 0; im < p->nmodules; im++) {
                    const exchange_ops *ops = p->modules[im];
                    bool automatic = !ops;
                    if (automatic) ops = choose(p, t, (int)p->k[ik], p->bytes[ib], p->kinds[ip]);
                    int ix;
                    CHECK(grid_exchange(g, p, ik, ip, ops, &ix, m));
                    struct sweep_point *pt = sweep_results_add_point(r);
                    pt->module = ops->name;
                    pt->automatic = automatic;
                    pt->team_size = t->team_size;
                    memcpy(pt->dims, t->dims, sizeof pt->dims);
                    pt->k = (int)p->k[ik];
                    pt->bytes = p->bytes[ib];
                    pt->varied = p->kinds[ip];
                    pt->x = &g->x[ix];
                    pt->slots = &g->slots[ix];
                    pt->times = sb_malloc((size_t)p->repetitions * sizeof *pt->times, "timings");
                    if (p->have_model)
                        pt->predicted = predict(p, t, pt->module, pt->k, pt->bytes, pt->varied);
                }
    g->pts = &r->pts[first];
    g->npoints = r->npoints - first;
    size_t most = 2 * (size_t)sweep_plan_largest_bytes(p);
    g->own = sb_malloc(most, "the own payload");
    return SB_OK;
}

void sweep_grid_free(struct sweep_grid *g)
{
    for (int i = 0; i < g->nx; i++) {
        if (!g->x[i].ops) continue; /* never used */
        exchange_destroy(&g->x[i]);
        slots_free(&g->slots[i]);
    }
    for (int i = 0; i < g->npoints; i++) {
        free(g->pts[i].times);
        free(g->pts[i].slot_hash);
        g->pts[i].times = NULL;
        g->pts[i].slot_hash = NULL;
        g->pts[i].x = NULL;
        g->pts[i].slots = NULL;
    }
    free(g->x);
    free(g->slots);
    free(g->own);
}

/* Names the exchange by its place among the point's verified exchanges,
 * as exchange.inject_drop counts them (pt->runs counts this one already),
 * and by the repetition whose payload it carried. */
static void report_wrong(const struct sweep_point *pt, long rep, const struct verify_fault *f,
                         long wrong)
{
    char where[192];
    snprintf(where, sizeof where, "%s c=%d %dx%dx%d k=%d bytes=%lld%s exchange %ld (payload %ld)",
             pt->module, pt->team_size, pt->dims[0], pt->dims[1], pt->dims[2], pt->k, pt->bytes,
             pt->varied ? " varied" : "", pt->runs - 1, rep);
    if (f->size_wrong)
        log_rank_error("verify: %s: slot (%+d,%+d,%+d) of box (%d,%d,%d) holds %zu bytes, "
                       "expected %zu (%ld wrong)",
                       where, f->d[0], f->d[1], f->d[2], f->box[0], f->box[1], f->box[2],
                       f->found_size, f->expected_size, wrong);
    else
        log_rank_error("verify: %s: slot (%+d,%+d,%+d) of box (%d,%d,%d) byte %zu: expected "
                       "0x%02x, found 0x%02x (%ld wrong bytes)",
                       where, f->d[0], f->d[1], f->d[2], f->box[0], f->box[1], f->box[2], f->byte,
                       f->expected, f->found, wrong);
}

/* After a point's last exchange: the hash of every slot, and their bytes. */
static void record_last(struct sweep_point *pt)
{
    const struct slots *s = pt->slots;
    pt->slot_bytes = 0;
    if (!pt->slot_hash)
        pt->slot_hash = sb_malloc((size_t)s->count * sizeof *pt->slot_hash, "slot hashes");
    for (int i = 0; i < s->count; i++) {
        pt->slot_hash[i] = slot_hash(s->data + s->offset[i], s->size[i]);
        pt->slot_bytes += s->size[i];
    }
}

/* Exchange `rep` of point pt: fill the payload, barrier, time the exchange
 * (exchange.batch of them back to back when timed), verify every byte of
 * the last one on the ranks that hold slots. */
static int run_one(struct run_ctx *ctx, const struct sweep_plan *p, struct sweep_grid *g,
                   struct sweep_point *pt, long rep, bool timed)
{
    const struct topology *t = &g->topo;
    struct pattern pat = {.seed = p->seed, .bytes = (size_t)pt->bytes, .varied = pt->varied};
    size_t n = payload_size(&pat, t->box, rep);
    if (p->verify) pattern_fill(&pat, t->box, rep, g->own, n);
    struct payload mine = {g->own, n};

    struct exchange *x = pt->x;
    const bool drop = sweep_inject_drops(&p->inject, pt->runs, x->ops); /* test hook */
    pt->runs++;
    const long batch = timed ? p->batch : 1;
    long done = 0;
    long messages = 0, bytes = 0;
    CHECK_MPI(MPI_Barrier(t->comm));
    double t0 = MPI_Wtime();
    int rc = SB_OK;
    bool malformed = false; /* SB_EVERIFY: found once the exchange's messages were done */
    for (; done < batch && rc == SB_OK && !drop; done++) {
        rc = exchange_run(x, &mine, pt->slots);
        if (rc == SB_EVERIFY) { /* the partners go on with the batch: so does this rank */
            malformed = true;
            rc = SB_OK;
        }
        messages += x->last.messages;
        bytes += x->last.bytes;
    }
    if (rc == SB_OK && malformed) rc = SB_EVERIFY;
    double t1 = MPI_Wtime();
    if (drop) pt->dropped += batch;
    if (timed && !drop) {
        pt->exchanged += done;
        if (x->delivers) pt->times[pt->timed++] = (t1 - t0 - ctx->timer.overhead) / (double)done;
        pt->messages += messages;
        pt->bytes_sent += bytes;
    }
    if (x->last.buffer_bytes > pt->buffer_peak) pt->buffer_peak = x->last.buffer_bytes;
    if (rc == SB_EVERIFY) { /* the module found its own slots malformed */
        pt->wrong++;
        return SB_OK;
    }
    CHECK(rc);
    if (!x->delivers || !p->verify) return SB_OK;
    bool last = rep == p->warmup + p->repetitions - 1; /* turns' warm-ups have reps past it */
    bool corrupt =
        sweep_inject_corrupts(&p->inject, t->rank, x->ops) && (!p->inject.into_hashes || last);
    if (corrupt && !p->inject.into_hashes) {
        inject_fault(pt->slots);
        pt->injected++;
    }
    struct verify_fault f;
    long bad = verify_slots(pt->slots, &pat, t->dims, t->coords, rep, &f);
    if (bad && !pt->reported) {
        report_wrong(pt, rep, &f, bad);
        pt->reported = true;
    }
    pt->wrong += bad;
    if (corrupt && p->inject.into_hashes) { /* past the byte check: only the hashes can tell */
        inject_fault(pt->slots);
        pt->injected++;
    }
    if (last) record_last(pt);
    return SB_OK;
}

/* Warm-up for every point, then the timed repetitions in turns, each turn
 * of a point after one untimed exchange of it: the points before it in the
 * turn left their buffers, code and messages in the caches, and the
 * turn's first exchange paid for that (2 ranks of the Zen 5 VM, 10 B,
 * k = 1 and 8, beside 1 kB and 100 kB points: a mean of 1.6-23 us where
 * the turn's later ones took 0.42-0.57 us: a tenth of the samples, which
 * raised the medians by 0-10 % and the means by 15-30 %;
 * docs/results/exchange-turn-warmup-ab.txt).  A simulation exchanges step
 * after step, and pingpong's steps each follow an untimed one too. */
int sweep_grid_run(struct run_ctx *ctx, const struct sweep_plan *p, struct sweep_grid *g,
                   long *done, long total)
{
    long turn = sweep_plan_turn_length(p);
    for (int i = 0; i < g->npoints; i++)
        for (long r = 0; r < p->warmup; r++, (*done)++)
            CHECK(run_one(ctx, p, g, &g->pts[i], r, false));
    for (long first = 0; first < p->repetitions; first += turn) {
        for (int i = 0; i < g->npoints; i++) {
            struct sweep_point *pt = &g->pts[i];
            /* the turn's warm-up: a repetition of its own, past the timed
               ones, so that its bytes differ from the exchange before and
               after it (with the first timed one's, slots it left in place
               would pass that one's check had that one delivered nothing) */
            CHECK(run_one(ctx, p, g, pt, p->warmup + p->repetitions + first / turn, false));
            (*done)++;
            for (long r = first; r < first + turn && r < p->repetitions; r++, *done += p->batch)
                CHECK(run_one(ctx, p, g, pt, p->warmup + r, true));
            log_progress((double)*done, (double)total, "exchanges",
                         "exchange: grid %dx%dx%d, c=%d; %s k=%d bytes=%lld", pt->dims[0],
                         pt->dims[1], pt->dims[2], pt->team_size, pt->module, pt->k, pt->bytes);
        }
    }
    return SB_OK;
}

/* Every box's slot hashes to rank 0, in box order, for the digest and the
 * slot-hashes file. */
static int gather_hashes(const struct topology *t, struct sweep_results *r, struct sweep_point *pt)
{
    /* One gather of a fixed size over the team leaders (rank = box; world
     * rank 0 leads box 0): a flag, then the slot hashes.  No hashes (the
     * last exchange failed) count as zeros. */
    if (t->leaders == MPI_COMM_NULL) return SB_OK;
    const int count = pt->slots->count, each = count + 1;
    uint64_t *mine = sb_calloc((size_t)each, sizeof *mine, "slot hashes");
    if (pt->slot_hash) {
        mine[0] = 1;
        memcpy(mine + 1, pt->slot_hash, (size_t)count * sizeof *mine);
    }
    uint64_t *all = NULL;
    if (t->rank == 0)
        all = sb_malloc((size_t)t->nboxes * (size_t)each * sizeof *all, "slot hashes");
    int rc = MPI_Gather(mine, each, MPI_UINT64_T, all, each, MPI_UINT64_T, 0, t->leaders);
    if (rc == MPI_SUCCESS && t->rank == 0) {
        pt->digest = splitmix64((uint64_t)count);
        for (int b = 0; b < t->nboxes; b++) {
            const uint64_t *box = all + (size_t)b * (size_t)each;
            for (int s = 0; s < count; s++) {
                uint64_t h = box[0] ? box[1 + s] : 0;
                pt->digest = hash_fold(pt->digest, h);
                if (!r->hashes.f) continue;
                int d[3];
                slot_offset(pt->slots, s, d);
                fprintf(r->hashes.f, "%s,%d,%dx%dx%d,%d,%lld,%s,%d,%d,%d,%d,%016llx\n", pt->module,
                        pt->team_size, pt->dims[0], pt->dims[1], pt->dims[2], pt->k, pt->bytes,
                        pt->varied ? "varied" : "uniform", b, d[0], d[1], d[2],
                        (unsigned long long)h);
            }
        }
    }
    free(all);
    free(mine);
    CHECK_MPI(rc);
    return SB_OK;
}

/* The times of the ranks that hold slots to rank 0 for the statistics;
 * counters summed over the ranks that worked. */
static int finish_point(const struct sweep_plan *p, const struct topology *t,
                        struct sweep_results *r, struct sweep_point *pt)
{
    /* One gather of a fixed size from every rank: how many times it took,
     * then the times (ranks without slots send none) */
    const int each = (int)p->repetitions + 1;
    double *mine = sb_calloc((size_t)each, sizeof *mine, "timings");
    mine[0] = (double)pt->timed;
    memcpy(mine + 1, pt->times, (size_t)pt->timed * sizeof *mine);
    double *all = NULL;
    if (t->rank == 0) all = sb_malloc((size_t)t->nranks * (size_t)each * sizeof *all, "timings");
    int rc = MPI_Gather(mine, each, MPI_DOUBLE, all, each, MPI_DOUBLE, 0, t->comm);
    if (rc == MPI_SUCCESS && t->rank == 0) {
        size_t n = 0; /* the times, packed to the front of all */
        for (int i = 0; i < t->nranks; i++) {
            const double *from = all + (size_t)i * (size_t)each;
            size_t timed = (size_t)from[0];
            memmove(all + n, from + 1, timed * sizeof *all);
            n += timed;
        }
        stats_compute(all, n, &pt->all);
        double *kept = sb_malloc((n ? n : 1) * sizeof *kept, "filtered timings");
        pt->statistic = stats_choose(p->statistic, &pt->all, all, n);
        size_t nkept = stats_filter(all, n, p->cut_coef, pt->all.median, kept);
        stats_compute(kept, nkept, &pt->filtered);
        free(kept);
    }
    free(mine);
    free(all);
    CHECK_MPI(rc);

    double worked = pt->x->idle ? 0.0 : 1.0;
    double exchanges = pt->exchanged > 0 ? (double)pt->exchanged : 1.0; /* the same on every rank */
    double sums[3] = {worked, (double)pt->messages / exchanges, (double)pt->bytes_sent / exchanges};
    double most[2] = {(double)pt->buffer_peak, (double)pt->slot_bytes}, totals[3];
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_DOUBLE, MPI_SUM, t->comm));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_DOUBLE, MPI_MAX, t->comm));
    long faults[2] = {pt->wrong, pt->injected}, fault_totals[2];
    CHECK_MPI(MPI_Allreduce(faults, fault_totals, 2, MPI_LONG, MPI_SUM, t->comm));
    memcpy(totals, sums, sizeof totals);
    pt->mean_messages = totals[1] / totals[0];
    pt->mean_bytes_sent = totals[2] / totals[0];
    pt->buffer_peak_max = most[0];
    pt->slot_bytes_max = most[1];
    pt->wrong_total = fault_totals[0];
    pt->injected = fault_totals[1];
    return p->verify ? gather_hashes(t, r, pt) : SB_OK;
}

/* Rank 0: the modules of one grid, k, kind and size must hash alike.  A
 * digest shared by more than half of them stands, and the modules that
 * differ from it fail; without such a majority all of them fail. */
static void compare_modules(struct sweep_point *pts, int npoints, int nmodules)
{
    for (int i = 0; i < npoints; i += nmodules) {
        struct sweep_point *group = &pts[i];
        uint64_t majority = 0;
        bool found = false;
        for (int a = 0; a < nmodules && !found; a++) {
            int same = 0;
            for (int b = 0; b < nmodules; b++)
                same += group[b].digest == group[a].digest;
            if (2 * same > nmodules) {
                majority = group[a].digest;
                found = true;
            }
        }
        for (int j = 0; j < nmodules; j++)
            group[j].modules_agree = found && group[j].digest == majority;
    }
}

int sweep_grid_finish(const struct sweep_plan *p, struct sweep_grid *g, struct sweep_results *r)
{
    for (int i = 0; i < g->npoints; i++)
        CHECK(finish_point(p, &g->topo, r, &g->pts[i]));
    if (g->topo.rank == 0) compare_modules(g->pts, g->npoints, p->nmodules);
    return SB_OK;
}
