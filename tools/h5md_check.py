#!/usr/bin/python3
"""Checks HDF5 files against the H5MD 1.1 specification and its units module.

    /usr/bin/python3 tools/h5md_check.py [--quiet] FILE [FILE ...]

Written from the text of the specification (h5md.nongnu.org, release 1.1.0,
and modules/units 1.0.0), not from ShiftBox's writer: any H5MD 1.1 file can
be checked.  Each rule has an id; a file that breaks one is reported as

    FILE: RULE: /path: what is wrong

and the verdict line "FILE: conforms to H5MD 1.1 (N rules checked)" or
"FILE: N violations".  Exit code 0 when every file conforms, 1 when one does
not (or is not an HDF5 file), 2 on bad usage, 3 when the checker itself
stops on a file (no verdict).

Rules (section of the specification in brackets):
  root             /h5md exists, a group [H5MD root level]
  version          /h5md version: Integer[2], major 1 [H5MD metadata]
  author           /h5md/author with name, and email if present:
                   fixed-length String[] [H5MD metadata]
  creator          /h5md/creator with name and version: fixed-length
                   String[] [H5MD metadata]
  module-version   every /h5md/modules/<m> has version: Integer[2] [Modules]
  units-module     a unit attribute only where /h5md/modules/units exists
                   [units: Objective]
  units-system     the units module has system: VL String[] [units: Unit system]
  unit-type        unit is scalar, variable-length, ASCII [units: Unit attribute]
  unit-place       unit only on a dataset: an element's value or time, or a
                   time-independent element [units: Unit attribute]
  unit-string      factors separated by one space; at most one number, first;
                   known symbols with SI prefixes, each once; powers non-zero
                   signed integers [units: Unit string, The "SI" unit system]
  element          a time-dependent element holds step and value; step
                   Integer, [variable] (explicit) or [] (fixed); time of the
                   same shape, Float or Integer; offsets scalar
                   [Time-dependent data]
  frames           value's first dimension equals the length of step and time
                   [Time-dependent data]
  monotonic        explicit step and time in monotonically increasing order
                   [Explicit step and time storage]
  box              each /particles/<group> holds box with dimension Integer[]
                   and boundary fixed-length String[D] of periodic/none
                   [Simulation box]
  edges            box/edges present unless every boundary is none; a vector
                   [D] or matrix [D][D] (after the [variable] axis), Float
                   or Integer [Simulation box]
  box-links        a time-dependent box's step and time are hard links to
                   position's [Simulation box]
  image            image only with position; its step and time hard links to
                   position's [Particles group]
  particle-shape   position, image, velocity, force: [variable][N][D] (or
                   [N][D]) of Float or Integer; mass Float, species
                   Enumeration or Integer, id Integer, charge Integer or Float,
                   each [variable][N] (or [N]); one N per group
                   [Particles group]
  id-unique        id values unique within a frame, fill value aside
                   [Particles group: id]
  charge-type      charge's type, if present, is a fixed-length String[] of
                   effective/formal; formal charges are Integer
                   [Particles group: charge]
"""
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError:  # pragma: no cover - make deps installs both
    sys.exit("h5md_check: needs h5py and numpy (Debian: python3-h5py)")

SPEC = "H5MD 1.1"

# modules/units: unit symbols of the "SI" system, constants, SI prefixes.
UNIT_SYMBOLS = {
    "m", "Ang", "L", "s", "Hz", "kg", "g", "u", "N", "dyn", "Pa", "bar", "atm", "poise",
    "J", "cal", "erg", "eV", "W", "K", "mol", "A", "C", "V", "cd", "rad", "degree",
    "pi", "kB", "Nav", "c", "e",
}
SI_PREFIXES = ["da", "E", "P", "T", "G", "M", "k", "h", "d", "c", "m", "u", "n", "p", "f", "a"]
NUMBER = re.compile(r"^[0-9]+(\.[0-9]+)?([+-][1-9][0-9]*)?$")
SYMBOL = re.compile(r"^([A-Za-z]+)([+-][1-9][0-9]*)?$")

VECTOR_ELEMENTS = ("position", "image", "velocity", "force")
SCALAR_ELEMENTS = ("mass", "species", "id", "charge")


class Checker:
    def __init__(self, path):
        self.path = path
        self.problems = []
        self.rules = set()
        self.units_module = False

    def rule(self, rule, ok, where, why):
        self.rules.add(rule)
        if not ok:
            self.problems.append(f"{self.path}: {rule}: {where}: {why}")
        return ok

    # ---- attribute helpers --------------------------------------------------
    @staticmethod
    def attr_type(obj, name):
        aid = obj.attrs.get_id(name)
        return aid.get_type(), aid.get_space()

    def fixed_string(self, rule, obj, name, shape=()):
        where = f"{obj.name} attribute {name}"
        if not self.rule(rule, name in obj.attrs, obj.name, f"attribute {name} missing"):
            return None
        tid, space = self.attr_type(obj, name)
        if not self.rule(rule, isinstance(tid, h5py.h5t.TypeStringID), where, "not a string"):
            return None
        self.rule(rule, not tid.is_variable_str(), where,
                  "a variable-length string where the specification asks for fixed-length")
        self.rule(rule, space.shape == shape, where,
                  f"dataspace {space.shape or 'scalar'}, expected {shape or 'scalar'}")
        return obj.attrs[name]

    def int_pair(self, rule, obj, name):
        where = f"{obj.name} attribute {name}"
        if not self.rule(rule, name in obj.attrs, obj.name, f"attribute {name} missing"):
            return None
        tid, space = self.attr_type(obj, name)
        ok = self.rule(rule, isinstance(tid, h5py.h5t.TypeIntegerID), where, "not of Integer type")
        ok = self.rule(rule, space.shape == (2,), where,
                       f"dataspace {space.shape or 'scalar'}, expected rank 1 and size 2") and ok
        return [int(v) for v in obj.attrs[name]] if ok else None

    # ---- metadata -----------------------------------------------------------
    def check_h5md(self, f):
        if not self.rule("root", isinstance(f.get("h5md"), h5py.Group), "/", "no /h5md group"):
            return
        h5md = f["h5md"]
        version = self.int_pair("version", h5md, "version")
        if version is not None:
            self.rule("version", version[0] == 1, "/h5md attribute version",
                      f"{version[0]}.{version[1]}: this checker knows H5MD 1.x")
        author = h5md.get("author")
        if self.rule("author", isinstance(author, h5py.Group), "/h5md", "no author group"):
            self.fixed_string("author", author, "name")
            if "email" in author.attrs:
                self.fixed_string("author", author, "email")
        creator = h5md.get("creator")
        if self.rule("creator", isinstance(creator, h5py.Group), "/h5md", "no creator group"):
            self.fixed_string("creator", creator, "name")
            self.fixed_string("creator", creator, "version")
        modules = h5md.get("modules")
        if isinstance(modules, h5py.Group):
            for name, module in modules.items():
                self.int_pair("module-version", module, "version")
                if name == "units":
                    self.units_module = True
                    self.check_units_system(module)

    def check_units_system(self, module):
        where = f"{module.name} attribute system"
        if not self.rule("units-system", "system" in module.attrs, module.name,
                         "attribute system missing"):
            return
        tid, space = self.attr_type(module, "system")
        self.rule("units-system", isinstance(tid, h5py.h5t.TypeStringID) and tid.is_variable_str()
                  and space.shape == (), where, "not a scalar variable-length string")

    # ---- units ---------------------------------------------------------------
    def check_unit(self, obj, parent_is_element):
        where = f"{obj.name} attribute unit"
        self.rule("units-module", self.units_module, where,
                  "a unit attribute without the /h5md/modules/units module")
        tid, space = self.attr_type(obj, "unit")
        string = isinstance(tid, h5py.h5t.TypeStringID)
        self.rule("unit-type", string and tid.is_variable_str() and space.shape == ()
                  and tid.get_cset() == h5py.h5t.CSET_ASCII, where,
                  "not a scalar variable-length ASCII string")
        name = obj.name.rsplit("/", 1)[-1]
        placed = isinstance(obj, h5py.Dataset) and (
            not parent_is_element or name in ("value", "time"))
        self.rule("unit-place", placed, where,
                  "unit belongs on an element's value or time, or a time-independent dataset")
        if string:
            value = obj.attrs["unit"]
            value = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
            why = unit_string_problem(value)
            self.rule("unit-string", why is None, where, f"{value!r}: {why}")

    def check_units_everywhere(self, f):
        def visit(name, obj):
            if "unit" in obj.attrs:
                parent = obj.parent
                self.check_unit(obj, is_element(parent))
        f.visititems(visit)

    # ---- time-dependent elements --------------------------------------------
    def check_element(self, group):
        """Checks a time-dependent element; returns its frame count or None."""
        where = group.name
        if not self.rule("element", isinstance(group.get("step"), h5py.Dataset), where, "no step dataset"):
            return None
        if not self.rule("element", isinstance(group.get("value"), h5py.Dataset), where, "no value dataset"):
            return None
        step, value = group["step"], group["value"]
        ok = self.rule("element", step.dtype.kind in "iu", step.name, f"step of type {step.dtype}, not Integer")
        ok = self.rule("element", len(value.shape) >= 1, value.name, "value is scalar, has no [variable] axis") and ok
        explicit = step.shape != ()
        ok = self.rule("element", step.ndim <= 1, step.name, f"shape {step.shape}: [variable] or []") and ok
        time = group.get("time")
        if time is not None:
            ok = self.rule("element", isinstance(time, h5py.Dataset) and time.dtype.kind in "iuf",
                           f"{where}/time", "time is not a Float or Integer dataset") and ok
            ok = self.rule("element", time.shape == step.shape, time.name,
                           f"shape {time.shape}, step's is {step.shape}") and ok
        if not explicit:
            for ds in (step, time):
                if ds is not None and "offset" in ds.attrs:
                    tid, space = self.attr_type(ds, "offset")
                    self.rule("element", space.shape == (), f"{ds.name} attribute offset", "not scalar")
            return value.shape[0] if ok else None
        if not ok:
            return None
        frames = value.shape[0]
        self.rule("frames", step.shape[0] == frames, where,
                  f"value has {frames} frames, step {step.shape[0]}")
        if time is not None:
            self.rule("frames", time.shape[0] == frames, where,
                      f"value has {frames} frames, time {time.shape[0]}")
        for ds in (step, time):
            if ds is not None and ds.shape[0] > 1:
                data = ds[()]
                self.rule("monotonic", bool(np.all(np.diff(data) >= 0)), ds.name,
                          "not in monotonically increasing order")
        return frames

    def hard_link(self, rule, group, name, target_group, what):
        """group[name] must be a hard link to the object target_group[name]."""
        link = group.get(name, getlink=True)
        where = f"{group.name}/{name}"
        if not self.rule(rule, link is not None, group.name, f"no {name}, {what}"):
            return
        if not self.rule(rule, isinstance(link, h5py.HardLink), where,
                         f"a {type(link).__name__}, the specification asks for a hard link ({what})"):
            return
        other = target_group.get(name)
        self.rule(rule, other is not None and group[name].id == other.id, where,
                  f"not the same object as {target_group.name}/{name} ({what})")

    # ---- particles -------------------------------------------------------------
    def check_particles(self, f):
        particles = f.get("particles")
        if not isinstance(particles, h5py.Group):
            return
        for group in particles.values():
            if isinstance(group, h5py.Group):
                self.check_particle_group(group)

    def check_particle_group(self, group):
        box = group.get("box")
        dim = None
        if self.rule("box", isinstance(box, h5py.Group), group.name, "no box group"):
            dim = self.check_box(box)
        position = group.get("position")
        counts = {}
        frames_of = {}
        for name, element in group.items():
            if name == "box":
                continue
            if isinstance(element, h5py.Group):
                frames_of[name] = self.check_element(element)
                data = element.get("value")
                timed = True
            else:
                data, timed = element, False
            if not isinstance(data, h5py.Dataset) or name not in VECTOR_ELEMENTS + SCALAR_ELEMENTS:
                continue
            lead = 1 if timed else 0
            shape = data.shape[lead:]
            if name in VECTOR_ELEMENTS:
                ok = self.rule("particle-shape", len(shape) == 2 and (dim is None or shape[1] == dim),
                               data.name, f"shape {data.shape}: {'[variable]' if timed else ''}[N][{dim or 'D'}]")
                self.rule("particle-shape", data.dtype.kind in "iuf", data.name,
                          f"type {data.dtype}, not Float or Integer")
            else:
                ok = self.rule("particle-shape", len(shape) == 1, data.name,
                               f"shape {data.shape}: {'[variable]' if timed else ''}[N]")
                kinds = {"mass": "f", "species": "iu", "id": "iu", "charge": "iuf"}[name]
                enum = name == "species" and h5py.check_enum_dtype(data.dtype) is not None
                self.rule("particle-shape", enum or data.dtype.kind in kinds, data.name,
                          f"type {data.dtype} not allowed for {name}")
            if ok:
                counts[name] = shape[0]
            if name == "id" and ok:
                self.check_ids(data, timed)
            if name == "charge":
                self.check_charge(element, data)
        if len(set(counts.values())) > 1:
            self.rule("particle-shape", False, group.name,
                      "elements disagree on the number of particles: "
                      + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        else:
            self.rules.add("particle-shape")
        image = group.get("image")
        if image is not None:
            if self.rule("image", position is not None, group.name, "image without position"):
                if isinstance(image, h5py.Group) and isinstance(position, h5py.Group):
                    for name in ("step", "time"):
                        if name in position or name in image:
                            self.hard_link("image", image, name, position, "image follows position")
        else:
            self.rules.add("image")
        if isinstance(box, h5py.Group) and isinstance(box.get("edges"), h5py.Group):
            if self.rule("box-links", isinstance(position, h5py.Group), box.name,
                         "a time-dependent box needs a time-dependent position to share step and time"):
                for name in ("step", "time"):
                    if name in position or name in box["edges"]:
                        self.hard_link("box-links", box["edges"], name, position,
                                       "box step and time are position's")

    def check_box(self, box):
        dim = None
        if self.rule("box", "dimension" in box.attrs, box.name, "attribute dimension missing"):
            tid, space = self.attr_type(box, "dimension")
            if self.rule("box", isinstance(tid, h5py.h5t.TypeIntegerID) and space.shape == (),
                         f"{box.name} attribute dimension", "not a scalar Integer"):
                dim = int(box.attrs["dimension"])
        boundary = self.fixed_string("box", box, "boundary", (dim,) if dim else ())
        periodic = True
        if boundary is not None:
            values = [v.decode() if isinstance(v, bytes) else str(v) for v in np.atleast_1d(boundary)]
            self.rule("box", all(v in ("periodic", "none") for v in values),
                      f"{box.name} attribute boundary", f"{values}: each must be periodic or none")
            periodic = any(v != "none" for v in values)
        edges = box.get("edges")
        if edges is None:
            self.rule("edges", not periodic, box.name, "no edges although a boundary is periodic")
            return dim
        if isinstance(edges, h5py.Group):
            self.check_element(edges)
            data, lead = edges.get("value"), 1
        else:
            data, lead = edges, 0
        if isinstance(data, h5py.Dataset) and dim:
            shape = data.shape[lead:]
            self.rule("edges", shape in ((dim,), (dim, dim)), data.name,
                      f"shape {data.shape}: a vector [{dim}] or matrix [{dim}][{dim}] per frame")
            self.rule("edges", data.dtype.kind in "iuf", data.name, f"type {data.dtype}, not Float or Integer")
        return dim

    def check_ids(self, data, timed):
        fill = data.fillvalue if data.id.get_create_plist().fill_value_defined() == h5py.h5d.FILL_VALUE_USER_DEFINED else None
        frames = data[()] if timed else data[()][np.newaxis]
        for i, frame in enumerate(frames):
            ids = frame if fill is None else frame[frame != fill]
            if len(np.unique(ids)) != len(ids):
                self.rule("id-unique", False, data.name, f"frame {i}: an id stored more than once")
                return
        self.rules.add("id-unique")

    def check_charge(self, element, data):
        if "type" not in element.attrs:
            return
        value = self.fixed_string("charge-type", element, "type")
        if value is None:
            return
        value = value.decode() if isinstance(value, bytes) else str(value)
        self.rule("charge-type", value in ("effective", "formal"), f"{element.name} attribute type",
                  f"{value!r}: effective or formal")
        if value == "formal":
            self.rule("charge-type", data.dtype.kind in "iu", data.name, "formal charges must be Integer")

    def run(self):
        try:
            f = h5py.File(self.path, "r")
        except OSError as e:
            self.rule("root", False, "/", f"not an HDF5 file that opens ({e})")
            return
        with f:
            self.check_h5md(f)
            self.check_units_everywhere(f)
            self.check_particles(f)
            observables = f.get("observables")
            if isinstance(observables, h5py.Group):
                def visit(name, obj):
                    if isinstance(obj, h5py.Group) and "value" in obj:
                        self.check_element(obj)
                observables.visititems(visit)


def is_element(group):
    """A group that holds value (and step) is a time-dependent element."""
    return isinstance(group, h5py.Group) and "value" in group and "step" in group


def unit_string_problem(unit):
    """None when unit follows the units module's grammar, else why not."""
    if unit == "" or unit != unit.strip() or "  " in unit:
        return "factors are separated by exactly one space"
    seen = set()
    for i, factor in enumerate(unit.split(" ")):
        if NUMBER.match(factor):
            if i != 0:
                return f"number {factor!r} is not the first factor"
            continue
        m = SYMBOL.match(factor)
        if not m:
            return f"{factor!r} is neither a number nor a symbol with a signed power"
        symbol = m.group(1)
        if not known_symbol(symbol):
            return f"{symbol!r} is not a unit symbol of the SI system (with an SI prefix)"
        if symbol in seen:
            return f"symbol {symbol!r} occurs twice"
        seen.add(symbol)
    return None


def known_symbol(symbol):
    if symbol in UNIT_SYMBOLS:
        return True
    return any(symbol.startswith(p) and symbol[len(p):] in UNIT_SYMBOLS for p in SI_PREFIXES)


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return 0
    args = [a for a in argv if a != "--quiet"]
    quiet = len(args) != len(argv)
    if not args or any(a.startswith("-") for a in args):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        print("h5md_check: give one or more HDF5 files (options: --quiet)", file=sys.stderr)
        return 2
    bad = 0
    for path in args:
        checker = Checker(path)
        try:
            checker.run()
        except Exception as e:  # a file the checker cannot walk is no verdict
            print(f"h5md_check: {path}: checking stopped: {type(e).__name__}: {e}", file=sys.stderr)
            return 3
        for line in checker.problems:
            print(line)
        if checker.problems:
            bad += 1
            print(f"{path}: {len(checker.problems)} violations of {SPEC}")
        elif not quiet:
            print(f"{path}: conforms to {SPEC} ({len(checker.rules)} rules checked)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
