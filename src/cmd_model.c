/* shiftbox model: the predicted time of one exchange for every module, from
 * the Hockney parameters of a pingpong run (seed 000 sec. 3, docs/MODEL.md),
 * over k and the payload, on the grid of boxes model.dims, with Team Shift
 * for each team size; and, for each team size and payload, the smallest k
 * at which Team Shift beats the Shift: the trade-off seed 000 sets out to
 * find.  Needs no MPI run beyond the one rank that prints. */
#include "coll.h"
#include "command.h"
#include "log.h"
#include "model.h"
#include "report.h"
#include "../comm/exchange.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLUMNS 64

struct column {
    const char *module;
    int team_size;
    char title[32];
};

struct model_plan {
    struct hockney h;
    long long k[CONFIG_MAX_LIST], bytes[CONFIG_MAX_LIST], teams[CONFIG_MAX_LIST];
    int nk, nbytes, nteams;
    struct column col[MAX_COLUMNS];
    int ncols;
    struct model_case base;
};

/* Loads model.hockney; SB_EUSAGE naming the key when it is not set. */
/* model.hockney (and model.smp, model.torus) as this rank reads them. */
static int load_files(const struct config *c, struct hockney *h, struct sb_msg *m)
{
    const char *path = cfg_text(c, "model.hockney");
    if (!path[0])
        return sb_fail(m, SB_EUSAGE,
                       "model.hockney is not set; accepted: the path of a hockney.json that "
                       "shiftbox pingpong --out DIR wrote (mpirun -np 2 build/shiftbox pingpong "
                       "--out results/pp)");
    CHECK(hockney_load(h, path, m));
    const char *smp = cfg_text(c, "model.smp");
    if (smp[0]) CHECK(smp_copy_load(&h->smp, smp, m));
    long long torus[CONFIG_MAX_LIST];
    int n = cfg_int_list(c, "model.torus", torus);
    if (n != 0 && n != 3)
        return sb_fail(m, SB_EUSAGE,
                       "model.torus = '%s': %d sizes; accepted: three, A,B,C (e.g. 4,4,4), or none",
                       cfg_raw(c, "model.torus"), n);
    if (n == 3 && torus[0] * torus[1] * torus[2] > INT_MAX) /* each at most 65536 */
        return sb_fail(m, SB_EUSAGE,
                       "model.torus = %lld,%lld,%lld has %lld hosts; accepted: at most %d, one per "
                       "MPI rank",
                       torus[0], torus[1], torus[2], torus[0] * torus[1] * torus[2], INT_MAX);
    for (int i = 0; i < n; i++) h->torus[i] = (int)torus[i];
    return SB_OK;
}

int model_load_hockney(const struct config *c, struct hockney *h, MPI_Comm comm,
                       struct sb_msg *m)
{
    CHECK(sb_agree(load_files(c, h, m), m, comm));
    /* every copy as read against rank 0's: the first rank whose differs */
    const char *keys[2] = {"model.hockney", "model.smp"};
    uint64_t mine[2] = {h->text_hash, h->smp.text_hash}, zero[2] = {mine[0], mine[1]};
    CHECK_MPI(MPI_Bcast(zero, 2, MPI_UINT64_T, 0, comm));
    int rank, first, which = mine[0] != zero[0] ? 0 : mine[1] != zero[1] ? 1 : -1;
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    int differs = which >= 0 ? rank : INT_MAX;
    CHECK_MPI(MPI_Allreduce(&differs, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first == INT_MAX) return SB_OK;
    CHECK_MPI(MPI_Bcast(&which, 1, MPI_INT, first, comm));
    return sb_fail(m, SB_EUSAGE,
                   "%s = '%s': rank %d read a file of other contents than rank 0's (a copy per "
                   "node?), so predictions, and auto's choice of module, could differ between "
                   "ranks; accepted: the same file, or identical copies, on every rank",
                   keys[which], cfg_text(c, keys[which]), first);
}

static int read_plan(struct model_plan *p, const struct config *c, MPI_Comm comm,
                     struct sb_msg *m)
{
    memset(p, 0, sizeof *p);
    CHECK(model_load_hockney(c, &p->h, comm, m)); /* collective: before any other refusal */
    p->nk = cfg_int_list(c, "exchange.k", p->k);
    p->nbytes = cfg_int_list(c, "exchange.bytes", p->bytes);
    if (cfg_all(c, "exchange.team_size"))
        return sb_fail(m, SB_EUSAGE,
                       "exchange.team_size = all: the model runs on no ranks to "
                       "divide; accepted: a list of team sizes");
    p->nteams = cfg_int_list(c, "exchange.team_size", p->teams);
    p->base.phases = phases_parse(cfg_text(c, "exchange.phases"));
    p->base.rendezvous = cfg_bool(c, "model.rendezvous");
    p->base.deliver_all = !strcmp(cfg_text(c, "exchange.team_deliver"), "all");
    cfg_int3(c, "model.dims", p->base.dims);
    long long ranks = (long long)p->base.dims[0] * p->base.dims[1] * p->base.dims[2];
    for (int t = 0; t < p->nteams; t++)
        if (ranks > INT_MAX / p->teams[t])
            return sb_fail(m, SB_EUSAGE,
                           "model.dims = %d,%d,%d (%lld boxes) with exchange.team_size = %lld "
                           "ranks per box: more ranks than MPI numbers (%d); accepted: fewer",
                           p->base.dims[0], p->base.dims[1], p->base.dims[2], ranks, p->teams[t],
                           INT_MAX);
    /* A prediction costs nothing: unless the user chose modules, show them all. */
    bool every = cfg_is_default(c, "exchange.module");
    char name[64];
    for (int i = 0; every ? exchange_modules[i] != NULL
                          : cfg_choice_item(c, "exchange.module", i, name, sizeof name);
         i++) {
        const exchange_ops *ops = every ? exchange_modules[i] : exchange_lookup(name);
        if (!ops) continue; /* auto: what the model decides, not a column */
        /* A module without teams runs on the team leaders (as exchange and
         * auto run it): on a torus they lie c hosts apart, which changes
         * its cost, so it gets a column per team size there too. */
        bool per_team = ops->teams || model_torus(&p->h);
        int columns = per_team ? p->nteams : 1;
        if (p->ncols + columns > MAX_COLUMNS)
            return sb_fail(m, SB_EUSAGE,
                           "shiftbox model predicts at most %d columns (a module per team size "
                           "of exchange.team_size%s); accepted: fewer team sizes or modules",
                           MAX_COLUMNS, model_torus(&p->h) ? ", every module with model.torus" : "");
        for (int t = 0; t < columns; t++) {
            struct column *col = &p->col[p->ncols++];
            col->module = ops->name;
            col->team_size = per_team ? (int)p->teams[t] : 1;
            snprintf(col->title, sizeof col->title,
                     ops->teams ? "%s(c=%d)" : per_team ? "%s(l=%d)" : "%s", ops->name,
                     col->team_size);
        }
    }
    if (p->ncols == 0) return sb_fail(m, SB_EUSAGE, "exchange.module names no module to predict");
    for (int i = 0; i < p->ncols; i++)
        CHECK(model_torus_fits(&p->h,
                               (long long)p->base.dims[0] * p->base.dims[1] * p->base.dims[2] *
                                   p->col[i].team_size,
                               m));
    return SB_OK;
}

static double predict(const struct model_plan *p, const char *module, int team, long long k,
                      long long bytes, struct model_terms *t)
{
    struct model_case c = p->base;
    c.module = module;
    c.team_size = team;
    c.k = (int)k;
    c.bytes = (double)bytes;
    model_predict(&p->h, &c, t, NULL);
    return t->time;
}

static void print_tables(const struct model_plan *p, FILE *csv)
{
    for (int b = 0; b < p->nbytes; b++) {
        log_info("\npredicted time per exchange, us: %lld bytes per box", p->bytes[b]);
        char line[2048];
        int at = snprintf(line, sizeof line, "%4s", "k");
        for (int c = 0; c < p->ncols; c++)
            at += snprintf(line + at, sizeof line - (size_t)at, " %15s", p->col[c].title);
        log_info("%s", line);
        for (int i = 0; i < p->nk; i++) {
            at = snprintf(line, sizeof line, "%4lld", p->k[i]);
            for (int c = 0; c < p->ncols; c++) {
                struct model_terms t;
                double time =
                    predict(p, p->col[c].module, p->col[c].team_size, p->k[i], p->bytes[b], &t);
                at += snprintf(line + at, sizeof line - (size_t)at, " %15.3f", time * 1e6);
                if (csv)
                    fprintf(csv, "%s,%d,%lld,%lld,%.9e,%.1f,%.1f\n", p->col[c].module,
                            p->col[c].team_size, p->k[i], p->bytes[b], time, t.messages, t.bytes);
            }
            log_info("%s", line);
        }
    }
}

/* For each team size and payload: the smallest k at which Team Shift's
 * prediction drops below the Shift's. */
static void print_tradeoffs(const struct model_plan *p, cJSON *list)
{
    log_info("\ntrade-off: the smallest k at which Team Shift beats the Shift (same boxes):");
    for (int t = 0; t < p->nteams; t++) {
        for (int b = 0; b < p->nbytes; b++) {
            struct model_terms terms;
            long long found = -1;
            double team = 0, shift = 0;
            for (int i = 0; i < p->nk && found < 0; i++) {
                team = predict(p, "teamshift", (int)p->teams[t], p->k[i], p->bytes[b], &terms);
                shift = predict(p, "shift", (int)p->teams[t], p->k[i], p->bytes[b], &terms);
                if (team < shift) found = p->k[i];
            }
            if (found >= 0)
                log_info("  c = %-3lld %9lld bytes: k >= %lld (Team Shift %.3f us < Shift %.3f "
                         "us there)",
                         p->teams[t], p->bytes[b], found, team * 1e6, shift * 1e6);
            else
                log_info("  c = %-3lld %9lld bytes: not up to k = %lld", p->teams[t], p->bytes[b],
                         p->k[p->nk - 1]);
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "team_size", (double)p->teams[t]);
            cJSON_AddNumberToObject(o, "bytes", (double)p->bytes[b]);
            if (found >= 0)
                cJSON_AddNumberToObject(o, "smallest_k", (double)found);
            else
                cJSON_AddNullToObject(o, "smallest_k");
            cJSON_AddItemToArray(list, o);
        }
    }
}

int cmd_model(struct run_ctx *ctx)
{
    struct model_plan *p = sb_malloc(sizeof *p, "the model's plan");
    struct sb_msg m = {""};
    int rc = sb_agree(read_plan(p, ctx->cfg, ctx->world, &m), &m, ctx->world);
    if (rc != SB_OK) {
        log_error("%s", m.text);
        free(p);
        return rc;
    }
    const struct hockney *h = &p->h;
    log_info(
        "\nmodel: grid %dx%dx%d of boxes, phases %s, %s; Hockney from %s (%s, %s): alpha "
        "%.3f us, beta %.4g ns/byte%s",
        p->base.dims[0], p->base.dims[1], p->base.dims[2], cfg_text(ctx->cfg, "exchange.phases"),
        p->base.rendezvous ? "rendezvous (send and receive in turn)" : "no rendezvous", h->source,
        h->mode, h->statistic, h->alpha * 1e6,
        h->oneway.segment[h->oneway.nsegments - 1].beta * 1e9,
        h->oneway.nsegments == 2 ? " above the eager limit" : "");
    if (!h->duplex.npoints)
        log_info("%s holds the one-way times only: duplex steps cost a one-way message, each "
                 "further message in flight beta m, copies nothing (docs/MODEL.md)",
                 h->source);
    if (h->smp.have)
        log_info("copies inside a rank costed by smpcost: %s from %s (rings of one, partners "
                 "that are the box itself, Team Shift's repacking)",
                 smp_function_names[h->smp.function], h->smp.source);
    struct report_text csv = {0};
    if (ctx->rank == 0 && ctx->out_dir) {
        CHECK(report_text_open(&csv));
        fprintf(csv.f, "module,team_size,k,bytes,predicted_s,messages,bytes_sent\n");
    }
    print_tables(p, ctx->rank == 0 ? csv.f : NULL);
    cJSON *trade = cJSON_CreateArray();
    print_tradeoffs(p, trade);
    /* nothing was run, so nothing was compared: no verdict */
    log_info("\npredictions only (no exchange was run, no verdict); docs/MODEL.md derives them");
    if (ctx->rank == 0 && ctx->out_dir) {
        rc = report_text_commit(&csv, ctx->out_dir, "model.csv");
        cJSON *root =
            report_summary_begin("model", ctx->cfg, ctx->cmd->sections, ctx->nranks, &ctx->timer, &ctx->placement);
        cJSON_AddItemToObject(root, "hockney", hockney_to_json(h));
        cJSON_AddItemToObject(root, "tradeoffs", trade);
        trade = NULL;
        if (rc == SB_OK)
            rc = report_finish_json(ctx->out_dir, "summary.json", root);
        else
            cJSON_Delete(root);
    }
    cJSON_Delete(trade);
    free(p);
    return rc;
}
