#!/usr/bin/python3
"""One flipped byte in a checkpoint: caught, or harmless (issue 13, case 3).

    tests/checkpoint_flip.py SHIFTBOX CHECKPOINT WORKDIR [--offsets 60] [--seed 13]

CHECKPOINT was written by `shiftbox md` on 2 ranks (grid 2x1x1) at step 10
of md.cells=6,6,6 (md.drift_bound = 1 here and in the restarts: the
state is what is compared).  For each of --offsets random offsets (from byte 8 on:
the first 8 bytes are HDF5's signature, and a file without it is not HDF5
at all, refused with 2 like any other), one byte is inverted in a copy and
the copy restarted to step 20, alternately on 2 ranks (the same grid: the
exact path) and on 1 rank (redistributed).  Each restart must end either
with exit 3 and a message naming the checkpoint, or with exit 0 and a final
state bit-identical to a restart from the intact file (the byte lay in
unused space).  No other outcome: not 0 with another state, not 1 or 2, not
a crash, not a hang (60 s).  tools/h5check.py must report each copy (exit 0
or 1) without crashing.  Prints one line per offset and a summary; exit 1
on any other outcome.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def restart(shiftbox, path, ranks, out):
    """Exit code, output and (energies, digests) of a restart to step 20."""
    cmd = [shiftbox, "md", "-s", "md.cells=6,6,6", "-s", "md.steps=20",
           "-s", "md.drift_bound=1", "--restart", path, "--out", out]
    if ranks > 1:
        cmd = ["mpirun", "--oversubscribe", "-np", str(ranks)] + cmd
    shutil.rmtree(out, ignore_errors=True)
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=ENV)
    except subprocess.TimeoutExpired:
        return "hang", "", None
    state = None
    summary = os.path.join(out, "summary.json")
    if run.returncode == 0 and os.path.exists(summary):
        md = json.load(open(summary))["md"]
        state = (repr(md["final"]["total"]), repr(md["final"]["potential"]),
                 md["position_digest"], md["velocity_digest"])
    return run.returncode, run.stdout + run.stderr, state


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("shiftbox")
    ap.add_argument("checkpoint")
    ap.add_argument("workdir")
    ap.add_argument("--offsets", type=int, default=60)
    ap.add_argument("--seed", type=int, default=13)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    intact = open(a.checkpoint, "rb").read()
    reference = {}
    for ranks in (2, 1):
        rc, text, state = restart(a.shiftbox, a.checkpoint, ranks, os.path.join(a.workdir, "ref"))
        if rc != 0 or state is None:
            print(f"the intact checkpoint does not restart on {ranks} rank(s) (exit {rc}):\n{text}")
            return 1
        reference[ranks] = state
    rng = random.Random(a.seed)
    offsets = sorted(rng.sample(range(8, len(intact)), a.offsets))
    caught = harmless = 0
    wrong = []
    copy = os.path.join(a.workdir, "flipped.h5md")
    for i, at in enumerate(offsets):
        data = bytearray(intact)
        data[at] ^= 0xFF
        open(copy, "wb").write(data)
        ranks = 2 if i % 2 == 0 else 1
        rc, text, state = restart(a.shiftbox, copy, ranks, os.path.join(a.workdir, "run"))
        message = next((l for l in text.splitlines() if "checkpoint" in l and
                        "flipped.h5md" in l), "")
        if rc == 3 and message:
            caught += 1
            outcome = "exit 3: " + message.strip()[:150]
        elif rc == 0 and state == reference[ranks]:
            harmless += 1
            outcome = "exit 0, the same final state (unused space)"
        else:
            outcome = f"exit {rc}" + (", another final state" if rc == 0 else "")
            wrong.append(f"offset {at}: {outcome}")
            print(text[-2000:])
        check = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "h5check.py"), copy],
                               capture_output=True, text=True, timeout=120)
        if check.returncode not in (0, 1) or "Traceback" in check.stdout + check.stderr:
            wrong.append(f"offset {at}: h5check ended with {check.returncode}")
        print(f"offset {at:7d} ({ranks} rank{'s' if ranks > 1 else ''}): {outcome}; "
              f"h5check exit {check.returncode}", flush=True)
    print(f"{len(offsets)} flipped bytes in a {len(intact)}-byte checkpoint: {caught} caught "
          f"(exit 3), {harmless} harmless (exit 0, bit-identical), {len(wrong)} other")
    for w in wrong:
        print("  " + w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
