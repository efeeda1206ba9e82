#!/usr/bin/python3
"""Validates a ShiftBox checkpoint and prints a one-line verdict.

    python3 tools/h5check.py FILE [FILE ...]

Checks a ShiftBox MD checkpoint: written by ShiftBox as H5MD 1.1, the box
periodic in 3 dimensions with edges a 3x3 diagonal, position, velocity and
id holding one frame, the ids 0..N-1 once each, positions in the box, the
run state under /parameters and /parameters/restart, every dataset chunked
and read back whole: the particle tables named by /parameters/restart
row_digest_of against their row digests (row_digests, computed as
src/checkpoint/row_digest.c does), every other dataset with Fletcher32
(HDF5 verifies each chunk's checksum as it reads); and last the rules of
the H5MD 1.1 specification (tools/h5md_check.py).
Exit code 0 when every file passes, 1 otherwise, 2 on bad usage.  Each
file is checked in a child process: a damaged file that makes the HDF5
library itself crash is reported as FAILED like any other, never a crash.
"""
import os
import signal
import subprocess
import sys

import numpy as np

try:
    import h5py
except ImportError:  # pragma: no cover - h5py is a dependency (make deps)
    sys.exit("h5check: needs h5py (Debian: python3-h5py)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h5md_check  # noqa: E402  (the H5MD 1.1 rules, beside this file)


class Invalid(Exception):
    pass


def need(condition, why):
    if not condition:
        raise Invalid(why)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check_header(f):
    """ShiftBox's own: H5MD 1.1 written by ShiftBox (the spec's rules: h5md_check)."""
    version = list(np.asarray(f["h5md"].attrs.get("version", [])).ravel()) if "h5md" in f else []
    need(version == [1, 1], f"/h5md version {version}, not [1, 1]")
    need(text(f["h5md/creator"].attrs.get("name", "")) == "ShiftBox", "creator is not ShiftBox")


def check_element(group, name, frames_shape):
    element = group[name]
    for part in ("step", "time", "value"):
        need(part in element, f"{element.name} has no {part}")
    value = element["value"]
    need(value.shape == frames_shape, f"{value.name} has shape {value.shape}, not {frames_shape}")
    need(element["step"].shape == (1,) and element["time"].shape == (1,),
         f"{element.name}: step and time must hold one frame")
    return value


def check_particles(f):
    all_ = f["particles/trajectory"]
    box = all_["box"]
    need(int(box.attrs["dimension"]) == 3, "box dimension is not 3")
    need([text(b) for b in box.attrs["boundary"]] == ["periodic"] * 3, "box is not periodic")
    edges = check_element(box, "edges", (1, 3, 3))[0]
    length = np.diag(edges)
    need(np.all(length > 0) and np.count_nonzero(edges - np.diag(length)) == 0,
         "box edges are not a positive diagonal")
    n = all_["position/value"].shape[1]
    position = check_element(all_, "position", (1, n, 3))[0]
    check_element(all_, "velocity", (1, n, 3))
    ids = check_element(all_, "id", (1, n))[0]
    need(np.array_equal(np.sort(ids), np.arange(n)), "ids are not 0..N-1 once each")
    need(np.all((position >= 0) & (position < length)), "a position lies outside the box")
    step = int(all_["position/step"][0])
    return n, step


def check_parameters(f, n, step):
    need("parameters" in f, "no /parameters group")
    p = f["parameters"].attrs
    for key in ("program", "version", "kind", "step", "time", "seed", "ranks", "dims",
                "team_size", "module", "configuration", "atoms", "md.cells", "md.density",
                "md.cutoff", "md.dt", "md.skin", "conserved_energy_at_step_0"):
        need(key in p, f"/parameters has no attribute {key}")
    need(int(p["step"]) == step, f"/parameters step {int(p['step'])} but the frame's {step}")
    need(int(p["atoms"]) == n, f"/parameters atoms {int(p['atoms'])} but {n} particles")
    restart = f["parameters/restart"]
    per_rank = restart["particles_per_rank"][:]
    need(per_rank.shape == (int(p["ranks"]),) and per_rank.sum() == n,
         "particles_per_rank does not add up to the particles")
    for name in ("position_in_box", "position_at_build"):
        need(restart[name].shape == (n, 3), f"{restart[name].name} is not [N][3]")


ROW_KEY = 0x9E3779B97F4A7C15


def mix(z):
    """SplitMix64's finaliser on an array of uint64 (wrapping like C)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def row_digest(rows):
    """The sum of the rows' digests (src/checkpoint/row_digest.h), modulo 2^64."""
    n = rows.shape[0]
    words = np.ascontiguousarray(rows).reshape(n, -1).view(np.uint64)
    h = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(ROW_KEY)
    for j in range(words.shape[1]):
        h = mix(h ^ words[:, j])
    return int(h.sum(dtype=np.uint64))


def row_digests(f):
    """{dataset name: stored digest} of the particle tables."""
    restart = f["parameters/restart"].attrs
    need("row_digests" in restart and "row_digest_of" in restart,
         "/parameters/restart has no row_digests and row_digest_of")
    names = ["/" + text(t) for t in np.asarray(restart["row_digest_of"]).ravel()]
    sums = [int(v) & (2**64 - 1) for v in np.asarray(restart["row_digests"]).ravel()]
    need(len(names) == len(sums), "row_digests and row_digest_of differ in length")
    return dict(zip(names, sums))


def check_checksums(f):
    """Every dataset chunked and read back whole: the particle tables against
    their row digests, every other one with Fletcher32."""
    datasets = []
    f.visititems(lambda name, obj: datasets.append(obj) if isinstance(obj, h5py.Dataset) else None)
    digests = row_digests(f)
    for name in digests:
        need(name in f, f"row_digest_of names {name}, which the file lacks")
    for d in datasets:
        need(d.chunks is not None, f"{d.name} is not chunked")
        need(d.name in digests or d.fletcher32,
             f"{d.name} is not chunked with Fletcher32 and has no row digest")
        try:
            values = d[()]
        except OSError as e:  # HDF5 reports a failed checksum as a read error
            raise Invalid(f"{d.name} does not read back: {e}") from None
        if d.name in digests:
            rows = values[0] if d.name.startswith("/particles/") else values
            got = row_digest(rows)
            need(got == digests[d.name],
                 f"{d.name}: its rows do not match their row digest "
                 f"({digests[d.name]:016x} stored, {got:016x} read)")
    return len(datasets)


def check(path):
    with h5py.File(path, "r") as f:
        check_header(f)
        n, step = check_particles(f)
        check_parameters(f, n, step)
        count = check_checksums(f)
    conformance = h5md_check.Checker(path)
    conformance.run()
    need(not conformance.problems, f"not H5MD 1.1: {'; '.join(conformance.problems[:3])}")
    return f"H5MD 1.1, {n} particles at step {step}, {count} datasets checksummed and read"


def check_one(path):
    """In the child: one line, exit 0 (ok) or 1 (failed)."""
    try:
        print(f"h5check: {path}: ok ({check(path)})")
        return 0
    except Invalid as e:
        print(f"h5check: {path}: FAILED: {e}")
    except Exception as e:  # a damaged file can fail anywhere inside h5py
        print(f"h5check: {path}: FAILED: {type(e).__name__}: {e}")
    return 1


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "--one" and len(argv) == 3:
        return check_one(argv[2])
    for path in argv[1:]:
        if path.startswith("-"):
            print(f"h5check: unknown option {path!r}; usage: h5check.py FILE... (--help)",
                  file=sys.stderr)
            return 2
    failed = 0
    for path in argv[1:]:
        child = subprocess.run([sys.executable, __file__, "--one", path],
                               capture_output=True, text=True)
        if child.returncode < 0 or child.returncode > 1:
            sig = -child.returncode
            name = signal.Signals(sig).name if child.returncode < 0 else f"exit {child.returncode}"
            print(f"h5check: {path}: FAILED: reading it crashed the HDF5 library ({name}): "
                  "the file is damaged")
        else:
            sys.stdout.write(child.stdout)
        failed += child.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
