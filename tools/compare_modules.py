#!/usr/bin/python3
"""Each module's time over a reference module's, from one `shiftbox exchange --out DIR` run.

The modules of a sweep point ran in turns on the same boxes and payloads, so
their ratios come from one run.  Prints, per grid, team size, payload, k and
size, the median of every module divided by the reference's median (below 1:
faster than the reference).

    tools/compare_modules.py DIR [--reference shift] [--stat median|mean|min]
"""
import argparse
import json
import sys
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="the --out directory of a shiftbox exchange run")
    ap.add_argument("--reference", default="shift")
    ap.add_argument("--stat", default="median", choices=["median", "mean", "min"])
    args = ap.parse_args()
    try:
        summary = json.load(open(f"{args.dir}/summary.json"))
    except (OSError, ValueError) as e:
        sys.exit(f"compare_modules: {args.dir}/summary.json: {e}")
    points = defaultdict(dict)
    modules = []
    for p in summary["points"]:
        key = ("x".join(map(str, p["dims"])), p["team_size"], p["payload"], p["k"], p["bytes"])
        points[key][p["module"]] = p["time_s"][args.stat]
        if p["module"] not in modules:
            modules.append(p["module"])
    if args.reference not in modules:
        sys.exit(f"compare_modules: no points of '{args.reference}' in {args.dir}")
    others = [m for m in modules if m != args.reference]
    print(f"# {args.stat} time over {args.reference}'s, {summary['environment']['ranks']} ranks")
    print(f"{'grid':>7} {'c':>2} {'payload':>7} {'k':>2} {'bytes':>7} "
          f"{args.reference + '_us':>10} " + " ".join(f"{m:>11}" for m in others))
    for key in sorted(points):
        row = points[key]
        ref = row[args.reference]
        ratios = " ".join(f"{row[m] / ref:>11.2f}" if m in row and ref > 0 else f"{'-':>11}"
                          for m in others)
        print(f"{key[0]:>7} {key[1]:>2} {key[2]:>7} {key[3]:>2} {key[4]:>7} {ref * 1e6:>10.3f} "
              f"{ratios}")
    if not summary["verified"]:
        sys.exit("compare_modules: the run was not verified")


if __name__ == "__main__":
    main()
