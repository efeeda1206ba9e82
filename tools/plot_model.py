#!/usr/bin/python3
"""Measured against predicted, from a `shiftbox exchange --out DIR` run made
with model.hockney set: per module, the median time per exchange with a
band of one standard deviation around the mean, and the Hockney prediction,
against k; one panel per payload size, like seed 000's Tables 2-6.

    tools/plot_model.py DIR/exchange.csv [--out DIR] [--module shift]
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

from plotmeta import run_label

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--out", help="folder for the PNG (default: plots/ beside the CSV)")
    ap.add_argument("--module", help="only this module")
    args = ap.parse_args()
    # the hand-written baselines (exchange.baseline) have no model: not plotted
    if not os.path.isfile(args.csv):
        print(f"plot_model: {args.csv}: no such file; accepted: the exchange.csv of shiftbox "
              "exchange --out DIR, run with model.hockney", file=sys.stderr)
        sys.exit(2)
    rows = [r for r in csv.DictReader(open(args.csv)) if not r["module"].startswith("baseline-")]
    if not rows or not rows[0].get("predicted_s"):
        sys.exit(f"plot_model: {args.csv} has no predictions; run shiftbox exchange with "
                 "-s model.hockney=DIR/hockney.json")
    series = defaultdict(lambda: defaultdict(list))  # (grid, c, payload, bytes) -> module -> rows
    if args.module and not any(r["module"] == args.module for r in rows):
        print(f"plot_model: --module {args.module}: not in {args.csv}; accepted: "
              + ", ".join(sorted({r['module'] for r in rows})), file=sys.stderr)
        sys.exit(2)
    for r in rows:
        if args.module and r["module"] != args.module:
            continue
        key = (r["dims"], r["team_size"], r["payload"], int(r["bytes"]))
        series[key][r["module"]].append(r)
    out_dir = args.out or os.path.join(os.path.dirname(os.path.abspath(args.csv)), "plots")
    os.makedirs(out_dir, exist_ok=True)
    groups = defaultdict(list)
    for key in sorted(series):
        groups[key[:3]].append(key)
    for (dims, c, payload), keys in groups.items():
        fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 3.8), squeeze=False)
        for ax, key in zip(axes[0], keys):
            for n, (module, pts) in enumerate(sorted(series[key].items())):
                pts.sort(key=lambda r: int(r["k"]))
                k = [int(r["k"]) for r in pts]
                mean = [float(r["mean_s"]) * 1e6 for r in pts]
                sd = [float(r["stddev_s"]) * 1e6 for r in pts]
                colour = f"C{n}"
                # a band of mean - sigma below zero means nothing on a time axis
                ax.fill_between(k, [max(m - s, 0.05 * m) for m, s in zip(mean, sd)],
                                [m + s for m, s in zip(mean, sd)], color=colour, alpha=0.15)
                ax.plot(k, [float(r["median_s"]) * 1e6 for r in pts], "o-", color=colour,
                        label=f"{module} measured")
                ax.plot(k, [float(r["predicted_s"]) * 1e6 for r in pts], "x--", color=colour,
                        label=f"{module} predicted")
            values = [float(r[c]) for pts in series[key].values() for r in pts
                      for c in ("median_s", "predicted_s") if float(r[c]) > 0]
            values += [float(r["mean_s"]) + float(r["stddev_s"])  # the bands' tops
                       for pts in series[key].values() for r in pts]
            if values and max(values) > 10 * min(values):  # decades: a log axis
                ax.set_yscale("log")
            ax.set_title(f"{key[3]} B per box")
            ax.set_xlabel("k (layers)")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(True, alpha=0.3)
        axes[0][0].set_ylabel("time per exchange [µs] (median, mean ± σ)")
        axes[0][-1].legend(fontsize=7)
        fig.suptitle(f"measured against the Hockney model: grid {dims}, c = {c}, {payload}"
                     f"\n{run_label(args.csv)}", fontsize=10)
        fig.tight_layout()
        path = os.path.join(out_dir, f"model-{dims}-c{c}-{payload}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(path)


if __name__ == "__main__":
    main()
