#!/usr/bin/python3
"""How well the Hockney model predicts, from shiftbox's own outputs.

    tools/model_check.py pingpong PINGPONG_DIR
        each size's measured one-way time (the statistic of hockney.json)
        against the fitted line of its protocol segment, alpha + beta m
    tools/model_check.py exchange EXCHANGE_DIR
        each point's measured median against the model's prediction (a run
        made with model.hockney), and per module the median |error|
"""
import json
import statistics
import sys


def pingpong(d):
    s = json.load(open(f"{d}/summary.json"))
    h = s["hockney"]
    segs = h["segments"]
    print(f"# one-way ping-pong, {h['mode']}, {h['statistic']}: measured against the fitted "
          "lines")
    print(f"{'bytes':>9} {'measured_us':>12} {'fitted_us':>10} {'error%':>7}  segment")
    errors = []
    for p in h["per_size"]:
        m, t = p["bytes"], p["time_s"]
        seg = segs[0]
        if len(segs) == 2 and m * m > segs[0]["to_bytes"] * segs[1]["from_bytes"]:
            seg = segs[1]
        fit = seg["alpha_s"] + seg["beta_s_per_byte"] * m
        err = (t - fit) / fit
        errors.append(abs(err))
        print(f"{m:>9.0f} {t * 1e6:>12.3f} {fit * 1e6:>10.3f} {err * 100:>7.1f}  "
              f"{seg['from_bytes']:.0f}..{seg['to_bytes']:.0f}")
    print(f"median |error| {statistics.median(errors) * 100:.1f} %, largest "
          f"{max(errors) * 100:.1f} %")
    if len(segs) == 2:
        print(f"the protocol changes between {segs[0]['to_bytes']:.0f} and "
              f"{segs[1]['from_bytes']:.0f} bytes")


def exchange(d):
    s = json.load(open(f"{d}/summary.json"))
    per = {}
    print(f"{'module':>12} {'k':>3} {'bytes':>8} {'median_us':>10} {'predicted':>10} "
          f"{'error%':>7} 1sd")
    for p in s["points"]:
        if "predicted_s" not in p:
            sys.exit(f"model_check: {d} was run without model.hockney")
        t = p["time_s"]["median"]
        err = p["prediction_error"]
        per.setdefault(p["module"], []).append(abs(err))
        print(f"{p['module']:>12} {p['k']:>3} {p['bytes']:>8} {t * 1e6:>10.3f} "
              f"{p['predicted_s'] * 1e6:>10.3f} {err * 100:>7.1f} "
              f"{'yes' if p['prediction_within_sd'] else 'no'}")
    for module, errs in per.items():
        print(f"{module}: median |error| {statistics.median(errs) * 100:.1f} %, largest "
              f"{max(errs) * 100:.1f} % over {len(errs)} points")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("pingpong", "exchange"):
        sys.exit(__doc__)
    {"pingpong": pingpong, "exchange": exchange}[sys.argv[1]](sys.argv[2])
