#!/usr/bin/python3
"""The Shift / Team Shift sweep at scale on simulated platforms (SimGrid SMPI).

    tools/smpi_sweep.py CONFIG OUTDIR [--ranks 64,256,1024] [--platforms fattree,torus]
                        [--jobs 2] [--memory-gb 6] [--touched-gb 20] [--timeout 3600]
                        [--direct-timeout 1800] [--tabulate | --repredict]

For each platform: shiftbox pingpong between ranks 0 and 1 measures the
message costs (OUTDIR/PLATFORM/hockney.json); then for each rank count,
shiftbox exchange runs CONFIG's sweep with those costs as model.hockney
(and, on a torus, the torus' shape from its platform file as model.torus:
docs/MODEL.md), so every point carries its prediction.  Sizes whose buffers fit the memory
budget (all ranks of one simulation, --memory-gb) run with every byte
verified; larger ones run with SMPI's shared malloc and exchange.verify = 0
(timings only), which sweep.csv records per point.  Points whose buffers
would touch more than --touched-gb of memory are not simulated (the wall
time grows with it); OUTDIR/skipped.csv lists them.  Independent
simulations run --jobs at a time, each under --timeout seconds (the
direct module runs apart, under --direct-timeout: on a torus its messages
contend for links, which SimGrid resolves slowly); one that does not
finish is listed, not hidden.  --tabulate launches nothing: it only
rebuilds sweep.csv from the runs of the given ranks and platforms that
finished (e.g. after stopping a sweep that would take too long).
--repredict launches nothing either: it refills the predicted_s and error
columns of OUTDIR/sweep.csv with the current model (after a change to it),
from OUTDIR/PLATFORM/hockney.json or OUTDIR/hockney-PLATFORM.json (the
layout of docs/results/smpi-sweep).
sweep.csv holds every finished run of the given platforms and rank counts
in OUTDIR, also one added by hand as OUTDIR/PLATFORM-P-NAME (e.g. a single
point at a rank count whose whole sweep would take too long).

Writes OUTDIR/PLATFORM-P-GROUP-PART/ (each run's summary.json, exchange.csv,
simulation.json, log) and OUTDIR/sweep.csv, one row per point:
platform, ranks, module, team_size, dims, k, bytes, time_s (the config's
stats.statistic), predicted_s, error, verification, run, wall_s, peak_rss_mb.
tools/plot_smpi.py draws it; tools/model_check.py smpi and
tools/auto_check.py read it.
"""
import argparse
import glob
import concurrent.futures
import itertools
import configparser
import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(ROOT, "tools", "smpi-run.sh")
# Allocations from this size up are shared in timing-only runs: the exchange
# buffers, not the program's own bookkeeping (timings, sizes, text).
SHARED_THRESHOLD = 262144


def platform_file(name, ranks):
    if name == "torus":
        return os.path.join(ROOT, "configs", "platforms", f"torus-{ranks}.xml")
    return os.path.join(ROOT, "configs", "platforms", f"{name}.xml")


def network_keys(name, ranks):
    """The model's description of the platform beyond the ports: a torus'
    shape (model.torus, docs/MODEL.md), read from its file; nothing for a
    network without contention beyond the ports (the fat tree)."""
    with open(platform_file(name, ranks)) as f:
        found = re.search(r'topology="TORUS"[^>]*topo_parameters="([0-9,]+)"', f.read())
    return ["-s", f"model.torus={found.group(1)}"] if found else []


def int_list(text):
    out = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out


def buffer_bytes(ranks, ks, sizes, modules):
    """What the simulation's ranks hold at once: every point of a grid is set
    up together, each module about twice its slots."""
    return ranks * sum((2 * k + 1) ** 3 * m * 2 * modules for k in ks for m in sizes)


def hockney_path(outdir, platform):
    """A platform's message costs: where a sweep writes them, or where
    docs/results keeps them."""
    inside = os.path.join(outdir, platform, "hockney.json")
    beside = os.path.join(outdir, f"hockney-{platform}.json")
    return inside if os.path.exists(inside) or not os.path.exists(beside) else beside


def predict(rows, outdir, workdir=None):
    """Fills predicted_s and error of every row from `shiftbox model` on its
    grid, team size, k and payload with its platform's hockney.json; the
    model's files go to WORKDIR/model (default OUTDIR)."""
    binary = os.environ.get("SHIFTBOX", os.path.join(ROOT, "build", "shiftbox"))
    groups = {}
    for r in rows:
        groups.setdefault((r["platform"], r["dims"], r["team_size"]), []).append(r)
    for (platform, dims, c), rs in groups.items():
        ranks = rs[0]["ranks"]
        ks = sorted({r["k"] for r in rs})
        sizes = sorted({r["bytes"] for r in rs})
        out = os.path.join(workdir or outdir, "model", f"{platform}-{dims}-c{c}")
        cmd = [binary, "model", "-s", f"model.hockney={hockney_path(outdir, platform)}",
               "-s", "model.dims=" + dims.replace("x", ","), "-s", f"exchange.team_size={c}",
               "-s", "exchange.k=" + ",".join(map(str, ks)),
               "-s", "exchange.bytes=" + ",".join(map(str, sizes)),
               "-s", "exchange.module=all", *network_keys(platform, ranks), "--out", out]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        pred = {}
        for m in csv.DictReader(open(os.path.join(out, "model.csv"))):
            pred[(m["module"], int(m["k"]), int(m["bytes"]))] = float(m["predicted_s"])
        for r in rs:
            t = pred.get((r["module"], r["k"], r["bytes"]))
            if t:
                r["predicted_s"] = t
                r["error"] = (r["time_s"] - t) / t


def run(cmd, log, timeout):
    """Runs cmd in its own process group; past the timeout the whole group
    goes (smpirun's smpimain too: killing the wrapper alone left simulations
    running on after their sweep had given up on them)."""
    start = time.time()
    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = "timeout"
    return rc, time.time() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    ap.add_argument("config", help="the sweep's ini file (configs/smpi-sweep.ini)")
    ap.add_argument("outdir", help="where the runs and sweep.csv go")
    ap.add_argument("--ranks", default="64,256,1024", help="simulated rank counts, comma-separated")
    ap.add_argument("--platforms", default="fattree,torus",
                    help="fattree and/or torus (configs/platforms/; the torus shaped per rank count)")
    ap.add_argument("--jobs", type=int, default=2, help="simulations run at once")
    ap.add_argument("--memory-gb", type=float, default=6.0,
                    help="buffers of all ranks of one simulation up to this run verified; larger "
                         "ones with shared malloc, timings only")
    ap.add_argument("--touched-gb", type=float, default=20.0,
                    help="points whose buffers would touch more are not simulated (skipped.csv)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per simulation")
    ap.add_argument("--direct-timeout", type=float, default=1800,
                    help="seconds per simulation of the direct module, run apart")
    ap.add_argument("--tabulate", action="store_true",
                    help="run nothing; rebuild sweep.csv from the finished runs")
    ap.add_argument("--repredict", action="store_true",
                    help="run nothing; refill sweep.csv's predictions with the current model")
    a = ap.parse_args()
    if a.repredict:
        repredict(a.outdir)
        return

    cfg = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    if not cfg.read(a.config):
        sys.exit(f"smpi_sweep: cannot read {a.config}")
    ex = cfg["exchange"]
    statistic = cfg["stats"].get("statistic", "mean") if cfg.has_section("stats") else "mean"
    ks = int_list(ex.get("k", "1"))
    sizes = int_list(ex.get("bytes", "1000"))
    names = [m.strip() for m in ex.get("module", "shift").split(",")]
    modules = len(names)
    # direct on its own: on a torus its messages contend for links, which
    # SimGrid resolves slowly (minutes a point at 1 MB); it must not hold
    # the others back, and it gets --direct-timeout
    family = [m for m in names if m != "direct"]
    parts = ([("shifts", family)] if family else []) + \
        ([("direct", ["direct"])] if "direct" in names else [])
    ranks = [int(r) for r in a.ranks.split(",")]
    platforms = a.platforms.split(",")
    os.makedirs(a.outdir, exist_ok=True)
    budget = a.memory_gb * 1e9
    touched = a.touched_gb * 1e9

    # 1. the message costs of each platform
    for p in platforms:
        d = os.path.join(a.outdir, p)
        if os.path.exists(os.path.join(d, "hockney.json")):
            continue
        if a.tabulate:
            sys.exit(f"smpi_sweep: no message costs for {p} ({d}/hockney.json)")
        os.makedirs(d, exist_ok=True)
        cmd = [RUN, "-np", "2", "--platform", platform_file(p, 64), "pingpong",
               "-s", "pingpong.bytes=0,10,100,1000,10000,100000,1000000",
               "-s", "pingpong.trials=5", "-s", "pingpong.warmup=2",
               "-s", "pingpong.copy_bytes=0,1000000",
               "-s", f"stats.statistic={statistic}", "--out", d]
        rc, wall = run(cmd, os.path.join(d, "pingpong.log"), a.timeout)
        print(f"pingpong on {p}: exit {rc}, {wall:.0f} s", flush=True)
        if rc != 0:
            sys.exit(f"smpi_sweep: pingpong on {p} failed; see {d}/pingpong.log")

    # 2. the sweep, split by what fits: a point is simulated when the memory
    #    its ranks' buffers touch stays within --touched-gb (the wall time of a
    #    simulation grows with it: k = 2 at 1 MB on 64 ranks touches ~100 GB
    #    and takes 9 minutes here, k = 1 (14 GB) 31 s); it is verified byte for byte when the
    #    buffers of its run fit --memory-gb, else timed with shared buffers
    jobs, skipped = [], []
    for p in platforms:
        for n in ranks:
            allowed = {m: [k for k in ks if buffer_bytes(n, [k], [m], modules) <= touched]
                       for m in sizes}
            for m in sizes:
                for k in ks:
                    if k not in allowed[m]:
                        skipped.append((p, n, k, m))
            verified = [m for m in sizes if allowed[m] == ks
                        and buffer_bytes(n, ks, [m], modules) <= budget]
            while verified and buffer_bytes(n, ks, verified, modules) > budget:
                verified.pop()
            groups = [("verified", verified, ks)] if verified else []
            by_ks = {}
            for m in sizes:
                if m not in verified and allowed[m]:
                    by_ks.setdefault(tuple(allowed[m]), []).append(m)
            for kk, ms in by_ks.items():
                groups.append((f"timed-k{kk[-1]}", ms, list(kk)))
            for (group, ms, kk), (part, mods) in itertools.product(groups, parts):
                d = os.path.join(a.outdir, f"{p}-{n}-{group}-{part}")
                cmd = [RUN, "-np", str(n), "--platform", platform_file(p, n)]
                extra = []
                if group != "verified":
                    cmd += ["--shared-malloc", str(SHARED_THRESHOLD)]
                    extra = ["-s", "exchange.verify=0"]
                cmd += ["exchange", "-c", a.config,
                        "-s", "exchange.module=" + ",".join(mods),
                        "-s", "exchange.bytes=" + ",".join(map(str, ms)),
                        "-s", "exchange.k=" + ",".join(map(str, kk)),
                        "-s", f"model.hockney={os.path.join(a.outdir, p, 'hockney.json')}",
                        *network_keys(p, n), *extra, "--out", d]
                jobs.append((p, n, group, d, cmd))
    with open(os.path.join(a.outdir, "skipped.csv"), "w") as f:
        f.write("platform,ranks,k,bytes,reason\n")
        for p, n, k, m in skipped:
            f.write(f"{p},{n},{k},{m},buffers touch more than {a.touched_gb:g} GB\n")

    def one(job):
        p, n, group, d, cmd = job
        if os.path.exists(os.path.join(d, "simulation.json")):
            return job, 0, 0.0
        if a.tabulate:
            return job, "not run", 0.0
        os.makedirs(d, exist_ok=True)
        limit = a.direct_timeout if d.endswith("-direct") else a.timeout
        rc, wall = run(cmd, d + ".log", limit)
        return job, rc, wall

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for job, rc, wall in pool.map(one, jobs):
            p, n, group, d, _ = job
            print(f"{p} P={n} {group}: exit {rc}, {wall:.0f} s", flush=True)
            if rc != 0:
                failed.append(f"{p} P={n} {group} (exit {rc}, log {d}.log)")

    # 3. one table of every finished run of these platforms and rank counts
    #    in OUTDIR (the sweep's own, and any added by hand as
    #    OUTDIR/PLATFORM-P-NAME), each point predicted by the current model
    #    (shiftbox model, the same code the runs carried) from its
    #    platform's costs
    rows = []
    finished = sorted(f for p in platforms for n in ranks
                      for f in glob.glob(os.path.join(a.outdir, f"{p}-{n}-*", "simulation.json")))
    for d in (os.path.dirname(f) for f in finished):
        p, n = os.path.basename(d).split("-")[:2]
        n = int(n)
        path = os.path.join(d, "summary.json")
        if not os.path.exists(path) or not os.path.exists(os.path.join(d, "simulation.json")):
            continue
        s = json.load(open(path))
        sim = json.load(open(os.path.join(d, "simulation.json")))
        for pt in s["points"]:
            verification = "off" if s.get("verification") == "off" else (
                "yes" if pt.get("verified") else "NO")
            rows.append({
                "platform": p, "ranks": n, "module": pt["module"],
                "team_size": pt["team_size"], "dims": "x".join(map(str, pt["dims"])),
                "k": pt["k"], "bytes": pt["bytes"], "time_s": pt["statistic_s"],
                "predicted_s": "", "error": "", "verification": verification,
                "run": os.path.basename(d), "wall_s": round(sim["wall_seconds"], 1),
                "peak_rss_mb": round(sim["peak_rss_bytes"] / 2**20)})
    predict(rows, a.outdir)
    write_sweep(rows, a.outdir)
    if failed:
        print("not finished: " + "; ".join(failed))
        sys.exit(1)


def write_sweep(rows, outdir):
    with open(os.path.join(outdir, "sweep.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["platform"])
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} points in {outdir}/sweep.csv")


def repredict(outdir):
    path = os.path.join(outdir, "sweep.csv")
    if not os.path.exists(path):
        sys.exit(f"smpi_sweep: no {path} to predict again")
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        for key in ("ranks", "team_size", "k", "bytes"):
            r[key] = int(r[key])
        r["time_s"] = float(r["time_s"])
        r["predicted_s"] = r["error"] = ""
    with tempfile.TemporaryDirectory() as work:
        predict(rows, outdir, work)
    write_sweep(rows, outdir)


if __name__ == "__main__":
    main()
