#!/usr/bin/python3
"""The radial distribution function g(r) of an md trajectory, with MDAnalysis.

    tools/md_rdf.py TRAJECTORY.h5md [--out DIR] [--rmax 4.0] [--bins 160] [--skip 0]

TRAJECTORY is the file `md` writes with trajectory.every=N (docs/commands/md.md,
"Trajectories"); MDAnalysis opens it without a topology.  g(r) is averaged
over its frames (after the first --skip of them), all atom pairs, r in
Lennard-Jones units sigma up to --rmax (less than half the box edge).
Writes DIR/rdf.csv (r_sigma, g) and DIR/rdf.png, and prints the first
peak.  Lengths: with checkpoint.units=reduced the file labels sigma as
1 nm, which MDAnalysis reads as 10 Angstrom; this script divides by 10
again (with checkpoint.units=none it would have to be told: it refuses
such files).
"""
import argparse
import os
import sys
import warnings


def refuse(message):
    """Bad input: the message, exit 2."""
    print(f"md_rdf: {message}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trajectory")
    ap.add_argument("--out", default=".")
    ap.add_argument("--rmax", type=float, default=4.0, help="largest r, in sigma")
    ap.add_argument("--bins", type=int, default=160)
    ap.add_argument("--skip", type=int, default=0, help="frames left out at the start")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    import MDAnalysis as mda
    from MDAnalysis.analysis.rdf import InterRDF

    if not os.path.exists(a.trajectory):
        refuse(f"{a.trajectory}: no such file")
    u = mda.Universe(a.trajectory)
    unit = u.trajectory.units.get("length")
    if unit != "nm":
        refuse(f"{a.trajectory}: lengths in {unit!r}, not the nm of checkpoint.units=reduced; "
               "accepted: a trajectory written with the default units")
    half = min(u.dimensions[:3]) / 20  # Angstrom -> sigma, and half of it
    if not 0 < a.rmax <= half:
        refuse(f"--rmax {a.rmax}: accepted: 0 < rmax <= {half:.3f} (half the box edge, in sigma)")
    if not 0 <= a.skip < len(u.trajectory):
        refuse(f"--skip {a.skip}: accepted: 0 .. {len(u.trajectory) - 1} frames")
    # the three lines of docs/commands/md.md: every pair once, self-pairs excluded
    rdf = InterRDF(u.atoms, u.atoms, nbins=a.bins, range=(0.0, 10 * a.rmax),
                   exclusion_block=(1, 1)).run(start=a.skip)
    r = rdf.results.bins / 10
    g = rdf.results.rdf
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "rdf.csv"), "w") as f:
        f.write("r_sigma,g\n")
        for x, y in zip(r, g):
            f.write(f"{x:.6g},{y:.6g}\n")
    peak = int(g.argmax())
    print(f"md_rdf: {u.atoms.n_atoms} atoms, {len(u.trajectory) - a.skip} frames: "
          f"first peak g = {g[peak]:.3f} at r = {r[peak]:.3f} sigma")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(r, g)
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.set_xlabel("r (sigma)")
    ax.set_ylabel("g(r)")
    from plotmeta import run_label
    ax.set_title(f"{os.path.basename(a.trajectory)}: {u.atoms.n_atoms} atoms, "
                 f"{len(u.trajectory) - a.skip} frames\n{run_label(a.trajectory)}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "rdf.png"), dpi=120)
    print(f"md_rdf: {os.path.join(a.out, 'rdf.csv')}, {os.path.join(a.out, 'rdf.png')}")


if __name__ == "__main__":
    main()
