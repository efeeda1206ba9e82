#!/usr/bin/python3
"""Seed 003's accuracy check on a `shiftbox smpcost --out DIR` run.

    tools/smpcost_accuracy.py DIR [--fail-above 15]

Prints, for the fit that predicts (smp.fit) and the one reported beside it,
the average relative error of HrHwM-c (good family) and HrHwM (bad family)
on the validation suites, against the target of 10 % (the paper: 1.4-6.9 %,
Tables 5-8); exits 1 when the predicting fit's average exceeds
--fail-above percent for either family.  A timing-derived target: `make
bench` runs it (bench 6), make check only tests that it can fail.
"""
import argparse
import json
import sys


def averages(families):
    """(good HrHwM-c, bad HrHwM) average errors of one fit's families."""
    pick = {"good": "HrHwM-c", "bad": "HrHwM"}
    got = []
    for family, name in pick.items():
        entry = next(f for f in families[family]["functions"] if f["function"] == name)
        got.append(entry["average_relative_error"] if entry["fitted"] else float("inf"))
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--fail-above", type=float, default=15.0, help="percent")
    args = ap.parse_args()
    try:
        smp = json.load(open(f"{args.dir}/summary.json"))["smpcost"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"smpcost_accuracy: {args.dir}/summary.json: {e}")
    fits = [(smp["fit"], averages(smp)), (smp["other_fit"]["fit"], averages(smp["other_fit"]))]
    for i, (name, (good, bad)) in enumerate(fits):
        print(f"smp.fit = {name}{'' if i == 0 else ' (beside)'}: HrHwM-c (good) {100 * good:.2f} %, "
              f"HrHwM (bad) {100 * bad:.2f} % average on the validation suites "
              f"(target 10 %, the paper 1.4-6.9 %)")
    good, bad = fits[0][1]
    if max(good, bad) * 100 > args.fail_above:
        print(f"smpcost_accuracy: smp.fit = {fits[0][0]} misses: an average above "
              f"{args.fail_above:g} %")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
