#!/usr/bin/python3
"""The potential energy per atom of a perfect FCC lattice by an O(N^2)
minimum-image sum, written independently of shiftbox's cell lists, slots
and ghosts; compared with the step-0 energy a `shiftbox md --out DIR` run
reports.

    tests/lj_reference.py DIR [--tolerance 1e-12]
"""
import argparse
import json
import sys

import numpy as np


def lattice_energy(cells, density, cutoff):
    a = (4.0 / density) ** (1.0 / 3.0)
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    grid = np.array([[i, j, k] for i in range(cells[0]) for j in range(cells[1])
                     for k in range(cells[2])], dtype=float)
    sites = ((grid[:, None, :] + basis[None, :, :]) * a).reshape(-1, 3)
    length = np.array(cells, dtype=float) * a
    if np.any(length <= 2 * cutoff):
        sys.exit(f"lj_reference: the box {length} must exceed twice the cut-off for minimum "
                 "images")
    total = 0.0
    for i in range(len(sites) - 1):
        d = sites[i + 1:] - sites[i]
        d -= length * np.round(d / length)
        r2 = np.einsum("ij,ij->i", d, d)
        r2 = r2[r2 < cutoff * cutoff]
        sr6 = 1.0 / r2 ** 3
        total += np.sum(4.0 * sr6 * (sr6 - 1.0))
    return total / len(sites)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--tolerance", type=float, default=1e-12)
    args = ap.parse_args()
    s = json.load(open(f"{args.dir}/summary.json"))
    md = s["config"]["md"]
    want = lattice_energy(md["cells"], md["density"], md["cutoff"])
    got = s["md"]["initial"]["potential"]
    rel = abs(got - want) / abs(want)
    print(f"O(N^2) minimum image: {want:.17g}; shiftbox step 0: {got:.17g}; relative "
          f"difference {rel:.2e} (tolerance {args.tolerance:g})")
    sys.exit(0 if rel <= args.tolerance else 1)


if __name__ == "__main__":
    main()
