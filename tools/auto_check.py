#!/usr/bin/python3
"""Does exchange.module=auto choose well?  At every point of a sweep, the
module the model predicts fastest (what auto runs, src/sweep/grid.c
choose()) against the module measured (or simulated) fastest, and the time
a wrong choice loses.

    tools/auto_check.py EXCHANGE_DIR...   summary.json of shiftbox exchange runs
                                          made with model.hockney and every module
    tools/auto_check.py SWEEP_DIR         tools/smpi_sweep.py's sweep.csv
    tools/auto_check.py --repeats DIR...  the same sweep run several times (tools/model_check.py
                                          run, each into its own directory): also which
                                          points the runs agree on (below)
    options: --hits 90 --loss 20          the targets (percent); exit 1 when missed
             --margin 0.1                 model.auto_margin: Team Shift is chosen only
                                          where every other module's prediction exceeds
                                          its own by more than this fraction

A point is one platform, rank count, grid and team size, k and payload;
its candidates are the modules that ran there (on teams of c > 1 the other
modules run on the team leaders of the same boxes, as auto would).

With --repeats a point is settled where every run measured the same module
fastest, and unsettled where the fastest module changed from run to run:
there no choice is right in every run, and the lines say how far auto's
choice was from each run's fastest against how far that fastest module's
own time moved between the runs.  The hit target then applies to the
settled points (every run of each), the loss target to every choice; both
counts are printed.

Exit status: 0 targets met, 1 a target missed, 2 bad input (--repeats with
fewer than two directories, one given twice, or a simulated sweep).
"""
import argparse
import csv
import json
import os
import sys


def points_from_summary(d):
    s = json.load(open(os.path.join(d, "summary.json")))
    for p in s["points"]:
        if p["module"].startswith("baseline-"):
            continue  # the hand-written baselines: no model, never chosen
        if "predicted_s" not in p:
            sys.exit(f"auto_check: {d} was run without model.hockney")
        yield ((d, p["team_size"], "x".join(map(str, p["dims"])), p["k"], p["bytes"], p["payload"]),
               p["module"], p["statistic_s"], p["predicted_s"])


def points_from_sweep(d):
    for r in csv.DictReader(open(os.path.join(d, "sweep.csv"))):
        if r["predicted_s"] == "":
            continue
        yield ((r["platform"], int(r["ranks"]), int(r["team_size"]), r["dims"], int(r["k"]),
                int(r["bytes"])), r["module"], float(r["time_s"]), float(r["predicted_s"]))


def choose(mods, margin):
    """What src/model.c model_choose() takes: the smallest prediction, Team
    Shift's raised by the margin; equal ones (within 1e-9) go to direct."""
    score = {m: mods[m][1] * (1.0 + margin if m == "teamshift" else 1.0) for m in mods}
    low = min(score.values())
    tied = [m for m in mods if abs(score[m] - low) <= 1e-9 * low]
    return "direct" if "direct" in tied else tied[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--hits", type=float, default=90.0)
    ap.add_argument("--loss", type=float, default=20.0)
    ap.add_argument("--margin", type=float, default=0.1)
    ap.add_argument("--repeats", action="store_true")
    a = ap.parse_args()
    if a.repeats:
        runs = [os.path.realpath(d) for d in a.dirs]
        if len(runs) < 2 or len(set(runs)) != len(runs):
            print("auto_check: --repeats needs two runs or more, each directory once; given: "
                  f"{' '.join(a.dirs)}", file=sys.stderr)
            sys.exit(2)
    groups = {}
    for d in a.dirs:
        sweep = os.path.exists(os.path.join(d, "sweep.csv"))
        if not sweep and not os.path.isfile(os.path.join(d, "summary.json")):
            print(f"auto_check: {d} has neither summary.json nor sweep.csv; accepted: the --out "
                  "folder of shiftbox exchange with model.hockney, or a tools/smpi_sweep.py "
                  "sweep", file=sys.stderr)
            sys.exit(2)
        if sweep and a.repeats:
            print(f"auto_check: --repeats compares measured runs (summary.json); {d} is a "
                  "simulated sweep (sweep.csv), which is the same every time", file=sys.stderr)
            sys.exit(2)
        source = points_from_sweep if sweep else points_from_summary
        for key, module, measured, predicted in source(d):
            groups.setdefault(key, {})[module] = (measured, predicted)
    points = hits = 0
    worst = 0.0
    wrong = []
    for key, mods in sorted(groups.items(), key=lambda kv: str(kv[0])):
        if len(mods) < 2:
            continue
        chosen = choose(mods, a.margin)
        best = min(mods, key=lambda m: mods[m][0])
        points += 1
        loss = lost(mods, chosen, best)
        if loss <= 0.0:
            hits += 1
            continue
        worst = max(worst, loss)
        wrong.append((loss, key, chosen, best))
    if points == 0:
        sys.exit("auto_check: no point with two modules or more to choose from")
    rate = 100.0 * hits / points
    applies = "the target applies to the settled points below" if a.repeats else \
        f"target >= {a.hits:g} %"
    print(f"auto (model.auto_margin = {a.margin:g}) chose the fastest module at {hits} of "
          f"{points} points ({rate:.1f} %; {applies}); the worst wrong choice lost "
          f"{worst * 100:.1f} % (target <= {a.loss:g} %)")
    for loss, key, chosen, best in sorted(wrong, reverse=True)[:15]:
        print(f"  {'/'.join(map(str, key))}: chose {chosen}, {best} was {loss * 100:.1f} % faster")
    if a.repeats:
        rate = repeats(groups, a.margin, len(a.dirs), a.hits)
    sys.exit(0 if rate >= a.hits and worst * 100 <= a.loss else 1)


def lost(mods, chosen, best):
    """What choosing `chosen` cost against `best`, as a fraction (0 where
    the best time is 0 or the choice was as fast)."""
    t = mods[best][0]
    return max(0.0, mods[chosen][0] / t - 1.0) if t > 0 else 0.0


def repeats(groups, margin, runs, target):
    """The points every run measured: settled where each run's fastest
    module is the same.  A choice as fast as a run's fastest counts as that
    run's hit.  Returns the hit rate over the settled points' runs."""
    by_point = {}
    for key, mods in groups.items():
        if len(mods) >= 2:
            by_point.setdefault(key[1:], []).append(mods)
    settled = hits = 0
    unsettled, partial = [], 0
    for point, seen in sorted(by_point.items(), key=lambda kv: str(kv[0])):
        if len(seen) != runs:
            partial += 1
            continue
        bests = [min(mods, key=lambda m: mods[m][0]) for mods in seen]
        chosen = [choose(mods, margin) for mods in seen]
        if len(set(bests)) == 1:
            settled += runs
            hits += sum(lost(m, c, b) <= 0.0 for m, c, b in zip(seen, chosen, bests))
            continue
        loss = max(lost(m, c, b) for m, c, b in zip(seen, chosen, bests))
        # how far each run's fastest module moved, over the runs that ran it
        moved = 0.0
        for b in set(bests):
            times = [mods[b][0] for mods in seen if b in mods and mods[b][0] > 0]
            if times:
                moved = max(moved, max(times) / min(times) - 1.0)
        unsettled.append((point, bests, chosen, loss, moved))
    n = settled // runs
    rate = 100.0 * hits / settled if settled else 0.0
    print(f"over {runs} runs: {n} point{'' if n == 1 else 's'} settled (every run measured the "
          f"same module fastest), {len(unsettled)} not; at the settled points auto chose it "
          f"{hits} of {settled} times ({rate:.1f} %; target >= {target:g} %)")
    if partial:
        print(f"  {partial} point{'' if partial == 1 else 's'} not in every run: left out")
    for point, bests, chosen, loss, moved in unsettled:
        print(f"  unsettled {'/'.join(map(str, point))}: fastest {', '.join(bests)}; auto chose "
              f"{', '.join(sorted(set(chosen)))}, at most {loss * 100:.1f} % slower than a "
              f"run's fastest; the fastest modules' own times moved up to {moved * 100:.1f} % "
              f"between the runs")
    if settled == 0:
        print("auto_check: --repeats found no point that every run settled", file=sys.stderr)
    return rate


if __name__ == "__main__":
    main()
