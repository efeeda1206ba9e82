#!/usr/bin/python3
"""Each exchange module against the best hand-written baseline, from one run.

    tools/baseline_check.py DIR [--stat median] [--target 1.3]

DIR is the --out directory of a `shiftbox exchange` run with
exchange.baseline = all (comm/baseline.c): the modules and the baselines
took turns on the same boxes and payloads, every byte verified.  For each
point (grid, team size, k, bytes) prints the fastest baseline and each
module's time over it; a ratio above --target is marked '*'.  Two more
columns take the Shift apart: shift / baseline-staged is what its
blocking MPI_Ssend hops cost against MPI_Sendrecv (baseline-staged moves the Shift's blocks, a ring of one
copied as the Shift does, with one MPI_Sendrecv each way per layer where
the Shift makes MPI_Ssend / MPI_Recv pairs, its k right hops before its k
left ones), and baseline-staged / best what the Shift's data flow costs
against one message per distinct peer (on small grids it forwards periodic
images through MPI that the others copy in memory: the last column is the
bytes the Shift sends over the best baseline's).  baseline-ssend is a
reference, never the best: baseline-p2p's messages as blocking MPI_Ssend /
MPI_Recv pairs.  Where the Shift sends exactly its messages (as many, as
many bytes) on rings of at most two, two more columns: ssend/best is what
the blocking rendezvous costs against the best, and shift/ssend what the
Shift costs beyond it; elsewhere '-' (there the two send other messages, or
ssend's pairs take turns in rank order where the Shift's go by ring
colour).  Ends with, per module, how many points meet the target, and how
many of the comparable points have the Shift within it of baseline-ssend.
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
    times, sent, messages = defaultdict(dict), defaultdict(dict), defaultdict(dict)
    modules = []
    for p in summary["points"]:
        key = ("x".join(map(str, p["dims"])), p["team_size"], p["k"], p["bytes"])
        times[key][p["module"]] = p["time_s"][args.stat]
        sent[key][p["module"]] = p["bytes_sent_per_exchange"]
        messages[key][p["module"]] = p["messages_per_exchange"]
        if not p["module"].startswith("baseline-") and p["module"] not in modules:
            modules.append(p["module"])
    if not all(any(m.startswith("baseline-") and m not in REFERENCES for m in row)
               for row in times.values()):
        sys.exit(f"baseline_check: no baseline points in {args.dir} (or only the reference "
                 f"{', '.join(sorted(REFERENCES))}); run with exchange.baseline=all")
    split = all("shift" in row and "baseline-staged" in row for row in times.values())
    rendezvous = all("shift" in row and "baseline-ssend" in row for row in times.values())

    def comparable(key):
        """Whether the Shift sends baseline-ssend's messages in the same turns."""
        rings_of_two = all(int(n) <= 2 for n in key[0].split("x"))
        return (rings_of_two and messages[key]["shift"] == messages[key]["baseline-ssend"]
                and sent[key]["shift"] == sent[key]["baseline-ssend"])
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
    paid, compared = 0, 0  # comparable points; those with the Shift within the target of ssend
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
        if rendezvous and comparable(key):
            ssend = row["baseline-ssend"]
            line += f" {ssend / ref:>10.2f} {row['shift'] / ssend:>11.2f}"
            paid += row["shift"] / ssend <= args.target
            compared += 1
        elif rendezvous:
            line += f" {'-':>10} {'-':>11}"
        print(line)
    print("# within the target: " + ", ".join(f"{m} {met[m]} of {sum(m in r for r in times.values())}"
                                             for m in modules))
    if rendezvous and compared:
        print(f"# the Shift over baseline-ssend (the same messages and rendezvous, hand-written): "
              f"{paid} of {compared} within the target")
    if not summary["verified"]:
        sys.exit("baseline_check: the run was not verified")


if __name__ == "__main__":
    main()
