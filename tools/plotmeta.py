"""What every ShiftBox plot says in its title: the machine, the ranks, the
MPI library and the date of the run it shows, read from the run's
summary.json (the one beside the CSV being plotted).

    from plotmeta import run_label
    fig.suptitle(f"... \\n{run_label(csv_path)}")
"""
import json
import os


def run_label(path):
    """'host vm, 2 ranks, Open MPI v4.1.4, 2026-11-25' for the run whose
    output is `path` (a file in an --out folder, or the folder); 'run of
    unknown origin (no summary.json)' when it has none."""
    folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    try:
        with open(os.path.join(folder, "summary.json")) as f:
            env = json.load(f)["environment"]
    except (OSError, ValueError, KeyError):
        return "run of unknown origin (no summary.json beside it)"
    library = env.get("mpi_library", "MPI").split(",")[0]
    nodes = env.get("placement", {}).get("nodes")
    where = f"{nodes} nodes" if nodes and nodes > 1 else f"host {env.get('host', '?')}"
    ranks = env.get("ranks", "?")
    return (f"{where}, {ranks} rank{'s' if ranks != 1 else ''}, {library}, "
            f"{env.get('date_utc', '')[:10]}")
