/* Particles that left their box move to the box that holds them now
 * (DESIGN.md "MD proxy"), dimension by dimension to the neighbours at -1
 * and +1, as miniMD and LAMMPS do, so that a particle that crossed an edge
 * or a corner arrives in two or three moves.  Positions are rewritten in
 * the new box's frame.  Runs at neighbour-list rebuilds, on the team
 * leaders (communicator `leaders`). */
#ifndef SB_MD_MIGRATE_H
#define SB_MD_MIGRATE_H

#include "md.h"

/* SB_ERUNTIME with a message naming the particle when one moved farther
 * than one box since the last rebuild. */
int migrate(struct particles *p, const struct md_geometry *g, const struct topology *t);

#endif
