#!/usr/bin/python3
"""How the Shift's time grows with k, from one `shiftbox exchange --out DIR` run.

Seed 000 Eq. 1: one phase of the Shift costs t = 2k (alpha + beta m), so at a
fixed payload the time is linear in k and T(k) / (k T(1)) = 1.  This prints
that ratio per payload size from the medians (or another statistic), and the
time per hop T(k) / 2k.

    tools/shift_scaling.py results/bench [--stat median|mean|min] [--filtered]
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="the --out directory of a shiftbox exchange run")
    ap.add_argument("--stat", default="median", choices=["median", "mean", "min"])
    ap.add_argument("--filtered", action="store_true", help="use the filtered statistics")
    args = ap.parse_args()
    try:
        summary = json.load(open(f"{args.dir}/summary.json"))
    except (OSError, ValueError) as e:
        sys.exit(f"shift_scaling: {args.dir}/summary.json: {e}")
    part = "filtered_time_s" if args.filtered else "time_s"
    series = {}
    for p in summary["points"]:
        key = (p["module"], "x".join(map(str, p["dims"])), p["team_size"], p["payload"],
               p["bytes"])
        series.setdefault(key, {})[p["k"]] = p[part][args.stat]
    print(f"# {summary['environment']['ranks']} ranks, phases "
          f"{summary['config']['exchange']['phases']}, {args.stat} of {part}")
    print(f"{'module':>11} {'grid':>7} {'c':>2} {'bytes':>8} {'k':>3} {'T_us':>10} "
          f"{'T/hop_us':>9} {'T(k)/(k T(1))':>14}")
    worst = 0.0
    for key in sorted(series):
        times = series[key]
        if 1 not in times:
            continue
        module, grid, c, _, size = key
        for k in sorted(times):
            ratio = times[k] / (k * times[1])
            worst = max(worst, abs(ratio - 1))
            print(f"{module:>11} {grid:>7} {c:>2} {size:>8} {k:>3} {times[k] * 1e6:>10.3f} "
                  f"{times[k] / (2 * k) * 1e6:>9.3f} {ratio:>14.3f}")
    print(f"largest departure from linear growth in k: {worst * 100:.1f} %")
    if not summary["verified"]:
        sys.exit("shift_scaling: the run was not verified")


if __name__ == "__main__":
    main()
