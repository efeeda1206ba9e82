/* The plan of a shiftbox exchange run (plan.h): every key read once, every
 * combination that cannot run refused before anything runs. */
#include "plan.h"
#include "../coll.h"
#include "../decomp.h"
#include "../model.h"
#include "../../comm/verify.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int phase_count(unsigned phases)
{
    return !!(phases & PHASE_X) + !!(phases & PHASE_Y) + !!(phases & PHASE_Z);
}

long long sweep_plan_largest_bytes(const struct sweep_plan *p)
{
    long long most = 0;
    for (int i = 0; i < p->nbytes; i++)
        if (p->bytes[i] > most) most = p->bytes[i];
    return most;
}

/* Ranks sharing this node, so a memory check can divide the node's memory. */
static int ranks_on_node(MPI_Comm comm)
{
    int me, n;
    node_place(comm, &me, &n);
    return n;
}

/* Appends ops, named `name` in `key`: each at most once, and at most
 * SWEEP_MAX_MODULES modules and baselines in all (`listing` says who
 * lists them in the message). */
static int add_module(struct sweep_plan *p, const exchange_ops *ops, const char *key,
                      const char *name, const char *listing, struct sb_msg *m)
{
    for (int j = 0; j < p->nmodules; j++)
        if (p->modules[j] == ops) return sb_fail(m, SB_EUSAGE, "%s lists '%s' twice", key, name);
    if (p->nmodules == SWEEP_MAX_MODULES)
        return sb_fail(m, SB_EUSAGE, "%s more than %d", listing, SWEEP_MAX_MODULES);
    p->modules[p->nmodules++] = ops;
    return SB_OK;
}

/* exchange.baseline: the hand-written baselines, after the modules. */
static int read_baselines(struct sweep_plan *p, const struct config *c, struct sb_msg *m)
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
        CHECK(add_module(p, exchange_lookup(name), "exchange.baseline", name,
                         "exchange.module and exchange.baseline list", m));
    }
    return SB_OK;
}

static int read_modules(struct sweep_plan *p, const struct config *c, struct sb_msg *m)
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
        CHECK(add_module(p, ops, "exchange.module", name, "exchange.module lists", m));
    }
    return SB_OK;
}

long sweep_plan_turn_length(const struct sweep_plan *p)
{
    return p->interleave > 0 ? p->interleave : p->repetitions;
}

long sweep_plan_turns(const struct sweep_plan *p)
{
    const long turn = sweep_plan_turn_length(p);
    return (p->repetitions + turn - 1) / turn;
}

long sweep_plan_point_runs(const struct sweep_plan *p)
{
    return p->warmup + sweep_plan_turns(p) + p->repetitions;
}

bool sweep_plan_lists(const struct sweep_plan *p, const exchange_ops *ops)
{
    for (int i = 0; i < p->nmodules; i++)
        if (p->modules[i] == ops) return true;
    return false;
}

static int read_kinds(struct sweep_plan *p, const struct config *c, struct sb_msg *m)
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
static int read_teams(struct sweep_plan *p, const struct config *c, int nranks, struct sb_msg *m)
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
static int check_sizes(const struct sweep_plan *p, int local_ranks, struct sb_msg *m)
{
    double node_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    double share = 0.8 * node_bytes / local_ranks;
    int np = phase_count(p->phases);
    long long bytes = sweep_plan_largest_bytes(p);
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

int sweep_plan_from_config(struct sweep_plan *p, const struct config *c, const struct run_ctx *ctx,
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
    sweep_inject_read(&p->inject, c);
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
        CHECK(model_load_hockney(c, &p->hockney, ctx->world, m));
    CHECK(read_modules(p, c, m));
    CHECK(read_kinds(p, c, m));
    CHECK(read_baselines(p, c, m));
    CHECK(read_teams(p, c, ctx->nranks, m));
    if (p->have_model) CHECK(model_torus_fits(&p->hockney, ctx->nranks, m));
    if (!p->verify && (p->inject.rank >= 0 || p->inject.drop >= 0 || p->slot_hashes))
        return sb_fail(m, SB_EUSAGE,
                       "exchange.verify = 0 checks no byte, so %s cannot be honoured; accepted: "
                       "exchange.verify = 1 with it",
                       p->inject.rank >= 0   ? "exchange.inject_fault"
                       : p->inject.drop >= 0 ? "exchange.inject_drop"
                                             : "exchange.slot_hashes");
    CHECK(sweep_inject_check(p, ctx->nranks, m));
    /* An explicit grid must fit every team size before anything runs. */
    for (int i = 0; i < p->nteams && !p->all_grids; i++) {
        int dims[3];
        CHECK(choose_dims(ctx->nranks / (int)p->teams[i], p->dims_request, dims, m));
    }
    /* decided per node (its memory, its ranks): every rank stops with the one that must */
    return sb_agree(check_sizes(p, ranks_on_node(ctx->world), m), m, ctx->world);
}

void sweep_plan_free(struct sweep_plan *p)
{
    free(p->k);
    free(p->bytes);
    free(p->teams);
}
