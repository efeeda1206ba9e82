#!/usr/bin/python3
"""The key tables of docs/commands/COMMAND.md, generated from `shiftbox COMMAND --help`.

    tools/keys_doc.py [--check] [--docs DIR] [--shiftbox PATH] [COMMAND ...]

Each page holds its table between the lines
    <!-- keys: begin (tools/keys_doc.py) -->
    <!-- keys: end -->
and this script writes there one row per key that `shiftbox COMMAND --help`
lists: key, default, accepted values and meaning, as --help gives them (only
`|` escaped for Markdown), so that the pages cannot drift from the code.

--check writes nothing: it lists every page whose table differs from what
--help gives now, naming the keys that differ, are missing or are extra.
COMMAND limits the work to those pages (default: all six).  --docs DIR reads
and writes DIR/COMMAND.md instead of docs/commands/COMMAND.md; --shiftbox
the binary (default build/shiftbox).

Exit codes: 0 the pages agree (or were written); 1 --check found a page
that differs (or lacks its markers or is missing); 2 bad usage, or a binary
or page that cannot be used.
"""

import argparse
import os
import re
import subprocess
import sys

COMMANDS = ("md", "exchange", "pingpong", "model", "stencil", "smpcost")
BEGIN = "<!-- keys: begin (tools/keys_doc.py) -->"
END = "<!-- keys: end -->"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A key line of --help: four spaces, section.key, `default VALUE`, then the
# accepted values in parentheses at the end; its meaning follows on lines
# indented further.
KEY_LINE = re.compile(r"^    ([a-z_]+\.[a-z_0-9]+)\s+default (.*)$")
MEANING_INDENT = " " * 8


def usage_error(message):
    print(f"keys_doc: {message}", file=sys.stderr)
    sys.exit(2)


def split_accepted(rest):
    """'VALUE   (ACCEPTED)' -> (VALUE, ACCEPTED): the last balanced (...) group."""
    rest = rest.rstrip()
    if not rest.endswith(")"):
        return None
    depth = 0
    for i in range(len(rest) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(rest[i], 0)
        if depth == 0:
            return rest[:i].strip(), rest[i + 1:-1]
    return None


def parse_help(text, command):
    """[(key, default, accepted, meaning)] in the order --help lists them."""
    keys = []
    for line in text.splitlines():
        match = KEY_LINE.match(line)
        if match:
            parts = split_accepted(match.group(2))
            if parts is None:
                usage_error(f"cannot read the key line of `shiftbox {command} --help`: {line!r}")
            keys.append([match.group(1), parts[0], parts[1], []])
        elif keys and line.startswith(MEANING_INDENT) and line.strip():
            keys[-1][3].append(line.strip())
    if not keys:
        usage_error(f"`shiftbox {command} --help` lists no keys")
    return [(k, d, a, " ".join(m)) for k, d, a, m in keys]


def help_text(binary, command):
    try:
        run = subprocess.run([binary, command, "--help"], capture_output=True, text=True,
                             timeout=60)
    except OSError as e:
        usage_error(f"cannot run {binary}: {e.strerror} (build it with make)")
    except subprocess.TimeoutExpired:
        usage_error(f"{binary} {command} --help did not finish within 60 s")
    if run.returncode != 0:
        usage_error(f"{binary} {command} --help exited {run.returncode}: {run.stderr.strip()}")
    return run.stdout


def cell(text):
    return text.replace("|", "\\|")


def row(key, default, accepted, meaning):
    shown = f"`{cell(default)}`" if default else ""
    return f"| `{key}` | {shown} | {cell(accepted)} | {cell(meaning)} |"


def table(command, keys):
    """The lines between the markers."""
    lines = [
        f"Generated from `shiftbox {command} --help` by `tools/keys_doc.py`; "
        "edit the key's text in `src/keys.c`, then run `tools/keys_doc.py`. "
        "An empty default is the empty string.",
        "",
        "| key | default | accepted | meaning |",
        "|---|---|---|---|",
    ]
    lines += [row(*k) for k in keys]
    return lines


def between_markers(text):
    """(before, inside, after) as lists of lines, or None without both markers."""
    lines = text.split("\n")
    try:
        begin = lines.index(BEGIN)
        end = lines.index(END, begin + 1)
    except ValueError:
        return None
    return lines[:begin + 1], lines[begin + 1:end], lines[end:]


def table_rows(lines):
    """{key: row line} of a page's table."""
    rows = {}
    for line in lines:
        match = re.match(r"^\| `([a-z_]+\.[a-z_0-9]+)` \|", line)
        if match:
            rows[match.group(1)] = line
    return rows


def differences(want, have):
    """What differs between the wanted lines and a page's, key by key."""
    want_rows, have_rows = table_rows(want), table_rows(have)
    found = []
    for key, line in want_rows.items():
        if key not in have_rows:
            found.append(f"{key}: missing")
        elif have_rows[key] != line:
            found.append(f"{key}: differs (--help gives: {line})")
    found += [f"{key}: not a key of this command" for key in have_rows if key not in want_rows]
    if not found and list(want_rows) != list(have_rows):
        found.append("the keys are not in --help's order")
    if not found and want != have:
        found.append("the text around the rows differs")
    return found


def main():
    ap = argparse.ArgumentParser(
        description="Write (or --check) the key tables of docs/commands/COMMAND.md "
        "from `shiftbox COMMAND --help`.")
    ap.add_argument("commands", nargs="*", metavar="COMMAND",
                    help=f"the pages to handle (default: {' '.join(COMMANDS)})")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 listing every page that differs")
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs", "commands"),
                    help="folder of the COMMAND.md pages (default docs/commands)")
    ap.add_argument("--shiftbox", default=os.path.join(ROOT, "build", "shiftbox"),
                    help="the binary (default build/shiftbox)")
    args = ap.parse_args()
    for command in args.commands:
        if command not in COMMANDS:
            usage_error(f"unknown command '{command}'; commands: {' '.join(COMMANDS)}")
    if not os.path.isdir(args.docs):
        usage_error(f"--docs {args.docs}: not a folder")

    differing = 0
    for command in args.commands or COMMANDS:
        page = os.path.join(args.docs, f"{command}.md")
        want = table(command, parse_help(help_text(args.shiftbox, command), command))
        try:
            text = open(page, encoding="utf-8").read()
            parts = between_markers(text)
            problem = None if parts else f"lacks the lines '{BEGIN}' and '{END}'"
        except OSError as e:
            problem = f"cannot be read ({e.strerror})"
        if problem:  # a page to write is a usage error; a page to check, a difference
            if not args.check:
                usage_error(f"{page}: {problem}")
            print(f"{page}: {problem}")
            differing += 1
            continue
        before, have, after = parts
        if args.check:
            found = differences(want, have)
            if found:
                differing += 1
                print(f"{page}: the key table differs from `shiftbox {command} --help` "
                      "(run tools/keys_doc.py):")
                for line in found:
                    print(f"    {line}")
            continue
        if have == want:
            print(f"{page}: {len(table_rows(want))} keys, unchanged")
            continue
        tmp = page + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(before + want + after))
        os.replace(tmp, page)
        print(f"{page}: {len(table_rows(want))} keys, written")

    if args.check:
        if differing:
            print(f"keys_doc: {differing} page(s) differ from --help")
            return 1
        print(f"keys_doc: {len(args.commands or COMMANDS)} page(s) agree with --help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
