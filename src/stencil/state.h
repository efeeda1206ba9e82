/* The stencil field in a checkpoint (checkpoint.every in stencil) and back
 * (--restart FILE).  One HDF5 file, DIR/stencil-ITERATION.h5, written as
 * the md checkpoints are (src/checkpoint/checkpoint.h: collective, NAME.tmp
 * renamed when complete, Fletcher32 on every chunk, a digest of every
 * attribute), with an XDMF sidecar DIR/stencil-ITERATION.xmf so that
 * ParaView or VisIt open the field:
 *
 *   /field        [nz][ny][nx] (2D: [ny][nx]) float or double, chunks of
 *                 one rank's block
 *   /parameters   program, kind (stencil), iteration, dim, size, precision,
 *                 weights, configuration, attributes_digest
 *
 * A restart reads its own block on any rank grid, so the field continues
 * bit for bit (the stencil's result does not depend on the decomposition). */
#ifndef SB_STENCIL_STATE_H
#define SB_STENCIL_STATE_H

#include "run.h"

/* Writes PATH.tmp and its sidecar collectively (the caller commits it with
 * checkpoint_commit).  SB_ERUNTIME on every rank when a write fails. */
int stencil_state_save(const char *path, struct stencil_run *r, long iteration,
                       const char *config_text, struct sb_msg *m);

/* Rank 0 writes the XDMF sidecar of the committed checkpoint PATH.
 * Collective (every rank learns the outcome). */
int stencil_state_sidecar(const char *path, const struct stencil_run *r, long iteration,
                          struct sb_msg *m);

/* Reads the field of PATH into r (own points; halos at the next exchange)
 * and its iteration.  SB_EUSAGE when the file is missing, not a ShiftBox
 * stencil checkpoint, or of another grid, precision or weights;
 * SB_ERUNTIME when it is damaged.  Every rank returns the same code. */
int stencil_state_load(const char *path, struct stencil_run *r, long *iteration, struct sb_msg *m);

/* The checks of stencil_state_load without reading the field, before a run
 * sets anything up (a refused file costs no calibration or tuning, and no
 * checkpoint folder is made for it): collective over comm. */
int stencil_state_check(const char *path, const struct stencil_params *p, MPI_Comm comm,
                        long *iteration, struct sb_msg *m);

#endif
