/* The energy drift a correct run may show (drift.h).
 *
 * Velocity Verlet is symplectic: it conserves a shadow energy
 * H~ = E + dt^2 S(x, v) + O(dt^4) exactly (up to rounding), so the change
 * of the energy E it reports is dt^2 (S_0 - S_t) plus what rounding and the
 * force's step at the cut-off add; it does not grow with the steps by
 * itself.  Three parts, each scaled by dt^2:
 *
 *   - the start: the run leaves the perfect lattice (all forces zero) and
 *     melts within about 0.1 tau, far from equilibrium, where S changes
 *     most, in an oscillation that peaks near t = 0.08 tau (dt^2 x 13 at
 *     every size and dt measured) and dies away with t = steps dt:
 *     A exp(-t / T);
 *   - equilibrium: S fluctuates around its mean, a floor B;
 *   - the random walk of the energy that each pair crossing the cut-off
 *     (a step in the force) and rounding add, relative to an energy of N
 *     atoms: C sqrt(steps / N).
 *
 * A = 60, T = 0.08 tau, B = 1, C = 3 hold 1.6 to 850 times above each of
 * 254 drifts measured over 4^3 to 40^3 cells (cubic and not), 2 to 3000
 * steps, dt 0.0025 to 0.01 and 1 to 5 seeds (docs/commands/md.md, "Energy drift"), and
 * stay below what a force wrong by 0.1 % gives after 40 steps or more
 * (0.001 |dU| / |E|, about 2.3e-4 for the LJ benchmark; tests/faults.sh). */
#include "drift.h"

#include <math.h>

#define START_AMPLITUDE 60.0
#define START_TIME 0.08 /* tau */
#define FLOOR 1.0
#define WALK 3.0

double md_drift_bound(double dt, long steps, long long atoms)
{
    double t = (double)steps * dt;
    double n = atoms > 0 ? (double)atoms : 1.0;
    return dt * dt *
           (START_AMPLITUDE * exp(-t / START_TIME) + FLOOR + WALK * sqrt((double)steps / n));
}
