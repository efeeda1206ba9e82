/* When checkpoints are written, where, and how a file becomes one
 * (DESIGN.md "Checkpoint").  A checkpoint is written as NAME.tmp; when
 * every rank has closed it, rank 0 flushes it to disk, renames it to NAME
 * and flushes the directory, so that a crash at any moment leaves the
 * previous checkpoint complete.  Older checkpoints of this run are removed
 * (beyond checkpoint.keep) only after a newer one is complete. */
#ifndef SB_CHECKPOINT_H
#define SB_CHECKPOINT_H

#include "../config.h"

#include <limits.h>
#include <mpi.h>
#include <stdbool.h>

struct checkpoint_plan {
    long every;              /* 0: none on a schedule */
    bool at_end;             /* one after the last step too */
    int keep;                /* how many of this run's to keep; 0: all */
    bool abort_during_write; /* checkpoint.fault = abort-during-write */
    char dir[PATH_MAX];
    MPI_Comm comm;
    int count;                 /* checkpoints this run completed */
    char (*written)[PATH_MAX]; /* rank 0: the ones still kept, oldest first */
    int nwritten;
    double seconds, bytes; /* all of this run's writes */
};

/* Reads [checkpoint]; creates checkpoint.dir (default: --out DIR, else the
 * working directory) when checkpoints are due.  Collective over comm. */
int checkpoint_plan_init(struct checkpoint_plan *c, const struct config *cfg, const char *out_dir,
                         MPI_Comm comm, struct sb_msg *m);
void checkpoint_plan_free(struct checkpoint_plan *c);

/* Whether a checkpoint follows step `step` of a run that ends at `last`. */
bool checkpoint_due(const struct checkpoint_plan *c, long step, long last);

/* DIR/KIND-STEP.h5md, the name a checkpoint of that step gets. */
void checkpoint_path(const struct checkpoint_plan *c, const char *kind, long step, char *path,
                     size_t size);

/* Whether this write is to be cut off halfway (the fault of
 * checkpoint.fault): the run's second, when its first is complete. */
bool checkpoint_abort_now(const struct checkpoint_plan *c);

/* Makes PATH.tmp the checkpoint PATH (see above) and prunes old ones;
 * records its size and the time since `started`.  Collective. */
int checkpoint_commit(struct checkpoint_plan *c, const char *path, double started,
                      struct sb_msg *m);

/* Whether `path` exists; SB_EUSAGE with a message naming `key` if not. */
int checkpoint_exists(const char *path, const char *key, struct sb_msg *m);

#endif
