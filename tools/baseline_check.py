#!/usr/bin/python3
"""Each exchange module against the best hand-written baseline, from one run.

    tools/baseline_check.py DIR [--stat median] [--target 1.3]

DIR is the --out directory of a `shiftbox exchange` run with
exchange.baseline = all (comm/baseline.c): the modules and the baselines
took turns on the same boxes and payloads, every byte verified.  For each
point (grid, team size, k, bytes) prints the fastest baseline and each
module's time over it; a ratio above --target is marked '*'.  Two more
columns take the Shift apart: shift / baseline-staged is what the
rendezvous costs (baseline-staged moves the Shift's blocks, a ring of one
copied as the Shift does, with one MPI_Sendrecv each way per layer where
the Shift makes MPI_Ssend / MPI_Recv pairs, its k right hops before its k
left ones), and baseline-staged / best what the Shift's data flow costs
against one message per distinct peer (on small grids it forwards periodic
images through MPI that the others copy in memory: the last column is the
bytes the Shift sends over the best baseline's).  baseline-ssend is a
reference, never the best: baseline-p2p's messages as blocking MPI_Ssend /
MPI_Recv pairs, the rendezvous of seed 000 sec. 4.1 on the fewest
messages.  Where it ran, two more columns: ssend/best is what that
rendezvous costs, and shift/ssend what the Shift costs beyond it (on a ring
of two they send the same messages, so a ratio near 1 says the rendezvous is
the whole difference).  Ends with, per module, how many points meet the
target.
"""
import argparse
import json
import sys
from collections import defaultdict

REFERENCES = {"baseline-ssend"}  # measured beside the baselines, never the best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--stat", default="median", choices=["median", "mean", "min"])
    ap.add_argument("--target", type=float, default=1.3)
    args = ap.parse_args()
    try:
        summary = json.load(open(f"{args.dir}/summary.json"))
    except (OSError, ValueError) as e:
        sys.exit(f"baseline_check: {args.dir}/summary.json: {e}")
    times, sent = defaultdict(dict), defaultdict(dict)
    modules = []
    for p in summary["points"]:
        key = ("x".join(map(str, p["dims"])), p["team_size"], p["k"], p["bytes"])
        times[key][p["module"]] = p["time_s"][args.stat]
        sent[key][p["module"]] = p["bytes_sent_per_exchange"]
        if not p["module"].startswith("baseline-") and p["module"] not in modules:
            modules.append(p["module"])
    if not all(any(m.startswith("baseline-") and m not in REFERENCES for m in row)
               for row in times.values()):
        sys.exit(f"baseline_check: no baseline points in {args.dir}; run with exchange.baseline=all")
    split = "shift" in modules and all("baseline-staged" in row for row in times.values())
    rendezvous = "shift" in modules and all("baseline-ssend" in row for row in times.values())
    print(f"# {args.stat} time over the fastest baseline's, {summary['environment']['ranks']} "
          f"ranks; '*': above {args.target}")
    head = f"{'grid':>7} {'c':>2} {'k':>2} {'bytes':>7} {'best':>17} {'best_us':>9} "
    head += " ".join(f"{m:>12}" for m in modules)
    if split:
        head += f" {'shift/staged':>12} {'staged/best':>11} {'shift_B/best_B':>14}"
    if rendezvous:
        head += f" {'ssend/best':>10} {'shift/ssend':>11}"
    print(head)
    met = defaultdict(int)
    paid = 0  # points where the Shift is within the target of baseline-ssend
    for key in sorted(times):
        row = times[key]
        baselines = {m: t for m, t in row.items()
                     if m.startswith("baseline-") and m not in REFERENCES}
        best = min(baselines, key=baselines.get)
        ref = baselines[best]
        line = f"{key[0]:>7} {key[1]:>2} {key[2]:>2} {key[3]:>7} {best:>17} {ref * 1e6:>9.3f} "
        cells = []
        for m in modules:
            if m not in row:
                cells.append(f"{'-':>12}")
                continue
            ratio = row[m] / ref
            met[m] += ratio <= args.target
            cells.append(f"{ratio:>11.2f}{'*' if ratio > args.target else ' '}")
        line += " ".join(cells)
        if split:
            staged = row["baseline-staged"]
            moved = sent[key]["shift"] / max(sent[key][best], 1.0)
            line += f" {row['shift'] / staged:>12.2f} {staged / ref:>11.2f} {moved:>14.0f}"
        if rendezvous:
            ssend = row["baseline-ssend"]
            line += f" {ssend / ref:>10.2f} {row['shift'] / ssend:>11.2f}"
            paid += row["shift"] / ssend <= args.target
        print(line)
    print("# within the target: " + ", ".join(f"{m} {met[m]} of {sum(m in r for r in times.values())}"
                                             for m in modules))
    if rendezvous:
        print(f"# the Shift over baseline-ssend (the same rendezvous, hand-written): "
              f"{paid} of {len(times)} within the target")
    if not summary["verified"]:
        sys.exit("baseline_check: the run was not verified")


if __name__ == "__main__":
    main()
