#!/usr/bin/python3
"""How well the models predict, from shiftbox's own outputs.

    tools/model_check.py run [OUTDIR] [--np 2] [--statistic median] [--target 10]
        one run on this machine: shiftbox pingpong at the sweep's sizes, then
        the 2-rank 1D sweep (every module, k = 1,2,4,8, 10 B .. 100 kB) with
        those costs as model.hockney, then the pingpong again; prints each
        module's median |error| against the target (exit 1 when one misses
        it) and whether the machine kept its speed: the largest change of a
        one-way time between the two pingpongs (more than half the target:
        the errors measure the machine as much as the models), and a
        yardstick timed in the sweep's own turns: baseline-p2p, direct's
        message and copies written by hand, against direct's prediction
        (where it misses by more than half the target, the pingpong, or
        direct's model that the yardstick shares, did not describe the
        machine the sweep ran on, even where the two pingpongs agree)
    tools/model_check.py pingpong PINGPONG_DIR
        each size's measured one-way time against its protocol segment's line
    tools/model_check.py exchange EXCHANGE_DIR [--target PERCENT]
        each point's measured time (stats.statistic) against the prediction
        of a run made with model.hockney, and per module the median |error|;
        with --target, exits 1 when a module's median misses it
    tools/model_check.py smpi SWEEP_DIR [--target 10]
        the same for tools/smpi_sweep.py's sweep.csv, per platform and module
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [10, 1000, 10000, 100000]
KS = [1, 2, 4, 8]


def pingpong(d):
    s = json.load(open(f"{d}/summary.json"))
    h = s["hockney"]
    segs = h["segments"]
    print(f"# one-way ping-pong, {h['mode']}, {h['statistic']}: measured against the fitted "
          "lines")
    print(f"{'bytes':>9} {'measured_us':>12} {'fitted_us':>10} {'error%':>7}  segment")
    errors = []
    for p in h["per_size"]:
        m, t = p["bytes"], p["time_s"]
        seg = segs[0]
        if len(segs) == 2 and m * m > segs[0]["to_bytes"] * segs[1]["from_bytes"]:
            seg = segs[1]
        fit = seg["alpha_s"] + seg["beta_s_per_byte"] * m
        err = (t - fit) / fit
        errors.append(abs(err))
        print(f"{m:>9.0f} {t * 1e6:>12.3f} {fit * 1e6:>10.3f} {err * 100:>7.1f}  "
              f"{seg['from_bytes']:.0f}..{seg['to_bytes']:.0f}")
    print(f"median |error| {statistics.median(errors) * 100:.1f} %, largest "
          f"{max(errors) * 100:.1f} %")
    if len(segs) == 2:
        print(f"the protocol changes between {segs[0]['to_bytes']:.0f} and "
              f"{segs[1]['from_bytes']:.0f} bytes")


def summarise(rows, key, target):
    """rows: (group, error); prints the median |error| per group; the groups that miss."""
    per = {}
    for group, err in rows:
        per.setdefault(group, []).append(abs(err))
    missed = []
    for group, errs in per.items():
        med = statistics.median(errs)
        verdict = "" if target is None else ("  ok" if med * 100 <= target else "  MISSED")
        print(f"{key(group)}: median |error| {med * 100:.1f} %, largest {max(errs) * 100:.1f} % "
              f"over {len(errs)} points{verdict}")
        if target is not None and med * 100 > target:
            missed.append(group)
    return missed


def exchange(d, target=None, quiet=False):
    s = json.load(open(f"{d}/summary.json"))
    rows = []
    if not quiet:
        print(f"{'module':>12} {'c':>2} {'k':>3} {'bytes':>8} {'measured_us':>11} "
              f"{'predicted':>10} {'error%':>7}")
    for p in s["points"]:
        if p["module"].startswith("baseline-"):
            continue  # the hand-written baselines: no model
        if "predicted_s" not in p:
            sys.exit(f"model_check: {d} was run without model.hockney")
        t = p["statistic_s"]
        err = p["prediction_error"]
        rows.append((p["module"], err))
        if not quiet:
            print(f"{p['module']:>12} {p['team_size']:>2} {p['k']:>3} {p['bytes']:>8} "
                  f"{t * 1e6:>11.3f} {p['predicted_s'] * 1e6:>10.3f} {err * 100:>7.1f}")
    stat = s["points"][0].get("compared_statistic", "median") if s["points"] else "?"
    print(f"# measured: the {stat} of each point's times")
    return summarise(rows, lambda g: g, target)


def smpi(d, target):
    rows = []
    for r in csv.DictReader(open(f"{d}/sweep.csv")):
        if r["error"] == "":
            continue
        rows.append(((r["platform"], r["module"]), float(r["error"])))
    return summarise(rows, lambda g: f"{g[0]:>8} {g[1]:<12}", target)


def run(out, nranks, statistic, target):
    os.makedirs(out, exist_ok=True)
    binary = os.environ.get("SHIFTBOX", os.path.join(ROOT, "build", "shiftbox"))
    mpirun = ["mpirun", "-np", str(nranks), binary]
    pp = os.path.join(out, "pingpong")
    sizes = [0] + SIZES
    steps = [
        mpirun + ["pingpong", "-s", "pingpong.bytes=" + ",".join(map(str, sizes)),
                  "-s", f"stats.statistic={statistic}", "--out", pp],
        mpirun + ["exchange", "-s", f"decomp.dims={nranks},1,1", "-s", "exchange.phases=x",
                  "-s", "exchange.module=all", "-s", "exchange.baseline=baseline-p2p",
                  "-s", "exchange.k=" + ",".join(map(str, KS)),
                  "-s", "exchange.bytes=" + ",".join(map(str, SIZES)),
                  "-s", "exchange.repetitions=300", "-s", "exchange.warmup=50",
                  "-s", f"stats.statistic={statistic}",
                  "-s", f"model.hockney={pp}/hockney.json", "--out", os.path.join(out, "sweep")],
    ]
    for cmd in steps:
        log = os.path.join(out, os.path.basename(cmd[-1]) + ".log")
        with open(log, "w") as f:
            if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode != 0:
                sys.exit(f"model_check: {' '.join(cmd)} failed; see {log}")
    print(f"# {nranks} ranks, a 1D row (seed 000 sec. 4.2): pingpong, the sweep, pingpong again; "
          f"target: median |error| <= {target:g} % per module")
    missed = exchange(os.path.join(out, "sweep"), target, quiet=True)
    # the same pingpong again after the sweep: did the machine keep its speed?
    after = os.path.join(out, "pingpong-after")
    log = after + ".log"
    with open(log, "w") as f:
        ok = subprocess.run(steps[0][:-1] + [after], stdout=f, stderr=subprocess.STDOUT).returncode == 0
    drift = steadiness(os.path.join(pp, "hockney.json"), os.path.join(after, "hockney.json")) if ok else None
    if drift is None:
        print(f"whether the machine kept its speed is not known: the pingpong after the sweep "
              f"failed (see {log})")
    elif drift > target / 2:
        print(f"the machine did not keep its speed: one-way times moved by up to {drift:.0f} % "
              f"between the pingpong before the sweep and the one after (more than half the "
              f"target); the errors above measure that as much as the models")
    else:
        print(f"the machine kept its speed: one-way times within {drift:.1f} % before and after the sweep")
    yard = yardstick(os.path.join(out, "sweep"))
    if yard is not None:
        med, most = yard
        print(f"yardstick baseline-p2p against direct's prediction (the same message and copies, "
              f"hand-written, timed in the sweep's turns): median |error| {med:.1f} %, largest "
              f"{most:.1f} %" + (f"; more than half the target: the pingpong (or direct's model, "
                                 f"which the yardstick shares) did not describe the machine the "
                                 f"sweep ran on, and the modules' errors measure that too"
                                 if med > target / 2 else ""))
    return missed


def yardstick(d):
    """baseline-p2p's measured time against direct's prediction at the same
    points (k, bytes): the median and largest |error| in per cent, None where
    the sweep has no such pairs.  On a ring of two both make one message each
    way and the same copies (direct by parts where they fit the L2), so the
    miss is the pingpong's or direct's model's, not a module's code."""
    s = json.load(open(f"{d}/summary.json"))
    key = lambda p: (p["k"], p["bytes"], p["team_size"], p.get("payload"))
    predicted = {key(p): p["predicted_s"] for p in s["points"]
                 if p["module"] == "direct" and p.get("predicted_s")}
    errs = [abs(p["statistic_s"] / predicted[key(p)] - 1) * 100 for p in s["points"]
            if p["module"] == "baseline-p2p" and key(p) in predicted]
    return (statistics.median(errs), max(errs)) if errs else None


def steadiness(before, after):
    """The largest relative change of the one-way time at a size between two
    hockney.json files, in per cent, over the sizes both measured (None when
    they share none)."""
    times = [{p["bytes"]: p["time_s"] for p in json.load(open(f))["per_size"]} for f in (before, after)]
    moves = [abs(times[1][b] / t - 1) * 100 for b, t in times[0].items() if t > 0 and b in times[1]]
    return max(moves) if moves else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["run", "pingpong", "exchange", "smpi"])
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "results", "model-check"))
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--statistic", default="median", choices=["mean", "median", "min", "lowest20"])
    ap.add_argument("--target", type=float, default=None,
                    help="per cent (run, smpi: 10 when not given; exchange: no verdict then)")
    a = ap.parse_args()
    need = {"pingpong": ("summary.json", "the --out folder of a shiftbox pingpong run"),
            "exchange": ("summary.json", "the --out folder of a shiftbox exchange run"),
            "smpi": ("sweep.csv", "the folder of a tools/smpi_sweep.py sweep")}
    if a.mode in need and not os.path.isfile(os.path.join(a.dir, need[a.mode][0])):
        print(f"model_check.py {a.mode}: {a.dir} has no {need[a.mode][0]} (accepted: "
              f"{need[a.mode][1]})", file=sys.stderr)
        sys.exit(2)
    if a.mode == "pingpong":
        pingpong(a.dir)
        return
    if a.mode == "exchange":
        sys.exit(1 if exchange(a.dir, a.target) else 0)
    target = 10.0 if a.target is None else a.target
    if a.mode == "run" and a.np < 2:
        print(f"model_check.py run: --np {a.np}: accepted: 2 or more ranks", file=sys.stderr)
        sys.exit(2)
    missed = run(a.dir, a.np, a.statistic, target) if a.mode == "run" else smpi(a.dir, target)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
