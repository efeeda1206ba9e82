/* When checkpoints are written, where, and how a file becomes one
 * (DESIGN.md "Checkpoint").  A checkpoint is written as NAME.tmp; when
 * every rank has closed it, rank 0 flushes it to disk, renames it to NAME
 * and flushes the directory, so that a crash at any moment leaves the
 * previous checkpoint complete.  Older checkpoints of this run are removed
 * (beyond checkpoint.keep) only after a newer one is complete. */
#ifndef SB_CHECKPOINT_H
#define SB_CHECKPOINT_H

#include "../config.h"
#include "../report.h"

#include <limits.h>
#include <mpi.h>
#include <stdbool.h>

/* checkpoint.fault: what the run's second checkpoint suffers. */
enum checkpoint_fault {
    CHECKPOINT_FAULT_NONE,
    CHECKPOINT_FAULT_ABORT,     /* the job is aborted halfway through writing it */
    CHECKPOINT_FAULT_WRITE_ONE, /* the last rank alone fails a write, as on a full disk */
};

struct checkpoint_plan {
    long every;                  /* 0: none on a schedule */
    bool at_end;                 /* one after the last step too */
    int keep;                    /* how many of this run's to keep; 0: all */
    enum checkpoint_fault fault; /* checkpoint.fault */
    char dir[PATH_MAX];
    MPI_Comm comm;
    int count;                 /* checkpoints this run completed */
    char (*written)[PATH_MAX]; /* rank 0: the ones still kept, oldest first */
    int nwritten;
    double seconds, bytes;        /* all of this run's writes */
    double last_bytes;            /* the size of the newest */
    struct report_made_dirs made; /* rank 0: the folders init made for checkpoint.dir */
};

/* Reads [checkpoint]; creates checkpoint.dir (default: --out DIR, else the
 * working directory) when checkpoints are due, and removes the *.h5md.tmp
 * files a killed run left there (one line each).  Collective over comm. */
int checkpoint_plan_init(struct checkpoint_plan *c, const struct config *cfg, const char *out_dir,
                         MPI_Comm comm, struct sb_msg *m);
void checkpoint_plan_free(struct checkpoint_plan *c);

/* For a run refused after checkpoint_plan_init (exit 2): the checkpoint.dir
 * that init made goes again, while it is empty (as main does with --out). */
void checkpoint_plan_abandon(struct checkpoint_plan *c);

/* Whether a checkpoint follows step `step` of a run that ends at `last`. */
bool checkpoint_due(const struct checkpoint_plan *c, long step, long last);

/* DIR/KIND-STEP.h5md (md) or DIR/KIND-STEP.h5 (others), the name a
 * checkpoint of that step gets. */
void checkpoint_path(const struct checkpoint_plan *c, const char *kind, long step, char *path,
                     size_t size);

/* The fault this write suffers (checkpoint.fault): the run's second
 * checkpoint's, when its first is complete; CHECKPOINT_FAULT_NONE else. */
enum checkpoint_fault checkpoint_fault_now(const struct checkpoint_plan *c);

/* Whether checkpoint.dir has room for the checkpoint PATH: the newest
 * file's size (or `estimate` bytes before the first) with a margin against
 * statvfs's free space; SB_ERUNTIME on every rank when not, before anything
 * is written.  Collective. */
int checkpoint_room(const struct checkpoint_plan *c, const char *path, double estimate,
                    struct sb_msg *m);

/* Makes PATH.tmp the checkpoint PATH (see above) and prunes old ones;
 * records its size and the time since `started`.  Collective. */
int checkpoint_commit(struct checkpoint_plan *c, const char *path, double started,
                      struct sb_msg *m);

/* The XDMF sidecar of a checkpoint NAME.h5: NAME.xmf (false for others).
 * Removed with its checkpoint. */
bool checkpoint_sidecar(const char *path, char *sidecar, size_t size);

/* Whether `path` is a regular HDF5 file this process can read; SB_EUSAGE with a
 * message naming `key`, the cause and `accepted` (what the key takes) if
 * not. */
int checkpoint_exists(const char *path, const char *key, const char *accepted, struct sb_msg *m);

#endif
