/* shiftbox exchange: sweeps exchange modules over grids, team sizes, k and
 * payloads.  Every exchange is timed on every rank after a barrier and every
 * byte it delivered is verified; each sweep point reports the statistics of
 * seed 002 sec. 3.4 over the delivering ranks x repetitions, unfiltered and
 * filtered at cut_coef x median.
 *
 * The sweep runs grid by grid (each team size c, each grid of the P/c
 * boxes).  Within a grid every point -- each k, payload kind, size and
 * module -- is set up at once and the points take turns, exchange.interleave
 * exchanges each (after one untimed exchange of the point: run_grid), so
 * that a machine whose speed drifts during the run slows every point alike.
 * Every module of a point sees the same data in the same repetition, so the
 * slots after the last exchange must hash alike across modules; a point
 * whose modules disagree fails like a wrong byte. */
#include "command.h"
#include "coll.h"
#include "decomp.h"
#include "log.h"
#include "model.h"
#include "report.h"
#include "stats.h"
#include "../comm/exchange.h"
#include "../comm/verify.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MODULES 16
#define MAX_GRIDS   512

struct plan {
    const exchange_ops *modules[MAX_MODULES]; /* NULL: auto, the model's choice per point */
    int nmodules;
    bool have_model; /* model.hockney is set: predictions beside measurements */
    struct hockney hockney;
    bool rendezvous;
    double auto_margin; /* model.auto_margin */
    const char *phases_text;
    unsigned phases;
    bool kinds[2]; /* payload kinds: varied = true */
    int nkinds;
    long long *k, *bytes, *teams;
    int nk, nbytes, nteams;
    int dims_request[3]; /* 0 where MPI chooses */
    bool all_grids;
    bool deliver_all;
    long repetitions, warmup, interleave;
    long batch;                                  /* exchanges per timed sample */
    long inject_rank;                            /* -1: no fault */
    const exchange_ops *inject[MAX_MODULES + 1]; /* the modules it hits */
    bool inject_hashes;                          /* after the byte check, before hashing */
    long inject_drop; /* every rank skips this exchange of each point; -1: none */
    double cut_coef;
    const char *statistic; /* stats.statistic */
    uint64_t seed;
    bool slot_hashes;
    bool
        verify; /* exchange.verify: check every byte (0: timings only, e.g. SMPI's shared malloc) */
};

/* One sweep point: a module on one grid at one k, payload kind and size. */
struct point {
    const char *module;
    bool automatic; /* chosen by the model (exchange.module = auto) */
    int team_size, dims[3], k;
    long long bytes;
    bool varied;
    /* While its grid runs: */
    struct exchange *x;
    struct slots *slots;
    double *times;        /* this rank's timed exchanges, s */
    long timed;           /* how many of them */
    long messages;        /* sent in the timed exchanges, this rank */
    long long bytes_sent; /* likewise */
    size_t buffer_peak;   /* most exchange buffer bytes in use, this rank */
    size_t slot_bytes;    /* payload bytes in this rank's slots, last exchange */
    long wrong;           /* wrong bytes this rank found */
    long injected;        /* faults this rank injected */
    long runs;            /* verified exchanges so far (inject_drop counts them) */
    long exchanged;       /* timed exchanges this rank ran (a batch's each) */
    long dropped;         /* exchanges skipped for inject_drop (a batch's each) */
    bool reported;        /* this rank has printed its first wrong byte */
    uint64_t *slot_hash;  /* leaders: each slot's hash after the last exchange */
    /* Results, filled by finish_point (statistics and digest on rank 0): */
    struct stats all, filtered;
    double statistic; /* stats.statistic of the times: what predictions are compared with */
    double mean_messages, mean_bytes_sent; /* per exchange per working rank */
    double buffer_peak_max, slot_bytes_max;
    long wrong_total;
    uint64_t digest; /* the slots of every box, hashed in box order */
    bool modules_agree;
    double predicted; /* s, from model.hockney; 0 without */
};

/* The points of one grid, set up together. */
struct grid {
    struct topology topo;
    struct exchange *x; /* [k][payload kind][registry module], set up when first used */
    struct slots *slots;
    int nx, nregistry;
    struct point *pts; /* within the run's list */
    int npoints;
    unsigned char *own; /* this rank's payload, sized for the largest */
};

/* Every point of the run. */
struct results {
    struct point *pts;
    int npoints, cap;
    struct report_text hashes; /* rank 0: slot-hashes.csv, when exchange.slot_hashes is set */
};

static int phase_count(unsigned phases)
{
    return !!(phases & PHASE_X) + !!(phases & PHASE_Y) + !!(phases & PHASE_Z);
}

static long long largest(const long long *v, int n)
{
    long long m = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

/* Ranks sharing this node, so a memory check can divide the node's memory. */
static int ranks_on_node(MPI_Comm comm)
{
    int me, n;
    node_place(comm, &me, &n);
    return n;
}

/* ---- the plan ------------------------------------------------------------ */

/* exchange.baseline: the hand-written baselines, after the modules. */
static int read_baselines(struct plan *p, const struct config *c, struct sb_msg *m)
{
    char name[64];
    for (int i = 0; cfg_choice_item(c, "exchange.baseline", i, name, sizeof name); i++) {
        if (!strcmp(name, "none")) continue;
        bool varied = false;
        for (int k = 0; k < p->nkinds; k++)
            varied = varied || p->kinds[k];
        if (varied)
            return sb_fail(m, SB_EUSAGE,
                           "exchange.baseline = %s: the baselines serve uniform payloads only; "
                           "accepted: exchange.payload = uniform, or exchange.baseline = none",
                           name);
        const exchange_ops *ops = exchange_lookup(name);
        for (int j = 0; j < p->nmodules; j++)
            if (p->modules[j] == ops)
                return sb_fail(m, SB_EUSAGE, "exchange.baseline lists '%s' twice", name);
        if (p->nmodules == MAX_MODULES)
            return sb_fail(m, SB_EUSAGE, "exchange.module and exchange.baseline list more than %d",
                           MAX_MODULES);
        p->modules[p->nmodules++] = ops;
    }
    return SB_OK;
}

static int read_modules(struct plan *p, const struct config *c, struct sb_msg *m)
{
    char name[64];
    for (int i = 0; cfg_choice_item(c, "exchange.module", i, name, sizeof name); i++) {
        const exchange_ops *ops = exchange_lookup(name);
        if (!ops && strcmp(name, "auto"))
            return sb_fail(m, SB_EUSAGE, "exchange.module: '%s' is not built in", name);
        if (!ops && !p->have_model)
            return sb_fail(m, SB_EUSAGE,
                           "exchange.module = auto needs model.hockney, the Hockney parameters "
                           "it chooses by (shiftbox pingpong --out DIR writes them)");
        for (int j = 0; j < p->nmodules; j++)
            if (p->modules[j] == ops)
                return sb_fail(m, SB_EUSAGE, "exchange.module lists '%s' twice", name);
        if (p->nmodules == MAX_MODULES)
            return sb_fail(m, SB_EUSAGE, "exchange.module lists more than %d modules", MAX_MODULES);
        p->modules[p->nmodules++] = ops;
    }
    return SB_OK;
}

static void read_injection(struct plan *p, const struct config *c)
{
    char name[64];
    int n = 0;
    for (int i = 0; cfg_choice_item(c, "exchange.inject_module", i, name, sizeof name); i++)
        if (n < MAX_MODULES) p->inject[n++] = exchange_lookup(name);
    p->inject[n] = NULL;
    p->inject_rank = (long)cfg_int(c, "exchange.inject_fault");
    p->inject_hashes = !strcmp(cfg_text(c, "exchange.inject_into"), "hashes");
    p->inject_drop = (long)cfg_int(c, "exchange.inject_drop");
}

/* The repetitions of a point in one turn (all of them without interleave). */
static long turn_length(const struct plan *p)
{
    return p->interleave > 0 ? p->interleave : p->repetitions;
}

/* The turns of a point: each starts with one untimed exchange. */
static long turn_count(const struct plan *p)
{
    const long turn = turn_length(p);
    return (p->repetitions + turn - 1) / turn;
}

/* The verified exchanges of one point: warm-ups, turns' warm-ups, timed
 * ones (a timed batch counted once). */
static long point_runs(const struct plan *p)
{
    return p->warmup + turn_count(p) + p->repetitions;
}

static bool injected_module(const struct plan *p, const exchange_ops *ops)
{
    for (int i = 0; p->inject[i]; i++)
        if (p->inject[i] == ops) return true;
    return false;
}

/* Whether the run lists `ops` (NULL: auto) in exchange.module or
 * exchange.baseline. */
static bool listed(const struct plan *p, const exchange_ops *ops)
{
    for (int i = 0; i < p->nmodules; i++)
        if (p->modules[i] == ops) return true;
    return false;
}

/* exchange.inject_drop can be caught only where each exchange's slots
 * differ from those of the one before: uniform payloads of a byte or more
 * (empty slots are right whether or not the exchange ran, and a box's
 * varied payload may be empty at two repetitions in a row). */
static int check_drop(const struct plan *p, struct sb_msg *m)
{
    if (p->inject_drop < 0) return SB_OK;
    bool varied = false, empty = false;
    for (int i = 0; i < p->nkinds; i++)
        varied = varied || p->kinds[i];
    for (int i = 0; i < p->nbytes; i++)
        empty = empty || p->bytes[i] == 0;
    if (varied || empty)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_drop needs slots that differ from one exchange to the "
                       "next, but %s, so a skipped exchange may leave them right; accepted: "
                       "exchange.payload = uniform with every exchange.bytes above 0",
                       empty ? "exchange.bytes holds 0 (empty slots)"
                             : "exchange.payload holds varied (a box's payload may be empty at "
                               "two repetitions in a row)");
    const long runs = point_runs(p);
    if (p->inject_drop >= runs)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_drop = %ld, but each point makes %ld verified exchanges "
                       "(exchange.warmup %ld, an untimed one for each of %ld turns of "
                       "exchange.interleave, exchange.repetitions %ld; a timed batch counts "
                       "once); accepted: -1 (off) or 0..%ld",
                       p->inject_drop, runs, p->warmup, turn_count(p), p->repetitions, runs - 1);
    return SB_OK;
}

/* exchange.inject_fault and inject_drop must be able to fail the run, and
 * where they cannot, that is known before the run starts: no module they
 * hit may run, or the exchange to drop never comes, or the rank receives
 * no slots, or with inject_into = hashes every module that may run is
 * corrupted alike (their hashes would agree).  auto counts as each module
 * it may choose; whether its choices then hit the injected modules is
 * counted during the run (exit 2 after it when none did). */
static int check_injection(const struct plan *p, struct sb_msg *m)
{
    if (p->inject_rank < 0 && p->inject_drop < 0) return SB_OK;
    const bool corrupts = p->inject_rank >= 0;
    const char *key = corrupts ? "exchange.inject_fault" : "exchange.inject_drop";
    const long value = corrupts ? p->inject_rank : p->inject_drop;
    int hit = 0, spared = 0;
    const bool automatic = listed(p, NULL); /* may choose any module, never a baseline */
    const exchange_ops *const *lists[] = {exchange_modules, exchange_baselines};
    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l][i]; i++) {
            if (!listed(p, lists[l][i]) && !(automatic && l == 0)) continue;
            if (injected_module(p, lists[l][i]))
                hit++;
            else
                spared++;
        }
    if (hit == 0)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_module names none of the modules this run exchanges with "
                       "(exchange.module, exchange.baseline), so %s = %ld would hit nothing; "
                       "accepted: a module that runs, or all",
                       key, value);
    CHECK(check_drop(p, m));
    if (!corrupts) return SB_OK;
    /* slots end at the team leaders (member 0: rank % c == 0), with
       team_deliver = all Team Shift's at every member */
    const exchange_ops *team = exchange_lookup("teamshift");
    bool receives = p->deliver_all && (listed(p, team) || automatic) && injected_module(p, team);
    for (int i = 0; i < p->nteams; i++)
        receives = receives || p->inject_rank % p->teams[i] == 0;
    if (!receives)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_fault = %ld: that rank leads no team at any "
                       "exchange.team_size of the run, so it receives no slots to corrupt; "
                       "accepted: a team leader's rank (a multiple of the team size)",
                       p->inject_rank);
    if (p->inject_hashes && spared == 0)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_into = hashes: every module of the run is corrupted alike, "
                       "so their hashes still agree and nothing can catch it; accepted: "
                       "exchange.inject_module leaving out at least one module that runs (e.g. "
                       "exchange.module = shift,direct with exchange.inject_module = direct)");
    return SB_OK;
}

/* After the run: exit 2 where an injection asked for could not be seen:
 * inject_fault's rank received no slots of the modules it hits, auto chose
 * no module inject_drop hits, or (inject_into = hashes) auto chose an
 * injected module at every point; check_injection refused the cases known
 * before the run.  The first such case is named.  Every rank counts alike. */
static bool injection_seen(const struct plan *p, long injected, long dropped, long failed)
{
    if (p->inject_hashes && injected > 0 && failed == 0) {
        log_error("exchange.inject_into = hashes: the faults injected went unseen: at every "
                  "point each module compared was corrupted alike (auto chose an injected "
                  "module); accepted: exchange.inject_module leaving out a module that runs "
                  "beside them");
        return false;
    }
    if (p->inject_rank >= 0 && injected == 0) {
        log_error("exchange.inject_fault = %ld: that rank received no slots of the modules in "
                  "exchange.inject_module in any point (it leads no team), so no fault was "
                  "injected; accepted: a team leader's rank",
                  p->inject_rank);
        return false;
    }
    if (p->inject_drop >= 0 && dropped == 0) {
        log_error("exchange.inject_drop = %ld: auto chose none of the modules in "
                  "exchange.inject_module at any point, so no exchange was skipped; accepted: "
                  "exchange.inject_module naming the modules auto chooses (all)",
                  p->inject_drop);
        return false;
    }
    return true;
}

/* Whether this rank corrupts this point's slots. */
static bool injects(const struct plan *p, const struct topology *t, const struct point *pt)
{
    return t->rank == p->inject_rank && injected_module(p, pt->x->ops);
}

static int read_kinds(struct plan *p, const struct config *c, struct sb_msg *m)
{
    char kind[32];
    for (int i = 0; cfg_choice_item(c, "exchange.payload", i, kind, sizeof kind); i++) {
        bool varied = !strcmp(kind, "varied");
        for (int j = 0; j < p->nkinds; j++)
            if (p->kinds[j] == varied)
                return sb_fail(m, SB_EUSAGE, "exchange.payload lists '%s' twice", kind);
        p->kinds[p->nkinds++] = varied;
    }
    return SB_OK;
}

/* Every c must divide the rank count; "all" means every divisor. */
static int read_teams(struct plan *p, const struct config *c, int nranks, struct sb_msg *m)
{
    p->teams = sb_malloc(CONFIG_MAX_LIST * sizeof *p->teams, "the team sizes");
    if (cfg_all(c, "exchange.team_size")) {
        p->nteams = 0;
        for (int d = 1; d <= nranks; d++)
            if (nranks % d == 0) p->teams[p->nteams++] = d;
        return SB_OK;
    }
    p->nteams = cfg_int_list(c, "exchange.team_size", p->teams);
    for (int i = 0; i < p->nteams; i++) {
        if (nranks % p->teams[i] == 0) continue;
        char divisors[512] = "";
        for (int d = 1; d <= nranks; d++)
            if (nranks % d == 0)
                snprintf(divisors + strlen(divisors), sizeof divisors - strlen(divisors), "%s%d",
                         divisors[0] ? ", " : "", d);
        return sb_fail(m, SB_EUSAGE,
                       "exchange.team_size = %lld: %d ranks do not split into teams of %lld; "
                       "accepted: divisors of %d (%s), or all",
                       p->teams[i], nranks, p->teams[i], nranks, divisors);
    }
    return SB_OK;
}

/* Rejects sweeps whose messages overflow MPI's int count, or whose buffers
 * (every point of a grid is set up at once) exceed this rank's share of the
 * node's memory. */
static int check_sizes(const struct plan *p, int local_ranks, struct sb_msg *m)
{
    double node_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    double share = 0.8 * node_bytes / local_ranks;
    int np = phase_count(p->phases);
    long long bytes = largest(p->bytes, p->nbytes);
    bool varied = p->kinds[0] || (p->nkinds > 1 && p->kinds[1]);
    double slot = varied ? (double)record_bytes(2 * (size_t)bytes) : (double)bytes;
    bool whole = false;    /* a module that moves all slots in one MPI call */
    double per_slot = 0.0; /* buffer bytes per slot byte, summed over modules */
    for (int i = 0; i < p->nmodules; i++) {
        const exchange_ops *ops = p->modules[i];
        bool team = !ops || ops->teams; /* auto may choose the heaviest */
        whole |= team || !strcmp(ops->name, "direct");
        per_slot += team ? 3.0 : varied ? 2.0 : 1.0;
    }
    double buffers = 0.0;
    for (int i = 0; i < p->nk; i++) {
        double side = 2.0 * (double)p->k[i] + 1.0;
        double message = slot * pow(side, whole ? np : np - 1);
        if (message > INT_MAX)
            return sb_fail(m, SB_EUSAGE,
                           "exchange.k = %lld with exchange.bytes = %lld: one MPI call would "
                           "move %.3g bytes, more than MPI's int count (%d); accepted: smaller "
                           "k or bytes",
                           p->k[i], bytes, message, INT_MAX);
        buffers += per_slot * slot * pow(side, np);
    }
    if (buffers > share)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.k and exchange.bytes (up to %lld) need %.3g GB of exchange "
                       "buffers per rank for %d module(s), but %d ranks share %.3g GB here; "
                       "accepted: fewer or smaller k, bytes or modules",
                       bytes, buffers / 1e9, p->nmodules, local_ranks, node_bytes / 1e9);
    return SB_OK;
}

static int plan_from_config(struct plan *p, const struct config *c, const struct run_ctx *ctx,
                            struct sb_msg *m)
{
    memset(p, 0, sizeof *p);
    p->k = sb_malloc(CONFIG_MAX_LIST * sizeof *p->k, "the k list");
    p->bytes = sb_malloc(CONFIG_MAX_LIST * sizeof *p->bytes, "the bytes list");
    p->nk = cfg_int_list(c, "exchange.k", p->k);
    p->nbytes = cfg_int_list(c, "exchange.bytes", p->bytes);
    p->phases_text = cfg_text(c, "exchange.phases");
    p->phases = phases_parse(p->phases_text);
    p->deliver_all = !strcmp(cfg_text(c, "exchange.team_deliver"), "all");
    p->repetitions = (long)cfg_int(c, "exchange.repetitions");
    p->warmup = (long)cfg_int(c, "exchange.warmup");
    p->interleave = (long)cfg_int(c, "exchange.interleave");
    p->batch = (long)cfg_int(c, "exchange.batch");
    read_injection(p, c);
    p->cut_coef = cfg_real(c, "stats.cut_coef");
    p->statistic = cfg_text(c, "stats.statistic");
    p->seed = (uint64_t)cfg_int(c, "run.seed");
    p->slot_hashes = cfg_bool(c, "exchange.slot_hashes");
    p->verify = cfg_bool(c, "exchange.verify");
    p->all_grids = cfg_all(c, "decomp.dims");
    if (!p->all_grids) cfg_dims(c, "decomp.dims", p->dims_request);
    p->rendezvous = cfg_bool(c, "model.rendezvous");
    p->auto_margin = cfg_real(c, "model.auto_margin");
    p->have_model = cfg_text(c, "model.hockney")[0] != '\0';
    if (p->have_model) /* read on every rank: one that cannot stops all, with its message */
        CHECK(sb_agree(model_load_hockney(c, &p->hockney, m), m, ctx->world));
    CHECK(read_modules(p, c, m));
    CHECK(read_kinds(p, c, m));
    CHECK(read_baselines(p, c, m));
    CHECK(read_teams(p, c, ctx->nranks, m));
    if (p->have_model) CHECK(model_torus_fits(&p->hockney, ctx->nranks, m));
    if (!p->verify && (p->inject_rank >= 0 || p->inject_drop >= 0 || p->slot_hashes))
        return sb_fail(m, SB_EUSAGE,
                       "exchange.verify = 0 checks no byte, so %s cannot be honoured; accepted: "
                       "exchange.verify = 1 with it",
                       p->inject_rank >= 0   ? "exchange.inject_fault"
                       : p->inject_drop >= 0 ? "exchange.inject_drop"
                                             : "exchange.slot_hashes");
    if (p->inject_rank >= ctx->nranks)
        return sb_fail(m, SB_EUSAGE,
                       "exchange.inject_fault = %ld, but the run has %d ranks; accepted: -1 "
                       "(off) or a rank in 0..%d",
                       p->inject_rank, ctx->nranks, ctx->nranks - 1);
    CHECK(check_injection(p, m));
    /* An explicit grid must fit every team size before anything runs. */
    for (int i = 0; i < p->nteams && !p->all_grids; i++) {
        int dims[3];
        CHECK(choose_dims(ctx->nranks / (int)p->teams[i], p->dims_request, dims, m));
    }
    return check_sizes(p, ranks_on_node(ctx->world), m);
}

static void plan_free(struct plan *p)
{
    free(p->k);
    free(p->bytes);
    free(p->teams);
}

/* ---- one grid --------------------------------------------------------------- */

static struct point *add_point(struct results *r)
{
    if (r->npoints == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->pts = sb_realloc(r->pts, (size_t)r->cap * sizeof *r->pts, "sweep points");
    }
    struct point *pt = &r->pts[r->npoints++];
    memset(pt, 0, sizeof *pt);
    pt->modules_agree = true; /* until rank 0 finds otherwise */
    return pt;
}

/* The model's case at a point (module unset). */
static struct model_case point_case(const struct plan *p, const struct topology *t, int k,
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
static double predict(const struct plan *p, const struct topology *t, const char *name, int k,
                      long long bytes, bool varied)
{
    struct model_case c = point_case(p, t, k, bytes, varied);
    c.module = name;
    struct model_terms out;
    return model_predict(&p->hockney, &c, &out, NULL) == SB_OK ? out.time : 0.0;
}

/* exchange.module = auto: the module with the smallest prediction, Team
 * Shift only by model.auto_margin (model_choose). */
static const exchange_ops *choose(const struct plan *p, const struct topology *t, int k,
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
static int grid_exchange(struct grid *g, const struct plan *p, int ik, int ip,
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
static int grid_init(struct grid *g, const struct plan *p, struct results *r, struct sb_msg *m)
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
                    struct point *pt = add_point(r);
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
    size_t most = 2 * (size_t)largest(p->bytes, p->nbytes);
    g->own = sb_malloc(most, "the own payload");
    return SB_OK;
}

static void grid_free(struct grid *g)
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

static void report_wrong(const struct point *pt, long rep, const struct verify_fault *f, long wrong)
{
    char where[160];
    snprintf(where, sizeof where, "%s c=%d %dx%dx%d k=%d bytes=%lld%s exchange %ld", pt->module,
             pt->team_size, pt->dims[0], pt->dims[1], pt->dims[2], pt->k, pt->bytes,
             pt->varied ? " varied" : "", rep);
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
static void record_last(struct point *pt)
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
static int run_one(struct run_ctx *ctx, const struct plan *p, struct grid *g, struct point *pt,
                   long rep, bool timed)
{
    const struct topology *t = &g->topo;
    struct pattern pat = {.seed = p->seed, .bytes = (size_t)pt->bytes, .varied = pt->varied};
    size_t n = payload_size(&pat, t->box, rep);
    if (p->verify) pattern_fill(&pat, t->box, rep, g->own, n);
    struct payload mine = {g->own, n};

    struct exchange *x = pt->x;
    /* test hook (exchange.inject_drop): every rank skips the same exchange,
       so none waits for another */
    const bool drop = pt->runs == p->inject_drop && injected_module(p, x->ops);
    pt->runs++;
    const long batch = timed ? p->batch : 1;
    long done = 0;
    long messages = 0, bytes = 0;
    CHECK_MPI(MPI_Barrier(t->comm));
    double t0 = MPI_Wtime();
    int rc = SB_OK;
    for (; done < batch && rc == SB_OK && !drop; done++) {
        rc = exchange_run(x, &mine, pt->slots);
        messages += x->last.messages;
        bytes += x->last.bytes;
    }
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
    bool corrupt = injects(p, t, pt) && (!p->inject_hashes || last);
    if (corrupt && !p->inject_hashes) {
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
    if (corrupt && p->inject_hashes) { /* past the byte check: only the hashes can tell */
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
static int run_grid(struct run_ctx *ctx, const struct plan *p, struct grid *g, long *done,
                    long total)
{
    long turn = turn_length(p);
    for (int i = 0; i < g->npoints; i++)
        for (long r = 0; r < p->warmup; r++, (*done)++)
            CHECK(run_one(ctx, p, g, &g->pts[i], r, false));
    for (long first = 0; first < p->repetitions; first += turn) {
        for (int i = 0; i < g->npoints; i++) {
            struct point *pt = &g->pts[i];
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
static int gather_hashes(const struct plan *p, const struct topology *t, struct results *r,
                         struct point *pt)
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
    (void)p;
    CHECK_MPI(rc);
    return SB_OK;
}

/* The times of the ranks that hold slots to rank 0 for the statistics;
 * counters summed over the ranks that worked. */
static int finish_point(const struct plan *p, const struct topology *t, struct results *r,
                        struct point *pt)
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
    return p->verify ? gather_hashes(p, t, r, pt) : SB_OK;
}

/* Rank 0: the modules of one grid, k, kind and size must hash alike.  A
 * digest shared by more than half of them stands, and the modules that
 * differ from it fail; without such a majority all of them fail. */
static void compare_modules(struct point *pts, int npoints, int nmodules)
{
    for (int i = 0; i < npoints; i += nmodules) {
        struct point *group = &pts[i];
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

/* ---- reporting ------------------------------------------------------------------ */

/* With a model: the relative error of stats.statistic against the prediction,
 * and whether the prediction lies within one standard deviation of the
 * mean (seed 000 Table 2's columns). */
/* The point has a prediction: model.hockney is set and its module a model
 * (the baselines have none). */
static bool has_prediction(const struct plan *p, const struct point *pt)
{
    return p->have_model && pt->predicted > 0;
}

static double prediction_error(const struct point *pt)
{
    return pt->predicted > 0 ? (pt->statistic - pt->predicted) / pt->predicted : 0.0;
}

static bool within_one_sd(const struct point *pt)
{
    return fabs(pt->all.mean - pt->predicted) <= pt->all.stddev;
}

static void print_table_header(bool model)
{
    log_info("%-17s %3s %8s %-7s %6s %10s %10s %10s %10s %9s %6s %6s | %6s %10s %9s | %5s %10s "
             "%9s%s %s",
             "module", "k", "bytes", "payload", "n", "min_us", "median_us", "mean_us", "max_us",
             "sd_us", "cv%", "rse%", "kept", "f_mean_us", "f_sd_us", "msgs", "sent_B", "peak/min",
             model ? " |    pred_us   err% 1sd" : "", "verified");
}

static void print_point(const struct plan *p, const struct point *pt)
{
    bool model = has_prediction(p, pt);
    const struct stats *s = &pt->all, *f = &pt->filtered;
    double ratio = pt->slot_bytes_max > 0 ? pt->buffer_peak_max / pt->slot_bytes_max : 0.0;
    const char *verdict = !p->verify           ? "off"
                          : pt->wrong_total    ? "NO"
                          : !pt->modules_agree ? "NO (modules differ)"
                                               : "yes";
    char name[32], prediction[64] = "";
    snprintf(name, sizeof name, "%s%s", pt->automatic ? "auto:" : "", pt->module);
    if (model)
        snprintf(prediction, sizeof prediction, " | %10.3f %6.1f %3s", pt->predicted * 1e6,
                 prediction_error(pt) * 100, within_one_sd(pt) ? "yes" : "no");
    else if (p->have_model) /* a baseline: no model */
        snprintf(prediction, sizeof prediction, " | %10s %6s %3s", "-", "-", "-");
    log_info("%-17s %3d %8lld %-7s %6zu %10.3f %10.3f %10.3f %10.3f %9.3f %6.2f %6.3f | %6zu "
             "%10.3f %9.3f | %5.0f %10.0f %9.2f%s %s",
             name, pt->k, pt->bytes, pt->varied ? "varied" : "uniform", s->n, s->min * 1e6,
             s->median * 1e6, s->mean * 1e6, s->max * 1e6, s->stddev * 1e6, s->cv * 100,
             s->rse * 100, f->n, f->mean * 1e6, f->stddev * 1e6, pt->mean_messages,
             pt->mean_bytes_sent, ratio, prediction, verdict);
}

static bool point_passed(const struct point *pt)
{
    return pt->wrong_total == 0 && pt->modules_agree;
}

static cJSON *point_json(const struct plan *p, const struct point *pt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "module", pt->module);
    cJSON_AddBoolToObject(o, "automatic", pt->automatic);
    cJSON_AddNumberToObject(o, "team_size", pt->team_size);
    cJSON_AddItemToObject(o, "dims", cJSON_CreateIntArray(pt->dims, 3));
    cJSON_AddNumberToObject(o, "k", pt->k);
    cJSON_AddNumberToObject(o, "bytes", (double)pt->bytes);
    cJSON_AddStringToObject(o, "payload", pt->varied ? "varied" : "uniform");
    cJSON_AddStringToObject(o, "phases", p->phases_text);
    cJSON_AddNumberToObject(o, "repetitions", (double)p->repetitions);
    cJSON_AddNumberToObject(o, "batch", (double)p->batch);
    cJSON_AddNumberToObject(o, "warmup", (double)p->warmup);
    cJSON_AddItemToObject(o, "time_s", report_stats(&pt->all));
    cJSON_AddNumberToObject(o, "statistic_s", pt->statistic);
    cJSON *filtered = report_stats(&pt->filtered);
    cJSON_AddNumberToObject(filtered, "cut_coef", p->cut_coef);
    cJSON_AddNumberToObject(filtered, "removed", (double)(pt->all.n - pt->filtered.n));
    cJSON_AddItemToObject(o, "filtered_time_s", filtered);
    cJSON_AddNumberToObject(o, "messages_per_exchange", pt->mean_messages);
    cJSON_AddNumberToObject(o, "bytes_sent_per_exchange", pt->mean_bytes_sent);
    cJSON_AddNumberToObject(o, "buffer_bytes_peak", pt->buffer_peak_max);
    cJSON_AddNumberToObject(o, "buffer_bytes_min", pt->slot_bytes_max);
    char digest[20];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)pt->digest);
    cJSON_AddStringToObject(o, "slot_digest", digest);
    cJSON_AddBoolToObject(o, "modules_agree", pt->modules_agree);
    cJSON_AddNumberToObject(o, "wrong_bytes", (double)pt->wrong_total);
    if (p->verify) cJSON_AddBoolToObject(o, "verified", point_passed(pt));
    if (has_prediction(p, pt)) {
        cJSON_AddNumberToObject(o, "predicted_s", pt->predicted);
        cJSON_AddNumberToObject(o, "prediction_error", prediction_error(pt));
        cJSON_AddStringToObject(o, "compared_statistic", p->statistic);
        cJSON_AddBoolToObject(o, "prediction_within_sd", within_one_sd(pt));
    }
    return o;
}

static void csv_header(FILE *f)
{
    fprintf(f, "module,team_size,dims,k,bytes,payload,phases,ranks");
    static const char *const parts[] = {"", "filt_"};
    for (int i = 0; i < 2; i++)
        fprintf(f,
                ",%ssamples,%smin_s,%smedian_s,%smean_s,%smax_s,%svariance_s2,%sstddev_s,%scv,"
                "%sstd_error_s,%srse",
                parts[i], parts[i], parts[i], parts[i], parts[i], parts[i], parts[i], parts[i],
                parts[i], parts[i]);
    fprintf(f, ",messages,bytes_sent,buffer_bytes_peak,buffer_bytes_min,slot_digest,wrong_bytes,"
               "verified,automatic,predicted_s,prediction_error,prediction_within_sd,statistic,"
               "statistic_s\n");
}

static void csv_row(FILE *f, const struct plan *p, int nranks, const struct point *pt)
{
    fprintf(f, "%s,%d,%dx%dx%d,%d,%lld,%s,%s,%d", pt->module, pt->team_size, pt->dims[0],
            pt->dims[1], pt->dims[2], pt->k, pt->bytes, pt->varied ? "varied" : "uniform",
            p->phases_text, nranks);
    const struct stats *both[2] = {&pt->all, &pt->filtered};
    for (int i = 0; i < 2; i++) {
        const struct stats *s = both[i];
        fprintf(f, ",%zu,%.9e,%.9e,%.9e,%.9e,%.9e,%.9e,%.6e,%.9e,%.6e", s->n, s->min, s->median,
                s->mean, s->max, s->variance, s->stddev, s->cv, s->std_error, s->rse);
    }
    fprintf(f, ",%.1f,%.1f,%.0f,%.0f,%016llx,%ld,%d,%d", pt->mean_messages, pt->mean_bytes_sent,
            pt->buffer_peak_max, pt->slot_bytes_max, (unsigned long long)pt->digest,
            pt->wrong_total, p->verify && point_passed(pt), pt->automatic);
    if (has_prediction(p, pt)) /* empty without one, so that every file has the same columns */
        fprintf(f, ",%.9e,%.6e,%d", pt->predicted, prediction_error(pt), within_one_sd(pt));
    else
        fprintf(f, ",,,");
    fprintf(f, ",%s,%.9e\n", p->statistic, pt->statistic);
}

static int write_outputs(struct run_ctx *ctx, const struct plan *p, struct results *r,
                         bool verified, int exit_code)
{
    cJSON *root = report_summary_begin("exchange", ctx->cfg, ctx->cmd->sections, ctx->nranks,
                                       &ctx->timer, &ctx->placement);
    cJSON_AddStringToObject(root, "verification", p->verify ? "every byte" : "off");
    if (p->verify) cJSON_AddBoolToObject(root, "verified", verified);
    cJSON_AddNumberToObject(root, "exit_code", exit_code);
    cJSON *list = cJSON_AddArrayToObject(root, "points");
    for (int i = 0; i < r->npoints; i++)
        cJSON_AddItemToArray(list, point_json(p, &r->pts[i]));
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));

    struct report_text csv;
    CHECK(report_text_open(&csv));
    csv_header(csv.f);
    for (int i = 0; i < r->npoints; i++)
        csv_row(csv.f, p, ctx->nranks, &r->pts[i]);
    CHECK(report_text_commit(&csv, ctx->out_dir, "exchange.csv"));
    if (!r->hashes.f) return SB_OK;
    return report_text_commit(&r->hashes, ctx->out_dir, "slot-hashes.csv");
}

/* One line per module, team size and grid: how many points passed. */
static void print_pass_fail(const struct results *r)
{
    log_info("\n%-17s %4s %-10s %7s %7s %7s", "module", "c", "grid", "points", "passed", "failed");
    for (int i = 0; i < r->npoints; i++) {
        const struct point *a = &r->pts[i];
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) {
            const struct point *b = &r->pts[j];
            seen = b->module == a->module && b->team_size == a->team_size &&
                   !memcmp(b->dims, a->dims, sizeof a->dims);
        }
        if (seen) continue;
        int points = 0, passed = 0;
        for (int j = i; j < r->npoints; j++) {
            const struct point *b = &r->pts[j];
            if (b->module != a->module || b->team_size != a->team_size ||
                memcmp(b->dims, a->dims, sizeof a->dims))
                continue;
            points++;
            passed += point_passed(b);
        }
        char grid[32];
        snprintf(grid, sizeof grid, "%dx%dx%d", a->dims[0], a->dims[1], a->dims[2]);
        log_info("%-17s %4d %-10s %7d %7d %7d", a->module, a->team_size, grid, points, passed,
                 points - passed);
    }
}

/* ---- the command -------------------------------------------------------------- */

/* The grids of nboxes boxes to run: every factorisation, or the one asked
 * for.  Returns how many, or 0 with a message. */
static int list_grids(const struct plan *p, int nboxes, int (*grids)[3], struct sb_msg *m)
{
    if (!p->all_grids) return choose_dims(nboxes, p->dims_request, grids[0], m) == SB_OK ? 1 : 0;
    int n = factorisations(nboxes, grids, MAX_GRIDS);
    if (n > MAX_GRIDS)
        return sb_fail(m, 0, "decomp.dims = all: %d boxes make more than %d grids", nboxes,
                       MAX_GRIDS);
    return n;
}

static int run_all(struct run_ctx *ctx, const struct plan *p, struct results *r, long total)
{
    struct sb_msg m = {""};
    int(*grids)[3] = sb_malloc(MAX_GRIDS * sizeof *grids, "grids");
    long done = 0;
    int rc = SB_OK;
    for (int ic = 0; ic < p->nteams && rc == SB_OK; ic++) {
        int c = (int)p->teams[ic];
        int ngrids = list_grids(p, ctx->nranks / c, grids, &m);
        if (ngrids == 0) {
            rc = SB_EUSAGE;
            log_error("%s", m.text);
            break;
        }
        for (int ig = 0; ig < ngrids && rc == SB_OK; ig++) {
            struct grid g;
            memset(&g, 0, sizeof g);
            rc = topology_init(&g.topo, ctx->world, c, grids[ig], &m);
            if (rc == SB_OK) rc = grid_init(&g, p, r, &m);
            if (rc == SB_OK) rc = run_grid(ctx, p, &g, &done, total);
            log_progress_done();
            for (int i = 0; i < g.npoints && rc == SB_OK; i++)
                rc = finish_point(p, &g.topo, r, &g.pts[i]);
            if (rc == SB_OK && ctx->rank == 0) {
                compare_modules(g.pts, g.npoints, p->nmodules);
                log_info("\ngrid %dx%dx%d of %d boxes, %d rank%s per box:", g.topo.dims[0],
                         g.topo.dims[1], g.topo.dims[2], g.topo.nboxes, c, c == 1 ? "" : "s");
                print_table_header(p->have_model);
                for (int i = 0; i < g.npoints; i++)
                    print_point(p, &g.pts[i]);
            }
            if (rc != SB_OK && m.text[0]) log_error("%s", m.text);
            grid_free(&g);
            topology_free(&g.topo);
        }
    }
    free(grids);
    return rc;
}

static long count_exchanges(const struct plan *p, int nranks)
{
    long grids = 0;
    int(*tmp)[3] = sb_malloc(MAX_GRIDS * sizeof *tmp, "grids");
    for (int i = 0; i < p->nteams; i++)
        grids += p->all_grids ? factorisations(nranks / (int)p->teams[i], tmp, MAX_GRIDS) : 1;
    free(tmp);
    return grids * p->nk * p->nkinds * p->nbytes * p->nmodules *
           (point_runs(p) + p->repetitions * (p->batch - 1));
}

int cmd_exchange(struct run_ctx *ctx)
{
    struct plan p;
    struct sb_msg m = {""};
    int rc = plan_from_config(&p, ctx->cfg, ctx, &m);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        plan_free(&p);
        return rc;
    }
    struct results r = {0};
    if (p.slot_hashes && ctx->out_dir && ctx->rank == 0) {
        CHECK(report_text_open(&r.hashes));
        fprintf(r.hashes.f, "module,team_size,dims,k,bytes,payload,box,dx,dy,dz,hash\n");
    }
    long total = count_exchanges(&p, ctx->nranks);
    log_info("\nexchange: %d module(s), phases %s, %ld repetitions after %ld warm-up%s, %ld "
             "exchanges in all; times per exchange over the ranks that receive slots:",
             p.nmodules, p.phases_text, p.repetitions, p.warmup,
             p.interleave ? ", points of a grid taking turns" : "", total);
    rc = run_all(ctx, &p, &r, total);

    long counts[2] = {0, 0}; /* points failed; of them, failed only by disagreeing */
    long injected = 0, dropped = 0;
    for (int i = 0; i < r.npoints; i++) {
        counts[0] += !point_passed(&r.pts[i]);
        counts[1] += r.pts[i].wrong_total == 0 && !r.pts[i].modules_agree;
        injected += r.pts[i].injected;
        dropped += r.pts[i].dropped;
    }
    /* Rank 0 compared the digests; all ranks must agree on the verdict. */
    if (rc == SB_OK) {
        int brc = sb_bcast(counts, 2, MPI_LONG, 0, ctx->world);
        if (brc != MPI_SUCCESS)
            rc = sb_mpi_error("MPI_Ibcast or MPI_Wait", brc, __FILE__, __LINE__);
    }
    long failed = counts[0];
    bool verified = failed == 0;
    int exit_code = verified ? SB_OK : SB_EVERIFY;
    if (rc == SB_OK && !injection_seen(&p, injected, dropped, failed)) exit_code = SB_EUSAGE;
    if (rc == SB_OK) {
        print_pass_fail(&r);
        if (ctx->out_dir && ctx->rank == 0) rc = write_outputs(ctx, &p, &r, verified, exit_code);
    }
    if (rc == SB_OK && !p.verify)
        log_info("\nverification: off (exchange.verify = 0): timings of %d points, %ld exchanges "
                 "on %d ranks; no byte was checked",
                 r.npoints, total, ctx->nranks);
    if (rc == SB_OK && p.verify) {
        char skipped[80] = ""; /* every rank skips alike: rank 0's count is the run's */
        if (dropped > 0)
            snprintf(skipped, sizeof skipped, ", %ld of them skipped by exchange.inject_drop",
                     dropped);
        log_info("\nverified: %s (%d points, %ld failed, %ld exchanges on %d ranks%s)",
                 verified ? "true" : "false", r.npoints, failed, total, ctx->nranks, skipped);
        if (failed > counts[1])
            log_info("wrong bytes: the ranks above name the first of each point");
        if (counts[1])
            log_info("%ld point(s) verified byte for byte but their slots differ between modules "
                     "(slot_digest in summary.json; exchange.slot_hashes=1 writes every slot's "
                     "hash)",
                     counts[1]);
        if (ctx->out_dir)
            log_info("results: %s/summary.json, %s/exchange.csv%s", ctx->out_dir, ctx->out_dir,
                     p.slot_hashes ? ", slot-hashes.csv" : "");
    }
    report_text_commit(&r.hashes, NULL, NULL); /* frees it if the run stopped early */
    free(r.pts);
    plan_free(&p);
    return rc == SB_OK ? exit_code : rc;
}
