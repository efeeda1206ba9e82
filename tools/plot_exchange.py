#!/usr/bin/python3
"""Plots of a `shiftbox exchange --out DIR` run, from DIR/exchange.csv.

For each grid, team size and payload kind it writes
  time-<grid>-c<c>-<payload>.png   time per exchange against k, one panel per
                                   payload size, a line per module (median)
                                   with its min-max band, log scale;
  ratio-<grid>-c<c>-<payload>.png  Team Shift's median over the Shift's,
                                   against k, a line per payload size
                                   (below 1: Team Shift wins), when both ran.

    tools/plot_exchange.py results/svt/exchange.csv [--out DIR]
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

MARKERS = {"shift": "o", "shift-isend": "s", "teamshift": "^", "direct": "D"}


def read_rows(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"plot_exchange: {e}")
    need = {"module", "team_size", "dims", "k", "bytes", "payload", "median_s", "min_s", "max_s"}
    if not rows or not need <= set(rows[0]):
        sys.exit(f"plot_exchange: {path} is not an exchange.csv of shiftbox "
                 f"(needs columns {', '.join(sorted(need))})")
    return rows


def groups(rows):
    """(dims, team_size, payload) -> bytes -> module -> sorted [(k, median, min, max)]."""
    out = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        key = (r["dims"], int(r["team_size"]), r["payload"])
        out[key][int(r["bytes"])][r["module"]].append(
            (int(r["k"]), float(r["median_s"]), float(r["min_s"]), float(r["max_s"])))
    for by_size in out.values():
        for by_module in by_size.values():
            for series in by_module.values():
                series.sort()
    return out


def plot_times(key, by_size, out_dir, label):
    dims, c, payload = key
    sizes = sorted(by_size)
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 3.8), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        for module, series in sorted(by_size[size].items()):
            k = [p[0] for p in series]
            med = [p[1] * 1e6 for p in series]
            ax.fill_between(k, [p[2] * 1e6 for p in series], [p[3] * 1e6 for p in series],
                            alpha=0.15)
            ax.plot(k, med, marker=MARKERS.get(module, "x"), label=module)
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("k (layers)")
        ax.set_title(f"{size} B per box")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("time per exchange [µs] (median, min–max)")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle(f"grid {dims}, {c} rank(s) per box, {payload} payload\n{label}", fontsize=10)
    fig.tight_layout()
    path = os.path.join(out_dir, f"time-{dims}-c{c}-{payload}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_ratio(key, by_size, out_dir, label):
    dims, c, payload = key
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    drawn = False
    for size in sorted(by_size):
        team = dict((p[0], p[1]) for p in by_size[size].get("teamshift", []))
        shift = dict((p[0], p[1]) for p in by_size[size].get("shift", []))
        ks = sorted(set(team) & set(shift))
        if not ks:
            continue
        ax.plot(ks, [team[k] / shift[k] for k in ks], marker="o", label=f"{size} B")
        drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.axhline(1.0, color="grey", lw=1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k (layers)")
    ax.set_ylabel("Team Shift / Shift (median time)")
    ax.set_title(f"grid {dims}, {c} rank(s) per box, {payload}\n{label}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, f"ratio-{dims}-c{c}-{payload}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="exchange.csv of a shiftbox exchange run")
    ap.add_argument("--out", help="folder for the PNGs (default: plots/ beside the CSV)")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    out_dir = args.out or os.path.join(os.path.dirname(os.path.abspath(args.csv)), "plots")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        print(f"plot_exchange: --out {out_dir} exists and is not a folder; accepted: a folder "
              "for the PNGs", file=sys.stderr)
        sys.exit(2)
    os.makedirs(out_dir, exist_ok=True)
    label = run_label(args.csv)
    for key, by_size in sorted(groups(rows).items()):
        print(plot_times(key, by_size, out_dir, label))
        ratio = plot_ratio(key, by_size, out_dir, label)
        if ratio:
            print(ratio)


if __name__ == "__main__":
    main()
