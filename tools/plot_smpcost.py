#!/usr/bin/python3
"""Predicted against measured superstep times of a `shiftbox smpcost` run,
one panel per family (good, bad), like seed 003 Figs. 1-2: the family's
best function and the BSP-like H, every suite, on log-log axes with the
line of perfect prediction.

usage: tools/plot_smpcost.py results/smpcost [--out DIR]
   (the folder of smpcost --out, holding summary.json and smpcost.csv; with
   smpcost-apps.csv (smp.apps) also smpcost-apps.png, like seed 003 Fig. 3:
   each application's copy time against n between Good and Bad)
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

from plotmeta import run_label

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(folder):
    try:
        summary = json.load(open(os.path.join(folder, "summary.json")))["smpcost"]
        rows = list(csv.DictReader(open(os.path.join(folder, "smpcost.csv"))))
    except (OSError, KeyError, json.JSONDecodeError) as e:
        sys.exit(f"plot_smpcost.py: {folder}: {e}; accepted: a folder written by "
                 "shiftbox smpcost --out DIR")
    return summary, rows


def plot_apps(rows, summary, folder, out):
    """Seed 003 Fig. 3: each application's measured copy time against n,
    with the summed Good and Bad predictions (smp.apps)."""
    apps = sorted({r["app"] for r in rows})
    fig, axes = plt.subplots(1, len(apps), figsize=(6 * len(apps), 4.5), squeeze=False)
    for ax, app in zip(axes[0], apps):
        runs = {}
        for r in rows:
            if r["app"] == app:
                t = runs.setdefault(int(r["n"]), [0.0, 0.0, 0.0])
                t[0] += float(r["measured_s"])
                t[1] += float(r["good_s"])
                t[2] += float(r["bad_s"])
        ns = sorted(runs)
        for i, (label, style) in enumerate((("measured", "o-"), ("Good (HrHwM-c)", "s--"),
                                            ("Bad (HrHwM)", "^--"))):
            ax.plot(ns, [1e3 * runs[n][i] for n in ns], style, ms=3, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n, keys")
        ax.set_ylabel("copies of all supersteps, ms")
        ax.set_title(f"{app} sort", fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"smpcost applications (seed 003 Fig. 3): {summary['workers']} workers\n"
                 f"{run_label(folder)}", fontsize=10)
    fig.tight_layout()
    path = os.path.join(out, "smpcost-apps.png")
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--out", default=None, help="folder for smpcost.png (default: the run's)")
    a = ap.parse_args()
    summary, rows = load(a.folder)
    out = a.out or a.folder
    os.makedirs(out, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(11, 5))
    for ax, family in zip(axes, ("good", "bad")):
        best = summary[family]["best"]
        fit_suite = summary[family]["fit_suite"]
        pts = [r for r in rows if r["mode"] == family]
        lo, hi = float("inf"), 0.0
        for fn, marker in ((best, "o"), ("H", "x")):
            for suite in ("1", "2", "3"):
                sel = [r for r in pts if r["suite"] == suite and r[fn]]
                if not sel:
                    continue
                m = [1e6 * float(r["measured_s"]) for r in sel]
                p = [max(1e6 * float(r[fn]), 1e-3) for r in sel]  # a negative prediction at the floor
                lo, hi = min(lo, *m, *p), max(hi, *m, *p)
                role = "fit" if int(suite) == fit_suite else "validation"
                ax.scatter(m, p, s=12, marker=marker, alpha=0.7,
                           label=f"{fn}, suite {suite} ({role})")
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("measured, us")
        ax.set_ylabel("predicted, us")
        ax.set_title(f"{family} family: best {best}", fontsize=10)
        ax.legend(fontsize=7)
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"smpcost: {summary['workers']} workers, {summary['cache']}\n{run_label(a.folder)}",
                 fontsize=10)
    fig.tight_layout()
    path = os.path.join(out, "smpcost.png")
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")
    apps_csv = os.path.join(a.folder, "smpcost-apps.csv")
    if os.path.exists(apps_csv):
        plot_apps(list(csv.DictReader(open(apps_csv))), summary, a.folder, out)
    for family in ("good", "bad"):
        for f in summary[family]["functions"]:
            if f["fitted"]:
                print(f"{family:4} {f['function']:8} average {100 * f['average_relative_error']:6.1f} %"
                      f"  maximum {100 * f['maximum_relative_error']:6.1f} %")


if __name__ == "__main__":
    main()
