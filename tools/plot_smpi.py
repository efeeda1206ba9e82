#!/usr/bin/python3
"""Plots and crossovers of tools/smpi_sweep.py's sweep.csv.

    tools/plot_smpi.py SWEEP_DIR [OUTDIR]

Writes to OUTDIR (default SWEEP_DIR):
  smpi-time-PLATFORM.png     time per exchange over P, one panel per k and
                             payload, a line per module (Team Shift per c);
                             simulated solid, predicted dashed
  smpi-ratio-PLATFORM.png    Team Shift / Shift on the same boxes over the
                             payload, a panel per team size, a line per P and
                             k; crossovers (the ratio falling through 1) marked
  crossovers.csv             every crossover: platform, P, c, k, and the
                             payload where Team Shift starts to win, simulated
                             and predicted (interpolated on a log scale)
and prints the crossovers.
"""
import csv
import datetime
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"shift": "C0", "shift-isend": "C1", "direct": "C2"}
TEAM_COLOURS = {1: "C3", 2: "C4", 4: "C5", 8: "C6"}


def load(d):
    rows = list(csv.DictReader(open(os.path.join(d, "sweep.csv"))))
    for r in rows:
        for key in ("ranks", "team_size", "k", "bytes"):
            r[key] = int(r[key])
        r["time_s"] = float(r["time_s"])
        r["predicted_s"] = float(r["predicted_s"]) if r["predicted_s"] else float("nan")
    return rows


def label(r):
    return f"teamshift c={r['team_size']}" if r["module"] == "teamshift" else r["module"]


def colour(r):
    return TEAM_COLOURS.get(r["team_size"], "C7") if r["module"] == "teamshift" else \
        STYLE.get(r["module"], "C8")


def title(platform, rows, what):
    ranks = sorted({r["ranks"] for r in rows})
    return (f"{what} on the simulated {platform} (SimGrid SMPI), P = "
            f"{', '.join(map(str, ranks))}; {datetime.date.today()}")


def time_plot(platform, rows, out):
    ks = sorted({r["k"] for r in rows})
    sizes = sorted({r["bytes"] for r in rows})
    fig, axes = plt.subplots(len(ks), len(sizes), figsize=(3.2 * len(sizes), 2.8 * len(ks)),
                             squeeze=False, sharex=True)
    for i, k in enumerate(ks):
        for j, m in enumerate(sizes):
            ax = axes[i][j]
            lines = {}
            for r in rows:
                if r["k"] != k or r["bytes"] != m:
                    continue
                # the Shift family on P ranks, Team Shift with its c: one line each
                if r["module"] != "teamshift" and r["team_size"] != 1:
                    continue
                lines.setdefault(label(r), []).append(r)
            for name, pts in sorted(lines.items()):
                pts.sort(key=lambda r: r["ranks"])
                ps = [r["ranks"] for r in pts]
                ax.plot(ps, [r["time_s"] * 1e6 for r in pts], "o-", color=colour(pts[0]),
                        label=name, markersize=3)
                ax.plot(ps, [r["predicted_s"] * 1e6 for r in pts], "--", color=colour(pts[0]),
                        linewidth=0.8)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"k = {k}, {m} B", fontsize=9)
            if j == 0:
                ax.set_ylabel("time per exchange, us")
            if i == len(ks) - 1:
                ax.set_xlabel("ranks P")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", fontsize=8)
    fig.suptitle(title(platform, rows, "Time per exchange (solid: simulated, dashed: model)"),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.92, 0.96))
    path = os.path.join(out, f"smpi-time-{platform}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def crossing(xs, ys):
    """The first x where y falls to 1 or below, interpolated on log x; None."""
    for i in range(len(xs)):
        if ys[i] <= 1.0:
            if i == 0:
                return xs[0]
            a, b = math.log(xs[i - 1]), math.log(xs[i])
            t = (ys[i - 1] - 1.0) / (ys[i - 1] - ys[i])
            return math.exp(a + t * (b - a))
    return None


def ratios(rows):
    """(P, c, k) -> [(m, simulated ratio, predicted ratio)], Team Shift over the Shift."""
    shift = {(r["ranks"], r["team_size"], r["dims"], r["k"], r["bytes"]): r for r in rows
             if r["module"] == "shift"}
    out = {}
    for r in rows:
        if r["module"] != "teamshift":
            continue
        s = shift.get((r["ranks"], r["team_size"], r["dims"], r["k"], r["bytes"]))
        if not s or s["time_s"] <= 0:
            continue
        out.setdefault((r["ranks"], r["team_size"], r["k"]), []).append(
            (r["bytes"], r["time_s"] / s["time_s"], r["predicted_s"] / s["predicted_s"]))
    for v in out.values():
        v.sort()
    return out


def ratio_plot(platform, rows, out, crossovers):
    rat = ratios(rows)
    teams = sorted({c for _, c, _ in rat})
    fig, axes = plt.subplots(1, len(teams), figsize=(4.2 * len(teams), 3.6), squeeze=False)
    for j, c in enumerate(teams):
        ax = axes[0][j]
        for (n, cc, k), pts in sorted(rat.items()):
            if cc != c:
                continue
            ms = [p[0] for p in pts]
            line, = ax.plot(ms, [p[1] for p in pts], "o-", markersize=3, label=f"P={n} k={k}")
            ax.plot(ms, [p[2] for p in pts], "--", color=line.get_color(), linewidth=0.8)
            x = crossing(ms, [p[1] for p in pts])
            xp = crossing(ms, [p[2] for p in pts])
            crossovers.append((platform, n, c, k, x, xp))
            if x is not None:
                ax.plot([x], [1.0], "*", color=line.get_color(), markersize=11)
        ax.axhline(1.0, color="k", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("payload per box m1, bytes")
        ax.set_ylabel("Team Shift / Shift (same boxes)")
        ax.set_title(f"c = {c}: below 1, Team Shift wins (*: crossover)", fontsize=9)
        ax.legend(fontsize=6, ncol=2)
    fig.suptitle(title(platform, rows, "Team Shift against the Shift (solid: simulated, dashed: model)"),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    path = os.path.join(out, f"smpi-ratio-{platform}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    for a in sys.argv[1:]:
        if a.startswith("-"):
            print(f"plot_smpi.py: unknown option {a!r}; usage: plot_smpi.py SWEEP_DIR [OUT_DIR] "
                  "(--help)", file=sys.stderr)
            sys.exit(2)
    d = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) == 3 else d
    if not os.path.isfile(os.path.join(d, "sweep.csv")):
        print(f"plot_smpi.py: {d} has no sweep.csv; accepted: the folder of a "
              "tools/smpi_sweep.py sweep", file=sys.stderr)
        sys.exit(2)
    if os.path.exists(out) and not os.path.isdir(out):
        print(f"plot_smpi.py: {out} exists and is not a folder; accepted: a folder for the "
              "plots", file=sys.stderr)
        sys.exit(2)
    os.makedirs(out, exist_ok=True)
    rows = load(d)
    crossovers = []
    for platform in sorted({r["platform"] for r in rows}):
        sub = [r for r in rows if r["platform"] == platform]
        print(time_plot(platform, sub, out))
        print(ratio_plot(platform, sub, out, crossovers))
    with open(os.path.join(out, "crossovers.csv"), "w") as f:
        f.write("platform,ranks,team_size,k,simulated_bytes,predicted_bytes\n")
        for p, n, c, k, x, xp in crossovers:
            f.write(f"{p},{n},{c},{k},{'' if x is None else round(x)},"
                    f"{'' if xp is None else round(xp)}\n")
    print("Team Shift starts to beat the Shift (same boxes) at payloads of, simulated / model:")
    for p, n, c, k, x, xp in crossovers:
        fmt = lambda v: "never in range" if v is None else f"{v:,.0f} B"  # noqa: E731
        print(f"  {p:8} P={n:<5} c={c} k={k}: {fmt(x)} / {fmt(xp)}")


if __name__ == "__main__":
    main()
