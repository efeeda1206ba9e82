/* One point of a stencil sweep (point.h). */
#include "point.h"
#include "state.h"
#include "../checkpoint/checkpoint.h"
#include "../coll.h"
#include "../log.h"
#include "../timer.h"

#include <limits.h>
#include <stdlib.h>

static int spread(struct stencil_run *r, struct stencil_point *pt)
{
    CHECK_MPI(timer_spread(r->seg, NSEGMENTS, r->comm, pt->seg_min, pt->seg_mean, pt->seg_max));
    const int *gl = r->p.global;
    double cells = (double)gl[0] * gl[1] * gl[2] * (double)r->p.iterations;
    pt->gcells = pt->seg_max[SEG_EXECUTION] > 0 ? cells / pt->seg_max[SEG_EXECUTION] / 1e9 : 0;
    double sent = (double)r->halo.bytes_sent, all = 0;
    CHECK_MPI(MPI_Allreduce(&sent, &all, 1, MPI_DOUBLE, MPI_SUM, r->comm));
    pt->bytes_per_iteration = all / r->p.depth;
    return SB_OK;
}

static int field_hash(struct stencil_run *r, const void *own, uint64_t *hash)
{
    uint64_t mine = stencil_hash(r, own);
    CHECK_MPI(MPI_Allreduce(&mine, hash, 1, MPI_UINT64_T, MPI_BXOR, r->comm));
    return SB_OK;
}

static int verify_point(const struct stencil_plan *p, struct stencil_run *r, const void *own,
                        struct stencil_references *ref, struct stencil_point *pt, struct sb_msg *m)
{
    void *global = NULL;
    CHECK(stencil_gather(r, own, &global));
    int verdict[2] = {-1, -1}, rc = SB_OK;
    if (r->rank == 0) {
        if (!ref->same) rc = stencil_reference(&p->base, p->ops, &ref->same, m);
        if (rc == SB_OK) {
            field_compare(global, ref->same, p->base.global, p->base.real_bytes, &pt->diff);
            verdict[0] = pt->diff.differing == 0;
        }
        if (rc == SB_OK && p->ops != &stencil_backend_cpu) {
            if (!ref->cpu) rc = stencil_reference(&p->base, &stencil_backend_cpu, &ref->cpu, m);
            if (rc == SB_OK) {
                field_compare(global, ref->cpu, p->base.global, p->base.real_bytes, &pt->cpu);
                /* fmad is off and both add in the same order: bit for bit */
                verdict[1] = pt->cpu.differing == 0;
            }
        }
        free(global);
    }
    CHECK(sb_agree(rc, m, r->comm)); /* a reference rank 0 could not compute: all return */
    CHECK_MPI(MPI_Bcast(verdict, 2, MPI_INT, 0, r->comm));
    pt->verified = verdict[0];
    pt->cpu_agrees = verdict[1];
    return SB_OK;
}

/* The field after `it` iterations into a checkpoint, and its sidecar. */
static int write_checkpoint(const struct stencil_plan *p, struct stencil_run *r, long it,
                            struct sb_msg *m)
{
    char path[PATH_MAX + 32];
    checkpoint_path(p->ckpt, "stencil", it, path, sizeof path);
    double started = MPI_Wtime();
    double bytes =
        (double)r->grid.global[0] * r->grid.global[1] * r->grid.global[2] * r->p.real_bytes;
    CHECK(checkpoint_room(p->ckpt, path, bytes + 65536, m));
    CHECK(stencil_state_save(path, r, it, p->config_text, m));
    CHECK(checkpoint_commit(p->ckpt, path, started, m));
    return stencil_state_sidecar(path, r, it, m);
}

/* Iterations `done` .. `total`, stopping for every checkpoint that is due
 * (the field does not depend on where the exchanges fall, so a checkpoint
 * between two exchanges changes nothing). */
static int iterate_with_checkpoints(const struct stencil_plan *p, struct stencil_run *r, long done,
                                    long total, struct sb_msg *m)
{
    long every = p->ckpt ? p->ckpt->every : 0;
    for (long it = done; it < total;) {
        long n = stencil_stretch(it, total, every);
        CHECK(stencil_iterate(r, n)); /* the timers count this, not the checkpoints */
        it += n;
        if (p->ckpt && checkpoint_due(p->ckpt, it, total)) CHECK(write_checkpoint(p, r, it, m));
    }
    return SB_OK;
}

int stencil_point_run(const struct stencil_plan *p, MPI_Comm comm, struct stencil_point *pt,
                      struct stencil_references *ref, struct sb_msg *m)
{
    struct stencil_params prm = p->base;
    prm.depth = pt->depth;
    prm.async = pt->async;
    prm.overlap = pt->overlap;
    struct stencil_run r;
    int rc = sb_agree(stencil_setup(&r, &prm, comm, p->dims, p->ops, m), m, comm);
    if (rc != SB_OK) {
        stencil_teardown(&r); /* what setup made here, if it failed elsewhere */
        return rc;
    }
    pt->stores = p->ops != &stencil_backend_cpu                ? "device"
                 : r.backend.layout.stores == STORES_STREAMING ? "streaming"
                                                               : "cached";
    if (rc == SB_OK) rc = stencil_tune_tile(&r, &pt->tuning);
    if (rc == SB_OK && p->warmup > 0) {
        r.p.inject_fault = -1;
        rc = stencil_fill(&r);
        if (rc == SB_OK) rc = stencil_iterate(&r, p->warmup);
        r.p.inject_fault = prm.inject_fault;
    }
    long done = 0; /* iterations the field has had: a restart's */
    if (rc == SB_OK && p->restart[0]) {
        rc = stencil_state_load(p->restart, &r, &done, m); /* its iteration checked before */
        if (rc == SB_OK)
            log_info("restart: %s, iteration %ld of %ld", p->restart, done, prm.iterations);
    } else if (rc == SB_OK) {
        rc = stencil_fill(&r);
    }
    if (rc == SB_OK) rc = MPI_Barrier(comm) == MPI_SUCCESS ? SB_OK : SB_ERUNTIME;
    if (rc == SB_OK) rc = iterate_with_checkpoints(p, &r, done, prm.iterations, m);
    if (rc == SB_OK) rc = spread(&r, pt);
    pt->tiles = rc == SB_OK && p->ops->blocked_where ? p->ops->blocked_where(&r.backend) : NULL;
    pt->tile = r.p.tile;
    /* The field leaves the backend once, for the hash and the check. */
    void *own = sb_malloc(stencil_own_count(&r) * (size_t)prm.real_bytes + 1, "own points");
    if (rc == SB_OK) rc = stencil_own_points(&r, own);
    if (rc == SB_OK) rc = field_hash(&r, own, &pt->hash);
    pt->verified = pt->cpu_agrees = -1;
    if (rc == SB_OK && p->verify) rc = verify_point(p, &r, own, ref, pt, m);
    free(own);
    stencil_teardown(&r);
    return rc;
}
