/* The MD state in a checkpoint file (DESIGN.md "Checkpoint"):
 *
 *   /h5md                    H5MD 1.1: version, author, creator (ShiftBox)
 *   /particles/all/box       dimension 3, boundary periodic, edges [1][3][3]
 *   /particles/all/position  step, time, value [1][N][3] (in the global box)
 *   /particles/all/velocity  step, time, value [1][N][3]
 *   /particles/all/id        step, time, value [1][N]
 *   /parameters              the run: step, time, seed, configuration text,
 *                            ranks, dims, team size, module, version, and the
 *                            physics a restart must share
 *   /parameters/restart      particles_per_rank [P], position_in_box [N][3],
 *                            position_at_build [N][3], and the row digests
 *                            of the five particle tables (row_digest.h)
 *
 * Particles are stored rank after rank.  The H5MD part is what h5py and
 * MDAnalysis read.  /parameters/restart is what continuing bit for bit
 * needs: positions in the frame of their box (corner + x - corner is not
 * always x in floating point) and at the last neighbour-list build, from
 * which a restart on the same grid of boxes rebuilds the very lists,
 * ghosts and sums of the uninterrupted run.  On another grid the H5MD
 * positions are read in blocks and sent to the owners of their boxes. */
#ifndef SB_MD_STATE_H
#define SB_MD_STATE_H

#include "../checkpoint/checkpoint.h"
#include "md.h"

/* The run around the particles; the same on every rank. */
struct md_state_info {
    const struct md_params *prm;
    const struct md_geometry *geo;
    const struct topology *topo;
    const char *module;
    const char *config_text; /* the resolved configuration, INI */
    bool units;              /* write H5MD unit attributes (reduced units) */
};

struct h5_file;

/* H5MD 1.1 metadata (/h5md), with the units module when `units`. */
int md_write_h5md_header(struct h5_file *f, bool units);

/* The unit strings of checkpoint.units = reduced: the Lennard-Jones numbers
 * under the mapping sigma = 1 nm, m = 1 u, epsilon = 1 kJ/mol, so that
 * tau = 1 ps (GROMACS' units; docs/commands/md.md, "Checkpoint units"). */
extern const char *const md_length_unit, *const md_time_unit, *const md_velocity_unit,
                                                                  *const md_force_unit;

/* This rank's positions in the global box, wrapped into [0, L); malloc'd. */
double *md_global_positions(const struct particles *p, const struct md_geometry *g);

/* What a restart learnt from the file. */
struct md_restart {
    long step;
    double conserved0; /* the conserved energy per atom at step 0 */
    long long natoms;
    bool exact; /* the same grid of boxes: the lists of the last build restored (bit for bit
                 * with the same team size, whatever the module) */
    int ranks, dims[3], team_size; /* the decomposition that wrote it */
    char module[32];
    double bytes, seconds; /* the file, and the time it took to load */
};

/* The bytes a checkpoint of this run takes, about: per atom position,
 * velocity and id, and the two restart positions (13 values of 8 bytes),
 * plus the attributes' and metadata's 64 KiB. */
double md_state_file_estimate(const struct md_state_info *info);

/* Writes PATH.tmp collectively (members of a team, which hold no
 * particles, take part with none).  A write that fails on any rank removes
 * PATH.tmp and returns SB_ERUNTIME at once, without closing the file or
 * waiting for the other ranks (the driver aborts the job).  The fault:
 * abort the job after the positions are written, or fail the last rank's
 * velocity write alone (checkpoint.fault). */
int md_state_save(const char *path, const struct md_state_info *info, const struct particles *p,
                  long step, double conserved0, enum checkpoint_fault fault, struct sb_msg *m);

/* Reads a checkpoint into the leaders' particles (x, v, id; x0 too for an exact
 * restart on the same decomposition, else NULL).  Exits
 * with SB_EUSAGE for a file that is missing, not a ShiftBox MD checkpoint,
 * or of other physics; SB_ERUNTIME when it cannot be read (a failed
 * checksum).  Every rank returns the same code; the message is on the
 * ranks that saw the failure. */
int md_state_load(const char *path, const struct md_state_info *info, struct particles *p,
                  struct md_restart *out, struct sb_msg *m);

#endif
