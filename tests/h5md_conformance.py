#!/usr/bin/env python3
"""Tests tools/h5md_check.py: a file that follows every rule passes, and one
broken copy per rule fails naming that rule.  Files given as arguments (the
checkpoints and trajectories ShiftBox wrote) must conform.

    /usr/bin/python3 tests/h5md_conformance.py [SHIFTBOX_FILE ...]

Prints "ok - ..." / "not ok - ..." per case (tests/checkpoint.sh counts
them) and ends with "N passed, N failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK = [sys.executable, os.path.join(ROOT, "tools", "h5md_check.py")]
N, FRAMES = 5, 3


def vlstr(obj, name, text):
    obj.attrs.create(name, text, dtype=h5py.string_dtype("ascii"))


def fixstr(obj, name, text):
    obj.attrs.create(name, np.bytes_(text))


def element(group, name, value, unit=None, link_to=None):
    """A time-dependent element; step and time hard-linked to link_to's."""
    g = group.create_group(name)
    if link_to is None:
        g["step"] = np.arange(FRAMES, dtype=np.int64) * 10
        g["time"] = np.arange(FRAMES, dtype=np.float64) * 0.05
        vlstr(g["time"], "unit", "ps")
    else:
        g["step"] = link_to["step"]  # assigning an object makes a hard link
        g["time"] = link_to["time"]
    g.create_dataset("value", data=value, maxshape=(None,) + value.shape[1:])
    if unit:
        vlstr(g["value"], "unit", unit)
    return g


def write_good(path):
    """Every element the specification standardises, each as it asks."""
    rng = np.random.default_rng(1)
    with h5py.File(path, "w") as f:
        h5md = f.create_group("h5md")
        h5md.attrs["version"] = np.array([1, 1], dtype=np.int32)
        author = h5md.create_group("author")
        fixstr(author, "name", "A. Tester")
        fixstr(author, "email", "tester@example.org")
        creator = h5md.create_group("creator")
        fixstr(creator, "name", "h5md_conformance.py")
        fixstr(creator, "version", "1")
        units = h5md.create_group("modules/units")
        units.attrs["version"] = np.array([1, 0], dtype=np.int32)
        vlstr(units, "system", "SI")
        g = f.create_group("particles/all")
        box = g.create_group("box")
        box.attrs["dimension"] = np.int32(3)
        box.attrs.create("boundary", np.array([b"periodic"] * 3, dtype="S8"))
        position = element(g, "position", rng.random((FRAMES, N, 3)), "nm")
        element(box, "edges", np.tile(np.diag([2.0, 2.0, 2.0]), (FRAMES, 1, 1)), "nm", position)
        element(g, "image", np.zeros((FRAMES, N, 3), dtype=np.int32), None, position)
        element(g, "velocity", rng.random((FRAMES, N, 3)), "nm ps-1", position)
        element(g, "force", rng.random((FRAMES, N, 3)), "kJ mol-1 nm-1", position)
        g["mass"] = np.ones(N)
        vlstr(g["mass"], "unit", "u")
        g["species"] = np.zeros(N, dtype=np.int32)
        ids = np.tile(np.arange(N, dtype=np.int64), (FRAMES, 1))
        ids[1, -1] = -1  # particle 4 absent from frame 1: its id is the fill value (H5MD "id")
        idg = g.create_group("id")
        idg["step"] = position["step"]
        idg.create_dataset("value", data=ids, fillvalue=-1)
        charge = g.create_group("charge")
        charge["step"] = position["step"]
        charge["value"] = np.zeros((FRAMES, N), dtype=np.int32)
        fixstr(charge, "type", "formal")
        energy = f.create_group("observables/potential_energy")
        energy["step"] = np.int64(10)
        energy["step"].attrs["offset"] = np.int64(0)
        energy["value"] = rng.random(FRAMES)
        vlstr(energy["value"], "unit", "10+3 J mol-1")
        f.create_group("parameters").attrs["anything"] = 1


def relink(f, group, name, data):
    del f[group][name]
    f[group][name] = data


def replace_attr(obj, name, value, dtype=None):
    del obj.attrs[name]
    obj.attrs.create(name, value, dtype=dtype)


# One broken copy per rule: (rule, what the copy does, how it is made).
BREAKS = [
    ("root", "no /h5md group", lambda f: f.move("h5md", "h5md_renamed")),
    ("version", "version as one integer",
     lambda f: replace_attr(f["h5md"], "version", np.int32(1))),
    ("version", "version 2.0", lambda f: replace_attr(f["h5md"], "version", np.array([2, 0], np.int32))),
    ("author", "author name variable-length",
     lambda f: replace_attr(f["h5md/author"], "name", "A. Tester", h5py.string_dtype())),
    ("author", "no author group", lambda f: f.move("h5md/author", "h5md/writer")),
    ("creator", "creator version missing", lambda f: f["h5md/creator"].attrs.__delitem__("version")),
    ("creator", "creator name variable-length",
     lambda f: replace_attr(f["h5md/creator"], "name", "x", h5py.string_dtype())),
    ("module-version", "units module version as a string",
     lambda f: replace_attr(f["h5md/modules/units"], "version", np.bytes_("1.0"))),
    ("units-module", "unit attributes without the units module", lambda f: f.__delitem__("h5md/modules")),
    ("units-system", "units module without system",
     lambda f: f["h5md/modules/units"].attrs.__delitem__("system")),
    ("unit-type", "a fixed-length unit string",
     lambda f: replace_attr(f["particles/all/position/value"], "unit", np.bytes_("nm"))),
    ("unit-place", "a unit on step",
     lambda f: vlstr(f["particles/all/position/step"], "unit", "ps")),
    ("unit-string", "a symbol outside the SI system ('tau')",
     lambda f: replace_attr(f["particles/all/position/time"], "unit", "tau", h5py.string_dtype("ascii"))),
    ("unit-string", "a number after a symbol ('nm 10')",
     lambda f: replace_attr(f["particles/all/position/value"], "unit", "nm 10", h5py.string_dtype("ascii"))),
    ("unit-string", "a symbol twice ('nm nm-1')",
     lambda f: replace_attr(f["particles/all/velocity/value"], "unit", "nm nm-1", h5py.string_dtype("ascii"))),
    ("element", "velocity without step", lambda f: f.__delitem__("particles/all/velocity/step")),
    ("element", "a Float step",
     lambda f: relink(f, "observables/potential_energy", "step", np.float64(10))),
    ("frames", "velocity with one frame fewer than its step",
     lambda f: relink(f, "particles/all/velocity", "value", np.zeros((FRAMES - 1, N, 3)))),
    ("monotonic", "position steps decreasing",
     lambda f: f["particles/all/position/step"].write_direct(np.array([20, 10, 0], np.int64))),
    ("box", "no box", lambda f: f.__delitem__("particles/all/box")),
    ("box", "boundary 'wall'",
     lambda f: replace_attr(f["particles/all/box"], "boundary", np.array([b"wall"] * 3, dtype="S8"))),
    ("box", "boundary variable-length",
     lambda f: replace_attr(f["particles/all/box"], "boundary", ["periodic"] * 3, h5py.string_dtype())),
    ("edges", "periodic box without edges", lambda f: f.__delitem__("particles/all/box/edges")),
    ("edges", "edges of 2 components in 3 dimensions",
     lambda f: relink(f, "particles/all/box/edges", "value", np.ones((FRAMES, 2)))),
    ("box-links", "box step a copy, not a hard link",
     lambda f: relink(f, "particles/all/box/edges", "step", np.arange(FRAMES, dtype=np.int64) * 10)),
    ("box-links", "box time a soft link",
     lambda f: relink(f, "particles/all/box/edges", "time", h5py.SoftLink("/particles/all/position/time"))),
    ("image", "image step a copy of position's",
     lambda f: relink(f, "particles/all/image", "step", np.arange(FRAMES, dtype=np.int64) * 10)),
    ("particle-shape", "velocity of 2 components",
     lambda f: relink(f, "particles/all/velocity", "value", np.zeros((FRAMES, N, 2)))),
    ("particle-shape", "mass of Integer type", lambda f: relink(f, "particles/all", "mass", np.ones(N, np.int32))),
    ("particle-shape", "species for one particle fewer",
     lambda f: relink(f, "particles/all", "species", np.zeros(N - 1, np.int32))),
    ("id-unique", "an id stored twice in a frame",
     lambda f: f["particles/all/id/value"].write_direct(np.zeros((FRAMES, N), np.int64))),
    ("charge-type", "charge type 'partial'",
     lambda f: replace_attr(f["particles/all/charge"], "type", np.bytes_("partial"))),
    ("charge-type", "formal charges of Float type",
     lambda f: relink(f, "particles/all/charge", "value", np.zeros((FRAMES, N)))),
]


def check(path):
    run = subprocess.run(CHECK + [path], capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def main(files):
    passed = failed = 0

    def report(ok, name, output=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok - {name}")
        else:
            failed += 1
            print(f"not ok - {name}")
            for line in output.strip().splitlines()[-15:]:
                print(f"    | {line}")

    tmp = tempfile.mkdtemp(prefix="h5md-conformance.")
    try:
        good = os.path.join(tmp, "good.h5md")
        write_good(good)
        rc, out = check(good)
        report(rc == 0 and "conforms" in out, "h5md_check passes a file that follows every rule", out)
        rules_seen = set()
        for i, (rule, what, breaker) in enumerate(BREAKS):
            broken = os.path.join(tmp, f"broken-{i:02d}.h5md")
            shutil.copy(good, broken)
            with h5py.File(broken, "r+") as f:
                breaker(f)
            rc, out = check(broken)
            rules_seen.add(rule)
            report(rc == 1 and f": {rule}: " in out, f"h5md_check catches {what} (rule {rule})", out)
        documented = {line.split()[0] for line in open(CHECK[1]).read().split("Rules (")[1]
                      .split('"""')[0].splitlines()[1:] if line.startswith("  ") and not line.startswith("   ")}
        report(len(documented) >= 15 and documented <= rules_seen, "every documented rule has a broken file that breaks it",
               f"documented {sorted(documented)}, without a broken file: {sorted(documented - rules_seen)}")
        rc, out = check(os.path.join(tmp, "missing.h5md"))
        report(rc == 1 and ": root: " in out, "h5md_check fails a file that does not exist", out)
        run = subprocess.run(CHECK, capture_output=True, text=True)
        report(run.returncode == 2, "h5md_check without a file exits 2", run.stderr)
        for path in files:
            rc, out = check(path)
            report(rc == 0 and "conforms" in out, f"{os.path.basename(path)} written by ShiftBox conforms", out)
    finally:
        shutil.rmtree(tmp)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
