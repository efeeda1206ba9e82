/* The energy drift a correct run may show (docs/commands/md.md, "Energy drift"). */
#ifndef SB_MD_DRIFT_H
#define SB_MD_DRIFT_H

/* The largest |(E_end - E_0) / E_0| of the conserved energy that velocity
 * Verlet gives a correct run of `steps` steps of dt from the FCC lattice,
 * with `atoms` particles. */
double md_drift_bound(double dt, long steps, long long atoms);

#endif
