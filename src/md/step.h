/* The steps of an MD run (run.h): velocity Verlet, the half-skin
 * trigger, migration, the exchange of positions through the module, the
 * neighbour lists, the forces (summed over a team), the energies, and the
 * checkpoints.  Every function is collective over the run's ranks: every
 * rank returns the same code, but SB_ERUNTIME, which may be this rank's
 * alone (the job then ends). */
#ifndef SB_MD_STEP_H
#define SB_MD_STEP_H

#include "run.h"

/* The ghosts, lists, forces and energies of the first step (r->start),
 * measured into r->history.  Frees r->p.x0 (an exact restart's positions
 * at the last build, from which its lists are built again). */
int md_start(struct md_run *r);

/* Step `step` of velocity Verlet, its time charged to the segments. */
int md_step(struct md_run *r, long step);

/* The state after `step` into a checkpoint file (DESIGN.md "Checkpoint"). */
int md_write_checkpoint(struct md_run *r, long step, struct sb_msg *m);

#endif
