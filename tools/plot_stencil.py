#!/usr/bin/python3
"""Plots of a `shiftbox stencil` sweep (stencil.csv), like seed 004 ch. 5.

  stencil-depth.png      execution time against halo depth, one line per
                         variant (exchange x overlap), as Figs. 5.1-5.8
  stencil-breakdown.png  the segments of each variant at each depth, as
                         Figs. 5.9-5.16
  stencil-hidden.csv     the share of communication hidden by overlap, as
                         Tables 5.1-5.2: (Ex serial - Ex overlap) /
                         (Mess + Desyn + Unpack of the serial run)

usage: tools/plot_stencil.py results/stencil/stencil.csv [--out DIR]
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

SEGMENTS = ["pack", "unpack", "inner", "outer", "primary", "message", "desync"]


def read_rows(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"plot_stencil.py: {path}: {e.strerror}; accepted: a stencil.csv from "
                 "shiftbox stencil --out DIR")
    need = {"depth", "exchange", "overlap", "execution", *SEGMENTS}
    if not rows or not need <= set(rows[0]):
        sys.exit(f"plot_stencil.py: {path}: not a stencil.csv (columns {sorted(need)} needed)")
    for r in rows:
        r["depth"] = int(r["depth"])
        r["run"] = run_label(path)
        r["overlap"] = int(r["overlap"])
        for k in ["execution", *SEGMENTS]:
            r[k] = float(r[k])
    return rows


def variant(r):
    return f"{r['exchange']} {'overlap' if r['overlap'] else 'serial'}"


def title(rows):
    r = rows[0]
    size = "x".join(r[k] for k in ("nx", "ny", "nz")[: int(r["dim"])])
    return (f"{r['dim']}D stencil {size}, {r['ranks']} ranks, {r['backend']} {r['precision']}, "
            f"{r['iterations']} iterations\n{r['run']}")


def plot_depth(rows, out):
    by = defaultdict(list)
    for r in rows:
        by[variant(r)].append((r["depth"], r["execution"]))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, pts in sorted(by.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("halo depth")
    ax.set_ylabel("execution time, s (mean over ranks)")
    ax.set_title(title(rows), fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "stencil-depth.png"), dpi=120)
    plt.close(fig)


def plot_breakdown(rows, out):
    rows = sorted(rows, key=lambda r: (variant(r), r["depth"]))
    labels = [f"{variant(r)}\nd={r['depth']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(7, 0.45 * len(rows)), 4.8))
    bottom = [0.0] * len(rows)
    for seg in SEGMENTS:
        vals = [r[seg] for r in rows]
        ax.bar(range(len(rows)), vals, bottom=bottom, label=seg)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.plot(range(len(rows)), [r["execution"] for r in rows], "k_", markersize=14,
            label="execution")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, fontsize=6, rotation=90)
    ax.set_ylabel("seconds (mean over ranks)")
    ax.set_title(title(rows), fontsize=9)
    ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "stencil-breakdown.png"), dpi=120)
    plt.close(fig)


def hidden_share(rows, out):
    serial = {(r["exchange"], r["depth"]): r for r in rows if not r["overlap"]}
    lines = []
    for r in sorted(rows, key=lambda r: (r["exchange"], r["depth"])):
        s = serial.get((r["exchange"], r["depth"]))
        if not r["overlap"] or s is None:
            continue
        comm = s["message"] + s["desync"] + s["unpack"]
        diff = s["execution"] - r["execution"]
        share = 100.0 * diff / comm if comm > 0 else float("nan")
        lines.append((r["exchange"], r["depth"], comm, diff, share))
    with open(os.path.join(out, "stencil-hidden.csv"), "w") as f:
        f.write("exchange,depth,communication,execution_difference,hidden_percent\n")
        for ln in lines:
            f.write("%s,%d,%.6g,%.6g,%.2f\n" % ln)
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--out", default=None, help="folder for the plots (default: the CSV's)")
    a = ap.parse_args()
    rows = read_rows(a.csv)
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    os.makedirs(out, exist_ok=True)
    plot_depth(rows, out)
    plot_breakdown(rows, out)
    lines = hidden_share(rows, out)
    print(title(rows))
    if lines:
        print("communication hidden by overlap (seed 004 Tables 5.1-5.2):")
        print(f"{'exchange':>8} {'depth':>5} {'Mess+Desyn+Unpack':>18} {'Ex difference':>14} "
              f"{'hidden %':>9}")
        for ex, d, comm, diff, share in lines:
            print(f"{ex:>8} {d:5d} {comm:18.6f} {diff:14.6f} {share:9.1f}")
    else:
        print("no serial/overlap pairs: the hidden share needs stencil.overlap = 0,1")
    print(f"wrote {out}/stencil-depth.png, stencil-breakdown.png, stencil-hidden.csv")


if __name__ == "__main__":
    main()
