/* The MD trajectory: one H5MD 1.1 file (trajectory.file), a frame appended
 * every trajectory.every steps and at the run's first step -- positions,
 * and velocities and forces when asked -- that MDAnalysis iterates frame by
 * frame.  Unlike a checkpoint, row i of every frame is particle id i (what
 * a trajectory reader assumes): each frame the particles travel to the rank
 * that writes their block of ids, and every rank writes one contiguous
 * block, collectively, into chunked, deflated, Fletcher32-checked series.
 * The file is flushed after every frame, so a killed run leaves the frames
 * written so far readable. */
#ifndef SB_MD_TRAJECTORY_H
#define SB_MD_TRAJECTORY_H

#include "../checkpoint/h5.h"
#include "../config.h"
#include "md.h"
#include "state.h"

#include <limits.h>
#include <stdbool.h>

struct md_trajectory {
    long every; /* 0: no trajectory */
    bool velocities, forces, units;
    char path[PATH_MAX];
    struct h5_file file;
    struct sb_msg msg; /* where HDF5's failures are described */
    hid_t position, velocity, force, step, time, edges;
    hsize_t frames;
    long long natoms;
    hsize_t first, count;  /* this rank's block of ids */
    double seconds, bytes; /* time spent appending; bytes of the last frame, all ranks */
};

/* Reads [trajectory]; with trajectory.every > 0 creates the file (exit 2,
 * nothing touched, when it exists already).  Collective over info->topo. */
int md_trajectory_open(struct md_trajectory *t, const struct config *cfg, const char *out_dir,
                       const struct md_state_info *info, long long natoms, struct sb_msg *m);

/* Whether step `step` gets a frame (the run's first step, and every
 * trajectory.every steps). */
bool md_trajectory_due(const struct md_trajectory *t, long step, long first_step);

/* Appends the state of `step` (the leaders' particles).  Collective.  A
 * failure is SB_ERUNTIME with the file and call named; the caller ends the
 * job (a rank that failed cannot be waited for). */
int md_trajectory_append(struct md_trajectory *t, const struct md_state_info *info,
                         const struct particles *p, long step, struct sb_msg *m);

/* Closes the file (SB_ERUNTIME when HDF5 could not flush it). */
int md_trajectory_close(struct md_trajectory *t, struct sb_msg *m);

#endif
