#!/usr/bin/python3
"""Validate ShiftBox's JSON outputs against the schemas in docs/schema/.

usage: tools/schema_check.py [--schema-dir DIR] FILE...

Each FILE is checked against the schema its own "command" field names
(docs/schema/COMMAND.schema.json: exchange, md, pingpong, model, stencil,
smpcost); a file without "command" whose name starts with "hockney" (or that
holds alpha_s and per_size at the top) is a hockney.json
(docs/schema/hockney.schema.json).  On stdout, per file:

  FILE: ok
  FILE: /json/pointer: message        (one line per error)

and on stderr 'FILE: cannot read: ...' or 'FILE: no schema ...' for a file
that could not be checked.

The pointer (RFC 6901) names the value that fails; "/" is the document
itself (a missing required key is reported at the object that lacks it).
A file that is not JSON counts as invalid, at "/".

Exit status: 0 every file valid; 1 some file invalid; 2 usage: bad
arguments, a file that cannot be read, a file whose schema cannot be
picked (no "command", or a command without a schema), or an unusable
schema directory (2 wins over 1).

Needs python3-jsonschema (Debian: apt-get install python3-jsonschema;
4.10 or later, for JSON Schema draft 2020-12).  The schemas reference
docs/schema/common.schema.json by relative $ref; every *.schema.json of the
directory is preloaded, so nothing is fetched.
"""
import argparse
import json
import os
import pathlib
import re
import sys
import warnings

try:
    import jsonschema
    from jsonschema.validators import validator_for
except ImportError:  # pragma: no cover - reported as a usage error
    jsonschema = None

USAGE, INVALID, OK = 2, 1, 0
DEFAULT_DIR = pathlib.Path(__file__).resolve().parent.parent / "docs" / "schema"


def pointer(path):
    """An RFC 6901 JSON pointer of a jsonschema error's path; "/" for the root."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else "/"


class Schemas:
    """Every *.schema.json of a directory, keyed by file URI, and validators."""

    def __init__(self, directory):
        self.dir = pathlib.Path(directory).resolve()
        if not self.dir.is_dir():
            raise OSError(f"schema directory {directory}: not a directory")
        self.store = {}
        self.known = []
        for path in sorted(self.dir.glob("*.schema.json")):
            self.known.append(path.name[: -len(".schema.json")])
            with open(path, encoding="utf-8") as f:
                try:
                    schema = json.load(f)
                except json.JSONDecodeError as e:
                    raise OSError(f"schema {path}: not JSON: {e}") from e
            self.store[path.as_uri()] = schema
        if not self.store:
            raise OSError(f"schema directory {directory}: no *.schema.json in it")
        self.validators = {}

    def validator(self, name):
        """The validator of NAME.schema.json, or None when there is no such schema."""
        if name in self.validators:
            return self.validators[name]
        uri = (self.dir / f"{name}.schema.json").as_uri()
        schema = self.store.get(uri)
        if schema is None or name == "common":
            return None
        cls = validator_for(schema)
        cls.check_schema(schema)
        # RefResolver: jsonschema 4.10 (Debian 12); deprecated, still working, from 4.18
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            resolver = jsonschema.RefResolver(base_uri=uri, referrer=schema, store=self.store)
            v = cls(schema, resolver=resolver)
        self.validators[name] = v
        return v


def message(error):
    """jsonschema's message, said plainly where a key is forbidden in the case at hand
    (a false schema), a long value (an array, an object) named by its size, not printed."""
    text = error.message
    shown = repr(error.instance)
    if len(shown) > 80 and text.startswith(shown):
        kind = ("an array of %d items" % len(error.instance) if isinstance(error.instance, list)
                else "an object of %d keys" % len(error.instance)
                if isinstance(error.instance, dict) else shown[:60] + "...")
        text = kind + text[len(shown):]
    if error.schema is False and error.absolute_path:
        return f"{error.absolute_path[-1]!r} must not be present in this case"
    return text


def relevant(errors):
    """Drops the echoes of an error: a key whose value fails is not "evaluated", so
    unevaluatedProperties names it too, and a value of the wrong type fails its enum
    as well; the error that matters is the nested one, the type."""
    failing = {tuple(e.absolute_path) for e in errors}
    mistyped = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    kept = []
    for e in errors:
        here = tuple(e.absolute_path)
        if e.validator in ("enum", "const") and here in mistyped:
            continue
        if e.validator == "unevaluatedProperties":
            inner = re.search(r"\((.*) (?:was|were) unexpected\)", e.message)
            keys = re.findall(r"'((?:[^'\\]|\\.)*)'", inner.group(1)) if inner else []
            if keys and all(any(f[: len(here) + 1] == here + (k,) for f in failing)
                            for k in keys):
                continue
        kept.append(e)
    return kept


def schema_name(path, doc):
    """Which schema checks doc: its command, else hockney by name or content."""
    if isinstance(doc, dict) and isinstance(doc.get("command"), str):
        return doc["command"]
    base = os.path.basename(path)
    if base.startswith("hockney") and base.endswith(".json"):
        return "hockney"
    if isinstance(doc, dict) and "command" not in doc and "alpha_s" in doc and "per_size" in doc:
        return "hockney"
    return None


def check(path, schemas, out):
    """Checks one file; returns OK, INVALID or USAGE after printing its lines."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"{path}: cannot read: {e.strerror if isinstance(e, OSError) else e}",
              file=sys.stderr)
        return USAGE
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"{path}: /: not JSON: {e}", file=out)
        return INVALID
    name = schema_name(path, doc)
    commands = ", ".join(n for n in schemas.known if n not in ("common", "hockney"))
    if name is None:
        print(f"{path}: no schema: no \"command\" field, and not a hockney.json; accepted: "
              f"a summary.json of {commands}, or a hockney.json", file=sys.stderr)
        return USAGE
    validator = schemas.validator(name)
    if validator is None:
        print(f"{path}: no schema for command '{name}' in {schemas.dir}; accepted: {commands}",
              file=sys.stderr)
        return USAGE
    errors = sorted(relevant(list(validator.iter_errors(doc))),
                    key=lambda e: ([(0, p, "") if isinstance(p, int) else (1, 0, p)
                                    for p in e.absolute_path], e.message))
    if not errors:
        print(f"{path}: ok", file=out)
        return OK
    for e in errors:
        print(f"{path}: {pointer(e.absolute_path)}: {message(e)}", file=out)
    return INVALID


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="schema_check.py",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Validate ShiftBox's summary.json and hockney.json files against the JSON "
                    "Schemas (draft 2020-12) in docs/schema/: each file by the schema of its "
                    "\"command\" field; hockney.json by its name (hockney*.json) or content.",
        epilog="output: 'FILE: ok', or 'FILE: /json/pointer: message' per error ('/' is the "
               "whole document)\nexit status: 0 all valid, 1 some invalid (or not JSON), "
               "2 usage (bad arguments, unreadable file,\nno schema for the file, unusable "
               "schema directory)\nexample: tools/schema_check.py results/pp/summary.json "
               "results/pp/hockney.json")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="summary.json or hockney.json files to check")
    parser.add_argument("--schema-dir", default=str(DEFAULT_DIR), metavar="DIR",
                        help="directory of the *.schema.json files (default: docs/schema "
                             "beside tools/)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return USAGE if e.code else OK
    if jsonschema is None:
        print("schema_check.py: needs python3-jsonschema (apt-get install python3-jsonschema)",
              file=sys.stderr)
        return USAGE
    try:
        schemas = Schemas(args.schema_dir)
    except OSError as e:
        print(f"schema_check.py: {e}", file=sys.stderr)
        return USAGE
    worst = OK
    for path in args.files:
        try:
            rc = check(path, schemas, sys.stdout)
        except jsonschema.exceptions.SchemaError as e:
            print(f"{path}: its schema is not valid JSON Schema: {e.message} at "
                  f"{pointer(e.absolute_path)}", file=sys.stderr)
            rc = USAGE
        except jsonschema.exceptions.RefResolutionError as e:
            print(f"{path}: a $ref of its schema does not resolve: {e}", file=sys.stderr)
            rc = USAGE
        worst = max(worst, rc)
    return worst


if __name__ == "__main__":
    sys.exit(main())
