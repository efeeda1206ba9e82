#!/usr/bin/python3
"""One HTML page from one run's outputs, to send to colleagues.

    tools/report.py OUTDIR [--html FILE] [--no-plots] [--rows N]

OUTDIR is a `shiftbox COMMAND --out OUTDIR` folder.  The page holds: what
ran (command, machine, ranks, placement, MPI, date, the verdict), the
resolved configuration, the command's results as tables (every point of an
exchange sweep, md's energies and timings, ...), every CSV of the folder
(the first --rows rows each, default 200), and every PNG in it and in
OUTDIR/plots/, embedded, so the page is one self-contained file.  Without
--no-plots it first draws the command's plots when the folder has none
(tools/plot_exchange.py, plot_model.py, plot_stencil.py, plot_smpcost.py).
Writes OUTDIR/report.html (replacing an earlier report) or --html FILE.

Exit codes: 0 written; 2 OUTDIR is not a ShiftBox output folder (no
readable summary.json); 3 the page could not be written.
"""
import argparse
import base64
import csv
import glob
import html
import json
import os
import subprocess
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
PLOTTERS = {  # command -> (tool, arguments from the folder), drawn when the folder has no PNG
    "exchange": [("plot_exchange.py", lambda d: [os.path.join(d, "exchange.csv")])],
    "stencil": [("plot_stencil.py", lambda d: [os.path.join(d, "stencil.csv"), "--out",
                                               os.path.join(d, "plots")])],
    "smpcost": [("plot_smpcost.py", lambda d: [d])],
}
STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; } td.l, th.l { text-align: left; }
.pass { color: #070; font-weight: bold; } .fail { color: #b00; font-weight: bold; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
pre { background: #f7f7f7; padding: 0.5em; font-size: 0.8em; overflow-x: auto; }
"""


def esc(x):
    return html.escape(str(x))


def table(header, rows, left=1):
    out = ["<table><tr>"]
    out += [f'<th class="{"l" if i < left else ""}">{esc(h)}</th>' for i, h in enumerate(header)]
    out.append("</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f'<td class="{"l" if i < left else ""}">{esc(v)}</td>'
                                    for i, v in enumerate(r)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def number(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def flat(obj, prefix=""):
    """(key path, value) of every scalar in a JSON object; short lists as text."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from flat(v, f"{prefix}{k}." if prefix or k else k)
    elif isinstance(obj, list) and all(not isinstance(v, (dict, list)) for v in obj):
        yield prefix.rstrip("."), ", ".join(str(number(v)) for v in obj)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from flat(v, f"{prefix}{i}.")
    else:
        yield prefix.rstrip("."), number(obj)


def verdict(s):
    if "verified" not in s:
        return '<span>no verdict (nothing compared: %s)</span>' % esc(s.get("verification", "-"))
    ok = s["verified"]
    return f'<span class="{"pass" if ok else "fail"}">verified: {"true" if ok else "false"}</span>'


def what_ran(s, d):
    env = s.get("environment", {})
    place = env.get("placement") or {}
    nodes = "; ".join(f"{n['name']}: {n['ranks']}" for n in place.get("node", [])[:8])
    if len(place.get("node", [])) > 8:
        nodes += f"; ... ({place['nodes']} nodes)"
    rows = [("command", s.get("command")), ("folder", os.path.abspath(d)),
            ("ShiftBox", s.get("shiftbox_version")), ("date (UTC)", env.get("date_utc")),
            ("host", env.get("host")), ("ranks", env.get("ranks")), ("placement", nodes or "-"),
            ("MPI", env.get("mpi_library")), ("HDF5", env.get("hdf5")), ("GPU", env.get("gpu")),
            ("compiler", env.get("compiler")), ("vector loops", env.get("vector_loops", "-")),
            ("config file", s.get("config_file") or "-"),
            ("exit code", s.get("exit_code", "-"))]
    return table(["", ""], rows, left=2)


def exchange_points(s):
    pts = s.get("points", [])
    if not pts:
        return ""
    header = ["module", "c", "grid", "k", "bytes", "payload", "median µs", "mean µs",
              "predicted µs", "error %", "messages", "verified"]
    rows = []
    for p in pts:
        t = p.get("time_s", {})
        pred = p.get("predicted_s")
        rows.append([p["module"] + (" (auto)" if p.get("automatic") else ""), p["team_size"],
                     "x".join(map(str, p["dims"])), p["k"], p["bytes"], p["payload"],
                     f"{t.get('median', 0) * 1e6:.3f}", f"{t.get('mean', 0) * 1e6:.3f}",
                     f"{pred * 1e6:.3f}" if pred else "-",
                     f"{100 * p['prediction_error']:.1f}" if "prediction_error" in p else "-",
                     p.get("messages_per_exchange", "-"),
                     {True: "yes", False: "NO"}.get(p.get("verified"), "not checked")])
    return "<h2>Points</h2>" + table(header, rows, left=3)


def results(s):
    """The command's own results: every point of a sweep, or its scalars."""
    if s.get("command") == "exchange":
        return exchange_points(s)
    skip = {"config", "environment", "shiftbox_version", "command", "config_file"}
    rows = [(k, v) for k, v in flat({k: v for k, v in s.items() if k not in skip})]
    if len(rows) > 400:
        rows = rows[:400] + [("...", f"{len(rows) - 400} more in summary.json")]
    return "<h2>Results</h2>" + table(["key", "value"], rows, left=1)


def csv_tables(d, limit):
    out = []
    for path in sorted(glob.glob(os.path.join(d, "*.csv")) + glob.glob(os.path.join(d, "plots", "*.csv"))):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        if not rows:
            continue
        more = len(rows) - 1 - limit
        out.append(f"<h2>{esc(os.path.relpath(path, d))}</h2>")
        out.append(table(rows[0], [[number(v) for v in r] for r in rows[1:limit + 1]], left=1))
        if more > 0:
            out.append(f"<p>... {more} more rows in {esc(os.path.basename(path))}</p>")
    return "".join(out)


def pictures(d):
    out = []
    for path in sorted(glob.glob(os.path.join(d, "*.png")) + glob.glob(os.path.join(d, "plots", "*.png"))):
        with open(path, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        out.append(f"<h3>{esc(os.path.relpath(path, d))}</h3>"
                   f'<img alt="{esc(os.path.basename(path))}" src="data:image/png;base64,{data}">')
    return ("<h2>Plots</h2>" + "".join(out)) if out else ""


def draw(s, d):
    """The command's plots, when the folder has none yet."""
    if glob.glob(os.path.join(d, "*.png")) + glob.glob(os.path.join(d, "plots", "*.png")):
        return
    plotters = list(PLOTTERS.get(s.get("command"), []))
    if s.get("command") == "exchange" and any("predicted_s" in p for p in s.get("points", [])):
        plotters.append(("plot_model.py", lambda d: [os.path.join(d, "exchange.csv")]))
    for tool, args in plotters:
        r = subprocess.run([sys.executable, os.path.join(TOOLS, tool), *args(d)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"report: {tool} failed, the page goes without its plots: "
                  f"{(r.stderr or r.stdout).strip().splitlines()[-1:]}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--html", help="where to write the page (default OUTDIR/report.html)")
    ap.add_argument("--no-plots", action="store_true", help="do not draw missing plots")
    ap.add_argument("--rows", type=int, default=200, help="rows shown per CSV (default 200)")
    a = ap.parse_args()
    path = os.path.join(a.outdir, "summary.json")
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        print(f"report: {path}: {e}; accepted: a folder written by shiftbox COMMAND --out DIR",
              file=sys.stderr)
        return 2
    if not isinstance(s, dict) or "command" not in s:
        print(f"report: {path} is not a ShiftBox summary (no 'command')", file=sys.stderr)
        return 2
    if not a.no_plots:
        draw(s, a.outdir)
    env = s.get("environment", {})
    title = (f"ShiftBox {s['command']}: {env.get('ranks', '?')} ranks on "
             f"{env.get('host', '?')}, {env.get('date_utc', '')[:10]}")
    config = json.dumps(s.get("config", {}), indent=1)
    page = (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{esc(title)}</h1><p>{verdict(s)}</p>"
            f"<h2>What ran</h2>{what_ran(s, a.outdir)}{results(s)}"
            f"{pictures(a.outdir)}{csv_tables(a.outdir, a.rows)}"
            f"<h2>Configuration</h2><pre>{esc(config)}</pre>"
            f"<p>Written by tools/report.py from {esc(os.path.abspath(a.outdir))}.</p></body></html>")
    out = a.html or os.path.join(a.outdir, "report.html")
    try:
        with open(out + ".tmp", "w") as f:
            f.write(page)
        os.replace(out + ".tmp", out)
    except OSError as e:
        print(f"report: cannot write {out}: {e}", file=sys.stderr)
        return 3
    print(f"report: {out} ({len(page) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
