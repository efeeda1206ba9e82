#!/usr/bin/python3
"""The CPU stencil against this machine's memory, in one run (issue 16 item 3).

    tools/stencil_bench.py [OUTDIR] [--np 1,2] [--rounds 3] [--shiftbox build/shiftbox]

For each rank count and for 2D (16384 x 16384) and 3D (512^3), float:
1. `stencil.calibrate=1`: the copy bandwidth of the memory (memcpy of a
   field of at least 4 x the last cache per rank; glibc streams it with
   non-temporal stores at that size) and one plain sweep's bandwidth, both
   as bytes read plus written.  Target for the single sweep: 0.8 of the
   copy.
2. Plain sweeps (stencil.blocking=none) and temporal blocking
   (stencil.blocking=temporal) at depths 1, 4 and 8, the two taking turns
   for --rounds rounds (this VM's speed drifts: both see it alike); the
   median GCells/s of each.
3. The single-sweep roofline, ranks x copy GB/s per rank / (2 x 4 bytes)
   cells per second (calibrate's copy runs on every rank at once and
   reports one rank's): what sweeps that read and write each value once
   could reach together.  Target for temporal blocking at depth >= 4: 2 x
   the roofline.  Beside it calibrate's sweeps of a field held in the L2
   (in_cache_gcells per rank, the slowest): the speed of the lines with no
   memory behind them, where blocking's tiles are tuned to live; where
   that is below 2 x the roofline, the lines cannot meet the target.
Before timing, one small run per dimension checks temporal blocking bit for
bit against a single-rank depth-1 run (stencil.verify=1) on 3 ranks.
Prints one line per ratio with its target; writes OUTDIR/stencil-bench.csv.

    tools/stencil_bench.py --report OUTDIR/stencil-bench.csv
        prints the tables and ratios of an earlier run again

With --backend cuda (tools/gpu-check.sh uses it) the same runs go to the
CUDA backend: calibrate's copy is then the device's, and the lines say
"stencil cuda 2D, ..." with one line per depth and no targets (none is set
for a GPU; make bench's table reads the CPU's lines only).  --sizes N2,N3
changes the edge of the 2D and 3D fields (default 16384,512), --iterations
N2,N3 the timed sweeps of each run (default 32,16; a GPU sweeps such a field
in under a millisecond and needs hundreds to time), --warmup N untimed
sweeps before each run (default 0).
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = {2: ("16384", 32), 3: ("512", 16)}  # size, iterations
DEPTHS = (1, 4, 8)


BACKEND = "cpu"  # --backend


def shiftbox(args, np_, binary, extra_mpi=(), allow_fail=False):
    cmd = ["mpirun", "-np", str(np_), *extra_mpi, binary, "stencil", "-s",
           f"stencil.backend={BACKEND}", *args]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0 and not allow_fail:
        sys.exit(f"stencil_bench.py: {' '.join(cmd)} exited {done.returncode}:\n"
                 f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout + done.stderr


WARMUP = 0  # --warmup


def keys(dim, depth, blocking, extra=(), iterations=None):
    size, default = SHAPES[dim]
    iterations = iterations or default
    return ["-s", f"stencil.dim={dim}", "-s", f"stencil.size={size}", "-s",
            f"stencil.depth={depth}", "-s", f"stencil.iterations={iterations}", "-s",
            f"stencil.warmup={WARMUP}", "-s", f"stencil.blocking={blocking}", *extra]


def verify(dim, binary):
    size = "96,80" if dim == 2 else "48,40,36"
    out = shiftbox(["-s", f"stencil.dim={dim}", "-s", f"stencil.size={size}",
                    "-s", "stencil.depth=1,3,4,8", "-s", "stencil.iterations=19", "-s",
                    "stencil.blocking=temporal", "-s", "stencil.tile=3", "-s",
                    "stencil.exchange=sync,async", "-s", "stencil.verify=1"], 3, binary,
                   ["--oversubscribe"], allow_fail=True)  # a failed check is reported below
    line = [l for l in out.splitlines() if l.startswith("verified:")] or ["no verdict printed"]
    print(f"{dim}D temporal blocking, 3 ranks, depths 1,3,4,8, tiles of 3: {line[-1]}")
    return line[-1].startswith("verified: true")


def calibrate(dim, np_, binary):
    out = shiftbox(keys(dim, 1, "none", ["-s", "stencil.calibrate=1"], iterations=1), np_,
                   binary)
    m = re.search(r"calibrate: copy ([0-9.]+) GB/s, sweep ([0-9.]+) GB/s: ratio ([0-9.]+)", out)
    if not m:
        sys.exit(f"stencil_bench.py: no calibrate line in the output of {dim}D on {np_} ranks:\n"
                 f"{out[-2000:]}")
    near = re.search(r"calibrate: in the cache ([0-9.]+) GCells/s", out)  # not on a GPU
    return float(m[1]), float(m[2]), float(m[3]), float(near[1]) if near else None


def rates(dim, np_, blocking, binary):
    """GCells/s per depth from one run of all three depths."""
    out = shiftbox(keys(dim, ",".join(map(str, DEPTHS)), blocking), np_, binary)
    got = {}
    for line in out.splitlines():
        cols = line.split()
        if len(cols) == 13 and cols[0].isdigit() and cols[1] in ("sync", "async"):
            got[int(cols[0])] = float(cols[11])
    return got


def report(row):
    """The table and the two target lines of one (dim, ranks) row."""
    dim, np_ = int(row["dim"]), int(row["ranks"])
    backend = row.get("backend", "cpu")
    copy, sweep, ratio = (float(row[k]) for k in ("copy_gbs", "sweep_gbs", "sweep_over_copy"))
    roof = np_ * copy / 8.0  # GB/s over 4 bytes read + 4 written per cell
    tag = f"stencil {'' if backend == 'cpu' else backend + ' '}{dim}D, {np_} rank{'s' if np_ > 1 else ''}"
    print(f"\n# {tag}: copy {copy:.1f} GB/s and one sweep {sweep:.1f} GB/s per rank; roofline "
          f"{roof:.2f} GCells/s; GCells/s, the medians of the rounds:")
    print(f"{'depth':>6} {'plain':>8} {'temporal':>9} {'temporal/plain':>15} "
          f"{'temporal/roofline':>18}")
    for d in DEPTHS:
        p, t = float(row[f"none_d{d}"]), float(row[f"temporal_d{d}"])
        print(f"{d:>6} {p:>8.3f} {t:>9.3f} {t / p:>15.2f} {t / roof:>18.2f}")
    if backend != "cpu":  # no targets for a GPU: one line per figure
        print(f"{tag}: single sweep / copy: {ratio:.2f}")
        for d in DEPTHS:
            p, t = float(row[f"none_d{d}"]), float(row[f"temporal_d{d}"])
            print(f"{tag}, depth {d}: temporal / plain {t / p:.2f}, temporal / roofline "
                  f"{t / roof:.2f}")
        return
    verdict = "met" if ratio >= 0.8 else "missed"
    print(f"{tag}: single sweep / copy: {ratio:.2f} (target 0.8: {verdict})")
    best = max(float(row[f"temporal_d{d}"]) for d in DEPTHS if d >= 4)
    verdict = "met" if best / roof >= 2.0 else "missed"
    print(f"{tag}: temporal blocking (depth >= 4) / roofline: {best / roof:.2f} "
          f"(target 2.0: {verdict})")
    if float(row.get("in_cache_gcells") or 0) > 0:  # since 2026-11-28: the lines in the L2
        near = np_ * float(row["in_cache_gcells"])
        print(f"{tag}: sweeps in the cache / roofline: {near / roof:.2f} (the ceiling of "
              f"blocking's tiles in the L2); temporal blocking (depth >= 4) / sweeps in the "
              f"cache: {best / near:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", nargs="?", default="results/bench/stencil")
    ap.add_argument("--np", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shiftbox", default="build/shiftbox")
    ap.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--sizes", metavar="N2,N3", help="field edges in 2D and 3D")
    ap.add_argument("--iterations", metavar="N2,N3", help="timed sweeps per run in 2D and 3D")
    ap.add_argument("--warmup", type=int, default=0, help="untimed sweeps before each run")
    ap.add_argument("--report", metavar="CSV", help="print an earlier run's stencil-bench.csv")
    a = ap.parse_args()
    if a.report:
        for row in csv.DictReader(open(a.report)):
            report(row)
        return 0
    global BACKEND, WARMUP
    BACKEND, WARMUP = a.backend, a.warmup
    if a.warmup < 0:
        ap.error(f"--warmup {a.warmup}: accepted: an integer >= 0")
    for opt, val, slot in (("--sizes", a.sizes, 0), ("--iterations", a.iterations, 1)):
        if not val:
            continue
        try:
            n2, n3 = (int(v) for v in val.split(","))
            if min(n2, n3) < 1:
                raise ValueError
        except ValueError:
            example = "16384,512" if opt == "--sizes" else "512,256"
            ap.error(f"{opt} {val!r}: accepted: two positive integers N2,N3 (e.g. {example})")
        for dim, n in ((2, n2), (3, n3)):
            shape = list(SHAPES[dim])
            shape[slot] = str(n) if slot == 0 else n
            SHAPES[dim] = tuple(shape)
    if os.geteuid() == 0:  # Open MPI refuses root unless told twice
        os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    os.makedirs(os.path.join(ROOT, a.outdir), exist_ok=True)
    ok = all(verify(dim, a.shiftbox) for dim in (2, 3))
    rows = []
    for np_ in [int(n) for n in a.np.split(",")]:
        for dim in (2, 3):
            copy, sweep, ratio, near = calibrate(dim, np_, a.shiftbox)
            runs = {"none": {d: [] for d in DEPTHS}, "temporal": {d: [] for d in DEPTHS}}
            for _ in range(a.rounds):
                for blocking in runs:
                    got = rates(dim, np_, blocking, a.shiftbox)
                    if sorted(got) != sorted(DEPTHS):
                        sys.exit(f"stencil_bench.py: {dim}D, {np_} ranks, {blocking}: rows for "
                                 f"depths {sorted(got)}, expected {list(DEPTHS)}")
                    for d, g in got.items():
                        runs[blocking][d].append(g)
            med = {b: {d: statistics.median(v) for d, v in r.items()} for b, r in runs.items()}
            row = {"backend": a.backend, "dim": dim, "ranks": np_, "copy_gbs": copy, "sweep_gbs": sweep,
                   "sweep_over_copy": ratio, "roofline_gcells": np_ * copy / 8.0,
                   **{f"{b}_d{d}": med[b][d] for b in med for d in DEPTHS},
                   "in_cache_gcells": near if near is not None else ""}
            rows.append(row)
            report(row)
    path = os.path.join(ROOT, a.outdir, "stencil-bench.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: f"{v:.4g}" if isinstance(v, float) else v for k, v in r.items()})
    print(f"\nresults: {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
